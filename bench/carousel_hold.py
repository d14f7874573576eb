"""Carousel head to head with knock statistics: bot a against bot b, 2 players (or more:
one a seat and b in the others), every game played once per seating of a (the same
cards: a game's decks come from its own seed), by the C game kernel with its move trace.

Prints a's game win rate (pooled over seatings, and paired game by game, 95 %
intervals), the speed (games per CPU-second of the process playing them), and per bot:
knocks held back per round (a pass at the end of a turn whose hand could knock, the
trace's pass events with b = 1), knocks, knocks per round, undercuts per knock (Wilson),
going out per round.

    python bench/carousel_hold.py search search-plain --games 200 --seed 1 --jobs 2
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np


def _bot(name: str, seed, kw: dict):
    from rummy51.carousel.bots import BOTS, make_bot, parse_bot

    if not kw:
        return make_bot(name, seed=seed)
    key, opts = parse_bot(name)
    return BOTS[key](seed=seed, **{**opts, **kw})


def _play(job: tuple) -> dict:
    from rummy51.carousel import CarouselRules
    from rummy51.studies._carousel_plan import CHUNK_COLUMNS, play_kernel_game

    a, b, players, seed, games, extra, akw, bkw = job
    col = {c: k for k, c in enumerate(CHUNK_COLUMNS)}
    rules = CarouselRules.for_players(players, **extra)
    out = []
    for g in games:
        for seat in range(players):
            ss = np.random.SeedSequence(seed, spawn_key=(g,))
            game_ss, bot_ss = ss.spawn(2)
            names = [a if s == seat else b for s in range(players)]
            bots = [_bot(n, k, akw if s == seat else bkw)
                    for s, (n, k) in enumerate(zip(names, bot_ss.spawn(players), strict=True))]
            t0 = time.process_time()
            rows, turns, ev = play_kernel_game(rules, game_ss, trace=True, bots=bots)
            cpu = time.process_time() - t0
            last = rows[rows[:, col["last_round"]] == 1]
            won = last[last[:, col["seat"]] == seat][0, col["won_game"]]
            final = last[:, col["final"]].astype(float)
            stats = {}
            for who, seats in (("a", [seat]), ("b", [s for s in range(players) if s != seat])):
                r = rows[np.isin(rows[:, col["seat"]], seats)]
                e = ev[np.isin(ev[:, 1], seats)]
                stats[who] = dict(
                    held=int(((e[:, 2] == 3) & (e[:, 4] == 1)).sum()),
                    knocks=int(r[:, col["knocked"]].sum()),
                    undercut=int(r[:, col["undercut"]].sum()),
                    out=int(r[:, col["went_out"]].sum()),
                    won_rounds=int(r[:, col["won"]].sum()))
            out.append(dict(game=g, seat=seat, won=int(won), cpu=cpu,
                            rounds=int(rows[:, col["round"]].max()) + 1,
                            diff=float(final[seat] - (final.sum() - final[seat]) / (players - 1)),
                            **{f"{w}_{k}": v for w in stats for k, v in stats[w].items()}))
    return {"rows": out}


def main(argv: list[str] | None = None) -> None:
    from rummy51.stats import wilson

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--first", type=int, default=0, help="the first game's number")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--a-kw", default="{}", help="bot a's keyword arguments (JSON), e.g. "
                   "'{\"horizon\": 0}'")
    p.add_argument("--b-kw", default="{}", help="bot b's keyword arguments (JSON)")
    args = p.parse_args(argv)
    games = list(range(args.first, args.first + args.games))
    parts = [games[i::max(1, 4 * args.jobs)] for i in range(max(1, 4 * args.jobs))]
    akw, bkw = json.loads(args.a_kw), json.loads(args.b_kw)
    jobs = [(args.a, args.b, args.players, args.seed, part, {}, akw, bkw)
            for part in parts if part]
    t0 = time.time()
    rows: list[dict] = []
    if args.jobs == 1:
        for j in jobs:
            rows += _play(j)["rows"]
    else:
        with ProcessPoolExecutor(args.jobs) as ex:
            for r in ex.map(_play, jobs):
                rows += r["rows"]
    wall = time.time() - t0
    import pandas as pd

    df = pd.DataFrame(rows)
    n = len(df)
    k = int(df.won.sum())
    lo, hi = wilson(k, n)
    per_game = df.groupby("game").won.mean()
    m, se = per_game.mean(), per_game.std(ddof=1) / np.sqrt(len(per_game))
    d = df.groupby("game")["diff"].mean()
    cpu = df.cpu.sum()
    print(f"{args.a} {akw or ''} against {args.b} {bkw or ''}, {args.players} players, "
          f"games {games[0]}..{games[-1]} "
          f"(seed {args.seed}), every game from each seat of {args.a}: {n} plays")
    print(f"  {args.a} won {k} of {n}: {100 * k / n:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}] "
          f"(Wilson); paired by game {100 * m:.1f} % ± {196 * se:.1f}; final score "
          f"{args.a} - others {d.mean():+.1f} ± {1.96 * d.std(ddof=1) / np.sqrt(len(d)):.1f}")
    print(f"  speed: {n / cpu:.2f} games per CPU-second ({cpu:.0f} CPU-s, {wall:.0f} s wall)")
    rounds = int(df.rounds.sum())
    for w, name in (("a", args.a), ("b", args.b)):
        kn, uc = int(df[f"{w}_knocks"].sum()), int(df[f"{w}_undercut"].sum())
        held = int(df[f"{w}_held"].sum())
        ulo, uhi = wilson(uc, kn) if kn else (0.0, 1.0)
        hg = df.groupby("game")[f"{w}_held"].sum() / df.groupby("game").rounds.sum()
        print(f"  {name}: knocks held back {held} ({held / rounds:.3f} a round ± "
              f"{1.96 * hg.std(ddof=1) / np.sqrt(len(hg)):.3f}), knocks {kn} "
              f"({kn / rounds:.3f} a round), undercut {uc} of {kn} knocks "
              f"({100 * uc / max(kn, 1):.1f} % [{100 * ulo:.1f}, {100 * uhi:.1f}]), "
              f"out {int(df[f'{w}_out'].sum())} ({df[f'{w}_out'].sum() / rounds:.3f} a round), "
              f"rounds won {int(df[f'{w}_won_rounds'].sum())} of {rounds}")


if __name__ == "__main__":
    main(sys.argv[1:])
