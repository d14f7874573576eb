"""The solver API: best opening, can_open, can_go_out, min_deadwood, and batch twins.

Single hands take text (``"7S 8S 9S JK"``), an iterable of card codes or a
``Hand``; batch functions take a 2-D array of card codes (uint8, 255 pads short
rows) and return numpy arrays. All questions are answered exactly by the Cython
core (``rummy51._core``); ``rummy51.reference`` is the slow twin the tests check
it against.

>>> o = best_opening("6S 7S 8S 10D 10C 10H 2C")
>>> o.value, o.can_open, cards_text(o.leftover)
(51, True, '2C')
>>> [m.text() for m in o.melds] == ["6S 7S 8S", "10H 10D 10C"]
True
>>> can_go_out("6S 7S 8S 10D 10C 10H 2C"), min_deadwood("6S 7S 8S 10D 10C 10H 2C")
(True, 2)
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import _core
from ._batches import batch_workers, run_split
from ._catalogue import build_catalogue, card_max_value, hand_value, joker_max_value
from ._checks import int_arg, workers_or_threads
from .cards import JOKER, PAD, CardsLike, card_text, cards_text, parse_card, to_codes
from .rules import RuleSet

#: A batch of hands: a 2-D array of card codes (rows padded with 255) or hands one by one
HandsLike = np.ndarray | Iterable[CardsLike]

__all__ = [
    "Meld",
    "Opening",
    "best_opening",
    "can_open",
    "can_go_out",
    "min_deadwood",
    "best_opening_values",
    "can_open_flags",
    "can_go_out_flags",
    "min_deadwood_values",
    "deal",
    "pack_hands",
]

_DEFAULT_RULES = RuleSet()


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Meld:
    """One meld laid down.

    ``cards`` are the card codes in laid order (52 = joker); ``represents`` gives,
    slot by slot, the card each one stands for (a natural stands for itself, a
    joker for its stand-in); ``value`` is the meld's opening value (docs/rules.md
    section 2)."""

    kind: str  # "run" or "set"
    cards: tuple[int, ...]
    represents: tuple[int, ...]
    value: int

    @property
    def jokers(self) -> tuple[int, ...]:
        """The stand-in card of each joker in the meld, in laid order."""
        return tuple(r for c, r in zip(self.cards, self.represents, strict=True) if c == JOKER)

    def text(self, unicode: bool = False) -> str:
        """``'8S 9S JK(10S)'``: the laid cards, each joker with its stand-in."""
        out = []
        for c, r in zip(self.cards, self.represents, strict=True):
            out.append(f"JK({card_text(r, unicode)})" if c == JOKER else card_text(c, unicode))
        return " ".join(out)

    def __str__(self) -> str:
        return self.text()


@dataclass(frozen=True)
class Opening:
    """The best opening of a hand.

    ``value`` is the total meld value, ``melds`` one collection reaching it
    (disjoint, at most ``max_jokers_per_meld`` jokers each, stand-ins named; any
    best collection is correct), ``leftover`` the cards not in those melds and
    ``can_open`` whether ``value`` reaches the rule set's threshold."""

    value: int
    melds: tuple[Meld, ...]
    leftover: tuple[int, ...]
    can_open: bool

    def text(self, unicode: bool = False) -> str:
        lines = [f"{m.text(unicode)}  ({m.kind}, {m.value})" for m in self.melds]
        lines.append(f"total {self.value}: {'opens' if self.can_open else 'does not open'}")
        if self.leftover:
            lines.append(f"left in hand: {cards_text(self.leftover, unicode)}")
        return "\n".join(lines)


# --------------------------------------------------------------------------- compiled rules
@lru_cache(maxsize=64)
def compiled_rules(rules: RuleSet) -> _core.CoreRules:
    cat = build_catalogue(rules)
    maxval = [card_max_value(c, rules) for c in range(52)]
    hval = [hand_value(c, rules) for c in range(52)]
    return _core.CoreRules(rules, cat, maxval, hval, joker_max_value(rules))


def _rules(rules: RuleSet | None) -> RuleSet:
    if rules is None:
        return _DEFAULT_RULES
    if not isinstance(rules, RuleSet):
        raise TypeError(f"rules must be a RuleSet, got {type(rules).__name__}")
    return rules


def _check_keep(keep: int) -> int:
    # the core holds at most MAX_HAND (120) cards: a larger keep is the same as 120, and
    # anything past a C int would overflow
    return int_arg("keep", keep, 0, MAX_HAND)


def _hand(cards: CardsLike, rules: RuleSet) -> bytes:
    """Card codes of one hand as bytes (the core checks the counts against the deck)."""
    codes = to_codes(cards)
    if len(codes) > 120:
        raise ValueError(f"hand holds {len(codes)} cards; a hand holds at most 120")
    return bytes(codes)


def _must(must_use: int | str | None, codes: bytes) -> int:
    if must_use is None:
        return -1
    if isinstance(must_use, str):
        code = parse_card(must_use)
    else:
        code = to_codes([must_use])[0]
    if code not in codes:
        raise ValueError(f"must_use card {card_text(code)} is not in the hand")
    return code


def _run_pos(meld_rep: Sequence[int], i: int) -> int:
    """Run position (0 low ace .. 13 high ace) of slot i of a run."""
    r = meld_rep[i] % 13
    if r == 0:
        return 0 if i == 0 else 13
    return r


def _merge_runs(melds: list[Meld], rules: RuleSet) -> list[Meld]:
    """Join runs the core split (a run of 6+ is searched as two of 3..5) for display.

    Works on positions in the list, not identities: the same catalogue Meld object
    stands twice in a collection that lays one meld twice (two decks)."""
    melds = list(melds)
    merged = True
    while merged:
        merged = False
        for ia, a in enumerate(melds):
            if a.kind != "run":
                continue
            a_end = _run_pos(a.represents, len(a.cards) - 1)
            suit = a.represents[0] // 13
            for ib, b in enumerate(melds):
                if ib == ia or b.kind != "run" or b.represents[0] // 13 != suit:
                    continue
                if _run_pos(b.represents, 0) != a_end + 1:
                    continue
                if len(a.jokers) + len(b.jokers) > rules.max_jokers_per_meld:
                    continue
                if rules.opening_run == "pure_run" and (a.jokers or b.jokers):
                    continue  # the run without a joker the opening shows stays apart
                joined = Meld("run", a.cards + b.cards, a.represents + b.represents, a.value + b.value)
                melds = [m for i, m in enumerate(melds) if i not in (ia, ib)] + [joined]
                merged = True
                break
            if merged:
                break
    return melds


def _meld_key(m: Meld) -> tuple[int, int, tuple[int, ...]]:
    first = m.represents[0]
    return (first // 13 if m.kind == "run" else 4, first % 13 if m.kind == "run" else first % 13, m.cards)


@lru_cache(maxsize=64)
def _melds_of(rules: RuleSet) -> tuple:
    """The catalogue as Meld objects, by meld id."""
    cat = build_catalogue(rules)
    out = []
    for i in range(len(cat)):
        n = int(cat.ncards[i])
        out.append(Meld("run" if cat.kind[i] else "set",
                        tuple(int(x) for x in cat.laid[i, :n]),
                        tuple(int(x) for x in cat.represents[i, :n]),
                        int(cat.value[i])))
    return tuple(out)


def _build_opening(rules: RuleSet, codes: bytes, value: int, ids: list[int]) -> Opening:
    catalogue = _melds_of(rules)
    melds = [catalogue[i] for i in ids]
    left = list(codes)
    for m in melds:
        for c in m.cards:
            left.remove(c)
    if len(melds) > 1:
        melds = sorted(_merge_runs(melds, rules), key=_meld_key)
    return Opening(
        value=int(value),
        melds=tuple(melds),
        leftover=tuple(sorted(left)),
        can_open=bool(melds) and value >= rules.threshold,
    )


# --------------------------------------------------------------------------- single hands
def best_opening(cards: CardsLike, rules: RuleSet | None = None, keep: int = 1,
                 must_use: int | str | None = None) -> Opening:
    """The best opening of a hand: the largest total value of disjoint melds using at
    most ``len(hand) - keep`` cards (``keep`` = 1: the discard), with the melds.

    ``must_use`` (a card, e.g. the one taken from the discard pile) must lie in a
    meld; when no meld can hold it the opening is empty (value 0)."""
    rules = _rules(rules)
    keep = _check_keep(keep)
    codes = _hand(cards, rules)
    must = _must(must_use, codes)
    value, ids = _core.solve_one(compiled_rules(rules), codes, "best", keep, must)
    return _build_opening(rules, codes, value, ids)


def can_open(cards: CardsLike, rules: RuleSet | None = None, keep: int = 1,
             must_use: int | str | None = None) -> bool:
    """Whether the hand holds an opening worth at least ``rules.threshold``."""
    rules = _rules(rules)
    keep = _check_keep(keep)
    codes = _hand(cards, rules)
    must = _must(must_use, codes)
    return bool(_core.solve_one(compiled_rules(rules), codes, "can_open", keep, must)[0])


def can_go_out(cards: CardsLike, rules: RuleSet | None = None) -> bool:
    """Whether the hand can go out at once (the hand win): all but exactly one card
    laid down in melds worth at least ``rules.threshold``."""
    rules = _rules(rules)
    codes = _hand(cards, rules)
    return bool(_core.solve_one(compiled_rules(rules), codes, "go_out", 0, -1)[0])


def min_deadwood(cards: CardsLike, rules: RuleSet | None = None, keep: int = 0) -> int:
    """The least total value left unmelded (jokers at ``rules.joker_penalty``), with at
    most ``len(hand) - keep`` cards in melds."""
    rules = _rules(rules)
    keep = _check_keep(keep)
    codes = _hand(cards, rules)
    return int(_core.solve_one(compiled_rules(rules), codes, "deadwood", keep, -1)[0])


# --------------------------------------------------------------------------- batches
#: The core's most cards in one hand (``MAX_HAND``, _core.pxd).
MAX_HAND = 120
#: Widest packed hand array ``pack_hands`` makes (columns past a hand are padding).
MAX_WIDTH = 1 << 16


def pack_hands(hands: Iterable[CardsLike], width: int | None = None) -> np.ndarray:
    """Pack hands of any lengths (text, codes or Hands) into a 2-D uint8 array, 255-padded."""
    if isinstance(hands, (str, bytes)):
        raise TypeError("hands must be a list of hands, not one text (split it into hands)")
    rows = []
    for i, h in enumerate(hands):
        try:
            rows.append(to_codes(h))
        except (ValueError, TypeError) as e:
            raise type(e)(f"hands[{i}]: {e}") from None
    w = (max((len(r) for r in rows), default=0) if width is None
         else int_arg("width", width, 0, MAX_WIDTH))
    out = np.full((len(rows), w), PAD, dtype=np.uint8)
    for i, r in enumerate(rows):
        if len(r) > w:
            raise ValueError(f"hand {i} has {len(r)} cards, more than width {w}")
        out[i, : len(r)] = r
    return out


def _as_hands(hands: HandsLike) -> np.ndarray:
    if not isinstance(hands, np.ndarray):
        if isinstance(hands, (str, bytes)):
            raise TypeError("hands must be a 2-D array of card codes (use best_opening for one hand)")
        return pack_hands(hands)
    if hands.ndim != 2:
        raise ValueError(
            f"hands must be a 2-D (n, cards) uint8 array of card codes, got shape {hands.shape}"
        )
    if hands.dtype == np.uint8:
        return np.ascontiguousarray(hands)
    if hands.dtype.kind not in "iu":
        raise ValueError(
            f"hands must be a 2-D (n, cards) uint8 array of card codes, got dtype {hands.dtype}"
        )
    if hands.size:
        bad = np.argwhere((hands < 0) | (hands > 255))
        if len(bad):
            r, c = (int(x) for x in bad[0])
            raise ValueError(f"hands[{r}, {c}] is {int(hands[r, c])}, which is not a card code "
                             "(0..51 naturals, 52 joker, 255 padding)")
    return np.ascontiguousarray(hands, dtype=np.uint8)


#: the fewest rows a thread of a batch gets when the count is the cores'
_MIN_ROWS_PER_THREAD = 4096


def _batch(hands: HandsLike, rules: RuleSet | None, mode: str, keep: int, workers: object,
           threads: object) -> np.ndarray:
    count, name = workers_or_threads(workers, threads)
    rules = _rules(rules)
    keep = _check_keep(keep)
    arr = _as_hands(hands)
    cr = compiled_rules(rules)
    n = arr.shape[0]
    out = np.empty(n, dtype=np.int32)
    run_split(n, batch_workers(count, n, _MIN_ROWS_PER_THREAD, name),
              lambda a, b: _core.solve_batch(cr, arr[a:b], mode, keep, out[a:b], a))
    return out


def best_opening_values(hands: HandsLike, rules: RuleSet | None = None, keep: int = 1,
                        workers: int | None = None, *, threads: int | None = None) -> np.ndarray:
    """Best opening value of each row of ``hands`` (int32 array). The rows are split over
    ``workers`` threads (default: the cores, for batches of 4,096+ rows; ``threads`` is
    its deprecated name); the GIL is released."""
    return _batch(hands, rules, "best", keep, workers, threads)


def can_open_flags(hands: HandsLike, rules: RuleSet | None = None, keep: int = 1,
                   workers: int | None = None, *, threads: int | None = None) -> np.ndarray:
    """Whether each row of ``hands`` can open (bool array; ``workers`` as in
    ``best_opening_values``)."""
    return _batch(hands, rules, "can_open", keep, workers, threads).astype(bool)


def can_go_out_flags(hands: HandsLike, rules: RuleSet | None = None,
                     workers: int | None = None, *, threads: int | None = None) -> np.ndarray:
    """Whether each row of ``hands`` can go out at once (bool array; ``workers`` as in
    ``best_opening_values``)."""
    return _batch(hands, rules, "go_out", 0, workers, threads).astype(bool)


def min_deadwood_values(hands: HandsLike, rules: RuleSet | None = None, keep: int = 0,
                        workers: int | None = None, *, threads: int | None = None) -> np.ndarray:
    """Least deadwood of each row of ``hands`` (int32 array; ``workers`` as in
    ``best_opening_values``)."""
    return _batch(hands, rules, "deadwood", keep, workers, threads)


# --------------------------------------------------------------------------- dealing
def deal(n: int, hand_size: int | None = None, rules: RuleSet | None = None,
         seed: int | np.random.SeedSequence | np.random.Generator | None = None) -> np.ndarray:
    """``n`` random hands of ``hand_size`` cards (default ``rules.hand_size + 1``: the
    first player's 15), each from a freshly shuffled deck of the rule set, as a
    uint8 array of card codes. ``seed`` is anything ``numpy.random.default_rng``
    takes (an int, a SeedSequence, a Generator, None)."""
    rules = _rules(rules)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative int, got {n!r}")
    if hand_size is None:
        hand_size = rules.hand_size + 1
    if isinstance(hand_size, bool) or not isinstance(hand_size, (int, np.integer)) or hand_size < 0:
        raise ValueError(f"hand_size must be a non-negative int, got {hand_size!r}")
    if hand_size > rules.deck_size:
        raise ValueError(f"hand_size {hand_size} is more than the {rules.deck_size} cards of the deck")
    rng = np.random.default_rng(seed)
    out = np.empty((int(n), int(hand_size)), dtype=np.uint8)
    _core.deal_into(compiled_rules(rules), rng, out)
    return out
