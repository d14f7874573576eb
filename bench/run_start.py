"""Time and memory to a run's first chunk file, against the games asked for: a run plans
lazily, so ``--games 1000000000000`` starts like ``--games 1000``.

Starts the command in a subprocess with ``--out`` a fresh directory, polls (every 20 ms)
for the first ``chunks/chunk-*`` file and the resident memory of the process tree
and its CPU time (the command and its worker processes, from /proc: the CPU time does
not depend on the machine's load, the wall time does), then stops the run (SIGTERM: it ends
as interrupted, its chunks kept). Linux only.

    python bench/run_start.py                   # the table of bench/README.md
    python bench/run_start.py -- simulate games --games 1000000000000 --workers 1
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

CASES = [
    ["simulate", "games", "--games", "1000", "--workers", "1"],
    ["simulate", "games", "--games", "1000000000000", "--workers", "1"],
    ["simulate", "games", "--games", "1000000000000"],
    ["simulate", "games", "--games", "1000000000000", "--bots", "greedy", "--workers", "1"],
    ["carousel", "simulate", "--games", "1000", "--workers", "1"],
    ["carousel", "simulate", "--games", "1000000000", "--workers", "1"],
    ["carousel", "simulate", "--games", "1000000000000", "--chunk-size", "250", "--workers", "1"],
    ["carousel", "simulate", "--games", "1000000000000"],
]


def _tree(pid: int) -> tuple[int, float]:
    """``(resident KiB, CPU seconds)`` of the process and its children."""
    pids = [pid]
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    pids += [int(x) for x in out.split()]
    rss, cpu = 0, 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for p in pids:
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS"):
                        rss += int(line.split()[1])
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return rss, cpu


def measure(argv: list[str], timeout: float = 60.0) -> str:
    out = tempfile.mkdtemp(prefix="rummy51-start-")
    d = os.path.join(out, "run")
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "rummy51", *argv, "--out", d, "--no-progress"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    cpu = 0.0
    first = None
    try:
        while p.poll() is None and time.perf_counter() - t0 < timeout:
            rss, cpu = _tree(p.pid)
            peak = max(peak, rss)
            chunks = os.path.join(d, "chunks")
            if os.path.isdir(chunks) and any(n.startswith("chunk-") for n in os.listdir(chunks)):
                first = time.perf_counter() - t0
                break
            time.sleep(0.02)
    finally:
        p.terminate()
        _, err = p.communicate()
        shutil.rmtree(out, ignore_errors=True)
    if first is None:
        return f"no chunk (exit {p.returncode}): {err.decode().strip()[:160]}"
    return (f"first chunk after {first:.2f} s ({cpu:.2f} CPU-s), peak memory "
            f"{peak / 1024:.0f} MiB")


if __name__ == "__main__":
    cases = [sys.argv[sys.argv.index("--") + 1:]] if "--" in sys.argv else CASES
    for argv in cases:
        print(f"rummy51 {' '.join(argv)}: {measure(argv)}", flush=True)
