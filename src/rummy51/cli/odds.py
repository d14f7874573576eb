"""``rummy51 odds``: P(can open) and P(can go out) of a hand in play within 1..K draws.
"""
from __future__ import annotations

import argparse

from ..cards import cards_text, parse_cards
from ._common import (
    EXIT_OK,
    _count,
    _fmt_table,
    _option_names,
    _parse_hand,
    _pct,
    _positive,
    _print_json,
    _rules_text,
    add_rule_options,
    rules_from_args,
)


# --------------------------------------------------------------------------- odds
def add_parser(subparsers: argparse._SubParsersAction) -> None:
    from ..studies.openings import DEFAULTS

    p = subparsers.add_parser(
        "odds",
        help="P(can open) and P(can go out at once) of a hand within 1..K draws",
        description="For this hand, and the cards known to be out of the stock (--seen: "
                    "table melds, discards), estimate by Monte Carlo over the unseen cards "
                    "the chance that it can open, and that it can go out at once, within "
                    "0..K draws, discarding by the keep-best policy after each draw. "
                    "Probabilities come with 95% Wilson intervals.",
        epilog='example: rummy51 odds "6S 7S 8S 10D 10C 2H 3D 5C 9H KS QD 4C 8H AH" '
               '--seen "10H JK" --draws 5',
    )
    p.add_argument("hand", metavar="HAND", help='the hand as text, like "7S 8S 9S JK 10D"')
    p.add_argument("--seen", metavar="CARDS", default="",
                   help="cards known to be out of the stock (melds on the table, discards)")
    p.add_argument("--draws", type=_count, default=None, metavar="K",
                   help=f"draws to follow (default {DEFAULTS['odds_draws']})")
    p.add_argument("--samples", type=_positive, default=None, metavar="N",
                   help=f"Monte Carlo samples (default {DEFAULTS['odds_samples']:,})")
    p.add_argument("--seed", type=_count, default=None, metavar="S",
                   help="seed (default: fresh entropy, printed)")
    p.add_argument("--workers", "--threads", dest="workers", type=_positive, default=None,
                   metavar="N", help="threads (default: all cores; --threads is its old name)")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="also write the result to a new directory (manifest.json, odds.csv, results.json)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    add_rule_options(p)
    p.set_defaults(handler=_cmd_odds)


def _cmd_odds(args: argparse.Namespace) -> int:
    from ..studies.odds import opening_odds

    rules = rules_from_args(args)
    hand = _parse_hand("HAND", args.hand)[1]
    try:
        seen = parse_cards(args.seen)
    except ValueError as e:
        raise ValueError(f"--seen {args.seen.strip()!r}: {e}") from None
    try:
        res = opening_odds(hand, seen, draws=args.draws, samples=args.samples, rules=rules,
                           seed=args.seed, workers=args.workers)
    except (ValueError, TypeError) as e:
        raise _option_names(e) from None
    if args.out:
        res.save(args.out)
    if args.json:
        _print_json(res.to_dict())
        return EXIT_OK
    tab = res.table()
    rows = [[str(r.draws), _pct(r.p_open, r.p_open_lo, r.p_open_hi),
             _pct(r.p_go_out, r.p_go_out_lo, r.p_go_out_hi)] for r in tab.itertuples()]
    lines = [
        f"hand: {cards_text(res.hand)} ({len(res.hand)} cards)",
        f"seen: {cards_text(res.seen) or '-'}; unseen: {res.unseen} cards",
        f"rules: {_rules_text(rules)}",
        f"{res.samples:,} samples of {res.draws} draws, keep-best discards; seed entropy "
        f"{res.entropy}; {res.elapsed:.2f} s",
        "",
        _fmt_table(["within k draws", "P(can open)", "P(go out at once)"], rows),
    ]
    if args.out:
        lines += ["", f"written to {args.out}"]
    print("\n".join(lines))
    return EXIT_OK
