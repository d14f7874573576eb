"""Property tests: the Carousel core answers exactly what the slow reference does.

Every position is solved by the core (``rummy51.carousel.best_play``, and the batch
``best_play_values`` on all of an example's positions at once) and by
``rummy51.carousel.reference`` (a memoised exact cover by whole melds, a different
method from the core's dynamic program over ranks). They must agree on the points
left and, among the plays leaving the fewest points, on the most cards played; both
returned tables are checked to be legal plays reaching their own figures
(``carousel_helpers.check_play``, written from the rules alone), and ``can_meld``
must agree too.

Positions compared in one default run (each test asserts its own count):

=================================  ===============================================  =====
test                               positions                                        count
=================================  ===============================================  =====
test_random_positions_match        300 examples x 10: 0-5 melds anywhere, 0-9 cards  3000
test_dense_positions_match         200 examples x 10: 3-6 overlapping melds from     2000
                                   3-6 ranks, jokers, 1-7 hand cards that fit + 0-2
test_drawn_positions_match         100 examples x 2, every choice drawn (shrinks)     200
test_table_joker_positions_match   150 examples x 10: 1-4 jokers, tables full of     1500
                                   jokers; each position also without the hand's
                                   copies of the declared cards (forced jokers)
                                   and with one such copy added
=================================  ===============================================  =====
                                                                              total  6700

Each example draws a rule set (decks, jokers 0-4, the joker limit per meld, ace
high or not, card values); in the first two tests the positions come from a seed
hypothesis draws (fast), in the third every choice is a hypothesis draw, so a
failure there shrinks to a small position. Hypothesis draws fresh examples on every
run (``derandomize=False``); a failure prints the position and rules in text.
``test_big_dense_positions_match`` (marked slow) goes up to 12 melds and 9 cards.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from carousel_helpers import DrawChoices, RandomChoices, check_play, describe, random_position, random_rules
from rummy51 import carousel
from rummy51.cards import JOKER
from rummy51.carousel import reference
from rummy51.carousel.table import parse_table

PER_EXAMPLE = 10
SETTINGS = dict(
    deadline=None,  # the reference takes up to a second on the hardest positions
    derandomize=False,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.large_base_example],
)


def compare(rules, positions) -> None:
    """Core, batch core and reference agree on each position; both plays are legal."""
    left, cards = carousel.best_play_values([t for t, _ in positions], [h for _, h in positions],
                                            rules)
    for k, (table, hand) in enumerate(positions):
        where = describe(table, hand, rules)
        ref = reference.best_play(table, hand, rules)
        core = carousel.best_play(table, hand, rules)
        want = (ref.points_left, ref.cards_played)
        assert (core.points_left, core.cards_played) == want, where
        assert (int(left[k]), int(cards[k])) == want, ("batch", where)
        assert core.can_meld == ref.can_meld == (ref.cards_played > 0), where
        assert carousel.can_meld(table, hand, rules) == ref.can_meld, where
        melds = parse_table(table, rules)
        check_play(melds, hand, core, rules, where)
        check_play(melds, hand, ref, rules, "reference: " + where)


@st.composite
def seeded_batch(draw, dense: bool, max_melds: int, max_fit: int = 9):
    rules = random_rules(DrawChoices(draw))
    rng = random.Random(draw(st.integers(0, 2**64 - 1)))
    pick = RandomChoices(rng)
    return rules, [random_position(pick, rules, dense, max_melds, max_fit)
                   for _ in range(PER_EXAMPLE)]


@st.composite
def drawn_batch(draw):
    pick = DrawChoices(draw)
    rules = random_rules(pick)
    return rules, [random_position(pick, rules, False), random_position(pick, rules, True, 6, 7)]


def run(strategy, examples: int) -> int:
    """Run ``compare`` on ``examples`` hypothesis examples; the positions compared."""
    seen = []

    @settings(max_examples=examples, **SETTINGS)
    @given(strategy)
    def check(batch):
        rules, positions = batch
        for table, hand in positions:
            note(describe(table, hand, rules))
        compare(rules, positions)
        seen.append(len(positions))

    check()
    return sum(seen)


def test_random_positions_match():
    assert run(seeded_batch(dense=False, max_melds=5), 300) >= 3000


def test_dense_positions_match():
    assert run(seeded_batch(dense=True, max_melds=6, max_fit=7), 200) >= 2000


def test_drawn_positions_match():
    assert run(drawn_batch(), 100) >= 200


@pytest.mark.slow
def test_big_dense_positions_match():
    assert run(seeded_batch(dense=True, max_melds=12, max_fit=9), 100) >= 1000


# --------------------------------------------------------------------------- table jokers
def table_joker_variants(rng: random.Random, rules, table, hand):
    """The position and variants of it that move the natural copies of the table jokers'
    cards: none left in the hand (the jokers are forced to keep their card), one
    added to the hand (it may replace a joker), or as dealt (a copy may sit in another
    meld of the table, which frees the joker outright)."""
    melds = parse_table(table, rules)
    declared = [r for m in melds for c, r in zip(m.cards, m.represents, strict=True) if c == JOKER]
    out = [(table, hand)]
    if not declared:
        return out
    out.append((table, [c for c in hand if c not in declared]))
    counts = Counter(c for m in melds for c in m.cards)
    counts.update(hand)
    d = rng.choice(declared)
    if counts[d] < rules.decks:
        out.append((table, sorted(hand + [d])))
    return out


@st.composite
def table_joker_batch(draw):
    """Rules with one or two jokers (the realistic decks) or more, any joker limit;
    dense tables where most melds hold a joker."""
    pick = DrawChoices(draw)
    decks = pick.int(1, 2)
    rules = carousel.CarouselRules(players=2 if decks == 1 else 4, decks=decks,
                                   jokers=(1, 2, 2, 3, 4)[pick.int(0, 4)],
                                   max_jokers_per_meld=(None, None, 1, 2)[pick.int(0, 3)],
                                   ace_high=bool(pick.int(0, 1)))
    rng = random.Random(draw(st.integers(0, 2**64 - 1)))
    positions = []
    while len(positions) < PER_EXAMPLE:
        table, hand = random_position(RandomChoices(rng), rules, rng.random() < 0.7, 5, 6)
        positions += table_joker_variants(rng, rules, table, hand)
    return rules, positions[:PER_EXAMPLE]


def test_table_joker_positions_match():
    """Table jokers whose card has no natural copy left become fixed cards in the core
    (``_fix_forced_jokers``); here half the positions have such jokers, the others a
    copy in hand or on the table that may replace one."""
    assert run(table_joker_batch(), 150) >= 1500
