"""Rummy 51's information-state tensor (rummy51.r51.infostate).

* it is a function of what the player saw: a state resampled from the player's
  information state (other hands and the stock dealt again) has the same tensor, and
  the same holds against a slow recount of the history written here;
* it shows what the player saw: the dealt hand, their own stock draws, the cards each
  seat took, discarded and laid; it hides other players' stock draws;
* its shape is fixed per rules and players, the observation tensor is its head;
* OpenSpiel's ``rl_environment`` with its tabular Q-learner (which reads
  ``information_state_tensor``) plays a few episodes of a small-rules game.
"""
from __future__ import annotations

import numpy as np
import pytest

from agents_helpers import chance_step, kind_random
from rummy51 import RuleSet
from rummy51.r51.actions import STOCK, DiscardRecord, DrawRecord, LayDownRecord, LayOffRecord, SwapRecord
from rummy51.r51.agent import AgentState
from rummy51.r51.codec import DRAW_STOCK
from rummy51.r51.infostate import infostate_layout_for
from rummy51.r51.observation import layout_for

DEFAULT = RuleSet()
SMALL = RuleSet(hand_size=5, max_turns=12, jokers=2, threshold=20)


def _block(counts, decks: int, jokers: int) -> np.ndarray:
    """A card-count block written out slowly: copy planes of naturals, then jokers."""
    out = []
    for k in range(decks):
        out += [1.0 if counts[c] > k else 0.0 for c in range(52)]
    out += [1.0 if counts[52] > k else 0.0 for k in range(jokers)]
    return np.array(out, np.float32)


def _slow_history(state: AgentState, p: int) -> np.ndarray:
    """The history part of the tensor, recounted record by record (the reference)."""
    g, n, r = state.game, state.n_players, state.rules
    per = {k: [[0] * 53 for _ in range(n)] for k in ("took", "discarded", "laid")}
    own = [0] * 53
    draws = [0] * n
    for rec in g.history:
        if isinstance(rec, DrawRecord):
            if rec.action.source == STOCK:
                draws[rec.player] += 1
                if rec.player == p:
                    own[rec.card] += 1
            else:
                per["took"][rec.player][rec.card] += 1
        elif isinstance(rec, DiscardRecord):
            per["discarded"][rec.player][rec.action.card] += 1
        elif isinstance(rec, (LayOffRecord, SwapRecord)):
            per["laid"][rec.player][rec.action.card] += 1
        elif isinstance(rec, LayDownRecord):
            for m in rec.action.melds:
                for c in m:
                    per["laid"][rec.player][c] += 1
    k = (p - state.first) % n
    start = 0 if k == 0 else r.hand_size + 1 + (k - 1) * r.hand_size
    deck = g.history[0].cards
    dealt = [0] * 53
    for c in deck[start:start + r.hand_size + (1 if k == 0 else 0)]:
        dealt[c] += 1
    bottom = np.zeros(53, np.float32)
    if r.bottom_card:
        bottom[deck[-1]] = 1.0
    parts = [_block(dealt, r.decks, r.jokers), bottom, _block(own, r.decks, r.jokers)]
    for key in ("took", "discarded", "laid"):
        for j in range(n):
            parts.append(_block(per[key][(p + j) % n], r.decks, r.jokers))
    parts.append(np.array([min(1.0, draws[(p + j) % n] / r.max_turns) for j in range(n)],
                          np.float32))
    return np.concatenate(parts)


@pytest.mark.parametrize("rules,players,seed", [(DEFAULT, 4, 3), (DEFAULT, 2, 11),
                                                (SMALL, 3, 5)])
def test_tensor_matches_slow_recount_and_resampling(rules, players, seed):
    rng = np.random.default_rng(seed)
    s = AgentState.new(rules, players=players, seed=seed)
    lay = infostate_layout_for(rules, players)
    obs_size = layout_for(rules, players).size
    checked = 0
    for step in range(400):
        if s.is_terminal():
            break
        if step % 7 == 0:
            for p in range(players):
                t = s.information_state_tensor(p)
                assert t.dtype == np.float32 and t.shape == (lay.size,)
                assert 0.0 <= t.min() and t.max() <= 1.0
                np.testing.assert_array_equal(t[:obs_size], s.observation(p))
                np.testing.assert_array_equal(t[obs_size:], _slow_history(s, p))
                other = s.resample_from_infostate(p, np.random.default_rng(step))
                np.testing.assert_array_equal(other.information_state_tensor(p), t)
                checked += 1
        s.apply_action(kind_random(s, rng))
    assert checked > 10


def test_tensor_shows_own_stock_draws_and_hides_others():
    s = AgentState.new(DEFAULT, players=2, seed=4)
    lay = infostate_layout_for(DEFAULT, 2)
    o = lay.offsets["own_stock"]
    rng = np.random.default_rng(0)
    while DRAW_STOCK not in s.legal_actions():  # the first player only discards
        s.apply_action(kind_random(s, rng))
    p = s.current_player()
    before = [s.information_state_tensor(q) for q in range(2)]
    s.apply_action(DRAW_STOCK)
    card = s.game.turn_info.drawn
    after = [s.information_state_tensor(q) for q in range(2)]
    assert after[p][o + card] == 1.0 and before[p][o:o + 108].sum() == 0
    assert after[1 - p][o:o + 108].sum() == 0  # the other player's stock draws stay hidden
    d = lay.offsets["draws"]
    assert after[p][d] > 0 and after[1 - p][d + 1] > 0  # the draw count is public


def test_shape_fixed_and_chance_mode_deal():
    lay = infostate_layout_for(DEFAULT, 4)
    sizes = dict(lay.pieces)
    assert sizes["dealt"] == 108 and sizes["took"] == 4 * 108 and sizes["draws"] == 4
    assert lay.size == layout_for(DEFAULT, 4).size + sum(
        sizes[k] for k in ("dealt", "bottom_dealt", "own_stock", "took", "discarded", "laid",
                           "draws"))
    c = AgentState.new(SMALL, players=2, chance=True)
    rng = np.random.default_rng(0)
    for _ in range(3):
        c.apply_action(chance_step(c, rng))
    t = c.information_state_tensor(0)
    dealt = infostate_layout_for(SMALL, 2).offsets["dealt"]
    assert t[dealt:dealt + SMALL.deck_size].sum() == 3  # the first three cards go to seat 0
    assert c.information_state_tensor(1)[dealt:dealt + SMALL.deck_size].sum() == 0
    with pytest.raises(ValueError, match="seat"):
        c.information_state_tensor(2)


def test_openspiel_info_state_tensor_and_qlearner():
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed "
                                  "(pip install \".[agents]\" from a clone)")
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import tabular_qlearner

    import rummy51.envs.openspiel  # noqa: F401  (registers python_rummy51)

    params = {"players": 2, "hand_size": 5, "max_turns": 12, "jokers": 2, "threshold": 20}
    game = pyspiel.load_game("python_rummy51", params)
    assert game.get_type().provides_information_state_tensor
    state = game.new_initial_state()
    rng = np.random.default_rng(2)
    while state.is_chance_node():
        state.apply_action(chance_step(state.agent, rng))
    t = state.information_state_tensor(0)
    assert len(t) == game.information_state_tensor_size()
    np.testing.assert_array_equal(np.asarray(t, np.float32),
                                  state.agent.information_state_tensor(0))
    env = rl_environment.Environment(game, seed=1)
    agents = [tabular_qlearner.QLearner(player_id=p, num_actions=game.num_distinct_actions())
              for p in range(2)]
    ended = 0
    for _ in range(3):
        ts = env.reset()
        assert len(ts.observations["info_state"][0]) == game.information_state_tensor_size()
        while not ts.last():
            p = ts.observations["current_player"]
            ts = env.step([agents[p].step(ts).action])
        for a in agents:
            a.step(ts)
        ended += 1
        assert len(ts.rewards) == 2
    assert ended == 3 and any(len(a._q_values) > 10 for a in agents)
