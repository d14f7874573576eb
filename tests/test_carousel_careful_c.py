"""The careful bot's undercut estimate in C (``_carousel._undercut_risk``) against
``carousel.bots.undercut_risk``: the same risk bit for bit and the generator left in
the same state, on random views (few cards in the other hands, so the risk is neither
0 nor 1), for any seed."""
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rummy51 import _carousel
from rummy51.carousel import CarouselRules
from rummy51.carousel.bots import undercut_risk


def _pool_values(rules, hand, table_cards):
    pool = list(rules.deck())
    for c in list(hand) + list(table_cards):
        pool.remove(c)
    return np.array([rules.card_value(c) for c in pool], np.int32)


@st.composite
def views(draw):
    players = draw(st.integers(2, 5))
    rules = CarouselRules.for_players(players)
    deck = list(rules.deck())
    order = draw(st.permutations(range(len(deck))))
    seen = draw(st.integers(1, len(deck) - 1))
    cards = [deck[i] for i in order[:seen]]
    cut = draw(st.integers(0, len(cards)))
    hand, table_cards = cards[:cut], cards[cut:]
    me = draw(st.integers(0, players - 1))
    m = len(deck) - seen
    sizes = [len(hand) if p == me else draw(st.integers(0, min(m + 3, 6)))
             for p in range(players)]
    table = [SimpleNamespace(cards=tuple(table_cards))]
    view = SimpleNamespace(rules=rules, hand=tuple(hand), table=table,
                           hand_sizes=tuple(sizes), player=me)
    return view, _pool_values(rules, hand, table_cards)


@settings(max_examples=300, deadline=None)
@given(views(), st.integers(0, 40), st.integers(1, 60), st.integers(0, 2**32 - 1))
def test_undercut_risk_in_c_is_the_python_estimate(vv, points, samples, seed):
    view, values = vv
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    want = undercut_risk(view, points, a, samples)
    got = _carousel._undercut_risk(b, values, list(view.hand_sizes), view.player, points,
                                   samples)
    assert got == want
    assert a.bit_generator.state == b.bit_generator.state


def test_the_estimate_is_not_trivial():
    """The cases above reach risks strictly between 0 and 1 (the test can fail)."""
    rules = CarouselRules.for_players(3)
    view = SimpleNamespace(rules=rules, hand=(), table=[], hand_sizes=(0, 2, 3), player=0)
    values = _pool_values(rules, (), ())
    r = _carousel._undercut_risk(np.random.default_rng(1), values, [0, 2, 3], 0, 8, 200)
    assert 0.0 < r < 1.0
    assert r == undercut_risk(view, 8, np.random.default_rng(1), 200)


@pytest.mark.parametrize("bad, msg", [
    (dict(hand_sizes=[]), "hand_sizes"),
    (dict(values=np.zeros(0, np.int32)), "values"),
    (dict(samples=0), "samples"),
])
def test_bad_arguments(bad, msg):
    args = dict(values=np.ones(10, np.int32), hand_sizes=[1, 2], samples=5)
    args.update(bad)
    with pytest.raises(ValueError, match=msg):
        _carousel._undercut_risk(np.random.default_rng(0), args["values"], args["hand_sizes"],
                                 0, 5, args["samples"])
