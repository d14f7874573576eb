"""``rummy51 analyse``: rollout equities of every candidate move, for a hand history's
decisions or for a position given on the command line (a hint).

A history (``GameState.to_json()``, or a JSON Lines file of ``rummy51 simulate games
--histories``; ``-`` reads stdin): every decision of every player, or ``--decision N``
(the deal's N-th action, 0-based); ``--game K`` picks one deal of a JSON Lines file.
A position (no HISTORY): ``--hand`` and what seat 0 sees (``--table``, ``--discard``,
``--bottom``, ``--players``, ``--hand-sizes``, ``--opened``, ``--phase``, ``--turn``);
the stock is the rest of the deck.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ._common import (
    EXIT_OK,
    _count,
    _int_list,
    _positive,
    add_rule_options,
    rules_from_args,
)


def _seconds(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < x < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds > 0")
    return x


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "analyse",
        help="rollout equities of every candidate move: a hand history's decisions, or a position",
        description="Rank the candidate moves of Rummy 51 decisions by equity (mean margin of "
                    "rollouts to the end of the deal, the tactician in every seat), with the "
                    "win share and what the played move lost against the best.",
        epilog="examples: rummy51 analyse deal.json --decision 3 --rollouts 400; "
               "rummy51 analyse --hand '7S 8S 9S QH QD 2C 5D 9H JC KS 3H 4D 6C' "
               "--discard 'QC' --players 2",
    )
    p.add_argument("history", nargs="?", default=None, metavar="HISTORY",
                   help="a hand history file (JSON, or JSON Lines; .gz read compressed; '-' "
                        "stdin); without it, the position options give one position")
    p.add_argument("--game", type=_count, default=None, metavar="K",
                   help="the K-th deal (0-based) of a JSON Lines file (default: every deal)")
    p.add_argument("--decision", type=_count, default=None, metavar="N",
                   help="only decision N: the deal's N-th action, 0-based (default: all)")
    p.add_argument("--rollouts", type=_int_arg, default=None, metavar="R",
                   help="rollouts per candidate (default 200; a cap with --time)")
    p.add_argument("--time", type=_seconds, default=None, metavar="S",
                   help="seconds per decision (the numbers then depend on the machine)")
    p.add_argument("--candidates", type=_positive, default=3, metavar="C",
                   help="discard candidates, as the search bot's (default 3)")
    p.add_argument("--workers", type=_positive, default=1, metavar="W",
                   help="threads (default 1; the numbers do not depend on it)")
    p.add_argument("--seed", type=_count, default=None, metavar="S",
                   help="seed of the determinizations (default: fresh, printed)")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per deal (docs/analysis.md, 'The JSON form')")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar on stderr (default: when stderr is a terminal)")
    g = p.add_argument_group("position", "A position seen by seat 0 (instead of HISTORY).")
    g.add_argument("--hand", default=None, metavar="CARDS", help="seat 0's hand")
    g.add_argument("--table", default=None, metavar="MELDS",
                   help="table melds separated by '|', each optionally 'S:' (owner seat, "
                        "default 1); a joker as JK or JK(9S)")
    g.add_argument("--discard", default="", metavar="CARDS",
                   help="the discard pile, bottom to top (default: empty)")
    g.add_argument("--bottom", default=None, metavar="CARD",
                   help="the bottom card, face up (default: none)")
    g.add_argument("--players", type=_positive, default=2, metavar="N",
                   help="players (default 2)")
    g.add_argument("--hand-sizes", type=_int_list, default=None, metavar="LIST",
                   help="cards in each seat's hand, seat 0 first (default: the others "
                        "the rules' hand size)")
    g.add_argument("--opened", type=_int_list, default=None, metavar="LIST",
                   help="the seats that have opened (default: the table melds' owners)")
    g.add_argument("--phase", choices=("draw", "play"), default=None,
                   help="draw (the turn's start) or play (drawn, from --drawn-from); default: "
                        "play when the hand holds one card more than the rules deal")
    g.add_argument("--drawn-from", choices=("stock", "discard"), default="stock",
                   help="where seat 0 drew this turn (--phase play; default stock)")
    g.add_argument("--turn", type=_count, default=None, metavar="T",
                   help="the deal's turn, 0-based, seat 0 on turn (default: 2 x players, "
                        "past the free rounds)")
    add_rule_options(p)
    p.set_defaults(handler=_cmd_analyse)


def _int_arg(text: str) -> int:
    try:
        n = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give at least 1 rollout per candidate")
    return n


def _cmd_analyse(args: argparse.Namespace) -> int:
    from ..analysis import format_analysis, format_decision
    from ..analysis._common import parse_histories
    from ..analysis.rummy51 import analyse_game, analyse_position, fresh_seed, read_histories
    from ..runs import MAX_HISTORY_TEXT

    rules = rules_from_args(args)
    if args.history is None:
        if args.hand is None:
            raise ValueError("give a HISTORY file, or a position with --hand (and --table, "
                             "--discard, ...)")
        if args.decision is not None or args.game is not None:
            raise ValueError("--decision and --game need a HISTORY")
        view = position_view(args, rules)
        seed = fresh_seed() if args.seed is None else args.seed
        d = analyse_position(view, rollouts=args.rollouts, seed=seed, time=args.time,
                             candidates=args.candidates)
        if args.json:
            print(json.dumps({"game": {"game": "rummy51", "position": view.to_dict(),
                                       "seed": seed}, "decisions": [d.to_dict()]},
                             ensure_ascii=False))
        else:
            n = d.candidates[0].rollouts
            print(f"position of seat 0: {n} rollouts per candidate, seed {seed} "
                  f"(repeat with --seed {seed})")
            print(format_decision(d, ["you"] + [f"seat {i}" for i in range(1, view.n_players)]))
        return EXIT_OK
    if args.hand is not None:
        raise ValueError("give either a HISTORY or a position (--hand ...), not both")
    if args.history == "-":
        games = parse_histories(sys.stdin.read(MAX_HISTORY_TEXT + 1), "stdin")
    else:
        games = read_histories(args.history)
    from ..carousel.actions import HISTORY_FORMAT as CAROUSEL_FORMAT

    if any(g.get("format") == CAROUSEL_FORMAT for g in games):
        where = "stdin" if args.history == "-" else args.history
        raise ValueError(f"{where} holds a Carousel history, not a Rummy 51 one: analyse it "
                         f"with rummy51 carousel analyse {args.history}")
    picked = list(enumerate(games))
    if args.game is not None:
        if args.game >= len(games):
            raise ValueError(f"--game {args.game} is out of range: the file holds "
                             f"{len(games)} deal{'s' if len(games) != 1 else ''}")
        picked = [picked[args.game]]
    explicit_rules = any(getattr(args, f, None) is not None for f in (
        "rules", "decks", "jokers", "threshold", "ace_low_value", "ace_value",
        "max_jokers_per_meld", "joker_penalty", "ace_high"))
    seed = fresh_seed() if args.seed is None else args.seed
    for k, hist in picked:
        try:
            a = analyse_game(hist, rules=rules if explicit_rules else None,
                             rollouts=args.rollouts, seed=seed, workers=args.workers,
                             decision=args.decision, progress=args.progress, time=args.time,
                             candidates=args.candidates)
        except ValueError as e:
            where = f"deal {k}: " if len(games) > 1 else ""
            msg = str(e).replace("decision ", "--decision ", 1) if "out of range" in str(e) \
                else str(e)
            raise ValueError(where + msg) from None
        if args.json:
            print(json.dumps(a.to_dict(), ensure_ascii=False))
        else:
            g = a.game
            res = g.get("result") or {}
            won = "" if res.get("winner") is None else f", seat {res['winner']} won"
            budget = g["rollouts"] if g["time"] is None else f"up to {g['rollouts']}"
            print(f"deal {k}: {g['players']} players, {g['actions']} actions, "
                  f"{res.get('how', 'unfinished')}{won}; {budget} rollouts per candidate, "
                  f"seed {g['seed']}")
            print(format_analysis(a, [f"seat {i}" for i in range(g["players"])]))
            print()
    return EXIT_OK


def _cards(text: str, flag: str) -> list[int]:
    from ..cards import parse_cards

    try:
        return list(parse_cards(text))
    except ValueError as e:
        raise ValueError(f"{flag}: {e}") from None


def position_view(args: argparse.Namespace, rules: Any) -> Any:
    """The ``PlayerView`` of seat 0 the position options describe, its counts checked
    (a card used more often than the deck holds, a negative stock: a ValueError naming
    the option)."""
    from ..cards import parse_card
    from ..r51.actions import DISCARD, STOCK, Phase, TurnInfo
    from ..r51.engine import PlayerView

    n = args.players
    if not 2 <= n <= 8:
        raise ValueError(f"--players must be 2..8, got {n}")
    hand = _cards(args.hand, "--hand")
    if not 1 <= len(hand) <= 2 * rules.hand_size + 1:
        raise ValueError(f"--hand holds {len(hand)} cards: give 1..{2 * rules.hand_size + 1}")
    pile = _cards(args.discard, "--discard") if args.discard.strip() else []
    bottom = None
    if args.bottom is not None:
        try:
            bottom = parse_card(args.bottom)
        except ValueError as e:
            raise ValueError(f"--bottom: {e}") from None
    table = _table_melds(args.table, n, rules) if args.table else []
    opened = _opened_seats(args.opened, table, n)
    deal = rules.hand_size
    phase = args.phase or ("play" if len(hand) == deal + 1 else "draw")
    _check_hand_at(phase, hand, deal)
    sizes = _hand_sizes(args.hand_sizes, hand, n, deal)
    stock = _stock_count(rules, hand, pile, table, bottom, sizes)
    if phase == "draw" and stock == 0:
        raise ValueError("impossible card counts: no card left for the stock")
    turn = 2 * n if args.turn is None else args.turn
    if turn % n != 0:
        raise ValueError(f"--turn {turn}: seat 0 is on turn at turns 0, {n}, {2 * n}, ... "
                         f"(seat 0 starts)")
    if phase == "play":
        src = DISCARD if args.drawn_from == "discard" else STOCK
        if src == DISCARD and not pile:
            pass  # the card drawn is in the hand; the pile below it is what is given
        ti = TurnInfo(source=src, drawn=None, opened_at_start=opened[0])
        ph = Phase.PLAY
    else:
        ti = TurnInfo(opened_at_start=opened[0])
        ph = Phase.DRAW
    return PlayerView(
        player=0, rules=rules, n_players=n, first=0, phase=ph, turn=turn, current=0,
        hand=tuple(sorted(hand)), hand_sizes=tuple(sizes), opened=tuple(opened),
        table=tuple(table), discard_pile=tuple(pile), bottom=bottom, stock_count=stock,
        turn_info=ti, history=())


def _table_melds(text: str, n: int, rules: Any) -> list[Any]:
    """The melds of ``--table``: ``|``-separated, each ``SEAT: cards`` (seat 1 when not
    given), a joker written ``JK(card)`` for the card it stands for."""
    from ..cards import JOKER
    from ..r51.melds import MeldError, make_meld

    table = []
    for part in text.split("|"):
        part = part.strip()
        owner = 1
        if ":" in part:
            head, part = part.split(":", 1)
            if not head.strip().isdigit() or not 0 <= int(head) < n:
                raise ValueError(f"--table: {head.strip()!r} is not a seat 0..{n - 1}")
            owner = int(head)
        toks = part.split()
        cards, reps = [], []
        for t in toks:
            if t.upper().startswith("JK(") and t.endswith(")"):
                cards.append(JOKER)
                reps.append(t[3:-1])
            else:
                cards.extend(_cards(t, "--table"))
        try:
            m = make_meld(cards, rules, owner=owner, stand_ins=reps or None)
        except (MeldError, ValueError) as e:
            raise ValueError(f"--table: {e}") from None
        table.append(m)
    return table


def _opened_seats(seats: list[int] | None, table: list[Any], n: int) -> list[bool]:
    """Per seat whether it has opened: the ``--opened`` seats, else the owners of the
    table's melds (every meld's owner must have opened)."""
    opened = [False] * n
    for s in (seats if seats is not None else sorted({m.owner for m in table})):
        if not 0 <= s < n:
            raise ValueError(f"--opened: {s} is not a seat 0..{n - 1}")
        opened[s] = True
    for m in table:
        if not opened[m.owner]:
            raise ValueError(f"--table: a meld of seat {m.owner}, who has not opened (--opened)")
    return opened


def _check_hand_at(phase: str, hand: list[int], deal: int) -> None:
    """Refuse a hand too large or too small for the phase of the turn (``deal``: the
    cards dealt to a hand)."""
    # a turn starts with at most the cards dealt (each turn draws one and discards one;
    # the first player's extra card is discarded on turn 0, which has no draw)
    top = deal if phase == "draw" else deal + 1
    if not (1 if phase == "draw" else 2) <= len(hand) <= top:
        when = ("at the start of a turn (--phase draw)" if phase == "draw"
                else "after the draw (--phase play)")
        raise ValueError(f"--hand holds {len(hand)} cards: {when} a hand holds "
                         f"{1 if phase == 'draw' else 2}..{top} under these rules")


def _hand_sizes(given: list[int] | None, hand: list[int], n: int, deal: int) -> list[int]:
    """Every seat's hand size: ``--hand-sizes`` checked, else seat 0's hand and ``deal``
    cards for every other seat."""
    if given is None:
        return [len(hand)] + [deal] * (n - 1)
    sizes = list(given)
    if len(sizes) != n:
        raise ValueError(f"--hand-sizes: {len(sizes)} sizes for {n} players")
    if sizes[0] != len(hand):
        raise ValueError(f"--hand-sizes: seat 0 holds {len(hand)} cards (--hand), "
                         f"not {sizes[0]}")
    if any(not 1 <= s <= 2 * deal + 1 for s in sizes):
        raise ValueError(f"--hand-sizes: a hand holds 1..{2 * deal + 1} cards here")
    return sizes


def _stock_count(rules: Any, hand: list[int], pile: list[int], table: list[Any],
                 bottom: int | None, sizes: list[int]) -> int:
    """The cards left for the stock, after checking that no card is used more often
    than the deck holds."""
    from collections import Counter

    from ..cards import card_text

    used = Counter(hand) + Counter(pile) + Counter(c for m in table for c in m.cards)
    if bottom is not None:
        used[bottom] += 1
    have = Counter(rules.deck())
    for c, k in sorted(used.items()):
        if k > have[c]:
            raise ValueError(f"impossible card counts: {k} x {card_text(c)} in --hand, "
                             f"--table, --discard and --bottom, but the deck holds {have[c]}")
    stock = len(rules.deck()) - sum(sizes) - len(pile) - sum(len(m.cards) for m in table) \
        - (bottom is not None)
    if stock < 0:
        raise ValueError(f"impossible card counts: the hands (--hand-sizes), --table, "
                         f"--discard and --bottom hold {len(rules.deck()) - stock} cards, "
                         f"the deck {len(rules.deck())}")
    return stock
