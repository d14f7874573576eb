"""rummy51.deal draws in nogil C from the numpy bit generator; these tests pin its
stream to a pure-numpy reference written here (issue 31): row by row, card k of a
hand swaps in the deck card at k + an unbiased bounded draw below ``deck - k``,
numpy's own ``Generator.integers(0, s, dtype=uint32)`` (Lemire's rejection on
``next_uint32``), and the deck stays permuted from one row to the next."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rummy51
from rummy51 import PRESETS


def reference_deal(n: int, hand_size: int, rules, seed) -> np.ndarray:
    """The slow, obvious dealer: one numpy draw per card."""
    rng = np.random.default_rng(seed)
    deck = np.asarray(rules.deck(), dtype=np.uint8).copy()
    out = np.empty((n, hand_size), dtype=np.uint8)
    for i in range(n):
        for k in range(hand_size):
            s = len(deck) - k
            if s > 1:
                j = k + int(rng.integers(0, s, dtype=np.uint32))
            else:   # numpy skips the draw for a range of one; the C dealer makes it
                rng.integers(0, 2**32, dtype=np.uint32)
                j = k
            deck[k], deck[j] = deck[j], deck[k]
            out[i, k] = deck[k]
    return out


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 12), hand_size=st.integers(0, 22), seed=st.integers(0, 2**64 - 1),
       preset=st.sampled_from(sorted(PRESETS)))
def test_seeded_deal_is_the_numpy_reference(n, hand_size, seed, preset):
    rules = PRESETS[preset]
    got = rummy51.deal(n, hand_size, rules, seed=seed)
    assert got.dtype == np.uint8 and got.shape == (n, hand_size)
    np.testing.assert_array_equal(got, reference_deal(n, hand_size, rules, seed))


@pytest.mark.parametrize("preset", ["default", "gin"])
def test_whole_deck_deal_draws_like_the_reference(preset):
    # hand_size == deck size: the last card's range is one (the draw numpy would skip)
    rules = PRESETS[preset]
    got = rummy51.deal(3, rules.deck_size, rules, seed=9)
    np.testing.assert_array_equal(got, reference_deal(3, rules.deck_size, rules, 9))
    assert all(sorted(row) == sorted(rules.deck()) for row in got.tolist())


def test_generator_state_carries_on_like_the_reference():
    # a Generator passed in is advanced exactly as the reference advances it,
    # including the buffered half of a 64-bit draw
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    for n, k in [(1, 15), (2, 3), (4, 14)]:
        np.testing.assert_array_equal(rummy51.deal(n, k, seed=a),
                                      reference_deal(n, k, rummy51.PRESETS["default"], b))
    assert a.integers(2**62) == b.integers(2**62)


@pytest.mark.parametrize("seed", [0, 7, 2**64 - 1])
@pytest.mark.parametrize("odd_start", [False, True])
def test_big_deal_inline_pcg64_is_the_reference(seed, odd_start):
    # 600 x 15 cards takes the inline PCG64 path (>= 512 cards); starting after one
    # 32-bit draw leaves numpy's buffered high half for the dealer to use first
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    if odd_start:
        a.integers(2**32, dtype=np.uint32)
        b.integers(2**32, dtype=np.uint32)
    got = rummy51.deal(600, 15, seed=a)
    np.testing.assert_array_equal(got, reference_deal(600, 15, rummy51.PRESETS["default"], b))
    assert a.bit_generator.state == b.bit_generator.state


def test_other_bit_generators_deal_the_reference():
    # the generic path (the capsule's next_uint32) for a generator that is not PCG64
    for bg in (np.random.PCG64DXSM, np.random.Philox, np.random.MT19937):
        got = rummy51.deal(600, 15, seed=np.random.Generator(bg(3)))
        ref = reference_deal(600, 15, rummy51.PRESETS["default"], np.random.Generator(bg(3)))
        np.testing.assert_array_equal(got, ref)
