"""The ``carousel best`` command: ``rummy51.carousel.cli.main`` and ``add_parser`` under
another argparse program (as the package's main CLI wires it)."""
from __future__ import annotations

import argparse
import json

import pytest

from rummy51.carousel import cli

TABLE = "6S 7S 8S | 9H 9D 9C"
HAND = "5S 9S JK 2C"


def test_best_prints_table_cards_points_and_knock(capsys):
    assert cli.main(["best", "--table", TABLE, "--hand", HAND]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines == [
        "table:        5S 6S 7S | 8S 9S JK(10S) | 9H 9D 9C",
        "cards played: 5S 9S JK (3)",
        "points left:  2 (of 41 in hand)",
        "can knock:    yes (limit 5)",
    ]


def test_best_json(capsys):
    assert cli.main(["best", "--table", TABLE, "--hand", HAND, "--json"]) == 0
    out, _ = capsys.readouterr()
    data = json.loads(out)
    assert data["points_left"] == 2 and data["cards_played"] == 3
    assert sorted(data["played"]) == ["5S", "9S", "JK"]
    assert data["can_meld"] is True and data["can_knock"] is True
    assert data["hand_points"] == 41
    # the new table holds every old card and the played ones, as valid meld texts
    cards = sorted(c for m in data["table"] for c in m.split())
    assert len(cards) == 6 + 3 and "9H" in cards and any(c.startswith("JK(") for c in cards)


def test_best_no_legal_play_and_empty_table(capsys):
    assert cli.main(["best", "--table", "QH KH AH", "--hand", "2H 3H"]) == 0
    out, _ = capsys.readouterr()
    assert "cards played: none (no legal play)" in out and "points left:  5" in out
    assert cli.main(["best", "--hand", "7S 8S 9S 2C", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["points_left"] == 2 and data["table"] == ["7S 8S 9S"]


def test_rule_options(capsys):
    # one deck: the second 5S does not exist
    assert cli.main(["best", "--table", "5S 6S 7S", "--hand", "5S", "--players", "2"]) == 2
    assert "rules.decks is 1" in capsys.readouterr().err
    # one joker per meld: 4S 5S with two jokers is no meld
    assert cli.main(["best", "--hand", "4S 5S JK JK", "--max-jokers-per-meld", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cards_played"] == 3
    assert cli.main(["best", "--table", "QS KS AS", "--hand", "2C", "--no-ace-high"]) == 2
    assert "the ace is low only" in capsys.readouterr().err
    assert cli.main(["best", "--hand", "2C 3C", "--knock-limit", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["can_knock"] is False


@pytest.mark.parametrize("argv, message", [
    (["best", "--table", "6S 7S 9S", "--hand", "5S"], "meld '6S 7S 9S' is not a meld"),
    (["best", "--table", "6S 7S JK", "--hand", "5S"], "needs its declared card"),
    (["best", "--table", "6S 7S JK(9S)", "--hand", "5S"], "cannot hold the declared JK(9S)"),
    (["best", "--table", "6S 7S 8S", "--hand", "6S 6S"], "3 copies of 6S, but rules.decks is 2"),
    (["best", "--table", "6S 7S 8S", "--hand", "9Q"], "'9Q' is not a card"),
    (["best", "--table", "6S 7S 8S"], "the following arguments are required: --hand"),
    (["best", "--hand", "2C", "--decks", "3"], "CarouselRules.decks must be 1..2, got 3"),
    (["best", "--hand", "2C", "--players", "x"], "invalid int value: 'x'"),
    (["best", "--hand", "2C", "--bogus"], "unrecognized arguments: --bogus"),
    ([], "the following arguments are required: command"),
    (["worst"], "invalid choice: 'worst'"),
])
def test_bad_input_one_line_exit_2(capsys, argv, message):
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err, err
    assert "Traceback" not in err


def test_help_exits_0(capsys):
    assert cli.main(["best", "--help"]) == 0
    assert "--table" in capsys.readouterr().out


def _fresh_program():
    """A program like the package's main CLI: subcommands whose handler runs them."""
    parser = argparse.ArgumentParser(prog="rummy51")
    subparsers = parser.add_subparsers(dest="command", required=True)
    returned = cli.add_parser(subparsers)
    assert isinstance(returned, argparse.ArgumentParser)
    return parser


def test_add_parser_under_another_program(capsys):
    parser = _fresh_program()
    args = parser.parse_args(["carousel", "best", "--table", TABLE, "--hand", HAND, "--json"])
    assert args.command == "carousel" and args.carousel_command == "best"
    assert args.handler(args) == 0
    assert json.loads(capsys.readouterr().out)["points_left"] == 2
    # the handler lets bad input raise, for the main program to print as one line
    args = parser.parse_args(["carousel", "best", "--table", "6S 7S 9S", "--hand", "5S"])
    with pytest.raises(ValueError, match="is not a meld"):
        args.handler(args)
    # cli.run prints it itself
    assert cli.run(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    # the other options are there too
    args = parser.parse_args(["carousel", "best", "--hand", "7S 8S 9S", "--players", "2",
                              "--no-ace-high", "--knock-limit", "0", "--max-jokers-per-meld", "1"])
    assert args.handler(args) == 0
    assert "points left:  0" in capsys.readouterr().out


def test_add_parser_requires_a_carousel_command():
    parser = _fresh_program()
    with pytest.raises(SystemExit) as info:
        parser.parse_args(["carousel"])
    assert info.value.code == 2


def test_under_the_package_main_cli(monkeypatch, capsys):
    """Wired as ``rummy51 carousel best`` (the main CLI's build_parser plus one
    ``add_parser`` call), output and errors follow the main CLI's conventions."""
    import rummy51.cli as top

    # the main CLI registers it itself (build_parser calls carousel.cli.add_parser)
    assert top.main(["carousel", "best", "--table", TABLE, "--hand", HAND]) == 0
    assert "points left:  2" in capsys.readouterr().out
    assert top.main(["carousel", "best", "--table", "6S 7S 9S", "--hand", "5S"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rummy51: error: meld '6S 7S 9S' is not a meld") and err.count("\n") == 1
    assert top.main(["carousel", "best", "--table", "6S 7S 8S"]) == 2
    assert "required: --hand" in capsys.readouterr().err
