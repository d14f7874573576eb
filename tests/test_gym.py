"""The single-agent Gymnasium environments (rummy51.envs.gym): registered ids, Gymnasium's
own checker, seeded resets, rewards that add up to the game's score, masks, bad input.

Skipped when gymnasium is not installed (``pip install ".[agents]"`` from a clone).
"""
from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed "
                                "(pip install \".[agents]\" from a clone)")

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
    check_env(gymnasium.make(name).unwrapped)     # the defaults, every check
    env = gymnasium.make(name, players=3)
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
    env = gymnasium.make(name, players=3, illegal_action="raise")
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


@pytest.mark.parametrize("kw", [{"players": 2, "round_only": True},
                                {"players": 2, "round_only": True, "shaping": 0.1},
                                {"players": 3, "seat": 2, "opponents": ["random", "careful"]}])
def test_carousel_check_env_on_defaults_and_options(kw):
    check_env(CarouselGymEnv(**kw), skip_render_check=True)


@pytest.mark.parametrize("reward", ["round", "game"])
def test_carousel_round_only_is_one_round(reward):
    env = gymnasium.make("rummy51/Carousel-v0", players=2, round_only=True, reward=reward)
    _, rewards, info = _random_episode(env, 11, 3)
    g = env.unwrapped._state.game
    assert len(g.rounds) == 1 and info["rounds"] == 1
    res = g.rounds[0]
    assert info["scores"] == [float(x) for x in res.scores]
    assert sum(rewards) == rewards[-1] == res.scores[0]
    assert info["won"] == (0 in res.winners)


def _shaped_pair(name, kw, seed, c):
    plain = gymnasium.make(name, **kw)
    shaped = gymnasium.make(name, shaping=c, **kw)
    tp, rp, ip = _random_episode(plain, seed, seed + 1)
    shaped.reset(seed=seed)
    start = shaped.unwrapped._potential()
    ts, rs, is_ = _random_episode(shaped, seed, seed + 1)
    return tp, rp, ip, ts, rs, is_, start


@pytest.mark.parametrize("name,kw", [("rummy51/Rummy51-v0", {"players": 2}),
                                     ("rummy51/Rummy51-v0", {"players": 3, "deals": 2}),
                                     ("rummy51/Carousel-v0", {"players": 2, "round_only": True})])
@pytest.mark.parametrize("seed", [1, 2])
def test_shaping_adds_up_and_changes_nothing_else(name, kw, seed):
    c = 0.25
    tp, rp, ip, ts, rs, is_, start = _shaped_pair(name, kw, seed, c)
    assert tp == ts and ip == is_                  # the same play, the same result
    assert sum(rs) == pytest.approx(sum(rp) - c * start, abs=1e-6)
    assert start < 0 and any(r != p for r, p in zip(rs[:-1], rp[:-1], strict=True))


def test_shaping_potential_is_the_points_now():
    env = gymnasium.make("rummy51/Carousel-v0", players=2, round_only=True, shaping=1.0)
    env.reset(seed=4)
    u = env.unwrapped
    assert u._potential() == -u.rules.hand_points(u._state.game.hands[0])
    r = gymnasium.make("rummy51/Rummy51-v0", players=2, shaping=1.0)
    r.reset(seed=4)
    rules = r.unwrapped.rules
    from rummy51 import best_opening
    hand = r.unwrapped._state.game.hands[0]
    want = -rules.score_unopened + 0.5 * min(best_opening(hand, rules, keep=1).value, rules.threshold)
    assert r.unwrapped._potential() == want


def test_bad_new_options_are_one_line():
    for bad in (float("nan"), "1", True):
        with pytest.raises(ValueError, match="shaping must be a finite number"):
            Rummy51GymEnv(shaping=bad)
    with pytest.raises(TypeError, match="round_only must be True or False"):
        CarouselGymEnv(round_only="yes")


def test_rummy51_first_random_draws_the_starting_seat():
    env = gymnasium.make("rummy51/Rummy51-v0", players=2, first="random")
    starts = set()
    for seed in range(12):
        env.reset(seed=seed)
        starts.add(env.unwrapped._state.game.first)
    assert starts == {0, 1}
    a, b = (gymnasium.make("rummy51/Rummy51-v0", players=2, first="random") for _ in range(2))
    assert _random_episode(a, 3, 1) == _random_episode(b, 3, 1)
    with pytest.raises(ValueError, match="first must be a seat number or 'random'"):
        Rummy51GymEnv(first="last")


@pytest.mark.parametrize("game", ["rummy51", "carousel"])
def test_a_deal_over_before_the_agents_first_move_is_dealt_again(monkeypatch, game):
    """The first deal (round) made is played to its end before the agent moves (as when
    another player goes out at once): reset deals again and returns a live position."""
    import rummy51.envs.gym as gym_mod

    cls = gym_mod.AgentState if game == "rummy51" else gym_mod.CarouselAgentState
    made = []
    original = cls.new.__func__

    def new(klass, *args, **kw):
        s = original(klass, *args, **kw)
        if not made:  # the first one: finished at once
            rng = np.random.default_rng(0)
            while not s.is_terminal():
                s.apply_action(int(rng.choice(s.legal_actions())))
        made.append(s)
        return s

    env = (Rummy51GymEnv(players=2) if game == "rummy51"
           else CarouselGymEnv(players=2, round_only=True))
    monkeypatch.setattr(cls, "new", classmethod(new))
    obs, _ = env.reset(seed=1)
    assert len(made) >= 2 and made[0].is_terminal()
    assert obs["action_mask"].any() and not env._state.is_terminal()
