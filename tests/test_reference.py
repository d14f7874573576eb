"""The reference solver (rummy51.reference) against the hand-worked golden cases and the rules.

The golden cases are a copy of the shared cases (docs/rules.md) kept in tests/data/cases so the
project stands alone.
"""
from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from pathlib import Path

import pytest

from rummy51.cards import JOKER, parse_cards
from rummy51.reference import (
    RefMeld,
    best_opening,
    best_opening_melds,
    can_go_out,
    can_open,
    enumerate_melds,
    meld_value,
    min_deadwood,
)
from rummy51.rules import RuleSet

CASES = Path(__file__).parent / "data" / "cases"
DEFAULT = RuleSet()


def _load(name: str) -> list[dict]:
    with open(CASES / name, encoding="utf-8") as f:
        return json.load(f)


def _case_id(case: dict) -> str:
    text = case["text"] or "(empty)"
    rules = case.get("rules")
    extra = " " + ",".join(f"{k}={v}" for k, v in sorted(rules.items())) if rules else ""
    return f"{text} keep={case['keep']}{extra}"


GOLDEN = _load("edge.json") + _load("variants.json")


def test_golden_files_loaded():
    assert len(_load("edge.json")) > 50 and len(_load("variants.json")) > 10


@pytest.mark.parametrize("case", GOLDEN, ids=[_case_id(c) for c in GOLDEN])
def test_golden_case(case):
    rules = RuleSet(**case.get("rules", {}))
    cards, keep = case["cards"], case["keep"]
    if case["text"]:
        assert sorted(parse_cards(case["text"])) == sorted(cards), "case text and codes differ"
    assert best_opening(cards, rules, keep=keep) == case["best_opening"]
    assert can_open(cards, rules, keep=keep) == case["can_open"]
    assert can_go_out(cards, rules) == case["can_hand"]
    assert min_deadwood(cards, rules) == case["min_deadwood"]
    # the collection behind the best value is real: disjoint, within keep, each meld valid
    value, melds = best_opening_melds(cards, rules, keep=keep)
    assert value == case["best_opening"] == sum(m.value for m in melds)
    used = Counter(c for m in melds for c in m.cards)
    assert not used - Counter(cards)
    assert sum(used.values()) <= max(len(cards) - keep, 0)
    for m in melds:
        assert meld_value(m.naturals, m.jokers, rules) >= m.value


# ------------------------------------------------------------------ meld_value
def _nat(text: str) -> list[int]:
    return [c for c in parse_cards(text) if c != JOKER]


@pytest.mark.parametrize(
    "text, jokers, rules, expected",
    [
        ("6S 7S 8S", 0, DEFAULT, 21),
        ("10D 10C 10H", 0, DEFAULT, 30),
        ("KD AD 2D", 0, DEFAULT, None),  # turns the corner
        ("QC KC AC 2C", 0, DEFAULT, None),
        ("QS KS AS", 0, DEFAULT, 30),
        ("QS KS AS", 0, RuleSet(ace_high=False), None),
        ("AS 2S 3S", 0, DEFAULT, 15),
        ("AS 2S 3S", 0, RuleSet(ace_low_value=1), 6),
        ("AS AH AD", 0, RuleSet(ace_low_value=1), 30),  # an ace in a set is not low
        ("7S 7S 7H", 0, DEFAULT, None),  # two 7S in a set
        ("7S 7S", 1, DEFAULT, None),
        ("7S 7H 7D 7C", 0, DEFAULT, 28),
        ("7S 7H 7D 7C", 1, DEFAULT, None),  # a set holds at most 4
        ("8S", 2, DEFAULT, None),  # two jokers with max_jokers_per_meld=1
        ("8S", 2, RuleSet(max_jokers_per_meld=2), 27),
        ("8S 9S", 1, RuleSet(max_jokers_per_meld=0), None),
        ("", 3, RuleSet(max_jokers_per_meld=2), None),  # all-joker meld
        ("8S 9S", 1, DEFAULT, 27),  # joker stands high: 8-9-10
        ("9S 10S", 1, DEFAULT, 29),
        ("2S 3S", 1, DEFAULT, 15),  # joker as the low ace
        ("2S 3S", 1, RuleSet(ace_low_value=1), 9),  # joker as 4
        ("AS 2S", 1, DEFAULT, 15),  # nothing below the low ace: JK = 3
        ("AS KS", 1, DEFAULT, 30),  # nothing above the high ace: JK = Q
        ("AS QS KS", 1, DEFAULT, 40),
        ("AS QS KS", 1, RuleSet(ace_high=False), None),
        ("5S 7S", 1, DEFAULT, 18),
        ("5S 8S", 1, DEFAULT, None),
        ("5S 8S", 2, RuleSet(max_jokers_per_meld=2), 26),
        ("KS", 2, RuleSet(max_jokers_per_meld=2), 30),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", 0, DEFAULT, 104),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", 0, RuleSet(ace_low_value=1), 95),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", 0, RuleSet(ace_high=False), None),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", 1, DEFAULT, 104),  # JK = high ace
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", 1, DEFAULT, None),  # 15 cards
        ("AS 2S 3S AS", 0, DEFAULT, None),  # two aces, not the A..A run
        ("AS 2S 3H", 0, DEFAULT, None),  # two suits
        ("5S 6S", 0, DEFAULT, None),  # too short
    ],
)
def test_meld_value(text, jokers, rules, expected):
    assert meld_value(_nat(text), jokers, rules) == expected


def test_meld_value_rejects_impossible_counts():
    with pytest.raises(ValueError):
        meld_value(_nat("7S 7S 7S"), 0, DEFAULT)  # three copies with two decks
    with pytest.raises(ValueError):
        meld_value(_nat("7S 8S"), 1, RuleSet.gin())  # no jokers in gin's deck
    with pytest.raises(ValueError):
        meld_value([6, 7, JOKER], 0, DEFAULT)  # jokers go in the count


# ------------------------------------------------------------------ enumerate_melds
def test_enumerate_joker_at_run_end():
    melds = enumerate_melds(parse_cards("8S 9S JK"), DEFAULT)
    assert melds == [RefMeld("run", (7, 8), 1, 27)]


def test_enumerate_small_hand():
    melds = enumerate_melds(parse_cards("7S 8S 9S 7H 7D"), DEFAULT)
    assert sorted((m.kind, m.naturals, m.jokers, m.value) for m in melds) == [
        ("run", (6, 7, 8), 0, 24),
        ("set", (6, 19, 32), 0, 21),
    ]


def test_enumerate_long_runs_and_both_aces():
    hand = parse_cards("AS AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS")
    melds = enumerate_melds(hand, DEFAULT)
    assert all(m.kind == "run" and m.jokers == 0 for m in melds)
    # intervals of 3..14 positions in 1..14 (12 + 11 + ... + 1), but A..K and 2..A
    # hold the same cards
    assert len(melds) == sum(range(1, 13)) - 1
    assert RefMeld("run", tuple(range(13)), 0, 94) in melds
    assert RefMeld("run", tuple(sorted(hand)), 0, 104) in melds
    assert max(m.size for m in melds) == 14
    # with one ace only, the 14-card run is gone but A..K and 2..A stay
    one_ace = hand[1:]
    sizes = Counter(m.size for m in enumerate_melds(one_ace, DEFAULT))
    assert 14 not in sizes and sizes[13] == 1


def test_enumerate_respects_joker_limit_and_naturals():
    hand = parse_cards("8S 3D JK JK")
    assert enumerate_melds(hand, DEFAULT) == []
    two = enumerate_melds(hand, RuleSet(max_jokers_per_meld=2))
    assert RefMeld("run", (7,), 2, 27) in two
    assert RefMeld("set", (7,), 2, 24) in two
    assert all(m.naturals for m in two)
    assert enumerate_melds(parse_cards("JK JK JK"), RuleSet(max_jokers_per_meld=2)) == []
    assert enumerate_melds(parse_cards("8S 9S JK"), RuleSet(max_jokers_per_meld=0)) == []


def test_enumerate_no_high_ace():
    assert enumerate_melds(parse_cards("AS QS KS"), RuleSet(ace_high=False)) == []
    assert [m.value for m in enumerate_melds(parse_cards("AS QS KS"), DEFAULT)] == [30]


def _sub_multisets(hand):
    counts = sorted(Counter(hand).items())
    for picks in itertools.product(*[range(n + 1) for _, n in counts]):
        yield [c for (c, _), k in zip(counts, picks, strict=True) for _ in range(k)]


def _random_hand(rng, rules, n, pool=None):
    deck = list(rules.deck()) if pool is None else pool
    return [int(c) for c in rng.sample(deck, n)]


@pytest.mark.parametrize("rules", [DEFAULT, RuleSet(max_jokers_per_meld=2),
                                   RuleSet(ace_high=False, ace_low_value=1), RuleSet.gin()],
                         ids=["default", "two-jokers-per-meld", "no-high-ace", "gin"])
def test_enumerate_agrees_with_meld_value(rules):
    """Every sub-multiset of small meld-rich hands: meld_value says valid exactly when
    enumerate_melds lists it, with the same best value."""
    rng = random.Random(1)
    narrow = [s * 13 + r for s in range(4) for r in (0, 1, 2, 3, 10, 11, 12)] * rules.decks
    narrow += [JOKER] * rules.jokers
    for _ in range(25):
        hand = _random_hand(rng, rules, 8, narrow)
        listed: dict = {}
        for m in enumerate_melds(hand, rules):
            key = (m.naturals, m.jokers)
            listed[key] = max(listed.get(key, m.value), m.value)
        checked = {}
        for sub in _sub_multisets(hand):
            nat = tuple(sorted(c for c in sub if c != JOKER))
            v = meld_value(nat, len(sub) - len(nat), rules)
            if v is not None:
                checked[(nat, len(sub) - len(nat))] = v
        assert checked == listed, hand


def _brute_best(hand, rules, keep):
    """Best opening by trying every combination of enumerated melds."""
    melds = enumerate_melds(hand, rules)
    have = Counter(hand)
    best = 0
    for r in range(1, len(hand) // 3 + 1):
        for combo in itertools.combinations_with_replacement(melds, r):
            used = Counter(c for m in combo for c in m.cards)
            if used - have or sum(used.values()) > len(hand) - keep:
                continue
            best = max(best, sum(m.value for m in combo))
    return best


def test_search_agrees_with_brute_force():
    rng = random.Random(7)
    pool = [s * 13 + r for s in range(4) for r in (5, 6, 7, 8)] * 2 + [JOKER] * 4
    for rules in (DEFAULT, RuleSet(max_jokers_per_meld=2, ace_low_value=1)):
        for _ in range(60):
            n = rng.randint(3, 9)
            hand = _random_hand(rng, rules, n, pool)
            for keep in (0, 1):
                assert best_opening(hand, rules, keep=keep) == _brute_best(hand, rules, keep), hand


# ------------------------------------------------------------------ must_use, keep, errors
def test_must_use():
    hand = parse_cards("6S 7S 8S 10H 10D 2C 10C")
    assert best_opening(hand, DEFAULT, must_use=parse_cards("6S")[0]) == 51
    assert best_opening(hand, DEFAULT, must_use=parse_cards("2C")[0]) == 0
    assert not can_open(hand, DEFAULT, must_use=parse_cards("2C")[0])
    assert best_opening(hand, DEFAULT, must_use=JOKER) == 0  # no joker in hand
    assert best_opening(hand, DEFAULT, must_use=parse_cards("KH")[0]) == 0  # not in hand
    # the must-use card forces a worse collection: 7S wanted by the run and the set
    hand = parse_cards("7S 8S 9S 7H 7D 7C 2C")
    assert best_opening(hand, DEFAULT) == 45
    assert best_opening(hand, DEFAULT, must_use=parse_cards("7C")[0]) == 45
    hand = parse_cards("8S 9S 10S JK 3D")
    assert best_opening(hand, DEFAULT) == 27 + 10  # 8-9-10-JK=J
    value, melds = best_opening_melds(hand, DEFAULT, must_use=JOKER)
    assert value == 37 and any(m.jokers for m in melds)


def test_keep_and_go_out():
    hand = parse_cards("6S 7S 8S 10H 10D 10C")
    assert best_opening(hand, DEFAULT, keep=0) == 51
    assert best_opening(hand, DEFAULT, keep=1) == 30
    assert best_opening(hand, DEFAULT, keep=6) == 0
    assert best_opening(hand, DEFAULT, keep=10) == 0
    assert min_deadwood(hand, DEFAULT, keep=10) == 6 + 7 + 8 + 30
    assert min_deadwood(hand, DEFAULT, keep=1) == 6 + 7 + 8  # the set is melded
    assert not can_go_out(parse_cards("7S 8S 9S"), RuleSet(threshold=1))
    assert can_go_out(parse_cards("7S 8S 9S 2C"), RuleSet(threshold=24))
    assert not can_go_out(parse_cards("7S 8S 9S 2C"), RuleSet(threshold=25))
    assert not can_open([], DEFAULT) and best_opening_melds([], DEFAULT) == (0, [])


def test_errors():
    with pytest.raises(ValueError):
        best_opening([6, 6, 6], DEFAULT)  # three 7S with two decks
    with pytest.raises(ValueError):
        best_opening([6, 6], RuleSet.gin())  # two 7S with one deck
    with pytest.raises(ValueError):
        can_go_out([JOKER] * 5, DEFAULT)
    with pytest.raises(ValueError):
        min_deadwood([JOKER] * 3, RuleSet(jokers=2))
    with pytest.raises(ValueError):
        best_opening([6, 7, 8], DEFAULT, keep=-1)
    with pytest.raises(ValueError):
        min_deadwood([6, 7, 8], DEFAULT, keep=-1)
    with pytest.raises(ValueError):
        best_opening([6, 7, 8], DEFAULT, must_use=53)
    with pytest.raises(ValueError):
        enumerate_melds([255], DEFAULT)


def test_meld_rich_21_cards_finish():
    rules = RuleSet(max_jokers_per_meld=2)
    hand = list(range(13)) + [0, 1, 2, 3] + [JOKER] * 4  # spades A..K, A..4 again, 4 jokers
    value, melds = best_opening_melds(hand, rules)
    assert value == sum(m.value for m in melds) == best_opening(hand, rules)
    assert can_go_out(hand, rules)
    assert min_deadwood(hand, rules) == 0
