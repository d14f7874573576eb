"""Steps per second of each agent door under random masked play (2 players, 1 process,
CPU time): the engine-level agent states, the Gymnasium environments (the other seat a
greedy bot, whose moves are inside each step), PettingZoo's AEC environments and
OpenSpiel's Python games (chance nodes sampled, counted as steps). bench/README.md,
Agents, has the figures beside the training throughput of bench/train_ppo.py.

    python bench/door_speed.py --seconds 10
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def _run(seconds: float, step_once) -> tuple[int, float]:
    n = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        for _ in range(50):
            step_once()
        n += 50
    return n, time.process_time() - t0


def main() -> None:  # noqa: C901, PLR0915  a script: one timed row per door
    p = argparse.ArgumentParser()
    p.add_argument("--seconds", type=float, default=10.0)
    a = p.parse_args()
    rng = np.random.default_rng(0)
    rows = []

    from rummy51 import RuleSet
    from rummy51.carousel import CarouselRules
    from rummy51.carousel.agent import CarouselAgentState
    from rummy51.r51.agent import AgentState

    def agent_door(new):
        box = [new()]

        def step():
            s = box[0]
            if s.is_terminal():
                box[0] = s = new()
            s.apply_action(int(rng.choice(s.legal_actions())))
            if not s.is_terminal():
                s.observation(s.current_player())
        return step

    seeds = iter(range(10**9))
    rows.append(("AgentState (Rummy 51), with the observation", *_run(a.seconds, agent_door(
        lambda: AgentState.new(RuleSet(), 2, seed=next(seeds))))))
    rows.append(("CarouselAgentState (one round), with the observation", *_run(a.seconds, agent_door(
        lambda: CarouselAgentState.new(CarouselRules.for_players(2), seed=next(seeds), round_only=True)))))

    import gymnasium

    import rummy51.envs  # noqa: F401
    for name, kw in (("rummy51/Rummy51-v0", {}), ("rummy51/Carousel-v0", {"round_only": True})):
        env = gymnasium.make(name, players=2, opponents="greedy", **kw)
        box = [env.reset(seed=0)[0]]

        def step(env=env, box=box):
            obs = box[0]
            obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            box[0] = env.reset()[0] if term or trunc else obs
        rows.append((f"Gymnasium {name} {kw or ''} against greedy", *_run(a.seconds, step)))

    from rummy51.envs.pettingzoo import carousel_env
    from rummy51.envs.pettingzoo import env as r51_env
    for label, make in (("PettingZoo env()", lambda: r51_env(players=2)),
                        ("PettingZoo carousel_env(round_only=True)",
                         lambda: carousel_env(players=2, round_only=True))):
        e = make()
        e.reset(seed=0)

        def step(e=e):
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                if not e.agents:
                    e.reset(seed=int(rng.integers(2**31)))
                return
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        rows.append((label, *_run(a.seconds, step)))

    import pyspiel

    import rummy51.envs.openspiel  # noqa: F401
    for name, params in (("python_rummy51", {"players": 2}),
                         ("python_carousel", {"players": 2, "returns": "round"})):
        game = pyspiel.load_game(name, params)
        box = [game.new_initial_state()]

        def step(game=game, box=box):
            st = box[0]
            if st.is_terminal():
                box[0] = st = game.new_initial_state()
            if st.is_chance_node():
                c, pr = zip(*st.chance_outcomes(), strict=True)
                st.apply_action(int(rng.choice(c, p=pr)))
            else:
                st.apply_action(int(rng.choice(st.legal_actions())))
                if st.current_player() >= 0:
                    st.observation_tensor(st.current_player())
        rows.append((f"OpenSpiel {name} {params}, with observation_tensor()", *_run(a.seconds, step)))

    print("| door (random masked play, 2 players, 1 process) | steps | CPU s | steps per second |")
    print("|---|---:|---:|---:|")
    for label, n, dt in rows:
        print(f"| {label} | {n:,} | {dt:.1f} | {n / dt:,.0f} |")


if __name__ == "__main__":
    main()
