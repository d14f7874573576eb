"""RuleSet: the defaults are docs/rules.md's, the presets, immutability and validation messages."""
from __future__ import annotations

import dataclasses
import doctest

import numpy as np
import pytest

import rummy51.rules
from rummy51 import PRESETS, RuleSet


def test_defaults_are_rules_md():
    r = RuleSet()
    # section 1: two decks and four jokers (108 cards)
    assert (r.decks, r.jokers, r.deck_size) == (2, 4, 108)
    # section 4: open with 51
    assert r.threshold == 51
    # section 2: an ace is worth 10, low or high; a joker left in hand 20
    assert (r.ace_low_value, r.ace_value) == (10, 10)
    assert r.joker_penalty == 20
    # section 3: the ace may follow the king; one joker per meld
    assert r.ace_high is True
    assert r.max_jokers_per_meld == 1
    # section 5: 14 cards each (the first player gets 15), bottom card on, the discard
    # pile is free to take without using that card, the stock is reshuffled
    assert r.hand_size == 14
    assert r.bottom_card is True
    assert r.discard_card_must_meld is False
    assert r.reshuffle_stock is True
    assert r.max_turns >= 1
    # section 6: -40 out, -80 by hand, -120 by hand with the bottom card, +100 unopened,
    # doubled after a hand; a match is one deal
    assert (r.score_out, r.score_hand, r.score_hand_bottom) == (-40, -80, -120)
    assert r.score_unopened == 100
    assert r.hand_doubles is True
    assert (r.match_deals, r.match_points) == (None, None)


def test_default_deck():
    r = RuleSet()
    deck = r.deck()
    assert deck.dtype == np.uint8 and len(deck) == 108
    assert np.bincount(deck, minlength=53).tolist() == [2] * 52 + [4]
    assert deck.tolist() == sorted(deck.tolist())
    assert r.max_players() == (108 - 2) // 14


def test_two_joker_deck_is_106_cards():
    r = RuleSet(jokers=2)
    assert r.deck_size == 106 == len(r.deck())
    assert np.bincount(r.deck(), minlength=53)[52] == 2


def test_gin():
    g = RuleSet.gin()
    assert (g.decks, g.jokers, g.deck_size) == (1, 0, 52)
    assert (g.ace_low_value, g.ace_value, g.ace_high) == (1, 1, False)
    assert g.max_jokers_per_meld == 0
    assert g.hand_size == 10
    assert np.bincount(g.deck(), minlength=53).tolist() == [1] * 52 + [0]
    # changes apply on top of the gin rules
    g40 = RuleSet.gin(threshold=40, hand_size=7)
    assert (g40.threshold, g40.hand_size, g40.decks, g40.ace_high) == (40, 7, 1, False)


def test_presets():
    # the first four presets stay; issue 14 added the tables of tests/test_variants.py
    assert {"default", "two-jokers", "ace-low-1", "gin"} <= set(PRESETS)
    assert list(PRESETS)[0] == "default"  # rules_label names RuleSet() "default"
    assert PRESETS["default"] == RuleSet()
    assert PRESETS["two-jokers"] == RuleSet(jokers=2)
    assert PRESETS["ace-low-1"] == RuleSet(ace_low_value=1)
    assert PRESETS["gin"] == RuleSet.gin()
    for name, rules in PRESETS.items():
        assert RuleSet.preset(name) == rules


def test_unknown_preset_lists_the_choices():
    with pytest.raises(ValueError) as e:
        RuleSet.preset("texas")
    assert str(e.value) == ("'texas' is not a rule preset: choose one of "
                            + ", ".join(sorted(PRESETS)))
    assert "remik" in str(e.value) and "ace-low-1" in str(e.value)


def test_frozen_keyword_only_hashable():
    r = RuleSet()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.jokers = 2
    with pytest.raises(TypeError):
        RuleSet(2)  # keyword-only
    assert hash(RuleSet()) == hash(RuleSet()) and RuleSet() == RuleSet()
    assert RuleSet(jokers=2) != RuleSet()
    assert len({RuleSet(), RuleSet(), RuleSet(jokers=2)}) == 2


def test_replace_makes_variants():
    r = RuleSet()
    v = r.replace(jokers=2, threshold=40)
    assert (v.jokers, v.threshold) == (2, 40)
    assert (r.jokers, r.threshold) == (4, 51)  # the original is unchanged
    assert dataclasses.replace(r, jokers=2) == RuleSet(jokers=2)
    with pytest.raises(ValueError, match="rules.decks must be 1..2, got 3"):
        r.replace(decks=3)


def test_numpy_integers_are_accepted():
    r = RuleSet(decks=np.int64(1), jokers=np.uint8(2), ace_high=np.bool_(False))
    assert r == RuleSet(decks=1, jokers=2, ace_high=False)


@pytest.mark.parametrize(
    "changes, message",
    [
        (dict(decks=3), "rules.decks must be 1..2, got 3"),
        (dict(decks=0), "rules.decks must be 1..2, got 0"),
        (dict(max_jokers_per_meld=3), "rules.max_jokers_per_meld must be 0..2, got 3"),
        (dict(max_jokers_per_meld=-1), "rules.max_jokers_per_meld must be 0..2, got -1"),
        (dict(threshold=0), "rules.threshold must be 1..10000, got 0"),
        (dict(jokers=-1), "rules.jokers must be 0..16, got -1"),
        (dict(joker_penalty=-5), "rules.joker_penalty must be 0..1000, got -5"),
        (dict(ace_low_value=101), "rules.ace_low_value must be 0..100, got 101"),
        (dict(hand_size=0), "rules.hand_size must be 1..50, got 0"),
        (dict(max_turns=0), "rules.max_turns must be >= 1, got 0"),
        (dict(match_deals=0), "rules.match_deals must be >= 1, got 0"),
        (dict(score_out=200_000), "rules.score_out must be -100000..100000, got 200000"),
    ],
)
def test_bad_values(changes, message):
    with pytest.raises(ValueError) as e:
        RuleSet(**changes)
    assert str(e.value) == message


@pytest.mark.parametrize(
    "changes, message",
    [
        (dict(decks="2"), "rules.decks must be an int, got '2'"),
        (dict(decks=2.0), "rules.decks must be an int, got 2.0"),
        (dict(jokers=True), "rules.jokers must be an int, got True"),
        (dict(threshold=None), "rules.threshold must be an int, got None"),
        (dict(max_jokers_per_meld=1.5), "rules.max_jokers_per_meld must be an int, got 1.5"),
        (dict(ace_high=1), "rules.ace_high must be True or False, got 1"),
        (dict(ace_high="yes"), "rules.ace_high must be True or False, got 'yes'"),
        (dict(bottom_card=None), "rules.bottom_card must be True or False, got None"),
        (dict(match_points="100"), "rules.match_points must be an int, got '100'"),
    ],
)
def test_wrong_types(changes, message):
    with pytest.raises(TypeError) as e:
        RuleSet(**changes)
    assert str(e.value) == message


def test_rules_doctests():
    result = doctest.testmod(rummy51.rules)
    assert result.attempted > 0 and result.failed == 0


def test_every_option_of_rules_md_is_a_field():
    # each **(option)** of docs/rules.md sections 1-6 has its field
    fields = {f.name for f in dataclasses.fields(RuleSet)}
    assert {"decks", "jokers", "threshold", "ace_low_value", "ace_value", "ace_high",
            "max_jokers_per_meld", "joker_penalty", "bottom_card", "discard_card_must_meld",
            "reshuffle_stock", "max_turns", "score_hand_bottom", "match_deals",
            "match_points"} <= fields
