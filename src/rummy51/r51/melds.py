"""Melds on the table: validation, lay-offs and joker swaps (docs/rules.md section 3).

The solver knows melds of at most 5 cards (enough to value any hand); the table
holds melds of any length, so this module has its own small model, independent of
the solver's catalogue:

* ``TableMeld``: a meld on the table: its ``kind`` (``"run"`` or ``"set"``), its
  ``cards`` in order (a run from its low end to its high end; 52 = joker), the card
  each slot ``represents`` (a natural stands for itself, a joker for its stand-in)
  and its ``owner`` (the seat that laid it down).
* ``make_meld(cards, rules)``: read cards laid from the hand as one meld, choosing
  the joker stand-ins as docs/rules.md section 3 says (an end joker on the side worth
  more, unless the player names the stand-in), or raise ``MeldError`` saying why
  the cards are no meld.
* ``lay_off(meld, card, rules, side)`` and ``swap_joker(meld, card, rules)``: the
  meld after a lay-off or a joker swap, or ``MeldError``.
* ``melds_in(hand, rules)``: every single meld a hand can lay down (for
  ``legal_actions``); ``go_out_melds(hand, rules)``: melds covering all but one card
  (the hand win), the highest-valued such collection.

Run positions: 0 is the low ace, 1..12 are 2..K, 13 is the high ace (the ace
after the king; only when ``rules.ace_high``). A run never turns the corner, so a
run starting with an ace starts at position 0.

Jokers in a set are not tied to one suit: a joker in ``7S 7H JK`` stands for
whichever of 7D, 7C is missing, so either may be laid off or swapped for it;
``represents`` names the missing suits in S H D C order (or those the player named).

>>> from rummy51 import RuleSet
>>> from rummy51.cards import parse_card
>>> m = make_meld("8S 9S JK", RuleSet())
>>> m.text(), meld_value(m, RuleSet())
('8S 9S JK(10S)', 27)
>>> lay_off(m, parse_card("7S"), RuleSet()).text()
'7S 8S 9S JK(10S)'
>>> make_meld("QS KS AS JK", RuleSet()).text()
'JK(JS) QS KS AS'
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

from ..cards import JOKER, card_text, cards_text, to_codes
from ..rules import RuleSet

__all__ = [
    "RUN",
    "SET",
    "LOW",
    "HIGH",
    "MeldError",
    "TableMeld",
    "make_meld",
    "meld_readings",
    "meld_value",
    "opening_value",
    "check_meld",
    "lay_off",
    "lay_off_sides",
    "lay_off_candidates",
    "swap_joker",
    "swap_targets",
    "melds_in",
    "joker_meld_possible",
    "joker_melds",
    "go_out_melds",
    "card_value",
    "position_value",
]

RUN, SET = "run", "set"
LOW, HIGH = "low", "high"
LOW_ACE, HIGH_ACE = 0, 13


class MeldError(ValueError):
    """The cards are not a valid meld, or a lay-off / joker swap does not fit."""


# --------------------------------------------------------------------------- values
def top_position(rules: RuleSet) -> int:
    """The highest run position: the high ace (13) if aces follow the king, else the king (12)."""
    return HIGH_ACE if rules.ace_high else 12


def position_value(pos: int, rules: RuleSet) -> int:
    """Value of the card at run position ``pos`` (docs/rules.md section 2)."""
    if pos == LOW_ACE:
        return rules.ace_low_value
    if pos == HIGH_ACE:
        return rules.ace_value
    return min(pos + 1, 10)


def card_value(code: int, rules: RuleSet) -> int:
    """Value of a card left in hand (a joker counts ``rules.joker_penalty``); also a
    set member's value."""
    if code == JOKER:
        return rules.joker_penalty
    r = code % 13
    return rules.ace_value if r == 0 else min(r + 1, 10)


def position_card(pos: int, suit: int) -> int:
    """The natural card at run position ``pos`` of ``suit``."""
    return suit * 13 + (0 if pos == HIGH_ACE else pos)


def _positions_of(code: int, rules: RuleSet) -> tuple[int, ...]:
    """Run positions a natural card may take (an ace: low, or high too if allowed)."""
    r = code % 13
    if r == 0:
        return (LOW_ACE, HIGH_ACE) if rules.ace_high else (LOW_ACE,)
    return (r,)


# --------------------------------------------------------------------------- the meld
@dataclass(frozen=True)
class TableMeld:
    """A meld on the table.

    ``cards`` in order (a run from its low end; 52 = joker), ``represents`` the card
    each slot stands for, ``owner`` the seat that laid it down (-1: nobody yet)."""

    kind: str
    cards: tuple[int, ...]
    represents: tuple[int, ...]
    owner: int = -1

    # -- shape
    @property
    def low(self) -> int:
        """Run position of the first slot (0 = low ace); for a set, the rank index 0..12."""
        r = self.represents[0] % 13
        return r  # a run that starts with an ace starts at the low ace (position 0)

    @property
    def high(self) -> int:
        """Run position of the last slot (13 = high ace); for a set, the rank index."""
        return self.low + len(self.cards) - 1 if self.kind == RUN else self.low

    @property
    def suit(self) -> int:
        """A run's suit (0..3); -1 for a set."""
        return self.represents[0] // 13 if self.kind == RUN else -1

    @property
    def rank(self) -> int:
        """A set's rank (1..13); -1 for a run."""
        return self.represents[0] % 13 + 1 if self.kind == SET else -1

    @property
    def jokers(self) -> int:
        """Number of jokers in the meld."""
        return self.cards.count(JOKER)

    @property
    def naturals(self) -> tuple[int, ...]:
        """The natural cards of the meld, in slot order."""
        return tuple(c for c in self.cards if c != JOKER)

    @property
    def closed(self) -> bool:
        """A set of 4 is closed: nothing more can be added."""
        return self.kind == SET and len(self.cards) >= 4

    def __len__(self) -> int:
        return len(self.cards)

    def value(self, rules: RuleSet) -> int:
        """The sum of the values of the cards the slots stand for."""
        if self.kind == SET:
            return len(self.cards) * card_value(self.represents[0], rules)
        lo = self.low
        return sum(position_value(p, rules) for p in range(lo, lo + len(self.cards)))

    def text(self, unicode: bool = False) -> str:
        """``'8S 9S JK(10S)'``: the cards in order, each joker with its stand-in."""
        return " ".join(
            f"JK({card_text(r, unicode)})" if c == JOKER else card_text(c, unicode)
            for c, r in zip(self.cards, self.represents, strict=True)
        )

    def __str__(self) -> str:
        return self.text()

    def to_json(self) -> dict:
        return {"kind": self.kind, "cards": cards_text(self.cards).split(),
                "represents": cards_text(self.represents).split(), "owner": self.owner}

    @classmethod
    def from_json(cls, d: dict) -> TableMeld:
        return cls(d["kind"], tuple(to_codes(d["cards"])), tuple(to_codes(d["represents"])),
                   int(d["owner"]))


# --------------------------------------------------------------------------- readings
def _codes(cards: Any) -> tuple[int, ...]:
    if isinstance(cards, TableMeld):
        return cards.cards
    return tuple(to_codes(cards))


def _known(m: TableMeld | None) -> TableMeld:
    """A reading the caller built from valid parts (never None there)."""
    assert m is not None
    return m


def _set_reading(nat: list[int], nj: int, stand_ins: Sequence[int] | None = None
                 ) -> TableMeld | None:
    """The set reading of ``nat`` + ``nj`` jokers, or None."""
    size = len(nat) + nj
    if not nat or not 3 <= size <= 4:
        return None
    rank = nat[0] % 13
    if any(c % 13 != rank for c in nat):
        return None
    suits = [c // 13 for c in nat]
    if len(set(suits)) != len(suits):
        return None
    missing = [s * 13 + rank for s in range(4) if s not in suits]
    if stand_ins is not None:
        reps = list(stand_ins)
        if len(reps) != nj or len(set(reps)) != nj or any(r not in missing for r in reps):
            return None
    else:
        reps = missing[:nj]
    return TableMeld(SET, tuple(nat) + (JOKER,) * nj, tuple(nat) + tuple(reps))


def _run_readings(nat: list[int], nj: int, rules: RuleSet) -> list[TableMeld]:
    """Every run reading of ``nat`` + ``nj`` jokers (each ace low or high, end jokers
    split between the two ends)."""
    if not nat or len(nat) + nj < 3:
        return []
    suit = nat[0] // 13
    if any(c // 13 != suit for c in nat):
        return []
    top = top_position(rules)
    out = []
    options = [_positions_of(c, rules) for c in nat]
    seen = set()
    for choice in _product(options):
        if len(set(choice)) != len(choice):
            continue
        lo, hi = min(choice), max(choice)
        gaps = hi - lo + 1 - len(choice)
        if gaps > nj:
            continue
        extra = nj - gaps
        for left in range(extra + 1):
            a, b = lo - left, hi + extra - left
            if a < 0 or b > top or (a, b) in seen:
                continue
            seen.add((a, b))
            present = set(choice)
            cards = tuple(position_card(p, suit) if p in present else JOKER for p in range(a, b + 1))
            reps = tuple(position_card(p, suit) for p in range(a, b + 1))
            out.append(TableMeld(RUN, cards, reps))
    return out


def _product(options: Sequence[Sequence[int]]) -> Iterator[tuple[int, ...]]:
    if not options:
        yield ()
        return
    for head in options[0]:
        for tail in _product(options[1:]):
            yield (head,) + tail


def meld_readings(cards: Any, rules: RuleSet) -> list[TableMeld]:
    """Every way to read ``cards`` as one meld (ignoring the joker limit), best value first;
    among equal values a run with its end jokers on the high side comes first."""
    codes = _codes(cards)
    nat = sorted(c for c in codes if c != JOKER)
    nj = len(codes) - len(nat)
    out = _run_readings(nat, nj, rules)
    s = _set_reading(nat, nj)
    if s is not None:
        out.append(s)
    out.sort(key=lambda m: (-m.value(rules), -m.high if m.kind == RUN else 0))
    return out


def _why_not(codes: tuple[int, ...], rules: RuleSet) -> str:
    """Why ``codes`` are not a meld (for the error message)."""
    nat = sorted(c for c in codes if c != JOKER)
    nj = len(codes) - len(nat)
    text = cards_text(codes)
    if len(codes) < 3:
        return f"{text!r} is not a meld: a meld has at least 3 cards"
    if not nat:
        return f"{text!r} is not a meld: a meld holds at least one natural card"
    ranks = {c % 13 for c in nat}
    suits = {c // 13 for c in nat}
    if len(ranks) == 1 and len(nat) > 1:
        if len(codes) > 4:
            return f"{text!r} is not a meld: a set has 3 or 4 cards"
        dup = [c for c, n in Counter(nat).items() if n > 1 or sum(1 for x in nat if x // 13 == c // 13) > 1]
        return (f"{text!r} is not a meld: a set's cards are all of different suits "
                f"({card_text(dup[0])} twice)")
    if len(suits) == 1:
        dups = [c for c, n in Counter(nat).items() if n > 1 and (c % 13 != 0 or n > 2 or not rules.ace_high)]
        if dups:
            return f"{text!r} is not a meld: a run holds each card once ({card_text(dups[0])} twice)"
        if len(codes) > top_position(rules) + 1:
            return (f"{text!r} is not a meld: a run has at most {top_position(rules) + 1} cards "
                    f"(A..{'A' if rules.ace_high else 'K'})")
        return (f"{text!r} is not a meld: a run's cards must be consecutive (jokers fill at most "
                f"{nj} gap{'s' if nj != 1 else ''}), within A..{'A' if rules.ace_high else 'K'}, "
                "never turning the corner")
    return (f"{text!r} is not a meld: a set is one rank in different suits, a run one suit "
            "in consecutive order")


def make_meld(cards: Any, rules: RuleSet, owner: int = -1,
              stand_ins: Iterable | None = None) -> TableMeld:
    """Read ``cards`` (laid from a hand, in any order) as one meld.

    The jokers' stand-ins are those the player names in ``stand_ins`` (one card per
    joker, in any order), else the reading worth the most (docs/rules.md section 3: an end
    joker stands on the side of the higher value; on a tie, the high side). Raises
    ``MeldError`` naming what is wrong: fewer than 3 cards, no natural card, more
    jokers than ``rules.max_jokers_per_meld``, not a set or run, or stand-ins that no
    reading of the cards has.

    >>> make_meld("2S 3S JK", RuleSet()).text()      # A 2 3 = 15 beats 2 3 4 = 9
    'JK(AS) 2S 3S'
    >>> make_meld("2S 3S JK", RuleSet(), stand_ins=["4S"]).text()
    '2S 3S JK(4S)'
    """
    codes = _codes(cards)
    nj = codes.count(JOKER)
    if nj > rules.max_jokers_per_meld:
        raise MeldError(
            f"{cards_text(codes)!r}: a meld holds at most {rules.max_jokers_per_meld} "
            f"joker{'s' if rules.max_jokers_per_meld != 1 else ''} (rules.max_jokers_per_meld), "
            f"got {nj}")
    readings = meld_readings(codes, rules)
    if not readings:
        raise MeldError(_why_not(codes, rules))
    if stand_ins is not None:
        want = sorted(to_codes(list(stand_ins)))
        if any(c == JOKER for c in want):
            raise MeldError("a joker's stand-in must be a natural card, not a joker")
        if len(want) != nj:
            raise MeldError(f"{cards_text(codes)!r} holds {nj} joker(s) but {len(want)} "
                            "stand-in(s) were named")
        nat = sorted(c for c in codes if c != JOKER)
        match = [m for m in readings if m.kind == RUN
                 and sorted(r for c, r in zip(m.cards, m.represents, strict=True) if c == JOKER) == want]
        s = _set_reading(nat, nj, want)
        if s is not None:
            match.append(s)
        if not match:
            raise MeldError(f"{cards_text(codes)!r}: no reading of these cards has the joker "
                            f"stand for {cards_text(want)}")
        m = match[0]
    else:
        m = readings[0]
    return TableMeld(m.kind, m.cards, m.represents, owner)


def opening_value(cards: Any, rules: RuleSet) -> int:
    """The opening value of ``cards`` laid as one meld: its best reading's value
    (docs/rules.md section 3: the stand-in with the higher value counts), or 0 if no meld."""
    readings = meld_readings(cards, rules)
    return readings[0].value(rules) if readings else 0


def meld_value(meld: Any, rules: RuleSet) -> int:
    """The value of a meld as laid (its stand-ins); cards that are no meld are worth 0."""
    if isinstance(meld, TableMeld):
        return meld.value(rules)
    return opening_value(meld, rules)


def table_joker_limit(rules: RuleSet) -> int:
    """Most jokers a meld on the table may come to hold by lay-offs: the joker limit, or with
    ``rules.joker_limit_on_table`` off (the limit binds lay-downs only) every joker there is."""
    return rules.max_jokers_per_meld if rules.joker_limit_on_table else rules.jokers


def check_meld(meld: TableMeld, rules: RuleSet) -> None:
    """Raise ``MeldError`` unless ``meld`` is a valid table meld: a set or run whose
    slots agree with ``represents``, within the joker limit."""
    if len(meld.cards) != len(meld.represents):
        raise MeldError(f"{meld.text()!r}: cards and represents differ in length")
    if meld.jokers > table_joker_limit(rules):
        raise MeldError(f"{meld.text()!r}: more jokers than rules.max_jokers_per_meld")
    for c, r in zip(meld.cards, meld.represents, strict=True):
        if c != JOKER and c != r:
            raise MeldError(f"{meld.text()!r}: natural card {card_text(c)} stands for {card_text(r)}")
    if not meld.naturals or len(meld.cards) < 3:
        raise MeldError(f"{meld.text()!r}: a meld has 3+ cards and a natural one")
    if meld.kind == SET:
        reps = meld.represents
        if len(reps) > 4 or len({r // 13 for r in reps}) != len(reps) or len({r % 13 for r in reps}) != 1:
            raise MeldError(f"{meld.text()!r} is not a set")
    elif meld.kind == RUN:
        suit = meld.represents[0] // 13
        lo = meld.low
        expect = tuple(position_card(p, suit) for p in range(lo, lo + len(meld.cards)))
        if meld.represents != expect or lo + len(meld.cards) - 1 > top_position(rules):
            raise MeldError(f"{meld.text()!r} is not a run")
    else:
        raise MeldError(f"unknown meld kind {meld.kind!r}")


# --------------------------------------------------------------------------- lay-offs
def lay_off_sides(meld: TableMeld, card: int, rules: RuleSet) -> tuple[str | None, ...]:
    """The sides on which ``card`` can be laid off on ``meld``: for a run ``"low"`` and/or
    ``"high"``; for a set ``(None,)``; ``()`` if it does not fit."""
    if card == JOKER and meld.jokers + 1 > table_joker_limit(rules):
        return ()
    if meld.kind == SET:
        if len(meld.cards) >= 4:
            return ()
        if card == JOKER:
            return (None,)
        if card % 13 != meld.represents[0] % 13:
            return ()
        if any(c // 13 == card // 13 for c in meld.naturals):
            return ()
        return (None,)
    lo, hi = meld.low, meld.high
    suit = meld.suit
    out = []
    if lo > 0 and (card == JOKER or card == position_card(lo - 1, suit)):
        out.append(LOW)
    if hi < top_position(rules) and (card == JOKER or card == position_card(hi + 1, suit)):
        out.append(HIGH)
    return tuple(out)


def lay_off_candidates(meld: TableMeld, rules: RuleSet) -> frozenset:
    """Cards that might be laid off on ``meld`` (a superset of those ``lay_off_sides``
    accepts: a run's neighbours at both ends, a set's rank in every suit, the joker), to
    skip the cards that cannot fit before asking ``lay_off_sides``."""
    if meld.kind == SET:
        rank = meld.represents[0] % 13
        return frozenset((rank, 13 + rank, 26 + rank, 39 + rank, JOKER))
    lo, hi, suit = meld.low, meld.high, meld.suit
    out = {JOKER}
    if lo > 0:
        out.add(position_card(lo - 1, suit))
    if hi < top_position(rules):
        out.add(position_card(hi + 1, suit))
    return frozenset(out)


def lay_off(meld: TableMeld, card: int, rules: RuleSet, side: str | None = None) -> TableMeld:
    """The meld after laying ``card`` off on it, or ``MeldError``.

    A run grows at one end, within A..A (``side`` = ``"low"`` or ``"high"``; by
    default the only side that fits, and the high side when both do). A set takes a
    card of its rank in a suit it lacks, up to 4 cards; a set of 4 is closed. A joker
    fits only while the meld stays within ``rules.max_jokers_per_meld``."""
    if side not in (None, LOW, HIGH):
        raise MeldError(f"side must be 'low', 'high' or None, got {side!r}")
    sides = lay_off_sides(meld, card, rules)
    if not sides:
        raise MeldError(_why_no_lay_off(meld, card, rules))
    if meld.kind == SET:
        if card == JOKER:
            return _set_meld(list(meld.naturals), _joker_reps(meld), meld.jokers + 1, meld.owner)
        keep = [r for r in _joker_reps(meld) if r != card]
        return _set_meld(list(meld.naturals) + [card], keep, meld.jokers, meld.owner)
    if side is None:
        side = HIGH if HIGH in sides else LOW
    elif side not in sides:
        raise MeldError(f"{card_text(card)} does not fit the {side} end of {meld.text()!r}")
    suit = meld.suit
    if side == LOW:
        pos = meld.low - 1
        return TableMeld(RUN, (card,) + meld.cards, (position_card(pos, suit),) + meld.represents,
                         meld.owner)
    pos = meld.high + 1
    return TableMeld(RUN, meld.cards + (card,), meld.represents + (position_card(pos, suit),),
                     meld.owner)


def _joker_reps(meld: TableMeld) -> list[int]:
    return [r for c, r in zip(meld.cards, meld.represents, strict=True) if c == JOKER]


def _set_meld(nat: list[int], keep: list[int], nj: int, owner: int) -> TableMeld:
    """A set of naturals ``nat`` and ``nj`` jokers; the jokers keep the stand-ins in
    ``keep`` where still missing, the others take the missing suits in S H D C order."""
    rank = nat[0] % 13
    suits = {c // 13 for c in nat}
    keep = [r for r in keep if r // 13 not in suits]
    missing = [s * 13 + rank for s in range(4) if s not in suits and s * 13 + rank not in keep]
    reps = (keep + missing)[:nj]
    return TableMeld(SET, tuple(nat) + (JOKER,) * nj, tuple(nat) + tuple(reps), owner)


def _why_no_lay_off(meld: TableMeld, card: int, rules: RuleSet) -> str:
    what = f"{card_text(card)} cannot be laid off on {meld.text()!r}"
    if card == JOKER and meld.jokers + 1 > table_joker_limit(rules):
        return (f"{what}: a meld holds at most {rules.max_jokers_per_meld} joker(s) "
                "(rules.max_jokers_per_meld)")
    if meld.kind == SET:
        if len(meld.cards) >= 4:
            return f"{what}: a set of 4 is closed"
        if card % 13 != meld.represents[0] % 13:
            return f"{what}: a set takes only cards of its rank"
        return f"{what}: the set already holds that suit"
    if card != JOKER and card // 13 != meld.suit:
        return f"{what}: a run takes only cards of its suit"
    return f"{what}: a run grows only at its ends, within A..{'A' if rules.ace_high else 'K'}"


# --------------------------------------------------------------------------- joker swap
def swap_targets(meld: TableMeld) -> tuple[int, ...]:
    """The natural cards that can be swapped for a joker of ``meld``: a run's joker
    stand-ins; for a set, its rank in every suit its natural cards lack."""
    if not meld.jokers:
        return ()
    if meld.kind == RUN:
        return tuple(sorted({r for c, r in zip(meld.cards, meld.represents, strict=True) if c == JOKER}))
    rank = meld.represents[0] % 13
    have = {c // 13 for c in meld.naturals}
    return tuple(s * 13 + rank for s in range(4) if s not in have)


def swap_joker(meld: TableMeld, card: int, rules: RuleSet) -> TableMeld:
    """The meld after ``card`` replaces the joker standing for it (the joker goes to the
    player's hand), or ``MeldError``."""
    if card == JOKER:
        raise MeldError("a joker is swapped for the natural card it stands for, not for a joker")
    if card not in swap_targets(meld):
        if not meld.jokers:
            raise MeldError(f"{meld.text()!r} holds no joker to swap")
        raise MeldError(f"no joker of {meld.text()!r} stands for {card_text(card)}")
    if meld.kind == RUN:
        i = next(i for i, (c, r) in enumerate(zip(meld.cards, meld.represents, strict=True))
                 if c == JOKER and r == card)
        cards = meld.cards[:i] + (card,) + meld.cards[i + 1:]
        return TableMeld(RUN, cards, meld.represents, meld.owner)
    keep = [r for r in _joker_reps(meld) if r != card]
    return _set_meld(list(meld.naturals) + [card], keep, meld.jokers - 1, meld.owner)


# --------------------------------------------------------------------------- melds of a hand
def _run_windows(counts: Counter, suit: int, jokers: int, rules: RuleSet,
                 max_len: int) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Runs of ``suit`` from a hand: every window of 3..``max_len`` positions that the
    hand's naturals fill except at most ``jokers`` positions (jokers only where a natural
    is missing; an A..A window needs two aces for both ends). Yields ``(cards, represents)``."""
    top = top_position(rules)
    for a in range(0, top - 1):
        for b in range(a + 2, min(top, a + max_len - 1) + 1):
            used: dict[int, int] = {}
            cards = []
            reps = []
            missing = 0
            for p in range(a, b + 1):
                c = position_card(p, suit)
                reps.append(c)
                if counts.get(c, 0) - used.get(c, 0) > 0:
                    used[c] = used.get(c, 0) + 1
                    cards.append(c)
                else:
                    missing += 1
                    if missing > jokers:
                        break
                    cards.append(JOKER)
            else:
                if missing < len(cards):
                    yield tuple(cards), tuple(reps)
                continue
            break  # a longer window from `a` misses at least as many cards


def melds_in(hand: Iterable[int], rules: RuleSet, max_cards: int | None = None) -> list[TableMeld]:
    """Every single meld the hand can lay down, each once, jokers only where a natural
    card is missing and at most ``rules.max_jokers_per_meld`` of them; melds of at most
    ``max_cards`` cards (default: all but one card of the hand, which must stay for
    the discard). Runs come with their jokers' stand-ins fixed (each end joker side is
    a separate meld)."""
    codes = _codes(hand)
    if max_cards is None:
        max_cards = len(codes) - 1
    counts = Counter(codes)
    jokers = min(counts.get(JOKER, 0), rules.max_jokers_per_meld)
    out: list[TableMeld] = []
    if max_cards < 3:
        return out
    for suit in range(4):
        for cards, reps in _run_windows(counts, suit, jokers, rules, max_cards):
            out.append(TableMeld(RUN, cards, reps))
    for rank in range(13):
        suits = [s for s in range(4) if counts.get(s * 13 + rank, 0)]
        for k in range(1, len(suits) + 1):
            for chosen in combinations(suits, k):
                for j in range(0, jokers + 1):
                    if 3 <= k + j <= min(4, max_cards):
                        out.append(_known(_set_reading([x * 13 + rank for x in chosen], j)))
    return out


def joker_melds(hand: Iterable[int], rules: RuleSet) -> list[TableMeld]:
    """The 3-card melds holding a joker that the hand can lay down and still keep a card:
    a joker with two naturals of one rank in different suits, or with two naturals of one
    suit at most two run positions apart (the joker in the gap, else at the high end if
    it fits, else the low end), or (when the rules allow two jokers per meld) two jokers
    with one natural. Any meld holding a joker contains such a 3-card meld, so this
    answers whether a freed joker can go into a new meld."""
    codes = _codes(hand)
    nj = codes.count(JOKER)
    if nj == 0 or rules.max_jokers_per_meld < 1 or len(codes) < 4:
        return []
    nat = sorted(set(c for c in codes if c != JOKER))
    top = top_position(rules)
    out: list[TableMeld] = []
    seen = set()
    for i, a in enumerate(nat):
        for b in nat[i + 1:]:
            if a % 13 == b % 13:
                m = _known(_set_reading([a, b], 1))
                if m.cards not in seen:
                    seen.add(m.cards)
                    out.append(m)
            elif a // 13 == b // 13:
                suit = a // 13
                for pa in _positions_of(a, rules):
                    for pb in _positions_of(b, rules):
                        lo, hi = min(pa, pb), max(pa, pb)
                        if hi - lo == 2:
                            window = (lo, hi)
                        elif hi - lo == 1:
                            window = (lo, hi + 1) if hi + 1 <= top else (lo - 1, hi)
                        else:
                            continue
                        nat_pos = {pa, pb}
                        cards = tuple(position_card(p, suit) if p in nat_pos else JOKER
                                      for p in range(window[0], window[1] + 1))
                        if cards not in seen:
                            seen.add(cards)
                            reps = tuple(position_card(p, suit)
                                         for p in range(window[0], window[1] + 1))
                            out.append(TableMeld(RUN, cards, reps))
    if nj >= 2 and rules.max_jokers_per_meld >= 2:
        for a in nat:
            out.extend(meld_readings([a, JOKER, JOKER], rules)[:1])
    return out


def joker_meld_possible(hand: Iterable[int], rules: RuleSet) -> bool:
    """Whether the hand can lay down a meld holding a joker and still keep a card."""
    return bool(joker_melds(hand, rules))


def _melds_with(counts: Counter, rules: RuleSet, card: int | None) -> list[TableMeld]:  # noqa: C901  one enumeration of runs and sets (the reference the fast paths are tested against)
    """Melds of 3..5 cards drawn from ``counts`` (jokers in any slot, at most the
    rule's number), containing ``card`` if given (a natural card)."""
    nj_have = min(counts.get(JOKER, 0), rules.max_jokers_per_meld)
    out = []
    top = top_position(rules)
    suits = range(4) if card is None else (card // 13,)
    for suit in suits:
        for a in range(0, top - 1):
            for length in range(3, 6):
                b = a + length - 1
                if b > top:
                    break
                positions = list(range(a, b + 1))
                if card is not None and not any(position_card(p, suit) == card for p in positions):
                    continue
                # natural availability per position (an ace at both ends needs two)
                for nj in range(0, min(nj_have, length - 1) + 1):
                    for jpos in combinations(positions, nj):
                        nat = [position_card(p, suit) for p in positions if p not in jpos]
                        if card is not None and card not in nat:
                            continue
                        need = Counter(nat)
                        if any(counts.get(c, 0) < n for c, n in need.items()):
                            continue
                        cards = tuple(JOKER if p in jpos else position_card(p, suit) for p in positions)
                        reps = tuple(position_card(p, suit) for p in positions)
                        out.append(TableMeld(RUN, cards, reps))
    ranks = range(13) if card is None else (card % 13,)
    for rank in ranks:
        have = [s for s in range(4) if counts.get(s * 13 + rank, 0)]
        for k in range(1, len(have) + 1):
            for chosen in combinations(have, k):
                nat = [s * 13 + rank for s in chosen]
                if card is not None and card not in nat:
                    continue
                for nj in range(0, nj_have + 1):
                    if 3 <= k + nj <= 4:
                        out.append(_known(_set_reading(nat, nj)))
    return out


def opening_run(meld: TableMeld, rules: RuleSet) -> bool:
    """Whether ``meld`` is the run an opening must hold under ``rules.opening_run``: any run
    ("run"), a run without a joker ("pure_run"); always True with "any"."""
    if rules.opening_run == "any":
        return True
    return meld.kind == RUN and (rules.opening_run == "run" or meld.jokers == 0)


def go_out_melds(hand: Iterable[int], rules: RuleSet, leave: int = 1,
                 opening: bool = False) -> list[TableMeld] | None:
    """Melds covering all the hand's cards but exactly ``leave`` of them, the collection of
    highest total value (opening values), or None if there is none. With ``opening`` the
    collection is an opening and holds the run ``rules.opening_run`` asks for.

    Used for the hand win (all but one card laid down at once). A small exact-cover
    search over melds of 3..5 cards (a longer run splits into such pieces with the
    same value); adjacent pieces of one run are joined again when the joker limit
    allows (under "pure_run" only jokerless pieces, so the run without a joker stays)."""
    codes = tuple(sorted(_codes(hand)))
    if len(codes) - leave < 3 and len(codes) != leave:
        return None
    found = _cover(codes, leave, rules, opening and rules.opening_run != "any")
    if found is None:
        return None
    _, melds = found
    return _join_runs(list(melds), rules)


@lru_cache(maxsize=4096)
def _cover(codes: tuple[int, ...], leave: int, rules: RuleSet,
           need_run: bool = False) -> tuple[int, tuple[TableMeld, ...]] | None:
    """(value, melds) of the best exact cover of all but ``leave`` cards, or None; with
    ``need_run`` one of the melds is an ``opening_run``."""
    if len(codes) == leave:
        return None if need_run else (0, ())
    if len(codes) < leave:
        return None
    first = codes[0]
    best = None
    if first == JOKER:
        # only jokers left: they can only be the cards left over
        return None
    # leave the lowest card out
    if leave > 0:
        sub = _cover(codes[1:], leave - 1, rules, need_run)
        if sub is not None:
            best = sub
    counts = Counter(codes)
    for m in _melds_with(counts, rules, first):
        rest = list(codes)
        for c in m.cards:
            rest.remove(c)
        sub = _cover(tuple(rest), leave, rules, need_run and not opening_run(m, rules))
        if sub is None:
            continue
        v = sub[0] + m.value(rules)
        if best is None or v > best[0]:
            best = (v, (m,) + sub[1])
    return best


def _join_runs(melds: list[TableMeld], rules: RuleSet) -> list[TableMeld]:
    changed = True
    while changed:
        changed = False
        for i, a in enumerate(melds):
            if a.kind != RUN:
                continue
            for j, b in enumerate(melds):
                if i == j or b.kind != RUN or b.suit != a.suit or b.low != a.high + 1:
                    continue
                if a.jokers + b.jokers > rules.max_jokers_per_meld:
                    continue
                if rules.opening_run == "pure_run" and a.jokers + b.jokers > 0:
                    continue  # keep the run without a joker an opening must show
                joined = TableMeld(RUN, a.cards + b.cards, a.represents + b.represents, a.owner)
                melds = [m for k, m in enumerate(melds) if k not in (i, j)] + [joined]
                changed = True
                break
            if changed:
                break
    return melds
