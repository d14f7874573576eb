"""Every hand-worked case of tests/data/cases/carousel-edge.json, through the core
(``rummy51.carousel.best_play`` and the batch twins) and through the reference; each
returned table is checked to be a legal play (``carousel_helpers.check_play``)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from carousel_helpers import case_rules, check_play
from rummy51 import carousel
from rummy51.carousel import reference
from rummy51.carousel.table import parse_table

CASES = json.loads((Path(__file__).parent / "data" / "cases" / "carousel-edge.json").read_text())


def _id(case):
    return f"{case['id']}: [{case['table_text'] or 'empty'}] + [{case['hand_text']}]"


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_core_golden(case):
    rules = case_rules(case)
    play = carousel.best_play(case["table"], case["hand_text"], rules)
    want = (case["best_points_left"], case["best_cards_played"])
    assert (play.points_left, play.cards_played) == want, case["why"]
    assert play.can_meld == case["can_meld"]
    assert play.can_knock == case["can_knock"]
    assert play.hand_points == case["hand_points"]
    assert carousel.can_meld(case["table"], case["hand_text"], rules) == case["can_meld"]
    assert carousel.can_knock(case["table"], case["hand_text"], rules) == case["can_knock"]
    check_play(parse_table(case["table"], rules), case["hand_codes"], play, rules, case["id"])


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_reference_golden(case):
    rules = case_rules(case)
    play = reference.best_play(case["table"], case["hand_text"], rules)
    want = (case["best_points_left"], case["best_cards_played"])
    assert (play.points_left, play.cards_played) == want, case["why"]
    assert play.can_meld == case["can_meld"]
    check_play(parse_table(case["table"], rules), case["hand_codes"], play, rules, case["id"])


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_golden_spellings_agree(case):
    """Text, ' | '-joined text and integer codes are the same position."""
    rules = case_rules(case)
    a = carousel.best_play(case["table"], case["hand_text"], rules)
    b = carousel.best_play(case["table_text"], case["hand"], rules)
    c = carousel.best_play(case["table_codes"], case["hand_codes"], rules)
    assert ((a.points_left, a.cards_played) == (b.points_left, b.cards_played)
            == (c.points_left, c.cards_played))


def test_golden_batch():
    """The batch twins give the same figures, per rule set, for any thread count."""
    by_rules = {}
    for case in CASES:
        by_rules.setdefault(tuple(sorted(case["rules"].items(), key=lambda kv: kv[0])), []).append(case)
    for cases in by_rules.values():
        rules = case_rules(cases[0])
        tables, hands = carousel.pack_positions([c["table_codes"] for c in cases],
                                                [c["hand_codes"] for c in cases], rules)
        for threads in (1, 2, 3):
            left, cards = carousel.best_play_values(tables, hands, rules, workers=threads)
            assert left.tolist() == [c["best_points_left"] for c in cases]
            assert cards.tolist() == [c["best_cards_played"] for c in cases]
        assert carousel.can_meld_flags(tables, hands, rules).tolist() == [c["can_meld"] for c in cases]
        assert carousel.can_knock_flags(tables, hands, rules).tolist() == [c["can_knock"] for c in cases]
        assert np.array_equal(carousel.best_play_points([c["table"] for c in cases],
                                                        [c["hand_text"] for c in cases], rules),
                              [c["best_points_left"] for c in cases])


def test_oracle_plays_are_legal():
    """The cases' own oracle plays pass the legality check (the check is not vacuous:
    a play that drops a table card fails it)."""
    from rummy51.carousel.solver import Play
    for case in CASES:
        if "oracle_play" not in case:
            continue
        rules = case_rules(case)
        melds = parse_table(case["oracle_play"]["table"], rules)
        played = tuple(sorted(carousel.parse_hand(" ".join(case["oracle_play"]["played"]))))
        total = rules.hand_points(case["hand_codes"])
        left = total - rules.hand_points(played)
        play = Play(left, len(played), played, tuple(melds), True, left <= 5, total)
        check_play(parse_table(case["table"], rules), case["hand_codes"], play, rules, case["id"])
        if case["table"]:
            broken = Play(left, len(played), played, tuple(melds[1:]), True, left <= 5, total)
            with pytest.raises(AssertionError):
                check_play(parse_table(case["table"], rules), case["hand_codes"], broken, rules)


def test_carousel_doctests():
    """The examples in the docstrings of rummy51.carousel run as written."""
    import doctest

    import rummy51.carousel.rules
    import rummy51.carousel.solver
    import rummy51.carousel.table

    for module in (rummy51.carousel, rummy51.carousel.rules, rummy51.carousel.table,
                   rummy51.carousel.solver):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, module.__name__


def test_stub_lists_the_extension():
    """src/rummy51/_carousel.pyi names every def and class of the extension, and no other."""
    import ast

    from rummy51 import _carousel

    stub = Path(_carousel.__file__).with_name("_carousel.pyi")
    tree = ast.parse(stub.read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    real = {name for name, obj in vars(_carousel).items()
            if callable(obj) and getattr(obj, "__module__", None) == "rummy51._carousel"
            and not name.startswith("__")}
    assert stubbed == real
