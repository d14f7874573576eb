"""The PettingZoo door (rummy51.envs.pettingzoo): PettingZoo's API test, seeding, errors.

Skipped when pettingzoo is not installed (``pip install ".[agents]" from a clone``).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo",
                    reason="PettingZoo is not installed (pip install \".[agents]\" from a clone)")

from pettingzoo.test import api_test  # noqa: E402

from rummy51.envs.pettingzoo import env  # noqa: E402


def test_api_test():
    with warnings.catch_warnings():
        # PettingZoo warns that a dict observation is not a numpy array (as for its own
        # classic games with action masks)
        warnings.simplefilter("ignore")
        api_test(env(), num_cycles=1000)


def test_api_test_other_rules():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(players=2, jokers=2, threshold=40), num_cycles=200)


def _random_deal(e, seed: int):
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    for agent in e.agent_iter(20_000):
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        a = int(rng.choice(legal))
        trace.append((agent, a, obs["observation"].sum()))
        e.step(a)
    return trace


def test_seed_reproduces_a_deal():
    e = env(players=3)
    e.reset(seed=11)
    first = e.state.game.deck
    e.reset(seed=11)
    assert e.state.game.deck == first
    e.reset(seed=12)
    assert e.state.game.deck != first
    from rummy51.r51.engine import GameState
    assert GameState.new(e.rules, 3, seed=11).deck == first
    assert _random_deal(env(players=3), 5) == _random_deal(env(players=3), 5)
    e.reset()
    a = e.state.game.deck
    e.reset()
    assert e.state.game.deck != a  # unseeded resets deal new deals


def test_every_agent_leaves_at_the_end():
    e = env(players=2)
    _random_deal(e, 2)
    assert e.agents == [] and e.state.game.result is not None


def test_a_whole_deal_rewards_sum():
    e = env(players=2)
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    total = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter(20_000):
        obs, reward, term, trunc, info = e.last()
        total[agent] += reward
        if term or trunc:
            assert "result" in info
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    scores = e.state.game.scores()
    assert [total[a] for a in e.possible_agents] == [-x for x in scores]


def test_bad_actions_are_one_line_errors():
    e = env(players=2)
    e.reset(seed=1)
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    for bad, err in [("3", TypeError), (1.5, TypeError), (-1, ValueError), (10**6, ValueError),
                     (illegal, ValueError), (np.int64(illegal), ValueError)]:
        with pytest.raises(err) as info:
            e.step(bad)
        assert "\n" not in str(info.value)
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    e.step(np.int32(legal))  # numpy integers are accepted
    with pytest.raises(ValueError, match="not an agent"):
        e.observe("player_9")
    with pytest.raises(ValueError, match="reset"):
        env().step(0)
    with pytest.raises(TypeError):
        env(jokrs=3)


def test_render_and_spaces():
    e = env(players=2, render_mode="ansi")
    e.reset(seed=0)
    assert "hand:" in e.render()
    space = e.observation_space("player_0")
    obs = e.observe("player_0")
    assert space.contains(obs) and obs["action_mask"].dtype == np.int8
    assert e.action_space("player_1").n == e.codec.size
    with pytest.raises(ValueError, match="render_mode"):
        env(render_mode="rgb")


# --------------------------------------------------------------------------- Carousel
def test_carousel_api_test():
    from rummy51.envs.pettingzoo import carousel_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(carousel_env(players=3), num_cycles=500)
        api_test(carousel_env(players=2, round_only=True), num_cycles=300)


def test_carousel_game_rewards_are_the_final_scores_and_seeds_replay():
    from rummy51.envs.pettingzoo import carousel_env

    def play(seed):
        e = carousel_env(players=3)
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        total = {a: 0.0 for a in e.possible_agents}
        trace = []
        for agent in e.agent_iter(100_000):
            obs, reward, term, trunc, info = e.last()
            total[agent] += reward
            if term or trunc:
                e.step(None)
                continue
            a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            trace.append(a)
            e.step(a)
        return e, total, trace

    e, total, trace = play(4)
    assert [total[a] for a in e.possible_agents] == [float(x) for x in e.state.game.final]
    assert play(4)[2] == trace and play(5)[2] != trace


def test_carousel_bad_actions_are_one_line_errors():
    from rummy51.envs.pettingzoo import carousel_env

    e = carousel_env(players=3)
    e.reset(seed=1)
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = e.state.observation(e.state.current_player()).tobytes()
    for bad, err in [("3", TypeError), (1.5, TypeError), (-1, ValueError), (57, ValueError),
                     (illegal, ValueError), (np.int64(illegal), ValueError)]:
        with pytest.raises(err) as info:
            e.step(bad)
        assert "\n" not in str(info.value)
    assert e.state.observation(e.state.current_player()).tobytes() == before
    with pytest.raises(ValueError, match="reset"):
        carousel_env().step(0)
    with pytest.raises(TypeError):
        carousel_env(jokrs=3)


def test_a_step_after_the_end_is_one_line_and_changes_nothing():
    from rummy51.envs.pettingzoo import carousel_env

    for e, words in ((env(players=2), "the deal is over"),
                     (carousel_env(players=2, round_only=True), "the round is over")):
        _random_deal(e, 3)
        assert e.agents == []
        before = e.state.observation(0).tobytes()
        for bad in (0, None, 10**6):
            with pytest.raises(ValueError, match=words) as info:
                e.step(bad)
            assert "\n" not in str(info.value) and "reset()" in str(info.value)
        assert e.state.observation(0).tobytes() == before
        e.reset(seed=4)         # and a reset starts another
        assert len(e.agents) == 2
