"""Carousel's integer actions: a meld play as a sequence of fixed-size actions.

A Carousel meld play rearranges the whole table, so it cannot be one integer of a fixed
list. As OpenSpiel's gin decomposes its melds, a play here is a sequence: the player
*adds* hand cards one at a time (``ADD0 + k``, ``k`` the card kind 0..51, 52 the joker;
a card twice adds both copies), then *commits*; the table's new arrangement is the one
the solver finds for exactly the chosen cards (``rummy51.carousel.solver.play_cards``,
each joker's card declared by it). Draw, pass and knock are one action each.

=========  ==========================================================
id         action
=========  ==========================================================
0          ``DRAW``: draw from the stock
1          ``PASS``: end the turn (at its end, or with no draw left)
2          ``KNOCK``: end the round (5 points or fewer, at the end of the turn)
3          ``COMMIT``: play the chosen cards
4 .. 56    ``ADD0 + k``: add a hand card of kind ``k`` (52 = joker) to the play
=========  ==========================================================

``NUM_ACTIONS`` (57) is the same for every ``CarouselRules``. The legal mask, while a
meld may be made: ``ADD0 + k`` exactly where a copy of ``k`` is left in the hand and
some legal play places the chosen cards, ``k`` and perhaps more
(``MaskOracle.playable``); ``COMMIT`` exactly where the chosen cards form a legal play
(``MaskOracle.can_commit``). Once a card is chosen the player finishes the play (draw
and pass wait until it is committed), which is always possible: every chosen set can
still complete. Both queries ask the solver (one solve per distinct card, cached per
position).

>>> from rummy51.carousel import CarouselRules
>>> from rummy51.carousel.table import parse_table
>>> o = MaskOracle(parse_table(["6S 7S 8S"]), [8, 40, 52], CarouselRules())  # 9S 2C JK
>>> [action_name(ADD0 + k) for k in o.playable(())]
['add 9S', 'add JK']
>>> o.can_commit((8,)), o.can_commit((40,))
(True, False)
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Sequence

from ..cards import JOKER, card_text
from .rules import CarouselRules
from .. import _carousel
from .solver import play_cards
from .table import TableMeld

__all__ = ["DRAW", "PASS", "KNOCK", "COMMIT", "ADD0", "NUM_ACTIONS", "MaskOracle",
           "action_name", "add_action", "card_of"]

DRAW, PASS, KNOCK, COMMIT = 0, 1, 2, 3
ADD0 = 4
NUM_ACTIONS = ADD0 + 53
_NAMES = {DRAW: "draw", PASS: "pass", KNOCK: "knock", COMMIT: "commit"}


@lru_cache(maxsize=32)
def _core_rules(rules: CarouselRules):
    """The solver core's compiled rules (as ``rummy51.carousel.solver`` makes them)."""
    return _carousel.CoreRules(rules)


def add_action(card: int) -> int:
    """The id of "add a hand card of kind ``card``" (0..51, 52 the joker)."""
    return ADD0 + int(card)


def card_of(action: int) -> int:
    """The card kind an add action adds."""
    if not ADD0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is not an add-card action ({ADD0}..{NUM_ACTIONS - 1})")
    return action - ADD0


def action_name(action: int) -> str:
    """The text of an id out of context: ``draw``, ``commit``, ``add 7S``..."""
    if action in _NAMES:
        return _NAMES[action]
    return f"add {card_text(card_of(action))}"


class MaskOracle:
    """The solver's answers for one position (a table and the hand of the player on
    turn): ``playable(chosen)`` the card kinds that can join ``chosen`` on the way to a
    legal play, ``can_commit(chosen)`` whether ``chosen`` is one, ``play(chosen)`` the
    play. Answers are cached per chosen multiset, the table's counts made once."""

    __slots__ = ("table", "hand", "rules", "_core", "_hand_counts", "_cache", "_commit",
                 "_T", "_D", "_JT")

    def __init__(self, table: Sequence[TableMeld], hand: Sequence[int], rules: CarouselRules):
        self.table = list(table)
        self.hand = list(hand)
        self.rules = rules
        self._core = _core_rules(rules)
        self._hand_counts = Counter(self.hand)
        self._cache: dict[tuple[int, ...], tuple[int, ...]] = {}
        self._commit: dict[tuple[int, ...], bool] = {}
        T = [0] * 52
        D = [0] * 52
        JT = 0
        for m in self.table:
            for c, r in zip(m.cards, m.represents):
                if c == JOKER:
                    D[r] += 1
                    JT += 1
                else:
                    T[c] += 1
        self._T, self._D, self._JT = T, bytes(D), JT

    def _value(self, placed, optional) -> int:
        """The solver's value of a play placing every table card and ``placed``, with
        ``optional`` cards that may be placed too (negative: no such play)."""
        T = self._T[:]
        H = [0] * 52
        jt = self._JT
        jh = 0
        for c in placed:
            if c == JOKER:
                jt += 1
            else:
                T[c] += 1
        for c in optional:
            if c == JOKER:
                jh += 1
            else:
                H[c] += 1
        return _carousel.solve_counts(self._core, bytes(T), bytes(H), self._D, jt, jh)

    def playable(self, chosen: tuple[int, ...] = ()) -> tuple[int, ...]:
        """Sorted card kinds ``k`` left in the hand (less ``chosen``) such that a legal play
        places ``chosen``, ``k`` and perhaps more of the hand."""
        key = tuple(sorted(chosen))
        got = self._cache.get(key)
        if got is not None:
            return got
        rest = self._hand_counts - Counter(key)
        out = []
        if not key and not self._any(rest):  # one solve answers "no play at all"
            self._cache[key] = ()
            return ()
        # the table's naturals and the whole hand's, for a quick necessary condition
        pool = Counter({c: n for c, n in enumerate(self._T) if n})
        pool.update(self.hand)
        jokers = pool.pop(JOKER, 0) + self._JT
        for k in sorted(rest):
            if k != JOKER and not _may_fit(k, pool, jokers, self.rules.ace_high):
                continue  # no meld of the table's and the hand's cards can hold it
            left = list((rest - Counter([k])).elements())
            if self._value(list(key) + [k], left) >= 0:
                out.append(k)
        got = self._cache[key] = tuple(out)
        return got

    def _any(self, rest: Counter) -> bool:
        """Whether any play exists at all (one solve: the whole hand optional)."""
        return self._value([], list(rest.elements())) > 0

    def can_commit(self, chosen: tuple[int, ...]) -> bool:
        """Whether exactly ``chosen`` (non-empty, in the hand) is a legal play."""
        key = tuple(sorted(chosen))
        got = self._commit.get(key)
        if got is None:
            ok = bool(key) and not (Counter(key) - self._hand_counts)
            got = self._commit[key] = ok and self._value(list(key), []) >= 0
        return got

    def play(self, chosen: tuple[int, ...]):
        """The solver's play of exactly ``chosen`` (``play_cards``; ``IllegalMove`` if none)."""
        return play_cards(self.table, list(chosen), self.hand, self.rules)


def _may_fit(k: int, pool: Counter, jokers: int, ace_high: bool) -> bool:
    """A necessary condition for natural ``k`` to be in some meld made of the cards of
    ``pool`` (counts; ``k``'s own copy among them) and ``jokers`` jokers: a set needs two
    cards of its rank in other suits (or jokers), a run three consecutive cards of its
    suit (A low or, with ``ace_high``, high) with the gaps filled by jokers. Cheaper
    than a solve; where it fails the solve would too."""
    suit, rank = divmod(k, 13)
    other_suits = sum(1 for s in range(4) if s != suit and pool[s * 13 + rank])
    if other_suits + jokers >= 2:
        return True
    top = 14 if ace_high else 13
    have = [False] * 16  # positions 1 (A low) .. 13 (K), 14 (A high)
    for pos in range(1, top + 1):
        have[pos] = pool[suit * 13 + (0 if pos == 14 else pos - 1)] > 0
    places = [1, 14] if rank == 0 else [rank + 1]
    for p in places:
        if p > top:
            continue
        for lo in range(max(1, p - 2), min(p, top - 2) + 1):
            missing = sum(1 for q in range(lo, lo + 3) if q != p and not have[q])
            if missing <= jokers:
                return True
    return False


def chosen_text(chosen: Sequence[int]) -> str:
    return " ".join("JK" if c == JOKER else card_text(c) for c in sorted(chosen))
