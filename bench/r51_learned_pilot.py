"""Paired runs of two Rummy 51 kernel bots (the learned evaluator's measurements).

    python bench/r51_learned_pilot.py A B FIRST_DEAL DEALS [--workers N] [--model PATH]
        [--cost]

A bot is ``search[:BUDGET[:HORIZON]]`` (the search bot with the learned model),
``plain[:BUDGET[:HORIZON]]`` (search-plain), ``learned``, ``tactician``, ``greedy``.
Deal d (``FIRST_DEAL`` .. ``FIRST_DEAL + DEALS - 1``) is played twice by the C kernel
(``_game.play_table``, default rules, 2 players, first player d mod 2, deal generator
``default_rng([d, 2])``): A in seat 0 against B, then in seat 1; a search seat's
generator is ``default_rng([d, 1])`` for A and ``default_rng([d, 3])`` for B. Prints A's
win rate over the 2 * DEALS games with its 95 % interval over the deals (each deal's
two games averaged: the pairs are independent), the paired win-rate difference A less
B in points, the score difference (B's less A's: higher is better for A), and games per
CPU-second of the workers (``time.process_time``).

``--cost``: also CPU per decision of A and of B: the same deals played by two tacticians
(the reference) give the tactician's CPU per decision; a seat's cost is the run's CPU
less the tactician's cost times the other seat's decisions, over its decisions (the
decisions counted from the kernel's move log). Run it on one worker.
"""
import argparse
import json
import os
import time
from multiprocessing import Pool

import numpy as np

from rummy51 import RuleSet, _game
from rummy51.learned import load_model
from rummy51.r51 import fastgame
from rummy51.r51.search import DEFAULT_CANDIDATES, DEFAULT_HORIZON, DEFAULT_ROLLOUTS, DEFAULT_Z

_MODEL = None


def seat(spec, model):
    """``(code, params)`` of a bot spec."""
    name, *rest = spec.split(":")
    if name in ("search", "plain"):
        budget = int(rest[0]) if rest else DEFAULT_ROLLOUTS
        horizon = int(rest[1]) if len(rest) > 1 else DEFAULT_HORIZON
        par = (budget, DEFAULT_CANDIDATES, DEFAULT_Z, 0.0, horizon)
        return (4, (*par, model)) if name == "search" else (5, par)
    if name == "learned":
        return 6, (model,)
    return fastgame.BOT_CODES[name], None


def work(args):
    lo, hi, a, b, model_path, cost, tune = args
    if tune:
        _game._learned_tune(*tune)
    model = load_model(model_path) if model_path else load_model("r51")
    k = fastgame.greedy_kernel(RuleSet())
    sa, sb = seat(a, model), seat(b, model)
    out = []
    cpu = [0.0, 0.0]       # this pair's run, the tacticians' reference
    dec = [0, 0, 0]        # decisions of A, of B, of the reference
    log = np.empty(1 << 15, np.int32)
    for s in range(lo, hi):
        w_a = sc = 0.0
        for sa_seat in (0, 1):
            seats = [sa, sb] if sa_seat == 0 else [sb, sa]
            codes = [c for c, _ in seats]
            rngs = [np.random.default_rng([s, 1 if (i == sa_seat) else 3])
                    if c in (4, 5) else None for i, c in enumerate(codes)]
            t0 = time.process_time()
            w, _how, _len, scores, *_rest, log_n = _game.play_table(
                k, np.random.default_rng([s, 2]), 2, s % 2, codes, rngs, [p for _, p in seats],
                log if cost else None)
            cpu[0] += time.process_time() - t0
            if cost:
                acts = fastgame._decode(log, log_n)
                per = _per_seat(acts, s % 2)
                dec[0] += per[sa_seat]
                dec[1] += per[1 - sa_seat]
                t0 = time.process_time()
                *_x, ln = _game.play_table(k, np.random.default_rng([s, 2]), 2, s % 2, [3, 3],
                                           None, None, log)
                cpu[1] += time.process_time() - t0
                dec[2] += sum(_per_seat(fastgame._decode(log, ln), s % 2))
            w_a += (w == sa_seat) / 2
            sc += (scores[1 - sa_seat] - scores[sa_seat]) / 2
        out.append((w_a, sc))
    return out, cpu, dec


def _per_seat(actions, first):
    """Decisions (moves) per seat of a 2-player deal: a turn is the draw and the moves up
    to the discard; seats alternate from ``first``."""
    from rummy51.r51.actions import Discard

    per = [0, 0]
    p = first
    for act in actions:
        per[p] += 1
        if isinstance(act, Discard):
            p = 1 - p
    return per


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("first", type=int)
    ap.add_argument("deals", type=int)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--model", default=None, help="a model file (default: the shipped r51 model)")
    ap.add_argument("--cost", action="store_true")
    ap.add_argument("--chunk", type=int, default=25)
    ap.add_argument("--tune", type=int, nargs="+", default=[],
                    help="_game._learned_tune: PRIOR [ALL_MOVES] (pilot switches)")
    a = ap.parse_args()
    chunks = [(lo, min(lo + a.chunk, a.first + a.deals), a.a, a.b, a.model, a.cost, a.tune)
              for lo in range(a.first, a.first + a.deals, a.chunk)]
    t0 = time.time()
    if a.workers == 1:
        res = [work(c) for c in chunks]
    else:
        with Pool(a.workers) as p:
            res = p.map(work, chunks)
    w = np.array([x[0] for r, _, _ in res for x in r])
    sc = np.array([x[1] for r, _, _ in res for x in r])
    cpu = np.sum([c for _, c, _ in res], axis=0)
    dec = np.sum([d for _, _, d in res], axis=0)
    ci = 1.96 * w.std(ddof=1) / np.sqrt(len(w))
    out = dict(a=a.a, b=a.b, tune=a.tune, deals=f"{a.first}..{a.first + a.deals - 1}",
               model=a.model or os.environ.get("RUMMY51_MODEL_DIR") or "shipped",
               a_win_pct=round(100 * w.mean(), 2), ci=[round(100 * (w.mean() - ci), 2),
                                                       round(100 * (w.mean() + ci), 2)],
               score=round(sc.mean(), 2),
               score_ci=round(1.96 * sc.std(ddof=1) / np.sqrt(len(sc)), 2),
               games_per_cpu_s=round(2 * a.deals / cpu[0], 1), wall_s=round(time.time() - t0))
    if a.cost:
        tact = cpu[1] / max(dec[2], 1)
        out.update(tactician_us_per_decision=round(1e6 * tact, 2),
                   decisions_a=int(dec[0]), decisions_b=int(dec[1]))
        # the run's CPU less the reference's share of the other seat
        both = cpu[0]
        out["a_us_per_decision_if_b_is_tactician"] = round(1e6 * (both - tact * dec[1]) / dec[0], 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
