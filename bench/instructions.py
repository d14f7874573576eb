"""Instruction counts per hand of the solver kernels, with valgrind's callgrind.

Wall-clock benchmarks on a shared 2-core machine move by 30 % with the load; an
instruction count does not (same binary, same inputs). Use this to compare two
versions of the core:

    python bench/instructions.py            # all four questions, 20,000 dealt hands
    python bench/instructions.py best 1     # best value, only hands with one joker

Needs valgrind (Debian: apt-get install valgrind). Prints instructions per hand
spent inside the batch kernel (solve_batch and what it calls).
"""
import os
import re
import subprocess
import sys
import tempfile

MODES = {"best": "best_opening_values", "open": "can_open_flags", "out": "can_go_out_flags",
         "dw": "min_deadwood_values"}

SCRIPT = """
import numpy as np, rummy51
jokers = {jokers}
h = rummy51.deal(200_000 if jokers == 3 else 80_000, 15, seed=1)
if jokers is not None:
    h = h[(h == 52).sum(1) == jokers] if jokers < 3 else h[(h == 52).sum(1) >= 3]
h = np.ascontiguousarray(h[:20_000])
print("ROWS", len(h))
rummy51.{func}(h, threads=1)
"""


def count(mode: str, jokers=None) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "run.py")
        out = os.path.join(tmp, "cg.out")
        with open(script, "w") as f:
            f.write(SCRIPT.format(jokers=jokers, func=MODES[mode]))
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                              sys.executable, script], capture_output=True, text=True, check=True)
        rows = int(re.search(r"ROWS (\d+)", run.stdout).group(1))
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", out],
                             capture_output=True, text=True, check=True).stdout
        for line in ann.splitlines():
            m = re.match(r"\s*([\d,]+) .*:__pyx_pw_\w*solve_batch", line)
            if m:
                return int(m.group(1).replace(",", "")) / rows
    raise RuntimeError("solve_batch not found in the profile")


def main(argv):
    modes = [argv[0]] if argv else list(MODES)
    jokers = int(argv[1]) if len(argv) > 1 else None
    for m in modes:
        print(f"{m:5s} {count(m, jokers):8.0f} instructions per 15-card hand"
              + (f" ({jokers} jokers)" if jokers is not None else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
