"""The command line: ``main([...])`` in-process, plus one ``python -m rummy51`` run."""
import dataclasses
import io
import json
import subprocess
import sys

import pytest

import rummy51
from rummy51 import cli
from rummy51.cli import main

EXAMPLE = "6S 7S 8S 10D 10C 10H 2C"  # docs/rules.md section 4: 21 + 30 = 51


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, "best", "--json", *argv)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


# --------------------------------------------------------------------------- best, text
def test_example_text(capsys):
    code, out, err = run(capsys, "best", EXAMPLE)
    assert code == 0 and err == ""
    assert "6S 7S 8S" in out and "10H 10D 10C" in out
    assert "run" in out and "set" in out and "21" in out and "30" in out
    assert "total 51: opens" in out
    assert "left over: 2C" in out
    assert "can go out at once: yes" in out
    assert "min deadwood: 2" in out


def test_joker_stand_in_and_does_not_open(capsys):
    code, out, _ = run(capsys, "best", "8S 9S JK 5H 5D 5C KH")
    assert code == 0
    assert "8S 9S JK(10S)" in out
    assert "total 42: does not open (threshold 51; 1 card kept for the discard)" in out


def test_unicode(capsys):
    code, out, _ = run(capsys, "best", "--unicode", "8S 9S JK 5H 5D 5C KH")
    assert code == 0
    assert "8♠ 9♠ JK(10♠)" in out and "5♥ 5♦ 5♣" in out


def test_several_hands(capsys):
    code, out, _ = run(capsys, "best", EXAMPLE, "KS QS")
    assert code == 0
    assert out.count("hand: ") == 2
    assert "total 51: opens" in out and "no melds" in out


# --------------------------------------------------------------------------- best, json
def test_json(capsys):
    [obj] = run_json(capsys, EXAMPLE)
    assert obj["value"] == 51 and obj["can_open"] is True and obj["threshold"] == 51
    assert sorted((m["kind"], m["cards"], m["value"]) for m in obj["melds"]) == [
        ("run", "6S 7S 8S", 21), ("set", "10H 10D 10C", 30)]
    assert obj["leftover"] == "2C"
    assert obj["can_go_out"] is True and obj["min_deadwood"] == 2
    assert obj["rules"] == dataclasses.asdict(rummy51.RuleSet())
    assert obj["rules"]["jokers"] == 4


def test_json_joker_represents(capsys):
    [obj] = run_json(capsys, "8S 9S JK 5H")
    [meld] = obj["melds"]
    assert meld == {"kind": "run", "cards": "8S 9S JK", "represents": "8S 9S 10S", "value": 27}


def test_json_several_hands_one_object_per_line(capsys):
    objs = run_json(capsys, EXAMPLE, "KS QS")
    assert [o["value"] for o in objs] == [51, 0]
    assert objs[1]["melds"] == [] and objs[1]["leftover"] == "QS KS"


# --------------------------------------------------------------------------- options
def test_keep(capsys):
    hand = "6S 7S 8S 10D 10C 10H"
    [k1] = run_json(capsys, hand)               # keep 1: five cards at most
    [k0] = run_json(capsys, "--keep", "0", hand)
    assert (k1["value"], k0["value"]) == (30, 51)
    assert k0["keep"] == 0


def test_must_use(capsys):
    hand = "6S 7S 8S 10D 10C 10H 9H 8H"
    [free] = run_json(capsys, hand)
    [forced] = run_json(capsys, "--must-use", "9H", hand)
    assert free["value"] == 51
    assert forced["value"] == 48 and forced["can_open"] is False
    assert any("9H" in m["cards"] for m in forced["melds"])
    assert forced["must_use"] == "9H"


def test_jokers_2(capsys):
    [obj] = run_json(capsys, "--jokers", "2", "8S 9S JK 5H 5D JK KH")
    assert obj["rules"]["jokers"] == 2 and obj["value"] == 27 + 15


def test_threshold_40(capsys):
    hand = "10D 10C 10H 3S 4S 5S 2C"  # 30 + 12 = 42
    [default] = run_json(capsys, hand)
    [low] = run_json(capsys, "--threshold", "40", hand)
    assert default["value"] == low["value"] == 42
    assert default["can_open"] is False and low["can_open"] is True
    assert low["threshold"] == 40
    code, out, _ = run(capsys, "best", "--threshold", "40", hand)
    assert "total 42: opens (threshold 40; 1 card kept for the discard)" in out


def test_rules_gin(capsys):
    [obj] = run_json(capsys, "--rules", "gin", "--keep", "0", "AS 2S 3S 4S 4H 4D 9C 10C JC QC")
    assert obj["value"] == 57
    assert obj["rules"]["decks"] == 1 and obj["rules"]["ace_high"] is False


def test_rule_overrides_on_preset():
    args = cli.build_parser().parse_args(
        ["best", "--rules", "gin", "--ace-high", "--ace-value", "11", "--joker-penalty", "50", "7S"])
    rules = cli.rules_from_args(args)
    assert rules == rummy51.RuleSet.gin(ace_high=True, ace_value=11, joker_penalty=50)
    args = cli.build_parser().parse_args(["best", "--no-ace-high", "--ace-low-value", "1",
                                          "--max-jokers-per-meld", "2", "--decks", "1", "7S"])
    assert cli.rules_from_args(args) == rummy51.RuleSet(
        ace_high=False, ace_low_value=1, max_jokers_per_meld=2, decks=1)
    assert cli.rules_from_args(cli.build_parser().parse_args(["best", "7S"])) == rummy51.RuleSet()


# --------------------------------------------------------------------------- stdin
def test_stdin(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{EXAMPLE}\n\n# a comment\nKS QS\n"))
    objs = run_json(capsys, "-", "AS 2S 3S 4S")
    assert [o["value"] for o in objs] == [51, 0, 15]  # AS 2S 3S: the low ace is worth 10
    assert objs[0]["hand"] == EXAMPLE


def test_stdin_bad_line_names_it(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("7S 8S 9S\n7S 12X\n"))
    code, out, err = run(capsys, "best", "-")
    # the good line is answered, the bad one is one line on stderr, and the exit code is 2
    assert code == 2 and "hand: 7S 8S 9S" in out
    assert err.startswith("rummy51: error: stdin line 2 '7S 12X': '12X' is not a card")
    assert err.count("\n") == 1


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize("argv, reason", [
    (["best", "6S 11H"], "'11H' is not a card: the jack is written J or 12"),
    (["best", "7S 7S 7S 8S 9S"], "hand holds 3 copies of 7S, but --decks is 2"),
    (["best", "--decks", "1", "7S 7S 8S 9S"], "hand holds 2 copies of 7S, but --decks is 1"),
    (["best", "--jokers", "2", "JK JK JK 7S"], "hand holds 3 jokers, but --jokers is 2"),
    (["best", "--rules", "nope", "7S"], "'nope' is not a rule preset: choose one of"),
    (["best", "--decks", "x", "7S"], "argument --decks: 'x' is not a whole number"),
    (["best", "--decks", "3", "7S"], "--decks must be 1..2, got 3"),
    (["best", "--threshold", "0", "7S"], "--threshold must be 1..10000, got 0"),
    (["best", "--keep", "-1", "7S"], "argument --keep: '-1' is negative"),
    (["best", "--keep", "1.5", "7S"], "'1.5' is not a whole number"),
    (["best", "--must-use", "9H", "7S 8S 9S"], "the --must-use card 9H is not in the hand"),
    (["best", "--must-use", "11H", "7S 8S 9S"], "--must-use: '11H' is not a card"),
    (["best", ""], "hand 1 is empty"),
    (["best"], "the following arguments are required: HAND"),
    (["best", "--bogus", "7S"], "unrecognized arguments: --bogus"),
    (["bogus"], "invalid choice: 'bogus'"),
    ([], "the following arguments are required: COMMAND"),
])
def test_bad_input_one_line_exit_2(capsys, argv, reason):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("rummy51: error: ")
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert reason in err
    assert "Traceback" not in err


def test_empty_stdin(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n# nothing\n"))
    code, _, err = run(capsys, "best", "-")
    assert code == 2 and err == "rummy51: error: no hands on stdin: give one hand per line\n"


def test_library_type_error_becomes_one_line(capsys, monkeypatch):
    def boom(*a, **k):
        raise TypeError("rules must be a RuleSet, got str")
    monkeypatch.setattr(cli.best, "best_opening", boom)
    code, _, err = run(capsys, "best", EXAMPLE)
    assert (code, err) == (2, "rummy51: error: rules must be a RuleSet, got str\n")


def test_ctrl_c_exits_130_quietly(capsys, monkeypatch):
    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli.best, "best_opening", interrupted)
    assert run(capsys, "best", EXAMPLE) == (130, "", "")


# --------------------------------------------------------------------------- version, help
def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"rummy51 {rummy51.__version__}"


def test_help(capsys):
    code, out, _ = run(capsys, "best", "--help")
    assert code == 0 and "--must-use" in out and "--rules" in out and "--no-ace-high" in out


# --------------------------------------------------------------------------- the real entry
def test_python_m_rummy51():
    proc = subprocess.run(
        [sys.executable, "-m", "rummy51", "best", "--json", EXAMPLE],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["value"] == 51
    bad = subprocess.run(
        [sys.executable, "-m", "rummy51", "best", "6S 11H"],
        capture_output=True, text=True, timeout=60,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("rummy51: error: ") and "Traceback" not in bad.stderr


def test_one_bad_hand_among_good_ones(capsys):
    code, out, err = run(capsys, "best", "7S 8S 9S", "QQ")
    assert code == 2 and "hand: 7S 8S 9S" in out
    assert err.startswith("rummy51: error: hand 2 'QQ': 'QQ' is not a card") and err.count("\n") == 1


def test_unquoted_cards_are_one_hand(capsys):
    code, out, err = run(capsys, "best", "6S", "7S", "8S", "2C")
    assert code == 0 and out.count("hand: ") == 1 and "hand: 6S 7S 8S 2C" in out
    assert "read the 4 arguments as one hand" in err


def test_text_says_the_rules_and_the_kept_card(capsys):
    code, out, _ = run(capsys, "best", "7S 8S 9S", "--rules", "gin")
    assert out.startswith("rules: gin (1 deck, 0 jokers, threshold 51, 10-card hands)")
    assert "1 card kept for the discard" in out


def test_report_refuses_an_unknown_suffix(capsys, tmp_path):
    code, _, err = run(capsys, "report", "-o", str(tmp_path / "x.pdf"), str(tmp_path))
    assert code == 2 and "a report is HTML (.html) or Markdown (.md), not .pdf" in err
