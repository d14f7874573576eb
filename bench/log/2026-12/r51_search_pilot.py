"""Issue 29: a quick paired pilot of the Rummy 51 search bot against the tactician.

    python bench/log/2026-12/r51_search_pilot.py FIRST_DEAL DEALS BUDGET [CANDIDATES [Z]] [--workers N]
        [--horizon TURNS] [--tune W_SCORE W_WIN STOP_Z DROP_Z DRAW_X UNOPENED_X OPENED_X SEARCH_PLAYS]

Deal d (``FIRST_DEAL`` .. ``FIRST_DEAL + DEALS - 1``) is played twice by the C kernel
(``_game.play_table``, default rules, 2 players, first player d mod 2, deal generator
``default_rng([d, 2])``): the search bot (``(BUDGET, CANDIDATES, Z, 0)``, its generator
``default_rng([d, 1])``) in seat 0 against the tactician, then in seat 1. Prints the
paired win-rate difference (search less tactician, points) and score difference
(tactician's less the search bot's: higher is better for the search bot) with 95 %
intervals over the deals, and games per CPU-second of the workers (``time.process_time``).

``--horizon`` cuts each rollout off after that many turns and scores it by the static
margin (the search parameters' fifth value). Its default here is 0, rollouts to the deal's
end (the bot before the horizon, as the rows of bench/log/2026-12/README-to-2026-12-06.md
before it were run); the bot's default is ``256 --horizon 4``.

``--tune`` needs the kernel built with ``bench/log/2026-12/r51_search_tune.patch`` (``git apply`` it,
rebuild; it adds ``_game._search_tune``): weights of the rollout margin's score and win
terms, the early-stop and first-look drop z of the race, budget multipliers for draws,
plays before and after opening (0: no search there), and whether lay-downs, lay-offs and
joker swaps after opening are candidates (1) or not (0). ``--stats`` (with the patch)
prints, per decision type, decisions, rollouts and switches a game (one process).
"""
import argparse
import json
import time
from multiprocessing import Pool

import numpy as np

from rummy51 import RuleSet, _game
from rummy51.r51.fastgame import greedy_kernel


def work(args):
    lo, hi, par, tune = args
    if tune:
        _game._search_tune(*tune)
    k = greedy_kernel(RuleSet())
    out = []
    t0 = time.process_time()
    for s in range(lo, hi):
        d = sc = 0
        for seat in (0, 1):
            codes = [4, 3] if seat == 0 else [3, 4]
            rngs = [np.random.default_rng([s, 1]) if c == 4 else None for c in codes]
            pars = [par if c == 4 else None for c in codes]
            w, _how, _len, scores, *_ = _game.play_table(
                k, np.random.default_rng([s, 2]), 2, s % 2, codes, rngs, pars)
            d += (w == seat) - (w == 1 - seat)
            sc += scores[1 - seat] - scores[seat]
        out.append((d / 2, sc / 2))
    return out, time.process_time() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("first", type=int)
    ap.add_argument("deals", type=int)
    ap.add_argument("budget", type=int)
    ap.add_argument("candidates", type=int, nargs="?", default=3)
    ap.add_argument("z", type=float, nargs="?", default=1.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--horizon", type=int, default=0)
    ap.add_argument("--tune", type=float, nargs="+", default=[])
    ap.add_argument("--stats", action="store_true")
    a = ap.parse_args()
    par = (a.budget, a.candidates, a.z, 0.0, a.horizon)
    chunks = [(lo, min(lo + 25, a.first + a.deals), par, a.tune)
              for lo in range(a.first, a.first + a.deals, 25)]
    t0 = time.time()
    if a.stats:
        res = [work(c) for c in chunks]
    else:
        with Pool(a.workers) as p:
            res = p.map(work, chunks)
    d = np.array([x[0] for r, _ in res for x in r])
    sc = np.array([x[1] for r, _ in res for x in r])
    cpu = sum(c for _, c in res)
    print(json.dumps(dict(
        deals=f"{a.first}..{a.first + a.deals - 1}", params=par, tune=a.tune,
        win_points=round(100 * d.mean(), 2),
        ci=round(196 * d.std(ddof=1) / np.sqrt(len(d)), 2),
        score=round(sc.mean(), 2), score_ci=round(1.96 * sc.std(ddof=1) / np.sqrt(len(sc)), 2),
        games_per_cpu_s=round(2 * a.deals / cpu, 1), wall_s=round(time.time() - t0))))
    if a.stats:
        n = 2 * a.deals
        for name, (c, r, _t, sw) in zip(["draw, unopened", "draw, opened", "play, unopened",
                                         "play, opened"], _game._search_stats(), strict=True):
            print(f"{name:15s} a game: {c / n:5.2f} decisions, {r / n:6.1f} rollouts, "
                  f"{sw / n:.2f} switches")


if __name__ == "__main__":
    main()
