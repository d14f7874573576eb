"""Table melds of Carousel with declared jokers (RULES-carousel.md sections 2 and 4).

A meld is written card by card, a table joker with the card it stands for:
``6S 7S JK(8S)``. A table is a list of meld texts, or one string with the melds
separated by `` | ``; in integer form a meld is a list of card codes where a table
joker is the pair ``[52, declared]`` (the form of ``tests/data/cases``).

>>> t = parse_table("6S 7S JK(8S) | 9H 9D 9C")
>>> [m.text() for m in t]
['6S 7S JK(8S)', '9H 9D 9C']
>>> parse_meld([[52, 7], 5, 6]).text()
'6S 7S JK(8S)'
>>> table_text(t)
'6S 7S JK(8S) | 9H 9D 9C'
"""
from __future__ import annotations

import operator
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from ..cards import JOKER, card_text, check_text, parse_card, parse_cards, shown
from .rules import CarouselRules

__all__ = [
    "TableMeld",
    "parse_meld",
    "parse_table",
    "parse_hand",
    "table_text",
    "table_codes",
    "meld_positions",
    "check_position",
]

_JOKER_DECL = re.compile(r"^(?:JK|\*|JOKER)\((.+)\)$", re.IGNORECASE)


@dataclass(frozen=True)
class TableMeld:
    """One meld on the table.

    ``cards`` are the card codes in canonical order (52 = joker), ``represents`` the
    card each slot stands for (a natural itself, a joker its declared card); runs run
    low to high (an ace after the king stands high), sets go in suit order S H D C."""

    kind: str  # "run" or "set"
    cards: tuple[int, ...]
    represents: tuple[int, ...]

    @property
    def jokers(self) -> tuple[int, ...]:
        """The declared card of each joker, in meld order."""
        return tuple(r for c, r in zip(self.cards, self.represents, strict=True) if c == JOKER)

    @property
    def naturals(self) -> tuple[int, ...]:
        return tuple(c for c in self.cards if c != JOKER)

    def codes(self) -> list:
        """Integer form: card codes, a joker as ``[52, declared]``."""
        return [[JOKER, r] if c == JOKER else c for c, r in zip(self.cards, self.represents, strict=True)]

    def text(self, unicode: bool = False) -> str:
        """``'6S 7S JK(8S)'``."""
        return " ".join(f"JK({card_text(r, unicode)})" if c == JOKER else card_text(c, unicode)
                        for c, r in zip(self.cards, self.represents, strict=True))

    def __str__(self) -> str:
        return self.text()

    def __len__(self) -> int:
        return len(self.cards)


# --------------------------------------------------------------------------- geometry
def meld_positions(represents: Sequence[int],
                   ace_high: bool = True) -> tuple[str, list[int]] | tuple[None, str]:
    """``(kind, order)`` if the represented cards form a meld, else ``(None, reason)``.

    ``order`` lists the slot indices in canonical order. A set is 3 or 4 cards of one
    rank and different suits; a run is 3 or more cards of one suit on consecutive
    positions A(low)=1, 2..K, A(high)=14 (14 only with ``ace_high``); two aces of one
    suit may stand at both ends (A 2 .. K A)."""
    reps = list(represents)
    n = len(reps)
    if n < 3:
        return None, "a meld has at least 3 cards"
    ranks = {c % 13 for c in reps}
    suits = [c // 13 for c in reps]
    if len(ranks) == 1:
        if n > 4:
            return None, "a set has at most 4 cards"
        if len(set(suits)) != n:
            return None, "two cards of one suit in a set (never, even with two decks)"
        return "set", sorted(range(n), key=lambda i: suits[i])
    if len(set(suits)) != 1:
        return None, "not a set (one rank, different suits) nor a run (one suit)"
    aces = [i for i in range(n) if reps[i] % 13 == 0]
    others = sorted((reps[i] % 13 + 1, i) for i in range(n) if reps[i] % 13 != 0)
    if len(aces) > 2:
        return None, "a run holds at most two aces (A 2 .. K A)"
    options = [(len(aces), 0), (0, len(aces))] if len(aces) == 1 else [(1, 1)] if aces else [(0, 0)]
    for low, high in options:
        if high and not ace_high:
            continue
        pos = ([(1, aces[0])] if low else []) + others + ([(14, aces[-1])] if high else [])
        if all(pos[k + 1][0] == pos[k][0] + 1 for k in range(len(pos) - 1)):
            return "run", [i for _, i in pos]
    if len(aces) == 1 and not ace_high and others and others[-1][0] == 13:
        return None, "the ace is low only (rules.ace_high is False)"
    return None, "the cards of a run must follow each other (A 2 .. 10 J Q K A, no corner K A 2)"


def _check_int_code(x: Any, where: str) -> int:
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{where}: {x!r} is not a card code")
    try:
        c = operator.index(x)
    except TypeError:
        raise TypeError(f"{where}: {x!r} is not a card code (integers 0..51, 52 = joker)") from None
    if not 0 <= c <= JOKER:
        raise ValueError(f"{where}: {c} is not a card code (integers 0..51, 52 = joker)")
    return c


def _card(token: str, where: str) -> int:
    """``parse_card`` with the meld or hand it came from named in the error."""
    try:
        return parse_card(token)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


def _parse_token(tok: Any, where: str) -> tuple[int, int | None]:
    """``(card, declared)``: a natural ``(c, c)``, a joker ``(52, d)`` or ``(52, None)``."""
    if isinstance(tok, str):
        m = _JOKER_DECL.match(tok.strip())
        if m:
            d = _card(m.group(1).strip(), where)
            if d == JOKER:
                raise ValueError(f"{where}: a joker is declared as a natural card, not {tok!r}")
            return JOKER, d
        c = _card(tok.strip(), where)
        return c, (None if c == JOKER else c)
    if isinstance(tok, (list, tuple)):
        if len(tok) != 2 or _check_int_code(tok[0], where) != JOKER:
            raise ValueError(f"{where}: {list(tok)!r} is not a table joker; write [52, declared]")
        d = _check_int_code(tok[1], where)
        if d == JOKER:
            raise ValueError(f"{where}: a joker is declared as a natural card 0..51, not 52")
        return JOKER, d
    c = _check_int_code(tok, where)
    return c, (None if c == JOKER else c)


def _meld_where(meld: Any) -> str:
    """How an error names a meld: its text (or list), cut to a readable length."""
    if isinstance(meld, str):
        return f"meld {shown(meld.strip())}"
    try:
        items = list(meld)
    except TypeError:
        return f"meld {shown(repr(meld))}"
    head = repr(items[:12])
    return f"meld {head[:-1] + ', ...]' if len(items) > 12 else head}"


def parse_meld(meld: Any, rules: CarouselRules | None = None) -> TableMeld:
    """One table meld from text (``'6S 7S JK(8S)'``), or a list of codes / card texts
    (a joker ``[52, declared]`` or ``'JK(8S)'``); validated, in canonical order."""
    if isinstance(meld, TableMeld):
        return _checked(meld, rules or CarouselRules(), None)
    where = _meld_where(meld)
    if isinstance(meld, str) and "(" not in check_text("meld", meld):   # no declared joker
        try:
            codes = parse_cards(meld)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
        if not codes:
            raise ValueError(f"{where} is empty")
        return make_meld([(c, None if c == JOKER else c) for c in codes], rules, where)
    if isinstance(meld, str):
        tokens = meld.replace(",", " ").split()
    else:
        try:
            tokens = list(meld)
        except TypeError:
            raise TypeError(f"a meld is text or a list of cards, got {type(meld).__name__}") from None
    if not tokens:
        raise ValueError(f"{where} is empty")
    pairs = [_parse_token(t, where) for t in tokens]
    return make_meld(pairs, rules, where)


def make_meld(pairs: Sequence[tuple[int, Any]], rules: CarouselRules | None,
              where: str) -> TableMeld:
    rules = rules or CarouselRules()
    for _, d in pairs:
        if d is None:
            raise ValueError(f"{where}: a joker on the table needs its declared card, "
                             f"like JK(7S) (or [52, 6])")
    reps = [d for _, d in pairs]
    n_jokers = sum(1 for c, _ in pairs if c == JOKER)
    if n_jokers == len(pairs):
        raise ValueError(f"{where}: a meld needs at least one natural card")
    if rules.max_jokers_per_meld is not None and n_jokers > rules.max_jokers_per_meld:
        raise ValueError(f"{where}: holds {n_jokers} jokers, but rules.max_jokers_per_meld "
                         f"is {rules.max_jokers_per_meld}")
    kind, order = meld_positions(reps, rules.ace_high)
    if kind is None:
        naturals = [c for c, _ in pairs if c != JOKER]
        if n_jokers and len(naturals) >= 1:
            nat_kind, _ = meld_positions(naturals, rules.ace_high) if len(naturals) >= 3 else (None, "")
            declared = " ".join(f"JK({card_text(d)})" for c, d in pairs if c == JOKER)
            if nat_kind or _jokers_could_fit(naturals, n_jokers, rules):
                raise ValueError(f"{where}: the meld cannot hold the declared {declared}: {order}")
        raise ValueError(f"{where} is not a meld: {order}")
    order = cast(list[int], order)   # a meld: its slots in canonical order
    return TableMeld(kind, tuple(pairs[i][0] for i in order), tuple(reps[i] for i in order))


#: TableMelds found valid, by (meld, ace_high, max_jokers_per_meld): a game hands the
#: same table melds to the solver turn after turn, and each would be checked again
_VALID: dict = {}
_VALID_MAX = 200_000


def _checked(m: TableMeld, rules: CarouselRules, where: str | None) -> TableMeld:
    """``m`` checked again (it may have been built by hand) and in canonical order; the
    answer depends only on the meld and two rule fields, so valid ones are remembered."""
    key = (m, rules.ace_high, rules.max_jokers_per_meld)
    got = _VALID.get(key)
    if got is None:
        if where is None:
            where = _meld_where(m.codes())
        got = make_meld(list(zip(m.cards, m.represents, strict=True)), rules, where)
        if len(_VALID) >= _VALID_MAX:
            _VALID.clear()
        _VALID[key] = got
    return got


def _jokers_could_fit(naturals: Sequence[int], n_jokers: int, rules: CarouselRules) -> bool:
    """Whether some declaration of the jokers makes a meld with these naturals."""
    suits = {c // 13 for c in naturals}
    ranks = {c % 13 for c in naturals}
    if len(ranks) == 1 and len(set(naturals)) == len(naturals):
        return len(naturals) + n_jokers <= 4
    if len(suits) == 1:
        return True
    return False


def parse_table(table: Any, rules: CarouselRules | None = None) -> list[TableMeld]:
    """A table: a list of melds (each text or codes) or one string with melds separated
    by ``|``; ``''`` / ``[]`` / ``None`` is the empty table."""
    if table is None:
        return []
    if isinstance(table, str):
        check_text("table", table)
        parts = [p for p in table.split("|")]
        if not table.strip():
            return []
        if any(not p.strip() for p in parts):
            raise ValueError(f"table {shown(table)} has an empty meld between '|' separators")
        return [parse_meld(p, rules) for p in parts]
    if isinstance(table, TableMeld):
        return [table]
    try:
        melds = list(table)
    except TypeError:
        raise TypeError(f"a table is a list of melds or text, got {type(table).__name__}") from None
    return [parse_meld(m, rules) for m in melds]


def parse_hand(hand: Any, name: str = "hand") -> list[int]:
    """A hand as card codes, from text (``'5S 9S JK'``) or an iterable of codes / texts.
    ``name`` is what an error calls it (``hand``; a command may say ``meld``): an error
    quotes the text cut to a readable length. Linear in the input; text longer than
    ``cards.MAX_TEXT`` is refused before it is read."""
    if hand is None:
        return []
    if isinstance(hand, str):
        check_text(name, hand)
        if "(" in hand:
            raise ValueError(f"{name} {shown(hand)}: a joker in hand is a plain JK (its card is "
                             "declared when it is played)")
        try:
            return parse_cards(hand)
        except ValueError as e:
            raise ValueError(f"{name} {shown(hand)}: {e}") from None
    try:
        items = list(hand)
    except TypeError:
        raise TypeError(f"a {name} is card text or a list of card codes, got "
                        f"{type(hand).__name__}") from None
    out = []
    for x in items:
        if isinstance(x, str):
            out.append(_card(x, name))
        else:
            out.append(_check_int_code(x, name))
    return out


def check_position(melds: Sequence[TableMeld], hand: Sequence[int], rules: CarouselRules) -> None:
    """Raise ValueError if table and hand together hold more copies of a card than the
    deck (``rules.decks`` of each natural, ``rules.jokers`` jokers), or a meld breaks
    ``rules`` (joker limit, ace high)."""
    counts = Counter(c for m in melds for c in m.cards)
    counts.update(hand)
    for c, n in sorted(counts.items()):
        if c == JOKER:
            if n > rules.jokers:
                raise ValueError(f"table and hand hold {n} jokers, but rules.jokers is {rules.jokers}")
        elif n > rules.decks:
            raise ValueError(f"table and hand hold {n} copies of {card_text(c)}, "
                             f"but rules.decks is {rules.decks}")
    for m in melds:
        if (m, rules.ace_high, rules.max_jokers_per_meld) not in _VALID:
            _checked(m, rules, f"meld {m.text()!r}")


def table_text(melds: Iterable[TableMeld], unicode: bool = False) -> str:
    """Melds as one string separated by `` | ``."""
    return " | ".join(m.text(unicode) for m in melds)


def table_codes(melds: Iterable[TableMeld]) -> list[list]:
    """Melds in integer form (a joker ``[52, declared]``)."""
    return [m.codes() for m in melds]


def sort_melds(melds: Iterable[TableMeld]) -> list[TableMeld]:
    """Melds in a canonical table order: runs by suit then first card, then sets by rank."""
    def key(m: TableMeld) -> tuple:
        if m.kind == "run":
            first = m.represents[0]
            pos = 1 if first % 13 == 0 else first % 13 + 1
            return (0, first // 13, pos, len(m))
        return (1, m.represents[0] % 13, len(m), m.cards)
    return sorted(melds, key=key)

