"""Rummy 51 deal + best value, one thread: ``rummy51.deal`` against a plain C
shuffle-and-deal (issue 31).

Compiles ``bench/plain_deal.c`` with the system ``cc -O3`` (the package's own flag) into a temporary
directory, then, interleaved, best of ``--rounds`` rounds of N hands of 15 cards
(default deck, 108 cards):

* ``C deal``: the C program's own timer around its deal loop (inline PCG64, Lemire
  bounded ints, the same partial Fisher-Yates as the package);
* ``rummy51.deal``: the package's dealer (inline PCG64 path);
* ``generic path``: the same call on a PCG64 subclass, which takes the capsule's
  ``next_uint32`` per draw (the dealer as it was before issue 31; the same hands);
* ``best value``: ``best_opening_values(hands, workers=1)``, the solver, timed once
  per round on the package's hands. The C program cannot link the Cython solver, so
  both sides of the deal + best-value ratio use this same compiled kernel time.

Run:  python bench/deal_vs_c.py [N] [--rounds R]      (N = 1,000,000, R = 5)
"""
from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time

import numpy as np

import rummy51


class _GenericPCG64(np.random.PCG64):
    """PCG64 under another type: the dealer's generic (function pointer) path."""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "plain_deal")
        subprocess.run(["cc", "-O3", "-o", exe, os.path.join(here, "plain_deal.c")], check=True)
        t = {"C deal": [], "rummy51.deal": [], "generic path": [], "best value": []}
        for r in range(a.rounds):
            out = subprocess.run([exe, str(a.n), "15", "108"], check=True, capture_output=True, text=True)
            t["C deal"].append(int(out.stdout.split()[0]) / 1e9)
            t0 = time.perf_counter()
            hands = rummy51.deal(a.n, 15, seed=r)
            t["rummy51.deal"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            same = rummy51.deal(a.n, 15, seed=np.random.Generator(_GenericPCG64(r)))
            t["generic path"].append(time.perf_counter() - t0)
            assert np.array_equal(hands, same), "the two dealing paths differ"
            t0 = time.perf_counter()
            rummy51.best_opening_values(hands, workers=1)
            t["best value"].append(time.perf_counter() - t0)
    best = {k: min(v) for k, v in t.items()}
    print(f"{a.n:,} hands of 15 cards, best of {a.rounds} rounds, one thread")
    for k, v in best.items():
        print(f"  {k:14s} {v * 1e9 / a.n:7.1f} ns/hand  ({a.n / v / 1e6:6.2f} M hands/s)")
    sv = best["best value"]
    print(f"  deal alone: rummy51.deal at {best['C deal'] / best['rummy51.deal']:.2f}x the C dealer"
          f" (generic path {best['C deal'] / best['generic path']:.2f}x)")
    c = best["C deal"] + sv
    print(f"  deal + best value: {c / (best['rummy51.deal'] + sv):.2f}x the C dealer + solver"
          f" (generic path {c / (best['generic path'] + sv):.2f}x);"
          f" dealing is {best['rummy51.deal'] / (best['rummy51.deal'] + sv):.0%} of it"
          f" (generic path {best['generic path'] / (best['generic path'] + sv):.0%})")


if __name__ == "__main__":
    main()
