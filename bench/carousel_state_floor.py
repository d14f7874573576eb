"""How many states Carousel's program expands on the random positions of 0-60 table
cards, against what it would expand if it were told the answer (issue 39's single-call
figure, and why tuning the bounds does not reach it).

    python bench/carousel_state_floor.py [--positions 2000] [--seed 39]

For each position of ``carousel_positions.random_positions`` (the set
bench/test_bench_carousel_random.py times), by table size:

* ``best_play``: the states the public call expands (its beams, proofs and the path),
  and its CPU time per state (one thread, the option cache warm: one call before);
* ``exact``: one run of the plain program (no bound: every state);
* ``told``: what the program needs when it is told the best value ``v``: one run
  keeping only the states that can reach ``v`` (it finds the play) and, when ``v`` is
  short of placing the whole pruned hand, one keeping only those that can beat it (it
  proves nothing better exists). With the value known in advance no bound or beam can
  do better within this program, apart from luck in a beam's order (a beam may meet
  the play before the run that keeps every state able to reach it does).

The last line: the calls a CPU-second if every position expanded only the fewer of
``best_play``'s and ``told``'s states, at the CPU per state measured: what this program
could reach with perfect bounds, against the target of 20,000 (50 microseconds a call).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from carousel_positions import DEFAULT, as_text, random_positions  # noqa: E402
from rummy51 import _carousel, carousel  # noqa: E402
from rummy51.carousel.solver import _core_rules  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=39)
    a = ap.parse_args()
    core = _core_rules(DEFAULT)
    rows: dict[int, list[tuple[int, float, int, int, bool]]] = {}
    for t, h in random_positions(a.positions, a.seed):
        size = sum(len(m) for m in t)
        table, hand = as_text(t, h)
        carousel.best_play(table, hand, DEFAULT)          # the option cache warm
        s0 = _carousel._py_counters()[1]
        c0 = time.process_time()
        carousel.best_play(table, hand, DEFAULT)
        cpu = time.process_time() - c0
        states = _carousel._py_counters()[1] - s0
        v_exact, exact, full = _carousel._program_run(core, table, hand, 0)
        if v_exact == full:
            told = _carousel._program_run(core, table, hand, full)[1]
        else:
            told = (_carousel._program_run(core, table, hand, v_exact)[1]
                    + _carousel._program_run(core, table, hand, v_exact + 1)[1])
        rows.setdefault(min(size // 20, 2), []).append(
            (states, cpu, exact, told, v_exact == full))
    print(f"{a.positions} random positions (seed {a.seed}), mean states a position:")
    print("table cards  positions  whole hand  best_play  exact   told   us/state  "
          "us at told")
    least = 0.0          # CPU if each position took the fewer of best_play's and told
    for k in sorted(rows):
        r = rows[k]
        n = len(r)
        st = sum(x[0] for x in r)
        us = sum(x[1] for x in r) / st * 1e6
        told = sum(x[3] for x in r) / n
        least += sum(min(x[0], x[3]) for x in r) * us * 1e-6
        print(f"{['0-19', '20-39', '40-60'][k]:>11s}  {n:9d}  {sum(x[4] for x in r):10d}  "
              f"{st / n:9.0f}  {sum(x[2] for x in r) / n:5.0f}  {told:5.0f}  {us:8.2f}  "
              f"{told * us:10.0f}")
    total = sum(len(r) for r in rows.values())
    print(f"each position at the fewer of best_play's states and told's, at the CPU per state "
          f"measured: {total / least:,.0f} calls a CPU-second (target 20,000)")


if __name__ == "__main__":
    main()
