"""OpenSpiel's python_carousel (rummy51.envs.openspiel_carousel): OpenSpiel's own
random simulation test with serialisation, parameters, returns, resampling.

Skipped when pyspiel is not installed (``pip install ".[agents]" from a clone``).
"""
from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed "
                              "(pip install \".[agents]\" from a clone)")

import rummy51.envs.openspiel  # noqa: E402,F401  (registers python_rummy51 and python_carousel)
from rummy51.envs.openspiel_carousel import CarouselGame  # noqa: E402


def test_registered_with_parameters():
    game = pyspiel.load_game("python_carousel")
    assert game.num_players() == 4 and game.num_distinct_actions() == 57
    assert game.max_chance_outcomes() == 53
    two = pyspiel.load_game("python_carousel", {"players": 2})
    assert two.rules.decks == 1 and two.rules.jokers == 1  # CarouselRules.for_players(2)
    t = game.get_type()
    assert t.provides_information_state_tensor and t.provides_observation_tensor
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert two.information_state_tensor_size() > two.observation_tensor_size()


def test_bad_parameters_are_one_line_errors():
    for params, words in [({"jokrs": 2}, "unknown python_carousel parameter"),
                          ({"returns": "deal"}, "returns must be"),
                          ({"players": 1}, "players")]:
        with pytest.raises((ValueError, TypeError), match=words) as e:
            CarouselGame(params)
        assert "\n" not in str(e.value)


def test_random_sim_test_round():
    game = pyspiel.load_game("python_carousel", {"players": 3, "returns": "round"})
    pyspiel.random_sim_test(game, 3, serialize=True, verbose=False)


def test_random_sim_test_whole_game():
    game = pyspiel.load_game("python_carousel", {"players": 2, "max_rounds": 8})
    pyspiel.random_sim_test(game, 1, serialize=True, verbose=False)


def _play(state, rng, stop):
    while not state.is_terminal() and not stop(state):
        if state.is_chance_node():
            cards, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(cards, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_returns_are_scores_and_resampling_keeps_the_infostate():
    rng = np.random.default_rng(3)
    game = pyspiel.load_game("python_carousel", {"players": 3, "returns": "round"})
    state = _play(game.new_initial_state(), rng, lambda s: len(s.history()) > 120)
    p = state.current_player() if state.current_player() >= 0 else 0
    world = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert world.information_state_string(p) == state.information_state_string(p)
    assert world.information_state_tensor(p) == state.information_state_tensor(p)
    _play(state, rng, lambda s: False)
    g = state.agent.game
    assert state.returns() == [float(x) for x in g.rounds[0].scores]
    assert state.action_to_string(0, 0) in ("draw", "action 0")


def test_illegal_action_is_one_line_and_changes_nothing():
    rng = np.random.default_rng(0)
    game = pyspiel.load_game("python_carousel", {"players": 3, "returns": "round"})
    state = _play(game.new_initial_state(), rng, lambda s: not s.is_chance_node())
    before = str(state), state.information_state_string(state.current_player())
    illegal = next(a for a in range(57) if a not in state.legal_actions())
    with pytest.raises(Exception) as e:  # pyspiel passes the IllegalMove through
        state.apply_action(illegal)
    assert "not legal now" in str(e.value) and "\n" not in str(e.value)
    assert (str(state), state.information_state_string(state.current_player())) == before
    over = _play(game.new_initial_state(), rng, lambda s: False)
    with pytest.raises(Exception, match="the round is over"):  # an action after the end
        over.apply_action(0)
    with pytest.raises(Exception, match="chance outcome 60 is not a card"):
        game.new_initial_state().apply_action(60)


def test_every_rule_field_is_a_parameter():
    """docs/agents.md promises every CarouselRules field: OpenSpiel refuses a parameter
    its game type does not declare, so each must be there (None spelled -1)."""
    import dataclasses

    from rummy51.carousel import CarouselRules

    params = pyspiel.load_game("python_carousel").get_parameters()
    fields = {f.name for f in dataclasses.fields(CarouselRules)}
    assert fields <= set(params)
    game = pyspiel.load_game("python_carousel", {"max_jokers_per_meld": 1, "players": 3,
                                                 "returns": "round"})
    assert game.rules.max_jokers_per_meld == 1 and game.rules.players == 3
    assert pyspiel.load_game("python_carousel").rules.max_jokers_per_meld is None
    pyspiel.random_sim_test(game, 1, serialize=True, verbose=False)


def test_unknown_parameters_and_bad_ids_are_one_line():
    with pytest.raises(Exception) as e:
        pyspiel.load_game("python_carousel", {"max_joker_per_meld": 1})
    assert "max_joker_per_meld" in str(e.value)
    with pytest.raises(ValueError, match="unknown python_carousel parameter") as e:
        CarouselGame({"max_joker_per_meld": 1})
    assert "\n" not in str(e.value)
    rng = np.random.default_rng(1)
    game = pyspiel.load_game("python_carousel", {"players": 2, "returns": "round"})
    state = _play(game.new_initial_state(), rng, lambda s: not s.is_chance_node())
    before = str(state)
    for bad in (-1, 57, 10**6):
        with pytest.raises(ValueError) as e:
            state.apply_action(bad)
        assert str(bad) in str(e.value) and "\n" not in str(e.value)
    assert str(state) == before
