"""The single-agent Gymnasium environments (rummy51.envs.gym): registered ids, Gymnasium's
own checker, seeded resets, rewards that add up to the game's score, masks, bad input.

Skipped when gymnasium is not installed (``pip install "rummy51[agents]"``).
"""
from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed "
                                "(pip install \"rummy51[agents]\")")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import rummy51.envs  # noqa: E402,F401  (registers the ids)
from rummy51 import IllegalMove  # noqa: E402  (the base of both games')
from rummy51.carousel.codec import NUM_ACTIONS  # noqa: E402
from rummy51.envs.gym import CarouselGymEnv, Rummy51GymEnv  # noqa: E402

IDS = ["rummy51/Rummy51-v0", "rummy51/Carousel-v0"]


def _random_episode(env, seed, policy_seed, max_steps=5000):
    rng = np.random.default_rng(policy_seed)
    obs, _ = env.reset(seed=seed)
    trace, rewards = [], []
    for _ in range(max_steps):
        legal = np.flatnonzero(obs["action_mask"])
        assert np.array_equal(env.unwrapped.action_masks(), obs["action_mask"].astype(bool))
        a = int(rng.choice(legal))
        obs, r, term, trunc, info = env.step(a)
        trace.append((a, obs["observation"].tobytes()))
        rewards.append(r)
        if term or trunc:
            return trace, rewards, info
    raise AssertionError("the episode did not end")


@pytest.mark.parametrize("name", IDS)
def test_registered_and_check_env(name):
    env = gymnasium.make(name, players=3, illegal_action="terminate")
    check_env(env.unwrapped, skip_render_check=True)
    assert isinstance(env.unwrapped, (Rummy51GymEnv, CarouselGymEnv))
    space = env.observation_space
    assert space["observation"].dtype == np.float32 and space["action_mask"].dtype == np.int8


@pytest.mark.parametrize("name", IDS)
def test_seeded_reset_reproduces_the_episode(name):
    a = gymnasium.make(name, players=3, opponents="random")
    b = gymnasium.make(name, players=3, opponents="random")
    ta, ra, ia = _random_episode(a, 7, 1)
    tb, rb, ib = _random_episode(b, 7, 1)
    assert ta == tb and ra == rb and ia == ib
    o1, _ = a.reset(seed=8)
    o2, _ = a.reset(seed=9)
    assert not np.array_equal(o1["observation"], o2["observation"])  # another deal


def test_sample_draws_legal_ids():
    env = gymnasium.make("rummy51/Carousel-v0", players=3)
    env.reset(seed=3)
    for _ in range(50):
        a = env.action_space.sample()
        assert env.unwrapped.action_masks()[a]
        _, _, term, _, _ = env.step(a)
        if term:
            break


def test_carousel_rewards_add_up_to_the_final_score():
    by_round = gymnasium.make("rummy51/Carousel-v0", players=3, reward="round")
    by_game = gymnasium.make("rummy51/Carousel-v0", players=3, reward="game")
    _, rr, info_r = _random_episode(by_round, 4, 2)
    _, rg, info_g = _random_episode(by_game, 4, 2)
    assert info_r == info_g and info_r["rounds"] >= 1
    assert sum(rr) == sum(rg) == rg[-1] == info_r["scores"][0]
    assert sum(1 for r in rr if r != 0) >= 1 and all(r == 0 for r in rg[:-1])


def test_rummy51_reward_is_minus_the_points():
    env = gymnasium.make("rummy51/Rummy51-v0", players=2, deals=2, reward="deal")
    _, rewards, info = _random_episode(env, 5, 0)
    assert info["deals"] in (1, 2) and sum(r != 0 for r in rewards) <= 2
    game = gymnasium.make("rummy51/Rummy51-v0", players=2, deals=2, reward="game")
    _, rg, info_g = _random_episode(game, 5, 0)
    assert sum(rg) == sum(rewards) and info_g == info


def _snapshot(env):
    s = env.unwrapped._state
    return (s.observation(env.unwrapped.seat).tobytes(), tuple(s.legal_actions()), str(s))


@pytest.mark.parametrize("name", IDS)
def test_bad_input_is_one_line_and_changes_nothing(name):
    env = gymnasium.make(name, players=3)
    with pytest.raises(ValueError, match="reset"):
        env.unwrapped.step(0)
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = _snapshot(env)
    for bad, exc, words in [(illegal, IllegalMove, "not legal now"),
                            (10**6, ValueError, "1000000"),
                            (1.0, TypeError, "integer"), (True, TypeError, "integer"),
                            (np.array([0.0]), TypeError, "dtype float64"),
                            (np.array([0, 1]), TypeError, "shape")]:
        with pytest.raises(exc, match=words) as e:
            env.unwrapped.step(bad)
        assert "\n" not in str(e.value)
        assert _snapshot(env) == before
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    env.unwrapped.step(np.array(legal, np.int64))  # a 0-d integer array is an id


def test_bad_options_are_one_line():
    with pytest.raises(ValueError, match="unknown bot"):
        CarouselGymEnv(opponents="gready")
    with pytest.raises(ValueError, match="seat must be"):
        Rummy51GymEnv(players=2, seat=2)
    with pytest.raises(ValueError, match="reward must be"):
        CarouselGymEnv(reward="deal")
    with pytest.raises(ValueError, match="2 bot names"):
        Rummy51GymEnv(players=3, opponents=["greedy"])
    assert CarouselGymEnv(players=2).action_space.n == NUM_ACTIONS


def test_illegal_action_terminate_and_after_the_end():
    env = gymnasium.make("rummy51/Carousel-v0", players=3, illegal_action="terminate",
                         illegal_reward=-5.0)
    obs, _ = env.reset(seed=2)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, r, term, trunc, info = env.step(illegal)
    assert term and r == -5.0 and info == {"illegal_action": illegal}
    assert obs["action_mask"].sum() == 0
    with pytest.raises(ValueError, match="episode is over"):
        env.step(0)
