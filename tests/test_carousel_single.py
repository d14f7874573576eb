"""The C reading of a single position (``_carousel.single_best``, ``single_value``,
``pack_rows``: ``src/rummy51/_carousel_single.pxi``) against the Python path.

The C path reads meld texts, a table text, TableMelds and a hand as text or int codes,
and takes a position only when it is sure: anything else (another spelling, a bad
card, a bad meld, too many copies, numpy integers) goes to the Python path, which
answers or raises. So for every input, good or bad:

* when C reads a position, the Python path reads it too, to the same batch rows
  (``solver._pack_row``: the table's codes meld by meld in canonical order, the hand's
  in order);
* ``best_play``, ``can_meld``, ``max_cards_played`` and ``pack_positions`` answer what
  the Python path answers (``solver._best_play`` with the path reconstruction, the
  value of ``solver._position_counts``), or raise the same error, word for word;
* a ``Play`` whose melds are made lazily equals the Play made at once, and behaves as
  the frozen dataclass it was (compared, hashed, printed, pickled, not assignable).

=================================  ============================================  =====
test                               inputs                                        count
=================================  ============================================  =====
test_fast_path_agrees              300 examples x 10 positions, each in a random  3000
                                   form (meld texts in random spellings, a table
                                   text, TableMelds in any slot order, code
                                   lists; hand text or codes), a third mutated
                                   (a bad token, a card added or dropped, a meld
                                   twice, a joker's card dropped, numpy ints ...)
=================================  ============================================  =====

plus fixed cases of every kind of bad input, and the lazy Play's behaviour.
"""
from __future__ import annotations

import copy
import dataclasses
import gc
import pickle
import random
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from carousel_big import big_position
from carousel_helpers import RandomChoices, random_position, random_rules
from rummy51 import _carousel, carousel
from rummy51.cards import JOKER
from rummy51.carousel import CarouselRules, solver
from rummy51.carousel.table import TableMeld, parse_meld, parse_table
from test_carousel_properties import SETTINGS

PER_EXAMPLE = 10
_RANKS = {1: ["A", "a", "1"], 10: ["10", "T", "t"], 11: ["J", "j", "12"], 12: ["Q", "q", "13"],
          13: ["K", "k", "14"]}
_SUITS = ["Ss♠", "Hh♥", "Dd♦", "Cc♣"]
_JOKERS = ["JK", "jk", "*", "JOKER", "Joker"]
_BAD = ["11S", "JK", "JK(JK)", "JK()", "JK(8S))", "(8S)", "8X", "S8", "1", "100S", "JK(8S",
        "8S)", "*(11H)", "JKJK(8S)", "J(8S)", "7S\t", "\u1e9e", "\ud800", "7S|8S", "0S", "015S",
        "JOKERS(8S)", "jk(8s)x", "🃏", "*(*)", "10", "S", "JK((8S))", "  ", ";", "7S;8S"]


class _ReadInPython(Exception):
    """The C path passed a position on to the Python path."""


def _to_python(table, hand):
    raise _ReadInPython


def _card(rng: random.Random, c: int, unicode_ok: bool = True) -> str:
    if c == JOKER:
        return rng.choice(_JOKERS * 8 + ["🃏"] if unicode_ok else _JOKERS)
    rank = c % 13 + 1
    suits = _SUITS[c // 13] if unicode_ok and rng.random() < 0.02 else _SUITS[c // 13][:2]
    return rng.choice(_RANKS.get(rank, [str(rank)])) + rng.choice(suits)


def _sep(rng: random.Random) -> str:
    return rng.choice([" "] * 12 + [",", ", ", "  ", " ,", "\t"])


def _meld_text(rng: random.Random, m: TableMeld) -> str:
    toks = []
    for c, r in zip(m.cards, m.represents, strict=True):
        if c == JOKER:
            toks.append(rng.choice(_JOKERS) + "(" + _card(rng, r) + ")")
        else:
            toks.append(_card(rng, c))
    if rng.random() < 0.3:
        rng.shuffle(toks)   # any order of a meld's cards is read
    text = toks[0]
    for t in toks[1:]:
        text += _sep(rng) + t
    return (" " if rng.random() < 0.1 else "") + text


def _forms(rng: random.Random, rules: CarouselRules, table_texts: list[str], hand: list[int]):
    """The position in a random form, perhaps mutated into a bad one."""
    melds = [parse_meld(t, rules) for t in table_texts]
    form = rng.randrange(5)
    if form == 0:
        table: object = [_meld_text(rng, m) for m in melds]
    elif form == 1:
        table = " | ".join(_meld_text(rng, m) for m in melds) if melds else rng.choice(["", " "])
    elif form == 2:
        table = []
        for m in melds:
            order = list(range(len(m.cards)))
            if rng.random() < 0.5:
                rng.shuffle(order)
            table.append(TableMeld(m.kind, tuple(m.cards[i] for i in order),
                                   tuple(m.represents[i] for i in order)))
    elif form == 3:
        table = [m.codes() for m in melds]
    else:
        table = tuple(_meld_text(rng, m) for m in melds)
    h = rng.randrange(4)
    if h == 0:
        hand_in: object = " ".join(_card(rng, c) for c in hand)
    elif h == 1:
        hand_in = list(hand)
    elif h == 2:
        hand_in = tuple(hand)
    else:
        hand_in = _sep(rng).join(_card(rng, c, unicode_ok=False) for c in hand)
    if rng.random() < 0.35:
        table, hand_in = _mutate(rng, rules, table, hand_in)
    return table, hand_in


def _mutate(rng: random.Random, rules: CarouselRules, table, hand):
    kind = rng.randrange(9)
    if kind == 0 and isinstance(hand, str):
        toks = hand.split() or [""]
        toks[rng.randrange(len(toks))] = rng.choice(_BAD)
        return table, " ".join(toks)
    if kind == 1 and isinstance(table, list) and table and isinstance(table[0], str):
        i = rng.randrange(len(table))
        toks = table[i].split()
        toks[rng.randrange(len(toks))] = rng.choice(_BAD)
        return table[:i] + [" ".join(toks)] + table[i + 1:], hand
    if kind == 2 and isinstance(table, list) and table and isinstance(table[0], str):
        i = rng.randrange(len(table))   # a card added, or one dropped
        toks = table[i].split()
        if rng.random() < 0.5:
            toks.insert(rng.randrange(len(toks) + 1), _card(rng, rng.randrange(53), False))
        else:
            toks.pop(rng.randrange(len(toks)))
        return table[:i] + [" ".join(toks)] + table[i + 1:], hand
    if kind == 3 and isinstance(table, (list, tuple)) and table:
        return list(table) + [table[rng.randrange(len(table))]], hand   # a meld twice
    if kind == 4 and isinstance(table, str) and "(" in table:
        return table.replace("(", " ", 1).replace(")", "", 1), hand      # a joker's card lost
    if kind == 5 and isinstance(hand, list) and hand:
        i = rng.randrange(len(hand))
        bad = rng.choice([np.int64(hand[i]), np.uint8(hand[i]), True, 53, -1, 2 ** 70, "7S",
                          7.0, None])
        return table, hand[:i] + [bad] + hand[i + 1:]
    if kind == 6 and isinstance(table, list) and table and isinstance(table[0], TableMeld):
        m = table[0]    # a hand-built meld that breaks the rules
        reps = list(m.represents)
        reps[rng.randrange(len(reps))] = rng.randrange(52)
        return [TableMeld(m.kind, m.cards, tuple(reps))] + table[1:], hand
    if kind == 7:
        return table, rng.choice([7, b"7S", {"7S"}, "7S 8S (", ["JK", 5], [5, 5, 5, 5]])
    if kind == 8 and isinstance(table, str):
        return table + rng.choice([" |", "| 7S 8S 9S", " | ,", "|7S 8S 9S|"]), hand
    return rng.choice([7, [7], [[52]], "JK JK", ["7S 7S 7S"], [b"7S 8S 9S"], table]), hand


def _python(fn):
    """``('ok', value)`` or ``('error', type, message)``."""
    try:
        return ("ok", fn())
    except Exception as e:   # noqa: BLE001 - every error is compared
        return ("error", type(e), str(e))


def _slow_best(table, hand, rules):
    return solver._best_play(table, hand, rules, solver._rebuild_path)


def _slow_can_meld(table, hand, rules):
    return solver._position_counts(table, hand, rules)[2].value(solver._core_rules(rules)) > 0


def _slow_max_cards(table, hand, rules):
    value = solver._position_counts(table, hand, rules)[2].value(solver._core_rules_cards(rules))
    return value % 256


def _check(table, hand, rules) -> bool:
    """Both paths agree on one input; True when C read it."""
    core = solver._core_rules(rules)
    try:
        ta, ha = _carousel.pack_rows(core, [table], [hand], _to_python)
        read = True
    except _ReadInPython:
        read = False
    if read:
        trow, hrow = solver._pack_row(table, hand, rules)
        assert [int(x) for x in ta[0] if x != 255] == trow
        assert [int(x) for x in ha[0] if x != 255] == hrow
        assert _carousel.single_value(core, table, hand) is not None
        assert _carousel.single_best(core, rules, table, hand, rules.knock_limit) is not None
    slow = _python(lambda: _slow_best(table, hand, rules))
    fast = _python(lambda: carousel.best_play(table, hand, rules))
    if slow[0] == "ok" and fast[0] == "ok":
        assert fast[1].melds == slow[1].melds          # the lazy melds, made now
        assert fast[1] == slow[1]
    else:
        assert fast == slow
    assert _python(lambda: carousel.can_meld(table, hand, rules)) == _python(
        lambda: _slow_can_meld(table, hand, rules))
    assert _python(lambda: carousel.max_cards_played(table, hand, rules)) == _python(
        lambda: _slow_max_cards(table, hand, rules))
    packed = _python(lambda: carousel.pack_positions([table], [hand], rules))
    rows = _python(lambda: solver._pack_row(table, hand, rules))
    assert packed[0] == rows[0]
    if packed[0] == "ok":
        assert [int(x) for x in packed[1][0][0] if x != 255] == rows[1][0]
    else:
        assert packed == rows
    return read


@st.composite
def seeded_inputs(draw):
    rng = random.Random(draw(st.integers(0, 2 ** 64 - 1)))
    pick = RandomChoices(rng)
    rules = random_rules(pick)
    out = []
    for _ in range(PER_EXAMPLE):
        table, hand = random_position(pick, rules, dense=rng.random() < 0.5, max_melds=5)
        out.append(_forms(rng, rules, table, hand))
    return rules, out


def test_fast_path_agrees():
    seen = []

    @settings(max_examples=300, **SETTINGS)
    @given(seeded_inputs())
    def check(example):
        rules, inputs = example
        for table, hand in inputs:
            note(f"table {table!r} hand {hand!r} rules {rules!r}")
            seen.append(_check(table, hand, rules))

    check()
    assert len(seen) == 300 * PER_EXAMPLE
    # both paths taken, often: the C path reads most inputs, Python the rest
    assert sum(seen) > 0.3 * len(seen)
    assert len(seen) - sum(seen) > 0.1 * len(seen)


RULES = CarouselRules()
JOKER_LIMIT = CarouselRules(max_jokers_per_meld=1)
LOW_ACE = CarouselRules(ace_high=False)


@pytest.mark.parametrize("table, hand, rules", [
    (["6S 7S 8S"], "9S 10S JK", RULES),
    (["6s,7s,8s"], "9s,TS,*", RULES),
    ("6S 7S JK(8S) | 9H 9D 9C", "JK", RULES),
    (["QH KH AH"], "JH", RULES),
    (["QH KH AH"], "JH", LOW_ACE),
    (["AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH"], "AS", RULES),
    (["JK(2S) JK(3S) 4S"], "5S", JOKER_LIMIT),
    (["JK(2S) JK(3S) 4S"], "5S", RULES),
    (["7S 7H 7D 7C 7S"], "", RULES),
    (["7S 7H 7D 7C"], "7S 7S", RULES),
    (["7S 7H 7D"], "7S JK JK JK", RULES),
    (["JK(7S) 7H 7D"], [26, 52, 52], RULES),
    ([], "7S 8S 9S (", RULES),
    ([], "11S", RULES),
    ([], "7♠ 8♠ 9♠", RULES),
    ([], "1S 12S 13S 14S", RULES),
    ([], [0, 1, 2, np.int64(3)], RULES),
    ([], [0, 1, True], RULES),
    ([], [0, 1, 2 ** 80], RULES),
    ([], [0, 1, -1], RULES),
    (" ", "", RULES),
    ("|", "7S", RULES),
    ([""], "7S", RULES),
    ([" , "], "7S", RULES),
    (["7S 8S 9S", 5], "7S", RULES),
    ([TableMeld("run", (6, 7, 8), (6, 7, 9))], "7S", RULES),
    ([TableMeld("run", (8, 6, 7), (8, 6, 7))], "9S", RULES),
    ([TableMeld("set", (6, 7, 8), (6, 7, 8))], "9S", RULES),
    ([TableMeld("run", [6, 7, 8], [6, 7, 8])], "9S", RULES),
    ([[52, 7], 5, 6], "9S", RULES),
    ([["JK(8S)", 5, 6]], "9S", RULES),
    (["JK(8S) 6S 7S"], "JK(9S)", RULES),
    (["JOKER(ks) qs js"], "as", RULES),
    # can_meld's quick answers (_sp_quick_play) and their edges
    (["QH KH AH"], "AH", LOW_ACE),                      # no position past the king
    (["AH 2H 3H"], "KH", LOW_ACE),                      # nor a wrap
    (["AH 2H 3H"], "KH", RULES),
    (["2H 3H 4H 5H 6H"], "4H", RULES),                  # a split: 2-3-4 and 4-5-6
    (["2H 3H 4H 5H"], "4H", RULES),                     # too short to split
    (["JK(2H) JK(3H) 4H 5H 6H"], "4H", RULES),
    (["2H JK(3H) JK(4H) 5H 6H"], "4H", CarouselRules(max_jokers_per_meld=2)),
    (["7S 7H 7D"], "7C", RULES),
    (["7S 7H 7D"], "7S", RULES),                        # the suit is there
    (["7S 7H JK(7D)"], "7D", RULES),
    (["7S 7H JK(7D)"], "JK", JOKER_LIMIT),              # the set's one joker is there
    (["7S 7H 7D"], "JK", CarouselRules(max_jokers_per_meld=0, jokers=2)),
    (["2S 3S 4S"], "JK", RULES),
    ([], "7S 7H JK", RULES),
    ([], "7S 7H JK", CarouselRules(max_jokers_per_meld=0, jokers=2)),
    ([], "7S JK JK", RULES),
    ([], "7S JK JK", JOKER_LIMIT),
    ([], "QS KS AS", LOW_ACE),
    ([], "QS KS JK", RULES),
    ([], "KS AS 2S", RULES),
])
def test_fixed_inputs_agree(table, hand, rules):
    _check(table, hand, rules)


def _random_positions(seed, n, max_melds):
    """``n`` ``(rules, core rules, table, hand)`` of random rules, every other position
    dense (tests/carousel_helpers.py), from ``seed``."""
    rng = random.Random(seed)
    for k in range(n):
        pick = RandomChoices(rng)
        rules = random_rules(pick)
        table, hand = random_position(pick, rules, dense=k % 2 == 1, max_melds=max_melds)
        yield rules, solver._core_rules(rules), table, hand


def test_can_melds_quick_answer_is_a_real_plays_value():
    """``can_meld``'s core value (``single_value`` with ``any_play``: a play seen on the
    table as laid, else the program's) is some legal play's: never more than the best
    play's, and above 0 exactly when the best play is, on random and dense positions of
    random rules (the jokers a meld may hold, the ace after the king)."""
    quick = 0
    for rules, core, table, hand in _random_positions(39, 3000, 6):
        some = _carousel.single_value(core, table, hand, 0, 0, True)
        best = _carousel.single_value(core, table, hand)
        assert some is not None and best is not None
        assert (some > 0) == (best > 0) and some <= best, (table, hand, rules)
        quick += 0 < some < best
    assert quick > 100      # the quick answers are taken, and are not the best plays


def test_the_programs_diagnostic_run_agrees_with_the_solver():
    """``_program_run`` (bench/carousel_state_floor.py's single runs of the program):
    with ``want`` 0 the value ``single_value`` gives; ``full`` bounds it; asked for the
    best value it finds it, asked for more it does not; a beam's value is a play's, at
    most the best; and on the big positions it counts the states it expanded (more than
    one a layer)."""
    short = 0
    for rules, core, table, hand in _random_positions(41, 400, 8):
        best = _carousel.single_value(core, table, hand)
        v, states, full = _carousel._program_run(core, table, hand, 0)
        assert v == best and 0 <= v <= full and states >= 1, (table, hand, rules)
        assert _carousel._program_run(core, table, hand, v)[0] == v
        assert _carousel._program_run(core, table, hand, v + 1)[0] <= v
        assert _carousel._program_run(core, table, hand, full - v, True)[0] == v
        assert _carousel._program_run(core, table, hand, 0, False, 8)[0] <= v   # a beam's
        short += v < full
    assert short > 20       # positions where the pruned hand cannot all be placed
    core = solver._core_rules(CarouselRules())
    table = ["2S 3S 4S 5S 6S 7S", "8S 9S 10S JS", "2H 3H 4H 5H", "6H 7H 8H 9H 10H",
             "AD 2D 3D 4D 5D", "7C 8C 9C", "9S 9D 9C", "KS KH KD KC", "QS QH QD"]
    v, states, full = _carousel._program_run(core, table, "6S 9H 10C 4C 6D JK", 0)
    assert 0 < v <= full and states > 14
    assert _carousel._program_run(core, "5S 6S", "7S", 0) is None     # not a meld: not read


def test_lazy_play_behaves_as_the_dataclass():
    table, hand = ["6S 7S 8S", "9H 9D 9C"], "5S 9S JK 2C"
    lazy = carousel.best_play(table, hand)
    eager = _slow_best(table, hand, RULES)
    assert type(lazy) is solver.Play
    assert not gc.is_tracked(lazy) and not gc.is_tracked(eager)   # no work for the collector
    assert type(lazy._played) is bytes              # the tuple is made when asked
    assert lazy._melds is None                      # nothing arranged yet
    assert (lazy.points_left, lazy.cards_played, lazy.played) == (2, 3, (4, 8, 52))
    assert lazy._melds is None
    assert lazy == eager and hash(lazy) == hash(eager)
    assert repr(lazy) == repr(eager)
    assert repr(lazy).startswith("Play(points_left=2, cards_played=3, played=(4, 8, 52), melds=(")
    assert [m.text() for m in lazy.melds] == ['5S 6S 7S 8S 9S JK(10S)', '9H 9D 9C']
    assert lazy.text() == eager.text()
    again = carousel.best_play(table, hand)
    assert pickle.loads(pickle.dumps(again)) == eager
    assert copy.deepcopy(carousel.best_play(table, hand)) == eager
    with pytest.raises(dataclasses.FrozenInstanceError):
        lazy.points_left = 3    # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del lazy.melds
    with pytest.raises(dataclasses.FrozenInstanceError):
        lazy.anything = 1       # type: ignore[attr-defined]
    assert lazy != solver.Play(2, 3, (4, 8, 52), (), True, True, 41)
    assert solver.Play(points_left=1, cards_played=0, played=(), melds=(), can_meld=False,
                       can_knock=True, hand_points=1) == solver.Play(1, 0, (), (), False, True, 1)
    match lazy:
        case solver.Play(points_left, cards_played, played, melds, can, knock, total):
            assert (points_left, cards_played, can, knock, total) == (2, 3, True, True, 41)
            assert melds == eager.melds and played == (4, 8, 52)


def test_the_c_made_melds_are_left_out_of_the_collector():
    """The TableMelds the C path makes (a play's, and a no-play's table as it was), their
    tuples of codes and the tuple of melds are not tracked by the cyclic collector
    (nothing in them can make a cycle; keeping many plays' melds then costs the
    collector nothing); they behave as the TableMelds the Python path makes, and
    reference counting frees them."""
    for table, hand in ((["6S 7S 8S", "9H 9D 9C"], "5S 9S JK 2C"),
                        (["6S 7S 8S", "9H 9D JK(9C)"], "2C 4D")):
        got = carousel.best_play(table, hand).melds
        want = _slow_best(table, hand, RULES).melds
        assert got == want and hash(got) == hash(want)
        assert [m.text() for m in got] == [m.text() for m in want]
        assert not gc.is_tracked(got)
        for m in got:
            assert type(m) is TableMeld and not gc.is_tracked(m)
            assert not gc.is_tracked(m.cards) and not gc.is_tracked(m.represents)
            assert m.kind in ("run", "set") and m == parse_meld(m.text(), RULES)
            assert pickle.loads(pickle.dumps(m)) == m and copy.deepcopy(m) == m
            with pytest.raises(dataclasses.FrozenInstanceError):
                m.kind = "set"      # type: ignore[misc]
    # freed when the last reference goes (no collection needed): the allocator's blocks
    # come back, so making and dropping many does not grow the tracked objects
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(2000):
        assert carousel.best_play(["6S 7S 8S", "9H 9D 9C"], "5S 9S JK 2C").melds
    assert len(gc.get_objects()) <= before + 50


def test_lazy_no_play_keeps_the_table_as_it_was():
    table = ["QH KH AH", "JK(8S) 6S 7S"]
    play = carousel.best_play(table, "2H 3H")
    assert play._melds is None
    table.append("7C 8C 9C")       # the caller's list changes afterwards
    assert not play.can_meld and play.played == ()
    assert [m.text() for m in play.melds] == ["QH KH AH", "6S 7S JK(8S)"]
    assert play == solver.Play(play.points_left, 0, (), tuple(parse_table(["QH KH AH",
                                                                          "JK(8S) 6S 7S"])),
                               False, True, 5)


def test_pack_positions_reports_the_first_bad_position():
    tables = [["6S 7S 8S"], [TableMeld("run", (6, 7, 8), (6, 7, 8))], ["7S 8S"], ["7S 9S 10S"]]
    hands = ["5S", [1, 2], "3S", "4S"]
    with pytest.raises(ValueError, match=r"^meld '7S 8S' is not a meld: a meld has at least 3 cards$"):
        carousel.pack_positions(tables, hands)
    ta, ha = carousel.pack_positions(tables[:2] + [["AS 2S 3S"]], [hands[0], np.array([1, 2]),
                                                                    "JK"])
    assert ta.tolist() == [[5, 6, 7], [6, 7, 8], [0, 1, 2]]
    assert ha.tolist() == [[4, 255], [1, 2], [52, 255]]
    ta, ha = carousel.pack_positions([], [])
    assert ta.shape == (0, 1) and ha.shape == (0, 1)


def test_the_play_does_not_depend_on_other_threads_or_earlier_calls():
    """A position's play (which of equally good plays, and its melds) is the same
    whether other threads are solving at the same time or not, and whatever the thread
    solved before: the single calls release the GIL, the bounds' proof budget is
    counted per call (it once read a counter every thread adds to: 15 of 600 plays
    changed under four threads), and a layer cut while it fills keeps its index whole
    (a broken probe chain once made the play depend on the index's size, which a
    thread's kept work carries from call to call)."""
    rng = random.Random(11)
    rules = CarouselRules()
    positions = [big_position(rng, rules, rng.randint(30, 60), rng.randint(1, 15), goes_out=False)
                 for _ in range(400)]

    def play(pos):
        p = carousel.best_play(*pos, rules)
        return p.points_left, p.cards_played, p.played, tuple(m.text() for m in p.melds)

    alone = [play(p) for p in positions]
    for _ in range(2):
        with ThreadPoolExecutor(4) as pool:
            assert list(pool.map(play, positions)) == alone
    # nor on what the thread solved before (its kept work's sizes): each again from
    # an empty work, in the other order
    for k in reversed(range(len(positions))):
        _carousel._drop_kept_cache()
        assert play(positions[k]) == alone[k], k
