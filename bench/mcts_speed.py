"""MCTS moves per second on python_rummy51 and python_carousel with each leaf evaluator
(bench/README.md, Agents): OpenSpiel's ``MCTSBot`` (uct_c 30, ``--simulations`` a move,
``solve=False``) plays every seat of 2-player deals / rounds for ``--seconds`` CPU-seconds
per evaluator; chance nodes are sampled. One process.

    python bench/mcts_speed.py --simulations 20 --seconds 20
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--simulations", type=int, default=20)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--only", default="")
    a = p.parse_args()
    import pyspiel
    from open_spiel.python.algorithms import mcts

    import rummy51.envs.openspiel  # noqa: F401  (registers the games)
    from rummy51.envs.openspiel_eval import NetworkEvaluator, RolloutEvaluator

    games = (("python_rummy51", {"players": 2}, "rummy51"),
             ("python_carousel", {"players": 2, "returns": "round"}, "carousel"))
    print(f"| game | evaluator | moves | CPU s | moves per second ({a.simulations} simulations a move) |")
    print("|---|---|---:|---:|---:|")
    for name, params, short in games:
        game = pyspiel.load_game(name, params)
        evaluators = {"random rollout (OpenSpiel)": mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                      "RolloutEvaluator (greedy)": RolloutEvaluator(seed=0),
                      "NetworkEvaluator": NetworkEvaluator(short)}
        for ename, ev in evaluators.items():
            if a.only and a.only not in ename:
                continue
            bot = mcts.MCTSBot(game, 30.0, a.simulations, ev, random_state=np.random.RandomState(1),
                               solve=False)
            rng = np.random.default_rng(0)
            moves = 0
            t0 = time.process_time()
            st = game.new_initial_state()
            while time.process_time() - t0 < a.seconds:
                if st.is_terminal():
                    st = game.new_initial_state()
                if st.is_chance_node():
                    c, pr = zip(*st.chance_outcomes(), strict=True)
                    st.apply_action(int(rng.choice(c, p=pr)))
                else:
                    st.apply_action(bot.step(st))
                    moves += 1
            dt = time.process_time() - t0
            print(f"| {name} | {ename} | {moves} | {dt:.1f} | {moves / dt:.1f} |", flush=True)


if __name__ == "__main__":
    main()
