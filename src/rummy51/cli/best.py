"""``rummy51 best``: the best opening of a hand, going out at once, least deadwood.
"""
from __future__ import annotations

import argparse
import dataclasses

from ..cards import card_text, cards_text, parse_card
from ..rules import RuleSet
from ..solver import Opening, best_opening, can_go_out, min_deadwood
from ._common import EXIT_OK, _count, _print_json, add_format_options, add_hand_arguments, add_rule_options, read_hands, rules_from_args


# --------------------------------------------------------------------------- best
def add_parser(subparsers) -> None:
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
