"""Big Carousel tables: the core against an integer program (HiGHS).

    python bench/big_tables.py --set hard --positions 40 --seed 39

Positions: ``--set hard`` (the default) bench/carousel_positions.py's
``hard_positions`` (50-100 table cards, 0-4 jokers, at most 1 or 2 jokers a meld or
any, hands of 8-20, four families: game tables, dense windows of ranks, every joker on
the table with hand cards that need one, three-card melds); ``--set big`` the older
set of tests/carousel_big.py (game tables, going out and not). Each position is solved
in a fresh child process, one at a time, by the core (``carousel.best_play`` with its
melds read, text in) and by the integer program of tests/carousel_milp.py
(``scipy.optimize.milp``, the model built and solved); the two values must agree.
Times are CPU seconds of the child (``time.process_time``: the same on a busy
machine). Prints a Markdown table: each position's size, both times and peak memory
(the child's maximum resident set less the interpreter's own before the call), then
the totals, their ratio, worst and median. A position the core does not answer within
``--limit`` seconds counts at the limit and is marked. The core runs with
``memory_limit=--memory-limit`` MB (default 256, the target; 0: none), so the table
also shows that every position is answered within it (a position that needs more is
marked "gave up" as at the time limit).
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from carousel_positions import hard_positions  # noqa: E402


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _core(args):
    from rummy51 import carousel
    from rummy51.carousel.solver import _VALMUL, _position_counts
    table, hand, rules, limit, memory_mb = args
    _position_counts(table, hand, rules)          # parse once before the baseline
    base = _rss_mb()
    t = time.process_time()
    try:
        play = carousel.best_play(table, hand, rules, time_limit=limit,
                                  memory_limit=(memory_mb << 20) if memory_mb else None)
        _ = play.melds
    except carousel.GaveUp:
        return None, time.process_time() - t, _rss_mb() - base
    dt = time.process_time() - t
    value = (play.hand_points - play.points_left) * _VALMUL + play.cards_played if play.can_meld else 0
    return value, dt, _rss_mb() - base


def _milp(args):
    from carousel_milp import milp_value
    from rummy51.carousel.solver import _position_counts
    table, hand, rules, limit, _ = args
    _, _, c = _position_counts(table, hand, rules)
    base = _rss_mb()
    t = time.process_time()
    v = milp_value(c.T, c.H, c.D, c.JT, c.JH, rules, time_limit=limit)
    return v, time.process_time() - t, _rss_mb() - base


def _in_child(fn, args):
    ctx = mp.get_context("fork")
    with ctx.Pool(1, maxtasksperchild=1) as pool:
        return pool.apply(fn, (args,))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=("hard", "big"), default="hard")
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--limit", type=float, default=60.0, help="seconds a solver may take a position")
    ap.add_argument("--memory-limit", type=int, default=256,
                    help="MB the core may hold a position (memory_limit; 0: none)")
    a = ap.parse_args(argv)
    if a.memory_limit < 0:
        ap.error(f"--memory-limit must be 0 (none) or more MB, got {a.memory_limit}")
    rows = []
    print("| # | table cards | hand | jokers | a meld at most | core s | core MB | HiGHS s | HiGHS MB |")
    print("|---:|---:|---:|---:|:---:|---:|---:|---:|---:|")
    made = hard_positions(a.positions, a.seed) if a.set == "hard" else big_positions(a.positions, a.seed)
    for i, (table, hand, rules) in enumerate(made):
        tc = sum(len(m) for m in table)
        vc, tcore, mcore = _in_child(_core, (table, hand, rules, a.limit, a.memory_limit))
        vm, tmilp, mmilp = _in_child(_milp, (table, hand, rules, a.limit, 0))
        if vc is not None and vc != vm:
            print(f"position {i}: the core says {vc}, the integer program {vm}", file=sys.stderr)
            return 1
        mark = "" if vc is not None else " (gave up)"
        rows.append((tcore if vc is not None else a.limit, tmilp, mcore))
        print(f"| {i} | {tc} | {len(hand)} | {rules.jokers} | {rules.max_jokers_per_meld or 'any'} "
              f"| {tcore:.3f}{mark} | {mcore:.0f} | {tmilp:.3f} | {mmilp:.0f} |", flush=True)
    core_t = [r[0] for r in rows]
    milp_t = [r[1] for r in rows]
    print()
    print(f"total CPU: core {sum(core_t):.2f} s, HiGHS {sum(milp_t):.2f} s "
          f"(core / HiGHS = {sum(core_t) / sum(milp_t):.3f}; target <= 1)")
    print(f"worst: core {max(core_t):.2f} s, HiGHS {max(milp_t):.2f} s; median: core "
          f"{statistics.median(core_t):.3f} s, HiGHS {statistics.median(milp_t):.3f} s; "
          f"core peak memory {max(r[2] for r in rows):.0f} MB (targets: worst <= 2 s, <= 256 MB); "
          f"memory_limit {a.memory_limit or 'none'} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
