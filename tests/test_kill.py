"""Kill tests: a study run stopped by SIGINT, SIGTERM or SIGKILL leaves no process
behind, says what it kept (SIGINT, SIGTERM), and its resumed results equal an
uninterrupted run's."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rummy51.studies.games import GameStudy, simulate_games
from rummy51.studies.openings import OpeningStudy, simulate_openings

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process groups via /proc")

GAMES = ["simulate", "games", "--games", "240", "--chunk-size", "10", "--seed", "5",
         "--workers", "2", "--engine", "python", "--bots", "random,greedy,random",
         "--no-progress"]
OPENINGS = ["simulate", "openings", "--deals", "400000", "--chunk-size", "4000", "--seed", "5",
            "--players", "0", "--threads", "2", "--no-progress"]


def _group(pgid: int) -> list[int]:
    """The live (non-zombie) processes of process group ``pgid``."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(int(d.name))
    return out


def _ctrl_c_as_in_a_terminal() -> None:
    # a test runner started in the background (``cmd &``, nohup, some CI shells) inherits
    # SIGINT ignored, and Python then installs no KeyboardInterrupt handler: the child
    # gets the default disposition back, as a program started from a terminal has it
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(argv, out: Path):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, "-m", "rummy51", *argv, "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True, preexec_fn=_ctrl_c_as_in_a_terminal)


def _wait_for_chunks(out: Path, proc, k: int = 2, timeout: float = 120) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        chunks = out / "chunks"
        if chunks.is_dir() and len([p for p in chunks.iterdir() if p.name.startswith("chunk-")
                                    and not p.name.endswith(".tmp")]) >= k:
            return
        if proc.poll() is not None:
            pytest.fail(f"the run ended before it could be killed: {proc.communicate()}")
        time.sleep(0.05)
    pytest.fail("no chunk appeared in time")


def _no_leftovers(pgid: int, timeout: float = 20) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if not _group(pgid):
            return
        time.sleep(0.1)
    left = _group(pgid)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    pytest.fail(f"processes left behind: {left}")


def _kill_and_check(argv, out: Path, sig: int):
    proc = _start(argv, out)
    try:
        _wait_for_chunks(out, proc)
        os.kill(proc.pid, sig)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    _no_leftovers(proc.pid)
    manifest = json.loads((out / "manifest.json").read_text())
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == (130 if sig == signal.SIGINT else 143), err
        assert manifest["status"] == "interrupted"
        assert "interrupted:" in err and "--resume" in err and "Traceback" not in err
    assert manifest["chunks"]["done_count"] < manifest["chunks"]["total"]
    return proc


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL],
                         ids=["SIGINT", "SIGTERM", "SIGKILL"])
def test_games_run_killed_leaves_no_process_and_resumes_equal(tmp_path, sig):
    out = tmp_path / "run"
    _kill_and_check(GAMES, out, sig)
    resumed = subprocess.run([sys.executable, "-m", "rummy51", "simulate", "games", "--resume",
                              str(out), "--no-progress", "--workers", "2"],
                             capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    got = GameStudy.load(out)
    want = simulate_games(games=240, chunk_size=10, seed=5, workers=1, engine="python",
                          bots=("random", "greedy", "random"), progress=False)
    assert got.complete and got.same_records(want)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL],
                         ids=["SIGINT", "SIGTERM", "SIGKILL"])
def test_openings_run_killed_resumes_equal(tmp_path, sig):
    out = tmp_path / "run"
    _kill_and_check(OPENINGS, out, sig)
    resumed = subprocess.run([sys.executable, "-m", "rummy51", "simulate", "openings",
                              "--resume", str(out), "--no-progress"],
                             capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    got = OpeningStudy.load(out)
    want = simulate_openings(deals=400_000, chunk_size=4000, seed=5, players=(), workers=2,
                             progress=False)
    assert got.complete and got.same_counts(want)
