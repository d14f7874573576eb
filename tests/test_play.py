"""``rummy51 play`` through a pseudo-terminal: a whole deal answered move by move."""
import os
import pty
import select
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")


def _play(argv, answer="1", limit=400, timeout=120, first=()):
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "rummy51", "play", *argv],
                            stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    out = b""
    moves = 0
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < timeout:
            r, _, _ = select.select([master], [], [], 1.0)
            if r:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
                if out.rstrip().endswith(b"to leave):") and moves < limit:
                    say = first[moves] if moves < len(first) else answer
                    os.write(master, (say + "\n").encode())
                    moves += 1
                    out += b"\n"
            elif proc.poll() is not None:
                break
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    return proc.returncode, out.decode("utf-8", "replace"), moves


def test_a_whole_deal_in_the_terminal():
    code, out, moves = _play(["--seed", "3", "--bots", "greedy,tactician"])
    assert code == 0, out[-2000:]
    assert "your hand (15):" in out and "seat 1:" in out and "seat 2:" in out
    assert "deal over" in out and moves > 0


def test_bad_answers_are_asked_again_and_q_leaves():
    code, out, _ = _play(["--seed", "4", "--bots", "random"], answer="q", first=("x", "99"))
    assert code == 0 and out.count("type a number from 1 to") == 2
    assert "left the deal" in out
