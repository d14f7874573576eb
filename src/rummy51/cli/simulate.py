"""``rummy51 simulate openings`` and ``rummy51 simulate games``: the studies, with their
run directories, sweeps, resume and Dask.
"""
from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..rules import PRESETS

if TYPE_CHECKING:
    import pandas as pd

    from ..studies.games import GameStudy
    from ..studies.openings import OpeningStudy
from ._common import (
    _RULE_FIELDS,
    _add_run_options,
    _count,
    _fmt_table,
    _int_list,
    _mean,
    _name_list,
    _pct,
    _positive,
    _rules_text,
    _sweep_from_args,
    add_rule_options,
    plural,
    rules_from_args,
    run_study,
)


def _openings_text(study: OpeningStudy) -> str:
    """What ``rummy51 simulate openings`` prints: the run, the deal study's tables and
    the by-turn study's."""
    out = _openings_head(study)
    if study.hands:
        s = study.summary(by_jokers=True)
        out += (_deal_tables(study, s) if len(study.labels) == 1
                else _deal_table_per_config(study, s[s.jokers == "all"]))
    if study.players:
        out += (_turn_tables(study) if len(study.labels) == 1 else _turn_table_per_config(study))
    if study.directory:
        out += ["", f"run directory: {study.directory} (manifest.json, summary.csv, "
                    "value_distribution.csv, by_turn.csv, results.json)"]
    return "\n".join(out)


def _openings_head(study: OpeningStudy) -> list[str]:
    """The head of the openings text: the deals, the rules of each configuration, the
    seed, the run's size and time, and what the numbers are."""
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
               f"{plural(study.chunks, 'chunk')}, "
               f"{plural(study.workers, 'worker' if study.backend == 'dask' else 'thread')}"
               f" ({study.backend}), {study.elapsed:.1f} s")
    resumed = study.resumed_text()
    if resumed:
        out.append(resumed)
    out.append("probabilities in %, [95% Wilson interval]; mean best value ± 1.96 standard errors")
    return out


def _deal_tables(study: OpeningStudy, s: pd.DataFrame) -> list[str]:
    """The deal study's tables of one configuration (``s`` its summary by jokers): by
    hand, by jokers in the hand, and P(best opening value >= x)."""
    from ..studies.openings import kind_text

    r0 = study.rules[0]
    alls = s[s.jokers == "all"]
    out: list[str] = []
    rows = [[kind_text(r.hand, r0), f"{r.hands:,}",
             _pct(r.p_open, r.p_open_lo, r.p_open_hi),
             _pct(r.p_go_out, r.p_go_out_lo, r.p_go_out_hi),
             _mean(r.mean_best, r.mean_best_se)] for r in alls.itertuples()]
    out += ["", f"Opening from the deal (opens at {r0.threshold}, one card kept for the discard)",
            _fmt_table(["hand", "hands", "P(can open)", "P(go out at once)",
                        "mean best value"], rows)]
    rows = []
    for r in s[s.jokers != "all"].itertuples():
        if r.jokers != "0" and int(r.jokers.rstrip("+")) > r0.jokers:
            continue    # a class no hand can be in (--jokers 0: only "0")
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
            _fmt_table(["x"] + [kind_text(h, r0) for h in study.hands], rows)]
    return out


def _deal_table_per_config(study: OpeningStudy, alls: pd.DataFrame) -> list[str]:
    """The deal study's table of several configurations: one row per configuration
    (``alls``: the summary of all joker counts)."""
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
    sizes = {r.hand_size for r in study.rules}
    hs = sizes.pop() if len(sizes) == 1 else None
    what = (f"other: {hs} + 1 drawn; raw: {hs} cards" if hs is not None else
            "other: a dealt hand + 1 drawn; raw: the dealt hand")
    return ["", "Opening from the deal, one row per configuration "
                f"(first: the first player's hand; {what})",
            _fmt_table(headers, rows)]


def _turn_tables(study: OpeningStudy) -> list[str]:
    """The by-turn study of one configuration: P(opened by turn t) per seat and turn,
    one table per player count."""
    r0 = study.rules[0]
    bt = study.by_turn()
    pairs = [(label, p) for label in study.labels for p in study.players]
    out: list[str] = []
    for label, p in pairs:
        sub = bt[(bt.config == label) & (bt.players == p)]
        rows = []
        for t in range(1, study.turns + 1):
            row = [str(t)]
            for seat in range(1, p + 1):
                r = sub[(sub.seat == seat) & (sub.turn == t)].iloc[0]
                row.append(_pct(r.p_opened, r.p_opened_lo, r.p_opened_hi, sign=""))
            rows.append(row)
        out += ["", f"P(opened by turn t) in %: {plural(p, 'player')}, "
                    f"{plural(study.turn_deals, 'deal')} "
                    f"(keep-best discards; seat 1 holds {r0.hand_size + 1} cards and does "
                    "not draw on turn 1)",
                _fmt_table(["turn"] + [f"seat {s}" for s in range(1, p + 1)], rows)]
    return out


def _turn_table_per_config(study: OpeningStudy) -> list[str]:
    """The by-turn study of several configurations: P(opened by the last turn) per seat,
    one row per configuration and player count."""
    bt = study.by_turn()
    pairs = [(label, p) for label in study.labels for p in study.players]
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
    return ["", f"P(opened by turn {T}) in %, {study.turn_deals:,} deals per row "
                "(keep-best discards; every turn in by_turn.csv / --json)",
            _fmt_table(["config", "players"] + [f"seat {s}" for s in range(1, maxp + 1)],
                       rows, left=2)]

# --------------------------------------------------------------------------- simulate
def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "simulate",
        help="Monte Carlo studies (openings, games)",
        description="Monte Carlo studies, seeded and reproducible on any number of "
                    "threads or machines.",
    )
    sub = p.add_subparsers(dest="study", metavar="STUDY", required=True)
    _add_simulate_openings(sub)
    _add_simulate_games(sub)


def _add_simulate_openings(subparsers: argparse._SubParsersAction) -> None:
    from ..studies.openings import DEFAULTS

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
    e.add_argument("--workers", "--threads", dest="workers", type=_positive, default=None,
                   metavar="N", help="threads (or local Dask workers) (default: all cores; "
                                     "--threads is its old name)")
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
    from ..runs import RunDir
    from ..studies.openings import KIND, simulate_openings

    configs = _sweep_from_args(args)
    players = args.players
    turn_deals = args.turn_deals
    if players is not None and 0 in players:
        if len(players) > 1:
            raise ValueError("--players: 0 (no by-turn study) cannot be part of a list")
        players, turn_deals = (), 0 if turn_deals is None else turn_deals
    return run_study(
        args, "openings",
        lambda backend, command: simulate_openings(
            rules=configs, deals=args.deals, seed=args.seed, players=players,
            turns=args.turns, turn_deals=turn_deals, workers=args.workers,
            chunk_size=args.chunk_size, backend=backend, scheduler=args.scheduler,
            out=args.out, resume=args.resume,
            progress=False if args.no_progress else None, hands=args.hands,
            turn_chunk_size=args.turn_chunk_size, chunk_format=args.chunk_format,
            command=command),
        _openings_text, lambda where: RunDir.read_manifest(where, KIND))

# --------------------------------------------------------------------------- simulate games
def _add_simulate_games(subparsers: argparse._SubParsersAction) -> None:
    from ..r51.bots import BOTS
    from ..studies.games import GAME_DEFAULTS

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
    g.add_argument("--seats", choices=("fixed", "rotate", "permute"), default=None,
                   help="fixed (default): every bot keeps its seat; rotate: every deal once "
                        "per cyclic shift of the bots (each bot in each seat); permute: once "
                        "per order of the bots around the table (at most 5 players)")
    e.add_argument("--histories", action="store_true", default=None,
                   help="also write every deal's hand history into the run directory "
                        "(histories/chunk-N.jsonl.gz, JSON Lines; needs --out); the deals are "
                        "then played by the Python engine")
    e.add_argument("--engine", choices=("auto", "python", "c"), default="auto",
                   help="auto (default): tables of built-in bots are played by the C game "
                        "kernel (the same deals, move for move), other bots by the Python "
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

    msg = re.sub(r"^(players|bots|games|chunk_size|workers|seed|engine|histories)\b",
                 lambda m: "--" + m.group(1).replace("_", "-"), str(e))
    msg = msg.replace("give chunk_size >=", "give --chunk-size >=")
    return type(e)(msg)


def _cmd_simulate_games(args: argparse.Namespace) -> int:
    from ..studies.games import read_manifest, simulate_games

    rule_given = args.rules is not None or any(
        getattr(args, f, None) is not None for f in _RULE_FIELDS)
    rules = rules_from_args(args) if rule_given else None
    return run_study(
        args, "games",
        lambda backend, command: simulate_games(
            players=args.players, bots=args.bots, games=args.games, rules=rules,
            seed=args.seed, workers=args.workers, chunk_size=args.chunk_size,
            backend=backend, scheduler=args.scheduler, out=args.out, resume=args.resume,
            progress=False if args.no_progress else None, rotate_first=args.rotate_first,
            chunk_format=args.chunk_format, command=command, engine=args.engine,
            seats=args.seats, histories=args.histories),
        _games_text, read_manifest, _games_option_names)


def _ratings_text(study: GameStudy) -> list[str]:
    """Bradley-Terry and (with openskill) Plackett-Luce ratings; with seats that move,
    every pair of bots compared deal by deal."""
    import itertools

    from ..ratings import bradley_terry, paired_comparison, plackett_luce

    names = list(dict.fromkeys(study.bots))
    if len(names) < 2 or study.deals_done < 2:
        return []
    bt = bradley_terry(study.records, bootstrap=100)
    rows = [[r.bot, "-" if r.rating != r.rating else
             f"{r.rating:.0f} [{r.rating_lo:.0f}, {r.rating_hi:.0f}]"] for r in bt.itertuples()]
    head = ["bot", "Bradley-Terry (Elo scale) [95%]"]
    try:
        pl = plackett_luce(study.records).set_index("bot")
        head.append("Plackett-Luce mu [mu ± 1.96 sigma]")
        for row in rows:
            p = pl.loc[row[0]]
            row.append(f"{p.mu:.2f} [{p.mu_lo:.2f}, {p.mu_hi:.2f}]")
    except ValueError:
        pass    # openskill is optional
    out = ["", "Ratings (best first)", _fmt_table(head, rows)]
    if study.seats != "fixed":
        prow = []
        for a, b in itertools.combinations(names, 2):
            pc = paired_comparison(study.records, a, b).set_index("metric")
            s, w = pc.loc["score"], pc.loc["win"]
            prow.append([f"{a} - {b}", f"{int(s.deals):,}",
                         f"{s['diff']:+.2f} [{s.diff_lo:+.2f}, {s.diff_hi:+.2f}]",
                         f"{100 * w['diff']:+.2f} [{100 * w.diff_lo:+.2f}, {100 * w.diff_hi:+.2f}]"])
        out += ["", f"Paired on the same deals (seats {study.seats}: every bot in every seat; "
                    "score: lower is better)",
                _fmt_table(["bots", "deals", "score difference [95%]",
                            "win-rate difference, points [95%]"], prow, left=1)]
    return out


def _games_text(study: GameStudy) -> str:
    """The tables of ``rummy51 simulate games``."""
    from ..rules import rules_label

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
    resumed = study.resumed_text()
    if resumed:
        lines.append(resumed)
    if not study.complete:
        lines.append(f"PARTIAL: {study.chunks_done} of {study.chunks} chunks")

    def rows_of(df: pd.DataFrame, head: Callable[[Any], list[str]]) -> list[list[str]]:
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
    lines += _ratings_text(study)
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
