"""A run whose Dask scheduler is killed mid-run ends with one line that says so and how
to resume (exit code 1) and keeps the chunks it finished, its manifest "interrupted"
(so ``--resume`` continues it; that a resumed run equals an unbroken one is
test_kill.py's). Both games' ``simulate`` commands go through the same executor
(``runs.run_dask``) and the same ``main``."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the dask extra (dask[distributed]) is not installed")
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process groups and loopback ports")

RUNS = {
    "rummy51": ["simulate", "games", "--games", "200000", "--chunk-size", "50", "--seed", "3",
                "--bots", "greedy", "--no-progress"],
    "carousel": ["carousel", "simulate", "--players", "2", "--games", "100000",
                 "--chunk-size", "20", "--seed", "3", "--no-progress", "--backend", "dask"],
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spawn(args: list[str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def _wait_for(cond, what: str, timeout: float = 90) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if cond():
            return
        time.sleep(0.1)
    pytest.fail(f"{what}: not in {timeout} s")


def _done_chunks(out: Path) -> int:
    d = out / "chunks"
    return len([p for p in d.iterdir() if not p.name.endswith(".tmp")]) if d.is_dir() else 0


@pytest.mark.parametrize("game", sorted(RUNS))
def test_killed_scheduler_one_line_then_resume(tmp_path, game):
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    sched = _spawn(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
                    "--no-dashboard"])
    worker = None
    run = None
    out = tmp_path / "run"
    try:
        _wait_for(lambda: _can_connect(port), "the scheduler to listen")
        worker = _spawn(["distributed.cli.dask_worker", addr, "--nworkers", "1", "--nthreads", "1",
                         "--no-dashboard"])
        run = subprocess.Popen([sys.executable, "-m", "rummy51", *RUNS[game], "--scheduler", addr,
                                "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
        _wait_for(lambda: _done_chunks(out) >= 2 or run.poll() is not None, "two chunks saved")
        assert run.poll() is None, run.communicate()
        os.killpg(sched.pid, signal.SIGKILL)
        _, err = run.communicate(timeout=120)
    finally:
        for p in (run, worker, sched):
            if p is not None:
                _stop(p)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert run.returncode == 1, err
    assert len(lines) == 1, err
    assert "lost the Dask scheduler at " + addr in lines[0]
    assert f"--resume {out}" in lines[0] and "Traceback" not in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "interrupted"
    assert 0 < manifest["chunks"]["done_count"] < manifest["chunks"]["total"]


def _can_connect(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_task_error_is_not_a_lost_scheduler():
    """A chunk's own failure goes on as itself (not as SchedulerLost)."""
    distributed = pytest.importorskip("distributed")
    from rummy51.runs import SchedulerLost, run_dask

    def boom(spec):
        raise ZeroDivisionError("a chunk's own bug")

    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1,
                            dashboard_address=None) as client:
        with pytest.raises(ZeroDivisionError, match="own bug"):
            run_dask([{"index": 0, "n": 1}], client, 1, "t", lambda s, r: None, boom)
        assert not issubclass(ZeroDivisionError, SchedulerLost)
