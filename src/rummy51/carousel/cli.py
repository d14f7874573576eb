"""``carousel best`` / ``rules`` (and, registered from their modules, ``simulate`` and
``play``): Carousel from the command line.

    python -m rummy51.carousel.cli best --table "6S 7S 8S | 9H 9D 9C" --hand "5S 9S JK 2C"

prints the new table, the cards played, the points left and whether the player can
knock (``--json`` for one JSON object). Rules: ``--rules NAME`` picks a preset
(``carousel rules`` lists them with their sources; default ``source``, the source's
deck for the table size), then one flag per ``CarouselRules`` field overrides it
(``--knock-limit 3``, ``--no-ace-high``, ``--max-jokers-per-meld 1``, ...). The flags
are generated from the dataclass's fields, with help from its docstring, so a new
field gets its flag in ``best``, ``simulate`` and ``play`` at once
(``add_rule_options`` / ``rules_from_args``). ``--players N`` picks the source's deck
for N players; ``--decks D`` without ``--jokers`` takes D jokers (the source's
table). Bad input prints one line on stderr, naming flags (never Python fields), and
exits with status 2.

``add_parser(subparsers)`` registers the ``carousel`` command group under another
argparse program (the package's main CLI: ``rummy51 carousel best ...``); it sets
``handler`` on the namespace, as the main CLI's subcommands do.
"""
from __future__ import annotations

import argparse
import dataclasses
import enum
import json
import os
import re
import sys
import typing
from typing import Any, Optional

from ..cards import cards_text
from . import rules as _rules_module
from .presets import PRESET_NOTES, PRESETS, preset
from .rules import CarouselRules
from .solver import best_play
from .table import table_text

__all__ = ["main", "add_parser", "build_parser", "add_rule_options", "rules_from_args",
           "flag_words", "int_option", "ANY", "RULE_FLAGS"]


class _ArgError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, no usage dump
        raise _ArgError(message)


# --------------------------------------------------------------------------- rule flags
#: Fields a command sets its own way (``--players``: the table size), not as a rule flag.
_OWN_FLAGS = ("players",)
#: Extra spellings kept from before the flags were generated.
_ALIASES = {"target_score": ("--target",)}
_DEST = "rule_"


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


#: Help where the docstring's bullet reads badly as a flag's help (a field not here, a
#: new one included, takes its bullet's text).
_HELP = {
    "decks": "52-card decks, 1 or 2 (the source: 1 for two players, 2 for more)",
    "jokers": "jokers in the deck, 0..4 (the source: 1 for two players, 2 for more)",
    "ace_value": "points of an ace left in hand",
    "face_value": "points of a J, Q or K left in hand",
    "joker_value": "points of a joker left in hand",
    "undercut_bonus": "bonus of a winner who undercut the knocker",
    "going_out_bonus": "bonus for going out (every card melded)",
    "target_score": "the game ends when a player's total reaches this",
    "game_bonus": "bonus at the end of the game for each player who reached the target",
    "round_won_bonus": "bonus at the end of the game per round won",
}


def _field_docs(cls=CarouselRules) -> dict[str, str]:
    """Each field's description from the bullets of ``CarouselRules``' docstring
    (``* ``name`` (default): text``; a bullet naming several fields gives each the text)."""
    out: dict[str, str] = {}
    doc = cls.__doc__ or ""
    for bullet in re.findall(r"^\s*\* (.*?)(?=^\s*\*|^\s*$|\Z)", doc, re.S | re.M):
        bullet = " ".join(bullet.split())
        head = re.match(r"((?:``\w+`` \([^)]*\)(?:, )?)+):?\s*(.*)", bullet)
        if not head:
            continue
        names = re.findall(r"``(\w+)``", head.group(1))
        text = head.group(2).strip(" .").replace("``", "")
        for n in names:
            words = n.replace("_", " ")
            out[n] = (f"{words}: {text}" if len(names) > 1 and text else text) or words
    return out


def _choices(name: str, default, module) -> Optional[tuple]:
    """The values of a text field: a tuple of strings in the rules' module holding its
    default (``GAME_TIES`` for ``game_tie``), or the values of an Enum field."""
    if isinstance(default, enum.Enum):
        return tuple(m.value for m in type(default))
    if not isinstance(default, str):
        return None
    listed = getattr(module, "_CHOICE_FIELDS", None)
    if isinstance(listed, dict) and name in listed:
        return tuple(listed[name])
    for value in vars(module).values():
        if (isinstance(value, tuple) and value and all(isinstance(v, str) for v in value)
                and default in value):
            return value
    return None


class _Any:
    """``--max-jokers-per-meld any``: the field's None, told apart from a flag not given."""

    def __repr__(self) -> str:
        return "any"


#: The value of an optional-number flag given as ``any`` (the field's None).
ANY = _Any()


def int_option(flag: str, allow_none: bool = False):
    """argparse type: a whole number (with ``allow_none``, ``any`` too: ``ANY``)."""

    def parse(text: str):
        if allow_none and text.strip().lower() in ("none", "any"):
            return ANY
        try:
            return int(text, 10)
        except ValueError:
            extra = " (or 'any')" if allow_none else ""
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number{extra}") from None
    parse.__name__ = "whole number"
    return parse


def _rule_specs(cls=CarouselRules) -> list[tuple[str, dict[str, Any]]]:
    """``(field, argparse keywords)`` of each rule flag, from the fields of ``cls`` (the
    rules dataclass): the type from the annotation (bool: ``--x/--no-x``; int; optional
    int: a number or ``any``; text: the choices its module lists), the help from the
    docstring, the default from the field."""
    hints = typing.get_type_hints(cls)
    docs = _field_docs(cls)
    module = sys.modules.get(cls.__module__, _rules_module)
    out = []
    for f in dataclasses.fields(cls):
        if f.name in _OWN_FLAGS:
            continue
        hint = hints.get(f.name)
        value = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else None)
        text = _HELP.get(f.name) or docs.get(f.name, f.name.replace("_", " "))
        kw: dict[str, Any] = {"dest": _DEST + f.name, "default": None}
        shown = value.value if isinstance(value, enum.Enum) else value
        if hint is bool:
            kw["action"] = argparse.BooleanOptionalAction
            text = re.sub(r"\bTrue\b", _flag(f.name), text)
            text = re.sub(r"\bFalse\b", "--no-" + _flag(f.name)[2:], text)
            shown = "on" if value else "off"
        elif hint is int:
            kw.update(type=int_option(_flag(f.name)), metavar="N")
        elif hint == Optional[int]:
            kw.update(type=int_option(_flag(f.name), allow_none=True), metavar="N")
            shown = "any" if value is None else value
            text = re.sub(r"\bNone\b", "any", text)
        else:
            choices = _choices(f.name, value, module)
            if isinstance(value, enum.Enum):
                kw["type"] = type(value)
            if choices:
                kw["choices"] = choices
                kw["type"] = str
            else:
                kw.update(type=str, metavar="VALUE")
        kw["help"] = f"{text} (default {shown})".replace("%", "%%")
        out.append((f.name, kw))
    return out


#: The rule flags, one per ``CarouselRules`` field but ``players``: (field, flag).
RULE_FLAGS: tuple[tuple[str, str], ...] = tuple((n, _flag(n)) for n, _ in _rule_specs())


def add_rule_options(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """Add ``--rules NAME`` and one flag per ``CarouselRules`` field (but ``players``,
    which each command sets its own way) to ``parser``, as the group "rules"."""
    group = parser.add_argument_group(
        "rules", "A preset (--rules), then single fields (only the flags given change it).")
    group.add_argument("--rules", metavar="NAME", default=None, dest="rules_preset",
                       help=f"rule preset: {', '.join(PRESETS)} (default source; "
                            "'rummy51 carousel rules' lists them with their sources)")
    for name, kw in _rule_specs():
        group.add_argument(_flag(name), *_ALIASES.get(name, ()), **kw)
    return group


def _given(args) -> dict[str, Any]:
    """The rule flags given: field -> value (``any`` -> None)."""
    out = {}
    for name, _ in RULE_FLAGS:
        v = getattr(args, _DEST + name, None)
        if v is not None:
            out[name] = None if v is ANY else v
    return out


def rules_from_args(args, players: int, required: bool = True) -> Optional[CarouselRules]:
    """The ``CarouselRules`` of ``--rules`` and the rule flags for ``players`` players
    (None when neither is given and not ``required``). ``--decks D`` without
    ``--jokers`` takes D jokers (the source's table). Errors name flags."""
    name = getattr(args, "rules_preset", None)
    given = _given(args)
    if name is None and not given and not required:
        return None
    if "decks" in given and "jokers" not in given:
        given["jokers"] = given["decks"]
    if name is not None and name not in PRESETS:
        raise ValueError(f"--rules {name!r} is not a Carousel rule preset: choose one of "
                         f"{', '.join(PRESETS)}")
    try:
        return preset(name or "source", players, **given)
    except (ValueError, TypeError) as e:
        raise type(e)(flag_words(str(e))) from None


_FIELDS = tuple(f.name for f in dataclasses.fields(CarouselRules))


def flag_words(msg: str) -> str:
    """A library message as the command line says it: ``CarouselRules.knock_limit`` and
    ``rules.decks`` become ``--knock-limit`` and ``--decks``."""
    return re.sub(r"\b(?:CarouselRules|rules)\.(" + "|".join(_FIELDS) + r")\b",
                  lambda m: _flag(m.group(1)), msg)


# --------------------------------------------------------------------------- best
def _add_best(sub) -> None:
    best = sub.add_parser("best", help="the best play of a table and a hand",
                          description="The best play of a Carousel position: the legal play "
                                      "leaving the fewest points in hand.")
    best.add_argument("--table", default=None,
                      help='melds separated by "|", e.g. "6S 7S JK(8S) | 9H 9D 9C" '
                           "(leave it out for an empty table)")
    best.add_argument("--hand", required=True, help='the hand, e.g. "5S 9S JK 2C"')
    best.add_argument("--json", action="store_true", help="print one JSON object")
    best.add_argument("--players", type=int_option("--players"), default=None, metavar="N",
                      help="players (2..6): picks the source's deck (default 4: two decks, "
                           "two jokers)")
    add_rule_options(best)
    best.set_defaults(_carousel_run=_run_best)


def _add_rules(sub) -> None:
    p = sub.add_parser("rules", help="the Carousel rule presets (--rules NAME) with their sources",
                       description="List the presets --rules NAME takes, each with what it is "
                                   "and the rule text it follows; with NAME, every flag in "
                                   "which it differs from the source's rules.")
    p.add_argument("name", nargs="?", metavar="NAME", help="a preset to show flag by flag")
    p.add_argument("--players", type=int_option("--players"), default=4, metavar="N",
                   help="the table size the deck is for (default 4)")
    p.set_defaults(_carousel_run=_run_rules)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m rummy51.carousel.cli",
                     description="Carousel (manipulation rummy) solver")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _add_best(sub)
    from .cli_play import add_play_parser
    from .cli_simulate import add_simulate_parser

    add_simulate_parser(sub)
    add_play_parser(sub)
    _add_rules(sub)
    return parser


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``carousel`` (``best``, ``simulate``, ``play``, ``rules``) on an argparse
    subparsers object.

    The parsed namespace gets ``handler``, the convention of the package's main CLI:
    ``args.handler(args)`` runs the command and returns the exit status, letting bad
    input raise ValueError/TypeError (in flag words) for the caller to print.
    ``run(args)`` does the same but prints the error itself (one stderr line) and
    returns 2."""
    car = subparsers.add_parser("carousel", help="Carousel: the table-manipulation game",
                                description="Carousel (manipulation rummy): the solver, "
                                            "whole games between bots, a game against them")
    sub = car.add_subparsers(dest="carousel_command", metavar="COMMAND", required=True)
    _add_best(sub)
    from .cli_play import add_play_parser
    from .cli_simulate import add_simulate_parser

    add_simulate_parser(sub)
    add_play_parser(sub)
    _add_rules(sub)
    car.set_defaults(handler=_dispatch)
    return car


def _dispatch(args) -> int:
    try:
        return int(args._carousel_run(args))
    except (ValueError, TypeError) as e:
        msg = flag_words(str(e))
        if msg == str(e):
            raise
        raise (TypeError if isinstance(e, TypeError) else ValueError)(msg) from None


def _nonblank(value: Optional[str], flag: str, example: str, optional: bool = False) -> Optional[str]:
    if value is None:
        return None
    if not value.strip():
        hint = f"leave {flag} out for an empty table, or give" if optional else "give"
        raise ValueError(f"{flag} is empty: {hint} cards like \"{example}\"")
    return value


def _run_best(args) -> int:
    table = _nonblank(args.table, "--table", "6S 7S 8S | 9H 9D 9C", optional=True)
    hand = _nonblank(args.hand, "--hand", "5S 9S JK 2C")
    rules = rules_from_args(args, 4 if args.players is None else args.players)
    assert rules is not None  # required: never None
    try:
        play = best_play(table, hand, rules)
    except ValueError as e:
        msg = str(e)
        if msg.startswith(("hand '", "table '")):  # the library names its inputs
            raise ValueError("--" + msg) from None
        raise
    if args.json:
        print(json.dumps({
            "table": [m.text() for m in play.melds],
            "played": [cards_text([c]) for c in play.played],
            "cards_played": play.cards_played,
            "points_left": play.points_left,
            "hand_points": play.hand_points,
            "can_meld": play.can_meld,
            "can_knock": play.can_knock,
        }))
    else:
        played = cards_text(play.played)
        print("table:        " + (table_text(play.melds) or "(empty)"))
        print("cards played: " + (f"{played} ({play.cards_played})" if played
                                  else "none (no legal play)"))
        print(f"points left:  {play.points_left} (of {play.hand_points} in hand)")
        print(f"can knock:    {'yes' if play.can_knock else 'no'} "
              f"(limit {rules.knock_limit})")
    return 0


def _shown(v) -> str:
    if v is None:
        return "any"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v.value if isinstance(v, enum.Enum) else v)


def _run_rules(args) -> int:
    if args.name is None:
        for name in PRESETS:
            note = PRESET_NOTES[name]
            print(f"{name}\n  {note.description}\n  source: {note.source}")
        return 0
    rules = preset(args.name, args.players)
    note = PRESET_NOTES[args.name]
    print(f"{args.name}: {note.description}\nsource: {note.source}")
    base = CarouselRules.for_players(args.players)
    diff = [(_flag(f.name), _shown(getattr(base, f.name)), _shown(getattr(rules, f.name)))
            for f in dataclasses.fields(CarouselRules)
            if getattr(rules, f.name) != getattr(base, f.name)]
    if not diff:
        print(f"every field is the source's for {args.players} players")
        return 0
    width = max(len(n) for n, _, _ in diff)
    print(f"{'flag':<{width}}  {'preset':>8}  source ({args.players} players)")
    for name, d, v in diff:
        print(f"{name:<{width}}  {v:>8}  {d}")
    return 0


def run(args) -> int:
    """Execute a parsed ``carousel`` namespace; errors become one stderr line and 2."""
    try:
        return _dispatch(args)
    except (ValueError, TypeError) as e:
        print("error: " + " ".join(str(e).split()), file=sys.stderr)
        return 2


def main(argv: Optional[list[str]] = None) -> int:
    """``best --table ... --hand ...``; returns the exit status (0, or 2 on bad input,
    with one line on stderr)."""
    parser = build_parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except _ArgError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:  # --help
        return e.code if isinstance(e.code, int) else 0
    try:
        return run(args)
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1


if __name__ == "__main__":
    sys.exit(main())
