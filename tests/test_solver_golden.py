"""The fast solver (rummy51.solver and its Cython core) against the hand-worked golden cases.

tests/data/cases/{edge,variants}.json (a copy of the shared cases; fields in their README):
each case goes through the single-hand API, in every accepted spelling, and through the
batch functions; every returned opening is checked to be legal (``check_opening``).
"""
from __future__ import annotations

import doctest
import json
from collections import Counter, defaultdict

import numpy as np
import pytest

import rummy51
import rummy51.solver
from rummy51 import (
    Hand,
    RuleSet,
    best_opening,
    best_opening_values,
    can_go_out,
    can_go_out_flags,
    can_open,
    can_open_flags,
    min_deadwood,
    min_deadwood_values,
    pack_hands,
)
from rummy51.cards import JOKER, parse_card, parse_cards


def _rules(case: dict) -> RuleSet:
    return RuleSet(**case.get("rules", {}))


def test_golden_files_are_loaded(golden_cases):
    assert len(golden_cases) >= 100
    assert any(c.get("rules") for c in golden_cases) and any("alt_text" in c for c in golden_cases)


def test_golden_case(golden_case, check_opening):
    case = golden_case
    rules, cards, keep = _rules(case), case["cards"], case["keep"]
    why = f"{case['text'] or '(empty)'}: {case['why']}"
    opening = best_opening(cards, rules, keep=keep)
    assert opening.value == case["best_opening"], why
    check_opening(opening, cards, rules, keep=keep)
    assert opening.can_open == case["can_open"], why
    assert can_open(cards, rules, keep=keep) is case["can_open"], why
    assert can_go_out(cards, rules) is case["can_hand"], why
    assert min_deadwood(cards, rules) == case["min_deadwood"], why  # keep=0 by default
    assert min_deadwood(cards, rules, keep=0) == case["min_deadwood"], why


def test_golden_case_in_text(golden_spelling, check_opening):
    """The case's text and alt_text spellings give the case's cards and answers."""
    case, text = golden_spelling
    rules, keep = _rules(case), case["keep"]
    assert Hand(text, rules=rules).codes == tuple(sorted(case["cards"]))
    opening = best_opening(text, rules, keep=keep)
    assert opening.value == case["best_opening"], case["why"]
    check_opening(opening, case["cards"], rules, keep=keep)
    assert can_open(text, rules, keep=keep) is case["can_open"]
    assert can_go_out(text, rules) is case["can_hand"]
    assert min_deadwood(text, rules) == case["min_deadwood"]


def test_golden_cases_in_every_input_form(golden_cases):
    """Text, a code list, a Hand and a numpy array of codes are the same hand."""
    for case in golden_cases:
        rules, keep = _rules(case), case["keep"]
        forms = [case["cards"], tuple(reversed(case["cards"])), Hand(case["cards"]),
                 np.array(case["cards"], dtype=np.uint8), np.array(case["cards"], dtype=np.int64)]
        for form in forms:
            assert best_opening(form, rules, keep=keep).value == case["best_opening"], case["text"]
            assert can_go_out(form, rules) is case["can_hand"], case["text"]


@pytest.mark.parametrize("threads", [1, 2])
def test_golden_cases_through_the_batch_functions(golden_cases, threads):
    """All cases packed into one 255-padded array per RuleSet (and per keep)."""
    by_rules: dict[str, list[dict]] = defaultdict(list)
    for case in golden_cases:
        by_rules[json.dumps(case.get("rules", {}), sort_keys=True)].append(case)
    for key, cases in by_rules.items():
        rules = RuleSet(**json.loads(key))
        hands = pack_hands([c["cards"] for c in cases])
        assert hands.dtype == np.uint8 and hands.shape[0] == len(cases)
        go_out = can_go_out_flags(hands, rules, workers=threads)
        dead = min_deadwood_values(hands, rules, workers=threads)
        assert go_out.dtype == bool and dead.dtype == np.int32
        for c, g, d in zip(cases, go_out.tolist(), dead.tolist(), strict=True):
            assert (g, d) == (c["can_hand"], c["min_deadwood"]), (c["text"], key)
        for keep in sorted({c["keep"] for c in cases}):
            sub = [c for c in cases if c["keep"] == keep]
            packed = pack_hands([c["cards"] for c in sub], width=22)
            values = best_opening_values(packed, rules, keep=keep, workers=threads)
            flags = can_open_flags(packed, rules, keep=keep, workers=threads)
            assert values.dtype == np.int32 and flags.dtype == bool
            for c, v, f in zip(sub, values.tolist(), flags.tolist(), strict=True):
                assert (v, f) == (c["best_opening"], c["can_open"]), (c["text"], keep, key)


# --------------------------------------------------------------------------- stand-ins
# docs/rules.md section 3: "A joker at the end of a run stands on the side the player chooses;
# for the opening value the stand-in with the higher value counts", and never outside A..A.
# (hand, keep, rules changes, the stand-in of each joker in the best opening)
STAND_INS = [
    ("8S 9S 2C JK", 1, {}, ["10S"]),  # 8-9-10 = 27, not 7-8-9 = 24
    ("9S 10S JK", 0, {}, ["JS"]),  # 9-10-J = 29
    ("2S 3S JK", 0, {}, ["AS"]),  # A-2-3 = 15, not 2-3-4 = 9
    ("2S 3S 4S JK", 0, {}, ["AS"]),  # A-2-3-4 = 19
    ("AS 2S 9D JK", 1, {}, ["3S"]),  # nothing below the low ace
    ("AS KS 9D JK", 1, {}, ["QS"]),  # nothing above the high ace
    ("AS QS KS 3D JK", 1, {}, ["JS"]),  # J-Q-K-A = 40
    ("AS 2S KS JK", 1, {}, ["QS"]),  # Q-K-A (30), never K-A-2
    ("5S 7S JK", 0, {}, ["6S"]),  # the gap
    ("5S 7S 9S JK", 1, {}, ["8S"]),  # 7-8-9 (24) beats 5-6-7 (18)
    ("3S 4S 5S 7S 8S JK", 1, {}, ["6S"]),  # 4-5-6-7-8 = 30
    ("3S 4S 5S 7S 8S JK", 0, {}, ["9S"]),  # 3-4-5 + 7-8-9 = 36
    ("9S 9H 9D 2C JK", 1, {}, ["9C"]),  # the missing suit of the set
    ("8S 9S 8H 8D 3C 8C JK", 1, {}, ["10S"]),  # 8H 8D 8C + 8-9-10 = 51
    ("2S 3S JK", 0, {"ace_low_value": 1}, ["4S"]),  # 2-3-4 = 9 > A-2-3 = 6
    ("2S 3S 4S JK", 0, {"ace_low_value": 1}, ["5S"]),
    ("8S 3D JK JK", 1, {"max_jokers_per_meld": 2}, ["9S", "10S"]),  # 8-9-10 = 27
    ("5S JK JK", 0, {"max_jokers_per_meld": 2}, ["6S", "7S"]),  # 5-6-7 = 18 beats 5-5-5 = 15
]


@pytest.mark.parametrize("text, keep, changes, expected", STAND_INS,
                         ids=[f"{t} keep={k} {c or ''}".strip() for t, k, c, _ in STAND_INS])
def test_joker_stand_ins_are_named(text, keep, changes, expected, check_opening):
    rules = RuleSet(**changes)
    opening = best_opening(text, rules, keep=keep)
    check_opening(opening, parse_cards(text), rules, keep=keep)
    stand_ins = sorted((r for m in opening.melds for r in m.jokers), key=int)
    assert stand_ins == sorted(parse_card(e) for e in expected), opening.text()
    for e in expected:
        assert f"JK({e})" in opening.text()


def test_rules_md_opening_example():
    # docs/rules.md section 4: 6♠ 7♠ 8♠ + 10♦ 10♣ 10♥ = 21 + 30 = 51; the 2♣ is the discard
    o = best_opening("6♠ 7♠ 8♠ 10♦ 10♣ 10♥ 2♣")
    assert (o.value, o.can_open) == (51, True)
    assert sorted((m.kind, m.value) for m in o.melds) == [("run", 21), ("set", 30)]
    assert o.leftover == (parse_card("2C"),)
    assert "total 51: opens" in o.text()
    assert "left in hand: 2C" in o.text()


def test_rules_md_joker_examples():
    # docs/rules.md section 3: 8♠ 9♠ JK = 27; 2♠ 3♠ JK = 15; Q♠ K♠ A♠ JK = 40 (JK is J♠)
    assert best_opening("8S 9S JK", keep=0).value == 27
    assert best_opening("2S 3S JK", keep=0).value == 15
    o = best_opening("QS KS AS JK", keep=0)
    assert o.value == 40 and o.melds[0].jokers == (parse_card("JS"),)
    assert str(o.melds[0]) == o.melds[0].text() and "JK(J♠)" in o.melds[0].text(unicode=True)


# --------------------------------------------------------------------------- a meld used twice
# Two decks: the best collection may use the same meld twice. Both copies must be listed,
# also when one copy is joined to a longer run for display (a regression of commit 0e68fd8,
# where solver._merge_runs filtered melds by identity and dropped both copies).
# (hand, keep, best value)
MELD_TWICE = [
    ("AS AS 2S 2S 3S 3S 4S 5S 6S", 0, 45),  # A-2-3 twice + 4-5-6 (or A..6 + A-2-3)
    ("7S 7S 8S 8S 9S 9S 10S JS QS 2C", 1, 78),  # 7-8-9 twice + 10-J-Q: opens with 78
    ("AS AS 2S 2S 3S 3S 4S 4S 5S 6S 6S JK", 0, 60),
]


@pytest.mark.parametrize("text, keep, value", MELD_TWICE, ids=[t for t, _, _ in MELD_TWICE])
def test_a_meld_used_twice_is_listed_twice(text, keep, value, check_opening):
    o = best_opening(text, keep=keep)
    assert o.value == value
    check_opening(o, parse_cards(text), RuleSet(), keep=keep)
    assert sum(m.value for m in o.melds) == value, o.text()
    assert Counter(c for m in o.melds for c in m.cards) + Counter(o.leftover) == \
        Counter(parse_cards(text)), o.text()


def test_a_set_used_twice_is_listed_twice(check_opening):
    # two copies of the set 7S 7H 7D, both listed
    o = best_opening("7S 7S 7H 7H 7D 7D 3C")
    assert o.value == 42 and [m.text() for m in o.melds] == ["7S 7H 7D", "7S 7H 7D"]
    check_opening(o, parse_cards("7S 7S 7H 7H 7D 7D 3C"), RuleSet(), keep=1)


# --------------------------------------------------------------------------- must-use card
# docs/rules.md section 4: the same questions with one named card required in a meld.
# (hand, keep, must_use, best opening value with that card melded, can_open)
MUST_USE = [
    ("6S 7S 8S 10H 10D 10C 2C", 1, "6S", 51, True),
    ("6S 7S 8S 10H 10D 10C 2C", 1, "10H", 51, True),
    ("6S 7S 8S 10H 10D 10C 2C", 1, "2C", 0, False),  # no meld holds the 2C
    ("7S 8S 9S 7H 7D", 1, None, 24, False),  # the run 7-8-9
    ("7S 8S 9S 7H 7D", 1, "7H", 21, False),  # only the set 7S 7H 7D holds the 7H
    ("5S 6S 7S 7S 8S 9S 2C", 1, "2C", 0, False),
    ("8S 9S 2C JK", 1, "JK", 27, False),
    ("8S 9S 2C JK", 1, "8S", 27, False),
    ("AS 2S 3S AH JK", 1, None, 30, False),  # AS AH JK
    ("AS 2S 3S AH JK", 1, "2S", 19, False),  # A-2-3-JK(4) = 19, 4 cards, the AH left
    ("AS 2S 3S AH JK", 0, "2S", 19, False),  # still no two melds in 5 cards with a joker each
    ("7S 8S 9S 5H 5D JK 2C", 1, "5H", 39, False),  # 7-8-9 + 5H 5D JK
    ("7S 8S 9S 5H 5D JK 2C", 1, "2C", 0, False),
    ("KS KH KD 5C 6C 7C 2D", 1, "6C", 48, False),  # 30 + 18
]


@pytest.mark.parametrize("text, keep, must, value, opens", MUST_USE,
                         ids=[f"{t} keep={k} must={m}" for t, k, m, _, _ in MUST_USE])
def test_must_use(text, keep, must, value, opens, check_opening):
    cards = parse_cards(text)
    opening = best_opening(text, keep=keep, must_use=must)
    must_code = None if must is None else parse_card(must)
    check_opening(opening, cards, RuleSet(), keep=keep, must_use=must_code)
    assert opening.value == value, opening.text()
    if value == 0:
        assert opening.melds == () and opening.leftover == tuple(sorted(cards))
    assert can_open(text, keep=keep, must_use=must) is opens
    if must is not None:  # the card as a code works the same
        assert best_opening(cards, keep=keep, must_use=must_code).value == value


def test_must_use_card_not_in_hand():
    with pytest.raises(ValueError, match="must_use card 9S is not in the hand"):
        best_opening("7S 8S JK", must_use="9S")
    with pytest.raises(ValueError, match="must_use card JK is not in the hand"):
        can_open("7S 8S 9S", must_use=JOKER)
    with pytest.raises(ValueError, match="'11S' is not a card: the jack is written J or 12"):
        best_opening("7S 8S 9S", must_use="11S")


# --------------------------------------------------------------------------- API surface
def test_opening_and_meld_are_frozen():
    o = best_opening("8S 9S JK 5H 5D 5C KH")
    with pytest.raises(AttributeError):
        o.value = 0
    with pytest.raises(AttributeError):
        o.melds[0].value = 0
    assert isinstance(o.melds, tuple) and isinstance(o.leftover, tuple)
    assert all(isinstance(m.cards, tuple) and isinstance(m.represents, tuple) for m in o.melds)


@pytest.mark.parametrize("call", [best_opening, can_open, min_deadwood])
def test_bad_keep_and_rules(call):
    with pytest.raises(ValueError, match=r"keep must be 0\.\.120, got -1"):
        call("7S 8S 9S", keep=-1)
    with pytest.raises(TypeError, match="keep must be a whole number, got True"):
        call("7S 8S 9S", keep=True)
    with pytest.raises(TypeError, match="keep must be a whole number, got 1.0"):
        call("7S 8S 9S", keep=1.0)
    with pytest.raises(TypeError, match="rules must be a RuleSet, got str"):
        call("7S 8S 9S", rules="gin")


def test_keep_beyond_the_hand():
    assert best_opening("7S 8S 9S", keep=5).value == 0
    assert min_deadwood("7S 8S 9S", keep=5) == 24
    assert min_deadwood("7S 8S 9S", keep=3) == 24
    assert min_deadwood("7S 8S 9S", keep=0) == 0


def test_solver_doctests():
    for module in (rummy51.solver, rummy51):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__
