"""The small traps a new user met (issue 15), each with the test that would have caught it."""
import subprocess
import sys
import textwrap

from rummy51.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_counts_are_said_in_english(capsys):
    code, out, _ = run(capsys, "simulate", "openings", "--deals", "10", "--players", "1",
                       "--no-progress", "--seed", "1", "--chunk-size", "10")
    assert code == 0
    assert "1 player," in out and "1 players" not in out
    assert " 1 chunk," not in out or "1 chunks" not in out


def test_a_small_deal_study_is_a_small_run(capsys):
    code, out, _ = run(capsys, "simulate", "openings", "--deals", "10", "--no-progress",
                       "--seed", "1", "--json")
    import json

    meta = json.loads(out)["meta"]
    assert code == 0 and meta["settings"]["turn_deals"] == 10


def test_no_rows_for_joker_classes_that_cannot_be(capsys):
    code, out, _ = run(capsys, "simulate", "openings", "--deals", "500", "--jokers", "0",
                       "--players", "0", "--no-progress", "--seed", "1")
    part = out.split("By jokers in the hand")[1].split("\n\n")[0]
    assert code == 0 and "first  0" in part and "first  1" not in part and "3+" not in part


def test_sweep_header_does_not_assume_14_card_hands(capsys):
    code, out, _ = run(capsys, "simulate", "openings", "--deals", "500", "--rules", "default,gin",
                       "--players", "0", "--no-progress", "--seed", "1")
    assert code == 0 and "other: 14 + 1 drawn" not in out
    assert "other: a dealt hand + 1 drawn" in out


def test_an_odds_run_is_an_odds_run(tmp_path):
    from rummy51.runs import RunDir

    (tmp_path / "manifest.json").write_text('{"kind": "odds", "format_version": 1}')
    try:
        RunDir.read_manifest(tmp_path, "games")
    except ValueError as e:
        assert "holds an 'odds' run, not a 'games' run" in str(e)


def test_workers_in_an_unguarded_script_is_one_sentence(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent("""
        import rummy51
        rummy51.simulate_games(games=20, chunk_size=10, workers=2, engine="python",
                               progress=False)
    """))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=300, cwd=tmp_path)
    assert r.returncode == 1
    assert 'put it under `if __name__ == "__main__":`' in r.stderr
    assert "bootstrapping phase" not in r.stderr and r.stderr.count("Traceback") == 1


def test_resume_says_what_it_resumes(capsys, tmp_path):
    out_dir = tmp_path / "run"
    assert run(capsys, "simulate", "games", "--games", "40", "--chunk-size", "20", "--seed", "1",
               "--out", str(out_dir), "--no-progress")[0] == 0
    (out_dir / "chunks" / "chunk-000001.parquet").unlink()
    code, out, err = run(capsys, "simulate", "games", "--resume", str(out_dir), "--no-progress")
    assert code == 0 and "resumed: this session ran 1 of 2 chunks (20 deals)" in out
    rate = float(out.split(" deals/s")[0].rsplit("(", 1)[1])
    import json

    meta = json.loads((out_dir / "results.json").read_text())["meta"]
    assert abs(rate - 20 / meta["elapsed_s"]) < 0.2 * rate + 1   # the session's 20 deals


def test_errors_name_options_not_fields(capsys):
    code, _, err = run(capsys, "simulate", "openings", "--decks", "3", "--deals", "10")
    assert code == 2 and err == "rummy51: error: --decks must be 1..2, got 3\n"
    code, _, err = run(capsys, "simulate", "games", "--out", "a", "--resume", "b")
    assert code == 2 and "--out" in err and "--resume" in err and "give either out" not in err


def test_chunk_format_message_names_the_option():
    from rummy51.cli._common import in_option_words

    assert in_option_words("chunk format 'parquet' needs pyarrow") == "--chunk-format parquet needs pyarrow"
    assert in_option_words("it was run with rules.jokers = 4") == "it was run with --jokers = 4"
