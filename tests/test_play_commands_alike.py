"""The two play commands alike: ``help`` in both, piped answers echoed (no prompt), a
refusal quoting what the player typed; Carousel play says when no meld play exists; each
analyse command points to the other for the other game's history."""
from __future__ import annotations

import io
import json
import sys

import rummy51.cli as top
from rummy51.carousel.bots import make_bot, play_game
from rummy51.carousel.rules import CarouselRules
from rummy51.r51.bots import GreedyBot, play_deal
from rummy51.rules import RuleSet


def _run(monkeypatch, capsys, argv, lines):
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(x + "\n" for x in lines)))
    code = top.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_rummy51_play_help_echo_and_refusals_as_typed(monkeypatch, capsys):
    code, out, err = _run(monkeypatch, capsys, ["play", "--seed", "3", "--bots", "greedy"],
                          ["1", "help", "discard 5Z", "Draw Stock", "q"])
    assert code == 0, err
    assert "> 1\n" in out and "> help\n" in out and "> Draw Stock\n" in out
    assert "commands:" in out and "hint" in out and "q  " in out
    assert "your move (" not in out                # no prompt when stdin is not a terminal
    assert "'discard 5Z' is not an action: '5Z' is not a card" in err     # not '5z'
    assert "left the deal" in out


def test_carousel_play_help_and_echo(monkeypatch, capsys):
    code, out, err = _run(monkeypatch, capsys, ["carousel", "play", "--seed", "3", "--bots",
                                                "greedy"], ["help", "meld 5Z", "quit"])
    assert code == 0
    assert "> help\n" in out and "commands:" in out and "meld 7S JK(KC)" in out
    assert err.strip() == "refused: meld '5Z': '5Z' is not a card: 'Z' is not a suit (use S H D " \
                          "C or ♠ ♥ ♦ ♣)"           # what was typed, not "hand '5Z'"


def test_carousel_play_says_when_no_meld_exists(monkeypatch, capsys):
    code, out, _ = _run(monkeypatch, capsys, ["carousel", "play", "--seed", "3", "--bots",
                                              "greedy"], ["quit"])
    assert code == 0
    assert "no meld play exists: no card of your hand fits the table, nor a meld of your own; " \
           "draw again (1 of 3 drawn)" in out


def test_each_analyse_points_to_the_other(tmp_path, capsys):
    car = tmp_path / "car.json"
    car.write_text(play_game([make_bot("greedy"), make_bot("greedy")],
                             CarouselRules.for_players(2), seed=1).to_json())
    r51 = tmp_path / "r51.json"
    r51.write_text(play_deal([GreedyBot(), GreedyBot()], RuleSet(), seed=1).to_json())
    for argv, want in ((["analyse", str(car)], f"rummy51 carousel analyse {car}"),
                       (["carousel", "analyse", str(r51)], f"rummy51 analyse {r51}")):
        code = top.main(argv + ["--rollouts", "2"])
        err = capsys.readouterr().err
        assert code == 2 and want in err and len(err.strip().splitlines()) == 1, err
    assert json.loads(car.read_text())["format"] == "rummy51/carousel-history"
