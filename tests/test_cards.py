"""Cards: the integer codes, the text notation of docs/rules.md section 1, error messages, Hand."""
from __future__ import annotations

import doctest
import re

import numpy as np
import pytest

import rummy51
import rummy51.cards
from rummy51 import RuleSet
from rummy51.cards import (
    JOKER,
    PAD,
    RANKS,
    SUITS,
    Hand,
    card_rank,
    card_suit,
    card_text,
    cards_text,
    make_card,
    parse_card,
    parse_cards,
    to_codes,
)

ALL_CODES = list(range(53))  # 0..51 naturals, 52 the joker


# --------------------------------------------------------------------------- codes
def test_code_layout_matches_rules_md():
    # suit * 13 + (rank - 1), suits S H D C, ranks A=1 .. K=13; 52 the joker; 255 pads
    assert (JOKER, PAD) == (52, 255)
    assert SUITS == "SHDC"
    assert RANKS == ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    assert [card_text(c) for c in (0, 12, 13, 51, 52)] == ["AS", "KS", "AH", "KC", "JK"]
    for suit in range(4):
        for rank in range(1, 14):
            code = make_card(rank, suit)
            assert code == suit * 13 + rank - 1
            assert (card_rank(code), card_suit(code)) == (rank, suit)


@pytest.mark.parametrize("rank, suit", [(0, 0), (14, 0), (1, 4), (1, -1)])
def test_make_card_refuses_what_is_no_card(rank, suit):
    with pytest.raises(ValueError, match=r"no card of rank .* rank is 1\.\.13, suit 0\.\.3"):
        make_card(rank, suit)


@pytest.mark.parametrize("code", ALL_CODES)
def test_every_code_round_trips_through_text(code):
    text = card_text(code)
    assert parse_card(text) == code
    assert parse_card(text.lower()) == code
    assert parse_card(f"  {text} ") == code
    utext = card_text(code, unicode=True)
    assert parse_card(utext) == code
    if code != JOKER:
        assert utext[-1] in "♠♥♦♣" and utext[:-1] == text[:-1]
    else:
        assert utext == "JK"


def test_every_card_of_the_deck_round_trips_through_hand_text():
    deck = RuleSet().deck()
    assert len(deck) == 108
    for unicode in (False, True):
        text = cards_text(deck, unicode=unicode)
        assert parse_cards(text) == deck.tolist()
        assert Hand(text, rules=RuleSet()).codes == tuple(deck.tolist())


# --------------------------------------------------------------------------- spellings
@pytest.mark.parametrize(
    "spellings, code",
    [
        (["10D", "TD", "10d", "td", "10♦", "T♦", "t♦"], 35),
        (["QH", "13H", "qh", "13h", "Q♥", "q♥", "13♥"], 24),  # original numbering: 13 = queen
        (["KH", "14H", "kh", "14h", "K♥"], 25),  # 14 = king
        (["AS", "1S", "as", "1s", "A♠", "1♠"], 0),  # 1 = ace
        (["JH", "12H", "jh", "12h", "J♥"], 23),  # 12 = jack
        (["JK", "*", "jk", "Jk"], JOKER),
        (["7S", "7s", "7♠"], 6),
        (["2C", "2c", "2♣"], 40),
        (["KC", "kc", "14C", "K♣"], 51),
        (["AD", "ad", "1D", "A♦"], 26),
    ],
)
def test_every_spelling_of_rules_md_is_accepted(spellings, code):
    for s in spellings:
        assert parse_card(s) == code, s


def test_parse_cards_separators_and_case():
    assert parse_cards("7S 8s,9♠; JK  *") == [6, 7, 8, JOKER, JOKER]
    assert parse_cards("") == []
    assert parse_cards("   ") == []


def test_rules_md_examples_in_text():
    # docs/rules.md section 4: 6♠ 7♠ 8♠ + 10♦ 10♣ 10♥
    assert Hand("6♠ 7♠ 8♠ 10♦ 10♣ 10♥") == Hand("6S 7S 8S 10D 10C 10H")
    # docs/rules.md section 3: Q♠ K♠ A♠ JK
    assert Hand("Q♠ K♠ A♠ JK").codes == (0, 11, 12, JOKER)


# --------------------------------------------------------------------------- error messages
def test_11_says_the_jack_is_written_j_or_12():
    with pytest.raises(ValueError) as e:
        parse_card("11H")
    assert str(e.value) == "'11H' is not a card: the jack is written J or 12"
    with pytest.raises(ValueError, match="the jack is written J or 12"):
        parse_cards("7S 11C")
    with pytest.raises(ValueError, match=re.escape("'11♥' is not a card: the jack is written J or 12")):
        Hand("11♥")


@pytest.mark.parametrize("token, bad", [("7X", "'X'"), ("QZ", "'Z'"), ("10", "'0'"),
                                        ("AA", "'A'")])
def test_bad_suit_message(token, bad):
    with pytest.raises(ValueError) as e:
        parse_card(token)
    msg = str(e.value)
    assert msg.startswith(f"{token!r} is not a card")
    assert f"{bad} is not a suit" in msg
    assert "S H D C" in msg and "♠ ♥ ♦ ♣" in msg


@pytest.mark.parametrize("token, bad", [("15H", "'15'"), ("0H", "'0'"), ("BH", "'B'"),
                                        ("1OS", "'1O'"), ("100D", "'100'")])
def test_bad_rank_message(token, bad):
    with pytest.raises(ValueError) as e:
        parse_card(token)
    msg = str(e.value)
    assert msg.startswith(f"{token!r} is not a card")
    assert f"{bad} is not a rank" in msg
    assert "A 2..10 T J Q K" in msg and "1 2..10 12 13 14" in msg


@pytest.mark.parametrize("token", ["", "H", "7"])
def test_too_short_message(token):
    with pytest.raises(ValueError, match=re.escape(f"{token!r} is not a card: write rank then suit")):
        parse_card(token)


def test_text_functions_refuse_non_strings():
    with pytest.raises(TypeError, match="a card in text notation is a str, got int"):
        parse_card(7)
    with pytest.raises(TypeError, match="cards as text must be a str, got list"):
        parse_cards(["7S"])
    with pytest.raises(TypeError, match="cards must be text, a Hand or an iterable of card codes, got int"):
        Hand(7)


@pytest.mark.parametrize("code", [53, 60, 254, -1, 7.5, True])
def test_code_outside_0_52_in_a_hand(code):
    with pytest.raises(ValueError) as e:
        Hand([1, 2, code])
    assert str(e.value) == f"{code!r} is not a card code: codes are integers 0..51 or 52 (joker)"
    with pytest.raises(ValueError, match="is not a card code"):
        rummy51.best_opening([1, 2, code])


def test_code_255_in_a_hand_says_it_only_pads():
    msg = "card code 255 only pads the rows of a 2-D array of hands; it is not a card"
    for bad in ([1, 2, 255], np.array([1, 2, 255], dtype=np.uint8)):
        with pytest.raises(ValueError) as e:
            Hand(bad)
        assert str(e.value) == msg
    with pytest.raises(ValueError, match=re.escape(msg)):
        card_text(255)
    with pytest.raises(ValueError, match=re.escape(msg)):
        rummy51.can_open([1, 2, 255])


@pytest.mark.parametrize("code", [53, -1])
def test_card_text_refuses_bad_codes(code):
    with pytest.raises(ValueError, match=f"{code} is not a card code: codes are integers 0..51 or 52"):
        card_text(code)


def test_numpy_hands_must_be_1d_integer_arrays():
    with pytest.raises(ValueError, match=r"a hand must be a 1-D array of card codes, got shape \(1, 2\)"):
        Hand(np.array([[1, 2]]))
    with pytest.raises(ValueError, match="a hand must be an integer array of card codes, got dtype float64"):
        Hand(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="53 is not a card code"):
        Hand(np.array([1, 53]))


def test_three_copies_with_two_decks():
    msg = "hand holds 3 copies of 7S, but rules.decks is 2"
    with pytest.raises(ValueError) as e:
        Hand("7S 7S 7S", rules=RuleSet())
    assert str(e.value) == msg
    for call in (rummy51.best_opening, rummy51.can_open, rummy51.can_go_out, rummy51.min_deadwood):
        with pytest.raises(ValueError, match=re.escape(msg)):
            call("7S 8S 7S 9S 7S")
    # without rules a Hand is just a multiset; one deck allows one copy
    assert len(Hand("7S 7S 7S")) == 3
    with pytest.raises(ValueError, match=re.escape("hand holds 2 copies of QD, but rules.decks is 1")):
        Hand("QD 12D QD", rules=RuleSet.gin())  # 12D is the jack: only QD is doubled


def test_five_jokers_with_four_in_the_deck():
    msg = "hand holds 5 jokers, but rules.jokers is 4"
    with pytest.raises(ValueError) as e:
        Hand("JK * JK JK JK 7S", rules=RuleSet())
    assert str(e.value) == msg
    for call in (rummy51.best_opening, rummy51.can_open, rummy51.can_go_out, rummy51.min_deadwood):
        with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
            call("JK JK 7S JK JK JK")
    with pytest.raises(ValueError, match=re.escape("hand holds 3 jokers, but rules.jokers is 2")):
        rummy51.min_deadwood("JK JK JK", RuleSet(jokers=2))
    assert Hand("JK JK JK JK", rules=RuleSet()).jokers == 4
    assert rummy51.min_deadwood("JK JK JK JK") == 80


def test_one_joker_too_many_message_is_singular():
    # both the Hand check (cards.check_counts) and the solver's core
    for check in (lambda: Hand("7S JK", rules=RuleSet.gin()),
                  lambda: rummy51.best_opening("7S JK", RuleSet.gin())):
        with pytest.raises(ValueError) as e:
            check()
        assert str(e.value) == "hand holds 1 joker, but rules.jokers is 0"


# --------------------------------------------------------------------------- Hand
def test_hand_is_a_sorted_multiset_with_jokers_last():
    h = Hand("JK 7S 2C 7S")
    assert h.codes == (6, 6, 40, JOKER)
    assert list(h) == [6, 6, 40, JOKER]
    assert len(h) == 4
    assert h.jokers == 1
    assert h.naturals == (6, 6, 40)
    assert h.text() == "7S 7S 2C JK" == str(h)
    assert h.text(unicode=True) == "7♠ 7♠ 2♣ JK"
    assert repr(h) == "Hand('7S 7S 2C JK')"
    assert eval(repr(h), {"Hand": Hand}) == h


def test_hand_equality_ignores_order_and_spelling():
    a = Hand("10D JK 7s")
    for same in ("7♠ TD *", [6, 35, 52], (52, 35, 6), np.array([35, 6, 52], dtype=np.uint8),
                 np.array([35, 6, 52], dtype=np.int64), ["7S", 35, "JK"], a):
        b = Hand(same)
        assert b == a and hash(b) == hash(a)
    assert Hand("7S 8S") != Hand("7S 8S 8S")
    assert Hand("7S") != (6,)  # a Hand equals only Hands
    assert len({Hand("7S 8S"), Hand("8S 7S"), Hand("7S")}) == 2


def test_hand_contains_text_or_codes():
    h = Hand("7S 8S JK")
    assert "7S" in h and "7♠" in h and 6 in h and "JK" in h and JOKER in h and "*" in h
    assert "9S" not in h and 8 not in h


def test_hand_is_immutable():
    h = Hand("7S 8S")
    with pytest.raises(AttributeError, match="Hand is immutable"):
        h.codes = (1,)
    with pytest.raises(AttributeError):
        h.extra = 1


def test_hand_array_and_empty_hand():
    h = Hand("AS KC JK")
    arr = h.array()
    assert arr.dtype == np.uint8 and arr.tolist() == [0, 51, 52]
    empty = Hand()
    assert len(empty) == 0 and empty.codes == () and empty.text() == "" and empty.jokers == 0
    assert Hand("") == Hand([]) == empty


def test_to_codes_accepts_text_codes_hands_and_arrays():
    assert to_codes("7S JK") == [6, 52]
    assert to_codes(Hand("JK 7S")) == [6, 52]
    assert to_codes(np.array([6, 52], dtype=np.uint16)) == [6, 52]
    assert to_codes(iter([6, 52])) == [6, 52]
    assert to_codes([np.uint8(6), np.int64(52)]) == [6, 52]


def test_cards_doctests():
    result = doctest.testmod(rummy51.cards, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("bad", [7.0, 7.5, True, "x7"])
def test_non_integer_codes_are_refused(bad):
    with pytest.raises(ValueError):
        Hand([bad])
