"""Agent-door benchmarks (pytest-benchmark). Not in the default test run.

Run:  python -m pytest bench/test_bench_agents.py --benchmark-only
      (add --benchmark-autosave to track over time)

What is measured (figures in bench/README.md, section "Agents"):

* ``clone()`` at move 60 of a deal (``AgentState.clone`` and ``GameState.clone``) against
  ``copy.deepcopy`` of the same state, in the same run (target: at most 50 us);
* random play through each door, every move chosen uniformly among the legal ones:
  ``AgentState`` (integer ids, shuffled deal), ``AgentState`` in chance mode, the
  OpenSpiel state (chance nodes, through pyspiel), the PettingZoo environment (an
  observation and mask every step, as an RL loop reads them) and the JSON door (the
  prompt as JSON and the answer parsed from text every move); moves and deals per second;
* one ``legal_actions()`` and one observation tensor at move 60.

Inputs are built from fixed seeds outside the timed calls. Throughput goes to
``extra_info`` (``us``, ``moves_per_s``, ``deals_per_s``).
"""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from rummy51 import RuleSet
from rummy51.r51.agent import AgentState

RULES = RuleSet()
DEALS = 5  # random deals per round of the play-rate benchmarks (about 300 moves each)


def _at_move(n: int, seed: int = 60) -> AgentState:
    """A 4-player deal after ``n`` uniformly random moves, then on to the first position
    where the player on turn has drawn (melds, lay-offs and discards to list)."""
    rng = np.random.default_rng(seed)
    s = AgentState.new(RULES, players=4, seed=seed)
    for _ in range(n):
        s.apply_action(int(rng.choice(s.legal_actions())))
    while s.game.phase.value != "play":
        s.apply_action(int(rng.choice(s.legal_actions())))
    assert not s.is_terminal()
    return s


STATE60 = _at_move(60)


def _us(benchmark, fn):
    benchmark(fn)
    benchmark.extra_info["us"] = round(benchmark.stats.stats.median * 1e6, 2)  # load-robust


# --------------------------------------------------------------------------- clones
@pytest.mark.benchmark(group="clone at move 60")
def test_agent_state_clone(benchmark):
    _us(benchmark, STATE60.clone)
    c = STATE60.clone()
    assert str(c) == str(STATE60)


@pytest.mark.benchmark(group="clone at move 60")
def test_game_state_clone(benchmark):
    g = STATE60.game
    _us(benchmark, g.clone)
    assert g.clone().history == g.history


@pytest.mark.benchmark(group="clone at move 60")
def test_game_state_deepcopy(benchmark):
    g = STATE60.game
    _us(benchmark, lambda: copy.deepcopy(g))


# --------------------------------------------------------------------------- one position
@pytest.mark.benchmark(group="one position at move 60")
def test_legal_actions(benchmark):
    def legal():
        STATE60._legal = None  # no cache: the whole listing
        return STATE60.legal_actions()

    _us(benchmark, legal)


@pytest.mark.benchmark(group="one position at move 60")
def test_observation_tensor(benchmark):
    out = np.zeros(STATE60.observation(0).shape, np.float32)

    def encode():
        STATE60._memo = {}  # no memo: the whole tensor
        return STATE60.observation(0, out)

    _us(benchmark, encode)


@pytest.mark.benchmark(group="one position at move 60")
def test_information_state_string(benchmark):
    def info():
        STATE60._cache.pop(("info", 0), None)  # no cache: the whole history
        return STATE60.information_state_string(0)

    _us(benchmark, info)


# --------------------------------------------------------------------------- random play
def _rate(benchmark, play):
    moves = []

    def run():
        moves.clear()
        for seed in range(DEALS):
            moves.append(play(seed))

    benchmark.pedantic(run, rounds=3, iterations=1)
    t = benchmark.stats.stats.min
    benchmark.extra_info["moves_per_s"] = round(sum(moves) / t)
    benchmark.extra_info["deals_per_s"] = round(DEALS / t, 2)
    benchmark.extra_info["moves_per_deal"] = round(sum(moves) / DEALS, 1)


def _play_agent(seed: int, chance: bool = False) -> int:
    rng = np.random.default_rng(seed)
    s = AgentState.new(RULES, players=4, seed=None if chance else seed, chance=chance)
    n = 0
    while not s.is_terminal():
        if s.is_chance_node():
            cards, probs = zip(*s.chance_outcomes())
            s.apply_action(int(rng.choice(cards, p=probs)))
        else:
            s.apply_action(int(rng.choice(s.legal_actions())))
        n += 1
    return n


@pytest.mark.benchmark(group="random play, 4 players")
def test_play_integer_actions(benchmark):
    _rate(benchmark, _play_agent)


@pytest.mark.benchmark(group="random play, 4 players")
def test_play_chance_mode(benchmark):
    _rate(benchmark, lambda seed: _play_agent(seed, chance=True))


@pytest.mark.benchmark(group="random play, 4 players")
def test_play_openspiel(benchmark):
    pyspiel = pytest.importorskip("pyspiel")
    import rummy51.envs.openspiel  # noqa: F401

    game = pyspiel.load_game("python_rummy51")

    def play(seed):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            if state.is_chance_node():
                cards, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(cards, p=probs)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
            n += 1
        return n

    _rate(benchmark, play)


@pytest.mark.benchmark(group="random play, 4 players")
def test_play_pettingzoo(benchmark):
    pytest.importorskip("pettingzoo")
    from rummy51.envs.pettingzoo import env

    e = env(players=4)

    def play(seed):
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        n = 0
        for _agent in e.agent_iter():
            obs, _r, term, trunc, _i = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            n += 1
        return n

    _rate(benchmark, play)


@pytest.mark.benchmark(group="random play, 4 players")
def test_play_json(benchmark):
    from rummy51.envs.llm import apply_reply, new_deal, turn_prompt

    def play(seed):
        rng = np.random.default_rng(seed)
        s = new_deal(RULES, players=4, seed=seed)
        n = 0
        while not s.is_terminal():
            prompt = json.loads(json.dumps(turn_prompt(s, history=False)))
            entries = prompt["legal_actions"]
            apply_reply(s, entries[int(rng.integers(len(entries)))]["text"])
            n += 1
        return n

    _rate(benchmark, play)
