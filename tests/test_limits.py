"""Hands too large to search exactly give a clear error, never a hang or a crash."""
import numpy as np
import pytest

import rummy51
from rummy51 import _core


@pytest.fixture
def small_budget():
    old = _core._py_node_limit(1000)
    yield
    _core._py_node_limit(old)


def test_whole_deck_hits_the_budget_with_a_clear_error(small_budget):
    deck = list(rummy51.RuleSet().deck())
    with pytest.raises(RuntimeError, match=r"hand is too large to solve exactly.*108 cards"):
        rummy51.best_opening(deck)


def test_batch_names_the_row_over_budget(small_budget):
    hands = rummy51.deal(3, 60, seed=4)
    hands[0, :] = 255  # an empty row is fine
    with pytest.raises(RuntimeError, match=r"hands\[1\] is too large to solve exactly"):
        rummy51.best_opening_values(hands, workers=1)


def test_budget_does_not_touch_normal_hands(small_budget):
    # a dealt 15-card hand needs far fewer nodes than even this small budget
    hands = rummy51.deal(200, 15, seed=9)
    _core._py_node_limit(10**8)
    expected = rummy51.best_opening_values(hands)
    _core._py_node_limit(1000)
    assert np.array_equal(rummy51.best_opening_values(hands), expected)


def test_node_limit_hook_validates():
    with pytest.raises(ValueError):
        _core._py_node_limit(0)
