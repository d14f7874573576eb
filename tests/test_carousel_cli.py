"""The ``carousel best`` command: ``rummy51 carousel ...`` (``rummy51.cli.carousel``) and
its ``add_parser`` under another argparse program (as the package's main CLI wires it)."""
from __future__ import annotations

import argparse
import json

import pytest

import rummy51.cli
from rummy51.cli import carousel as cli
from rummy51.cli import carousel_options

TABLE = "6S 7S 8S | 9H 9D 9C"
HAND = "5S 9S JK 2C"


def main(argv):
    """``rummy51 carousel ARGV``: the exit status."""
    return rummy51.cli.main(["carousel", *argv])


def test_best_prints_table_cards_points_and_knock(capsys):
    assert main(["best", "--table", TABLE, "--hand", HAND]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines == [
        "table:        5S 6S 7S 8S 9S JK(10S) | 9H 9D 9C",
        "cards played: 5S 9S JK (3)",
        "points left:  2 (of 41 in hand)",
        "can knock:    yes (limit 5)",
    ]


def test_best_json(capsys):
    assert main(["best", "--table", TABLE, "--hand", HAND, "--json"]) == 0
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
    assert main(["best", "--table", "QH KH AH", "--hand", "2H 3H"]) == 0
    out, _ = capsys.readouterr()
    assert "cards played: none (no legal play)" in out and "points left:  5" in out
    assert main(["best", "--hand", "7S 8S 9S 2C", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["points_left"] == 2 and data["table"] == ["7S 8S 9S"]


def test_rule_options(capsys):
    # one deck: the second 5S does not exist
    assert main(["best", "--table", "5S 6S 7S", "--hand", "5S", "--players", "2"]) == 2
    assert "but --decks is 1" in capsys.readouterr().err
    # one joker per meld: 4S 5S with two jokers is no meld
    assert main(["best", "--hand", "4S 5S JK JK", "--max-jokers-per-meld", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cards_played"] == 3
    assert main(["best", "--table", "QS KS AS", "--hand", "2C", "--no-ace-high"]) == 2
    assert "the ace is low only" in capsys.readouterr().err
    assert main(["best", "--hand", "2C 3C", "--knock-limit", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["can_knock"] is False


@pytest.mark.parametrize("argv, message", [
    (["best", "--table", "6S 7S 9S", "--hand", "5S"], "meld '6S 7S 9S' is not a meld"),
    (["best", "--table", "6S 7S JK", "--hand", "5S"], "needs its declared card"),
    (["best", "--table", "6S 7S JK(9S)", "--hand", "5S"], "cannot hold the declared JK(9S)"),
    (["best", "--table", "6S 7S 8S", "--hand", "6S 6S"], "3 copies of 6S, but --decks is 2"),
    (["best", "--table", "6S 7S 8S", "--hand", "9Q"], "'9Q' is not a card"),
    (["best", "--table", "6S 7S 8S"], "the following arguments are required: --hand"),
    (["best", "--hand", "2C", "--decks", "3"], "--decks must be 1..2, got 3"),
    (["best", "--hand", "2C", "--players", "x"], "'x' is not a whole number"),
    (["best", "--hand", "2C", "--bogus"], "unrecognized arguments: --bogus"),
    (["best", "--hand", "2C", "--time-limit", "0"], "--time-limit: must be more than 0, got 0"),
    (["best", "--hand", "2C", "--time-limit", "nan"], "--time-limit: must be more than 0"),
    (["best", "--hand", "2C", "--memory-limit", "1.5"], "--memory-limit: '1.5' is not a whole"),
    ([], "the following arguments are required: COMMAND"),
    (["worst"], "invalid choice: 'worst'"),
])
def test_bad_input_one_line_exit_2(capsys, argv, message):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("rummy51: error: ") and message in err, err
    assert "Traceback" not in err


# a position that needs 69 MB without a limit (bench/carousel_positions.hard_positions)
BIG_TABLE = ("9S 9H 9D 9C | 2S 3S 4S 5S 6S 7S 8S | 4S 5S 6S 7S | 9S 9D 9C | 3S 3H 3C | "
             "6D 7D 8D | 8S 8D 8C | 4H 5H 6H 7H 8H | 2H 3H 4H 5H 6H 7H 8H | 2S 2H 2D 2C | "
             "AD 2D 3D 4D 5D 6D 7D | 2C 3C 4C 5C 6C 7C | AS AH AD AC | 6C 7C 8C")
BIG_HAND = "AS QS KS AH 9H QH 3D 4D 5D QD QD AC 4C 5C 10C JC KC JK"


def test_best_gives_up_past_its_limits_in_one_line(capsys):
    assert main(["best", "--table", BIG_TABLE, "--hand", BIG_HAND, "--memory-limit", "1"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "rummy51: gave up: the search needed more than --memory-limit 1 MB\n"
    assert main(["best", "--table", BIG_TABLE, "--hand", BIG_HAND, "--time-limit", "1e-6"]) == 1
    assert capsys.readouterr().err == ("rummy51: gave up: the search took more than "
                                       "--time-limit 1e-06 s\n")
    assert main(["best", "--table", TABLE, "--hand", HAND, "--time-limit", "30",
                 "--memory-limit", "256", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["points_left"] == 2


def test_help_exits_0(capsys):
    assert main(["best", "--help"]) == 0
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

    # the main CLI registers it itself (build_parser calls cli.carousel.add_parser)
    assert top.main(["carousel", "best", "--table", TABLE, "--hand", HAND]) == 0
    assert "points left:  2" in capsys.readouterr().out
    assert top.main(["carousel", "best", "--table", "6S 7S 9S", "--hand", "5S"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rummy51: error: meld '6S 7S 9S' is not a meld") and err.count("\n") == 1
    assert top.main(["carousel", "best", "--table", "6S 7S 8S"]) == 2
    assert "required: --hand" in capsys.readouterr().err


# --------------------------------------------------------------------------- rule flags (issue 27)
import dataclasses  # noqa: E402
import typing  # noqa: E402

import rummy51.cli as top  # noqa: E402
from rummy51.carousel import CarouselRules  # noqa: E402
from rummy51.carousel.presets import PRESETS, preset  # noqa: E402

COMMANDS = (["carousel", "best", "--hand", "2C"], ["carousel", "simulate"], ["carousel", "play"])
FIELDS = [f for f in dataclasses.fields(CarouselRules) if f.name != "players"]
HINTS = typing.get_type_hints(CarouselRules)


def _parse(argv):
    parser = top.build_parser()
    return parser.parse_args(argv)


def _other_value(f):
    """(flag words, the value the rules must then hold) for a value other than the
    default that CarouselRules accepts."""
    flag = "--" + f.name.replace("_", "-")
    default = getattr(CarouselRules(), f.name)
    hint = HINTS[f.name]
    if hint is bool:
        return ([flag] if not default else ["--no-" + flag[2:]]), (not default)
    if hint == (int | None):
        return [flag, "1"], 1
    if hint is int:
        for v in (default + 1, default - 1):
            try:
                CarouselRules(**{f.name: v})
            except ValueError:
                continue
            return [flag, str(v)], v
        raise AssertionError(f"no other value for {f.name}")
    action = next(a for a in top.build_parser()._subparsers._group_actions[0].choices["carousel"]
                  ._subparsers._group_actions[0].choices["best"]._actions
                  if flag in a.option_strings)
    assert action.choices, f"{flag}: a text field without choices"
    other = next(c for c in action.choices if c != getattr(default, "value", default))
    return [flag, other], other


@pytest.mark.parametrize("f", FIELDS, ids=lambda f: f.name)
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[1])
def test_every_rules_field_is_a_flag_of_every_command(command, f):
    """Generated from the dataclass: a new field gets its flag in best, simulate and play."""
    from rummy51.cli.carousel_options import rules_from_args

    words, value = _other_value(f)
    args = _parse(command + words)
    rules = rules_from_args(args, 4)
    got = getattr(rules, f.name)
    assert getattr(got, "value", got) == value
    # every other field is the source's
    base = CarouselRules.for_players(4)
    for g in FIELDS:
        if g.name != f.name and not (f.name == "decks" and g.name == "jokers"):
            assert getattr(rules, g.name) == getattr(base, g.name), g.name


def test_flags_come_from_the_fields_of_the_dataclass(monkeypatch):
    """A field added to the rules (like the coming ``stock_out``) becomes a flag, its
    choices read from the rules' module, its help from the docstring."""
    import sys

    @dataclasses.dataclass(frozen=True, kw_only=True)
    class Rules:
        """Rules.

        * ``stock_out`` ("exhauster"): who has the last turns after the stock ran out.
        * ``knock_limit`` (5): knock at this many points.
        """
        stock_out: str = "exhauster"
        knock_limit: int = 5
        sharp: bool = False

    monkeypatch.setattr(sys.modules[__name__], "STOCK_OUTS", ("exhauster", "finder"),
                        raising=False)
    specs = dict(carousel_options._rule_specs(Rules))
    assert set(specs) == {"stock_out", "knock_limit", "sharp"}
    assert specs["stock_out"]["choices"] == ("exhauster", "finder")
    assert "who has the last turns" in specs["stock_out"]["help"]
    assert specs["sharp"]["action"] is argparse.BooleanOptionalAction


def test_no_python_names_in_errors(capsys):
    for argv, flag in ((["best", "--hand", "2C", "--knock-limit", "-1"], "--knock-limit"),
                       (["best", "--hand", "2C", "--jokers", "9"], "--jokers"),
                       (["best", "--hand", "2C", "--hand-size", "40"], "--hand-size"),
                       (["best", "--table", "5S 6S JK(7S) | 8H JK(9H) 10H", "--hand", "2C",
                         "--max-jokers-per-meld", "0"], "--max-jokers-per-meld"),
                       (["simulate", "--players", "7", "--games", "1"], "--players"),
                       (["simulate", "--games", "0"], "--games"),
                       (["simulate", "--games", "1", "--chunk-size", "0"], "--chunk-size"),
                       (["simulate", "--games", "1", "--target-score", "0"], "--target-score"),
                       (["play", "--bots", "greedy", "--hand-size", "40"], "--hand-size"),
                       (["play", "--rounds", "0"], "--rounds")):
        assert top.main(["carousel", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and flag in err, (argv, err)
        assert "CarouselRules" not in err and "rules." not in err and "_" not in err, err


def test_presets(capsys):
    assert preset("source", 2) == CarouselRules.for_players(2)
    assert preset("source", 5) == CarouselRules.for_players(5)
    assert (preset("one-deck", 4).decks, preset("one-deck", 4).jokers) == (1, 1)
    # --rules one-deck: the second 5S does not exist
    assert top.main(["carousel", "best", "--table", "5S 6S 7S", "--hand", "5S",
                     "--rules", "one-deck"]) == 2
    assert "but --decks is 1" in capsys.readouterr().err
    # a flag overrides the preset
    assert top.main(["carousel", "best", "--hand", "4S 5S JK JK", "--rules",
                     "one-joker-per-meld", "--jokers", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cards_played"] == 3
    assert top.main(["carousel", "best", "--hand", "2C", "--rules", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--rules 'nope' is not a Carousel rule preset" in err
    assert all(name in err for name in PRESETS)


def test_rules_command_lists_presets_with_sources(capsys):
    assert top.main(["carousel", "rules"]) == 0
    out = capsys.readouterr().out
    for name in PRESETS:
        assert f"\n{name}\n" in "\n" + out
    assert out.count("  source: ") == len(PRESETS)
    assert top.main(["carousel", "rules", "one-deck", "--players", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("one-deck: ") and out[1].startswith("source: ")
    assert out[3].split() == ["--decks", "1", "2"] and out[4].split() == ["--jokers", "1", "2"]
    assert top.main(["carousel", "rules", "source"]) == 0
    assert "every field is the source's" in capsys.readouterr().out
    assert top.main(["carousel", "rules", "nope"]) == 2


def _help(argv) -> str:
    parser = top.build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args(argv + ["--help"])


@pytest.mark.parametrize("argv", [["carousel"], ["carousel", "best"], ["carousel", "simulate"],
                                  ["carousel", "play"], ["carousel", "rules"]])
def test_help_has_no_double_percent(argv, capsys):
    _help(argv)
    out = capsys.readouterr().out
    assert "%%" not in out and "usage:" in out
    if argv[-1] == "simulate":
        assert "95%" in out


def test_scheduler_alone_means_dask(monkeypatch, capsys):
    import rummy51.studies.carousel as study

    seen = {}

    def fake(**kw):
        seen.update(kw)
        raise ValueError("stop here")

    monkeypatch.setattr(study, "simulate_carousel", fake)
    assert top.main(["carousel", "simulate", "--scheduler", "tcp://127.0.0.1:1", "--games",
                     "1"]) == 2
    assert seen["backend"] == "dask" and seen["scheduler"] == "tcp://127.0.0.1:1"
    capsys.readouterr()
    assert top.main(["carousel", "simulate", "--games", "1"]) == 2
    assert seen["backend"] == "local"
    capsys.readouterr()
    seen.clear()
    assert top.main(["carousel", "simulate", "--backend", "local", "--scheduler", "tcp://x:1"]) == 2
    assert seen == {} and "--scheduler needs --backend dask" in capsys.readouterr().err


def test_progress_counts_games(capsys):
    pytest.importorskip("tqdm")
    from rummy51.studies.carousel import simulate_carousel

    simulate_carousel(players=2, games=2, seed=1, workers=1, progress=True)
    err = capsys.readouterr().err
    assert "games" in err and "deal" not in err, err


@pytest.mark.parametrize("argv, message", [
    (["--hand", ""], "--hand is empty"),
    (["--hand", "   "], "--hand is empty"),
    (["--hand", "2C", "--table", ""], "--table is empty: leave --table out for an empty table"),
    (["--hand", "9Q"], "--hand '9Q': '9Q' is not a card"),
    (["--hand", "JK(5S)"], "--hand 'JK(5S)': a joker in hand is a plain JK"),
    (["--hand", "2C", "--table", "6S 7S |"], "--table '6S 7S |' has an empty meld"),
    (["--hand", "2C", "--table", "6S 7S"], "meld '6S 7S' is not a meld"),
])
def test_empty_or_malformed_hand_and_table(argv, message, capsys):
    assert top.main(["carousel", "best", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err, err


def test_simulate_with_rule_flags_and_preset(tmp_path, capsys):
    assert top.main(["carousel", "simulate", "--players", "2", "--games", "2", "--seed", "1",
                     "--workers", "1", "--no-progress", "--json", "--rules", "ace-low",
                     "--knock-limit", "3", "--out", str(tmp_path / "r")]) == 0
    d = json.loads(capsys.readouterr().out)
    rules = d["meta"]["settings"]["rules"]
    assert rules["ace_high"] is False and rules["knock_limit"] == 3 and rules["decks"] == 1
    man = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert "--rules ace-low" in man["command"] and "--knock-limit 3" in man["command"]


def test_old_spellings_still_work():
    from rummy51.cli.carousel_options import rules_from_args

    args = _parse(["carousel", "simulate", "--target", "200", "--last-turn-knock", "--game-tie",
                   "play_on", "--no-ace-high", "--max-jokers-per-meld", "any", "--decks", "1"])
    r = rules_from_args(args, 2)
    assert (r.target_score, r.last_turn_knock, r.game_tie, r.ace_high) == (200, True, "play_on", False)
    assert r.max_jokers_per_meld is None and (r.decks, r.jokers) == (1, 1)
    args = _parse(["carousel", "simulate", "--rules", "one-joker-per-meld",
                   "--max-jokers-per-meld", "any"])
    assert rules_from_args(args, 4).max_jokers_per_meld is None
    assert rules_from_args(_parse(["carousel", "simulate"]), 4, required=False) is None


def test_resume_with_rule_flags_takes_the_runs_table(tmp_path, capsys):
    """On --resume the rule flags are for the run's own table (its players), and a
    flag that differs from the run is named as a flag."""
    out = str(tmp_path / "r")
    assert top.main(["carousel", "simulate", "--players", "2", "--games", "2", "--seed", "1",
                     "--workers", "1", "--no-progress", "--out", out]) == 0
    capsys.readouterr()
    assert top.main(["carousel", "simulate", "--resume", out, "--knock-limit", "5",
                     "--no-progress"]) == 0
    assert "2 games" in capsys.readouterr().out
    assert top.main(["carousel", "simulate", "--resume", out, "--rules", "ace-low",
                     "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--ace-high" in err and "players" not in err, err
