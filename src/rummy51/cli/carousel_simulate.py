"""``rummy51 carousel simulate``: whole Carousel games between bots (``simulate_carousel``).

``add_simulate_parser(carousel_subparsers)`` adds the ``simulate`` command to the
subparsers of the ``carousel`` command group (beside ``best``); the parsed namespace
has ``_carousel_run`` (this module's ``run_simulate``), which returns the exit status.
Every ``CarouselRules`` field is a flag (``carousel_options.add_rule_options``),
``--rules NAME`` a preset; ``--scheduler`` alone means ``--backend dask``::

    rummy51 carousel simulate --players 4 --bots greedy,careful,random,greedy --games 200 \\
        --seed 1 --out runs/car4 --workers 2
    rummy51 carousel simulate --resume runs/car4
    rummy51 carousel simulate --players 2 --bots greedy,careful --seats permute --games 500 \
        --seed 1                     # every game from both seats: paired, with ratings
    rummy51 carousel simulate --bots greedy,careful --games 20 --seed 1 --histories --out runs/h

``--seats rotate|permute`` plays every game once per seat arrangement (as ``simulate
games``), ``--histories`` writes every game's history (JSON Lines, gzip) into the run
directory; with two bots or more the text ends with their Bradley-Terry ratings and,
when the seats move, every pair compared game by game (``rummy51.ratings``).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
from typing import TYPE_CHECKING

from ..stats import Z95
from ._common import _CliWarnings, _fmt_table
from .carousel_options import ANY, RULE_FLAGS, add_rule_options, flag_words, rules_from_args

if TYPE_CHECKING:
    from ..studies.carousel import CarouselStudy

__all__ = ["add_simulate_parser", "run_simulate"]


def add_simulate_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``simulate`` on the ``carousel`` subparsers object."""
    p = subparsers.add_parser(
        "simulate", help="play whole Carousel games between bots and record every round",
        description="Play whole Carousel games (rounds to the target score) between bots; "
                    "one record per player and round, win rates with 95% Wilson intervals.",
        epilog="example: rummy51 carousel simulate --players 3 --bots greedy,careful,random "
               "--games 100 --seed 1")
    p.add_argument("--players", type=_whole, default=None, metavar="N",
                   help="players, 2..6 (default 4, or the number of --bots)")
    p.add_argument("--bots", default=None, help="comma-separated bots, one per seat or one for "
                   "all: random, greedy, careful, search or search:N (N rollouts a decision, "
                   "default 64) (default greedy)")
    p.add_argument("--games", type=_whole, default=None, metavar="N",
                   help="whole games to play (default 1000)")
    p.add_argument("--seed", type=_whole, default=None, metavar="S",
                   help="the run's seed (default: fresh entropy)")
    p.add_argument("--workers", type=_whole, default=None, metavar="N",
                   help="worker processes (default: all cores)")
    p.add_argument("--chunk-size", type=_whole, default=None, metavar="N",
                   help="games per chunk (default 50; it fixes the seeds)")
    p.add_argument("--out", default=None, metavar="DIR", help="a new run directory")
    p.add_argument("--resume", default=None, metavar="DIR",
                   help="an existing run directory to continue")
    p.add_argument("--backend", choices=("local", "dask"), default=None,
                   help="local processes, or a Dask cluster (default local; dask when "
                        "--scheduler is given)")
    p.add_argument("--scheduler", default=None, metavar="ADDR",
                   help="Dask scheduler address tcp://HOST:PORT (implies --backend dask)")
    p.add_argument("--seats", choices=("fixed", "rotate", "permute"), default=None,
                   help="fixed (default): every bot keeps its seat; rotate: every game once "
                        "per cyclic shift of the bots (each bot in each seat); permute: once "
                        "per order of the bots around the table (at most 5 players). The same "
                        "cards each time: the bots are compared game by game")
    p.add_argument("--histories", action="store_true", default=None,
                   help="also write every game's history into the run directory "
                        "(histories/chunk-N.jsonl.gz, JSON Lines, one game a line; needs "
                        "--out); the games are then played by the Python engine")
    p.add_argument("--engine", choices=("auto", "python", "c"), default="auto",
                   help="auto (default): tables where every seat is greedy, careful or search "
                        "are played by the C game kernel (the same games, move for move), others "
                        "by the Python engine; python: always the Python engine; c: insist "
                        "on the kernel")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (shown on stderr only when it is a terminal)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    add_rule_options(p)
    p.set_defaults(_carousel_run=run_simulate)
    return p


def _whole(text: str) -> int:
    """argparse type: a whole number."""
    try:
        return int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


#: the library's parameter names, as the command line spells them
_PARAMS = ("games", "chunk_size", "workers", "players", "bots", "seed", "backend", "scheduler",
           "engine", "seats", "histories")


def _flag_words(msg: str) -> str:
    """A ``simulate_carousel`` message in flag words (``games must be`` -> ``--games must
    be``, ``give either out (...) or resume`` -> ``--out`` / ``--resume``)."""
    msg = flag_words(msg)
    msg = (msg.replace("seats 'permute' plays every deal", "--seats permute plays every game")
           .replace("(use seats 'rotate')", "(use --seats rotate)")
           .replace("give out (or resume)", "give --out (or --resume)")
           .replace("give chunk_size >=", "give --chunk-size >="))
    msg = re.sub(rf"^({'|'.join(_PARAMS)})\b", lambda m: "--" + m.group(1).replace("_", "-"),
                 msg)
    msg = re.sub(r"(?<!-)\b(out|resume) \((an? (?:new|existing) [^)]*)\)", r"--\1 (\2)", msg)
    return msg.replace("backend='dask'", "--backend dask")


def _pct(p: float, lo: float, hi: float) -> str:
    return f"{100 * p:5.1f}% [{100 * lo:.1f}–{100 * hi:.1f}]"


def study_text(st: CarouselStudy) -> str:
    """The figures of a ``CarouselStudy`` as plain text."""
    ov = st.overview().iloc[0]
    k = len(st.arrangements)
    lines = [f"{st.games_done:,} games, {st.rounds:,} rounds, {st.players} players: "
             f"{', '.join(st.bots)}"]
    if k > 1:
        lines.append(f"seats {st.seats}: every game played {k} times, once per seat "
                     f"arrangement ({st.plays:,} plays); the figures count every play")
    lines += [
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
    lines += ratings_lines(st)
    if st.directory:
        lines.append(f"run directory: {st.directory}")
    return "\n".join(lines)


def ratings_lines(st: CarouselStudy) -> list[str]:
    """Bradley-Terry ratings of the bots from the games' winners; with seats that move,
    every pair of bots compared game by game (``rummy51.ratings``, as ``simulate
    games``). Nothing for one bot."""
    import itertools

    names = list(dict.fromkeys(st.bots))
    if len(names) < 2 or st.games_done < 2:
        return []
    bt = st.ratings(bootstrap=100)
    rows = [[r.bot, "-" if r.rating != r.rating else
             f"{r.rating:.0f} [{r.rating_lo:.0f}, {r.rating_hi:.0f}]", f"{int(r.comparisons):,}"]
            for r in bt.itertuples()]
    out = ["", "ratings (best first; a game's sole winner beats each other bot at the table):",
           _indent(_fmt_table(["bot", "Bradley-Terry (Elo scale) [95%]", "comparisons"], rows))]
    if st.seats != "fixed":
        prow = []
        for a, b in itertools.combinations(names, 2):
            pc = st.paired(a, b).set_index("metric")
            sc, w = pc.loc["score"], pc.loc["win"]
            prow.append([f"{a} - {b}", f"{int(sc.deals):,}",
                         f"{sc['diff']:+.1f} [{sc.diff_lo:+.1f}, {sc.diff_hi:+.1f}]",
                         f"{100 * w['diff']:+.1f} [{100 * w.diff_lo:+.1f}, {100 * w.diff_hi:+.1f}]"])
        out += ["", f"paired on the same games (seats {st.seats}: every bot in every seat; "
                    "final score: higher is better):",
                _indent(_fmt_table(["bots", "games", "final score difference [95%]",
                                    "game-win difference, points [95%]"], prow))]
    return out


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def _command(args: argparse.Namespace) -> str:
    """The command line of the run, for its manifest: the main CLI's own argv when it
    parsed it, else rebuilt from the options given."""
    argv = getattr(args, "_argv", None)
    if argv is not None:
        return " ".join(["rummy51"] + [shlex.quote(a) for a in argv])
    parts = ["rummy51", "carousel", "simulate"]
    for flag, v in (("--players", args.players), ("--bots", args.bots), ("--games", args.games),
                    ("--seed", args.seed), ("--chunk-size", args.chunk_size),
                    ("--out", args.out), ("--resume", args.resume),
                    ("--rules", getattr(args, "rules_preset", None)),
                    ("--seats", getattr(args, "seats", None))):
        if v is not None:
            parts += [flag, shlex.quote(str(v))]
    if getattr(args, "histories", False):
        parts.append("--histories")
    for name, flag in RULE_FLAGS:
        v = getattr(args, "rule_" + name, None)
        if isinstance(v, bool):
            parts.append(flag if v else "--no-" + flag[2:])
        elif v is not None:
            parts += [flag, "any" if v is ANY else shlex.quote(str(v))]
    return " ".join(parts)


def _run_players(where: str | os.PathLike[str]) -> int | None:
    """The players of the run in ``where`` (rule flags given on resume are for its
    table), None when it cannot be read (the resume then says what is wrong)."""
    from ..runs import RunDir
    from ..studies._carousel_plan import KIND

    try:
        players = RunDir.read_manifest(where, KIND)["settings"]["players"]
    except (ValueError, KeyError, TypeError):
        return None
    return players if isinstance(players, int) else None


def run_simulate(args: argparse.Namespace) -> int:
    """Execute a parsed ``carousel simulate`` namespace; returns the exit status."""
    from ..studies.carousel import simulate_carousel

    backend = args.backend or ("dask" if args.scheduler else "local")
    if args.scheduler and backend != "dask":
        raise ValueError("--scheduler needs --backend dask (or leave --backend out)")
    players = args.players
    if players is None and args.bots and "," in args.bots:
        players = len(args.bots.split(","))
    if players is None and args.resume:
        players = _run_players(args.resume)
    rules = rules_from_args(args, players or 4, required=False)
    command = _command(args)
    try:
        with _CliWarnings():   # a damaged chunk or history run again: one line each
            st = simulate_carousel(players=args.players, bots=args.bots, games=args.games,
                                   rules=rules, seed=args.seed, workers=args.workers,
                                   chunk_size=args.chunk_size, out=args.out,
                                   resume=args.resume,
                                   progress=False if args.no_progress else None,
                                   backend=backend, scheduler=args.scheduler, command=command,
                                   engine=args.engine, seats=args.seats,
                                   histories=args.histories)
    except (ValueError, TypeError) as e:
        raise type(e)(_flag_words(" ".join(str(e).split()))) from None
    if args.json:
        print(json.dumps(st.to_dict(), indent=1))
    else:
        print(study_text(st))
    return 0
