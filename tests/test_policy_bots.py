"""The trained-policy bots (``ppo``: rummy51.r51.policy, rummy51.carousel.policy): the
observation and legal ids they build from a PlayerView are the door's own, they play
legal games, the numpy forward pass is the trained network's, and a table they were
not trained for is a one-line error (API and CLI)."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from rummy51 import RuleSet
from rummy51.carousel import CarouselRules
from rummy51.carousel.agent import CarouselAgentState
from rummy51.carousel.bots import BOTS as CBOTS
from rummy51.carousel.bots import GreedyBot as CGreedy
from rummy51.carousel.bots import play_game
from rummy51.carousel.codec import MaskOracle
from rummy51.carousel.policy import PolicyBot as CPolicyBot
from rummy51.carousel.policy import legal_ids
from rummy51.carousel.policy import view_observation as c_view_observation
from rummy51.common.policy_net import PolicyNet
from rummy51.r51.agent import AgentState
from rummy51.r51.bots import BOTS, GreedyBot, play_deal
from rummy51.r51.policy import DEFAULT_WEIGHTS, PolicyBot, view_observation


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("seed", [0, 1])
def test_rummy51_view_observation_is_the_doors(players, seed):
    s = AgentState.new(RuleSet(), players, seed=seed)
    rng = np.random.default_rng(seed)
    staged_seen = 0
    while not s.is_terminal():
        p = s.current_player()
        v = s.view(p)
        assert np.array_equal(view_observation(v, list(s.staged), s.may_cancel), s.observation(p))
        assert s.codec.legal_actions(v, s.staged, s.may_cancel) == s.legal_actions()
        staged_seen += bool(s.staged)
        s.apply_action(int(rng.choice(s.legal_actions())))


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_carousel_view_observation_is_the_doors(players, seed):
    s = CarouselAgentState.new(CarouselRules.for_players(players), seed=seed, round_only=True)
    rng = np.random.default_rng(seed)
    while not s.is_terminal():
        g = s.game
        v = g.view(g.current)
        assert np.array_equal(c_view_observation(v, s.chosen), s.observation(g.current))
        assert legal_ids(v, MaskOracle(v.table, v.hand, v.rules), s.chosen) == s.legal_actions()
        s.apply_action(int(rng.choice(s.legal_actions())))


def test_bots_are_registered_and_play_legal_games():
    assert BOTS["ppo"] is PolicyBot and CBOTS["ppo"] is CPolicyBot
    for seed in (1, 2):
        st = play_deal([PolicyBot(), GreedyBot()], seed=seed, first=seed % 2)
        assert st.over
    st = play_game([CPolicyBot(), CGreedy()], CarouselRules.for_players(2), seed=3)
    assert st.over


def test_the_shipped_network_fits_its_door_and_says_how_it_was_made():
    net = PolicyNet(DEFAULT_WEIGHTS)
    assert net.meta["players"] == 2 and "bench/train_ppo.py" in net.meta["command"]
    v = PolicyNet(DEFAULT_WEIGHTS, prefix="v")
    assert v.outputs == 1 and v.inputs == net.inputs


def test_other_tables_are_one_line_errors(tmp_path):
    with pytest.raises(ValueError, match="trained for 2-player rummy51") as e:
        play_deal([PolicyBot(), GreedyBot(), GreedyBot()], seed=1)
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="trained for 2-player carousel"):
        play_game([CPolicyBot(), CGreedy(), CGreedy()], CarouselRules.for_players(3), seed=1)
    bad = tmp_path / "x.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a policy file") as e:
        PolicyBot(weights=bad)
    assert "\n" not in str(e.value)
    for argv in (["simulate", "games", "--bots", "ppo,greedy,greedy", "--games", "2"],
                 ["carousel", "simulate", "--bots", "ppo,greedy,greedy", "--games", "2"]):
        r = subprocess.run([sys.executable, "-m", "rummy51", *argv], capture_output=True, text=True)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "2-player" in r.stderr


def test_numpy_forward_pass_is_the_trained_network(tmp_path):
    """A freshly built MaskablePPO exported by bench/train_ppo.py: the numpy logits and
    values are torch's (float16 weights: within 1e-2)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    sys.path.insert(0, "bench")
    try:
        import train_ppo
    finally:
        sys.path.remove("bench")
    from sb3_contrib import MaskablePPO

    env = train_ppo.make_env("carousel", 2, seed=0)
    model = MaskablePPO("MultiInputPolicy", env, policy_kwargs={"net_arch": {"pi": [16], "vf": [16]}},
                        n_steps=64, seed=0, device="cpu")
    path = tmp_path / "p.npz"
    train_ppo.export(model, path, "carousel", 2, "test", {}, 0.5)
    pi, vf = PolicyNet(path), PolicyNet(path, prefix="v")
    assert json.loads(json.dumps(pi.meta))["reward_scale"] == 0.5
    obs, _ = env.reset(seed=4)
    for _ in range(20):
        t = {k: torch.as_tensor(v[None], dtype=torch.float32) for k, v in obs.items()}
        with torch.no_grad():
            f = model.policy.extract_features(t)
            logits = model.policy.action_net(model.policy.mlp_extractor.forward_actor(f))[0].numpy()
            value = model.policy.value_net(model.policy.mlp_extractor.forward_critic(f))[0].numpy()
        assert np.allclose(pi.logits(obs["action_mask"], obs["observation"]), logits, atol=1e-2)
        assert np.allclose(vf.logits(obs["action_mask"], obs["observation"]), value, atol=1e-2)
        obs, _, term, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if term:
            obs, _ = env.reset()
