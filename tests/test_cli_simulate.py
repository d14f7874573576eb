"""The command line of the Monte Carlo studies: ``simulate openings`` and ``odds``."""
import json
import subprocess
import sys

import pytest

from rummy51.cli import main
from rummy51.studies.odds import OddsResult
from rummy51.studies.openings import OpeningStudy, simulate_openings

FAST = ["--deals", "20000", "--turn-deals", "200", "--turns", "4", "--no-progress"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_openings_tables(capsys):
    code, out, err = run(capsys, "simulate", "openings", "--seed", "3", *FAST)
    assert code == 0, err
    assert err == ""  # no progress bar when stderr is not a terminal
    for text in ("20,000 deals", "seed entropy 3", "Opening from the deal",
                 "first player, 15 cards", "other player, 14 + 1 drawn", "raw 14-card hand",
                 "P(can open)", "P(go out at once)", "mean best value", "By jokers in the hand",
                 "3+", "P(best opening value >= x)", "51 (threshold)",
                 "P(opened by turn t) in %: 4 players", "seat 4"):
        assert text in out, text
    # a probability with its interval: 36.1% [35.4, 36.8] or so
    line = next(x for x in out.splitlines() if x.startswith("first player, 15 cards"))
    assert "%" in line and "[" in line and "]" in line


def test_openings_json_matches_the_api(capsys):
    code, out, err = run(capsys, "simulate", "openings", "--seed", "3", "--json", *FAST)
    assert code == 0, err
    data = json.loads(out)
    assert data["meta"]["seed"]["entropy"] == 3
    api = simulate_openings(deals=20_000, turn_deals=200, turns=4, seed=3, progress=False)
    assert data["counts"]["hist"] == api.hist.tolist()
    first = next(r for r in data["summary"] if r["hand"] == "first" and r["jokers"] == "all")
    assert first["p_open"] == pytest.approx(api.summary().p_open.iloc[0])
    raw = next(r for r in data["summary"] if r["hand"] == "raw" and r["jokers"] == "all")
    assert raw["p_go_out"] is None  # NaN becomes null: standard JSON
    assert {r["seat"] for r in data["by_turn"]} == {1, 2, 3, 4}
    assert data["value_distribution"]


def test_sweep_one_row_per_configuration(capsys):
    code, out, err = run(capsys, "simulate", "openings", "--seed", "1", "--jokers", "2,4",
                         "--threshold", "40,51", "--players", "2,3", *FAST)
    assert code == 0, err
    assert "one row per configuration" in out
    for label in ("jokers=2 threshold=40", "jokers=2 threshold=51", "jokers=4 threshold=40",
                  "jokers=4 threshold=51"):
        assert out.count(label) >= 3, label  # listed, one deal row, two by-turn rows
    code, out, err = run(capsys, "simulate", "openings", "--seed", "1", "--rules", "default,gin",
                         "--players", "0", *FAST)
    assert code == 0, err
    assert "gin: 1 deck, 0 jokers" in out and "P(opened" not in out


def test_out_interrupt_and_resume(tmp_path, capsys, monkeypatch):
    d = tmp_path / "run"
    args = ["simulate", "openings", "--seed", "5", "--deals", "30000", "--chunk-size", "10000",
            "--turn-deals", "300", "--turn-chunk-size", "100", "--turns", "3", "--threads", "1",
            "--no-progress"]
    # Ctrl-C after two chunks: exit 130, a message saying how to continue
    # the plan's chunk, run by _runner.execute
    import rummy51.studies._openings_plan as mc

    real = mc.play_chunk
    calls = {"n": 0}

    def flaky(spec):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(spec)

    monkeypatch.setattr(mc, "play_chunk", flaky)
    code, out, err = run(capsys, *args, "--out", str(d))
    assert code == 130 and out == ""
    assert "interrupted: 2 of 6 chunks are saved" in err
    assert f"--resume {d}" in err
    monkeypatch.setattr(mc, "play_chunk", real)
    code, out, err = run(capsys, "simulate", "openings", "--resume", str(d), "--no-progress")
    assert code == 0, err
    assert "run directory" in out
    whole = simulate_openings(deals=30_000, chunk_size=10_000, turn_deals=300,
                              turn_chunk_size=100, turns=3, seed=5, progress=False)
    assert OpeningStudy.load(d).same_counts(whole)
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["command"].startswith("rummy51 simulate openings --seed 5")
    assert manifest["sessions"][1]["command"].startswith("rummy51 simulate openings --resume")
    # other settings are refused with the setting named
    code, out, err = run(capsys, "simulate", "openings", "--resume", str(d), "--deals", "5")
    assert code == 2 and err.count("\n") == 1
    assert "it was run with deals = 30000, not 5" in err
    code, out, err = run(capsys, "simulate", "openings", "--resume", str(d), "--jokers", "2")
    assert code == 2 and "--jokers" in err


def test_damaged_chunk_warning_is_one_line(tmp_path, capsys):
    d = tmp_path / "run"
    code, _, err = run(capsys, "simulate", "openings", "--seed", "2", "--chunk-size", "5000",
                       "--out", str(d), "--chunk-format", "csv", *FAST)
    assert code == 0, err
    chunk = d / "chunks" / "chunk-000001.csv"
    chunk.write_text(chunk.read_text()[:40])
    code, out, err = run(capsys, "simulate", "openings", "--resume", str(d), "--no-progress")
    assert code == 0
    assert err.startswith("rummy51: warning: chunk 1 in ") and "run again" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("argv, message", [
    (["--deals", "-5"], "argument --deals: '-5' is negative"),
    (["--jokers", "2,x"], "'x' in '2,x' is not a whole number"),
    (["--players", "7"], "--players must be 1..6, got 7"),
    (["--players", "2,0"], "--players: 0 (no by-turn study) cannot be part of a list"),
    (["--decks", "3"], "--decks must be 1..2, got 3"),
    (["--rules", "nope"], "'nope' is not a rule preset"),
    (["--hands", "first,fourth"], "'fourth' is not a hand of the study"),
    (["--threads", "0"], "'0' is not a whole number >= 1"),
    (["--backend", "spark"], "invalid choice: 'spark'"),
    (["--backend", "local", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler needs --backend dask"),
    (["--resume", "/nonexistent/run"], "is not a run directory"),
    (["--out", "a", "--resume", "b"], "either --out"),
])
def test_bad_arguments_one_line_exit_2(capsys, argv, message):
    code, out, err = run(capsys, "simulate", "openings", "--no-progress", *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("rummy51: error: ") and err.count("\n") == 1
    assert message in err


def test_odds(capsys):
    hand = "6S 7S 8S 10D 10C 2H 3D 5C 9H KS QD 4C 8H AH"
    code, out, err = run(capsys, "odds", hand, "--seen", "10H JK", "--draws", "3",
                         "--samples", "5000", "--seed", "4")
    assert code == 0, err
    assert "unseen: 92 cards" in out and "5,000 samples of 3 draws" in out
    table = out.split("within k draws")[1].splitlines()[1:]
    assert [r.split()[0] for r in table] == ["0", "1", "2", "3"]
    code, out, err = run(capsys, "odds", hand, "--draws", "3", "--samples", "5000",
                         "--seed", "4", "--json")
    data = json.loads(out)
    assert len(data["table"]) == 4 and data["meta"]["seed"]["entropy"] == 4
    p = [r["p_open"] for r in data["table"]]
    assert p == sorted(p)


def test_odds_out_dir(tmp_path, capsys):
    code, out, err = run(capsys, "odds", "6S 7S 8S 10D 10C 10H 2C", "--draws", "1",
                         "--samples", "100", "--seed", "1", "--out", str(tmp_path / "o"))
    assert code == 0, err
    res = OddsResult.load(tmp_path / "o")
    assert res.p_open.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("argv, message", [
    (["7S 7S 7S"], "3 copies of 7S"),
    (["7S 8S 9S", "--seen", "7S 7S"], "seen cards overlap the hand"),
    (["7S 8S 9S", "--seen", "7S 11S"], "--seen '7S 11S': '11S' is not a card"),
    (["7S 8S", "--draws", "500"], "--draws must be at most"),
    (["7S 8S", "--samples", "0"], "'0' is not a whole number >= 1"),
    (["XX"], "'XX' is not a card"),
])
def test_odds_bad_arguments(capsys, argv, message):
    code, out, err = run(capsys, "odds", *argv)
    assert code == 2 and out == ""
    assert err.startswith("rummy51: error: ") and err.count("\n") == 1
    assert message in err


def test_readme_first_command_in_a_fresh_process():
    """``rummy51 simulate openings`` as a user runs it (smaller, for the test's sake)."""
    proc = subprocess.run(
        [sys.executable, "-m", "rummy51", "simulate", "openings", "--deals", "50000",
         "--turn-deals", "500", "--seed", "1"],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Opening from the deal" in proc.stdout and proc.stderr == ""
