"""Agent-door benchmarks (pytest-benchmark). Not in the default test run.

Run:  python -m pytest bench/test_bench_agents.py --benchmark-only
      (add --benchmark-autosave to track over time)

What is measured (figures in bench/README.md, section "Agents"):

* ``copy()`` at move 60 of a deal (``AgentState.copy`` and ``GameState.copy``) against
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
    _us(benchmark, STATE60.copy)
    c = STATE60.copy()
    assert str(c) == str(STATE60)


@pytest.mark.benchmark(group="clone at move 60")
def test_game_state_clone(benchmark):
    g = STATE60.game
    _us(benchmark, g.copy)
    assert g.copy().history == g.history


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
            cards, probs = zip(*s.chance_outcomes(), strict=True)
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
                cards, probs = zip(*state.chance_outcomes(), strict=True)
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


# --------------------------------------------------------------------------- issue 28
# Random play through every door of both games, as games per second against a greedy
# C-kernel game of the same game in the same run (the reference), and Carousel's legal
# mask query (the hot path of a learning agent) at realistic table sizes.
from rummy51.carousel import CarouselRules  # noqa: E402
from rummy51.carousel.agent import CarouselAgentState  # noqa: E402

C_RULES = CarouselRules.for_players(3)
C_GAMES = 3  # random 3-player Carousel games per round (about 500 moves each)


def _rate_games(benchmark, play, games: int, rounds: int = 2):
    moves = []

    def run():
        moves.clear()
        for seed in range(games):
            moves.append(play(seed))

    benchmark.pedantic(run, rounds=rounds, iterations=1)
    t = benchmark.stats.stats.min
    benchmark.extra_info["moves_per_s"] = round(sum(moves) / t)
    benchmark.extra_info["games_per_s"] = round(games / t, 3)
    benchmark.extra_info["moves_per_game"] = round(sum(moves) / games, 1)


@pytest.mark.benchmark(group="reference: greedy C-kernel games")
def test_kernel_greedy_rummy51_deal(benchmark):
    from rummy51.r51.fastgame import play_greedy_deal

    _rate_games(benchmark, lambda seed: (play_greedy_deal(RULES, players=4, seed=seed), 1)[1],
                games=50)


@pytest.mark.benchmark(group="reference: greedy C-kernel games")
def test_kernel_greedy_carousel_game(benchmark):
    pytest.importorskip("pandas")
    from rummy51.studies.carousel import simulate_carousel

    def play(seed):
        simulate_carousel(players=3, bots="greedy", games=1, seed=seed, workers=1,
                          progress=False, engine="c")
        return 1

    _rate_games(benchmark, play, games=20)


def _random_carousel(state, rng) -> int:
    n = 0
    while not state.is_terminal():
        if state.is_chance_node():
            cards, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(cards, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
        n += 1
    return n


@pytest.mark.benchmark(group="random play, Carousel 3 players")
def test_carousel_play_integer_actions(benchmark):
    _rate_games(benchmark, lambda seed: _random_carousel(
        CarouselAgentState.new(C_RULES, seed=seed), np.random.default_rng(seed)), C_GAMES)


@pytest.mark.benchmark(group="random play, Carousel 3 players")
def test_carousel_play_openspiel(benchmark):
    pyspiel = pytest.importorskip("pyspiel")
    import rummy51.envs.openspiel  # noqa: F401

    game = pyspiel.load_game("python_carousel", {"players": 3})
    _rate_games(benchmark, lambda seed: _random_carousel(game.new_initial_state(),
                                                          np.random.default_rng(seed)), C_GAMES)


@pytest.mark.benchmark(group="random play, Carousel 3 players")
def test_carousel_play_pettingzoo(benchmark):
    pytest.importorskip("pettingzoo")
    from rummy51.envs.pettingzoo import carousel_env

    e = carousel_env(players=3)

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

    _rate_games(benchmark, play, C_GAMES)


@pytest.mark.benchmark(group="random play, Carousel 3 players")
def test_carousel_play_json(benchmark):
    from rummy51.envs.llm import carousel_apply_reply, carousel_turn_prompt, new_carousel_game

    def play(seed):
        rng = np.random.default_rng(seed)
        s = new_carousel_game(players=3, seed=seed)
        n = 0
        while not s.is_terminal():
            entries = json.loads(json.dumps(carousel_turn_prompt(s)))["legal_actions"]
            carousel_apply_reply(s, entries[int(rng.integers(len(entries)))]["text"])
            n += 1
        return n

    _rate_games(benchmark, play, C_GAMES)


@pytest.mark.parametrize("name", ["rummy51/Rummy51-v0", "rummy51/Carousel-v0"])
@pytest.mark.benchmark(group="random play, Gymnasium (seat 0 random, greedy opponents)")
def test_gym_play(benchmark, name):
    gymnasium = pytest.importorskip("gymnasium")
    import rummy51.envs  # noqa: F401

    env = gymnasium.make(name, players=3 if "Carousel" in name else 4, opponents="greedy")

    def play(seed):
        rng = np.random.default_rng(seed)
        obs, _ = env.reset(seed=seed)
        n = 0
        while True:
            obs, _r, term, trunc, _i = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            n += 1
            if term or trunc:
                return n

    _rate_games(benchmark, play, C_GAMES if "Carousel" in name else DEALS)


def _mask_positions():
    """Meld positions of greedy 4-player Carousel games by table size (melds on the
    table): the player on turn after a draw, nothing chosen."""
    from rummy51.carousel.actions import Phase
    from rummy51.carousel.bots import GreedyBot
    from rummy51.carousel.engine import GameState

    buckets: dict = {"0-2": [], "3-6": [], "7-12": [], "13+": []}
    bot = GreedyBot()
    for seed in range(6):
        g = GameState.new(CarouselRules(), seed=seed)
        while not g.over and g.round < 3:
            if g.phase is Phase.MELD:
                t = len(g.table)
                key = "0-2" if t <= 2 else "3-6" if t <= 6 else "7-12" if t <= 12 else "13+"
                buckets[key].append((list(g.table), list(g.hands[g.current])))
            g.apply(bot.choose(g.view()))
    return buckets


MASK_POSITIONS = None


@pytest.mark.parametrize("size", ["0-2", "3-6", "7-12", "13+"])
@pytest.mark.benchmark(group="Carousel legal mask, one position (4 players, greedy games)")
def test_carousel_mask(benchmark, size):
    from rummy51.carousel.codec import MaskOracle

    global MASK_POSITIONS
    if MASK_POSITIONS is None:
        MASK_POSITIONS = _mask_positions()
    positions = MASK_POSITIONS[size][:60]
    if not positions:
        pytest.skip(f"no position with {size} melds")
    rules = CarouselRules()

    def masks():  # each position once: the solver's own caches as a game would leave them
        for table, hand in positions:
            o = MaskOracle(table, hand, rules)
            o.playable(())

    benchmark.pedantic(masks, rounds=1, iterations=1)
    benchmark.extra_info["positions"] = len(positions)
    benchmark.extra_info["us_per_mask"] = round(benchmark.stats.stats.median / len(positions) * 1e6, 1)
