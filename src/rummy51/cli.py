"""The ``rummy51`` command line.

Usage::

    rummy51 best "6S 7S 8S 10D 10C 10H 2C"
    rummy51 best --json --rules gin --keep 0 "AS 2S 3S 4S 4H 4D 9C 10C JC QC"
    rummy51 best - < hands.txt          # one hand per line
    rummy51 --version

Layout, so that more subcommands slot in (``simulate``, ``odds``, ``report``):

* ``build_parser()`` makes the top-level parser and one subparser per subcommand,
  each added by an ``_add_<name>(subparsers)`` function that calls
  ``set_defaults(handler=_cmd_<name>)``;
* ``_cmd_<name>(args) -> int`` does the work and returns the exit code;
* ``main(argv=None) -> int`` parses, dispatches, and turns bad input into one line
  on stderr (``rummy51: error: ...``) and exit code 2; Ctrl-C exits 130 quietly.

Shared helpers for subcommands: ``add_rule_options(parser)`` with
``rules_from_args(args)`` (rule options -> ``RuleSet``), ``add_hand_arguments(parser)``
with ``read_hands(args)`` (hands from the command line or stdin), and
``add_format_options(parser)`` (``--json``, ``--unicode``). Library code raises
``ValueError``/``TypeError`` with a message that names the input; a command only
has to let them propagate (or re-raise with more context) and ``main`` prints them.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from typing import Optional, Sequence

from . import __version__
from .cards import card_text, cards_text, parse_card, parse_cards
from .rules import PRESETS, RuleSet
from .solver import Opening, best_opening, can_go_out, min_deadwood

__all__ = [
    "main",
    "build_parser",
    "add_rule_options",
    "rules_from_args",
    "add_hand_arguments",
    "read_hands",
    "add_format_options",
    "RULE_OPTIONS",
    "EXIT_OK",
    "EXIT_USAGE",
    "EXIT_INTERRUPTED",
]

PROG = "rummy51"
EXIT_OK = 0
EXIT_USAGE = 2          # bad input of any kind, as argparse does
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells do


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line: ``rummy51: error: ...``."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{PROG}: error: {message} (see '{self.prog} --help')\n")


# --------------------------------------------------------------------------- argument types
def _int(text: str) -> int:
    """argparse type: a whole number, with a message that says so."""
    try:
        return int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _count(text: str) -> int:
    """argparse type: a whole number >= 0."""
    n = _int(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative: give a whole number >= 0")
    return n


# --------------------------------------------------------------------------- rule options
#: The rule options ``add_rule_options`` adds, each as (RuleSet field, help). The
#: option is ``--`` plus the field with ``-`` for ``_``; its dest is the field name.
RULE_OPTIONS: tuple[tuple[str, str], ...] = (
    ("decks", "52-card decks in the game: 1 or 2"),
    ("jokers", "jokers in the deck"),
    ("threshold", "least total meld value that opens"),
    ("ace_low_value", "value of an ace at the low end of a run (A-2-3); some tables use 1"),
    ("ace_value", "value of an ace anywhere else (high in a run, in a set, in hand)"),
    ("max_jokers_per_meld", "jokers one meld may hold: 0..2"),
    ("joker_penalty", "points for a joker left in hand (deadwood)"),
)


def add_rule_options(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """Add the rule options to ``parser`` (as an argument group) and return the group.

    ``--rules NAME`` picks a preset from ``rummy51.PRESETS``; then ``--decks``,
    ``--jokers``, ``--threshold``, ``--ace-low-value``, ``--ace-value``,
    ``--ace-high/--no-ace-high``, ``--max-jokers-per-meld`` and ``--joker-penalty``
    override single fields. Every option defaults to ``None`` (= keep the preset's
    value); ``rules_from_args`` builds the ``RuleSet``. A subcommand that needs more
    fields (say ``--hand-size``) adds an option whose dest is the field name and
    ``rules_from_args`` picks it up.
    """
    group = parser.add_argument_group(
        "rules", "A preset, then single overrides (only the options given change the preset)."
    )
    group.add_argument(
        "--rules", metavar="NAME", default=None,
        help=f"rule preset: {', '.join(PRESETS)} (default: default)",
    )
    for field, help_text in RULE_OPTIONS:
        group.add_argument(
            "--" + field.replace("_", "-"), dest=field, type=_int, metavar="N", default=None,
            help=help_text,
        )
    group.add_argument(
        "--ace-high", dest="ace_high", action=argparse.BooleanOptionalAction, default=None,
        help="whether the ace may follow the king (Q-K-A)",
    )
    return group


_RULE_FIELDS = tuple(f.name for f in dataclasses.fields(RuleSet))


def rules_from_args(args: argparse.Namespace) -> RuleSet:
    """The ``RuleSet`` the options of ``add_rule_options`` describe.

    Starts from the preset ``args.rules`` (``"default"`` when absent or None) and
    replaces every ``RuleSet`` field whose same-named attribute of ``args`` is not
    None. Raises ``ValueError`` naming the option when a preset is unknown or a value
    is out of range (``--decks must be 1..2, got 3``).
    """
    name = getattr(args, "rules", None) or "default"
    base = RuleSet.preset(name)
    changes = {f: getattr(args, f) for f in _RULE_FIELDS if getattr(args, f, None) is not None}
    if not changes:
        return base
    try:
        return base.replace(**changes)
    except (ValueError, TypeError) as e:
        msg = str(e)
        for f in changes:
            msg = msg.replace(f"rules.{f}", "--" + f.replace("_", "-"))
        raise type(e)(msg) from None


# --------------------------------------------------------------------------- hands and output
def add_hand_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the positional ``HAND ...`` arguments (``-`` reads hands from stdin)."""
    parser.add_argument(
        "hands", nargs="+", metavar="HAND",
        help='a hand as text in one argument, like "7S 8S 9S JK 10D"; '
             "'-' reads hands from stdin, one per line (blank lines and # comments skipped)",
    )


def read_hands(args: argparse.Namespace, stdin=None) -> list[tuple[str, list[int]]]:
    """The hands of ``args.hands`` as (label, card codes), in order.

    The label names where the hand came from (``hand 2``, ``stdin line 5``) for error
    messages. ``-`` is replaced by the hands read from ``stdin`` (default
    ``sys.stdin``), one per line. Each hand is parsed here, so a bad card is
    reported with the hand it is in (``hand 2 '7S 11H': '11H' is not a card: ...``).
    Card counts are checked against the rules by the solver.
    """
    out: list[tuple[str, list[int]]] = []
    for i, text in enumerate(args.hands, 1):
        if text == "-":
            stream = sys.stdin if stdin is None else stdin
            got = 0
            for lineno, line in enumerate(stream, 1):
                line = line.split("#", 1)[0].strip()
                if line:
                    out.append(_parse_hand(f"stdin line {lineno}", line))
                    got += 1
            if not got:
                raise ValueError("no hands on stdin: give one hand per line")
        else:
            out.append(_parse_hand(f"hand {i}", text))
    return out


def _parse_hand(label: str, text: str) -> tuple[str, list[int]]:
    try:
        codes = parse_cards(text)
    except ValueError as e:
        raise ValueError(f"{label} {text.strip()!r}: {e}") from None
    if not codes:
        raise ValueError(f"{label} is empty: give cards like \"7S 8S 9S\"")
    return label, codes


def add_format_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--json`` (one JSON object per line) and ``--unicode`` (♠♥♦♣ suits)."""
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object per hand (one per line)")
    parser.add_argument("--unicode", action="store_true", help="write suits as ♠ ♥ ♦ ♣")


def _print_json(obj) -> None:
    print(json.dumps(obj, ensure_ascii=False))


# --------------------------------------------------------------------------- best
def _add_best(subparsers) -> None:
    p = subparsers.add_parser(
        "best",
        help="best opening of a hand, whether it goes out at once, its least deadwood",
        description="For each hand: the melds of its best opening (jokers with their "
                    "stand-ins), the total and whether it opens, the cards left over; "
                    "whether the hand can go out at once (all but one card in melds "
                    "reaching the threshold) and its least deadwood (all cards may be "
                    "melded).",
        epilog='example: rummy51 best "6S 7S 8S 10D 10C 10H 2C"',
    )
    add_hand_arguments(p)
    p.add_argument("--keep", type=_count, default=1, metavar="N",
                   help="cards the opening must leave in hand (default 1: the discard)")
    p.add_argument("--must-use", metavar="CARD", default=None,
                   help="a card that must lie in a meld of the opening (e.g. the discard taken)")
    add_format_options(p)
    add_rule_options(p)
    p.set_defaults(handler=_cmd_best)


def _cmd_best(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    must = None
    if args.must_use is not None:
        try:
            must = parse_card(args.must_use)
        except ValueError as e:
            raise ValueError(f"--must-use: {e}") from None
    hands = read_hands(args)
    # solve everything first: a bad hand anywhere prints nothing but the error
    results = []
    for label, codes in hands:
        if must is not None and must not in codes:
            raise ValueError(f"{label}: the --must-use card {card_text(must)} is not in the hand")
        try:
            opening = best_opening(codes, rules, keep=args.keep, must_use=args.must_use)
            results.append((codes, opening, can_go_out(codes, rules), min_deadwood(codes, rules)))
        except ValueError as e:
            raise ValueError(f"{label}: {e}") from None
    for n, (codes, opening, goes_out, deadwood) in enumerate(results):
        if args.json:
            _print_json(_best_json(codes, opening, goes_out, deadwood, rules, args))
        else:
            if n:
                print()
            print(_best_text(codes, opening, goes_out, deadwood, rules, args))
    return EXIT_OK


def _best_json(codes: list[int], opening: Opening, goes_out: bool, deadwood: int,
               rules: RuleSet, args: argparse.Namespace) -> dict:
    u = args.unicode
    return {
        "hand": cards_text(codes, u),
        "value": opening.value,
        "can_open": opening.can_open,
        "threshold": rules.threshold,
        "melds": [
            {"kind": m.kind, "cards": cards_text(m.cards, u),
             "represents": cards_text(m.represents, u), "value": m.value}
            for m in opening.melds
        ],
        "leftover": cards_text(opening.leftover, u),
        "can_go_out": goes_out,
        "min_deadwood": deadwood,
        "keep": args.keep,
        "must_use": None if args.must_use is None else card_text(parse_card(args.must_use), u),
        "rules": dataclasses.asdict(rules),
    }


def _best_text(codes: list[int], opening: Opening, goes_out: bool, deadwood: int,
               rules: RuleSet, args: argparse.Namespace) -> str:
    u = args.unicode
    head = f"hand: {cards_text(codes, u)}"
    if args.must_use is not None:
        head += f"  (must use {card_text(parse_card(args.must_use), u)})"
    lines = [head]
    texts = [m.text(u) for m in opening.melds]
    width = max((len(t) for t in texts), default=0)
    for t, m in zip(texts, opening.melds):
        lines.append(f"  {t.ljust(width)}  {m.kind}  {m.value:>3}")
    if not opening.melds:
        lines.append("  no melds")
    verdict = "opens" if opening.can_open else "does not open"
    lines.append(f"  total {opening.value}: {verdict} (threshold {rules.threshold})")
    lines.append(f"  left over: {cards_text(opening.leftover, u) or '-'}")
    lines.append(f"  can go out at once: {'yes' if goes_out else 'no'}")
    lines.append(f"  min deadwood: {deadwood}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- parser and main
def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per subcommand.

    To add a subcommand ``foo``: write ``_add_foo(subparsers)`` (which calls
    ``subparsers.add_parser("foo", ...)``, the shared ``add_*`` helpers as needed,
    and ``set_defaults(handler=_cmd_foo)``) and ``_cmd_foo(args) -> int``, then call
    ``_add_foo(subparsers)`` below.
    """
    parser = _Parser(
        prog=PROG,
        description="Rummy 51: exact best openings, going out at once, deadwood.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_best(subparsers)
    return parser


def _exit_code(code) -> int:
    if code is None:
        return EXIT_OK
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # SystemExit("message"): print it like Python does
    return 1


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code.

    Bad input (usage errors, and ``ValueError``/``TypeError`` from the library) gives
    one line ``rummy51: error: <reason>`` on stderr and exit code 2, never a
    traceback; Ctrl-C gives exit code 130 and no output.
    """
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as e:  # --help, --version, usage errors
            return _exit_code(e.code)
        return int(args.handler(args))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except (ValueError, TypeError) as e:
        msg = " ".join(str(e).split()) or type(e).__name__
        print(f"{PROG}: error: {msg}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # the reader went away (``rummy51 best - < big.txt | head``): stop quietly,
        # and point stdout at devnull so the interpreter's final flush does not complain
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1


if __name__ == "__main__":
    sys.exit(main())
