"""OpenSpiel's IS-MCTS in seat 0 against three greedy bots, and four greedy bots on the
same deals, for the figures of bench/README.md (section Agents). Not a test.

Run:  python bench/agents_strength.py [deals] [simulations]     (defaults: 40, 30)

Deal d starts from the same chance outcomes in both arms (the deal is the first 58 of
them); the stock draws then differ with the moves. Prints each arm's mean return of
seat 0 (minus its points, docs/rules.md 6) with its standard error, and the time.
"""
from __future__ import annotations

import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms.ismcts import ISMCTSBot

from rummy51.r51.bots import GreedyBot
from rummy51.envs.openspiel import EngineBot, PointsEvaluator, resampler


def play(game, bots, seed: int) -> list[float]:
    rng = np.random.default_rng(1000 + seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            cards, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(cards, p=probs)))
        else:
            state.apply_action(int(bots[state.current_player()].step(state)))
    return state.returns()


def main(deals: int = 40, sims: int = 30) -> None:
    game = pyspiel.load_game("python_rummy51", {"players": 4})
    for arm in ("ismcts", "greedy"):
        t = time.perf_counter()
        seat0 = []
        for d in range(deals):
            if arm == "ismcts":
                first = ISMCTSBot(game, PointsEvaluator(), uct_c=30.0, max_simulations=sims,
                                  random_state=np.random.RandomState(d),
                                  allow_inconsistent_action_sets=True)
                first.set_resampler(resampler(d))  # seeded worlds: the run replays
            else:
                first = EngineBot(GreedyBot(), 0)
            bots = [first] + [EngineBot(GreedyBot(), p) for p in (1, 2, 3)]
            seat0.append(play(game, bots, d)[0])
        se = np.std(seat0, ddof=1) / np.sqrt(deals)
        print(f"{arm:7s} seat 0: mean return {np.mean(seat0):7.2f} (SE {se:.2f}) over {deals} "
              f"deals, {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main(*(int(x) for x in sys.argv[1:3]))
