"""The Carousel core's paths added for speed (issue 11) against the reference.

* The suits' option lists are kept from one position to the next of a batch, from
  layer to layer of one position and from one call to the next on a thread (under
  any rules: the key holds everything they depend on). A long batch must answer
  every row as a solve of that row alone with an empty cache does, in any order of
  the rows, under every rule set; and the same again with the cache the earlier
  examples (other rules) left.
* A jokerless layer with no card at its rank is not expanded (its runs just end):
  jokerless positions with empty ranks between their melds, against the reference.
"""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from carousel_helpers import DrawChoices, RandomChoices, random_position, random_rules
from rummy51 import _carousel, carousel
from rummy51.carousel import CarouselRules
from test_carousel_properties import SETTINGS, run

BATCH = 120


@st.composite
def long_batch(draw):
    rules = random_rules(DrawChoices(draw))
    rng = random.Random(draw(st.integers(0, 2**64 - 1)))
    pick = RandomChoices(rng)
    return rules, [random_position(pick, rules, rng.random() < 0.5, 6, 7) for _ in range(BATCH)]


def test_long_batch_matches_fresh_solves():
    """Every row of a batch (one cache for all its rows, warm from the examples
    before) equals the batch from an empty cache, the batch backwards, and the row
    solved alone from an empty cache."""
    seen = []

    @settings(max_examples=40, **SETTINGS)
    @given(long_batch())
    def check(batch):
        rules, positions = batch
        tables, hands = carousel.pack_positions([t for t, _ in positions], [h for _, h in positions],
                                                rules)
        left, cards = carousel.best_play_values(tables, hands, rules, workers=1)  # warm
        _carousel._drop_kept_cache()
        fl, fc = carousel.best_play_values(tables, hands, rules, workers=1)  # from empty
        assert (fl == left).all() and (fc == cards).all()
        rl, rc = carousel.best_play_values(tables[::-1].copy(), hands[::-1].copy(), rules, workers=1)
        assert (rl[::-1] == left).all() and (rc[::-1] == cards).all()
        for i in range(len(positions)):
            _carousel._drop_kept_cache()
            one = carousel.best_play_values(tables[i:i + 1], hands[i:i + 1], rules, workers=1)
            assert (int(one[0][0]), int(one[1][0])) == (int(left[i]), int(cards[i])), positions[i]
        seen.append(len(positions))

    check()
    assert sum(seen) >= 40 * BATCH


@st.composite
def jokerless_gappy_batch(draw):
    """No jokers at all (the rules deal none, or the position holds none): melds in
    two or three windows of ranks with empty ranks between them, hands of cards that
    fit or not."""
    pick = DrawChoices(draw)
    rules = random_rules(pick)
    if pick.int(0, 1):
        rules = CarouselRules(players=rules.players, decks=rules.decks, jokers=0,
                              max_jokers_per_meld=rules.max_jokers_per_meld,
                              ace_high=rules.ace_high, ace_value=rules.ace_value,
                              face_value=rules.face_value, joker_value=rules.joker_value)
    rng = random.Random(draw(st.integers(0, 2**64 - 1)))
    positions = []
    tries = 0
    while len(positions) < 10 and tries < 400:
        tries += 1
        table, hand = random_position(RandomChoices(rng), rules, rng.random() < 0.6, 5, 6)
        text = " ".join(table) + " " + " ".join(map(str, hand))
        if "*" in text or "J0" in text or any(c == 52 for c in hand):
            continue
        packed_t, packed_h = carousel.pack_positions([table], [hand], rules)
        if ((packed_t[0] >= 53) & (packed_t[0] < 255)).any() or (packed_h[0] == 52).any():
            continue
        positions.append((table, hand))
    return rules, positions


def test_jokerless_positions_with_empty_ranks_match():
    assert run(jokerless_gappy_batch(), 120) >= 600
