"""The C meld reconstruction (``solver._rebuild``, ``_carousel.rebuild_counts``) gives
exactly the melds of the slow Python reference (``solver._rebuild_python``), and
``best_play``'s own melds (``solver._rebuild_path``: the program's path, arranged by
``_rebuild`` with nothing left to choose) are a legal play reaching the same figures.

``best_play`` rebuilds the table of the core's best value meld by meld; the C port
must take the same steps: the same candidate melds in the same order, the same
fillings, the same table-jokers-first rule, the same skipped hand cards, the same
GaveUp errors. Each position is answered both ways and the two Plays (melds in
the order rebuilt, before sorting, and the sorted Play) must be equal; the C play
is checked legal (``carousel_helpers.check_play``) and to reach the figures of the
batch core.

=================================  ===============================================  =====
test                               positions                                        count
=================================  ===============================================  =====
test_random_rebuild_matches        100 examples x 10: 0-5 melds anywhere             1000
test_dense_rebuild_matches         100 examples x 10: 3-6 overlapping melds, jokers  1000
test_table_joker_rebuild_matches   50 examples x 10: tables full of jokers            500
=================================  ===============================================  =====
                                                                              total  2500

plus every case of tests/data/cases/carousel-edge.json, and wrong targets (one
point or card more than the best value, or fewer) that make both give up alike; and
the game kernel's way of the same reconstruction (``rebuild_counts(..., game=True)``:
its round memo of the solver's answers and its shortcuts) gives the same melds.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, note, settings

from carousel_helpers import case_rules, check_play, describe
from rummy51 import _carousel, carousel
from rummy51.carousel import solver
from rummy51.carousel.table import parse_table
from test_carousel_properties import SETTINGS, seeded_batch, table_joker_batch

CASES = json.loads((Path(__file__).parent / "data" / "cases" / "carousel-edge.json").read_text())


def _both(table, hand, rules):
    """The parsed table, its counts, the core rules and the core's value of a position."""
    melds, codes = solver._position(table, hand, rules)
    counts = solver._counts(melds, codes)
    core = solver._core_rules(rules)
    value = counts.value(core)
    return melds, counts, core, value


def compare(rules, positions, wrong_targets: bool = False) -> None:
    left, cards = carousel.best_play_values([t for t, _ in positions], [h for _, h in positions], rules)
    for k, (table, hand) in enumerate(positions):
        where = describe(table, hand, rules)
        melds, counts, core, value = _both(table, hand, rules)
        if value > 0:
            fast = solver._rebuild(counts, value, rules, core)
            slow = solver._rebuild_python(counts, value, rules, core)
            assert fast == slow, where
            assert _game_way(counts, value, core) == _game_way(counts, value, core, False), where
        c_play = solver._best_play(table, hand, rules, solver._rebuild)
        py_play = solver._best_play(table, hand, rules, solver._rebuild_python)
        assert c_play == py_play, where
        assert (c_play.points_left, c_play.cards_played) == (int(left[k]), int(cards[k])), where
        check_play(melds, hand, c_play, rules, where)
        # best_play's own melds (the program's path, rebuilt with nothing to choose)
        path_play = carousel.best_play(table, hand, rules)
        assert (path_play.points_left, path_play.cards_played) == (int(left[k]), int(cards[k])), where
        check_play(melds, hand, path_play, rules, where)
        if wrong_targets and k < 2 and value > 0:
            for target in (value + 1, value + 256, value - 1):
                assert _outcome(solver._rebuild, counts, target, rules, core) == \
                    _outcome(solver._rebuild_python, counts, target, rules, core), (target, where)
                assert _game_way(counts, target, core) == \
                    _game_way(counts, target, core, False), (target, where)


def _game_way(counts, target, core, game=True):
    """``rebuild_counts`` the game kernel's way (its round memo and shortcuts: one compiled
    copy of the same reconstruction) or the solver's: they must give the same melds."""
    return _carousel.rebuild_counts(core, bytes(counts.T), bytes(counts.H), bytes(counts.D),
                                    counts.JT, counts.JH, target, game=game)


def _outcome(rebuild, counts, target, rules, core):
    try:
        return rebuild(counts, target, rules, core)
    except solver.GaveUp as e:
        return ("GaveUp", str(e))


def run(strategy, examples: int, wrong_targets: bool = False) -> int:
    seen = []

    @settings(max_examples=examples, **SETTINGS)
    @given(strategy)
    def check(batch):
        rules, positions = batch
        for table, hand in positions:
            note(describe(table, hand, rules))
        compare(rules, positions, wrong_targets)
        seen.append(len(positions))

    check()
    return sum(seen)


def test_random_rebuild_matches():
    assert run(seeded_batch(dense=False, max_melds=5), 100, wrong_targets=True) >= 1000


def test_dense_rebuild_matches():
    assert run(seeded_batch(dense=True, max_melds=6, max_fit=7), 100, wrong_targets=True) >= 1000


def test_table_joker_rebuild_matches():
    assert run(table_joker_batch(), 50) >= 500


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_golden_rebuild_matches(case):
    rules = case_rules(case)
    c_play = solver._best_play(case["table"], case["hand_text"], rules, solver._rebuild)
    py_play = solver._best_play(case["table"], case["hand_text"], rules, solver._rebuild_python)
    assert c_play == py_play
    for play in (c_play, carousel.best_play(case["table"], case["hand_text"], rules)):
        assert (play.points_left, play.cards_played) == (case["best_points_left"], case["best_cards_played"])
        check_play(parse_table(case["table"], rules), case["hand_codes"], play, rules, case["id"])


def test_gave_up_alike():
    """A target no play reaches: both reconstructions raise the same GaveUp."""
    rules = carousel.CarouselRules()
    melds, counts, core, value = _both(["6S 7S 8S", "9H 9D 9C"], "5S 9S JK 2C", rules)
    for target in (value + 1, value - 1, value + 256, 1):
        a = _outcome(solver._rebuild, counts, target, rules, core)
        b = _outcome(solver._rebuild_python, counts, target, rules, core)
        assert a == b, target
