"""Fuzz tests (hypothesis, bounded to seconds): the parsers, the batch APIs, RuleSet
fields and hand histories. Every input either gives the answer of an obviously correct
reference or a ValueError/TypeError that names the problem: never another exception,
a crash or a silent wrong answer. ``pytest -m slow tests/test_fuzz.py`` runs the soak
(many more examples)."""
from __future__ import annotations

import dataclasses
import json
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rummy51
from rummy51 import GameState, RuleSet, reference
from rummy51.cards import JOKER, parse_cards

SOAK = os.environ.get("RUMMY51_FUZZ_SOAK") == "1"
N = 4000 if SOAK else 150
FAST = settings(max_examples=N, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

# --------------------------------------------------------------------------- cards text
_RANK = r"(A|1|[2-9]|10|T|J|Q|K|12|13|14)"
_SUIT = r"[SHDC♠♥♦♣♤♡♢♧]"
_TOKEN = re.compile(rf"^{_RANK}{_SUIT}$|^(JK|JOKER|\*|🃏)$", re.IGNORECASE | re.ASCII)
_RANKS = {"A": 1, "1": 1, "T": 10, "J": 11, "Q": 12, "K": 13, "12": 11, "13": 12, "14": 13,
          **{str(r): r for r in range(2, 11)}}
_SUITS = dict(zip("SHDC♠♥♦♣♤♡♢♧", [0, 1, 2, 3] * 3, strict=True))


def _ref_parse(text: str):
    """The text notation by a regular expression: codes, or None if a token is bad."""
    out = []
    for tok in re.split(r"[\s,;]+", text.strip()):
        if not tok:
            continue
        if not _TOKEN.match(tok):
            return None
        u = "".join(ch.upper() if ch.isascii() else ch for ch in tok)
        if u in ("JK", "JOKER", "*", "🃏"):
            out.append(JOKER)
        else:
            out.append(_SUITS[u[-1]] * 13 + _RANKS[u[:-1]] - 1)
    return out


_card_words = st.sampled_from(["7S", "10d", "qh", "AS", "JK", "joker", "*", "K♠", "2♢", "T♣",
                               "1C", "14H", "11S", "0S", "7X", "ſ", "7ſ", "S7", "", "١٠S",
                               "10", "JKR", "🃏", "7S7S"])
_texts = st.one_of(
    st.lists(_card_words, max_size=8).map(" ".join),
    st.text(max_size=30),
    st.text(alphabet="AJQKT0123456789SHDCshdc♠♥ ,;*ſ\t\n", max_size=30),
)


@FAST
@given(_texts)
def test_card_text_parses_like_the_reference_or_says_why(text):
    want = _ref_parse(text)
    try:
        got = parse_cards(text)
    except ValueError as e:
        assert want is None, f"{text!r} is valid ({want}) but raised {e}"
        assert "is not a card" in str(e) and len(str(e)) < 400
        return
    assert got == want, f"{text!r}: {got} != reference {want}"


# --------------------------------------------------------------------------- batch APIs
_SMALL = RuleSet(hand_size=6)


@st.composite
def _arrays(draw):
    kind = draw(st.sampled_from(["good", "good", "dtype", "values", "shape", "object"]))
    rows = draw(st.integers(0, 4))
    width = draw(st.integers(0, 6))
    if kind == "shape":
        return np.zeros(draw(st.sampled_from([(3,), (2, 2, 2), ()])), np.uint8)
    if kind == "object":
        return draw(st.sampled_from(["AS 2S 3S", None, 5, [["AS"], "2S"], [[1.5]]]))
    dtype = np.uint8 if kind != "dtype" else draw(st.sampled_from(
        [np.int16, np.int64, np.float64, np.bool_, np.uint16]))
    hi = 53 if kind == "good" else 300
    vals = draw(st.lists(st.integers(0 if kind == "good" else -5, hi - 1), min_size=rows * width,
                         max_size=rows * width))
    a = np.array(vals, dtype=np.int64).reshape(rows, width)
    if kind == "good":
        # pad some tails, keep the copies within the deck
        a = np.where(a == 52, 52, a)
        for r in range(rows):
            seen: dict = {}
            for c in range(width):
                seen[a[r, c]] = seen.get(a[r, c], 0) + 1
                if seen[a[r, c]] > (4 if a[r, c] == 52 else 2):
                    a[r, c] = 255
    try:
        return a.astype(dtype)
    except (OverflowError, ValueError):
        return a


@FAST
@given(_arrays(), st.sampled_from([rummy51.best_opening_values, rummy51.can_open_flags,
                                   rummy51.min_deadwood_values]))
def test_batch_apis_answer_like_the_reference_or_say_why(hands, fn):
    try:
        got = fn(hands, _SMALL)
    except (ValueError, TypeError) as e:
        assert str(e) and len(str(e)) < 500
        return
    arr = hands if isinstance(hands, np.ndarray) else rummy51.pack_hands(hands)
    assert got.shape == (arr.shape[0],)
    for row, g in zip(arr, got, strict=True):
        codes = [int(c) for c in row if c != 255]
        if fn is rummy51.best_opening_values:
            want = reference.best_opening(codes, _SMALL)
        elif fn is rummy51.can_open_flags:
            want = reference.can_open(codes, _SMALL)
        else:
            want = reference.min_deadwood(codes, _SMALL)
        assert g == want, (codes, g, want)


# --------------------------------------------------------------------------- RuleSet fields
_FIELDS = [f.name for f in dataclasses.fields(RuleSet)]
_values = st.one_of(
    st.integers(-3, 120), st.integers(-2**70, 2**70),
    st.integers(0, 300).map(np.int16), st.integers(0, 200).map(np.uint8),
    st.booleans(), st.sampled_from([None, 1.0, 2.5, "2", "zero", "hands", np.float64(4),
                                    np.bool_(True), [1], float("nan")]),
)


@FAST
@given(st.dictionaries(st.sampled_from(_FIELDS), _values, max_size=3))
def test_rule_fields_are_taken_as_plain_values_or_refused_by_name(changes):
    try:
        r = RuleSet(**changes)
    except (ValueError, TypeError) as e:
        assert any(name in str(e) for name in changes), f"{changes}: {e} names no field"
        return
    for f in _FIELDS:
        v = getattr(r, f)
        assert v is None or type(v) in (int, bool, str), (f, type(v))
    # a rule set that constructs computes like the reference on a small hand
    hand = [0, 1, 2, 13, 26, 39, 52][: max(1, min(7, r.hand_size))]
    if hand.count(52) > r.jokers:
        hand = [c for c in hand if c != 52]
    assert rummy51.best_opening(hand, r).value == reference.best_opening(hand, r)


# --------------------------------------------------------------------------- hand histories
def _history() -> dict:
    bots = [rummy51.GreedyBot(), rummy51.RandomBot(seed=1)]
    state = rummy51.play_deal(bots, RuleSet(), seed=3)
    return json.loads(state.to_json())


_HISTORY = _history()
_junk = st.one_of(st.none(), st.booleans(), st.integers(-5, 200), st.floats(allow_nan=True),
                  st.text(max_size=6), st.lists(st.integers(-2, 60), max_size=4),
                  st.dictionaries(st.text(max_size=4), st.integers(), max_size=2))


@st.composite
def _mutated(draw):
    d = json.loads(json.dumps(_HISTORY))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(["top", "action", "delete", "rules"]))
        if where == "top":
            d[draw(st.sampled_from(sorted(d)))] = draw(_junk)
        elif where == "delete":
            d.pop(draw(st.sampled_from(sorted(d))), None)
        elif where == "rules" and isinstance(d.get("rules"), dict):
            d["rules"][draw(st.sampled_from(_FIELDS))] = draw(_junk)
        elif isinstance(d.get("actions"), list) and d["actions"]:
            i = draw(st.integers(0, len(d["actions"]) - 1))
            a = d["actions"][i]
            if isinstance(a, dict) and a and draw(st.booleans()):
                a[draw(st.sampled_from(sorted(a)))] = draw(_junk)
            else:
                d["actions"][i] = draw(_junk)
    return d


@FAST
@given(_mutated())
def test_malformed_histories_raise_value_error(d):
    try:
        GameState.from_dict(d)
    except ValueError as e:
        assert str(e)


def test_the_history_itself_replays():
    s = GameState.from_dict(_HISTORY)
    assert json.loads(s.to_json()) == _HISTORY


@pytest.mark.slow
def test_fuzz_soak():
    """The same fuzz tests with many more examples (``RUMMY51_FUZZ_SOAK=1`` for all)."""
    import subprocess
    import sys

    env = dict(os.environ, RUMMY51_FUZZ_SOAK="1")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__,
                        "-k", "not soak"], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:]
