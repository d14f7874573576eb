"""``rummy51 play``: play a deal of Rummy 51 against the bots in the terminal.

You sit in seat 0. Each of your turns shows your hand, the table, the discard pile and
the bottom card, and numbers the legal moves (the engine's ``legal_actions()``: draws,
the solver's best lay-down, lay-offs, joker swaps, discards); type a number, or any
legal move as text (``discard 7S``, ``lay down 7S 8S 9S | QH QD QC``:
``rummy51.r51.notation``). ``hint`` ranks the candidate moves by rollout equity
(``rummy51.analysis.analyse_position``, a small budget: about a second), the moves
written as they can be typed. ``help`` lists the commands. The bots' moves are shown
as they play. ``q`` (or end of input) leaves the deal. Answers are read one per line
from stdin, so a deal can be scripted: with a pipe there is no prompt and each answer
is echoed as ``> answer`` (as ``rummy51 carousel play`` does).
"""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..cards import MAX_TEXT, card_text, cards_text
from ._common import EXIT_OK, _count, _name_list, add_rule_options, read_capped_line, rules_from_args

if TYPE_CHECKING:
    from ..r51.actions import Action
    from ..r51.engine import GameState

HELP = """\
commands:
  1, 2, ...       the move of that number in the list
  discard 7S      any legal move as text: draw stock, draw discard, draw bottom,
                  lay down 7S 8S 9S | QH QD QC, lay off 9S on meld 0 (high),
                  swap 10S for the joker of meld 3, discard 7S
  hint            rank your moves by rollouts to the end of the deal (about a second)
  help            this list
  q               leave the deal (end of input does too)"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    from ..r51.bots import BOTS

    p = subparsers.add_parser(
        "play",
        help="play a deal against the bots in the terminal",
        description="Play one deal of Rummy 51 in seat 0 against the bots: your hand, the "
                    "table and the legal moves by number each turn; the bots' moves shown.",
        epilog="example: rummy51 play --bots greedy,tactician --seed 7",
    )
    p.add_argument("--bots", type=_name_list, default=("greedy", "tactician", "hand-hunter"),
                   metavar="LIST",
                   help=f"the bots in seats 1, 2, ...: {', '.join(BOTS)} "
                        "(default greedy,tactician,hand-hunter)")
    p.add_argument("--seed", type=_count, default=None, metavar="S",
                   help="seed of the deal (default: fresh, printed)")
    p.add_argument("--unicode", action="store_true", help="suits as ♠♥♦♣")
    add_rule_options(p)
    p.set_defaults(handler=_cmd_play)


def _cmd_play(args: argparse.Namespace) -> int:
    import numpy as np

    from ..r51.bots import BOTS
    from ..r51.engine import GameState
    from ..studies._games_plan import bot_maker, parse_bots

    rules = rules_from_args(args)
    # the bots' names as the games study spells them (handhunter -> hand-hunter)
    names = parse_bots(list(args.bots), max(2, len(args.bots)))[0][:len(args.bots)]
    for b in names:  # a bot that plays only some tables (ppo: 2 players) says so now
        getattr(BOTS.get(b), "check_table", lambda r, n: None)(rules, 1 + len(names))
    state = GameState.new(rules, players=1 + len(names), seed=args.seed)
    root = np.random.SeedSequence(state.seed if isinstance(state.seed, int) else None)
    bots = [bot_maker(b)(ss) for b, ss in zip(names, root.spawn(len(names)), strict=True)]
    u = args.unicode
    print(f"rummy51 play: you are seat 0 against {', '.join(names)}; seed {state.seed} "
          f"(repeat with --seed {state.seed})")
    shown = 0
    while not state.over:
        shown = _show_moves(state, shown, u)
        p = state.current
        if p == 0:
            action = _ask(state, u)
            if action is None:
                print("\nleft the deal")
                return EXIT_OK
            state.apply(action)
        else:
            state.apply(bots[p - 1].choose(state.view(p)))
    _show_moves(state, shown, u)
    res = state.result
    assert res is not None  # the loop ran until the deal was over
    who = "you" if res.winner == 0 else (f"seat {res.winner}" if res.winner is not None else "nobody")
    print(f"\ndeal over ({res.how}): {who} won; scores (lower is better): "
          + ", ".join(f"seat {i} {s}" for i, s in enumerate(state.scores())))
    return EXIT_OK


def _show_moves(state: GameState, shown: int, u: bool) -> int:
    """Print the moves of other seats since ``shown``; returns the new count."""
    hist = state.history
    for rec in hist[shown:]:
        if rec.player > 0:
            print(f"  seat {rec.player}: {rec.action.text()}")
    return len(hist)


def _ask(state: GameState, u: bool) -> Action | None:
    """Show the position, read the number of a legal move (None: the player left)."""
    view = state.view(0)
    print()
    print(f"your hand ({len(view.hand)}): {cards_text(sorted(view.hand), u)}")
    table = view.table
    if table:
        print("table: " + "  |  ".join(f"[{i}] {m.text(u)}" for i, m in enumerate(table)))
    pile = view.discard_pile
    print(f"discard pile top: {card_text(pile[-1], u) if pile else '-'}; "
          f"bottom card: {card_text(view.bottom, u) if view.bottom is not None else '-'}; "
          f"hand sizes: {', '.join(map(str, view.hand_sizes))}")
    moves = state.legal_actions()
    for i, a in enumerate(moves, 1):
        print(f"  {i:>2}. {a.text()}")
    while True:
        raw = _read(f"your move (1-{len(moves)}, a move as text, hint, help, q to leave): ")
        if raw is None:
            return None
        line = raw.lower()
        if line in ("q", "quit", "exit"):
            return None
        if line.isdigit() and len(line) < 10 and 1 <= int(line) <= len(moves):
            return moves[int(line) - 1]
        if line in ("help", "h", "?"):
            print(HELP)
            continue
        if line == "hint":
            _hint(state, view)
            continue
        typed = _typed(view, raw)
        if typed is not None:
            return typed
        print(f"  type a number from 1 to {len(moves)}, a legal move as text, or hint",
              file=sys.stderr)


def _read(prompt: str) -> str | None:
    """One answer (None at the end of input). On a terminal the prompt asks for it;
    piped answers are echoed as ``> answer`` (cut when long), as ``carousel play`` does;
    a line of more than ``cards.MAX_TEXT`` characters is refused unread."""
    if _isatty(sys.stdin):
        try:
            return input(prompt).strip()
        except EOFError:
            return None
    line, too_long = read_capped_line(echo=True)
    if too_long:
        print(f"  a line of more than {MAX_TEXT:,} characters is not read", file=sys.stderr)
    return line


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False


def _typed(view: object, line: str) -> Action | None:
    """A legal move typed as text (``rummy51.r51.notation``), or None (said why)."""
    from ..r51.notation import parse_action

    if not line or line.isdigit():
        return None
    try:
        a = parse_action(line.split(" [")[0])   # as typed: a refusal quotes it so
        view.verify(a)  # type: ignore[attr-defined]  # a PlayerView: the player's checks
    except ValueError as e:
        print(f"  {e}", file=sys.stderr)
        return None
    return a  # type: ignore[return-value]


def _hint(state: GameState, view: object) -> None:
    """The candidate moves ranked by rollout equity (seeded by the deal and the move
    number: the same hint again)."""
    from ..analysis import format_decision
    from ..analysis.rummy51 import HINT_ROLLOUTS, analyse_position

    seed = state.seed if isinstance(state.seed, int) and state.seed >= 0 else 0
    d = analyse_position(view, rollouts=HINT_ROLLOUTS, seed=seed,  # type: ignore[arg-type]
                         index=len(state.actions))
    print(format_decision(d, ["you"]).replace(f"decision {d.index} (you, {d.kind})",
                                              f"hint ({d.kind}: equity = mean margin in "
                                              f"points, higher is better)"))
