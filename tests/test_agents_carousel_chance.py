"""Carousel with chance nodes (rummy51.carousel.chance) and the fast game copy.

* ``GameState.copy()`` (fast) equals a deepcopy and is independent of the original;
* chance-mode games: the outcomes are the cards left, weighted by their copies; every
  round's deal and draw keeps the engine's invariants; the hands dealt are the chance
  outcomes in dealing order;
* what a player knows: a state resampled from their information state has the same
  information-state string and tensor and observation, and plays on legally.
"""
from __future__ import annotations

import copy
from collections import Counter

import numpy as np
import pytest

from rummy51.carousel import CarouselRules
from rummy51.carousel.agent import CarouselAgentState
from rummy51.carousel.chance import CHANCE, CarouselChanceState, carousel_info_layout_for

R2 = CarouselRules.for_players(2)
R3 = CarouselRules.for_players(3)


def _step(s, rng):
    if s.is_chance_node():
        cards, probs = zip(*s.chance_outcomes(), strict=True)
        assert abs(sum(probs) - 1.0) < 1e-9
        s.apply_action(int(rng.choice(cards, p=probs)))
    else:
        s.apply_action(int(rng.choice(s.legal_actions())))


def test_copy_equals_deepcopy_and_is_independent():
    rng = np.random.default_rng(0)
    s = CarouselAgentState.new(R3, seed=3)
    for i in range(400):
        if s.is_terminal():
            break
        if i % 40 == 0:
            a, b = s.game.copy(), copy.deepcopy(s.game)
            assert a.to_dict() == b.to_dict() and a.hands == b.hands and a.stock == b.stock
            assert a.table == b.table and a.phase == b.phase and a.turn_info == b.turn_info
            before = s.game.to_dict(), [h[:] for h in s.game.hands], s.game.stock
            t = s.copy()
            for _ in range(30):
                if t.is_terminal():
                    break
                _step(t, rng)
            assert (s.game.to_dict(), s.game.hands, s.game.stock) == before
        _step(s, rng)


@pytest.mark.parametrize("rules,seed", [(R2, 1), (R3, 2)])
def test_chance_games_keep_the_invariants(rules, seed):
    rng = np.random.default_rng(seed)
    s = CarouselChanceState.new_chance(rules, dealer=seed % rules.players)
    assert s.current_player() == CHANCE and len(s.chance_outcomes()) == 53
    dealt: list = []
    rounds = 0
    for _ in range(5000):
        if s.is_terminal():
            break
        if s._dealing is not None:
            cards, probs = zip(*s.chance_outcomes(), strict=True)
            left = Counter(rules.deck()) - Counter(s._dealing)
            assert dict(zip(cards, probs, strict=True)) == pytest.approx(
                {c: k / sum(left.values()) for c, k in left.items()})
            c = int(rng.choice(cards, p=probs))
            dealt.append(c)
            s.apply_action(c)
            if s._dealing is None:  # the deal is complete: the hands are the outcomes
                g = s.game
                h = rules.hand_size
                for i in range(g.n_players):
                    assert g.hands[(g.dealer + 1 + i) % g.n_players] == sorted(dealt[i * h:(i + 1) * h])
                g.check()
                dealt = []
                rounds += 1
            continue
        _step(s, rng)
        if not s.is_chance_node() and not s.is_terminal():
            s.game.check()
    assert rounds >= 1


def test_resampled_states_look_the_same_to_the_player():
    rng = np.random.default_rng(4)
    s = CarouselChanceState.new_chance(R3, dealer=0, round_only=True)
    lay = carousel_info_layout_for(R3)
    checked = 0
    for i in range(2000):
        if s.is_terminal():
            break
        if i % 9 == 0:
            for p in range(3):
                w = s.resample_from_infostate(p, np.random.default_rng(i))
                assert w.information_state_string(p) == s.information_state_string(p)
                t = s.information_state_tensor(p)
                assert t.shape == (lay.size,) and 0.0 <= t.min() and t.max() <= 1.0
                np.testing.assert_array_equal(w.information_state_tensor(p), t)
                np.testing.assert_array_equal(w.observation(p), s.observation(p))
                assert w.legal_actions() == s.legal_actions() or w.current_player() != p
                for _ in range(5):  # the world plays on
                    if w.is_terminal():
                        break
                    _step(w, rng)
                checked += 1
        _step(s, rng)
    assert checked > 20
    with pytest.raises(ValueError, match="seat"):
        s.information_state_string(3)
