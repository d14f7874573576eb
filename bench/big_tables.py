"""Big Carousel tables: the core against an integer program (HiGHS), issue 31.

    python bench/big_tables.py --positions 24 --seed 31

Positions from tests/carousel_big.py (50-100 table cards, 0-4 jokers, hands of 8-20,
one joker per meld or any, going out and not, cycled). Each position is solved in a
fresh child process, one at a time, by the core (``carousel.best_play``, text in,
``Play`` out) and by the integer program of tests/carousel_milp.py
(``scipy.optimize.milp``); the two values must agree. Prints a Markdown table: each
position's size, both times and the core's peak memory (the child's maximum resident
set less the interpreter's own before the call), then the totals, worst and median.
A position the core does not answer within ``--limit`` seconds counts at the limit
and is marked.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from carousel_big import big_positions  # noqa: E402


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _core(args):
    from rummy51 import carousel
    from rummy51.carousel.solver import _VALMUL, _position_counts
    table, hand, rules, limit = args
    _position_counts(table, hand, rules)          # parse once before the baseline
    base = _rss_mb()
    t = time.perf_counter()
    try:
        play = carousel.best_play(table, hand, rules, time_limit=limit)
    except carousel.GaveUp:
        return None, time.perf_counter() - t, _rss_mb() - base
    dt = time.perf_counter() - t
    value = (play.hand_points - play.points_left) * _VALMUL + play.cards_played if play.can_meld else 0
    return value, dt, _rss_mb() - base


def _milp(args):
    from carousel_milp import milp_value
    from rummy51.carousel.solver import _position_counts
    table, hand, rules, limit = args
    _, _, c = _position_counts(table, hand, rules)
    base = _rss_mb()
    t = time.perf_counter()
    v = milp_value(c.T, c.H, c.D, c.JT, c.JH, rules, time_limit=limit)
    return v, time.perf_counter() - t, _rss_mb() - base


def _in_child(fn, args):
    ctx = mp.get_context("fork")
    with ctx.Pool(1, maxtasksperchild=1) as pool:
        return pool.apply(fn, (args,))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=24)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--limit", type=float, default=60.0, help="seconds a solver may take a position")
    a = ap.parse_args(argv)
    rows = []
    print("| # | table cards | hand | jokers | one a meld | core s | core MB | HiGHS s | HiGHS MB |")
    print("|---:|---:|---:|---:|:---:|---:|---:|---:|---:|")
    for i, (table, hand, rules) in enumerate(big_positions(a.positions, a.seed)):
        tc = sum(len(m) for m in table)
        vc, tcore, mcore = _in_child(_core, (table, hand, rules, a.limit))
        vm, tmilp, mmilp = _in_child(_milp, (table, hand, rules, a.limit))
        if vc is not None and vc != vm:
            print(f"position {i}: the core says {vc}, the integer program {vm}", file=sys.stderr)
            return 1
        mark = "" if vc is not None else " (gave up)"
        rows.append((tcore if vc is not None else a.limit, tmilp, mcore))
        print(f"| {i} | {tc} | {len(hand)} | {rules.jokers} | {'yes' if rules.max_jokers_per_meld else ''} "
              f"| {tcore:.3f}{mark} | {mcore:.0f} | {tmilp:.3f} | {mmilp:.0f} |", flush=True)
    core_t = [r[0] for r in rows]
    milp_t = [r[1] for r in rows]
    print()
    print(f"total: core {sum(core_t):.2f} s, HiGHS {sum(milp_t):.2f} s "
          f"(core / HiGHS = {sum(core_t) / sum(milp_t):.2f})")
    print(f"worst: core {max(core_t):.2f} s, HiGHS {max(milp_t):.2f} s; median: core "
          f"{statistics.median(core_t):.3f} s, HiGHS {statistics.median(milp_t):.3f} s; "
          f"core peak memory {max(r[2] for r in rows):.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
