"""``rummy51 carousel analyse``: rollout equities of every candidate move of Carousel
decisions (``rummy51.analysis.carousel``).

Two forms::

    rummy51 carousel analyse game.json [--decision N] [--rollouts R] [--time S] \\
        [--workers W] [--seed S] [--json]
    rummy51 carousel analyse --hand "5S 6S 7S 9H" --table "2C 3C 4C" --players 2 \\
        [--sizes 4,9] [--stock 30] [--phase meld|no-draw|end] [--played "meld 5S 6S 7S"]

The first replays a hand history (``GameState.to_json()``; a JSON Lines file of
``carousel simulate --histories``, ``.gz`` too: ``--game G`` picks one game, else every
game) and analyses every decision (``--decision N``: only the N-th, 0-based); the second
ranks the moves of one position (a hint). Every rule flag of the other carousel commands
applies (a history is replayed under the flags given; without any, under its own rules).
The table is best first, the played move marked ``*``; ``--json`` writes one object per
game (``docs/analysis.md``). Bad input is one line on stderr naming it, exit status 2.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .carousel_options import add_rule_options, int_option, rules_from_args

__all__ = ["add_analyse_parser", "run_analyse"]


def _float_option(flag: str) -> Any:
    def parse(text: str) -> float:
        try:
            return float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    parse.__name__ = "number"
    return parse


def add_analyse_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``analyse`` on the ``carousel`` subparsers object."""
    from ..analysis.carousel import DEFAULT_ROLLOUTS

    p = subparsers.add_parser(
        "analyse", aliases=["analyze"],
        help="rollout equities of every candidate move of a game's decisions or of a position",
        description="Rank the candidate moves of Carousel decisions (the search bot's, plus the "
                    "move played) by equity: the mean margin of rollouts to the end of the round "
                    "(common random numbers, greedy play after the move), with its standard error, "
                    "the chance to win the round, and the loss of the move played.",
        epilog="examples: rummy51 carousel analyse game.json --decision 3 --rollouts 400 --seed 1; "
               'rummy51 carousel analyse --players 2 --hand "5S 6S 7S 9H KD" --table "2C 3C 4C"')
    p.add_argument("history", nargs="?", default=None, metavar="HISTORY",
                   help="a Carousel hand history (JSON, or JSON Lines of games, .gz too; - for stdin), "
                        "or a run directory made with --histories")
    p.add_argument("--game", type=int_option("--game"), default=None, metavar="G",
                   help="with a file of several games: only game G (0-based)")
    p.add_argument("--decision", type=int_option("--decision"), default=None, metavar="N",
                   help="only the N-th decision of the game (0-based, of the decisions analysed)")
    p.add_argument("--rollouts", type=int_option("--rollouts"), default=None, metavar="R",
                   help=f"rollouts per candidate of each decision (default {DEFAULT_ROLLOUTS}; with "
                        "--time, at most this many)")
    p.add_argument("--time", type=_float_option("--time"), default=None, metavar="S",
                   help="seconds per decision at most (then the numbers depend on the machine's "
                        "speed)")
    p.add_argument("--workers", type=int_option("--workers"), default=1, metavar="W",
                   help="decisions analysed at once (threads; default 1)")
    p.add_argument("--seed", type=int_option("--seed"), default=None, metavar="S",
                   help="seed of the rollouts (default: fresh, printed)")
    p.add_argument("--json", action="store_true", help="one JSON object per game")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar on stderr (default: when stderr is a terminal)")
    pos = p.add_argument_group("a position given directly (a hint), instead of HISTORY")
    pos.add_argument("--hand", default=None, help='the player\'s hand, e.g. "5S 6S 7S 9H JK"')
    pos.add_argument("--table", default=None,
                     help='the table, melds separated by "|", e.g. "2C 3C 4C | 9H 9D 9C"')
    pos.add_argument("--players", type=int_option("--players"), default=None, metavar="N",
                     help="players, 2..6 (default 4)")
    pos.add_argument("--seat", type=int_option("--seat"), default=0, metavar="P",
                     help="the player's seat (default 0)")
    pos.add_argument("--sizes", default=None, metavar="LIST",
                     help="every hand's size in seat order, e.g. 4,10 (default: the hand's, and "
                          "the deal's hand size for the others)")
    pos.add_argument("--stock", type=int_option("--stock"), default=None, metavar="N",
                     help="the stock's size (default: the cards left)")
    pos.add_argument("--phase", choices=("meld", "no-draw", "end"), default="meld",
                     help="meld: after a first or second draw (meld or draw again; default); "
                          "no-draw: the stock was found empty in this turn; end: knock or pass")
    pos.add_argument("--draws", type=int_option("--draws"), default=None, metavar="D",
                     help="cards drawn in this turn (the meld phase: 1 or 2; default 1)")
    pos.add_argument("--played", default=None, metavar="MOVE",
                     help='a move to measure against the best, e.g. "meld 5S 6S 7S", draw, pass')
    add_rule_options(p)
    p.set_defaults(_carousel_run=run_analyse)
    return p


def _check_budget(args: argparse.Namespace) -> None:
    if args.rollouts is not None and args.rollouts < 1:
        raise ValueError(f"--rollouts must be 1 or more, got {args.rollouts}")
    if args.rollouts is not None and args.rollouts > 100_000:
        raise ValueError(f"--rollouts must be at most 100000, got {args.rollouts}")
    if args.time is not None and not args.time > 0:
        raise ValueError(f"--time must be a positive number of seconds, got {args.time:g}")
    if args.workers < 1:
        raise ValueError(f"--workers must be 1 or more, got {args.workers}")
    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed must be 0 or more, got {args.seed}")


def _budget(args: argparse.Namespace) -> dict:
    from ..analysis.carousel import DEFAULT_ROLLOUTS, MAX_ROLLOUTS

    rollouts = args.rollouts
    if rollouts is None:
        rollouts = MAX_ROLLOUTS if args.time is not None else DEFAULT_ROLLOUTS
    return {"rollouts": rollouts, "time": args.time}


def run_analyse(args: argparse.Namespace) -> int:
    """Execute a parsed ``carousel analyse`` namespace; returns the exit status."""
    _check_budget(args)
    if (args.history is None) == (args.hand is None):
        raise ValueError("give a HISTORY file, or a position with --hand (not both)")
    if args.history is None:
        return _run_position(args)
    for flag in ("table", "sizes", "stock", "draws", "played"):
        if getattr(args, flag) is not None:
            raise ValueError(f"--{flag} describes a position given with --hand, not a HISTORY")
    return _run_history(args)


def _seed(args: argparse.Namespace) -> int:
    from ..analysis import fresh_seed

    return fresh_seed() if args.seed is None else int(args.seed)


def _seed_note(args: argparse.Namespace, seed: int) -> None:
    """The fresh seed, after a text answer (the JSON form records it)."""
    if args.seed is None and not args.json:
        print(f"\nseed {seed} (repeat with --seed {seed})")


def _run_position(args: argparse.Namespace) -> int:
    from ..analysis import format_decision
    from ..analysis.carousel import analyse_position, position_view

    for flag in ("game", "decision"):
        if getattr(args, flag) is not None:
            raise ValueError(f"--{flag} picks from a HISTORY, not a position given with --hand")
    players = 4 if args.players is None else args.players
    if not 2 <= players <= 6:
        raise ValueError(f"--players must be 2..6, got {players}")
    rules = rules_from_args(args, players)
    assert rules is not None
    sizes = None
    if args.sizes is not None:
        try:
            sizes = [int(x) for x in args.sizes.replace(" ", "").split(",")]
        except ValueError:
            raise ValueError(f"--sizes {args.sizes!r} is not a comma list of hand sizes") from None
    if not args.hand.strip():
        raise ValueError('--hand is empty: give cards like "5S 6S 7S 9H"')
    if args.table is not None and not args.table.strip():
        raise ValueError('--table is empty: leave it out for an empty table, or give melds like '
                         '"2C 3C 4C | 9H 9D 9C"')
    try:
        view = position_view(rules, args.hand, args.table, sizes=sizes, stock=args.stock,
                             player=args.seat, phase=args.phase.replace("-", " "),
                             draws=args.draws)
    except ValueError as e:
        raise ValueError(_flag_words(str(e))) from None
    seed = _seed(args)
    try:
        d = analyse_position(view, seed=seed, played=args.played, **_budget(args))
    except ValueError as e:
        raise ValueError(_flag_words(str(e))) from None
    if args.json:
        out = {"game": {"game": "carousel", "position": True, "players": rules.players,
                        "seed": seed, **_budget(args)},
               "decisions": [d.to_dict()]}
        print(json.dumps(out))
    else:
        print(format_decision(d, [f"seat {i}" for i in range(rules.players)]))
    _seed_note(args, seed)
    return 0


def _flag_words(msg: str) -> str:
    for word, flag in (("hand '", "--hand '"), ("table '", "--table '"), ("sizes ", "--sizes "),
                       ("stock", "--stock"), ("player must", "--seat must"),
                       ("draws must", "--draws must"), ("played ", "--played "),
                       ("phase ", "--phase ")):
        if msg.startswith(word):
            return flag + msg[len(word):]
    return msg


def _read(path: str) -> Any:
    if path == "-":
        from ..runs import MAX_HISTORY_TEXT

        text = sys.stdin.read(MAX_HISTORY_TEXT + 1)
        if len(text) > MAX_HISTORY_TEXT:
            raise ValueError(f"stdin holds more than {MAX_HISTORY_TEXT // 2**20} MiB of history "
                             "text: split it into smaller files")
        return text
    from pathlib import Path

    return Path(path)


def _run_history(args: argparse.Namespace) -> int:
    from ..analysis.carousel import analyse_game, read_histories
    from ..carousel.engine import rules_from_dict

    games = read_histories(_read(args.history))
    from ..r51.actions import HISTORY_FORMAT as R51_FORMAT

    if any(isinstance(g, dict) and g.get("format") == R51_FORMAT for g in games):
        raise ValueError(f"{args.history} holds a Rummy 51 hand history, not a Carousel one: "
                         f"analyse it with rummy51 analyse {args.history}")
    if args.game is not None:
        if not 0 <= args.game < len(games):
            raise ValueError(f"--game {args.game} is out of range: {args.history} holds "
                             f"{len(games)} game{'s' if len(games) != 1 else ''} (0..{len(games) - 1})")
        picked = [(args.game, games[args.game])]
    else:
        picked = list(enumerate(games))
    if args.decision is not None and len(picked) > 1:
        raise ValueError(f"--decision: {args.history} holds {len(picked)} games; pick one with --game")
    first = games[picked[0][0]]
    try:
        players = int(first["rules"]["players"])
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"{args.history} is not a Carousel history (no rules.players)") from None
    rules = rules_from_args(args, players, required=False)
    seed = _seed(args)
    for g, h in picked:
        try:
            a = analyse_game(h, rules, seed=seed, workers=args.workers, decision=args.decision,
                             progress=args.progress, game=g, **_budget(args))
        except ValueError as e:
            msg = str(e)
            if msg.startswith("decision "):
                msg = "--" + msg
            raise ValueError(msg if len(picked) == 1 else f"game {g}: {msg}") from None
        if args.json:
            print(json.dumps(a.to_dict()))
        else:
            r = rules or rules_from_dict(h["rules"], recorded=True)
            if len(picked) > 1:
                print(f"== game {g} ==")
            print(_history_text(a, r.players))
    _seed_note(args, seed)
    return 0


def _history_text(a: Any, players: int) -> str:
    from ..analysis import format_analysis

    names = [f"seat {i}" for i in range(players)]
    if not a.decisions:
        return "no decision to analyse (every move was forced)"
    out = format_analysis(a, names)
    # each decision's position under its head line
    lines = []
    for part in out.split("\n\n"):
        head, _, rest = part.partition("\n")
        if head.startswith("decision "):
            idx = int(head.split()[1])
            d = next(x for x in a.decisions if x.index == idx)
            info = d.info
            if info:
                head += (f"\n  round {info['round'] + 1}, turn {info['turn'] + 1} (action "
                         f"{info['action']}); hand {info['hand']}; table "
                         f"{info['table'] or '(empty)'}")
        lines.append(head + ("\n" + rest if rest else ""))
    return "\n\n".join(lines)
