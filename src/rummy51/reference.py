"""A slow, obviously correct reference solver, written straight from docs/rules.md.

This module exists to check the fast solver (``rummy51.solver`` and its Cython core)
and to give the benchmarks a baseline. It answers the same questions as the core's
contract (docs/rules.md section 4): the best opening, whether a hand can open, whether it
can go out at once ("hand"), the smallest deadwood, and all of these with a card that
must be melded.

Why it is obviously correct, and how it differs from a fast solver:

* **Melds come straight from the rules.** A run is read off the 14 positions
  A(low) 2 .. K A(high) of one suit: every interval of 3 or more positions (ending at
  K when ``rules.ace_high`` is False), every choice of which positions are jokers.
  Runs of any length are produced, up to the 14-card A..A run, which is the only
  interval holding both ace positions (so no other run holds two aces, and no run
  turns the corner: K A 2 is not an interval). A set is 3 or 4 positions of one rank
  in different suits, jokers standing for missing suits. A meld holds at most
  ``rules.max_jokers_per_meld`` jokers and at least one natural card. The value of a
  meld is the sum of its positions' values (docs/rules.md section 2: low ace
  ``ace_low_value``, high ace or ace in a set ``ace_value``, 2..9 face, 10 J Q K 10);
  the same cards read as different positions (a joker at either end of a run, a
  lone ace low or high) are different readings, and the meld is worth its best
  reading. There is no meld catalogue, no bitmask trick and no shortcut.
* **Collections are searched exhaustively.** The lowest undecided card of the hand is
  either left out of the melds (with all its undecided copies) or covered by one of
  the melds that hold it and fit in the cards still undecided; then the search goes
  on with the rest. Every collection of disjoint melds is reached this way, in one
  order of its melds rather than in every order (two melds holding the two copies
  of a doubled card may come in either order), and the answers for a remaining
  multiset of cards are memoised. There are no upper bounds, no pruning,
  no greedy steps and no dominance rules: for every number ``u`` of melded cards the
  search keeps the best total value and the smallest leftover value, and each
  question is a plain maximum or minimum over that table.

It is written for clarity, not speed: typical hands take a few milliseconds, and
meld-rich hands of 21 cards still finish. Only ``rummy51.cards`` and
``rummy51.rules`` are imported.
"""
from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from rummy51.cards import JOKER, card_text, check_counts, to_codes
from rummy51.rules import RuleSet

__all__ = [
    "RefMeld",
    "enumerate_melds",
    "meld_value",
    "best_opening",
    "best_opening_melds",
    "can_open",
    "can_go_out",
    "min_deadwood",
]

#: Run positions: 1 is the low ace, 2..13 are 2..K, 14 is the high ace.
LOW_ACE, HIGH_ACE = 1, 14


# --------------------------------------------------------------------- values
def _position_card(position: int, suit: int) -> int:
    """The natural card at run ``position`` (1..14) of ``suit``; both aces are the ace."""
    rank = 1 if position == HIGH_ACE else position
    return suit * 13 + rank - 1


def _position_value(position: int, rules: RuleSet) -> int:
    """Opening value of the card at run ``position`` (docs/rules.md section 2)."""
    if position == LOW_ACE:
        return rules.ace_low_value
    if position == HIGH_ACE:
        return rules.ace_value
    return position if position <= 9 else 10


def _rank_value(rank: int, rules: RuleSet) -> int:
    """Value of a card of ``rank`` (1..13) anywhere but the low end of a run."""
    if rank == 1:
        return rules.ace_value
    return rank if rank <= 9 else 10


def _hand_value(code: int, rules: RuleSet) -> int:
    """Value of a card left in hand (deadwood): a joker counts the joker penalty."""
    if code == JOKER:
        return rules.joker_penalty
    return _rank_value(code % 13 + 1, rules)


def _top_position(rules: RuleSet) -> int:
    """Highest run position: the high ace when aces may follow the king, else the king."""
    return HIGH_ACE if rules.ace_high else 13


# --------------------------------------------------------------------- melds
def _opening_run(meld: RefMeld, rules: RuleSet) -> bool:
    """Whether ``meld`` is a run an opening may show under ``rules.opening_run`` (docs/rules.md
    4): any run ("run"), a run without a joker ("pure_run"); never needed with "any"."""
    if rules.opening_run == "any":
        return False
    return meld.kind == "run" and (rules.opening_run == "run" or meld.jokers == 0)


@dataclass(frozen=True)
class RefMeld:
    """One meld: its kind (``"run"`` or ``"set"``), natural cards (sorted codes), number of
    jokers and opening value (jokers standing for the cards that give the most)."""

    kind: str
    naturals: tuple
    jokers: int
    value: int

    @property
    def size(self) -> int:
        """Number of cards in the meld."""
        return len(self.naturals) + self.jokers

    @property
    def cards(self) -> tuple:
        """All the meld's card codes, jokers (52) last."""
        return tuple(self.naturals) + (JOKER,) * self.jokers

    def text(self) -> str:
        return " ".join(card_text(c) for c in self.cards)


def _run_readings(hand: Counter, rules: RuleSet) -> Iterator[tuple[tuple[int, ...], int, int]]:
    """Every way to read a run off the cards in ``hand`` (a Counter of codes).

    Yields ``(naturals, jokers, value)``: for each suit, each interval of 3 or more
    run positions, each set of positions given to jokers (at most
    ``max_jokers_per_meld`` and at most the jokers in hand, at least one natural
    left), provided the hand holds the natural cards of the other positions.
    """
    max_j = min(rules.max_jokers_per_meld, hand[JOKER])
    top = _top_position(rules)
    for suit in range(4):
        for low in range(1, top + 1):
            for high in range(low + 2, top + 1):
                positions = list(range(low, high + 1))
                missing = [p for p in positions if hand[_position_card(p, suit)] == 0]
                if len(missing) > max_j:
                    continue
                for j in range(len(missing), max_j + 1):
                    if j >= len(positions):  # a meld needs a natural card
                        break
                    for joker_positions in itertools.combinations(positions, j):
                        if not set(missing) <= set(joker_positions):
                            continue
                        naturals = [_position_card(p, suit) for p in positions
                                    if p not in joker_positions]
                        need = Counter(naturals)
                        if any(hand[c] < n for c, n in need.items()):
                            continue  # e.g. the A..A run with only one ace
                        value = sum(_position_value(p, rules) for p in positions)
                        yield tuple(sorted(naturals)), j, value


def _set_readings(hand: Counter, rules: RuleSet) -> Iterator[tuple[tuple[int, ...], int, int]]:
    """Every set that the cards in ``hand`` can make: ``(naturals, jokers, value)``.

    3 or 4 cards of one rank, all different suits; jokers stand for missing suits.
    """
    max_j = min(rules.max_jokers_per_meld, hand[JOKER])
    for rank in range(1, 14):
        suits = [s for s in range(4) if hand[s * 13 + rank - 1] > 0]
        for k in range(1, len(suits) + 1):
            for chosen in itertools.combinations(suits, k):
                naturals = tuple(sorted(s * 13 + rank - 1 for s in chosen))
                for j in range(0, max_j + 1):
                    if 3 <= k + j <= 4:
                        yield naturals, j, (k + j) * _rank_value(rank, rules)


def _melds_of(hand: Counter, rules: RuleSet) -> list[RefMeld]:
    best: dict[tuple, int] = {}
    for kind, readings in (("run", _run_readings(hand, rules)),
                           ("set", _set_readings(hand, rules))):
        for naturals, jokers, value in readings:
            key = (kind, naturals, jokers)
            if key not in best or value > best[key]:
                best[key] = value
    return [RefMeld(kind, naturals, jokers, value)
            for (kind, naturals, jokers), value in sorted(best.items())]


def enumerate_melds(codes: Iterable[int], rules: RuleSet) -> list[RefMeld]:
    """Every distinct valid meld that can be formed from the hand's cards.

    A meld uses at most the copies of each card that the hand holds. Melds are distinct
    by ``(kind, naturals, jokers)``; each is worth its best reading (a joker's stand-in
    chosen for the highest value). Sorted by kind, naturals, jokers.
    """
    hand = _check_hand(codes, rules)
    return _melds_of(Counter(hand), rules)


def meld_value(naturals: Iterable[int], jokers: int, rules: RuleSet) -> int | None:
    """Best opening value of a meld of exactly these natural cards plus ``jokers`` jokers,
    or ``None`` if they are not a valid meld (docs/rules.md section 3).

    Checked directly, independently of ``enumerate_melds``: the cards must fill some
    reading as a set or as a run exactly, the jokers taking the other positions.
    """
    nat = to_codes(naturals)
    if any(c == JOKER for c in nat):
        raise ValueError("meld_value: pass jokers as the count `jokers`, not in `naturals`")
    if isinstance(jokers, bool) or int(jokers) != jokers or jokers < 0:
        raise ValueError(f"meld_value: jokers must be an int >= 0, got {jokers!r}")
    jokers = int(jokers)
    check_counts(nat + [JOKER] * jokers, rules)
    if not nat or jokers > rules.max_jokers_per_meld:
        return None
    size = len(nat) + jokers
    need = Counter(nat)
    values = []
    # set: 3 or 4 cards, one rank, all different suits (jokers take missing suits)
    ranks = {c % 13 for c in nat}
    suits = [c // 13 for c in nat]
    if 3 <= size <= 4 and len(ranks) == 1 and len(set(suits)) == len(suits):
        values.append(size * _rank_value(nat[0] % 13 + 1, rules))
    # run: an interval of `size` positions of one suit holding every natural card
    top = _top_position(rules)
    if size >= 3:
        for suit in range(4):
            for low in range(1, top - size + 2):
                positions = range(low, low + size)
                have = Counter(_position_card(p, suit) for p in positions)
                if all(have[c] >= n for c, n in need.items()):
                    values.append(sum(_position_value(p, rules) for p in positions))
    return max(values) if values else None


# --------------------------------------------------------------------- search
def _check_hand(codes: Iterable[int], rules: RuleSet) -> list[int]:
    if not isinstance(rules, RuleSet):
        raise TypeError(f"rules must be a RuleSet, got {type(rules).__name__}")
    hand = to_codes(codes)
    check_counts(hand, rules)
    return hand


def _check_keep(keep: int) -> int:
    if isinstance(keep, bool) or int(keep) != keep:
        raise ValueError(f"keep must be an int >= 0, got {keep!r}")
    if keep < 0:
        raise ValueError(f"keep must be >= 0, got {keep}")
    return int(keep)


def _check_must(must_use: int | None) -> int | None:
    if must_use is None:
        return None
    if isinstance(must_use, bool) or int(must_use) != must_use or not 0 <= must_use <= JOKER:
        raise ValueError(f"must_use must be a card code 0..52 or None, got {must_use!r}")
    return int(must_use)


def _order(code: int) -> tuple:
    """Search order of the cards: by rank (A first), then suit; jokers last.

    Any fixed order gives the same answers; rank order keeps the memo small because
    sets and short runs only reach a few ranks ahead.
    """
    return (code == JOKER, code % 13, code // 13)


class _Search:
    """The memoised search over one hand.

    ``table(rest)`` maps ``(u, s, q)`` to ``[best value, least deadwood, back]`` over all
    collections of disjoint melds taken from the multiset ``rest`` that meld exactly
    ``u`` cards; ``s`` says whether a copy of the must-use card is melded (always False
    without one), ``q`` whether a run the opening must show (``rules.opening_run``) is
    among the melds (always False with "any"). ``back`` = ``(meld, next rest, next key)``
    records a move that reaches the best value, so a best collection can be read back.
    """

    def __init__(self, hand: list[int], rules: RuleSet, must: int | None) -> None:
        self.rules = rules
        self.must = must
        self.hand = tuple(sorted(hand, key=_order))
        self.melds = _melds_of(Counter(hand), rules)
        # every meld, filed under its lowest card in search order: when the search
        # decides card c, every card below c is decided already, so the melds that
        # hold c and can still fit are exactly the melds whose lowest card is c
        self.holding: dict[int, list] = {}
        for m in self.melds:
            cards = tuple(sorted(m.cards, key=_order))
            holds_must = must is not None and (must in m.naturals
                                               or (must == JOKER and m.jokers > 0))
            self.holding.setdefault(cards[0], []).append(
                (m, cards, frozenset(cards), holds_must, _opening_run(m, rules)))
        self.memo: dict[tuple, dict] = {}

    @staticmethod
    def _take(rest: tuple, cards: tuple) -> tuple | None:
        """``rest`` minus the multiset ``cards``, or None if ``rest`` lacks one of them."""
        left = list(rest)
        for c in cards:
            try:
                left.remove(c)
            except ValueError:
                return None
        return tuple(left)

    def table(self, rest: tuple) -> dict:
        got = self.memo.get(rest)
        if got is not None:
            return got
        out: dict = {}
        if not rest:
            out[(0, False, False)] = [0, 0, None]
            self.memo[rest] = out
            return out
        first = rest[0]  # the lowest undecided card
        # 1. leave it out of the melds, with every copy of it still undecided: they
        #    count as deadwood
        copies = rest.count(first)
        after = rest[copies:]  # rest is sorted, so the copies come first
        penalty = copies * _hand_value(first, self.rules)
        for key, (v, d, _) in self.table(after).items():
            self._offer(out, key, v, d + penalty, (None, after, key))
        # 2. cover it with a meld that holds it and fits in what is left
        present = frozenset(rest)
        for meld, cards, distinct, holds_must, holds_run in self.holding.get(first, ()):
            if not distinct <= present:
                continue  # quick test; _take checks the multiplicities
            taken = self._take(rest, cards)
            if taken is None:
                continue
            after = taken
            for (u, s, q), (v, d, _) in self.table(after).items():
                self._offer(out, (u + meld.size, s or holds_must, q or holds_run),
                            v + meld.value, d, (meld, after, (u, s, q)))
        self.memo[rest] = out
        return out

    @staticmethod
    def _offer(out: dict, key: tuple, value: int, dead: int, back: tuple | None) -> None:
        cur = out.get(key)
        if cur is None:
            out[key] = [value, dead, back]
            return
        if value > cur[0]:
            cur[0], cur[2] = value, back
        if dead < cur[1]:
            cur[1] = dead

    def collection(self, key: tuple) -> list[RefMeld]:
        """A best-value collection for ``key`` of the whole hand, read back."""
        melds: list[RefMeld] = []
        rest = self.hand
        while True:
            back = self.table(rest)[key][2]
            if back is None:
                return melds
            meld, rest, key = back
            if meld is not None:
                melds.append(meld)


@lru_cache(maxsize=16)
def _solved(hand: tuple, rules: RuleSet, must: int | None) -> tuple:
    search = _Search(list(hand), rules, must)
    return search, search.table(search.hand)


def _table(codes: Iterable[int], rules: RuleSet, must: int | None = None) -> tuple[tuple, int]:
    hand = _check_hand(codes, rules)
    return _solved(tuple(sorted(hand)), rules, must), len(hand)


def _best(codes: Iterable[int], rules: RuleSet, keep: int,
          must_use: int | None) -> tuple[_Search, tuple | None, int]:
    """(best value, key of the best entry or None) for the opening question."""
    keep = _check_keep(keep)
    must = _check_must(must_use)
    (search, table), n = _table(codes, rules, must)
    best_key, best_value = None, 0
    for (u, s, q), (v, _, _) in table.items():
        if u == 0 or u > n - keep:
            continue
        if must is not None and not s:
            continue
        if rules.opening_run != "any" and not q:
            continue  # the opening must show a run (rules.opening_run)
        if best_key is None or v > best_value:
            best_key, best_value = (u, s, q), v
    return search, best_key, best_value


# --------------------------------------------------------------------- public API
def best_opening(codes: Iterable[int], rules: RuleSet, keep: int = 1,
                 must_use: int | None = None) -> int:
    """Largest total value of disjoint valid melds from the hand using at most
    ``len(hand) - keep`` cards; 0 if there is none. With ``must_use`` only collections
    that meld a copy of that card (52 = a joker) count."""
    _, key, value = _best(codes, rules, keep, must_use)
    return value if key is not None else 0


def best_opening_melds(codes: Iterable[int], rules: RuleSet, keep: int = 1,
                       must_use: int | None = None) -> tuple[int, list[RefMeld]]:
    """``best_opening`` and one collection of melds that reaches it (``(0, [])`` if none)."""
    search, key, value = _best(codes, rules, keep, must_use)
    if key is None:
        return 0, []
    melds = search.collection(key)
    assert sum(m.value for m in melds) == value
    return value, melds


def can_open(codes: Iterable[int], rules: RuleSet, keep: int = 1,
             must_use: int | None = None) -> bool:
    """Whether some collection of at least one meld (within ``keep``, holding
    ``must_use``) is worth ``rules.threshold`` or more."""
    _, key, value = _best(codes, rules, keep, must_use)
    return key is not None and value >= rules.threshold


def can_go_out(codes: Iterable[int], rules: RuleSet) -> bool:
    """Whether the hand can lay down all but exactly one card in disjoint valid melds
    worth ``rules.threshold`` or more (going out at once; fewer than 4 cards: False)."""
    (_, table), n = _table(codes, rules)
    if n < 4:
        return False
    entry = table.get((n - 1, False, rules.opening_run != "any"))
    return entry is not None and entry[0] >= rules.threshold


def min_deadwood(codes: Iterable[int], rules: RuleSet, keep: int = 0) -> int:
    """Smallest total value of the cards left out of the melds, melding at most
    ``len(hand) - keep`` cards (aces ``rules.ace_value``, jokers ``rules.joker_penalty``)."""
    keep = _check_keep(keep)
    (_, table), n = _table(codes, rules)
    return min(d for (u, _, _), (_, d, _) in table.items() if u <= max(n - keep, 0))
