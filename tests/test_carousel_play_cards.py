"""The "must play these cards" query of the Carousel solver (``play_cards``,
``can_play_cards``, ``playable_cards``) against the slow reference.

The reference answer of "can the table and exactly these hand cards be arranged into
legal melds" is ``reference.solve_counts`` (the memoised exact cover, a different
method from the core's dynamic program) on the counts where the chosen cards are
required like the table's and no hand is left: it returns None when no arrangement
exists. ``playable_cards`` is checked against brute force over the hand's
sub-multisets (some superset of the chosen cards plus the card is a legal play).
Every play returned is checked by ``carousel_helpers.check_play``, written from the
rules alone, and must place exactly the cards named.
"""
from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from rummy51.cards import JOKER, card_text, cards_text, to_codes
from rummy51.carousel import CarouselRules, best_play, reference
from rummy51.carousel.actions import IllegalMove
from rummy51.carousel.solver import can_play_cards, play_cards, playable_cards
from rummy51.carousel.table import parse_table

from carousel_helpers import (DrawChoices, RandomChoices, check_play, describe, random_position,
                              random_rules)

SETTINGS = dict(deadline=None, derandomize=False, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------- the reference
def ref_can_place(melds, chosen, optional, rules) -> bool:
    """Whether the table and every card of ``chosen`` (and perhaps some of
    ``optional``) can be arranged into legal melds, by the reference's exact cover."""
    T, H, D = [0] * 52, [0] * 52, [0] * 52
    JT = 0
    for m in melds:
        for c, r in zip(m.cards, m.represents):
            if c == JOKER:
                D[r] += 1
                JT += 1
            else:
                T[c] += 1
    for c in chosen:
        if c != JOKER:
            T[c] += 1
    for c in optional:
        if c != JOKER:
            H[c] += 1
    return reference.solve_counts(T, H, D, JT + list(chosen).count(JOKER),
                                  list(optional).count(JOKER), rules) is not None


def sub_multisets(cards):
    """Every sub-multiset of ``cards`` (as sorted lists), once each."""
    counts = sorted(Counter(cards).items())
    for ks in itertools.product(*[range(n + 1) for _, n in counts]):
        yield [c for (c, _), k in zip(counts, ks) for _ in range(k)]


def check_position(rules, table, hand, picks) -> int:
    """Compare the query with the reference on ``picks`` (sub-multisets of ``hand``)."""
    melds = parse_table(table, rules)
    where = describe(table, hand, rules)
    for chosen in picks:
        if not chosen:
            continue
        want = ref_can_place(melds, chosen, (), rules)
        assert can_play_cards(table, chosen, hand, rules) == want, (cards_text(chosen), where)
        if want:
            play = play_cards(table, chosen, hand, rules)
            check_play(melds, hand, play, rules, where)
            assert sorted(play.played) == sorted(chosen), (cards_text(chosen), where)
        else:
            with pytest.raises(IllegalMove) as info:
                play_cards(table, chosen, hand, rules)
            assert info.value.rule == "4" and "\n" not in str(info.value)
    return len(picks)


def random_picks(rng: random.Random, hand, k: int):
    """``k`` random non-empty sub-multisets of ``hand``."""
    out = []
    for _ in range(k):
        if not hand:
            break
        n = rng.randint(1, len(hand))
        out.append(sorted(rng.sample(list(hand), n)))
    return out


@st.composite
def positions(draw, dense: bool, max_melds: int, max_fit: int = 7):
    rules = random_rules(DrawChoices(draw))
    rng = random.Random(draw(st.integers(0, 2**64 - 1)))
    table, hand = random_position(RandomChoices(rng), rules, dense, max_melds, max_fit)
    return rules, table, hand, rng


# --------------------------------------------------------------------------- properties
def test_chosen_cards_match_the_reference():
    seen = []

    @settings(max_examples=150, **SETTINGS)
    @given(positions(dense=False, max_melds=5))
    def check(pos):
        rules, table, hand, rng = pos
        note(describe(table, hand, rules))
        picks = random_picks(rng, hand, 6)
        # the cards of the best play are always a legal play of their own
        best = best_play(table, hand, rules)
        if best.can_meld:
            picks.append(list(best.played))
            play = play_cards(table, best.played, hand, rules)
            assert play.points_left == best.points_left
        seen.append(check_position(rules, table, hand, picks))

    check()
    assert sum(seen) >= 600


def test_dense_chosen_cards_match_the_reference():
    seen = []

    @settings(max_examples=100, **SETTINGS)
    @given(positions(dense=True, max_melds=6))
    def check(pos):
        rules, table, hand, rng = pos
        note(describe(table, hand, rules))
        seen.append(check_position(rules, table, hand, random_picks(rng, hand, 6)))

    check()
    assert sum(seen) >= 500


def test_every_choice_of_small_hands():
    """Every non-empty sub-multiset of hands of up to 5 cards, positions drawn
    choice by choice (a failure shrinks)."""
    seen = []

    @settings(max_examples=60, **SETTINGS)
    @given(st.data())
    def check(data):
        pick = DrawChoices(data.draw)
        rules = random_rules(pick)
        table, hand = random_position(pick, rules, bool(pick.int(0, 1)), 4, 5)
        hand = hand[:5]
        note(describe(table, hand, rules))
        seen.append(check_position(rules, table, hand, list(sub_multisets(hand))))

    check()
    assert sum(seen) >= 100


def test_playable_cards_is_brute_force():
    """``playable_cards(table, hand, chosen)`` holds exactly the cards k for which some
    sub-multiset of the hand holding chosen + k is a legal play (the reference)."""
    seen = []

    @settings(max_examples=80, **SETTINGS)
    @given(positions(dense=True, max_melds=4, max_fit=5))
    def check(pos):
        rules, table, hand, rng = pos
        hand = hand[:6]
        melds = parse_table(table, rules)
        note(describe(table, hand, rules))
        legal = [s for s in sub_multisets(hand) if s and ref_can_place(melds, s, (), rules)]
        for chosen in [[]] + random_picks(rng, hand, 2):
            rest = Counter(hand) - Counter(chosen)
            want = tuple(sorted(k for k in rest if any(
                not (Counter(chosen) + Counter([k])) - Counter(s) for s in legal)))
            assert playable_cards(table, hand, chosen, rules) == want, (cards_text(chosen),)
            seen.append(1)

    check()
    assert sum(seen) >= 80


# --------------------------------------------------------------------------- hand-made cases
def texts(play):
    return [m.text() for m in play.melds]


def test_a_hand_joker_is_declared():
    play = play_cards([], "7S 8S JK", hand="7S 8S JK 2C")
    [meld] = play.melds
    assert meld.text() in ("JK(6S) 7S 8S", "7S 8S JK(9S)")
    assert play.played == (19 - 13, 7, JOKER) and play.points_left == 2 and play.can_knock
    check_play([], to_codes("7S 8S JK 2C"), play, CarouselRules())


def test_a_table_joker_replaced_is_used_again_with_a_new_card():
    table = ["5S 6S JK(7S)"]
    play = play_cards(table, "7S", hand="7S KD")
    assert texts(play) in (["JK(4S) 5S 6S 7S"], ["5S 6S 7S JK(8S)"])
    check_play(parse_table(table), to_codes("7S KD"), play, CarouselRules())


def test_a_table_joker_keeps_its_card():
    table = ["5S 6S JK(7S)", "9H 9D 9C"]
    play = play_cards(table, "9S", hand="9S")
    assert texts(play) == ["5S 6S JK(7S)", "9S 9H 9D 9C"]
    assert play.points_left == 0 and play.hand_points == 9


@pytest.mark.parametrize("table, cards, hand, rules, message", [
    (["6S 7S 8S"], "2C", "2C 9S", None, "2C has no place"),
    (["QH KH AH"], "2H 3H", None, None, "2H has no place"),
    (["4S 5S 6S"], "7S 7S", None, None, "7S 7S cannot all be placed in one play"),
    (["4S 5S 6S"], "7S", "8S 9S", None, "7S is not in the hand"),
    (["4S 5S 6S"], "7S 7S", "7S 8S", None, "7S is named twice, but the hand holds one"),
    (["4S 5S 6S"], "", "7S", None, "name at least one hand card"),
    ([], "JK", "JK 2C", None, "JK has no place"),
    (["5S 6S JK(7S)"], "JK", "JK 2C", CarouselRules(max_jokers_per_meld=1), "JK has no place"),
    (["5S 6S 7S"], "JK", "JK", CarouselRules(max_jokers_per_meld=0), "JK has no place"),
    # the table joker declared 7S can only be replaced by a natural 7S
    (["5S 6S JK(7S)", "9H 9D 9C"], "8S", "8S", None, None),
])
def test_refusals_name_the_reason_in_one_line(table, cards, hand, rules, message):
    if message is None:  # 5S 6S JK(7S) 8S: legal
        assert texts(play_cards(table, cards, hand, rules))[0] == "5S 6S JK(7S) 8S"
        return
    with pytest.raises(IllegalMove) as info:
        play_cards(table, cards, hand, rules)
    err = str(info.value)
    assert message in err and "\n" not in err and info.value.rule == "4", err
    assert not can_play_cards(table, cards, hand, rules)


@pytest.mark.parametrize("call, error, message", [
    (lambda: play_cards(["6S 7S 8S"], "9Q"), ValueError, "'9Q' is not a card"),
    (lambda: play_cards(["6S 7S 9S"], "5S"), ValueError, "is not a meld"),
    (lambda: play_cards(5, "5S"), TypeError, "a table is a list of melds or text"),
    (lambda: play_cards(["6S 7S 8S"], 5), TypeError, "a hand is card text"),
    (lambda: play_cards(["6S 7S 8S"], "5S", rules="x"), TypeError, "rules must be a CarouselRules"),
    (lambda: play_cards(["6S 7S 8S"], "6S 6S"), ValueError, "3 copies of 6S"),
    (lambda: play_cards(["6S 7S 8S"], "5S", hand="5S JK JK JK"), ValueError, "3 jokers"),
    (lambda: playable_cards(["6S 7S 8S"], "5S", "9S"), IllegalMove, "chosen 9S not in the hand"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_codes_and_numpy_ints():
    hand = np.array(to_codes("5S 9S 2C"), dtype=np.int64)
    play = play_cards([[5, 6, 7]], [hand[0], hand[1]], hand=list(hand))
    assert texts(play) == ["5S 6S 7S 8S 9S"] and play.points_left == 2


def test_the_game_accepts_the_play():
    """A play found for a player in a game is a legal move of the engine."""
    from rummy51.carousel.engine import GameState

    s = GameState.new(CarouselRules.for_players(2), seed=3)
    found = 0
    while not s.over and found < 5:
        if s.can_draw():
            s.draw()
        view = s.view()
        if view.phase.value in ("meld", "no_draw"):
            best = best_play(list(view.table), list(view.hand), s.rules)
            if best.can_meld:
                play = play_cards(list(view.table), best.played, list(view.hand), s.rules)
                s.meld(play.melds)
                found += 1
                if s.phase.value == "end":
                    s.pass_()
                continue
        while s.can_draw():
            s.draw()
        s.pass_()
    assert found == 5


def test_a_wrong_rebuilt_table_is_never_returned():
    """The count check behind play_cards refuses a table that is not the old one plus
    exactly the cards named (it guards the reconstruction; here fed wrong tables)."""
    from rummy51.carousel import GaveUp
    from rummy51.carousel.solver import _check_chosen_play

    old = parse_table(["5S 6S JK(7S)"])
    ok = parse_table(["5S 6S 7S JK(8S)"])
    _check_chosen_play(old, ok, to_codes("7S"))
    with pytest.raises(GaveUp, match="exactly the table and the cards named"):
        _check_chosen_play(old, ok, to_codes("8S"))
    with pytest.raises(GaveUp, match="changes the card of a joker declared 7S"):
        _check_chosen_play(old, parse_table(["5S 6S JK(4S)", "8S 9S 10S"]), to_codes("8S 9S 10S"))
