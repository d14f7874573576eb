"""The plain Rummy 51 search with other discard candidates and z against search-plain.

    python bench/log/2026-12/r51_search_knobs.py CANDIDATES Z x[:BUDGET[:HORIZON]] plain \\
        FIRST DEALS --workers 2

Seat ``x`` is the plain search (kernel code 5) with CANDIDATES discards tested and the
switching threshold Z; the other arguments are bench/r51_learned_pilot.py's.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import r51_learned_pilot as m  # noqa: E402

cands, z = int(sys.argv.pop(1)), float(sys.argv.pop(1))
orig = m.seat


def seat(spec, model):
    if spec.startswith("x"):
        rest = spec.split(":")[1:]
        budget = int(rest[0]) if rest else m.DEFAULT_ROLLOUTS
        horizon = int(rest[1]) if len(rest) > 1 else m.DEFAULT_HORIZON
        return 5, (budget, cands, z, 0.0, horizon)
    return orig(spec, model)


m.seat = seat
m.main()
