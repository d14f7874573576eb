"""The slow, obviously correct twin of the Carousel solver (tests and benchmarks only).

A different method from the core's dynamic program over ranks: an exact cover by
whole melds, memoised. The position is the multiset of natural cards that *must* go
on the table (the table's), the natural cards that *may* (the hand's), the jokers
(the table's must be placed, the hand's may) and, for each card d, the *demand*: the
table jokers declared as d. The search takes the lowest card (by code) that still
has a copy to decide and either

* leaves every undecided copy of it in the hand (only once the table's copies are
  all placed), or
* puts one copy in a meld that holds it: every set of its rank, every run of its
  suit through it, each with every choice of which other slots jokers fill; the
  other natural slots take copies still undecided.

A copy is a table copy while the table still has one of that card to place, so the
hand cards played are the copies beyond the table's. When no natural is left, every
table joker must be placed and every demand met. The joker rule of
RULES-carousel.md section 4 ("of the table jokers declared as d, at most as many
can be replaced as there are natural d cards on the table after the play") is
exactly "the final table has at least as many slots standing for d, naturals and
jokers together, as table jokers declared d": jokers that keep their card fill d
slots, the replaced ones are matched by natural d's. So each slot a meld creates
lowers the demand of its card, and the answer is the best over all arrangements of
(points of the hand cards placed, hand cards placed).

Why this is complete: the lowest undecided card can only be a natural in a meld
whose other naturals are undecided copies too (lower cards are all decided), and
every meld holding it is tried. Why it is exact: it recurses on the whole remaining
state, which the memo keys on, and takes the maximum. It is exponential in the
worst case and meant for the test positions (up to a dozen melds and a hand).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import Any

from ..cards import JOKER
from .rules import CarouselRules
from .table import TableMeld, check_position, make_meld, parse_hand, parse_table

__all__ = ["ReferencePlay", "best_play", "solve_counts", "candidate_melds"]

#: The order the search decides cards in: by rank (aces first), then suit.
_ORDER = tuple(sorted(range(52), key=lambda c: (c % 13, c // 13)))


@dataclass(frozen=True)
class ReferencePlay:
    points_left: int
    cards_played: int
    played: tuple[int, ...]
    melds: tuple[TableMeld, ...]
    can_meld: bool
    can_knock: bool


@cache
def _melds_through(card: int, ace_high: bool) -> tuple[tuple[int, ...], ...]:
    """Every meld (the tuple of cards its slots stand for) with a slot of ``card``:
    sets of 3 and 4 suits, runs [a, b] (positions A=1, 2..K=13, A=14) through it."""
    rank, suit = card % 13, card // 13
    melds = []
    others = [s for s in range(4) if s != suit]
    for k in (2, 3):
        for extra in combinations(others, k):
            melds.append(tuple(s * 13 + rank for s in sorted([suit, *extra])))
    top = 14 if ace_high else 13
    positions = [1, 14] if rank == 0 else [rank + 1]
    for a in range(1, top + 1):
        for b in range(a + 2, top + 1):
            if any(a <= p <= b for p in positions):
                melds.append(tuple(suit * 13 + (p - 1 if p <= 13 else 0) for p in range(a, b + 1)))
    return tuple(melds)


@cache
def _candidates(card: int, ace_high: bool) -> tuple[tuple[tuple[int, ...], int, int], ...]:
    """``(meld, anchor slot, bit mask of its cards)`` for each meld through ``card``."""
    out = []
    for meld in _melds_through(card, ace_high):
        mask = 0
        for c in meld:
            mask |= 1 << c
        out.append((meld, meld.index(card), mask))
    return tuple(out)


def candidate_melds(card: int, rules: CarouselRules) -> list[tuple[int, ...]]:
    """Every meld (as the tuple of cards its slots stand for) holding a slot of ``card``."""
    return list(_melds_through(card, rules.ace_high))


def solve_counts(T: Sequence[int], H: Sequence[int], D: Sequence[int], JT: int, JH: int,
                 rules: CarouselRules) -> tuple[int, int, list[list[tuple[int, int]]]] | None:
    """Best ``(points, cards)`` of hand cards a play places, with the melds, for raw
    counts: ``T``/``H``/``D`` 52 counts (table naturals, hand naturals, table jokers
    declared as each card), ``JT`` table jokers, ``JH`` hand jokers. ``(0, 0)`` means
    no legal play; None means the table's cards cannot be arranged at all.

    Returns ``(points, cards, melds)`` or None, ``melds`` a list of ``(card,
    stands_for)`` pair lists (card 52 for a joker)."""
    cover = _Cover(rules, H, D)
    start = (bytes(T), bytes(H), bytes(D), JT + JH, JT)
    top = cover.best(*start)
    if top is None:
        return None
    return top[0], top[1], cover.melds(start)


class _Cover:
    """The memoised exact cover of one position's counts (``solve_counts``).

    A state is ``(req, opt, dem, jleft, jneed)``: ``req`` the table copies still to
    place, ``opt`` the hand copies still undecided, ``dem`` the demand left per card
    (52 counts each), ``jleft`` the jokers not yet placed (table's and hand's),
    ``jneed`` the table jokers not yet placed (jokers are placed table ones first, so
    the hand jokers played are those placed beyond JT)."""

    def __init__(self, rules: CarouselRules, H: Sequence[int], D: Sequence[int]) -> None:
        limit = rules.max_jokers_per_meld
        self.joker_cap = 99 if limit is None else limit
        self.ace_high = rules.ace_high
        self.value = [rules.card_value(c) for c in range(52)]
        self.jv = rules.joker_value
        self.hand_cards = [c for c in range(52) if H[c]]
        self.demanded = [c for c in range(52) if D[c]]
        self.memo: dict = {}

    def best(self, req: bytes, opt: bytes, dem: bytes, jleft: int, jneed: int) -> tuple | None:
        """``(points, cards, choice)``, the best from this state, None if infeasible.

        The search of a state stops early once it places every hand card it still could
        (nothing can beat that), and gives up on a state whose demand needs more jokers
        than are left."""
        memo, value, jv, hand_cards = self.memo, self.value, self.jv, self.hand_cards
        key = (req, opt, dem, jleft, jneed)
        if key in memo:
            return memo[key]
        low = next((c for c in _ORDER if req[c] or opt[c]), None)
        if low is None:
            # (points, cards, choice): choice None here, else (meld pairs, next state)
            result: tuple[int, int, Any] | None = (
                (0, 0, None) if jneed == 0 and not any(dem) else None)
            memo[key] = result
            return result
        # a card's slots still to come are its copies left or jokers: demand beyond the
        # copies needs jokers (a necessary condition, to drop hopeless states early)
        if sum(max(0, dem[c] - req[c] - opt[c]) for c in self.demanded) > jleft:
            memo[key] = None
            return None
        ceiling = (sum(value[c] * opt[c] for c in hand_cards) + (jleft - jneed) * jv,
                   sum(opt[c] for c in hand_cards) + jleft - jneed)
        result = None
        for pts, cards, nxt, pairs in self.moves(req, opt, dem, jleft, jneed, low):
            sub = self.best(*nxt)
            if sub is None:
                continue
            cand = (sub[0] + pts, sub[1] + cards)
            if result is None or cand > result[:2]:
                result = (cand[0], cand[1], (pairs, nxt))
                if cand == ceiling:
                    break
        memo[key] = result
        return result

    def moves(self, req: bytes, opt: bytes, dem: bytes, jleft: int, jneed: int,
              low: int) -> Iterator[tuple[int, int, tuple, tuple[tuple[int, int], ...] | None]]:
        """Every way to decide a copy of ``low``: ``(points, cards, next state, meld)``
        with the points and cards of hand cards it places (``meld`` None: leave the
        undecided hand copies of ``low`` in the hand)."""
        # cards with a copy to place (a necessary condition, used only to skip melds
        # that would need more jokers than there are: each exact check is below)
        avail = 0
        for c in range(52):
            if req[c] or opt[c]:
                avail |= 1 << c
        for meld, anchor, mask in _candidates(low, self.ace_high):
            n = len(meld)
            most = min(jleft, n - 1, self.joker_cap)
            if n - (mask & avail).bit_count() > most:
                continue
            # slots whose card has no copy left must be jokers; the others may be either
            forced: list[int] = []
            free: list[int] = []
            for i, c in enumerate(meld):
                if i != anchor:
                    copies = req[c] + opt[c] - (1 if c == low else 0)
                    (free if copies > 0 else forced).append(i)
            for extra in range(most - len(forced) + 1):
                for more in combinations(free, extra):
                    jset = forced + list(more)
                    placed = _place(meld, jset, req, opt, dem, self.value)
                    if placed is None:
                        continue
                    r, o, d, pts, cards = placed
                    nj = len(jset)
                    from_table = min(nj, jneed)
                    from_hand = nj - from_table
                    pairs = tuple((JOKER if i in jset else c, c) for i, c in enumerate(meld))
                    yield (pts + from_hand * self.jv, cards + from_hand,
                           (bytes(r), bytes(o), bytes(d), jleft - nj, jneed - from_table), pairs)
        if req[low] == 0:
            o = bytearray(opt)
            o[low] = 0
            yield 0, 0, (req, bytes(o), dem, jleft, jneed), None

    def melds(self, start: tuple) -> list[list[tuple[int, int]]]:
        """The melds of the best play from ``start`` (``best(*start)`` found it), in the
        order the search chose them."""
        melds: list[list[tuple[int, int]]] = []
        state = start
        while self.memo[state][2] is not None:
            pairs, state = self.memo[state][2]
            if pairs is not None:
                melds.append(list(pairs))
        return melds


def _place(meld: tuple[int, ...], jset: list[int], req: bytes, opt: bytes, dem: bytes,
           value: Sequence[int]) -> tuple[bytearray, bytearray, bytearray, int, int] | None:
    """The counts after ``meld`` goes on the table with jokers in the slots ``jset``:
    every slot meets a demand for its card; each natural slot takes a table copy, else a
    hand copy (placed: its points and 1 card counted). ``(req, opt, dem, points,
    cards)``, or None when a natural slot's card has no copy left."""
    r, o, d = bytearray(req), bytearray(opt), bytearray(dem)
    pts = cards = 0
    for i, c in enumerate(meld):
        if d[c]:
            d[c] -= 1
        if i in jset:
            continue
        if r[c]:
            r[c] -= 1
        elif o[c]:
            o[c] -= 1
            pts += value[c]
            cards += 1
        else:
            return None
    return r, o, d, pts, cards


def best_play(table: Any, hand: Any, rules: CarouselRules | None = None) -> ReferencePlay:
    """The best play by memoised exact cover (RULES-carousel.md section 4)."""
    rules = rules or CarouselRules()
    melds = parse_table(table, rules)
    hand_codes = parse_hand(hand)
    check_position(melds, hand_codes, rules)
    T, H, D = [0] * 52, [0] * 52, [0] * 52
    JT = 0
    for m in melds:
        for c, r in zip(m.cards, m.represents, strict=True):
            if c == JOKER:
                D[r] += 1
                JT += 1
            else:
                T[c] += 1
    for c in hand_codes:
        if c != JOKER:
            H[c] += 1
    JH = hand_codes.count(JOKER)
    total = rules.hand_points(hand_codes)
    found = solve_counts(T, H, D, JT, JH, rules)
    if found is None:
        raise ValueError("the table's cards cannot be arranged into melds")
    points, n, new = found
    if n == 0:
        return ReferencePlay(total, 0, (), tuple(melds), False, total <= rules.knock_limit)
    out = tuple(make_meld(m, rules, "reference meld") for m in new)
    table_nat = Counter(c for m in melds for c in m.cards if c != JOKER)
    final_nat = Counter(c for m in out for c in m.cards if c != JOKER)
    final_jk = sum(1 for m in out for c in m.cards if c == JOKER)
    played = tuple(sorted((final_nat - table_nat).elements())) + (JOKER,) * (final_jk - JT)
    left = total - points
    return ReferencePlay(left, n, played, out, True, left <= rules.knock_limit)
