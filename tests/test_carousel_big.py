"""Big Carousel positions and the solver's limits (issue 31).

``best_play`` must answer every legal position the batch answers: before issue 31 its
path store was capped (2**20 entries) and a full store read as "no play", so it raised
``GaveUp`` on big positions and on the positions holding the whole two-deck set of
naturals with two jokers (``full_naturals_positions``: each case here gave up then).
Every answer is checked as a legal play (``check_play``) reaching the batch's figures.
The batch (``_solve``) tries the upper bound first on positions of 40 cards or more
(every placeable hand card placed), ``best_play`` (``_solve_play``) does not: equal
figures on these big positions show the bound changes no answer.

``node_limit`` / ``time_limit``: past them a call raises ``GaveUp`` naming the limit and
a batch row says it gave up (points_left -2, cards_played -4 or -5), never a wrong
answer; a row within its limit answers exactly as without one."""
from __future__ import annotations

import math

import numpy as np
import pytest

from carousel_big import big_positions, full_naturals_positions
from carousel_helpers import check_play
from rummy51 import carousel
from rummy51.cards import card_text
from rummy51.carousel import GaveUp
from rummy51.carousel.table import parse_hand, parse_table


def _check(table, hand, rules, **limits):
    play = carousel.best_play(table, hand, rules, **limits)
    left, cards = carousel.best_play_values([table], [hand], rules, workers=1)
    assert (play.points_left, play.cards_played) == (int(left[0]), int(cards[0]))
    check_play(parse_table(table, rules), parse_hand(hand), play, rules)
    return play


@pytest.mark.parametrize("i", range(len(full_naturals_positions())))
def test_full_two_deck_naturals_answer(i):
    table, hand, rules = full_naturals_positions()[i]
    play = _check(table, hand, rules)
    # every hand card fits: the table's runs take any natural, a joker extends one
    assert play.cards_played == len(hand)


@pytest.mark.parametrize("seed", [0, 1])
def test_big_positions_answer_like_the_batch(seed):
    """Big positions (50-100 table cards, 0-4 jokers, hands 8-20, one joker per meld or
    any, going out and not) that the batch answers within 30,000 states: best_play
    answers them too, with the batch's figures and a legal play."""
    positions = big_positions(16, 1000 + seed)
    checked = 0
    for table, hand, rules in positions:
        left, _ = carousel.best_play_values([table], [hand], rules, workers=1,
                                            node_limit=30_000)
        if left[0] == -2:
            continue
        _check(table, hand, rules)
        checked += 1
    assert checked >= 3


@pytest.mark.slow
def test_big_positions_slow():
    """The full two-deck naturals with one joker per meld (a minute each before issue
    31, then GaveUp) and more big positions, every one answered."""
    import dataclasses
    for table, hand, rules in full_naturals_positions():
        _check(table, hand, dataclasses.replace(rules, max_jokers_per_meld=1))
    for table, hand, rules in big_positions(40, 31):
        _check(table, hand, rules)


# --------------------------------------------------------------------------- limits
def _big():
    table, hand, rules = full_naturals_positions()[1]
    return table, hand, rules


def test_node_limit_gives_up_naming_it():
    table, hand, rules = _big()
    with pytest.raises(GaveUp, match=r"node_limit=1000 "):
        carousel.best_play(table, hand, rules, node_limit=1000)
    left, cards = carousel.best_play_values([table, ["AS 2S 3S"]], [hand, "4S"], rules,
                                            workers=1, node_limit=1000)
    assert left[0] == -2 and cards[0] == -4
    assert (left[1], cards[1]) == (0, 1)     # a small row answers within the limit


def test_time_limit_gives_up_naming_it():
    table, hand, rules = _big()
    with pytest.raises(GaveUp, match=r"time_limit=1e-09 s"):
        carousel.best_play(table, hand, rules, time_limit=1e-9)
    left, cards = carousel.best_play_values([table], [hand], rules, workers=1, time_limit=1e-9)
    assert left[0] == -2 and cards[0] == -5


def test_a_generous_limit_changes_nothing():
    table, hand, rules = full_naturals_positions()[0]
    free = carousel.best_play(table, hand, rules)
    assert carousel.best_play(table, hand, rules, node_limit=10**9, time_limit=600) == free


@pytest.mark.parametrize("kw, err, text", [
    ({"node_limit": 0}, ValueError, "node_limit must be positive"),
    ({"node_limit": -3}, ValueError, "node_limit must be positive"),
    ({"node_limit": True}, TypeError, "node_limit must be an int or None, got bool"),
    ({"node_limit": 2.5}, TypeError, "node_limit must be an int or None, got float"),
    ({"time_limit": 0}, ValueError, "time_limit must be a positive finite number"),
    ({"time_limit": -1.0}, ValueError, "time_limit must be a positive finite number"),
    ({"time_limit": math.nan}, ValueError, "time_limit must be a positive finite number"),
    ({"time_limit": math.inf}, ValueError, "time_limit must be a positive finite number"),
    ({"time_limit": "1"}, TypeError, "time_limit must be a number of seconds or None, got str"),
])
def test_bad_limits_are_one_line_errors(kw, err, text):
    for call in (lambda: carousel.best_play(["AS 2S 3S"], "4S", **kw),
                 lambda: carousel.best_play_values([["AS 2S 3S"]], ["4S"], **kw),
                 lambda: carousel.best_play_points([["AS 2S 3S"]], ["4S"], **kw)):
        with pytest.raises(err, match=text) as e:
            call()
        assert "\n" not in str(e.value)


def test_numpy_ints_are_limits():
    play = carousel.best_play(["AS 2S 3S"], "4S", node_limit=np.int64(1000))
    assert play.cards_played == 1


# --------------------------------------------------------------------------- the whole call
def _nodes(table, hand, rules):
    """``(search, reconstruction)``: the states ``best_play`` expands in each part."""
    from rummy51 import _carousel
    from rummy51.carousel.solver import _core_rules

    big = 10**12
    got = _carousel.single_best(_core_rules(rules), rules, table, hand, rules.knock_limit, big, 0)
    search = _carousel.last_nodes()
    assert got is not None and not isinstance(got, int)
    if not got.can_meld:
        return search, 0
    carousel.best_play(table, hand, rules, node_limit=big)   # melds arranged within the call
    return search, _carousel.last_nodes()


def _limits_positions():
    import random

    from carousel_big import big_position, big_rules

    rng = random.Random(77)
    for _ in range(24):
        rules = big_rules(rng.randint(1, 4), rng.random() < 0.5)
        table, hand = big_position(rng, rules, rng.randint(20, 40), rng.randint(6, 12),
                                   rng.random() < 0.5)
        # as texts: the C path reads them (one core run, then the melds)
        yield ([m.text() for m in parse_table(table, rules)],
               " ".join(card_text(c) for c in parse_hand(hand)), rules)


def test_the_limits_cover_the_meld_reconstruction():
    """A node limit counts the reconstruction's states too: the least limit that
    answers is the search's and the reconstruction's together (before, the search's
    alone answered, and the reconstruction ran on without a limit, up to 0.9 s past a
    time limit of 1 ms on these positions). Melds read off the play's own path expand
    no state: there the least limit is the search's."""
    seen = 0
    for table, hand, rules in _limits_positions():
        try:
            search, rebuild = _nodes(table, hand, rules)
        except GaveUp:
            continue
        total = search + rebuild
        free = carousel.best_play(table, hand, rules)
        assert carousel.best_play(table, hand, rules, node_limit=total) == free
        for limit in {total - 1, search + 1 if rebuild >= 2 else search - 1} - {0}:
            with pytest.raises(GaveUp, match=f"node_limit={limit} "):
                carousel.best_play(table, hand, rules, node_limit=limit)
        seen += 1
    assert seen >= 3


def _slots(melds):
    return sorted((c, r) for m in melds for c, r in zip(m.cards, m.represents, strict=True))


def test_the_limits_cover_melds_arranged_from_counts():
    """Where a play's melds cannot be read off its path, one run of the program on its
    counts arranges them (``source_melds`` of a source without the path): within a node
    limit it expands, -4 past it (``best_play`` then raises GaveUp naming the limit)."""
    from rummy51 import _carousel
    from rummy51.carousel.solver import _core_rules

    seen = 0
    for table, hand, rules in _limits_positions():
        core = _core_rules(rules)
        free = carousel.best_play(table, hand, rules)
        if not free.can_meld:
            continue
        from rummy51.carousel.solver import _position_counts

        st = _position_counts(table, hand, rules)[2]
        value, source = _carousel.play_source(core, bytes(st.T), bytes(st.H), bytes(st.D),
                                              st.JT, st.JH)
        assert source is not None and source[0] == 2
        counts = b"\x01" + source[1:106]          # the counts alone: no path to read
        got = _carousel.source_melds(core, counts, 10**12)
        spent = _carousel.last_nodes()
        # the same cards in the same slots (perhaps another arrangement of them)
        assert _slots(got) == _slots(free.melds)
        assert _carousel.source_melds(core, source) == free.melds     # off the path
        if spent < 2:
            continue
        assert _carousel.source_melds(core, counts, spent) == got
        assert _carousel.source_melds(core, counts, spent - 1) == -4
        seen += 1
    assert seen >= 3


def test_hard_positions_answer_within_a_time_limit_or_give_up():
    """Every position of the hard set, under a small time limit: a legal play reaching
    the exact figures, or GaveUp naming the limit, never another error. (How far past
    the limit a call returns is measured in bench/README.md, "Carousel solver: limits".)"""
    answered = gave = 0
    for table, hand, rules in big_positions(10, 31) + list(full_naturals_positions()):
        for limit in (0.001, 0.05):
            try:
                play = carousel.best_play(table, hand, rules, time_limit=limit)
            except GaveUp as e:
                assert f"time_limit={limit:g} s" in str(e)
                gave += 1
                continue
            left, cards = carousel.best_play_values([table], [hand], rules, workers=1)
            assert (play.points_left, play.cards_played) == (int(left[0]), int(cards[0]))
            check_play(parse_table(table, rules), parse_hand(hand), play, rules)
            answered += 1
    assert gave >= 1


def test_can_meld_on_big_positions_is_the_exact_answer():
    """``can_meld`` on 40-60 table cards (narrow, then wider beam searches for some play,
    then the program) says what the exact batch value says (> 0), for hands small
    enough (1 or 2 cards) that some have no play."""
    import random

    from carousel_big import big_position, big_rules

    rng = random.Random(3939)
    yes = no = 0
    for _ in range(80):
        rules = big_rules(rng.randint(0, 4), rng.random() < 0.5)
        table, hand = big_position(rng, rules, rng.randint(40, 60), rng.randint(1, 2), False)
        left, cards = carousel.best_play_values([table], [hand], rules, workers=1)
        exact = int(cards[0]) > 0
        assert carousel.can_meld(table, hand, rules) == exact
        assert carousel.best_play(table, hand, rules).can_meld == exact
        yes += exact
        no += not exact
    assert yes >= 5 and no >= 3
