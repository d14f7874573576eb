"""CPU time a decision of the Carousel learned bot against the search bots, on the same
positions (docs/learned.md, bench/README.md "Carousel learned player").

Positions: the real decisions (a meld decision with a legal play after a draw, or a
knock decision; not the last turns) met by the player on turn in 2-player games of
greedy bots, ``--games`` games from ``--seed``. Each bot's kernel call
(``_carousel.learned_decide``, ``_carousel.search_decide``) is timed on every position
with the arguments made beforehand (no Python view conversion in the time), in one
process, one after the other: the ratio is the figure that travels.

    python bench/carousel_learned_speed.py --games 20 --seed 1
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from rummy51 import _carousel
from rummy51.carousel import CarouselRules
from rummy51.carousel.actions import Phase
from rummy51.carousel.bots import (
    DEFAULT_ROLLOUTS,
    DEFAULT_Z_PLAY,
    DEFAULT_Z_STOP,
    GreedyBot,
    core_rules,
    game_rules,
    hand_counts,
    table_counts,
)
from rummy51.carousel.engine import GameState
from rummy51.carousel.solver import can_meld
from rummy51.learned import load_model


def positions(games: int, seed: int) -> list[tuple]:
    """The decisions' kernel arguments ``(decision, H, jh, T, D, jt, sizes, me, stock,
    draws, stock_out)`` of ``games`` greedy games."""
    rules = CarouselRules.for_players(2)
    bot = GreedyBot()
    out = []
    for g in range(games):
        s = GameState.new(rules, seed=seed * 100_003 + g)
        while s.phase is not Phase.OVER:
            v = s.view()
            if not v.turn_info.last:
                dec = None
                if v.phase in (Phase.MELD, Phase.NO_DRAW) and can_meld(list(v.table),
                                                                      list(v.hand), rules):
                    dec = _carousel.SEARCH_MELD if v.phase is Phase.MELD else _carousel.SEARCH_NODRAW
                elif v.phase is Phase.END and v.can_knock():
                    dec = _carousel.SEARCH_KNOCK
                if dec is not None:
                    H, jh = hand_counts(v.hand)
                    T, D, jt = table_counts(v.table)
                    out.append((dec, H, jh, T, D, jt, tuple(v.hand_sizes), v.player,
                                v.stock_count, v.turn_info.draws, v.stock_out))
            s.apply(bot.choose(v))
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rollouts", type=int, default=DEFAULT_ROLLOUTS)
    args = p.parse_args(argv)
    rules = CarouselRules.for_players(2)
    core, gr = core_rules(rules), game_rules(rules)
    model = load_model("carousel")
    pos = positions(args.games, args.seed)
    kinds = {"meld": sum(q[0] != _carousel.SEARCH_KNOCK for q in pos),
             "knock": sum(q[0] == _carousel.SEARCH_KNOCK for q in pos)}
    print(f"{len(pos)} positions of {args.games} greedy 2-player games (seed {args.seed}): "
          f"{kinds['meld']} meld decisions, {kinds['knock']} knock decisions")

    def learned(q):
        _carousel.learned_decide(core, gr, model, *q)

    def search(hold, net):
        rng = np.random.default_rng(args.seed)

        def run(q):
            _carousel.search_decide(core, gr, rng, *q, args.rollouts, DEFAULT_Z_STOP,
                                    DEFAULT_Z_PLAY, hold, net, 0)
        return run

    res = {}
    for name, fn, reps in (("learned", learned, 20),
                           (f"search (learned-guided, {args.rollouts} rollouts)",
                            search(True, model), 1),
                           (f"search-plain ({args.rollouts} rollouts)", search(False, None), 1)):
        t0 = time.process_time()
        for _ in range(reps):
            for q in pos:
                fn(q)
        res[name] = (time.process_time() - t0) / (reps * len(pos))
    base = res["learned"]
    for name, t in res.items():
        print(f"  {name:42s} {1e6 * t:10.1f} µs a decision  ({t / base:8.1f} x learned)")


if __name__ == "__main__":
    main()
