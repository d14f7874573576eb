"""The cheap MCTS leaf evaluators (rummy51.envs.openspiel_eval): their values are the
rollouts' (checked against the Python engine), priors are distributions over the legal
ids, and OpenSpiel's MCTSBot plays with each.

Skipped when OpenSpiel is not installed (``pip install ".[agents]"`` from a clone)."""
from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed "
                              "(pip install \".[agents]\" from a clone)")

from open_spiel.python.algorithms.mcts import MCTSBot  # noqa: E402

import rummy51.envs.openspiel  # noqa: E402,F401  (registers the games)
from rummy51 import RuleSet  # noqa: E402
from rummy51.carousel import CarouselRules  # noqa: E402
from rummy51.carousel.agent import CarouselAgentState  # noqa: E402
from rummy51.carousel.bots import GreedyBot as CGreedy  # noqa: E402
from rummy51.common.policy_net import PolicyNet  # noqa: E402
from rummy51.envs.openspiel_eval import (  # noqa: E402
    NetworkEvaluator,
    RolloutEvaluator,
    ValueEvaluator,
    agent_of,
)
from rummy51.r51.agent import AgentState  # noqa: E402
from rummy51.r51.bots import GreedyBot, play_deal  # noqa: E402
from rummy51.r51.policy import DEFAULT_WEIGHTS  # noqa: E402


def _walk(state, steps, seed):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            c, p = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(c, p=p)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rummy51_rollout_is_the_python_engines_greedy_deal(seed):
    """Without a reshuffle the kernel's rollout is the Python engine's greedy play of the
    same stock order: the value is minus its scores."""
    s = AgentState.new(RuleSet(), 2, seed=seed)
    _walk(s, 25, seed)
    ev = RolloutEvaluator(seed=seed)
    shuffled = np.random.default_rng(seed)
    world = s.game.copy()
    shuffled.shuffle(world._stock)
    ref = play_deal([GreedyBot(), GreedyBot()], state=world)
    before = s.information_state_string(0)
    got = ev.evaluate(s)
    reshuffled = any(type(r).__name__ == "ChanceRecord" and r.kind == "reshuffle"
                     for r in ref.history[len(s.game.history):])
    if not reshuffled:  # a reshuffle draws from another generator in each engine
        assert list(got) == [-float(x) for x in ref.scores()]
    assert s.information_state_string(0) == before  # the state is unchanged


def test_carousel_rollout_is_the_rest_of_the_round():
    s = CarouselAgentState.new(CarouselRules.for_players(2), seed=3, round_only=True)
    _walk(s, 30, 3)
    assert not s.is_terminal()
    ev = RolloutEvaluator(seed=5)
    got = ev.evaluate(s)
    world = s.game.copy()
    np.random.default_rng(5).shuffle(world._stock)
    bots = [CGreedy(), CGreedy()]
    while len(world.rounds) == 0:
        world.apply(bots[world.current].choose(world.view(world.current)))
    assert list(got) == [float(x) for x in world.rounds[0].scores]


def test_terminal_and_chance_nodes():
    game = pyspiel.load_game("python_rummy51", {"players": 2})
    st = game.new_initial_state()
    ev = RolloutEvaluator(seed=1)
    assert st.is_chance_node()
    assert ev.prior(st) == st.chance_outcomes()
    assert list(ev.evaluate(st)) == [0.0, 0.0]  # still being dealt
    _walk(st, 10_000, 1)
    assert st.is_terminal() and list(ev.evaluate(st)) == list(st.returns())
    with pytest.raises(TypeError, match="not a state of"):
        agent_of(object())
    with pytest.raises(ValueError, match="rollouts must be"):
        RolloutEvaluator(rollouts=0)


@pytest.mark.parametrize("name, params, short", [
    ("python_rummy51", {"players": 2}, "rummy51"),
    ("python_carousel", {"players": 2, "returns": "round"}, "carousel")])
def test_mcts_plays_with_every_evaluator(name, params, short):
    game = pyspiel.load_game(name, params)
    for ev in (RolloutEvaluator(seed=0), NetworkEvaluator(short),
               ValueEvaluator(lambda a, p: 0.0, lambda a: {a.legal_actions()[0]: 1.0})):
        bot = MCTSBot(game, 30.0, 4, ev, random_state=np.random.RandomState(1), solve=False)
        st = _walk(game.new_initial_state(), 0, 0)
        rng = np.random.default_rng(0)
        moves = 0
        while not st.is_terminal() and moves < 12:
            if st.is_chance_node():
                c, p = zip(*st.chance_outcomes(), strict=True)
                st.apply_action(int(rng.choice(c, p=p)))
            else:
                a = bot.step(st)
                assert a in st.legal_actions()
                st.apply_action(a)
                moves += 1
                pri = ev.prior(st) if not st.is_terminal() else [(0, 1.0)]
                assert abs(sum(q for _, q in pri) - 1) < 1e-9


def test_network_prior_is_the_policys_softmax():
    game = pyspiel.load_game("python_rummy51", {"players": 2})
    st = _walk(game.new_initial_state(), 40, 2)
    while st.is_chance_node():
        _walk(st, 1, 3)
    ev = NetworkEvaluator("rummy51")
    a = st.agent
    net = PolicyNet(DEFAULT_WEIGHTS)
    z = net.logits(a.legal_actions_mask(), a.observation(a.current_player()))[a.legal_actions()]
    want = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    got = ev.prior(st)
    assert [x for x, _ in got] == a.legal_actions()
    assert np.allclose([q for _, q in got], want)
    v = ev.evaluate(st)
    assert v.shape == (2,) and np.all(np.isfinite(v)) and np.all(np.abs(v) < 1000)
    with pytest.raises(ValueError, match="game must be"):
        NetworkEvaluator("chess")
