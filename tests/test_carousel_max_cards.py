"""``carousel.max_cards_played`` and its batch twin (issue 31): the most hand cards any
legal play places, 0 when none.

The reference is ``reference.solve_counts`` (the memoised exact cover, a different
method) under the same rules with every card worth 0 points (``_ZeroPoints``), so its
best (points, cards) is (0, the most cards); checked with hypothesis on random and
dense positions, against the batch form, ``can_meld`` and the best play (which
never places more cards than the most)."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from carousel_helpers import RandomChoices, describe, random_position, random_rules
from rummy51 import carousel
from rummy51.cards import JOKER
from rummy51.carousel import CarouselRules, reference
from rummy51.carousel.solver import _counts, _position


class _ZeroPoints:
    """The same rules, every card worth 0 points (the reference's value is then the
    cards placed); every other field read from the rules."""

    joker_value = 0

    def __init__(self, rules: CarouselRules):
        self._rules = rules

    def __getattr__(self, name):
        return getattr(self._rules, name)

    def card_value(self, code: int) -> int:
        return 0


def _zero(rules: CarouselRules):
    return _ZeroPoints(rules)


def reference_max_cards(table, hand, rules) -> int:
    melds, codes = _position(table, hand, rules)
    c = _counts(melds, codes)
    got = reference.solve_counts(c.T, c.H, c.D, c.JT, c.JH, _zero(rules))
    assert got is not None
    points, cards, _ = got
    assert points == 0
    return cards


@st.composite
def positions(draw, dense: bool):
    from carousel_helpers import DrawChoices
    rules = random_rules(DrawChoices(draw))
    rng = random.Random(draw(st.integers(0, 2**64 - 1)))
    pick = RandomChoices(rng)
    return rules, [random_position(pick, rules, dense, 6, 8) for _ in range(8)]


@pytest.mark.parametrize("dense", [False, True])
def test_max_cards_played_matches_the_reference(dense):
    @settings(max_examples=60, deadline=None, derandomize=False,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(positions(dense))
    def check(batch):
        rules, pos = batch
        counts = carousel.max_cards_played_counts([t for t, _ in pos], [h for _, h in pos], rules)
        for k, (table, hand) in enumerate(pos):
            where = describe(table, hand, rules)
            note(where)
            want = reference_max_cards(table, hand, rules)
            got = carousel.max_cards_played(table, hand, rules)
            assert got == want == int(counts[k]), where
            assert (got > 0) == carousel.can_meld(table, hand, rules), where
            best = carousel.best_play(table, hand, rules)
            assert best.cards_played <= got, where

    check()


def test_most_cards_is_not_the_best_play():
    """Points first: the best play leaves 5 points with 3 cards placed, the most cards a
    play places are 4 (a found example, checked against the reference too)."""
    table, hand = ["4C JK(5C) 6C"], "AC 4C 5C 8C JK"
    assert carousel.max_cards_played(table, hand) == 4 == reference_max_cards(
        table, hand, CarouselRules())
    best = carousel.best_play(table, hand)
    assert (best.cards_played, best.points_left) == (3, 5)
    assert carousel.max_cards_played(["QH KH AH"], "2H 3H") == 0
    assert carousel.max_cards_played(["AH 2H 3H"], [JOKER]) == 1


def test_limits_and_errors():
    assert carousel.max_cards_played(["6S 7S 8S"], "9S", node_limit=1000) == 1
    with pytest.raises(ValueError, match="node_limit must be positive"):
        carousel.max_cards_played(["6S 7S 8S"], "9S", node_limit=0)
    with pytest.raises(ValueError, match="time_limit must be a positive"):
        carousel.max_cards_played_counts([["6S 7S 8S"]], ["9S"], time_limit=-1)
    with pytest.raises(ValueError, match="copies"):
        carousel.max_cards_played(["6S 7S 8S", "6S 7S 8S"], "6S")
