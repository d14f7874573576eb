"""The slow, obviously correct twin of the Carousel solver (tests only).

A different method from the core's dynamic program over ranks: it tries the hand's
sub-multisets from the most points played down, and for each one searches, by plain
exact cover, for an arrangement of every table card plus those hand cards into melds:
take the lowest natural card not yet placed, try every meld that contains it (every
set of its rank, every run of its suit through it, each with every choice of which of
its other slots are filled by jokers), and recurse. When every natural is placed,
every joker must have been placed too, and the joker rule of RULES-carousel.md
section 4 is checked as the rules state it: of the table jokers declared as card d,
those not standing for d any more (replaced) number at most the natural d cards on
the table after the play.

It is exponential and meant for small positions (a few melds, a handful of cards).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations, product
from typing import Optional

from ..cards import JOKER
from .rules import CarouselRules
from .table import TableMeld, make_meld, parse_hand, parse_table

__all__ = ["ReferencePlay", "best_play", "arrange", "candidate_melds"]


@dataclass(frozen=True)
class ReferencePlay:
    points_left: int
    cards_played: int
    played: tuple[int, ...]
    melds: tuple[TableMeld, ...]
    can_meld: bool
    can_knock: bool


def candidate_melds(card: int, rules: CarouselRules) -> list[tuple[int, ...]]:
    """Every meld (as the tuple of cards its slots stand for) holding a slot of ``card``."""
    rank, suit = card % 13, card // 13
    out = []
    others = [s for s in range(4) if s != suit]
    for k in (2, 3):
        for extra in combinations(others, k):
            out.append(tuple(sorted([suit] + list(extra))))
    melds = [tuple(s * 13 + rank for s in suits) for suits in out]
    top = 14 if rules.ace_high else 13
    positions = [1, 14] if rank == 0 else [rank + 1]
    for a in range(1, top + 1):
        for b in range(a + 2, top + 1):
            if any(a <= p <= b for p in positions if p <= top):
                melds.append(tuple(suit * 13 + (p - 1 if p <= 13 else 0) for p in range(a, b + 1)))
    return melds


def arrange(naturals: Counter, jokers: int, declared: Counter,
            rules: CarouselRules) -> Optional[list[list[tuple[int, int]]]]:
    """An arrangement of all ``naturals`` and exactly ``jokers`` jokers into melds that
    keeps the table jokers' declarations (``declared``: card -> table jokers declared
    as it), as a list of melds of ``(card, stands_for)`` pairs; None if there is none."""
    limit = rules.max_jokers_per_meld
    final_naturals = Counter(naturals)

    def joker_rule_holds(joker_slots: Counter) -> bool:
        for d, t in declared.items():
            still = min(t, joker_slots[d])   # table jokers that keep standing for d
            replaced = t - still
            if replaced > final_naturals[d]:
                return False
        return True

    def search(left: Counter, jk: int, joker_slots: Counter, melds: list):
        remaining = [c for c, n in left.items() if n > 0]
        if not remaining:
            if jk == 0 and joker_rule_holds(joker_slots):
                return list(melds)
            return None
        low = min(remaining)
        for meld in candidate_melds(low, rules):
            slots = list(range(len(meld)))
            anchors = [i for i in slots if meld[i] == low]
            for anchor in anchors:
                rest = [i for i in slots if i != anchor]
                max_j = min(jk, len(rest), len(meld) - 1 if limit is None else limit)
                for nj in range(max_j + 1):
                    for jset in combinations(rest, nj):
                        need = Counter(meld[i] for i in slots if i not in jset)
                        if any(left[c] < n for c, n in need.items()):
                            continue
                        left2 = left - need
                        js2 = joker_slots + Counter(meld[i] for i in jset)
                        pairs = [(JOKER if i in jset else meld[i], meld[i]) for i in slots]
                        found = search(left2, jk - nj, js2, melds + [pairs])
                        if found is not None:
                            return found
        return None

    return search(Counter(naturals), jokers, Counter(), [])


def best_play(table, hand, rules: Optional[CarouselRules] = None) -> ReferencePlay:
    """The best play by exhaustive search (RULES-carousel.md section 4)."""
    rules = rules or CarouselRules()
    melds = parse_table(table, rules)
    hand_codes = parse_hand(hand)
    table_naturals = Counter(c for m in melds for c in m.cards if c != JOKER)
    table_jokers = sum(1 for m in melds for c in m.cards if c == JOKER)
    declared = Counter(d for m in melds for d in m.jokers)
    hand_count = Counter(hand_codes)
    distinct = sorted(hand_count)
    choices = []
    for counts in product(*(range(hand_count[c] + 1) for c in distinct)):
        chosen = [c for c, k in zip(distinct, counts) for _ in range(k)]
        if chosen:
            choices.append((rules.hand_points(chosen), len(chosen), chosen))
    choices.sort(key=lambda x: (-x[0], -x[1], x[2]))
    total = rules.hand_points(hand_codes)
    for points, n, chosen in choices:
        naturals = table_naturals + Counter(c for c in chosen if c != JOKER)
        jokers = table_jokers + chosen.count(JOKER)
        found = arrange(naturals, jokers, declared, rules)
        if found is not None:
            out = tuple(make_meld(m, rules, "reference meld") for m in found)
            left = total - points
            return ReferencePlay(left, n, tuple(sorted(chosen)), out, True,
                                 left <= rules.knock_limit)
    return ReferencePlay(total, 0, (), tuple(melds), False, total <= rules.knock_limit)
