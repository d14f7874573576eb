"""``rummy51 best``: the best opening of a hand, going out at once, least deadwood.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence

from ..cards import card_text, cards_text, parse_card, parse_cards
from ..rules import RuleSet, rules_label
from ..solver import Opening, best_opening, can_go_out, min_deadwood
from ._common import (
    EXIT_OK,
    EXIT_USAGE,
    PROG,
    _count,
    _print_json,
    _rules_text,
    add_format_options,
    add_hand_arguments,
    add_rule_options,
    in_option_words,
    read_hands,
    rules_from_args,
)


# --------------------------------------------------------------------------- best
def add_parser(subparsers: argparse._SubParsersAction) -> None:
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
    _check_keep(args.keep)
    if _one_card_each(args.hands):
        # ``rummy51 best 6S 7S 8S 2C``: the shell split one hand into cards
        args.hands = [" ".join(args.hands)]
        print(f"{PROG}: note: read the {len(args.hands[0].split())} arguments as one hand "
              '(quote each hand to give several: "6S 7S 8S" "9H 9D 9C")', file=sys.stderr)
    # every good hand is answered; each bad one is one line on stderr, and exit code 2
    bad = 0
    shown = 0
    for label, item in read_hands(args, each=True):
        if isinstance(item, Exception):
            bad += 1
            sys.stdout.flush()
            print(f"{PROG}: error: {item}", file=sys.stderr)
            continue
        try:
            codes = item
            if must is not None and must not in codes:
                raise ValueError(f"the --must-use card {card_text(must)} is not in the hand")
            opening = best_opening(codes, rules, keep=args.keep, must_use=args.must_use)
            result = (codes, opening, can_go_out(codes, rules), min_deadwood(codes, rules))
        except ValueError as e:
            bad += 1
            sys.stdout.flush()
            print(f"{PROG}: error: {label}: {in_option_words(str(e))}", file=sys.stderr)
            continue
        if args.json:
            _print_json(_best_json(*result, rules, args))
        else:
            if not shown:   # once, above the first answer
                print(f"rules: {rules_label(rules)} ({_rules_text(rules)})")
            print()
            print(_best_text(*result, rules, args))
        shown += 1
    return EXIT_USAGE if bad else EXIT_OK


def _check_keep(keep: int) -> None:
    if keep > 120:
        raise ValueError(f"--keep must be 0..120 (the most cards a hand can hold), got {keep}")


def _one_card_each(hands: Sequence[str]) -> bool:
    if len(hands) < 2 or "-" in hands:
        return False
    try:
        return all(len(parse_cards(h)) == 1 for h in hands)
    except ValueError:
        return False


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
    for t, m in zip(texts, opening.melds, strict=True):
        lines.append(f"  {t.ljust(width)}  {m.kind}  {m.value:>3}")
    if not opening.melds:
        lines.append("  no melds")
    verdict = "opens" if opening.can_open else "does not open"
    kept = (f"; {args.keep} card{'s' if args.keep != 1 else ''} kept"
            + (" for the discard" if args.keep == 1 else "")) if args.keep else ""
    lines.append(f"  total {opening.value}: {verdict} (threshold {rules.threshold}{kept})")
    lines.append(f"  left over: {cards_text(opening.leftover, u) or '-'}")
    lines.append(f"  can go out at once: {'yes' if goes_out else 'no'}")
    lines.append(f"  min deadwood: {deadwood}")
    return "\n".join(lines)
