"""Does holding a knock back pay under strong play? Every knock decision of Carousel
games between search bots, valued by the search's own rollouts.

Plays ``--games`` 2-player games (default rules, the Python engine, seeds
``SeedSequence(seed, spawn_key=(g,))``) between two ``--bot`` seats (default the
search bot), and at every decision where the player on turn may knock (the end of a
turn, not a last turn) values its four candidates on the same ``--rollouts``
determinizations (common random numbers: ``_carousel._knock_values``, the search's
rollouts played to the round's end, the other seats greedy): knock, and pass with the
player's rollouts knocking at the next chance (``greedy``), holding on to go out
(``out``: knocking only when the stock is about to run out), or holding until another
hand holds 3 cards or fewer (``near``). Prints, over the decisions, each pass's mean
difference to knocking (95 % interval over decisions), the share of decisions in which
that pass beats knocking by a paired z of 2 or more (Wilson), the decisions the bot
actually passed, and the same by the points in hand.

    python bench/carousel_knock_values.py --games 100 --rollouts 400 --seed 2026
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def _collect(games: int, seed: int, bot: str) -> tuple[list, int, float]:
    from rummy51.carousel import CarouselRules
    from rummy51.carousel.bots import BOTS, make_bot, parse_bot, play_game

    key, opts = parse_bot(bot)
    base = BOTS[key]
    seen: list = []

    class Recorder(base):  # type: ignore[misc, valid-type]
        def _knock(self, view):  # the search bot's knock decision
            if view.can_knock() and not view.turn_info.last:
                k = super()._knock(view)
                seen.append((view, k, self))
                return k
            return super()._knock(view)

    rules = CarouselRules.for_players(2)
    t0 = time.process_time()
    rounds = 0
    for g in range(games):
        ss = np.random.SeedSequence(seed, spawn_key=(g,))
        game_ss, bot_ss = ss.spawn(2)
        seats = [Recorder(seed=s, **opts) if hasattr(base, "_knock") else make_bot(bot, s)
                 for s in bot_ss.spawn(2)]
        st = play_game(seats, rules, seed=game_ss)
        rounds += len(st.rounds)
    return seen, rounds, time.process_time() - t0


def main(argv: list[str] | None = None) -> None:
    from rummy51 import _carousel
    from rummy51.carousel.bots import core_rules, game_rules, hand_counts, table_counts
    from rummy51.stats import wilson

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--rollouts", type=int, default=400)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--bot", default="search")
    args = p.parse_args(argv)
    seen, rounds, cpu = _collect(args.games, args.seed, args.bot)
    rng = np.random.default_rng(np.random.SeedSequence(args.seed, spawn_key=(10**6,)))
    rows = []
    for view, knocked, _bot in seen:
        r = view.rules
        H, jh = hand_counts(view.hand)
        T, D, jt = table_counts(view.table)
        vals = _carousel._knock_values(core_rules(r), game_rules(r), rng, H, jh, T, D, jt,
                                       view.hand_sizes, view.player, view.stock_count,
                                       view.stock_out, args.rollouts)
        d = vals[1:] - vals[0]
        se = d.std(axis=1, ddof=1) / np.sqrt(d.shape[1])
        z = np.where(se > 0, d.mean(axis=1) / np.where(se > 0, se, 1), np.sign(d.mean(axis=1)) * 1e9)
        rows.append((r.hand_points(view.hand), vals[0].mean(), d.mean(axis=1), z, knocked))
    n = len(rows)
    print(f"{args.games} games of {args.bot} against itself (seed {args.seed}), {rounds} rounds, "
          f"{cpu:.0f} CPU-s: {n} knock decisions, {sum(not r[4] for r in rows)} passed "
          f"(knocks held back per round {sum(not r[4] for r in rows) / max(rounds, 1):.3f}); "
          f"{args.rollouts} determinizations each")
    if not n:
        return
    print(f"knocking: mean margin {np.mean([r[1] for r in rows]):+.1f}")
    for k, name in enumerate(("pass, knock at the next chance", "pass, hold to go out",
                              "pass, hold until a hand holds 3 cards or fewer")):
        diffs = np.array([r[2][k] for r in rows])
        wins = int(sum(r[3][k] >= 2 for r in rows))
        lo, hi = wilson(wins, n)
        half = 1.96 * diffs.std(ddof=1) / np.sqrt(n)
        print(f"{name}: minus knocking {diffs.mean():+.1f} [{diffs.mean() - half:+.1f}, "
              f"{diffs.mean() + half:+.1f}]; better by z >= 2 in "
              f"{wins} of {n} decisions ({100 * wins / n:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}])")
    best = sum(max(r[3]) >= 2 for r in rows)
    lo, hi = wilson(best, n)
    print(f"some pass better by z >= 2: {best} of {n} ({100 * best / n:.1f} % [{100 * lo:.1f}, "
          f"{100 * hi:.1f}])")
    for pts in sorted({r[0] for r in rows}):
        sub = [r for r in rows if r[0] == pts]
        bd = np.array([max(r[2]) for r in sub])
        print(f"  {pts} points: {len(sub)} decisions, best pass minus knocking {bd.mean():+.1f}, "
              f"largest {bd.max():+.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
