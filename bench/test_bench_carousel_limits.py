"""How far past its ``time_limit`` a Carousel ``best_play`` call returns, on the hard
positions of tests/carousel_big.py (the full two-deck naturals, and 40 big positions:
50-100 table cards, 0-4 jokers, hands of 8-20): the limit covers the search and the
arrangement of the melds together, so the call returns (a play, or ``GaveUp``) within
the limit plus the time between two clock readings of the core (every 1,024 states) and
its clean-up.

For each limit T (1 ms, 10 ms, 50 ms, 200 ms) the worst overshoot over the positions,
in wall-clock time and in CPU time (the wall-clock figure includes the waits for a core
on a shared machine).

    python -m pytest bench/test_bench_carousel_limits.py --benchmark-only -s
    RUMMY51_LIMITS_N=40 (the big positions; default 40)
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from rummy51 import carousel
from rummy51.carousel import GaveUp

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from carousel_big import big_positions, full_naturals_positions  # noqa: E402

N = int(os.environ.get("RUMMY51_LIMITS_N", "40"))
LIMITS = (0.001, 0.01, 0.05, 0.2)


def test_time_limit_overshoot(benchmark):
    positions = list(full_naturals_positions()) + big_positions(N, 31)
    rows = []

    def run():
        rows.clear()
        for limit in LIMITS:
            wall = cpu = 0.0
            answered = 0
            for table, hand, rules in positions:
                t0, c0 = time.perf_counter(), time.process_time()
                try:
                    play = carousel.best_play(table, hand, rules, time_limit=limit)
                    _ = play.melds
                    answered += 1
                except GaveUp:
                    pass
                wall = max(wall, time.perf_counter() - t0 - limit)
                cpu = max(cpu, time.process_time() - c0 - limit)
            rows.append((limit, answered, wall, cpu))

    benchmark.pedantic(run, rounds=1, iterations=1)
    for limit, answered, wall, cpu in rows:
        benchmark.extra_info[f"T={limit:g}"] = {"answered": answered,
                                                "worst_wall_ms": round(1e3 * wall, 1),
                                                "worst_cpu_ms": round(1e3 * cpu, 1)}
        print(f"\ntime_limit={limit:g} s: {answered} of {len(positions)} answered, the others "
              f"GaveUp; worst overshoot {1e3 * wall:.1f} ms wall, {1e3 * cpu:.1f} ms CPU")
