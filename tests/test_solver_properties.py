"""Property tests: the Cython core answers exactly what the slow reference solver does.

Every random hand is compared with ``rummy51.reference`` (independent of the core) on all
four questions (best opening value, can_open, can_go_out, min_deadwood), and the melds of
the fast ``best_opening`` are checked to be legal (conftest ``check_opening``).

Random hands compared with the reference in one run (at least 5,000; counted by the
``reference_checks`` fixture, printed at the end of the run and asserted by
``test_enough_hands_were_checked`` when the whole file runs):

=========================================  ============================  =====
test                                       hands                         count
=========================================  ============================  =====
test_dealt_hands_match_reference           0-21 cards of the 108          1500
test_meld_rich_hands_match_reference       0-14 cards, 10 rule sets x 300 3000
test_big_meld_rich_hands_match_reference   15-21 cards (slow: capped)      250
test_any_rules_match_reference             0-14 cards, random RuleSet      600
test_dealt_batch_matches_reference         3 seeds x 700 dealt rows       2100
=========================================  ============================  =====
                                                                   total  7450

The reference takes ~1-3 ms for a typical hand but 10-150 ms for a meld-rich hand of
20-21 cards, which is why only ``test_big_meld_rich_hands_match_reference`` draws those.
Hypothesis draws fresh examples each run (``derandomize=False``) and prints a failing
example with its hand in text (``note``).
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from rummy51 import (
    PAD,
    RuleSet,
    _core,
    best_opening,
    best_opening_values,
    can_go_out,
    can_go_out_flags,
    can_open,
    can_open_flags,
    deal,
    min_deadwood,
    min_deadwood_values,
    reference,
)
from rummy51._catalogue import card_bit
from rummy51.cards import JOKER, cards_text
from rummy51.solver import compiled_rules

HYPOTHESIS = dict(
    deadline=None,  # the reference is slow on meld-rich hands
    derandomize=False,  # fresh hands every run
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.large_base_example],
)


def compare_with_reference(hand, rules: RuleSet, keep: int, must_use, check_opening,
                           where: str) -> None:
    """All four questions, fast vs reference, the fast melds legal, the root bounds sound."""
    fast = best_opening(hand, rules, keep=keep, must_use=must_use)
    slow = reference.best_opening(hand, rules, keep=keep, must_use=must_use)
    assert fast.value == slow, f"best_opening: core {fast.value}, reference {slow}: {where}"
    check_opening(fast, hand, rules, keep=keep, must_use=must_use)
    assert can_open(hand, rules, keep=keep, must_use=must_use) is \
        reference.can_open(hand, rules, keep=keep, must_use=must_use), f"can_open: {where}"
    assert can_go_out(hand, rules) is reference.can_go_out(hand, rules), f"can_go_out: {where}"
    for k in {0, keep}:
        assert min_deadwood(hand, rules, keep=k) == reference.min_deadwood(hand, rules, keep=k), \
            f"min_deadwood keep={k}: {where}"
    if must_use is None:
        # the batch kernels take other paths than the single-hand search (one-joker
        # hands list their joker melds by bit tests): the same answers, row of one
        row = [hand]
        assert best_opening_values(row, rules, keep=keep)[0] == slow, f"batch best: {where}"
        assert can_open_flags(row, rules, keep=keep)[0] == \
            reference.can_open(hand, rules, keep=keep), f"batch can_open: {where}"
        assert can_go_out_flags(row, rules)[0] == reference.can_go_out(hand, rules), \
            f"batch can_go_out: {where}"
        assert min_deadwood_values(row, rules, keep=keep)[0] == \
            reference.min_deadwood(hand, rules, keep=keep), f"batch min_deadwood: {where}"
    # the root bounds (testing hook) never fall below the true best (keep 0, no must-use)
    codes = np.array(hand, dtype=np.uint8)
    core_rules = compiled_rules(rules)
    best0 = reference.best_opening(hand, rules, keep=0)
    assert _core._py_root_bound(core_rules, codes) >= best0, f"root bound < {best0}: {where}"
    weight = reference.min_deadwood(hand, rules, keep=len(hand))  # nothing melded
    melded = weight - reference.min_deadwood(hand, rules, keep=0)
    assert _core._py_root_bound(core_rules, codes, True) >= melded, \
        f"deadwood root bound < {melded}: {where}"


@pytest.fixture(scope="module")
def check_drawn(hand_strategies, check_opening, describe, reference_checks):
    """``check_drawn(data, hand, rules, name)``: draw keep 0..2 and a must-use card (None or
    one of the hand), note the hand in text, compare with the reference, count it."""
    def check(data, hand, rules, name):
        keep = data.draw(hand_strategies.keep(), label="keep")
        must = data.draw(hand_strategies.must_use(hand), label="must_use")
        where = describe(hand, rules, keep=keep, must_use=must)
        note(f"hand: {where}")
        compare_with_reference(hand, rules, keep, must, check_opening, where)
        reference_checks[name] += 1
    return check


# --------------------------------------------------------------------------- hypothesis
@settings(max_examples=1500, **HYPOTHESIS)
@given(data=st.data())
def test_dealt_hands_match_reference(data, hand_strategies, check_drawn):
    """Any 0-21 cards of the default 108-card deck (0-4 jokers)."""
    rules = RuleSet()
    hand = data.draw(hand_strategies.dealt(rules, 0, 21), label="hand")
    check_drawn(data, hand, rules, "test_dealt_hands_match_reference")


@settings(max_examples=300, **HYPOTHESIS)
@given(data=st.data())
def test_meld_rich_hands_match_reference(data, ruleset, hand_strategies, check_drawn):
    """Cards from a narrow window of ranks and suits (melds overlap), 0-4 jokers, under
    every rule-set variant of conftest.RULESETS."""
    hand = data.draw(hand_strategies.meld_rich(ruleset, 0, 14), label="hand")
    check_drawn(data, hand, ruleset, "test_meld_rich_hands_match_reference")


@settings(max_examples=250, **HYPOTHESIS)
@given(data=st.data())
def test_big_meld_rich_hands_match_reference(data, rulesets, hand_strategies, check_drawn):
    """15-21 meld-rich cards, the slowest hands for the reference (so only 250 a run)."""
    rules = data.draw(st.sampled_from([r for r in rulesets.values() if r.decks == 2]),
                      label="rules")
    hand = data.draw(hand_strategies.meld_rich(rules, 15, 21), label="hand")
    check_drawn(data, hand, rules, "test_big_meld_rich_hands_match_reference")


@settings(max_examples=600, **HYPOTHESIS)
@given(data=st.data())
def test_any_rules_match_reference(data, hand_strategies, check_drawn):
    """Every solver option drawn at once (decks, jokers, threshold, ace values, ace high,
    jokers per meld, joker penalty), dealt or meld-rich hands."""
    rules = data.draw(hand_strategies.rules(), label="rules")
    hand = data.draw(hand_strategies.dealt(rules, 0, 14)
                     | hand_strategies.meld_rich(rules, 0, 14), label="hand")
    check_drawn(data, hand, rules, "test_any_rules_match_reference")


@settings(max_examples=150, **HYPOTHESIS)
@given(data=st.data())
def test_useful_mask_holds_every_meld(data, ruleset, hand_strategies, describe):
    """``_py_useful_mask``: every natural card of every meld the hand can form is in the
    useful mask, and of every jokerless meld in the jokerless mask (the core drops the
    other cards at the root, so a card missing there would be a wrong answer)."""
    hand = data.draw(hand_strategies.meld_rich(ruleset, 0, 21, max_noise=6), label="hand")
    note(f"hand: {describe(hand, ruleset)}")
    useful, natural = _core._py_useful_mask(compiled_rules(ruleset), np.array(hand, dtype=np.uint8))
    held = 0
    for c in hand:
        if c != JOKER:
            held |= 1 << card_bit(c)
    assert useful & ~held == 0 and natural & ~useful == 0
    for meld in reference.enumerate_melds(hand, ruleset):
        bits = 0
        for c in meld.naturals:
            bits |= 1 << card_bit(c)
        assert bits & ~useful == 0, f"{meld.text()} not in the useful mask"
        if meld.jokers == 0:
            assert bits & ~natural == 0, f"{meld.text()} not in the jokerless mask"


# --------------------------------------------------------------------------- seeded batches
def _pad_to_random_lengths(hands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Cut each row to a random length 0..width, padding the rest with 255."""
    lengths = rng.integers(0, hands.shape[1] + 1, size=hands.shape[0])
    out = hands.copy()
    out[np.arange(hands.shape[1])[None, :] >= lengths[:, None]] = PAD
    return out


def test_dealt_batch_matches_reference(seed, check_opening, describe, reference_checks):
    """700 dealt hands of 0-21 cards (255-padded rows): the batch functions row by row
    against the reference, and each row's best_opening melds checked."""
    rng = np.random.default_rng(seed)
    rules = RuleSet()
    hands = _pad_to_random_lengths(deal(700, 21, rules, seed=rng), rng)
    best = {k: best_opening_values(hands, rules, keep=k) for k in (0, 1, 2)}
    opens = can_open_flags(hands, rules)
    go_out = can_go_out_flags(hands, rules)
    dead = {k: min_deadwood_values(hands, rules, keep=k) for k in (0, 1)}
    for i, row in enumerate(hands):
        hand = [int(c) for c in row if c != PAD]
        where = f"seed={seed} row {i}: {describe(hand, rules)}"
        for k in (0, 1, 2):
            assert best[k][i] == reference.best_opening(hand, rules, keep=k), f"keep={k} {where}"
        assert opens[i] == reference.can_open(hand, rules), where
        assert go_out[i] == reference.can_go_out(hand, rules), where
        for k in (0, 1):
            assert dead[k][i] == reference.min_deadwood(hand, rules, keep=k), f"keep={k} {where}"
        check_opening(best_opening(hand, rules), hand, rules, keep=1)
        reference_checks["test_dealt_batch_matches_reference"] += 1


def test_root_bound_never_below_best(seed, ruleset):
    """``_py_root_bound`` (opening value and deadwood weight) on 2,000 dealt hands per
    rule set: never below the best value the solver finds."""
    rng = np.random.default_rng(seed)
    size = min(15, ruleset.deck_size)
    hands = _pad_to_random_lengths(deal(2000, size + 6, ruleset, seed=rng), rng)
    best = best_opening_values(hands, ruleset, keep=0)
    weight = min_deadwood_values(hands, ruleset, keep=hands.shape[1])
    melded = weight - min_deadwood_values(hands, ruleset, keep=0)
    core_rules = compiled_rules(ruleset)
    for i, row in enumerate(hands):
        codes = np.ascontiguousarray(row[row != PAD])
        where = f"seed={seed} row {i}: {cards_text(codes)}"
        bound = _core._py_root_bound(core_rules, codes)
        assert bound >= best[i], f"{where}: value bound {bound} < {best[i]}"
        bound = _core._py_root_bound(core_rules, codes, True)
        assert bound >= melded[i], f"{where}: deadwood bound {bound} < {melded[i]}"


# --------------------------------------------------------------------------- digest
# deal(10_000, 15, seed=12345) under the default rules: md5 of the dealt uint8 array, and of
# the best opening values (keep=1) and least deadwood (keep=0) as little-endian int32.
# The value digests were computed ONCE with the reference solver (rummy51.reference,
# ~18 s), not the core; the core gave the same digests:
#   hands = deal(10_000, 15, seed=12345)
#   best = np.array([reference.best_opening(h.tolist(), RuleSet()) for h in hands], "<i4")
#   dead = np.array([reference.min_deadwood(h.tolist(), RuleSet()) for h in hands], "<i4")
#   hashlib.md5(best.tobytes()).hexdigest(), hashlib.md5(dead.tobytes()).hexdigest()
# A change of dealing shows in DEAL_MD5; a change of solving in BEST_MD5 / DEADWOOD_MD5.
DEAL_MD5 = "f3e73138ab1b82e00f773f1f5a492d18"
BEST_MD5 = "abf5626331481a72b9b9ec5d1e65bafc"
DEADWOOD_MD5 = "14192acffd9e814bd705ac717bd5bbd3"


def test_digest():
    hands = deal(10_000, 15, seed=12345)
    assert hashlib.md5(hands.tobytes()).hexdigest() == DEAL_MD5, "dealing changed"
    best = best_opening_values(hands).astype("<i4")
    assert hashlib.md5(best.tobytes()).hexdigest() == BEST_MD5, "best opening values changed"
    dead = min_deadwood_values(hands).astype("<i4")
    assert hashlib.md5(dead.tobytes()).hexdigest() == DEADWOOD_MD5, "min deadwood values changed"


# --------------------------------------------------------------------------- the count
_COUNTED = {
    "test_dealt_hands_match_reference": 1500,
    "test_meld_rich_hands_match_reference": 300,  # per rule set
    "test_big_meld_rich_hands_match_reference": 250,
    "test_any_rules_match_reference": 600,
    "test_dealt_batch_matches_reference": 700,  # per seed
}


def test_enough_hands_were_checked(reference_checks):
    """At least 5,000 random hands were compared with the reference (runs last; skipped
    when only part of the file ran)."""
    missing = sorted(set(_COUNTED) - set(reference_checks))
    if missing:
        pytest.skip(f"only part of the property tests ran: {missing} missing")
    total = sum(reference_checks[name] for name in _COUNTED)
    assert total >= 5000, dict(reference_checks)
