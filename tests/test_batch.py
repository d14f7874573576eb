"""The batch functions (array in, array out), pack_hands and deal.

Batches are checked against the single-hand API (itself checked against the reference in
test_solver_properties.py), thread counts against each other, and dealing against the
uniform distribution with tolerances of ~5 standard errors.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

from rummy51 import (
    PAD,
    Hand,
    RuleSet,
    best_opening,
    best_opening_values,
    can_go_out,
    can_go_out_flags,
    can_open,
    can_open_flags,
    deal,
    min_deadwood,
    min_deadwood_values,
    pack_hands,
)

DEFAULT = RuleSet()

# question -> (batch function, single-hand function, takes keep, output dtype)
QUESTIONS = {
    "best": (best_opening_values, lambda h, r, k: best_opening(h, r, keep=k).value, True, np.int32),
    "can_open": (can_open_flags, lambda h, r, k: can_open(h, r, keep=k), True, np.bool_),
    "go_out": (can_go_out_flags, lambda h, r, k: can_go_out(h, r), False, np.bool_),
    "deadwood": (min_deadwood_values, lambda h, r, k: min_deadwood(h, r, keep=k), True, np.int32),
}
BATCH_FUNCTIONS = [q[0] for q in QUESTIONS.values()]


def _batch(question, hands, rules=DEFAULT, keep=None, workers=None):
    fn, _, takes_keep, _ = QUESTIONS[question]
    if takes_keep and keep is not None:
        return fn(hands, rules, keep=keep, workers=workers)
    return fn(hands, rules, workers=workers)


def _padded_deal(n: int, width: int, rules: RuleSet, rng: np.random.Generator) -> np.ndarray:
    """``n`` dealt rows cut to random lengths 0..width, padded with 255."""
    hands = deal(n, width, rules, seed=rng)
    lengths = rng.integers(0, width + 1, size=n)
    hands[np.arange(width)[None, :] >= lengths[:, None]] = PAD
    return hands


def _rows(hands: np.ndarray):
    for row in hands:
        yield [int(c) for c in row if c != PAD]


# --------------------------------------------------------------------------- batch == single
def test_batch_equals_single(seed):
    """1,500 dealt hands of 0-21 cards (padded rows), every question, keep 0..2."""
    rng = np.random.default_rng(seed)
    hands = _padded_deal(1500, 21, DEFAULT, rng)
    rows = list(_rows(hands))
    for question, (_, single, takes_keep, dtype) in QUESTIONS.items():
        for keep in ((0, 1, 2) if takes_keep else (None,)):
            out = _batch(question, hands, DEFAULT, keep)
            assert out.dtype == dtype and out.shape == (len(rows),)
            for i, hand in enumerate(rows):
                expected = single(hand, DEFAULT, keep)
                assert out[i] == expected, f"seed={seed} row {i} {question} keep={keep}: {Hand(hand)}"


def test_batch_equals_single_under_every_ruleset(ruleset, seed):
    rng = np.random.default_rng(seed)
    width = min(21, ruleset.deck_size)
    hands = _padded_deal(300, width, ruleset, rng)
    rows = list(_rows(hands))
    for question, (_, single, _, _) in QUESTIONS.items():
        out = _batch(question, hands, ruleset, keep=1)
        expected = [single(h, ruleset, 1) for h in rows]
        bad = [i for i in range(len(rows)) if out[i] != expected[i]]
        assert not bad, f"seed={seed} {question}: rows {bad[:5]}, e.g. {Hand(rows[bad[0]])}"


def test_default_keep_of_the_batch_functions():
    hands = deal(500, 15, seed=3)
    assert np.array_equal(best_opening_values(hands), best_opening_values(hands, keep=1))
    assert np.array_equal(can_open_flags(hands), can_open_flags(hands, keep=1))
    assert np.array_equal(min_deadwood_values(hands), min_deadwood_values(hands, keep=0))


@pytest.mark.parametrize("question", list(QUESTIONS))
def test_any_thread_count_gives_the_same_array(question, seed):
    rng = np.random.default_rng(seed)
    full = np.full((15_000, 21), PAD, np.uint8)
    full[:, :15] = deal(15_000, 15, seed=rng)  # the opener's 15 cards, then padded rows
    hands = np.concatenate([full, _padded_deal(5_000, 21, DEFAULT, rng)])
    base = _batch(question, hands, workers=1)
    for threads in (2, 3, 7, None):
        out = _batch(question, hands, workers=threads)
        assert out.dtype == base.dtype
        assert np.array_equal(out, base), f"seed={seed} workers={threads}"
    few = hands[:5]  # more threads than rows
    assert np.array_equal(_batch(question, few, workers=7), base[:5])


def test_rows_of_different_lengths():
    texts = ["", "7S", "7S 8S 9S", "6S 7S 8S 10D 10C 10H 2C", "JK JK JK JK",
             "AS AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS 4H",
             "8S 9S 2C JK", "KS KS KH 2D KD KC JK"]
    for width in (None, 20, 40):
        hands = pack_hands(texts, width=width)
        for question, (_, single, _, _) in QUESTIONS.items():
            out = _batch(question, hands, keep=1)
            assert out.tolist() == [single(t, DEFAULT, 1) for t in texts], (question, width)
    # an all-padding row is an empty hand
    assert best_opening_values(pack_hands(["", ""], width=5)).tolist() == [0, 0]
    assert min_deadwood_values(pack_hands(["", "JK"], width=5)).tolist() == [0, 20]


def test_other_layouts_and_dtypes_give_the_same_answers():
    hands = deal(300, 16, seed=11)
    base = best_opening_values(hands)
    assert np.array_equal(best_opening_values(np.asfortranarray(hands)), base)
    assert np.array_equal(best_opening_values(hands.astype(np.int64)), base)
    assert np.array_equal(best_opening_values(hands.astype(np.uint16)), base)
    assert np.array_equal(best_opening_values(hands.tolist()), base)
    wide = np.full((300, 40), PAD, np.uint8)
    wide[:, ::2][:, :16] = hands  # a strided view of the rows, padding between cards
    assert np.array_equal(best_opening_values(np.ascontiguousarray(wide[:, ::2])), base)
    assert np.array_equal(best_opening_values(wide[:, ::2]), base)


def test_batch_does_not_modify_its_input():
    hands = deal(200, 15, seed=5)
    copy = hands.copy()
    for fn in BATCH_FUNCTIONS:
        fn(hands, workers=2)
    assert np.array_equal(hands, copy)


@pytest.mark.parametrize("shape", [(0, 15), (0, 0)])
def test_empty_batch(shape):
    hands = np.zeros(shape, np.uint8)
    for question, (_, _, _, dtype) in QUESTIONS.items():
        for threads in (None, 1, 3):
            out = _batch(question, hands, workers=threads)
            assert out.shape == (0,) and out.dtype == dtype
    assert best_opening_values([]).shape == (0,)


def test_zero_width_batch_is_empty_hands():
    hands = np.zeros((3, 0), np.uint8)
    assert best_opening_values(hands).tolist() == [0, 0, 0]
    assert can_open_flags(hands).tolist() == [False] * 3
    assert can_go_out_flags(hands).tolist() == [False] * 3
    assert min_deadwood_values(hands).tolist() == [0, 0, 0]


# --------------------------------------------------------------------------- pack_hands
def test_pack_hands():
    hands = pack_hands(["7S 8S 9S", [52], Hand("KC"), np.array([0, 1], np.uint8), ""])
    assert hands.dtype == np.uint8 and hands.shape == (5, 3)
    assert hands.tolist() == [[6, 7, 8], [52, PAD, PAD], [51, PAD, PAD], [0, 1, PAD],
                              [PAD, PAD, PAD]]
    assert pack_hands(["7S"], width=4).tolist() == [[6, PAD, PAD, PAD]]
    assert pack_hands([]).shape == (0, 0)
    assert pack_hands(iter(["7S 8S"])).tolist() == [[6, 7]]


def test_pack_hands_errors():
    with pytest.raises(ValueError, match=re.escape("hand 1 has 3 cards, more than width 2")):
        pack_hands(["7S", "7S 8S 9S"], width=2)
    with pytest.raises(ValueError, match="the jack is written J or 12"):
        pack_hands(["7S", "11H"])
    with pytest.raises(ValueError, match="53 is not a card code"):
        pack_hands([[1, 2], [53]])


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("fn", BATCH_FUNCTIONS, ids=lambda f: f.__name__)
def test_bad_arrays(fn):
    hands = deal(10, 15, seed=1)
    with pytest.raises(ValueError) as e:
        fn(hands[0])
    assert str(e.value) == \
        "hands must be a 2-D (n, cards) uint8 array of card codes, got shape (15,)"
    with pytest.raises(ValueError, match=re.escape("got shape (2, 5, 15)")):
        fn(np.zeros((2, 5, 15), np.uint8))
    with pytest.raises(ValueError) as e:
        fn(hands.astype(np.float64))
    assert str(e.value) == \
        "hands must be a 2-D (n, cards) uint8 array of card codes, got dtype float64"
    with pytest.raises(ValueError, match="got dtype bool"):
        fn(hands.astype(bool))
    for bad in (300, -1, 2**40):
        big = hands.astype(np.int64)
        big[2, 3] = bad
        with pytest.raises(ValueError) as e:
            fn(big)
        assert str(e.value) == (f"hands[2, 3] is {bad}, which is not a card code "
                                "(0..51 naturals, 52 joker, 255 padding)")
    with pytest.raises(TypeError, match=re.escape("hands must be a 2-D array of card codes "
                                                  "(use best_opening for one hand)")):
        fn("7S 8S 9S")


@pytest.mark.parametrize("threads", [1, 2, 3, 7])
@pytest.mark.parametrize("fn", BATCH_FUNCTIONS, ids=lambda f: f.__name__)
def test_bad_card_names_its_row(fn, threads):
    hands = deal(10, 15, seed=2)
    hands[3, 4] = 60
    with pytest.raises(ValueError) as e:
        fn(hands, workers=threads)
    assert str(e.value) == \
        "hands[3, 4] is 60, which is not a card code (0..51 naturals, 52 joker, 255 padding)"
    # a bad row in a later thread's share is named by its row in the whole array
    many = deal(9000, 15, seed=2)
    many[7777, 0] = 53
    with pytest.raises(ValueError, match=re.escape("hands[7777, 0] is 53, which is not a card")):
        fn(many, workers=threads)
    # with two bad rows, the first is named
    many[1234, 14] = 99
    with pytest.raises(ValueError, match=re.escape("hands[1234, 14] is 99,")):
        fn(many, workers=threads)


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("fn", BATCH_FUNCTIONS, ids=lambda f: f.__name__)
def test_too_many_copies_or_jokers_names_the_row(fn, threads):
    hands = pack_hands(["7S 8S 9S", "KD KD", "2C 3C", "8S 7S 8S 8S JK", "JK"], width=6)
    with pytest.raises(ValueError) as e:
        fn(hands, workers=threads)
    assert str(e.value) == "hands[3] holds 3 copies of 8S, but rules.decks is 2"
    with pytest.raises(ValueError) as e:
        fn(hands[:3], RuleSet.gin(), workers=threads)
    assert str(e.value) == "hands[1] holds 2 copies of KD, but rules.decks is 1"
    jokers = pack_hands(["7S", "JK", "2C", "4D", "5H", "JK JK 7S JK JK JK"])
    with pytest.raises(ValueError) as e:
        fn(jokers, workers=threads)
    assert str(e.value) == "hands[5] holds 5 jokers, but rules.jokers is 4"
    with pytest.raises(ValueError, match=re.escape("hands[1] holds 3 jokers, but rules.jokers is 2")):
        fn(pack_hands(["7S", "JK JK JK"]), RuleSet(jokers=2), workers=threads)


@pytest.mark.parametrize("fn", BATCH_FUNCTIONS, ids=lambda f: f.__name__)
def test_bad_options(fn):
    hands = deal(5, 15, seed=4)
    for threads in (0, -1, True, 1.5, "2"):
        message = f"workers must be a positive int or None, got {threads!r}"
        with pytest.raises(ValueError, match=re.escape(message)):
            fn(hands, workers=threads)
        # the old name: deprecated, the same error under the name given
        with pytest.raises(ValueError, match=re.escape(message.replace("workers", "threads"))), \
                pytest.warns(DeprecationWarning, match="threads is deprecated: use workers"):
            fn(hands, threads=threads)
    with pytest.warns(DeprecationWarning, match="threads is deprecated"):
        assert np.array_equal(fn(hands, threads=2), fn(hands, workers=2))
    with pytest.raises(ValueError, match="give workers or threads, not both"), \
            pytest.warns(DeprecationWarning):
        fn(hands, workers=1, threads=2)
    with pytest.raises(TypeError, match="rules must be a RuleSet, got str"):
        fn(hands, "gin")
    if fn is not can_go_out_flags:
        with pytest.raises(ValueError, match=r"keep must be 0\.\.120, got -1"):
            fn(hands, keep=-1)
        with pytest.raises(TypeError, match="keep must be a whole number, got True"):
            fn(hands, keep=True)


# --------------------------------------------------------------------------- deal
def _counts(hands: np.ndarray) -> np.ndarray:
    """(rows, 53) card counts of each row (padding ignored)."""
    n = hands.shape[0]
    counts = np.zeros((n, 256), np.int64)
    np.add.at(counts, (np.repeat(np.arange(n), hands.shape[1]), hands.ravel()), 1)
    assert not counts[:, 53:PAD].any()
    return counts[:, :53]


def test_deal_shape_and_dtype():
    hands = deal(7, 15, seed=0)
    assert hands.shape == (7, 15) and hands.dtype == np.uint8 and hands.flags.c_contiguous
    assert deal(3, seed=0).shape == (3, DEFAULT.hand_size + 1)  # the first player's 15
    assert deal(3, rules=RuleSet.gin(), seed=0).shape == (3, 11)
    assert deal(0, 15, seed=0).shape == (0, 15)
    assert deal(4, 0, seed=0).shape == (4, 0)
    assert deal(2, 15).shape == (2, 15)  # seed None: fresh entropy


def test_deal_rows_are_valid_hands(ruleset, seed):
    width = min(21, ruleset.deck_size)
    hands = deal(3000, width, ruleset, seed=seed)
    counts = _counts(hands)
    assert counts[:, :52].max() <= ruleset.decks
    assert counts[:, 52].max() <= ruleset.jokers
    assert (counts.sum(axis=1) == width).all()
    # every row is accepted as a hand of the rule set
    best_opening_values(hands, ruleset)


def test_deal_whole_deck_is_a_permutation(seed):
    for rules in (DEFAULT, RuleSet.gin(), RuleSet(jokers=2)):
        hands = deal(20, rules.deck_size, rules, seed=seed)
        for row in hands:
            assert np.array_equal(np.sort(row), rules.deck())


def test_gin_deck_has_no_jokers_and_no_doubles(seed):
    hands = deal(5000, 11, RuleSet.gin(), seed=seed)
    counts = _counts(hands)
    assert counts[:, 52].max() == 0 and counts.max() == 1


def test_same_seed_same_deal_different_seeds_differ(seed):
    a = deal(200, 15, seed=seed)
    assert np.array_equal(a, deal(200, 15, seed=seed))
    assert not np.array_equal(a, deal(200, 15, seed=seed + 1))
    assert not np.array_equal(a, deal(200, 15, seed=seed + 1000))
    assert not np.array_equal(a[:100], a[100:])


def test_deal_accepts_generator_and_seed_sequence(seed):
    base = deal(100, 15, seed=seed)
    # default_rng(int), default_rng(SeedSequence(int)) and a Generator of it: one stream
    assert np.array_equal(deal(100, 15, seed=np.random.SeedSequence(seed)), base)
    rng = np.random.default_rng(seed)
    assert np.array_equal(deal(100, 15, seed=rng), base)
    # the Generator is advanced: the next deal from it is new
    assert not np.array_equal(deal(100, 15, seed=rng), base)
    children = np.random.SeedSequence(seed).spawn(2)
    assert not np.array_equal(deal(100, 15, seed=children[0]), deal(100, 15, seed=children[1]))


def test_dealing_is_uniform(seed):
    """~200,000 cards dealt in hands of 15 from the 108-card deck.

    Each check allows ~5 standard errors (a false alarm is ~1e-6 per check):
    * the count of each of the 53 codes (hypergeometric per row: variance
      h p (1-p) (N-h)/(N-1), rows independent);
    * each of the 15 positions: a chi-square over the 53 codes (df 52) below its mean
      + 5 SD, i.e. no position prefers some cards;
    * pairs: the mean number of naturals held twice in a hand, h(h-1)/(N(N-1)) per
      natural, and jokers per hand, h*4/N;
    * independence of rows: the first cards of consecutive rows agree with probability
      sum p_c^2.
    """
    rules = DEFAULT
    N, h = rules.deck_size, 15
    n = 200_000 // h
    hands = deal(n, h, rules, seed=seed)
    copies = np.bincount(rules.deck(), minlength=53).astype(float)
    p = copies / N

    total = np.bincount(hands.ravel(), minlength=53).astype(float)
    expected = n * h * p
    se = np.sqrt(n * h * p * (1 - p) * (N - h) / (N - 1))
    z = (total - expected) / se
    assert np.abs(z).max() < 5, f"seed={seed}: card {int(np.abs(z).argmax())} z={z[np.abs(z).argmax()]:.2f}"

    df = 52
    limit = df + 5 * math.sqrt(2 * df)
    for col in range(h):
        obs = np.bincount(hands[:, col], minlength=53)
        chi2 = float((((obs - n * p) ** 2) / (n * p)).sum())
        assert chi2 < limit, f"seed={seed}: position {col} chi2={chi2:.1f} >= {limit:.1f}"

    counts = _counts(hands)
    doubles = (counts[:, :52] == 2).sum(axis=1)
    mean_doubles = 52 * h * (h - 1) / (N * (N - 1))
    se = doubles.std(ddof=1) / math.sqrt(n)
    assert abs(doubles.mean() - mean_doubles) < 5 * se, (seed, doubles.mean(), mean_doubles)
    jokers = counts[:, 52]
    se = math.sqrt(h * (4 / N) * (1 - 4 / N) * (N - h) / (N - 1) / n)
    assert abs(jokers.mean() - h * 4 / N) < 5 * se, (seed, jokers.mean())

    same = (hands[1:, 0] == hands[:-1, 0]).astype(float)
    q = float((p ** 2).sum())
    se = math.sqrt(q * (1 - q) / (n - 1))
    assert abs(same.mean() - q) < 5 * se, (seed, same.mean(), q)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n=-1, hand_size=5), "n must be a non-negative int, got -1"),
        (dict(n=2.0, hand_size=5), "n must be a non-negative int, got 2.0"),
        (dict(n=True, hand_size=5), "n must be a non-negative int, got True"),
        (dict(n="3", hand_size=5), "n must be a non-negative int, got '3'"),
        (dict(n=3, hand_size=-1), "hand_size must be a non-negative int, got -1"),
        (dict(n=3, hand_size=2.5), "hand_size must be a non-negative int, got 2.5"),
        (dict(n=3, hand_size=109), "hand_size 109 is more than the 108 cards of the deck"),
        (dict(n=3, hand_size=53, rules=RuleSet.gin()),
         "hand_size 53 is more than the 52 cards of the deck"),
    ],
)
def test_deal_bad_arguments(kwargs, message):
    with pytest.raises(ValueError) as e:
        deal(**kwargs, seed=0)
    assert str(e.value) == message


def test_deal_bad_rules():
    with pytest.raises(TypeError, match="rules must be a RuleSet, got str"):
        deal(3, 5, rules="gin")
