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
  proves nothing better exists);
* ``beams told``: what it needs with a perfect upper bound (no proof: the bound says
  ``v`` is the best) and the beams to find a play of value ``v``: beams 8, 64, 512 and
  4,096 wide in turn until one reaches ``v`` (else the run keeping what can reach it),
  as the bounds-first search tries them.

The last line: the calls a CPU-second if every position expanded only the fewest of
the three, at the CPU a state measured: about what this program could reach with a
perfect (and free) upper bound, against the target of 20,000 (50 microseconds a call).
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
        # a perfect upper bound: no proof, only a play of the best value to find, by
        # beams 8, 64, 512, 4,096 wide in turn (else the program keeping what reaches it)
        beams = 0
        for width in (8, 64, 512, 4096):
            v, n, _ = _carousel._program_run(core, table, hand, v_exact, False, width)
            beams += n
            if v == v_exact:
                break
        else:
            beams += _carousel._program_run(core, table, hand, v_exact)[1]
        rows.setdefault(min(size // 20, 2), []).append(
            (states, cpu, exact, told, v_exact == full, beams))
    print(f"{a.positions} random positions (seed {a.seed}), mean states a position:")
    print("table cards  positions  whole hand  best_play  exact   told  beams told  "
          "us/state")
    least = 0.0          # CPU if each position took the fewest of the three
    for k in sorted(rows):
        r = rows[k]
        n = len(r)
        st = sum(x[0] for x in r)
        us = sum(x[1] for x in r) / st * 1e6
        least += sum(min(x[0], x[3], x[5]) for x in r) * us * 1e-6
        print(f"{['0-19', '20-39', '40-60'][k]:>11s}  {n:9d}  {sum(x[4] for x in r):10d}  "
              f"{st / n:9.0f}  {sum(x[2] for x in r) / n:5.0f}  {sum(x[3] for x in r) / n:5.0f}  "
              f"{sum(x[5] for x in r) / n:10.0f}  {us:8.2f}")
    total = sum(len(r) for r in rows.values())
    print(f"each position at the fewest of best_play's, told's and beams told's states, at the "
          f"CPU a state measured: {total / least:,.0f} calls a CPU-second (target 20,000)")


if __name__ == "__main__":
    main()
