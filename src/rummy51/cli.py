"""The ``rummy51`` command line.

Usage::

    rummy51 best "6S 7S 8S 10D 10C 10H 2C"
    rummy51 best --json --rules gin --keep 0 "AS 2S 3S 4S 4H 4D 9C 10C JC QC"
    rummy51 best - < hands.txt          # one hand per line
    rummy51 simulate openings           # P(can open): 1 M deals on every core
    rummy51 simulate openings --deals 10000000 --seed 2026 --out runs/openings-10M
    rummy51 simulate openings --jokers 2,4 --players 2,4,6      # a sweep
    rummy51 simulate openings --resume runs/openings-10M
    rummy51 odds "6S 7S 8S 10D 10C 2H 3D 5C 9H KS QD 4C 8H AH" --seen "10H JK" --draws 5
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


# --------------------------------------------------------------------------- list options
def _positive(text: str) -> int:
    """argparse type: a whole number >= 1."""
    n = _int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number >= 1")
    return n


def _int_list(text: str) -> tuple[int, ...]:
    """argparse type: one whole number or a comma list (``2,3,4``) for a sweep."""
    items = [t.strip() for t in text.split(",")]
    if not all(items):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma list of whole numbers")
    out = []
    for t in items:
        try:
            out.append(int(t, 10))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{t!r} in {text!r} is not a whole number") from None
    return tuple(out)


def _name_list(text: str) -> tuple[str, ...]:
    """argparse type: a name or a comma list of names."""
    items = tuple(t.strip() for t in text.split(","))
    if not all(items):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma list of names")
    return items


def _sweep_from_args(args: argparse.Namespace):
    """The labelled rule sets of ``--rules``/``--jokers``/``--threshold`` (comma lists,
    every combination) and the single rule options; None when no rule option is given."""
    from .montecarlo import rule_sweep

    presets = getattr(args, "rules", None)
    fields = {f: getattr(args, f) for f in _RULE_FIELDS if getattr(args, f, None) is not None}
    if not presets and not fields:
        return None
    try:
        return rule_sweep(list(presets) if presets else None, **fields)
    except (ValueError, TypeError) as e:
        msg = str(e)
        for f in fields:
            msg = msg.replace(f"rules.{f}", "--" + f.replace("_", "-"))
        raise type(e)(msg) from None


# --------------------------------------------------------------------------- text tables
def _fmt_table(headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """A plain text table: the first ``left`` columns left-aligned, the others right."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    lines = []
    for r in [headers, *rows]:
        cells = [str(c).ljust(w) if i < left else str(c).rjust(w)
                 for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _decimals(lo: float, hi: float) -> int:
    import math

    width = (hi - lo) * 100  # in percentage points: show two digits of it
    if not width > 0:
        return 2
    return max(1, min(4, 1 - math.floor(math.log10(width))))


def _dec2(x: float) -> int:
    """Decimals that show two significant digits of ``x`` (> 0)."""
    import math

    return max(0, 1 - math.floor(math.log10(x))) if x > 0 else 0


def _sig2(x: float) -> str:
    return f"{x:.{_dec2(x)}f}"


def _pct(p: float, lo: float, hi: float, sign: str = "%") -> str:
    """``'36.41% [36.32, 36.51]'``: a probability in percent with its interval."""
    if p is None or p != p:
        return "-"
    if p == 0:      # no hit: the interval's upper end says how rare it can still be
        return f"0{sign} [0, {_sig2(100 * hi)}]"
    if p == 1:
        return f"100{sign} [{100 - float(_sig2(100 - 100 * lo)):.{_dec2(100 - 100 * lo)}f}, 100]"
    d = _decimals(lo, hi)
    return f"{100 * p:.{d}f}{sign} [{100 * lo:.{d}f}, {100 * hi:.{d}f}]"


def _mean(m: float, se: float) -> str:
    if m != m:
        return "-"
    if se != se:
        return f"{m:.2f}"
    return f"{m:.2f} ± {1.959963984540054 * se:.2f}"


def _rules_text(rules: RuleSet) -> str:
    return (f"{rules.decks} deck{'s' if rules.decks > 1 else ''}, {rules.jokers} jokers, "
            f"threshold {rules.threshold}, {rules.hand_size}-card hands")


def _openings_text(study) -> str:
    from .montecarlo import _kind_text

    out = []
    C = len(study.labels)
    r0 = study.rules[0]
    what = (f"{study.deals:,} deals" if study.hands else "no deal study") + \
        (f" per configuration ({C} configurations)" if C > 1 else "")
    out.append(f"rummy51 simulate openings: {what}")
    if C == 1:
        out.append(f"rules: {study.labels[0]} ({_rules_text(r0)})")
    else:
        for label, rules in study.configs:
            out.append(f"  {label}: {_rules_text(rules)}")
    out.append(f"seed entropy {study.entropy} (repeat with --seed {study.entropy}); "
               f"{study.chunks} chunks, {study.workers} {'workers' if study.backend == 'dask' else 'threads'}"
               f" ({study.backend}), {study.elapsed:.1f} s")
    out.append("probabilities in %, [95% Wilson interval]; mean best value ± 1.96 standard errors")
    if study.hands:
        s = study.summary(by_jokers=True)
        alls = s[s.jokers == "all"]
        if C == 1:
            rows = [[_kind_text(r.hand, r0), f"{r.hands:,}",
                     _pct(r.p_open, r.p_open_lo, r.p_open_hi),
                     _pct(r.p_go_out, r.p_go_out_lo, r.p_go_out_hi),
                     _mean(r.mean_best, r.mean_best_se)] for r in alls.itertuples()]
            out += ["", f"Opening from the deal (opens at {r0.threshold}, one card kept for the discard)",
                    _fmt_table(["hand", "hands", "P(can open)", "P(go out at once)",
                                "mean best value"], rows)]
            rows = []
            for r in s[s.jokers != "all"].itertuples():
                rows.append([r.hand, r.jokers, f"{100 * r.share:.1f}%" if r.share == r.share else "-",
                             _pct(r.p_open, r.p_open_lo, r.p_open_hi),
                             _pct(r.p_go_out, r.p_go_out_lo, r.p_go_out_hi),
                             _mean(r.mean_best, r.mean_best_se)])
            out += ["", "By jokers in the hand",
                    _fmt_table(["hand", "jokers", "share", "P(can open)", "P(go out at once)",
                                "mean best value"], rows, left=2)]
            xs = sorted({30, 40, 45, 60, 70, 80, 90, 100} | {r0.threshold})
            xs = [x for x in xs if x < 256]
            rows = []
            for x in xs:
                row = [f"{x}{' (threshold)' if x == r0.threshold else ''}"]
                for hand in study.hands:
                    row.append(_pct(*study.p_at_least(x, hand)))
                rows.append(row)
            out += ["", "P(best opening value >= x), every x in value_distribution",
                    _fmt_table(["x"] + [_kind_text(h, r0) for h in study.hands], rows)]
        else:
            headers = ["config", "deals"]
            for h in study.hands:
                headers.append(f"P(can open) {h}")
            headers += [f"P(go out) {h}" for h in study.hands if h != "raw"]
            headers.append(f"mean best {study.hands[0]}")
            rows = []
            for c, label in enumerate(study.labels):
                sc = alls[alls.config == label].set_index("hand")
                row = [label, f"{int(study.deals_done[c]):,}"]
                for h in study.hands:
                    r = sc.loc[h]
                    row.append(_pct(r.p_open, r.p_open_lo, r.p_open_hi))
                for h in study.hands:
                    if h != "raw":
                        r = sc.loc[h]
                        row.append(_pct(r.p_go_out, r.p_go_out_lo, r.p_go_out_hi))
                r = sc.loc[study.hands[0]]
                row.append(_mean(r.mean_best, r.mean_best_se))
                rows.append(row)
            out += ["", "Opening from the deal, one row per configuration "
                        "(first: the first player's hand; other: 14 + 1 drawn; raw: 14 cards)",
                    _fmt_table(headers, rows)]
    if study.players:
        bt = study.by_turn()
        pairs = [(label, p) for label in study.labels for p in study.players]
        if C == 1:
            for label, p in pairs:
                sub = bt[(bt.config == label) & (bt.players == p)]
                rows = []
                for t in range(1, study.turns + 1):
                    row = [str(t)]
                    for seat in range(1, p + 1):
                        r = sub[(sub.seat == seat) & (sub.turn == t)].iloc[0]
                        row.append(_pct(r.p_opened, r.p_opened_lo, r.p_opened_hi, sign=""))
                    rows.append(row)
                out += ["", f"P(opened by turn t) in %: {p} players, {study.turn_deals:,} deals "
                            f"(keep-best discards; seat 1 holds {r0.hand_size + 1} cards and does "
                            "not draw on turn 1)",
                        _fmt_table(["turn"] + [f"seat {s}" for s in range(1, p + 1)], rows)]
        else:
            T = study.turns
            maxp = max(study.players)
            rows = []
            for label, p in pairs:
                sub = bt[(bt.config == label) & (bt.players == p) & (bt.turn == T)]
                row = [label, str(p)]
                for seat in range(1, maxp + 1):
                    r = sub[sub.seat == seat]
                    row.append(_pct(r.p_opened.iloc[0], r.p_opened_lo.iloc[0],
                                    r.p_opened_hi.iloc[0], sign="") if len(r) else "")
                rows.append(row)
            out += ["", f"P(opened by turn {T}) in %, {study.turn_deals:,} deals per row "
                        "(keep-best discards; every turn in by_turn.csv / --json)",
                    _fmt_table(["config", "players"] + [f"seat {s}" for s in range(1, maxp + 1)],
                               rows, left=2)]
    if study.directory:
        out += ["", f"run directory: {study.directory} (manifest.json, summary.csv, "
                    "value_distribution.csv, by_turn.csv, results.json)"]
    return "\n".join(out)


class _CliWarnings:
    """Show library warnings (a damaged chunk re-run) as ``rummy51: warning: ...`` lines."""

    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("always")
        warnings.showwarning = self._show
        return self

    @staticmethod
    def _show(message, category, filename, lineno, file=None, line=None):
        print(f"{PROG}: warning: {message}", file=sys.stderr)

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


# --------------------------------------------------------------------------- simulate
def _add_simulate(subparsers) -> None:
    p = subparsers.add_parser(
        "simulate",
        help="Monte Carlo studies (openings, games)",
        description="Monte Carlo studies, seeded and reproducible on any number of "
                    "threads or machines.",
    )
    sub = p.add_subparsers(dest="study", metavar="STUDY", required=True)
    _add_simulate_openings(sub)
    _add_simulate_games(sub)


def _add_simulate_openings(subparsers) -> None:
    from .montecarlo import DEFAULTS

    d = DEFAULTS
    p = subparsers.add_parser(
        "openings",
        conflict_handler="resolve",
        help="how likely a hand is to open: from the deal, by jokers, by turn",
        description="Deal millions of hands in the core and estimate P(can open) and "
                    "P(can go out at once) for the first player's 15 cards, another "
                    "player's 14 + 1 drawn and the raw 14 cards; the distribution of the "
                    "best opening value; all split by jokers in the hand; and P(opened by "
                    "turn t) per seat at a full table, discarding by the keep-best policy "
                    "(drop the card whose removal keeps the best opening value highest; "
                    "ties drop the card worth more). Every probability comes with a 95% "
                    "Wilson interval. Comma lists in --rules, --jokers, --threshold and "
                    "--players sweep: one row per configuration.",
        epilog="examples: rummy51 simulate openings; "
               "rummy51 simulate openings --deals 10000000 --seed 2026 --out runs/openings-10M; "
               "rummy51 simulate openings --jokers 2,4 --players 2,4,6; "
               "rummy51 simulate openings --resume runs/openings-10M",
    )
    g = p.add_argument_group("study")
    g.add_argument("--deals", type=_count, default=None, metavar="N",
                   help=f"deals per configuration (default {d['deals']:,})")
    g.add_argument("--seed", type=_count, default=None, metavar="S",
                   help="seed (default: fresh entropy, printed so the run can be repeated)")
    g.add_argument("--hands", type=_name_list, default=None, metavar="LIST",
                   help="hands to evaluate per deal: first, other, raw (default all)")
    g.add_argument("--players", type=_int_list, default=None, metavar="LIST",
                   help=f"players at the table of the by-turn study, 1..6, a comma list sweeps "
                        f"(default {','.join(map(str, d['players']))}; 0 skips the by-turn study)")
    g.add_argument("--turns", type=_positive, default=None, metavar="T",
                   help=f"turns of the by-turn study (default {d['turns']})")
    g.add_argument("--turn-deals", type=_count, default=None, metavar="N",
                   help=f"deals of the by-turn study per configuration and player count "
                        f"(default {d['turn_deals']:,})")
    g.add_argument("--chunk-size", type=_positive, default=None, metavar="N",
                   help=f"deals per chunk (default {d['chunk_size']:,}); fixes the seeds")
    g.add_argument("--turn-chunk-size", type=_positive, default=None, metavar="N",
                   help=f"by-turn deals per chunk (default {d['turn_chunk_size']:,})")
    e = p.add_argument_group("execution")
    e.add_argument("--threads", type=_positive, default=None, metavar="N",
                   help="threads (or local Dask workers) (default: all cores)")
    _add_run_options(p, e, local="local threads", out_holds="final tables",
                     chunk_files="chunk files")
    group = add_rule_options(p)
    group.add_argument("--rules", type=_name_list, metavar="LIST", default=None,
                       help=f"rule presets, a comma list sweeps: {', '.join(PRESETS)} "
                            "(default: default)")
    group.add_argument("--jokers", type=_int_list, metavar="LIST", default=None,
                       help="jokers in the deck; a comma list sweeps")
    group.add_argument("--threshold", type=_int_list, metavar="LIST", default=None,
                       help="least total meld value that opens; a comma list sweeps")
    p.set_defaults(handler=_cmd_simulate_openings)


def _cmd_simulate_openings(args: argparse.Namespace) -> int:
    from .montecarlo import _RunDir, simulate_openings

    configs = _sweep_from_args(args)
    players = args.players
    turn_deals = args.turn_deals
    if players is not None and 0 in players:
        if len(players) > 1:
            raise ValueError("--players: 0 (no by-turn study) cannot be part of a list")
        players, turn_deals = (), 0 if turn_deals is None else turn_deals
    backend = args.backend or ("dask" if args.scheduler else "local")
    if args.scheduler and backend != "dask":
        raise ValueError("--scheduler needs --backend dask")
    command = " ".join([PROG] + [_quote(a) for a in (sys.argv[1:] if getattr(args, "_argv", None) is None else args._argv)])
    try:
        with _CliWarnings():
            study = simulate_openings(
                rules=configs, deals=args.deals, seed=args.seed, players=players,
                turns=args.turns, turn_deals=turn_deals, threads=args.threads,
                chunk_size=args.chunk_size, backend=backend, scheduler=args.scheduler,
                out=args.out, resume=args.resume,
                progress=False if args.no_progress else None, hands=args.hands,
                turn_chunk_size=args.turn_chunk_size, chunk_format=args.chunk_format,
                command=command)
    except (ValueError, TypeError) as e:
        raise _option_names(e) from None
    except KeyboardInterrupt:
        _say_saved_chunks(args, "openings", lambda where: _RunDir.read_manifest(where))
        raise
    if args.json:
        _print_json(study.to_dict())
    else:
        print(_openings_text(study))
    return EXIT_OK


_API_NAMES = ("deals", "players", "turns", "turn_deals", "chunk_size", "turn_chunk_size",
              "hands", "threads", "seed", "draws", "samples")


def _option_names(e: Exception) -> Exception:
    """``players must be 1..6`` -> ``--players must be 1..6``: the library names its
    parameters, the command line its options."""
    import re

    msg = re.sub(r"^(%s)\b" % "|".join(_API_NAMES),
                 lambda m: "--" + m.group(1).replace("_", "-"), str(e))
    return type(e)(msg)


def _quote(a: str) -> str:
    import shlex

    return shlex.quote(a)


# --------------------------------------------------------------------------- odds
def _add_odds(subparsers) -> None:
    from .montecarlo import DEFAULTS

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
    p.add_argument("--threads", type=_positive, default=None, metavar="N",
                   help="threads (default: all cores)")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="also write the result to a new directory (manifest.json, odds.csv, results.json)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    add_rule_options(p)
    p.set_defaults(handler=_cmd_odds)


def _cmd_odds(args: argparse.Namespace) -> int:
    from .montecarlo import opening_odds

    rules = rules_from_args(args)
    hand = _parse_hand("HAND", args.hand)[1]
    try:
        seen = parse_cards(args.seen)
    except ValueError as e:
        raise ValueError(f"--seen {args.seen.strip()!r}: {e}") from None
    try:
        res = opening_odds(hand, seen, draws=args.draws, samples=args.samples, rules=rules,
                           seed=args.seed, threads=args.threads)
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


def _say_saved_chunks(args: argparse.Namespace, study: str, read_manifest) -> None:
    """After Ctrl-C: how many chunks the run directory keeps, and how to continue."""
    where = args.resume or args.out
    if not where:
        return
    try:
        m = read_manifest(where)
        done, total = m["chunks"]["done_count"], m["chunks"]["total"]
        print(f"{PROG}: interrupted: {done} of {total} chunks are saved in {where}; "
              f"continue with: {PROG} simulate {study} --resume {where}", file=sys.stderr)
    except (ValueError, KeyError, TypeError):
        pass


def _add_run_options(p, e, *, local: str, out_holds: str, chunk_files: str) -> None:
    """The execution options every study shares: backend, scheduler, run directory,
    resume, chunk format, progress, JSON output."""
    e.add_argument("--backend", choices=("local", "dask"), default=None,
                   help=f"{local}, or a Dask cluster (default local; dask when "
                        "--scheduler is given)")
    e.add_argument("--scheduler", metavar="ADDR", default=None,
                   help="Dask scheduler address tcp://HOST:PORT (default with --backend dask: "
                        "start a local cluster)")
    e.add_argument("--out", metavar="DIR", default=None,
                   help=f"write a run directory (manifest, one file per chunk, {out_holds})")
    e.add_argument("--resume", metavar="DIR", default=None,
                   help="continue the run in DIR (its settings unless given; given ones must match)")
    e.add_argument("--chunk-format", choices=("parquet", "csv"), default=None,
                   help=f"{chunk_files} of --out (default parquet when pyarrow is installed)")
    e.add_argument("--no-progress", action="store_true",
                   help="no progress bar (shown on stderr only when it is a terminal)")
    p.add_argument("--json", action="store_true",
                   help="print the results as one JSON object instead of tables")


# --------------------------------------------------------------------------- simulate games
def _add_simulate_games(subparsers) -> None:
    from .bots import BOTS
    from .games import GAME_DEFAULTS

    d = GAME_DEFAULTS
    p = subparsers.add_parser(
        "games",
        help="bots play complete deals: win rates by bot and seat, scores, deal length",
        description="Play complete deals of the game engine between bots (one per seat) "
                    "and keep one record per player and deal (seat, bot, score, turn "
                    "opened, went out, hand win, deal length). Prints win rates by bot, by "
                    "seat and by position in the turn order with 95% Wilson intervals, "
                    "mean scores with their standard errors, and deal-level figures. The "
                    "first player rotates: deal d starts at seat d mod players. A win is "
                    "going out; a deal capped by --max-turns (or whose stock cannot be "
                    "refilled) is a draw. Seeded per chunk: the same records for any "
                    "number of workers.",
        epilog="examples: rummy51 simulate games --games 2000 --seed 1; "
               "rummy51 simulate games --players 4 --bots greedy,greedy,random,handhunter "
               "--games 100000 --seed 2026 --out runs/games-100k; "
               "rummy51 simulate games --resume runs/games-100k",
    )
    g = p.add_argument_group("study")
    g.add_argument("--players", type=_positive, default=None, metavar="N",
                   help=f"players at the table (default: one per bot, {d['players']})")
    g.add_argument("--bots", type=_name_list, default=None, metavar="LIST",
                   help=f"one bot per seat, comma list, or one bot for every seat: "
                        f"{', '.join(BOTS)} (default {','.join(d['bots'])})")
    g.add_argument("--games", type=_positive, default=None, metavar="N",
                   help=f"deals to play (default {d['games']:,})")
    g.add_argument("--seed", type=_count, default=None, metavar="S",
                   help="seed (default: fresh entropy, printed so the run can be repeated)")
    g.add_argument("--chunk-size", type=_positive, default=None, metavar="N",
                   help=f"deals per chunk (default {d['chunk_size']}); fixes the seeds")
    g.add_argument("--rotate-first", action=argparse.BooleanOptionalAction, default=None,
                   help="deal d starts at seat d mod players (default); --no-rotate-first: "
                        "seat 0 starts every deal")
    e = p.add_argument_group("execution")
    e.add_argument("--workers", "--threads", dest="workers", type=_positive, default=None,
                   metavar="N", help="worker processes (or local Dask workers) (default: all cores)")
    e.add_argument("--engine", choices=("auto", "python", "c"), default="auto",
                   help="auto (default): tables of greedy bots only are played by the C game "
                        "kernel (the same deals, move for move), other tables by the Python "
                        "engine; python: always the Python engine; c: insist on the kernel")
    _add_run_options(p, e, local="local processes", out_holds="records, summary",
                     chunk_files="chunk and records files")
    group = add_rule_options(p)
    group.add_argument("--max-turns", dest="max_turns", type=_positive, default=None, metavar="N",
                       help="cap on a deal's turns; a capped deal is a draw (default 1000)")
    p.set_defaults(handler=_cmd_simulate_games)


def _games_option_names(e: Exception) -> Exception:
    """``games must be >= 1`` -> ``--games must be >= 1`` (library names to options)."""
    import re

    msg = re.sub(r"^(players|bots|games|chunk_size|workers|seed|engine)\b",
                 lambda m: "--" + m.group(1).replace("_", "-"), str(e))
    return type(e)(msg)


def _cmd_simulate_games(args: argparse.Namespace) -> int:
    from .games import _read_manifest, simulate_games

    rule_given = args.rules is not None or any(
        getattr(args, f, None) is not None for f in _RULE_FIELDS)
    rules = rules_from_args(args) if rule_given else None
    backend = args.backend or ("dask" if args.scheduler else "local")
    if args.scheduler and backend != "dask":
        raise ValueError("--scheduler needs --backend dask")
    argv = sys.argv[1:] if getattr(args, "_argv", None) is None else args._argv
    command = " ".join([PROG] + [_quote(a) for a in argv])
    try:
        with _CliWarnings():
            study = simulate_games(
                players=args.players, bots=args.bots, games=args.games, rules=rules,
                seed=args.seed, workers=args.workers, chunk_size=args.chunk_size,
                backend=backend, scheduler=args.scheduler, out=args.out, resume=args.resume,
                progress=False if args.no_progress else None, rotate_first=args.rotate_first,
                chunk_format=args.chunk_format, command=command, engine=args.engine)
    except (ValueError, TypeError) as e:
        raise _games_option_names(e) from None
    except KeyboardInterrupt:
        _say_saved_chunks(args, "games", _read_manifest)
        raise
    if args.json:
        _print_json(study.to_dict())
    else:
        print(_games_text(study))
    return EXIT_OK


def _games_text(study) -> str:
    """The tables of ``rummy51 simulate games``."""
    from .montecarlo import rules_label

    meta = study.meta()
    ov = study.overview().iloc[0]
    n = study.deals_done
    lines = [f"rummy51 simulate games: {n:,} deals, {study.players} players: "
             + ", ".join(f"{b} (seat {s})" for s, b in enumerate(study.bots)),
             f"rules: {rules_label(study.rules)} ({_rules_text(study.rules)}, deals capped at "
             f"{study.rules.max_turns} turns); "
             + ("first player rotates (deal d starts at seat d mod "
                f"{study.players})" if study.rotate_first else "seat 0 starts every deal"),
             f"seed entropy {study.entropy} (repeat with --seed {study.entropy}); {study.chunks} "
             f"chunks, {study.workers} "
             f"{'Dask worker' if study.backend == 'dask' else 'process'}"
             f"{'es' if study.workers > 1 and study.backend != 'dask' else ''}"
             f"{'s' if study.workers > 1 and study.backend == 'dask' else ''}, "
             f"{study.elapsed:.1f} s"
             + (f" ({meta['deals_per_s']:.1f} deals/s" if meta["deals_per_s"] else "")
             + (f", {meta['deals_per_s_per_worker']:.1f} per busy worker)"
                if meta["deals_per_s"] and meta["deals_per_s_per_worker"] else
                (")" if meta["deals_per_s"] else "")),
             "rates in %, [95% Wilson interval]; means ± 1.96 standard errors; lower scores "
             "are better; a win is going out"]
    if not study.complete:
        lines.append(f"PARTIAL: {study.chunks_done} of {study.chunks} chunks")

    def rows_of(df, head):
        rows = []
        for r in df.itertuples():
            rows.append(head(r) + [
                f"{r.player_deals:,}", _pct(r.win_rate, r.win_lo, r.win_hi),
                _mean(r.mean_score, r.mean_score_se),
                _pct(r.hand_win_rate, r.hand_win_lo, r.hand_win_hi),
                _pct(r.open_rate, r.open_lo, r.open_hi),
                _mean(r.mean_turn_opened, r.mean_turn_opened_se)])
        return rows

    stats = ["player-deals", "win rate", "mean score", "hand wins", "opened", "turn opened"]
    lines += ["", "By bot (seats with the same bot pooled)",
              _fmt_table(["bot", "seats"] + stats,
                         rows_of(study.summary("bot"), lambda r: [r.bot, r.seats]), left=2)]
    lines += ["", "By seat",
              _fmt_table(["seat", "bot"] + stats,
                         rows_of(study.summary("seat"), lambda r: [str(r.seat), r.bot]), left=2)]
    lines += ["", "By position in the turn order (0 = the first player: 15 cards, no draw on "
                  "turn 0)",
              _fmt_table(["position"] + stats,
                         rows_of(study.summary("position"), lambda r: [str(r.position)]))]
    deal_rows = [
        ["deals", f"{int(ov.deals):,}"],
        ["deal length (turns)", f"{_mean(ov.mean_deal_length, ov.mean_deal_length_se)}; "
                                f"median {ov.median_deal_length:g}, 90% under "
                                f"{ov.p90_deal_length:g}"],
        ["won by hand", f"{int(ov.hand_wins):,}: "
                        + _pct(ov.hand_win_rate, ov.hand_win_lo, ov.hand_win_hi)],
        ["  with the bottom card", f"{int(ov.bottom_card_wins):,}: "
                                   + _pct(ov.bottom_card_win_rate, ov.bottom_card_win_lo,
                                          ov.bottom_card_win_hi)],
        ["draws", f"{int(ov.draws):,}: " + _pct(ov.draw_rate, ov.draw_lo, ov.draw_hi)
                  + f" ({int(ov.capped)} capped, {int(ov.stock_out)} stock out)"],
    ]
    lines += ["", "Deals", "\n".join(_fmt_table(["", ""], deal_rows, left=2).splitlines()[1:])]
    if study.directory:
        lines += ["", f"run directory: {study.directory} (manifest.json, records, summary.csv, "
                      "overview.csv, results.json)"]
    return "\n".join(lines)


# --------------------------------------------------------------------------- report
def _add_report(subparsers) -> None:
    p = subparsers.add_parser(
        "report",
        help="an HTML (or Markdown) report with plots of run directories",
        description="Turn run directories (rummy51 simulate openings/games --out DIR) into one "
                    "self-contained HTML page with the tables and plots (or Markdown plus a "
                    "folder of PNG files). Several directories are shown side by side. The "
                    "tables are also written as CSV files into OUT_tables/ beside OUT (OUT "
                    "without its suffix, plus _tables); Markdown figures go to OUT_files/.",
        epilog="example: rummy51 report runs/openings-10M runs/games-100k -o report.html",
    )
    p.add_argument("runs", nargs="+", metavar="RUN_DIR",
                   help="run directories (kind 'openings' or 'games', read from manifest.json)")
    p.add_argument("-o", "--out", required=True, metavar="OUT",
                   help="the report file to write (report.html, report.md)")
    p.add_argument("--format", choices=("html", "md"), default=None,
                   help="html (default) or md; default md when OUT ends in .md")
    p.add_argument("--title", default=None, help="the report's title (default: from the runs)")
    p.set_defaults(handler=_cmd_report)


def _cmd_report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .reports import build_report, render_html, render_markdown, write_tables

    out = Path(args.out)
    fmt = args.format or ("md" if out.suffix.lower() in (".md", ".markdown") else "html")
    if out.is_dir():
        raise ValueError(f"-o {out} is a directory: give a file name, like {out / ('report.' + fmt)}")
    report = build_report(args.runs, title=args.title)
    stem = out.with_suffix("") if out.suffix else out
    tables = stem.with_name(stem.name + "_tables")
    assets = stem.with_name(stem.name + "_files")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        written = write_tables(report, tables)
        if fmt == "html":
            text = render_html(report, tables_href=tables.name)
        else:
            text = render_markdown(report, assets, tables_href=tables.name)
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise ValueError(f"cannot write the report: {e.filename or out}: "
                         f"{e.strerror or e}") from None
    figures = sum(1 for _ in report.figures())
    where = f"; figures in {assets}/" if fmt == "md" else ""
    size = out.stat().st_size
    size_text = f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{max(1, round(size / 1e3))} kB"
    print(f"wrote {out} ({fmt}, {figures} figure{'s' if figures != 1 else ''}, {size_text}); "
          f"{len(written)} CSV tables in {tables}/{where}")
    return EXIT_OK


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
    _add_simulate(subparsers)
    _add_odds(subparsers)
    _add_report(subparsers)
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
        args._argv = None if argv is None else list(argv)
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
