"""The OpenSpiel door (rummy51.envs.openspiel): OpenSpiel's own checks and bots.

Skipped when pyspiel is not installed (``pip install ".[agents]" from a clone``).
"""
from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel",
                              reason="OpenSpiel is not installed (pip install \".[agents]\" from a clone)")

import rummy51.envs.openspiel as ros  # noqa: E402  (registers python_rummy51)
from rummy51.r51.bots import GreedyBot  # noqa: E402


def test_registered_with_rule_parameters():
    game = pyspiel.load_game("python_rummy51")
    assert game.num_players() == 4 and game.num_distinct_actions() == 3125
    assert game.max_chance_outcomes() == 53
    params = game.get_parameters()
    assert params["threshold"] == 51 and params["jokers"] == 4 and "match_deals" not in params
    small = pyspiel.load_game("python_rummy51", {"players": 2, "jokers": 2, "threshold": 40})
    assert small.num_players() == 2 and small.rules.threshold == 40 and small.rules.jokers == 2
    assert small.observation_tensor_size() < game.observation_tensor_size()
    t = game.get_type()
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION


def test_bad_parameters_are_one_line_errors():
    with pytest.raises(ValueError, match="unknown python_rummy51 parameter"):
        ros.Rummy51Game({"jokrs": 2})
    with pytest.raises(ValueError, match="players must be"):
        ros.Rummy51Game({"players": 1})
    with pytest.raises((TypeError, ValueError), match="threshold"):
        ros.Rummy51Game({"threshold": -5})


def test_random_sim_test():
    game = pyspiel.load_game("python_rummy51")
    pyspiel.random_sim_test(game, 20, serialize=True, verbose=False)


def test_random_sim_test_other_rules():
    game = pyspiel.load_game("python_rummy51", {"players": 3, "max_jokers_per_meld": 2,
                                                "discard_card_must_meld": True})
    pyspiel.random_sim_test(game, 2, serialize=True, verbose=False)


def test_state_api_and_strings():
    game = pyspiel.load_game("python_rummy51", {"players": 2})
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    assert state.current_player() == 0
    legal = state.legal_actions()
    assert legal == sorted(legal) and state.legal_actions(1) == []
    texts = [state.action_to_string(0, a) for a in legal]
    assert len(set(texts)) == len(texts) and any(t.startswith("discard") for t in texts)
    assert "hand " in state.information_state_string(0)
    assert len(state.observation_tensor(1)) == game.observation_tensor_size()
    # the engine refuses it (IllegalMove, a ValueError); a pyspiel that checks legality
    # before calling the game would raise its SpielError
    with pytest.raises((ValueError, pyspiel.SpielError), match="not legal"):
        state.apply_action(game.num_distinct_actions() - 1)


def test_resample_from_infostate_keeps_the_information_state():
    game = pyspiel.load_game("python_rummy51", {"players": 3})
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    for k in range(400):
        if k > 140 and state.current_player() >= 0:
            break
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    p = state.current_player()
    r = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert r.information_state_string(p) == state.information_state_string(p)
    assert r.legal_actions() == state.legal_actions()
    r.agent.game.check()


def _play(game, bots, seed, moves=None):
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal() and (moves is None or len(state.history()) < moves):
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(bots[state.current_player()].step(state)))
    return state


def test_mcts_and_ismcts_play_against_greedy():
    from open_spiel.python.algorithms.ismcts import ISMCTSBot
    from open_spiel.python.algorithms.mcts import MCTSBot

    game = pyspiel.load_game("python_rummy51", {"players": 2})
    ev = ros.PointsEvaluator()
    ismcts = ISMCTSBot(game, ev, uct_c=30.0, max_simulations=10,
                       random_state=np.random.RandomState(1), allow_inconsistent_action_sets=True)
    mcts = MCTSBot(game, uct_c=30.0, max_simulations=10, evaluator=ev, solve=False,
                   random_state=np.random.RandomState(2))
    ismcts.set_resampler(ros.resampler(7))
    for searcher in (ismcts, mcts):
        state = _play(game, [searcher, ros.EngineBot(GreedyBot(), 1)], seed=3)
        assert state.is_terminal() and len(state.returns()) == 2
        state.agent.game.check()


def test_ismcts_with_a_seeded_resampler_replays():
    from open_spiel.python.algorithms.ismcts import ISMCTSBot

    game = pyspiel.load_game("python_rummy51", {"players": 2})
    ends = []
    for _ in range(2):
        bot = ISMCTSBot(game, ros.PointsEvaluator(), uct_c=30.0, max_simulations=8,
                        random_state=np.random.RandomState(1),
                        allow_inconsistent_action_sets=True)
        bot.set_resampler(ros.resampler(3))
        state = _play(game, [bot, ros.EngineBot(GreedyBot(), 1)], seed=4, moves=120)
        ends.append((str(state), state.returns()))
    assert ends[0] == ends[1]


def test_engine_bot_plays_a_whole_opening():
    game = pyspiel.load_game("python_rummy51", {"players": 2})
    bots = [ros.EngineBot(GreedyBot(), 0), ros.EngineBot(GreedyBot(), 1)]
    state = _play(game, bots, seed=5)
    assert any(state.agent.game.opened)


def test_every_rule_field_is_a_parameter_and_bad_ids_are_one_line():
    import dataclasses

    from rummy51 import RuleSet

    params = pyspiel.load_game("python_rummy51").get_parameters()
    match = {"match_deals", "match_points", "match_elimination"}   # a game is one deal
    assert {f.name for f in dataclasses.fields(RuleSet)} - match <= set(params)
    game = pyspiel.load_game("python_rummy51", {"players": 2})
    state = game.new_initial_state()
    rng = np.random.default_rng(2)
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    before = str(state)
    for bad in (-1, game.num_distinct_actions(), 10**6):
        with pytest.raises(ValueError) as e:
            state.apply_action(bad)
        assert str(bad) in str(e.value) and "\n" not in str(e.value)
    assert str(state) == before
