"""``hint`` in ``rummy51 carousel play``: the moves of the player's decision ranked by
rollouts (``rummy51.analysis.carousel``), scripted from stdin."""
from __future__ import annotations

import io
import re
import sys

import rummy51.cli as top


def _run(monkeypatch, capsys, argv, stdin: str):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = top.main(["carousel", "play", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_hint_ranks_the_moves_of_a_meld_decision(monkeypatch, capsys):
    # seed 3: no play after the first draw (the solver's hint), a set of kings after the
    # second: meld them or draw again
    code, out, err = _run(monkeypatch, capsys, ["--seed", "3", "--bots", "greedy"],
                          "hint\ndraw\nhint\nquit\n")
    assert code == 0 and err == ""
    first, second = out.split("> hint\n")[1:3]
    assert first.startswith("hint: no play places a card of your hand: draw")
    m = re.match(r"hint: (.+?) \(rollouts", second)
    assert m, second
    rows = re.findall(r"^ +\d+ (draw|meld [0-9AJQKSHDCJ ]+?) +[+-]\d", second, re.M)
    assert set(rows) == {"draw", "meld KH KD KC"}
    assert m.group(1) == rows[0]          # the hint is the best row
    assert "decision 0 (you, meld)" in second


def test_hint_at_the_end_of_a_turn_with_no_choice(monkeypatch, capsys):
    # after the third draw with a hand over the knock limit the only move is pass
    code, out, _ = _run(monkeypatch, capsys, ["--seed", "3", "--bots", "greedy"],
                        "draw\ndraw\nhint\nquit\n")
    assert code == 0
    assert "hint: pass" in out.split("> hint\n")[1]


def test_help_lists_hint(monkeypatch, capsys):
    code, out, _ = _run(monkeypatch, capsys, ["--seed", "3"], "help\nquit\n")
    assert code == 0 and re.search(r"^  hint +rank your moves", out, re.M)
