"""Cards: text notation and the integer card codes (docs/rules.md section 1).

Integer card codes are the public exchange format:

* a natural card is ``suit * 13 + (rank - 1)`` with suits in the order S, H, D, C
  and ranks A=1, 2..10, J=11, Q=12, K=13 (0 = A♠, 12 = K♠, 13 = A♥, 51 = K♣);
* a joker is ``JOKER`` (52);
* ``PAD`` (255) pads the short rows of a 2-D array of hands.

Text notation is rank then suit: ``7S``, ``10D`` (also ``TD``), ``JH``, ``QC``,
``KS``, ``AD``, ``7♠``, ``Q♥``; jokers ``JK`` (also ``*``). The original numbering
is accepted on input: ``1S`` is the ace, ``12H`` the jack, ``13H`` the queen and
``14H`` the king; ``11H`` is refused (there is no 11).

>>> parse_card("10D"), parse_card("TD"), parse_card("13H"), parse_card("JK")
(35, 35, 24, 52)
>>> card_text(24), card_text(24, unicode=True)
('QH', 'Q♥')
>>> Hand("7S 8S 9S JK")
Hand('7S 8S 9S JK')
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Union

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .rules import RuleSet

__all__ = [
    "JOKER",
    "PAD",
    "SUITS",
    "RANKS",
    "Hand",
    "CardsLike",
    "parse_card",
    "parse_cards",
    "card_text",
    "cards_text",
    "card_rank",
    "card_suit",
    "make_card",
    "to_codes",
    "MAX_TEXT",
    "shown",
    "check_text",
]

JOKER = 52
PAD = 255
SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

# Every accepted spelling of a rank -> rank number (A=1 .. K=13).
_RANK_IN = {"A": 1, "1": 1, "T": 10, "J": 11, "Q": 12, "K": 13, "12": 11, "13": 12, "14": 13}
_RANK_IN.update({str(r): r for r in range(2, 11)})
_SUIT_IN = {"S": 0, "H": 1, "D": 2, "C": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3,
            "♤": 0, "♡": 1, "♢": 2, "♧": 3}
_JOKER_IN = {"JK", "*", "JOKER", "🃏"}
_SPLIT = re.compile(r"[\s,;]+")
# upper case for ASCII letters only: str.upper maps other letters onto them
# ("\u017f".upper() == "S", the long s), which must not read as a suit
_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _show(token: str, limit: int = 40) -> str:
    """``repr(token)``, cut when long (an error never echoes megabytes)."""
    if len(token) <= limit:
        return repr(token)
    return f"{token[:limit // 2]!r}... ({len(token):,} characters)"


#: Most characters of card text (a hand, a table, a move, a typed command) any parser of
#: the package reads: about 250,000 cards, far more than any deck; longer text is
#: refused at once (every parser is linear in its input up to here).
MAX_TEXT = 1_000_000


def shown(text: str, limit: int = 60, quote: bool = True) -> str:
    """``repr(text)`` as an error message quotes it (``quote=False``: the text itself,
    for a ``repr`` made already): cut to about ``limit`` characters when longer, with
    its length (an error never echoes what was pasted whole)."""
    if quote:
        return _show(text, limit)
    if len(text) <= limit:
        return text
    return f"{text[:limit // 2]}... ({len(text):,} characters)"


def check_text(name: str, text: str) -> str:
    """``text``, or a one-line ``ValueError`` naming ``name`` when it is longer than
    ``MAX_TEXT`` characters (before any parsing)."""
    if len(text) > MAX_TEXT:
        raise ValueError(f"{name}: {len(text):,} characters of text; at most {MAX_TEXT:,} are "
                         f"read ({shown(text, 30)})")
    return text
# every accepted spelling (upper-cased) -> code, for the fast path of parse_card
_FAST = {j: 52 for j in _JOKER_IN}
_FAST.update({r + s: (si * 13 + rv - 1) for r, rv in _RANK_IN.items() for s, si in _SUIT_IN.items()})


def make_card(rank: int, suit: int) -> int:
    """The code of the natural card of ``rank`` (1..13) and ``suit`` (0..3 = S H D C)."""
    if not (1 <= int(rank) <= 13) or not (0 <= int(suit) <= 3):
        raise ValueError(f"no card of rank {rank!r} and suit {suit!r}: rank is 1..13, suit 0..3")
    return int(suit) * 13 + int(rank) - 1


def card_rank(code: int) -> int:
    """Rank of a natural card code: 1 (ace) .. 13 (king)."""
    return code % 13 + 1


def card_suit(code: int) -> int:
    """Suit of a natural card code: 0..3 for S H D C."""
    return code // 13


def parse_card(token: str) -> int:
    """Parse one card in text notation into its code.

    Raises ``ValueError`` naming the token and how to write a card.
    """
    try:
        return _FAST[token.translate(_UPPER)]
    except (KeyError, AttributeError):
        pass
    if not isinstance(token, str):
        raise TypeError(f"a card in text notation is a str, got {type(token).__name__}")
    t = token.strip()
    u = t.translate(_UPPER)
    if u in _JOKER_IN:
        return JOKER
    if len(u) < 2:
        raise ValueError(f"{_show(token)} is not a card: write rank then suit, like 7S, 10D, QH or JK")
    rank_s, suit_s = u[:-1], u[-1]
    if suit_s not in _SUIT_IN:
        raise ValueError(
            f"{_show(token)} is not a card: {_show(t[-1])} is not a suit (use S H D C or ♠ ♥ ♦ ♣)"
        )
    if rank_s == "11":
        raise ValueError(f"{_show(token)} is not a card: the jack is written J or 12")
    if rank_s not in _RANK_IN:
        raise ValueError(
            f"{_show(token)} is not a card: {_show(t[:-1])} is not a rank "
            "(use A 2..10 T J Q K, or the original 1 2..10 12 13 14)"
        )
    return make_card(_RANK_IN[rank_s], _SUIT_IN[suit_s])


def card_text(code: int, unicode: bool = False) -> str:
    """Text of one card code: ``'7S'``, ``'10D'``, ``'JK'`` (``'7♠'`` with ``unicode=True``)."""
    c = _check_code(code)
    if c == JOKER:
        return "JK"
    suit = (SUIT_SYMBOLS if unicode else SUITS)[c // 13]
    return RANKS[c % 13] + suit


def cards_text(codes: Iterable[int], unicode: bool = False) -> str:
    """Space-separated text of card codes."""
    return " ".join(card_text(c, unicode) for c in codes)


def parse_cards(text: str) -> list[int]:
    """Parse a hand written as text (cards separated by spaces or commas)."""
    if not isinstance(text, str):
        raise TypeError(f"cards as text must be a str, got {type(text).__name__}")
    check_text("cards", text)
    fast = _FAST
    out = [fast.get(tok) for tok in text.translate(_UPPER).replace(",", " ").replace(";", " ").split()]
    if None in out:
        # the slow path names the bad token as the user wrote it
        return [parse_card(tok) for tok in _SPLIT.split(text.strip()) if tok]
    return out  # type: ignore[return-value]  # no None left


def _check_code(code: object) -> int:
    if isinstance(code, (bool, np.bool_)) or not isinstance(code, (int, np.integer)):
        raise ValueError(f"{code!r} is not a card code: codes are integers 0..51 or 52 (joker)")
    c = int(code)
    if not (0 <= c <= JOKER):
        if c == PAD:
            raise ValueError("card code 255 only pads the rows of a 2-D array of hands; it is not a card")
        raise ValueError(f"{code!r} is not a card code: codes are integers 0..51 or 52 (joker)")
    return c


CardsLike = Union[str, "Hand", Iterable[int], np.ndarray]
_PLAIN_INT = {int}


def to_codes(cards: CardsLike) -> list[int]:
    """Turn text, a ``Hand`` or an iterable of card codes into a list of codes (unvalidated counts)."""
    if type(cards) is list or type(cards) is tuple:
        # the engine's and bots' road: plain ints, checked in C (map/set/min/max)
        if set(map(type, cards)) <= _PLAIN_INT and (
                not cards or (min(cards) >= 0 and max(cards) <= JOKER)):
            return list(cards)
    if isinstance(cards, Hand):
        return list(cards.codes)
    if isinstance(cards, str):
        return parse_cards(cards)
    if isinstance(cards, (bytes, bytearray)):
        # card codes as bytes: the fast path for engines calling the solver often
        codes = list(cards)
        if codes and max(codes) > JOKER:
            _check_code(max(codes))
        return codes
    if isinstance(cards, np.ndarray):
        if cards.ndim != 1:
            raise ValueError(f"a hand must be a 1-D array of card codes, got shape {cards.shape}")
        if cards.dtype.kind not in "iu":
            raise ValueError(f"a hand must be an integer array of card codes, got dtype {cards.dtype}")
        return [_check_code(int(c)) for c in cards]
    try:
        items = list(cards)
    except TypeError:
        raise TypeError(
            f"cards must be text, a Hand or an iterable of card codes, got {type(cards).__name__}"
        ) from None
    out = []
    for c in items:
        if isinstance(c, str):
            out.append(parse_card(c))
        elif isinstance(c, (bool, np.bool_)):
            raise ValueError(f"{c!r} is not a card code: codes are integers 0..51 or 52 (joker)")
        else:
            out.append(_check_code(c))
    return out


def check_counts(codes: Iterable[int], rules: RuleSet) -> None:
    """Raise ``ValueError`` if ``codes`` hold more copies of a card than ``rules`` deals."""
    counts = Counter(codes)
    for c, n in sorted(counts.items()):
        if c == JOKER:
            if n > rules.jokers:
                raise ValueError(f"hand holds {n} joker{'s' if n != 1 else ''}, "
                                 f"but rules.jokers is {rules.jokers}")
        elif n > rules.decks:
            raise ValueError(f"hand holds {n} copies of {card_text(c)}, but rules.decks is {rules.decks}")


class Hand:
    """An immutable multiset of cards, sorted by code (jokers last).

    ``Hand("7S 8S JK")``, ``Hand([6, 7, 52])`` and ``Hand(other_hand)`` are the same
    hand. With ``rules`` the card counts are checked against the deck.
    """

    __slots__ = ("_codes",)
    _codes: tuple[int, ...]

    def __init__(self, cards: CardsLike = (), rules: RuleSet | None = None) -> None:
        codes = tuple(sorted(to_codes(cards)))
        if rules is not None:
            check_counts(codes, rules)
        object.__setattr__(self, "_codes", codes)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Hand is immutable")

    @property
    def codes(self) -> tuple[int, ...]:
        """The card codes, sorted."""
        return self._codes

    @property
    def jokers(self) -> int:
        """Number of jokers."""
        return self._codes.count(JOKER)

    @property
    def naturals(self) -> tuple[int, ...]:
        """The natural cards' codes."""
        return tuple(c for c in self._codes if c != JOKER)

    def array(self) -> np.ndarray:
        """The codes as a uint8 array."""
        return np.array(self._codes, dtype=np.uint8)

    def text(self, unicode: bool = False) -> str:
        return cards_text(self._codes, unicode)

    def __len__(self) -> int:
        return len(self._codes)

    def __iter__(self) -> Iterator[int]:
        return iter(self._codes)

    def __contains__(self, card: object) -> bool:
        code = parse_card(card) if isinstance(card, str) else card
        return code in self._codes

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hand) and other._codes == self._codes

    def __hash__(self) -> int:
        return hash(self._codes)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Hand({self.text()!r})"
