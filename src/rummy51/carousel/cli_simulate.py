"""``rummy51 carousel simulate``: whole Carousel games between bots (``simulate_carousel``).

``add_simulate_parser(carousel_subparsers)`` adds the ``simulate`` command to the
subparsers of the ``carousel`` command group (beside ``best``); the parsed namespace
has ``_carousel_run`` (this module's ``run_simulate``), which returns the exit status::

    rummy51 carousel simulate --players 4 --bots greedy,careful,random,greedy --games 200 \\
        --seed 1 --out runs/car4 --workers 2
    rummy51 carousel simulate --resume runs/car4
"""
from __future__ import annotations

import argparse
import json
import shlex

from ..stats import Z95
from .rules import CarouselRules

__all__ = ["add_simulate_parser", "run_simulate"]


def add_simulate_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``simulate`` on the ``carousel`` subparsers object."""
    p = subparsers.add_parser(
        "simulate", help="play whole Carousel games between bots and record every round",
        description="Play whole Carousel games (rounds to the target score) between bots; "
                    "one record per player and round, win rates with 95%% Wilson intervals.")
    p.add_argument("--players", type=int, default=None, help="players, 2..6 (default 4, or "
                   "the number of --bots)")
    p.add_argument("--bots", default=None, help="comma-separated bots, one per seat or one for "
                   "all: random, greedy, careful, search or search:N (N rollouts a decision, default "
                   "64) (default greedy)")
    p.add_argument("--games", type=int, default=None, help="whole games to play (default 1000)")
    p.add_argument("--seed", type=int, default=None, help="the run's seed (default: fresh entropy)")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    p.add_argument("--chunk-size", type=int, default=None, help="games per chunk (default 50; "
                   "it fixes the seeds)")
    p.add_argument("--out", default=None, help="a new run directory")
    p.add_argument("--resume", default=None, help="an existing run directory to continue")
    p.add_argument("--backend", choices=("local", "dask"), default="local")
    p.add_argument("--scheduler", default=None, help="Dask scheduler address (--backend dask)")
    p.add_argument("--knock-limit", type=int, default=None, help="knock with this many points "
                   "or fewer (default 5)")
    p.add_argument("--target", type=int, default=None, help="the game ends at this total "
                   "(default 150)")
    p.add_argument("--last-turn-knock", action="store_true", help="a player may knock in a "
                   "last turn after the stock ran out (rules.last_turn_knock)")
    p.add_argument("--game-tie", choices=("share", "play_on"), default=None,
                   help="a shared highest final total: all win (share, the default) or "
                   "another round is dealt (play_on)")
    p.add_argument("--engine", choices=("auto", "python", "c"), default="auto",
                   help="auto (default): tables where every seat is greedy, careful or search "
                        "are played by the "
                        "C game kernel (the same games, move for move), others by the Python "
                        "engine; python: always the Python engine; c: insist on the kernel")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(_carousel_run=run_simulate)
    return p


def _rules(args, players):
    kw = {}
    if args.knock_limit is not None:
        kw["knock_limit"] = args.knock_limit
    if args.target is not None:
        kw["target_score"] = args.target
    if args.last_turn_knock:
        kw["last_turn_knock"] = True
    if args.game_tie is not None:
        kw["game_tie"] = args.game_tie
    if not kw:
        return None
    return CarouselRules.for_players(players or 4, **kw)


def _pct(p, lo, hi) -> str:
    return f"{100 * p:5.1f}% [{100 * lo:.1f}–{100 * hi:.1f}]"


def study_text(st) -> str:
    """The figures of a ``CarouselStudy`` as plain text."""
    ov = st.overview().iloc[0]
    lines = [f"{st.games_done:,} games, {st.rounds:,} rounds, {st.players} players: "
             f"{', '.join(st.bots)}",
             f"rounds per game {ov.rounds_per_game:.2f} ± {Z95 * ov.rounds_per_game_se:.2f}; "
             f"round length {ov.mean_round_length:.1f} ± {Z95 * ov.mean_round_length_se:.1f} "
             "turns",
             f"rounds ended by a knock {_pct(ov.knock_rate, ov.knock_lo, ov.knock_hi)}, "
             f"going out {_pct(ov.out_rate, ov.out_lo, ov.out_hi)}, "
             f"the stock {_pct(ov.stock_rate, ov.stock_lo, ov.stock_hi)}",
             f"undercut (per knock or going out) {_pct(ov.undercut_rate, ov.undercut_lo, ov.undercut_hi)}",
             "", "by seat:        game wins                 round wins               knocks"]
    for _, r in st.summary("seat").iterrows():
        lines.append(f"  seat {int(r.seat)} {r.bot:8s} "
                     f"{_pct(r.game_win_rate, r.game_win_lo, r.game_win_hi)}  "
                     f"{_pct(r.round_win_rate, r.round_win_lo, r.round_win_hi)}  "
                     f"{_pct(r.knock_rate, r.knock_lo, r.knock_hi)}")
    if len(set(st.bots)) > 1:
        lines.append("by bot:")
        for _, r in st.summary("bot").iterrows():
            lines.append(f"  {r.bot:15s} {_pct(r.game_win_rate, r.game_win_lo, r.game_win_hi)}  "
                         f"{_pct(r.round_win_rate, r.round_win_lo, r.round_win_hi)}  "
                         f"{_pct(r.knock_rate, r.knock_lo, r.knock_hi)}")
    if st.directory:
        lines.append(f"run directory: {st.directory}")
    return "\n".join(lines)


def run_simulate(args) -> int:
    """Execute a parsed ``carousel simulate`` namespace; returns the exit status."""
    from ..studies.carousel import simulate_carousel

    players = args.players
    if players is None and args.bots and "," in args.bots:
        players = len(args.bots.split(","))
    parts = []
    for flag, v in (("--players", args.players), ("--bots", args.bots), ("--games", args.games),
                    ("--seed", args.seed), ("--chunk-size", args.chunk_size),
                    ("--knock-limit", args.knock_limit), ("--target", args.target),
                    ("--out", args.out), ("--resume", args.resume)):
        if v is not None:
            parts += [flag, shlex.quote(str(v))]
    command = "rummy51 carousel simulate " + " ".join(parts)
    st = simulate_carousel(players=args.players, bots=args.bots, games=args.games,
                           rules=_rules(args, players), seed=args.seed, workers=args.workers,
                           chunk_size=args.chunk_size, out=args.out, resume=args.resume,
                           progress=False if args.no_progress else None, backend=args.backend,
                           scheduler=args.scheduler, command=command, engine=args.engine)
    if args.json:
        print(json.dumps(st.to_dict(), indent=1))
    else:
        print(study_text(st))
    return 0
