"""AgentState: observations, information states, resampling and clones (rummy51.r51.agent).

* the observation tensor: its layout, its values in [0, 1], what it shows (own hand,
  known cards of others) and what it hides (others' hands, another's stock draw);
* the information state string: two states a player cannot tell apart have the same
  string, and it changes with everything the player sees;
* ``resample_from_infostate``: the player's view, observation and string are unchanged,
  every invariant holds, and the resampled hand history replays (``from_json``);
* ``copy()``: independent of the original, equal to it, far faster than deepcopy.
"""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from agents_helpers import chance_step, kind_random
from rummy51 import RuleSet
from rummy51.r51.agent import AgentState, max_game_length, utility_bounds
from rummy51.r51.engine import GameState, stacked_deck
from rummy51.r51.observation import known_cards, layout_for

DEFAULT = RuleSet()


def _play(s: AgentState, rng, moves: int):
    for _ in range(moves):
        if s.is_terminal():
            break
        s.apply_action(chance_step(s, rng) if s.is_chance_node() else kind_random(s, rng))
    return s


# --------------------------------------------------------------------------- observation
def test_layout_sizes():
    lay = layout_for(DEFAULT, 4)
    sizes = dict(lay.pieces)
    assert sizes["hand"] == 108 and sizes["known"] == 3 * 108
    assert sizes["table"] == 36 * (54 + 4)
    assert lay.size == sum(sizes.values()) == 2926
    assert layout_for(RuleSet.gin(), 2).size < lay.size


def test_observation_values_and_hidden_cards():
    rng = np.random.default_rng(0)
    s = AgentState.new(DEFAULT, players=4, seed=9)
    lay = layout_for(DEFAULT, 4)
    for _ in range(120):
        if s.is_terminal():
            break
        for p in range(4):
            o = s.observation(p)
            assert o.dtype == np.float32 and o.shape == (lay.size,)
            assert 0.0 <= o.min() and o.max() <= 1.0
            hand = o[:108]
            # the hand block counts the hand: copy planes of naturals, then jokers
            assert hand.sum() == len(s.game.hands[p])
        s.apply_action(kind_random(s, rng))


def test_observation_shows_known_cards_and_hides_stock_draws():
    # player 1 takes 9C from the discard pile (free in the first round): known to all
    hands = ["2S 4S 6S 8S 10S QS 2H 4H 6H 8H 10H QH 2D 4D 9C", "3C 5C 7C JC KC 3D 5D 7D JD KD 3H 5H 7H JH"]
    deck = stacked_deck(DEFAULT, hands, stock=["AS"], players=2)
    s = AgentState.new(DEFAULT, players=2, deck=deck)
    nine = 3 * 13 + 8  # 9C
    s.apply_action(3 + nine)  # player 0 discards 9C
    s.apply_action(1)  # player 1 takes it from the discard pile (free in the first round)
    top = nine
    assert known_cards(s)[1][top] == 1 and sum(known_cards(s)[0]) == 0
    lay = layout_for(DEFAULT, 2)
    o = s.observation(0)
    known = o[lay.offsets["known"]: lay.offsets["known"] + 108]
    assert known[top] == 1.0 and known.sum() == 1
    # a stock draw is seen by the drawer only
    s2 = AgentState.new(DEFAULT, players=2, deck=deck)
    s2.apply_action(3 + s2.game.hands[0][0])
    s2.apply_action(0)
    turn = lay.offsets["turn"]
    drawn = s2.game.turn_info.drawn
    assert s2.observation(1)[turn + 6 + drawn] == 1.0
    assert s2.observation(0)[turn + 6: turn + 59].sum() == 0.0
    assert "drew a card from the stock" in s2.observation_string(0)


def test_bad_players_are_refused():
    s = AgentState.new(DEFAULT, players=2, seed=1)
    for bad, err in [(2, ValueError), (-1, ValueError), ("0", TypeError), (True, TypeError)]:
        with pytest.raises(err):
            s.observation(bad)
        with pytest.raises(err):
            s.information_state_string(bad)
    assert s.observation(np.int64(1)).shape == (layout_for(DEFAULT, 2).size,)


# --------------------------------------------------------------------------- strings
def test_information_state_grows_with_what_the_player_sees():
    rng = np.random.default_rng(2)
    s = AgentState.new(DEFAULT, players=3, seed=5)
    seen = [s.information_state_string(p) for p in range(3)]
    assert all("hand " in x for x in seen) and len(set(seen)) == 3
    for _ in range(60):
        if s.is_terminal():
            break
        s.apply_action(kind_random(s, rng))
        now = [s.information_state_string(p) for p in range(3)]
        for a, b in zip(seen, now, strict=True):
            assert b.startswith(a)  # perfect recall: nothing is forgotten
        seen = now
    # the cache gives what a fresh computation gives
    fresh = s.copy()
    fresh._cache = {}
    assert [fresh.information_state_string(p) for p in range(3)] == seen


def test_information_state_hides_others_stock_draws():
    deck = stacked_deck(DEFAULT, [], stock=["KS", "QS"], players=2)
    s = AgentState.new(DEFAULT, players=2, deck=deck)
    s.apply_action(3 + s.game.hands[0][0])
    s.apply_action(0)  # player 1 draws KS from the stock
    assert s.information_state_string(1).endswith("draw stock KS")
    assert s.information_state_string(0).endswith("draw stock")


# --------------------------------------------------------------------------- resampling
def _check_resample(s: AgentState, p: int, rng) -> AgentState:
    r = s.resample_from_infostate(p, rng)
    g, rg = s.game, r.game
    rg.check()
    assert r.information_state_string(p) == s.information_state_string(p)
    assert np.array_equal(r.observation(p), s.observation(p))
    assert r.observation_string(p) == s.observation_string(p)
    assert rg.hands[p] == g.hands[p] and rg.table == g.table
    assert [len(h) for h in rg.hands] == [len(h) for h in g.hands]
    if s.current_player() == p:
        assert r.legal_actions() == s.legal_actions()
    for q in range(s.n_players):  # known cards stay in their hands
        for c, k in enumerate(known_cards(s)[q]):
            assert rg.hands[q].count(c) >= k
    again = GameState.from_json(rg.to_json())
    assert again.hands == rg.hands and list(again.stock) == list(rg.stock)
    assert again.history == rg.history
    return r


@pytest.mark.parametrize("chance", [False, True], ids=["shuffled", "chance-mode"])
def test_resample_is_consistent(chance):
    checked = 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        s = AgentState.new(DEFAULT, players=4, seed=None if chance else seed, chance=chance)
        k = 0
        while not s.is_terminal():
            s.apply_action(chance_step(s, rng) if s.is_chance_node() else kind_random(s, rng))
            k += 1
            if s.game is not None and k % 9 == 0:
                for p in range(4):
                    _check_resample(s, p, rng)
                    checked += 1
    assert checked > 30


def test_resample_hides_the_real_deal():
    rng = np.random.default_rng(0)
    s = _play(AgentState.new(DEFAULT, players=4, seed=12), rng, 40)
    r = s.resample_from_infostate(0, 1)
    assert r.game.seed is None and s.game.seed == 12
    assert any(r.game.hands[q] != s.game.hands[q] for q in (1, 2, 3))
    # the same generator state gives the same resample
    assert str(s.resample_from_infostate(0, 7)) == str(s.resample_from_infostate(0, 7))


def test_resample_during_a_chance_mode_deal():
    s = AgentState.new(DEFAULT, players=2, chance=True)
    rng = np.random.default_rng(0)
    for _ in range(20):
        s.apply_action(chance_step(s, rng))
    r = s.resample_from_infostate(0, 3)
    assert r.information_state_string(0) == s.information_state_string(0)
    assert sum(r._remaining) == sum(s._remaining)


def test_resample_keeps_what_the_turn_needs():
    """The player on turn took the discard to open (after the first round): in every
    resample their hand can still open with it."""
    from rummy51 import solver
    rng = np.random.default_rng(4)
    found = 0
    for seed in range(40):
        s = AgentState.new(RuleSet(free_discard_rounds=0), players=3, seed=seed)
        for _ in range(200):
            if s.is_terminal():
                break
            g = s.game
            if g.turn_info.must_open and not g.opened[g.current]:
                for p in range(3):
                    if p != g.current:
                        r = _check_resample(s, p, rng)
                        assert solver.can_open(r.game.hands[g.current], s.rules)
                        found += 1
                break
            s.apply_action(kind_random(s, rng))
        if found >= 4:
            break
    assert found


# --------------------------------------------------------------------------- clones
def test_clone_is_independent_and_equal():
    rng = np.random.default_rng(3)
    s = _play(AgentState.new(DEFAULT, players=4, seed=8), rng, 60)
    c = s.copy()
    assert str(c) == str(s) and c.legal_actions() == s.legal_actions()
    assert c.game.history == s.game.history and c.game.deck == s.game.deck
    before = str(s)
    _play(c, rng, 30)
    assert str(s) == before
    d = copy.deepcopy(s)
    assert str(d) == before and d.game is not s.game
    p = pickle.loads(pickle.dumps(s))
    assert str(p) == before and p.legal_actions() == s.legal_actions()


def test_game_copy_copies_the_rng_lazily():
    """A copy reshuffles as the original does (the RNG's state is copied)."""
    rules = RuleSet(hand_size=10, max_turns=400)
    rng = np.random.default_rng(5)
    s = AgentState.new(rules, players=4, seed=21)
    while not s.is_terminal() and not any(getattr(r, "kind", "") == "reshuffle"
                                          for r in s.game.history):
        nxt = s.copy()
        a = kind_random(s, rng)
        s.apply_action(a)
        nxt.apply_action(a)
        assert nxt.game.history == s.game.history
    g = s.game.copy()
    assert g._rng is None and g.__dict__.get("_rng_state") is not None


def test_bounds():
    lo, hi = utility_bounds(DEFAULT)
    assert lo == -2 * 15 * 20 and hi == 120
    assert max_game_length(DEFAULT, 4) == 4 * 14 + 2 + 1000 * 35


@pytest.mark.parametrize("module, lib, extra", [("openspiel", "pyspiel", "openspiel"),
                                                ("pettingzoo", "pettingzoo", "pettingzoo")])
def test_missing_library_says_which_extra(monkeypatch, module, lib, extra):
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, lib, None)  # as if it were not installed
    monkeypatch.delitem(sys.modules, f"rummy51.envs.{module}", raising=False)
    with pytest.raises(ImportError, match=r'from a clone of rummy51 with pip install "\.\[agents\]"'):
        importlib.import_module(f"rummy51.envs.{module}")
