"""File-system faults in a run directory: a full disk, a read-only directory, a path that
cannot be a directory, a lost manifest, two processes on one directory. Each ends in one
line on stderr and exit code 2 (never a traceback), loses nothing, and the run can be
continued. The full-disk and read-only cases mount a small tmpfs (root, where mounting
is allowed); as another user the read-only case uses file permissions instead."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rummy51.studies.games import GameStudy, simulate_games

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="tmpfs and /proc")

GAMES = ["simulate", "games", "--games", "3000", "--chunk-size", "100", "--seed", "3",
         "--bots", "greedy", "--players", "4", "--workers", "1", "--no-progress"]


def _cli(*argv, timeout=300):
    return subprocess.run([sys.executable, "-m", "rummy51", *argv], capture_output=True,
                          text=True, timeout=timeout)


def _one_line_error(r):
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr, r.stderr[-2000:]
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("rummy51: error: "), r.stderr
    return lines[0]


def _mount(path: Path, size: str, ro: bool = False) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    path.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                       capture_output=True)
    if r.returncode != 0:
        return False
    if ro:
        subprocess.run(["mount", "-o", "remount,ro", str(path)], check=True)
    return True


@pytest.fixture
def small_disk(tmp_path):
    where = tmp_path / "disk"
    if not _mount(where, "160k"):
        pytest.skip("needs root and tmpfs mounts to make a small disk")
    yield where
    subprocess.run(["umount", "-l", str(where)])


def _uninterrupted():
    return simulate_games(games=3000, chunk_size=100, seed=3, bots=("greedy",), players=4,
                          workers=1, progress=False)


def test_full_disk_is_one_line_keeps_the_chunks_and_resumes(small_disk, tmp_path):
    run = small_disk / "run"
    r = _cli(*GAMES, "--out", str(run))
    msg = _one_line_error(r)
    assert "No space left on device" in msg and "resume" in msg
    chunks = sorted((run / "chunks").glob("chunk-*.parquet"))
    assert chunks, "the chunks written before the disk filled are kept"
    assert not list(run.rglob(".*.tmp-*")), "no temporary file is left behind"
    # the manifest is whole (it may not have been updated: the disk is full); the chunk
    # files are the record of what is done
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] in ("running", "interrupted")
    # free space (move the directory to a roomy disk) and continue the run
    roomy = tmp_path / "roomy"
    shutil.copytree(run, roomy)
    r = _cli("simulate", "games", "--resume", str(roomy), "--no-progress")
    assert r.returncode == 0, r.stderr
    assert GameStudy.load(roomy).same_records(_uninterrupted())


def test_read_only_directory_is_one_line(tmp_path):
    ro = tmp_path / "ro"
    mounted = _mount(ro, "64k", ro=True)
    if not mounted:
        if os.geteuid() == 0:
            pytest.skip("root ignores permissions and tmpfs cannot be mounted here")
        ro.mkdir()
        ro.chmod(0o555)
    try:
        msg = _one_line_error(_cli(*GAMES, "--out", str(ro / "run")))
        assert "cannot create the run directory" in msg and str(ro / "run") in msg
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(ro)])


def test_out_where_no_directory_can_be_is_one_line():
    msg = _one_line_error(_cli(*GAMES, "--out", "/proc/x/run"))
    assert "/proc/x/run" in msg


def test_temporary_files_of_a_killed_write_are_cleaned_on_resume(tmp_path):
    run = tmp_path / "run"
    r = _cli("simulate", "games", "--games", "200", "--chunk-size", "100", "--seed", "3",
             "--bots", "greedy", "--players", "4", "--no-progress", "--out", str(run))
    assert r.returncode == 0
    (run / "chunks" / "chunk-000001.parquet").unlink()
    m = json.loads((run / "manifest.json").read_text())
    m["status"] = "interrupted"
    (run / "manifest.json").write_text(json.dumps(m))
    (run / "chunks" / ".chunk-000001.parquet.tmp-99-1").write_bytes(b"half a file")
    r = _cli("simulate", "games", "--resume", str(run), "--no-progress")
    assert r.returncode == 0, r.stderr
    assert not list(run.rglob(".*.tmp-*"))


def test_a_lost_manifest_is_recovered_by_the_same_command(tmp_path):
    run = tmp_path / "run"
    argv = ["simulate", "games", "--games", "300", "--chunk-size", "100", "--seed", "3",
            "--bots", "greedy", "--players", "4", "--no-progress", "--out", str(run)]
    assert _cli(*argv).returncode == 0
    want = GameStudy.load(run)
    (run / "manifest.json").unlink()
    for f in ("records.parquet", "summary.csv", "overview.csv", "results.json"):
        (run / f).unlink()
    # another command is refused, saying what to do
    other = [a if a != "3" else "4" for a in argv]
    msg = _one_line_error(_cli(*other))
    assert "no manifest.json" in msg and "give the command that made them again" in msg
    # the same command takes the chunk files over (verified) and finishes the run
    r = _cli(*argv)
    assert r.returncode == 0, r.stderr
    got = GameStudy.load(run)
    assert got.same_records(want)
    sessions = json.loads((run / "manifest.json").read_text())["sessions"]
    assert sessions[-1]["chunks_run"] == 0, "every chunk was recovered, none run again"


def test_two_processes_on_one_directory(tmp_path):
    run = tmp_path / "run"
    # long enough (Python engine) that it is still running when the second one starts
    proc = subprocess.Popen([sys.executable, "-m", "rummy51", "simulate", "games", "--games",
                             "3000", "--chunk-size", "10", "--seed", "1", "--engine", "python",
                             "--workers", "1", "--no-progress", "--out", str(run)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        t0 = time.monotonic()
        while not list((run / "chunks").glob("chunk-*")) if (run / "chunks").is_dir() else True:
            assert proc.poll() is None and time.monotonic() - t0 < 120
            time.sleep(0.05)
        # a file the first process might be writing: the refused resume leaves it alone
        # (it used to remove such files before asking for the lock, which could make the
        # first process fail and let the second one in)
        writing = run / "chunks" / ".chunk-999999.csv.tmp-1"
        writing.write_text("being written")
        msg = _one_line_error(_cli("simulate", "games", "--resume", str(run), "--no-progress"))
        assert f"is being run by process {proc.pid}" in msg
        assert writing.exists()
        assert proc.poll() is None
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        proc.communicate(timeout=120)
    # once the first run has stopped, the directory can be resumed
    r = _cli("simulate", "games", "--resume", str(run), "--no-progress", "--games", "3000",
             timeout=600)
    assert r.returncode == 0, r.stderr
