"""Bad input to the Carousel API: one clear line naming what is wrong, a ValueError or a
TypeError (never a crash, an internal error, or a silent answer)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rummy51 import carousel
from rummy51.carousel import CarouselRules

TWO = CarouselRules.for_players(2)


def _raises(exc, pattern, fn, *args, **kwargs):
    with pytest.raises(exc, match=pattern) as info:
        fn(*args, **kwargs)
    message = str(info.value)
    assert "\n" not in message and len(message) < 200, message
    return message


# --------------------------------------------------------------------------- the table
@pytest.mark.parametrize("table, pattern", [
    (["6S 7S 9S"], r"meld '6S 7S 9S' is not a meld: the cards of a run must follow each other"),
    (["KS AS 2S"], r"meld 'KS AS 2S' is not a meld: .*no corner K A 2"),
    (["9S 9H"], r"meld '9S 9H' is not a meld: a meld has at least 3 cards"),
    (["9S 9H 9D 9C 9S"], r"meld '9S 9H 9D 9C 9S' is not a meld: a set has at most 4 cards"),
    (["9S 9S 9H"], r"meld '9S 9S 9H' is not a meld: two cards of one suit in a set"),
    (["9S 9H 8D"], r"meld '9S 9H 8D' is not a meld: not a set .* nor a run"),
    (["6S 7S 8S", "9H 9D 9C 10H"], r"meld '9H 9D 9C 10H' is not a meld"),
    ("6S 7S 8S || 9H 9D 9C", r"empty meld between '\|' separators"),
    ([""], r"meld '' is empty"),
])
def test_table_not_valid_to_begin_with(table, pattern):
    _raises(ValueError, pattern, carousel.best_play, table, "2C")
    _raises(ValueError, pattern, carousel.can_meld, table, "2C")
    _raises(ValueError, pattern, carousel.best_play_values, [table], ["2C"])


def test_ace_high_meld_with_a_low_only_ace():
    _raises(ValueError, r"meld 'QS KS AS' is not a meld: the ace is low only \(rules.ace_high is False\)",
            carousel.best_play, ["QS KS AS"], "2C", CarouselRules(ace_high=False))


@pytest.mark.parametrize("table, hand, rules, pattern", [
    (["6S 7S 8S"], "6S 6S 2C", None, r"table and hand hold 3 copies of 6S, but rules.decks is 2"),
    (["6S 7S 8S", "6S 7S 8S"], "8S", None, r"3 copies of 8S, but rules.decks is 2"),
    (["6S 7S 8S"], "6S", TWO, r"table and hand hold 2 copies of 6S, but rules.decks is 1"),
    (["6S 7S JK(8S)"], "JK JK", None, r"table and hand hold 3 jokers, but rules.jokers is 2"),
    (["6S 7S JK(8S)"], "JK", TWO, r"2 jokers, but rules.jokers is 1"),
    ([], "JK", CarouselRules(jokers=0), r"1 jokers, but rules.jokers is 0"),
])
def test_a_card_more_often_than_the_decks_hold(table, hand, rules, pattern):
    _raises(ValueError, pattern, carousel.best_play, table, hand, rules)
    _raises(ValueError, pattern, carousel.pack_positions, [table], [hand], rules)


def test_table_joker_without_a_declared_card():
    _raises(ValueError, r"meld '6S 7S JK': a joker on the table needs its declared card, like JK\(7S\)",
            carousel.best_play, ["6S 7S JK"], "2C")
    _raises(ValueError, r"a joker on the table needs its declared card",
            carousel.best_play, [[5, 6, 52]], "2C")
    _raises(ValueError, r"\[52\] is not a table joker; write \[52, declared\]",
            carousel.best_play, [[5, 6, [52]]], "2C")


@pytest.mark.parametrize("meld, pattern", [
    ("6S 7S JK(9S)", r"meld '6S 7S JK\(9S\)': the meld cannot hold the declared JK\(9S\)"),
    ("6S 7S JK(8H)", r"the meld cannot hold the declared JK\(8H\): not a set .* nor a run"),
    ("9S 9H JK(9S)", r"cannot hold the declared JK\(9S\): two cards of one suit in a set"),
    ("9S 9H 9D 9C JK(9S)", r"cannot hold the declared JK\(9S\): a set has at most 4 cards"),
    ("6S 7S 8S JK(8S)", r"cannot hold the declared JK\(8S\)"),
])
def test_declared_card_the_meld_cannot_hold(meld, pattern):
    _raises(ValueError, pattern, carousel.best_play, [meld], "2C")


def test_joker_rules_of_the_meld():
    _raises(ValueError, r"meld 'JK\(9S\) JK\(9H\) JK\(9D\)': a meld needs at least one natural card",
            carousel.best_play, ["JK(9S) JK(9H) JK(9D)"], "2C")
    _raises(ValueError, r"holds 2 jokers, but rules.max_jokers_per_meld is 1",
            carousel.best_play, ["6S JK(7S) JK(8S)"], "2C", CarouselRules(max_jokers_per_meld=1))
    _raises(ValueError, r"a joker is declared as a natural card, not 'JK\(JK\)'",
            carousel.best_play, ["6S 7S JK(JK)"], "2C")
    _raises(ValueError, r"a joker in hand is a plain JK",
            carousel.best_play, ["6S 7S 8S"], "JK(2C)")


# --------------------------------------------------------------------------- card text and codes
@pytest.mark.parametrize("table, hand, pattern", [
    (["6S 7S 8X"], "2C", r"meld '6S 7S 8X': '8X' is not a card: 'X' is not a suit"),
    (["6S 7S JK(8Z)"], "2C", r"meld '6S 7S JK\(8Z\)': '8Z' is not a card"),
    (["6S 7S 8S"], "2Q", r"hand '2Q': '2Q' is not a card: 'Q' is not a suit"),
    (["6S 7S 8S"], "11H", r"'11H' is not a card: the jack is written J or 12"),
    (["6S 7S 8S"], "7", r"'7' is not a card: write rank then suit"),
    (["6S 7S 8S"], ["7S", "1X"], r"hand: '1X' is not a card"),
    ([[5, 6, 99]], "2C", r"meld \[5, 6, 99\]: 99 is not a card code"),
    ([], [53], r"hand: 53 is not a card code"),
    ([], [255], r"hand: 255 is not a card code"),
])
def test_malformed_card_text_and_codes(table, hand, pattern):
    _raises(ValueError, pattern, carousel.best_play, table, hand)


@pytest.mark.parametrize("table, hand, pattern", [
    ([[True, 1, 2]], "2C", r"True is not a card code"),
    ([], [1.5], r"hand: 1.5 is not a card code"),
    (5, "2C", r"a table is a list of melds or text, got int"),
    ([], 5, r"a hand is card text or a list of card codes, got int"),
    ([5], "2C", r"a meld is text or a list of cards, got int"),
])
def test_wrong_types(table, hand, pattern):
    _raises(TypeError, pattern, carousel.best_play, table, hand)


def test_rules_must_be_carousel_rules():
    from rummy51 import RuleSet
    _raises(TypeError, r"rules must be a CarouselRules, got RuleSet", carousel.best_play, [], "2C",
            RuleSet())
    _raises(TypeError, r"rules must be a CarouselRules, got str", carousel.can_meld, [], "2C", "x")


# --------------------------------------------------------------------------- batch arrays
def _arrays(table="6S 7S 8S", hand="2C"):
    return carousel.pack_positions([table], [hand])


@pytest.mark.parametrize("tables, pattern", [
    (np.zeros((2, 3), np.int64), r"tables must be a 2-D uint8 array .* got shape \(2, 3\) and dtype int64"),
    (np.zeros((2, 3, 1), np.uint8), r"got shape \(2, 3, 1\) and dtype uint8"),
    (np.zeros(3, np.uint8), r"got shape \(3,\) and dtype uint8"),
    (np.zeros((2, 3), np.float32), r"dtype float32"),
])
def test_batch_wrong_dtype_or_shape(tables, pattern):
    hands = np.full((len(tables), 2), 255, np.uint8)
    for fn in (carousel.best_play_values, carousel.best_play_points, carousel.can_meld_flags,
               carousel.can_knock_flags):
        _raises(ValueError, pattern, fn, tables, hands)
    _raises(ValueError, r"hands must be a 2-D uint8 array .* dtype int32",
            carousel.best_play_values, *(_arrays()[0], _arrays()[1].astype(np.int32)))


def test_batch_rows_and_kinds_must_match():
    t, h = _arrays()
    _raises(ValueError, r"same number of rows, got 1 and 2", carousel.best_play_values, t,
            np.vstack([h, h]))
    _raises(TypeError, r"both be numpy arrays .* or both lists of positions, got ndarray and list",
            carousel.best_play_values, t, ["2C"])
    _raises(ValueError, r"tables and hands must have the same length, got 1 and 2",
            carousel.best_play_values, [["6S 7S 8S"]], ["2C", "3C"])
    _raises(TypeError, r"must be a numpy array \(see pack_positions\), got list",
            carousel.solver._as_array, [[1]], "tables")


def test_batch_bad_rows_are_named():
    t, h = carousel.pack_positions(["6S 7S 8S", "9H 9D 9C"], ["2C", "3C"])
    bad = t.copy()
    bad[1, 2] = 105
    _raises(ValueError, r"tables row 1, column 2: 105 is not a table code", carousel.best_play_values, bad, h)
    bad = h.copy()
    bad[1, 0] = 60
    _raises(ValueError, r"hands row 1, column 0: 60 is not a hand code", carousel.best_play_values, t, bad)
    bad = h.copy()
    bad[1, 0] = 34  # 9D: a third copy with the table's
    bad = np.hstack([bad, np.array([[255], [34]], np.uint8)])
    _raises(ValueError, r"row 1: table and hand hold 3 copies of 9D, but rules.decks is 2",
            carousel.best_play_values, t, bad)
    jokers = np.array([[52, 52], [255, 255]], np.uint8)
    _raises(ValueError, r"row 0: table and hand hold 2 jokers, but rules.jokers is 1",
            carousel.best_play_values, t, jokers, TWO)
    # a batch row is only cards: a row no arrangement can hold is named
    invalid = np.array([[5, 6, 8, 255], [8, 21, 34, 255]], np.uint8)
    _raises(ValueError, r"tables row 0 is not a valid table: its cards cannot be arranged",
            carousel.best_play_values, invalid, h)
    # the row numbers are the caller's, whichever thread meets the row
    many_t = np.repeat(t, 600, axis=0)
    many_h = np.repeat(h, 600, axis=0)
    many_h[1000, 0] = 77
    _raises(ValueError, r"hands row 1000, column 0", carousel.best_play_values, many_t, many_h,
            workers=2)


@pytest.mark.parametrize("threads", [0, -1, 1.5, True, "2"])
def test_batch_threads(threads):
    t, h = _arrays()
    _raises(ValueError, r"workers must be a positive int or None", carousel.best_play_values, t, h,
            workers=threads)
    with pytest.warns(DeprecationWarning, match="threads is deprecated"):   # the old name
        _raises(ValueError, r"threads must be a positive int or None", carousel.best_play_values,
                t, h, threads=threads)


def test_batch_numpy_thread_count_is_fine():
    t, h = _arrays()
    assert carousel.best_play_values(t, h, workers=np.int64(2))[0].tolist() == [2]


# --------------------------------------------------------------------------- CarouselRules
FIELDS = [f.name for f in dataclasses.fields(CarouselRules)]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int64, np.uint64])
def test_numpy_integers_become_python_ints(dtype):
    r = CarouselRules(players=dtype(3), decks=dtype(2), jokers=dtype(2), max_jokers_per_meld=dtype(1),
                      knock_limit=dtype(100), joker_value=dtype(25), hand_size=dtype(10))
    for name in FIELDS:
        value = getattr(r, name)
        assert type(value) in (int, bool, str, type(None)), (name, type(value))
    # never computed in the small dtype: 25 * 4 jokers in hand would wrap in int8
    assert r.hand_points([52, 52]) == 50
    play = carousel.best_play([], "JK JK 2C", dataclasses.replace(r, jokers=dtype(2)))
    assert type(play.points_left) is int and play.points_left == 52
    r2 = dataclasses.replace(CarouselRules(), knock_limit=np.uint8(200))
    assert r2.knock_limit == 200 and type(r2.knock_limit) is int
    assert CarouselRules.for_players(np.int64(2)).decks == 1
    assert type(CarouselRules(ace_high=np.bool_(False)).ace_high) is bool


@pytest.mark.parametrize("name, value", [
    ("jokers", 2.0), ("jokers", np.float64(2)), ("jokers", "2"), ("jokers", True), ("jokers", np.bool_(True)),
    ("decks", None), ("knock_limit", 5.5), ("max_jokers_per_meld", True), ("players", [4]),
    ("ace_high", 1), ("ace_high", "yes"), ("round_bonus_for_all", 0),
])
def test_rule_fields_of_the_wrong_type(name, value):
    kind = "a bool" if name in ("ace_high", "round_bonus_for_all") else "an int"
    _raises(TypeError, rf"CarouselRules.{name} must be {kind}, got", CarouselRules, **{name: value})


@pytest.mark.parametrize("name, value, pattern", [
    ("players", 1, r"players must be 2..6, got 1"),
    ("players", 7, r"players must be 2..6, got 7"),
    ("decks", 0, r"decks must be 1..2, got 0"),
    ("decks", 3, r"decks must be 1..2, got 3"),
    ("jokers", -1, r"jokers must be 0..4, got -1"),
    ("jokers", 5, r"jokers must be 0..4, got 5"),
    ("max_jokers_per_meld", -1, r"max_jokers_per_meld must be 0..4, got -1"),
    ("max_jokers_per_meld", 5, r"max_jokers_per_meld must be 0..4, got 5"),
    ("ace_value", 0, r"ace_value must be 1..100, got 0"),
    ("face_value", 101, r"face_value must be 1..100, got 101"),
    ("joker_value", 0, r"joker_value must be 1..200, got 0"),
    ("joker_value", np.int64(2**40), r"joker_value must be 1..200, got 1099511627776"),
    ("hand_size", 0, r"hand_size must be 1..60, got 0"),
    ("hand_size", 30, r"hand_size 30 for 4 players needs 120 cards, but the deck has 106"),
    ("knock_limit", -1, r"knock_limit must be 0..1000, got -1"),
    ("undercut_bonus", -5, r"undercut_bonus must be 0..100000, got -5"),
    ("target_score", 0, r"target_score must be 1..1000000, got 0"),
    ("target_score", np.uint64(2**63), r"target_score must be 1..1000000, got 9223372036854775808"),
])
def test_rule_fields_out_of_range(name, value, pattern):
    _raises(ValueError, pattern, CarouselRules, **{name: value})


def test_six_players_need_two_decks():
    _raises(ValueError, r"players may be 6 only with two decks, got decks=1", CarouselRules, players=6,
            decks=1, jokers=1)
    _raises(ValueError, r"players must be 2..6, got 9", CarouselRules.for_players, 9)
    _raises(TypeError, r"players must be an int, got 2.0", CarouselRules.for_players, 2.0)

