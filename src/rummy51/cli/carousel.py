"""``rummy51 carousel``: the Carousel command group (``best``, ``rules``; ``simulate``,
``play`` and ``analyse`` from their modules, the rule flags from ``carousel_options``)::

    rummy51 carousel best --table "6S 7S 8S | 9H 9D 9C" --hand "5S 9S JK 2C"

prints the new table, the cards played, the points left and whether the player can
knock (``--json`` for one JSON object); ``--time-limit SECONDS`` and ``--memory-limit MB``
bound the search (past one: a line saying so on stderr, exit status 1). Rules: ``--rules NAME`` picks a preset
(``carousel rules`` lists them with their sources; default ``source``, the source's
deck for the table size), then one flag per ``CarouselRules`` field overrides it
(``--knock-limit 3``, ``--no-ace-high``, ``--max-jokers-per-meld 1``, ...).
``--players N`` picks the source's deck for N players; ``--decks D`` without
``--jokers`` takes D jokers (the source's table). Bad input is one line on stderr,
naming flags (never Python fields), exit status 2.

``add_parser(subparsers)`` registers the group under the main CLI (``rummy51 carousel
best ...``) and sets ``handler`` on the namespace, as the main CLI's subcommands do.
"""
from __future__ import annotations

import argparse
import dataclasses
import enum
import json
import sys

from ..cards import cards_text
from ..carousel.presets import PRESET_NOTES, PRESETS, preset
from ..carousel.rules import CarouselRules
from ..carousel.solver import GaveUp, best_play
from ..carousel.table import table_text
from ._common import EXIT_FAILED, PROG, _positive
from .carousel_analyse import add_analyse_parser
from .carousel_options import add_rule_options, flag_words, int_option, rule_flag, rules_from_args
from .carousel_play import add_play_parser
from .carousel_simulate import add_simulate_parser

__all__ = ["add_parser", "run"]


def _add_best(sub: argparse._SubParsersAction) -> None:
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
    best.add_argument("--time-limit", type=_seconds, default=None,
                      metavar="SECONDS", help="give up past this many seconds (default: none)")
    best.add_argument("--memory-limit", type=_positive, default=None,
                      metavar="MB", help="give up rather than hold more than this many MB "
                                         "(default: none)")
    add_rule_options(best)
    best.set_defaults(_carousel_run=_run_best)


def _seconds(text: str) -> float:
    """argparse type: a number of seconds, more than 0 and finite."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < v < float("inf"):
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return v


def _add_rules(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rules", help="the Carousel rule presets (--rules NAME) with their sources",
                       description="List the presets --rules NAME takes, each with what it is "
                                   "and the rule text it follows; with NAME, every flag in "
                                   "which it differs from the source's rules.")
    p.add_argument("name", nargs="?", metavar="NAME", help="a preset to show flag by flag")
    p.add_argument("--players", type=int_option("--players"), default=4, metavar="N",
                   help="the table size the deck is for (default 4)")
    p.set_defaults(_carousel_run=_run_rules)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``carousel`` (``best``, ``simulate``, ``play``, ``analyse``, ``rules``) on an argparse
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
    add_simulate_parser(sub)
    add_play_parser(sub)
    add_analyse_parser(sub)
    _add_rules(sub)
    car.set_defaults(handler=_dispatch)
    return car


def _dispatch(args: argparse.Namespace) -> int:
    try:
        return int(args._carousel_run(args))
    except (ValueError, TypeError) as e:
        msg = flag_words(str(e))
        if msg == str(e):
            raise
        raise (TypeError if isinstance(e, TypeError) else ValueError)(msg) from None


def _nonblank(value: str | None, flag: str, example: str, optional: bool = False) -> str | None:
    if value is None:
        return None
    if not value.strip():
        hint = f"leave {flag} out for an empty table, or give" if optional else "give"
        raise ValueError(f"{flag} is empty: {hint} cards like \"{example}\"")
    return value


def _run_best(args: argparse.Namespace) -> int:
    table = _nonblank(args.table, "--table", "6S 7S 8S | 9H 9D 9C", optional=True)
    hand = _nonblank(args.hand, "--hand", "5S 9S JK 2C")
    rules = rules_from_args(args, 4 if args.players is None else args.players)
    assert rules is not None  # required: never None
    memory = None if args.memory_limit is None else args.memory_limit << 20
    try:
        play = best_play(table, hand, rules, time_limit=args.time_limit, memory_limit=memory)
    except ValueError as e:
        msg = str(e)
        if msg.startswith(("hand '", "table '")):  # the library names its inputs
            raise ValueError("--" + msg) from None
        raise
    except GaveUp as e:
        msg = str(e)
        if "time_limit=" in msg:
            msg = f"gave up: the search took more than --time-limit {args.time_limit:g} s"
        elif "memory_limit=" in msg:
            msg = f"gave up: the search needed more than --memory-limit {args.memory_limit} MB"
        print(f"{PROG}: {msg}", file=sys.stderr)
        return EXIT_FAILED
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


def _shown(v: object) -> str:  # a rule field's value
    if v is None:
        return "any"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v.value if isinstance(v, enum.Enum) else v)


def _run_rules(args: argparse.Namespace) -> int:
    if args.name is None:
        for name in PRESETS:
            note = PRESET_NOTES[name]
            print(f"{name}\n  {note.description}\n  source: {note.source}")
        return 0
    rules = preset(args.name, args.players)
    note = PRESET_NOTES[args.name]
    print(f"{args.name}: {note.description}\nsource: {note.source}")
    base = CarouselRules.for_players(args.players)
    diff = [(rule_flag(f.name), _shown(getattr(base, f.name)), _shown(getattr(rules, f.name)))
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


def run(args: argparse.Namespace) -> int:
    """Execute a parsed ``carousel`` namespace; errors become one stderr line and 2."""
    try:
        return _dispatch(args)
    except (ValueError, TypeError) as e:
        print("error: " + " ".join(str(e).split()), file=sys.stderr)
        return 2
