"""Issue 29: one Rummy 51 search seat among tacticians at 3 or 4 players (a sanity check).

    python bench/log/2026-12/r51_search_multi.py PLAYERS DEALS BUDGET HORIZON

Deal d (0 .. DEALS - 1) is played once by the C kernel (``_game.play_table``, default
rules, deal generator ``default_rng([d, 2])``, first player (d // PLAYERS) mod PLAYERS):
the search bot (``(BUDGET, 3, 1.0, 0.0, HORIZON)``, its generator ``default_rng([d, 1])``)
in seat d mod PLAYERS, tacticians elsewhere. Prints the search seat's win rate with its
95 % interval (a fair share is 1 / PLAYERS) and games per CPU-second of the 2 workers.
"""
import sys
import time
from multiprocessing import Pool

import numpy as np

from rummy51 import RuleSet, _game
from rummy51.r51.fastgame import greedy_kernel


def work(args):
    players, par, deals = args
    k = greedy_kernel(RuleSet())
    w = 0
    t = time.process_time()
    for s in deals:
        seat = s % players
        codes = [4 if q == seat else 3 for q in range(players)]
        rngs = [np.random.default_rng([s, 1]) if c == 4 else None for c in codes]
        pars = [par if c == 4 else None for c in codes]
        res = _game.play_table(k, np.random.default_rng([s, 2]), players,
                               (s // players) % players, codes, rngs, pars)
        w += res[0] == seat
    return w, time.process_time() - t


def main():
    players, n, budget, horizon = (int(x) for x in sys.argv[1:5])
    par = (budget, 3, 1.0, 0.0, horizon)
    with Pool(2) as p:
        out = p.map(work, [(players, par, range(i, n, 2)) for i in range(2)])
    w = sum(o[0] for o in out)
    cpu = sum(o[1] for o in out)
    f = w / n
    print(players, par, f"search wins {100 * f:.1f}% ± {196 * np.sqrt(f * (1 - f) / n):.1f} "
          f"(fair {100 / players:.0f}%), {n / cpu:.1f} games/CPU-s")


if __name__ == "__main__":
    main()
