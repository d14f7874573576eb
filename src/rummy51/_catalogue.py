"""The meld catalogue the core searches over, built once per RuleSet.

Every legal meld of at most 5 cards (runs of 3..5 over positions A-low..K..A-high,
sets of 3..4 distinct suits, with 0..``max_jokers_per_meld`` jokers and at least one
natural card) is listed once per *resource*: the natural cards it uses and its joker
count. Where several melds use the same resources (8S 9S JK as 7-8-9 or 8-9-10) only
the one of highest opening value is kept; that is the stand-in docs/rules.md section 3
asks for. Runs longer than 5 are never needed: a run of 6 or more splits into two
runs of 3..5 with the same cards, each card in the same position (so the same total
value), and with at most 2 jokers per meld each half still holds a natural card.

Order (documented, as OpenSpiel's ``MeldToInt``): melds are grouped by their lowest
natural card code (the card the search decides first); inside a group the jokerless
melds come first, then those with jokers, each by decreasing opening value, then
fewer cards, then the natural codes, except that the joker melds are first grouped
by their second natural card (so the core can skip a whole group when that card
is missing: ``skip``). A meld's id is its index in this order.

Masks use the core's bit layout: a 16-bit lane per suit, bit ``16*suit + rank-1``.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np

from .cards import JOKER
from .rules import RuleSet

MAX_MELD = 5  # cards in the longest catalogue meld


def card_bit(code: int) -> int:
    """Bit index of a natural card in the core's 16-bit-lane layout."""
    return (code // 13) * 16 + code % 13


def pos_value(pos: int, rules: RuleSet) -> int:
    """Opening value of run position ``pos`` (0 = low ace, 1..12 = 2..K, 13 = high ace)."""
    if pos == 0:
        return rules.ace_low_value
    if pos == 13:
        return rules.ace_value
    return min(pos + 1, 10)


def hand_value(code: int, rules: RuleSet) -> int:
    """Value of a card left in hand (docs/rules.md section 2); also a set member's value."""
    if code == JOKER:
        return rules.joker_penalty
    rank = code % 13 + 1
    return rules.ace_value if rank == 1 else min(rank, 10)


@dataclass
class _Entry:
    kind: int  # 0 set, 1 run
    naturals: tuple  # sorted codes
    jokers: int
    value: int
    laid: tuple  # codes in laid order, 52 for a joker
    represents: tuple  # the card each laid slot stands for


def _runs(rules: RuleSet):
    maxpos = 13 if rules.ace_high else 12
    mj = rules.max_jokers_per_meld
    for suit in range(4):
        for length in range(3, MAX_MELD + 1):
            for lo in range(0, maxpos - length + 2):
                window = list(range(lo, lo + length))
                cards = [suit * 13 + (0 if p == 13 else p) for p in window]
                value = sum(pos_value(p, rules) for p in window)
                for nj in range(0, min(mj, length - 1) + 1):
                    for jslots in combinations(range(length), nj):
                        laid = tuple(JOKER if i in jslots else c for i, c in enumerate(cards))
                        nat = tuple(sorted(c for i, c in enumerate(cards) if i not in jslots))
                        yield _Entry(1, nat, nj, value, laid, tuple(cards))


def _sets(rules: RuleSet):
    mj = rules.max_jokers_per_meld
    for rank0 in range(13):
        v = hand_value(rank0, rules)
        for size in (3, 4):
            for nat_n in range(max(1, size - mj), size + 1):
                for suits in combinations(range(4), nat_n):
                    missing = [s for s in range(4) if s not in suits]
                    nj = size - nat_n
                    nat = tuple(s * 13 + rank0 for s in suits)
                    laid = nat + (JOKER,) * nj
                    rep = nat + tuple(s * 13 + rank0 for s in missing[:nj])
                    yield _Entry(0, nat, nj, v * size, laid, rep)


def _second(e: _Entry) -> int:
    """The second-lowest natural code of a meld (-1 if it has only one)."""
    return e.naturals[1] if len(e.naturals) > 1 else -1


@dataclass(frozen=True)
class Catalogue:
    """Struct-of-arrays catalogue, in meld-id order (see the module docstring)."""

    start: np.ndarray  # int32[53]: melds of lowest card c are start[c]..start[c+1]
    joker_start: np.ndarray  # int32[52]: first meld with a joker in card c's group
    mask: np.ndarray  # uint64[m]: natural cards, core bit layout
    value: np.ndarray  # int32[m]: opening value (jokers as their best stand-in)
    weight: np.ndarray  # int32[m]: deadwood removed: hand values + joker penalties
    ncards: np.ndarray  # uint8[m]
    njokers: np.ndarray  # uint8[m]
    kind: np.ndarray  # uint8[m]: 0 set, 1 run
    skip: np.ndarray  # int32[m]: next meld whose second natural card differs
    laid: np.ndarray  # uint8[m, 5]: laid order, 52 = joker, 255 = unused
    represents: np.ndarray  # uint8[m, 5]: the card each slot stands for
    #: ids ``start[52] ..`` + this many: the runs an opening may show (rules.opening_run),
    #: appended after the searched groups (0 when the rules ask for no run)
    opening_runs: int = 0

    def __len__(self) -> int:
        return len(self.mask)


def card_max_value(code: int, rules: RuleSet) -> int:
    """The most a natural card can add to an opening (an ace may be low or high)."""
    if code % 13 == 0:
        return max(rules.ace_low_value, rules.ace_value)
    return min(code % 13 + 1, 10)


def joker_max_value(rules: RuleSet) -> int:
    """The most a joker can add to an opening."""
    return max(10, rules.ace_low_value, rules.ace_value)


@lru_cache(maxsize=64)
def build_catalogue(rules: RuleSet) -> Catalogue:
    """Build the meld catalogue for ``rules`` (cached per RuleSet)."""
    best: dict = {}
    for e in list(_runs(rules)) + list(_sets(rules)):
        key = (e.naturals, e.jokers)
        old = best.get(key)
        if old is None or e.value > old.value:
            best[key] = e
    groups: list[list[_Entry]] = [[] for _ in range(52)]
    for e in best.values():
        groups[e.naturals[0]].append(e)
    order: list[_Entry] = []
    start = np.zeros(53, np.int32)
    jstart = np.zeros(52, np.int32)
    for c in range(52):
        g = sorted(groups[c], key=lambda e: (e.jokers > 0, _second(e) if e.jokers else 0,
                                             -e.value, len(e.laid), e.naturals))
        start[c] = len(order)
        jstart[c] = len(order) + sum(1 for e in g if e.jokers == 0)
        order.extend(g)
    start[52] = len(order)
    n_open = 0
    if rules.opening_run != "any":
        # the opening-run block: every run (with jokers only under "run"), one per resource,
        # each at its best run reading; the search never visits it (it lies past start[52]),
        # the core tries each as the opening's run (solve in _core_search.pxi)
        runs: dict = {}
        for e in _runs(rules):
            if rules.opening_run == "pure_run" and e.jokers:
                continue
            key = (e.naturals, e.jokers)
            if key not in runs or e.value > runs[key].value:
                runs[key] = e
        block = sorted(runs.values(), key=lambda e: (e.naturals, e.jokers, -e.value))
        order.extend(block)
        n_open = len(block)
    m = len(order)
    # skip[i]: the first meld after i in its group whose second natural differs
    skip = np.zeros(m, np.int32)
    for i in range(int(start[52]), m):
        skip[i] = i + 1
    for c in range(52):
        a, b = int(start[c]), int(start[c + 1])
        for i in range(b - 1, a - 1, -1):
            same = i + 1 < b and order[i + 1].jokers == order[i].jokers and \
                _second(order[i + 1]) == _second(order[i])
            skip[i] = skip[i + 1] if same else i + 1
    mask = np.zeros(m, np.uint64)
    laid = np.full((m, MAX_MELD), 255, np.uint8)
    rep = np.full((m, MAX_MELD), 255, np.uint8)
    value = np.zeros(m, np.int32)
    weight = np.zeros(m, np.int32)
    for i, e in enumerate(order):
        bits = 0
        for c in e.naturals:
            bits |= 1 << card_bit(c)
        mask[i] = bits
        value[i] = e.value
        weight[i] = sum(hand_value(c, rules) for c in e.naturals) + e.jokers * rules.joker_penalty
        laid[i, : len(e.laid)] = e.laid
        rep[i, : len(e.represents)] = e.represents
    return Catalogue(
        start=start,
        joker_start=jstart,
        mask=mask,
        value=value,
        weight=weight,
        ncards=np.array([len(e.laid) for e in order], np.uint8),
        njokers=np.array([e.jokers for e in order], np.uint8),
        kind=np.array([e.kind for e in order], np.uint8),
        skip=skip,
        laid=laid,
        represents=rep,
        opening_runs=n_open,
    )
