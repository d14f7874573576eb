"""``carousel best``: the best play of a Carousel position from the command line.

    python -m rummy51.carousel.cli best --table "6S 7S 8S | 9H 9D 9C" --hand "5S 9S JK 2C"

prints the new table, the cards played, the points left and whether the player can
knock (``--json`` for one JSON object). Rules: ``--players N`` picks the deck of
RULES-carousel.md (2 players: one deck and a joker), or ``--decks D --jokers J``;
``--max-jokers-per-meld 1`` is the one-joker option, ``--no-ace-high`` the low-only
ace. Bad input prints one line on stderr and exits with status 2.

``add_parser(subparsers)`` registers the same command as ``carousel best`` under
another argparse program (the package's main CLI: ``rummy51 carousel best ...``);
it sets ``handler`` on the namespace, as the main CLI's subcommands do.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Optional

from ..cards import cards_text
from .rules import CarouselRules
from .solver import best_play
from .table import table_text

__all__ = ["main", "add_parser", "build_parser"]


class _ArgError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, no usage dump
        raise _ArgError(message)


def _add_best(sub) -> None:
    best = sub.add_parser("best", help="the best play of a table and a hand")
    best.add_argument("--table", default="", help='melds separated by "|", e.g. "6S 7S JK(8S) | 9H 9D 9C"')
    best.add_argument("--hand", required=True, help='the hand, e.g. "5S 9S JK 2C"')
    best.add_argument("--json", action="store_true", help="print one JSON object")
    best.add_argument("--players", type=int, default=None, help="players (2..6): picks the deck")
    best.add_argument("--decks", type=int, default=None, help="52-card decks (1 or 2)")
    best.add_argument("--jokers", type=int, default=None, help="jokers in the deck")
    best.add_argument("--max-jokers-per-meld", type=int, default=None,
                      help="at most this many jokers in a meld (default: any number)")
    best.add_argument("--no-ace-high", action="store_true", help="the ace is low only (no Q-K-A)")
    best.add_argument("--knock-limit", type=int, default=None, help="knock with this many points or fewer")
    best.set_defaults(_carousel_run=_run_best)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m rummy51.carousel.cli",
                     description="Carousel (manipulation rummy) solver")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _add_best(sub)
    return parser


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``carousel`` (with its ``best`` command) on an argparse subparsers object.

    The parsed namespace gets ``handler``, the convention of the package's main CLI:
    ``args.handler(args)`` runs the command and returns the exit status, letting bad
    input raise ValueError/TypeError for the caller to print. ``run(args)`` does the
    same but prints the error itself (one stderr line) and returns 2."""
    car = subparsers.add_parser("carousel", help="Carousel: the table-manipulation solver",
                                description="Carousel (manipulation rummy) solver")
    sub = car.add_subparsers(dest="carousel_command", metavar="COMMAND", required=True)
    _add_best(sub)
    from .cli_simulate import add_simulate_parser

    add_simulate_parser(sub)
    car.set_defaults(handler=_dispatch)
    return car


def _dispatch(args) -> int:
    return int(args._carousel_run(args))


def _rules(args) -> CarouselRules:
    kw = {}
    if args.max_jokers_per_meld is not None:
        kw["max_jokers_per_meld"] = args.max_jokers_per_meld
    if args.no_ace_high:
        kw["ace_high"] = False
    if args.knock_limit is not None:
        kw["knock_limit"] = args.knock_limit
    if args.decks is not None:
        kw["decks"] = args.decks
    if args.jokers is not None:
        kw["jokers"] = args.jokers
    if args.players is not None:
        return CarouselRules.for_players(args.players, **kw)
    if args.decks is not None and args.decks == 1 and "jokers" not in kw:
        kw["jokers"] = 1
    if args.decks is not None and args.decks == 1:
        kw.setdefault("players", 2)
    return CarouselRules(**kw)


def _run_best(args) -> int:
    rules = _rules(args)
    play = best_play(args.table, args.hand, rules)
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


def run(args) -> int:
    """Execute a parsed ``carousel`` namespace; errors become one stderr line and 2."""
    try:
        return args._carousel_run(args)
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
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
