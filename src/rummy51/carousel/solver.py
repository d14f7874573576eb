"""The Carousel solver API: best play, can_meld, can_knock, and batch twins.

A position is a table (a list of meld texts, one `` | ``-separated string, or melds
as code lists with a table joker ``[52, declared]``) and a hand (card text or codes).
The exact answer comes from the Cython core (``rummy51._carousel``). The best play is
the one the core's dynamic program found: its path gives the table after the play as
counts (``_carousel.play_counts``: the naturals, and the card each joker stands for),
and the melds are read off that same path (which runs each suit's cards continue, end
or start at each rank, what goes into the rank's sets: ``_carousel_melds.pxi``), each
checked as a meld is. So the returned table always reaches the core's figures, and a
game's table depends only on the counts (the game kernel plays the same moves from
counts alone).

>>> p = best_play(["6S 7S 8S", "9H 9D 9C"], "5S 9S JK 2C")
>>> p.points_left, p.cards_played, p.can_knock
(2, 3, True)
>>> [m.text() for m in p.melds]
['5S 6S 7S 8S 9S JK(10S)', '9H 9D 9C']
>>> can_meld("QH KH AH", "2H 3H")
False

A play of chosen hand cards (``play_cards``: the "must play these cards" query; the
table is arranged by the solver, each joker's card declared):

>>> [m.text() for m in play_cards(["6S 7S 8S"], "JK 9S", hand="JK 9S 2C").melds]
['JK(5S) 6S 7S 8S 9S']
>>> play_cards(["6S 7S 8S"], "2C", hand="2C 9S")
Traceback (most recent call last):
...
rummy51.carousel.actions.IllegalMove: 2C has no place: no arrangement of the table ... puts it in a meld ...

Batch arrays (``pack_positions`` builds them): ``tables`` is a C-contiguous uint8
array of shape (n, k), one position per row: a table natural is its code 0..51, a
table joker declared as card d is ``53 + d`` (53..104), 255 pads the row; the meld
structure is not needed (the answer depends only on the table's cards and the jokers'
declarations) and is not checked in batch. ``hands`` is uint8 (n, m), codes 0..52
(52 = joker), 255 pads. The results depend only on the rows, never on ``threads``.
"""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from functools import lru_cache
from itertools import combinations
from operator import add
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _carousel
from .._batches import batch_workers, run_split
from .._checks import workers_or_threads
from ..cards import JOKER, card_text, cards_text
from .actions import IllegalMove
from .rules import CarouselRules
from .table import TableMeld, check_position, make_meld, parse_hand, parse_meld, parse_table, sort_melds

__all__ = [
    "Play",
    "best_play",
    "can_meld",
    "can_knock",
    "best_play_points",
    "best_play_values",
    "max_cards_played",
    "max_cards_played_counts",
    "can_meld_flags",
    "can_knock_flags",
    "pack_positions",
    "GaveUp",
    "reconstruction_error",
    "play_cards",
    "play_declared",
    "can_play_cards",
    "playable_cards",
]

_DEFAULT = CarouselRules()
_VALMUL = 256
_JOKER_BASE = 53  # table joker declared d is 53 + d in batch arrays

# a table as the API takes it: one `` | ``-separated text, or melds (meld texts, code
# lists with a table joker ``[52, declared]``, or TableMelds); None is the empty table
# (``parse_table`` checks it)
TableLike = str | TableMeld | Iterable[Any] | None
# a hand: card text, or card codes or texts; None is the empty hand (``parse_hand``)
HandLike = str | Iterable[int | str] | None
# many positions: uint8 batch arrays, or a sequence of tables / hands (``pack_positions``)
TablesLike = npt.NDArray[np.uint8] | Iterable[TableLike]
HandsLike = npt.NDArray[np.uint8] | Iterable[HandLike]
# a meld reconstruction: ``(melds, hand jokers played)`` of counts reaching a target value
_Rebuild = Callable[["_Counts", int, CarouselRules, _carousel.CoreRules], tuple[list[TableMeld], int]]


class GaveUp(RuntimeError):
    """No answer, said instead of a wrong one: a ``node_limit``, ``time_limit`` or
    ``memory_limit`` given to the call was reached, the position needs more memory than
    there is, or (never
    expected: it would be a bug) the meld reconstruction could not rebuild a table
    reaching the core's value. The message names which."""


def _limits(node_limit: object, time_limit: object) -> tuple[int, float]:
    """The core's ``(node_limit, time_limit)`` (0: none) from the API's arguments
    (None: none), or a one-line error naming the bad one."""
    nl, tl = 0, 0.0
    if node_limit is not None:
        if isinstance(node_limit, bool) or not isinstance(node_limit, (int, np.integer)):
            raise TypeError(f"node_limit must be an int or None, got {type(node_limit).__name__}")
        if node_limit <= 0:
            raise ValueError(f"node_limit must be positive (states the search may expand), got "
                             f"{int(node_limit)}")
        nl = min(int(node_limit), (1 << 62))
    if time_limit is not None:
        if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float, np.integer,
                                                                        np.floating)):
            raise TypeError(f"time_limit must be a number of seconds or None, got "
                            f"{type(time_limit).__name__}")
        if not time_limit > 0 or time_limit != time_limit or time_limit == float("inf"):
            raise ValueError(f"time_limit must be a positive finite number of seconds, got "
                             f"{time_limit}")
        tl = float(time_limit)
    return nl, tl


def _limit_error(code: int, nl: int, tl: float) -> GaveUp:
    if code == -4:
        return GaveUp(f"gave up: the search expanded more than node_limit={nl} states")
    return GaveUp(f"gave up: the search took more than time_limit={tl:g} s")


def _memory_limit(memory_limit: object) -> int:
    """The core's memory limit in bytes (0: none) from the API's argument (None: none),
    or a one-line error naming it."""
    if memory_limit is None:
        return 0
    if isinstance(memory_limit, bool) or not isinstance(memory_limit, (int, np.integer)):
        raise TypeError(f"memory_limit must be an int (bytes) or None, got "
                        f"{type(memory_limit).__name__}")
    if memory_limit <= 0:
        raise ValueError(f"memory_limit must be positive (bytes the search may hold), got "
                         f"{int(memory_limit)}")
    return min(int(memory_limit), 1 << 62)


def _memory_limit_error(ml: int) -> GaveUp:
    size = f" ({ml / 2**20:.4g} MiB)" if ml >= 1 << 20 else ""
    return GaveUp(f"gave up: the search needed more than memory_limit={ml} bytes{size}")


def _memory_error() -> GaveUp:
    ml = _carousel.memory_limit_hit()
    if ml:
        return _memory_limit_error(ml)
    return GaveUp("gave up: the position needs more memory than the solver could allocate")


def _all_limits(node_limit: object, time_limit: object,
                memory_limit: object) -> tuple[int, float, int]:
    """``(node_limit, time_limit, memory_limit)`` for the core (0: none), checked."""
    if node_limit is None and time_limit is None and memory_limit is None:
        return 0, 0.0, 0
    nl, tl = _limits(node_limit, time_limit)
    return nl, tl, _memory_limit(memory_limit)


def _capped(ml: int, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` holding at most ``ml`` bytes of the solver's memory beyond what this
    thread holds now (0: no limit, and then nothing around the call, as the bots' inner
    calls take this path): an allocation past it fails as an exhausted memory does, and
    the call's GaveUp names the limit."""
    if not ml:
        return fn(*args)
    saved = _carousel.memory_limit_begin(ml)
    try:
        return fn(*args)
    except MemoryError:
        raise _memory_error() from None
    finally:
        _carousel.memory_limit_end(saved)


class _Budget:
    """A call's limits over its search and its meld reconstruction together: the nodes
    the core expanded (``_carousel.last_nodes``) and a deadline from the call's start."""

    __slots__ = ("nl", "tl", "end", "used")

    def __init__(self, nl: int, tl: float) -> None:
        self.nl, self.tl = nl, tl
        self.end = time.monotonic() + tl if tl else 0.0
        self.used = 0

    def spent(self) -> None:
        """Count the nodes of the core run just ended."""
        self.used += _carousel.last_nodes()

    def rest(self) -> tuple[int, float]:
        """``(node_limit, time_limit)`` left for the next core run (0: none); GaveUp
        when one is spent."""
        nl, tl = 0, 0.0
        if self.nl:
            nl = self.nl - self.used
            if nl <= 0:
                raise _limit_error(-4, self.nl, self.tl)
        if self.tl:
            tl = self.end - time.monotonic()
            if tl <= 0:
                raise _limit_error(-5, self.nl, self.tl)
        return nl, tl

    def check(self, status: int) -> None:
        if status in (-4, -5):
            raise _limit_error(status, self.nl, self.tl)


#: The budget of the reconstruction of a lazy Play's melds, while ``best_play`` with
#: limits asks for them (None: no limit).
_REBUILD_BUDGET: ContextVar[_Budget | None] = ContextVar("_REBUILD_BUDGET", default=None)


def _rebuild_counts(core: _carousel.CoreRules, T: bytes, H: bytes, D: bytes, JT: int, JH: int,
                    target: int, budget: _Budget | None = None) -> tuple:
    """``_carousel.rebuild_counts`` within ``budget`` (GaveUp past it)."""
    nl, tl = (0, 0.0) if budget is None else budget.rest()
    got = _carousel.rebuild_counts(core, T, H, D, JT, JH, target, nl, tl)
    if budget is not None:
        budget.spent()
        budget.check(got[0])
    return got


# The best play of a position: a type of the extension (``_carousel_single.pxi``) that the
# cyclic collector does not track, with the frozen dataclass's interface; its docstring
# says what it holds.
Play = _carousel.Play


_NO_HAND = bytes(52)


def _source_melds(source: bytes, rules: CarouselRules) -> tuple[TableMeld, ...]:
    """The melds of a lazy Play (``_carousel.single_best``, which names ``source``) when
    they are not read off its path in C: the table after the play as counts, arranged
    by one run of the core (``_core_melds``, within the budget of a call with limits), or
    meld by meld (``_arranged``); or (no play) the table as it was, its melds as
    canonical batch codes."""
    if source[0] == 0:
        melds = []
        i = 1
        while i < len(source):
            n = source[i]
            melds.append(_rebuilt_meld(tuple((JOKER, c - _JOKER_BASE) if c >= _JOKER_BASE else (c, c)
                                             for c in source[i + 1:i + 1 + n]), rules))
            i += 1 + n
        return tuple(melds)
    core = _core_rules(rules)
    budget = _REBUILD_BUDGET.get()
    got = _core_melds(core, source, budget)
    if got is not None:
        return got
    built = _arranged(core, source[1:53], source[53:105], source[105], budget)
    return tuple(sort_melds(_rebuilt_meld(tuple(pairs), rules) for pairs in built))


def _core_melds(core: _carousel.CoreRules, source: bytes,
                budget: _Budget | None) -> tuple[TableMeld, ...] | None:
    """The melds of a play's source (``_carousel.play_source``, a lazy Play's) as the
    core reads them: off the play's own path (no search), else off one run of the
    program on its counts within ``budget`` (GaveUp past it); None when that fails
    (never expected: the caller rebuilds the melds meld by meld)."""
    nl, tl = (0, 0.0) if budget is None else budget.rest()
    try:
        got = _carousel.source_melds(core, source, nl, tl)
    except MemoryError:
        raise _memory_error() from None
    if budget is not None:
        budget.spent()
    if type(got) is int:
        raise _limit_error(got, budget.nl if budget else 0, budget.tl if budget else 0.0)
    return got  # type: ignore[return-value]


def _arranged(core: _carousel.CoreRules, nT: bytes, slots: bytes, njt: int,
              budget: _Budget | None = None) -> list[list[tuple[int, int]]]:
    """The melds of a table given as counts (``nT`` naturals of each card, ``slots`` its
    slots, ``njt`` jokers) as ``(card, represents)`` pairs: read off one run of the core
    (``_carousel.arrange_counts``), or, should that reading fail (never expected: a
    bug), rebuilt meld by meld (``rebuild_counts``); within ``budget`` (GaveUp past it)."""
    try:
        nl, tl = (0, 0.0) if budget is None else budget.rest()
        status, built = _carousel.arrange_counts(core, nT, slots, njt, nl, tl)
        if budget is not None:
            budget.spent()
            budget.check(status)
        detail = 0
        if status == 5:
            status, detail, built, _ = _rebuild_counts(core, nT, _NO_HAND, slots, njt, 0, 0, budget)
    except MemoryError:
        raise _memory_error() from None
    if status != 0:
        raise reconstruction_error(status, detail)
    return built


_carousel._set_classes(TableMeld, _source_melds)


def _rules(rules: object) -> CarouselRules:
    if rules is None:
        return _DEFAULT
    if not isinstance(rules, CarouselRules):
        raise TypeError(f"rules must be a CarouselRules, got {type(rules).__name__}")
    return rules


# compiled rules by the rules object's id, with the object (kept alive, so its id is
# not reused while here): a dict lookup a call, where hashing a CarouselRules costs a
# pass over its fields
_CORES: dict[tuple[int, bool], tuple[CarouselRules, _carousel.CoreRules]] = {}


def _core_rules(rules: CarouselRules, cards_only: bool = False) -> _carousel.CoreRules:
    got = _CORES.get((id(rules), cards_only))
    if got is not None and got[0] is rules:
        return got[1]
    if len(_CORES) >= 64:
        _CORES.clear()
    core = _carousel.CoreRules(rules, cards_only)
    _CORES[(id(rules), cards_only)] = (rules, core)
    return core


def _core_rules_cards(rules: CarouselRules) -> _carousel.CoreRules:
    """The rules with every card worth 0: the core's value is then the cards played."""
    return _core_rules(rules, True)


class _Counts:
    """Counts of a (partial) position: T required naturals, H hand naturals, D slot
    demands, JT jokers that must be placed, JH hand jokers."""

    __slots__ = ("T", "H", "D", "JT", "JH")
    T: list[int]
    H: list[int]
    D: list[int]
    JT: int
    JH: int

    def __init__(self, T: list[int], H: list[int], D: list[int], JT: int, JH: int) -> None:
        self.T, self.H, self.D, self.JT, self.JH = T, H, D, JT, JH

    def value(self, core: _carousel.CoreRules, nl: int = 0, tl: float = 0.0) -> int:
        return _carousel.solve_counts(core, bytes(self.T), bytes(self.H), bytes(self.D),
                                      self.JT, self.JH, nl, tl)


@lru_cache(maxsize=1 << 14)
def _meld_of_text(text: str, rules: CarouselRules) -> TableMeld:
    """``parse_meld`` of one meld text, memoised (a TableMeld is immutable, and the
    same melds stay on the table turn after turn; a bad text raises every time, as
    ``lru_cache`` keeps no exception)."""
    return parse_meld(text, rules)


@lru_cache(maxsize=1 << 14)
def _hand_of_text(text: str) -> tuple[int, ...]:
    return tuple(parse_hand(text))


def _position(table: TableLike, hand: HandLike,
              rules: CarouselRules) -> tuple[list[TableMeld], list[int]]:
    """Parsed and checked ``(melds, codes)``: ``parse_table``, ``parse_hand`` and
    ``check_position``, with the texts of a table given as a list of meld texts and of
    a hand given as text memoised (the same results and errors)."""
    if type(table) is list and all(type(m) is str for m in table):
        melds = [_meld_of_text(m, rules) for m in table]
    else:
        melds = parse_table(table, rules)
    codes = list(_hand_of_text(hand)) if type(hand) is str else parse_hand(hand)
    check_position(melds, codes, rules)
    return melds, codes


@lru_cache(maxsize=1 << 14)
def _meld_ok(meld: TableMeld, rules: CarouselRules) -> bool:
    """``check_position``'s check of one meld under ``rules`` (raises as it does)."""
    check_position([meld], [], rules)
    return True


def _position_counts(table: TableLike, hand: HandLike,
                     rules: CarouselRules) -> tuple[list[TableMeld], list[int], _Counts]:
    """``_position`` and ``_counts`` together: ``(melds, codes, counts)``. The checks are
    ``check_position``'s, in its order (copies and jokers first, then each meld under the
    rules); a position that fails one goes through ``check_position`` itself, so the
    errors are the same."""
    if type(table) is list and all(type(m) is str for m in table):
        melds = [_meld_of_text(m, rules) for m in table]
    else:
        melds = parse_table(table, rules)
    codes = list(_hand_of_text(hand)) if type(hand) is str else parse_hand(hand)
    st = _counts(melds, codes)
    if st.JT + st.JH > rules.jokers or max(map(add, st.T, st.H)) > rules.decks:
        check_position(melds, codes, rules)
    for m in melds:
        _meld_ok(m, rules)
    return melds, codes, st


def _counts(melds: Iterable[TableMeld], codes: list[int]) -> _Counts:
    T = [0] * 52
    H = [0] * 52
    D = [0] * 52
    JT = 0
    for m in melds:
        for c, r in zip(m.cards, m.represents, strict=True):
            if c == JOKER:
                D[r] += 1
                JT += 1
            else:
                T[c] += 1
    for c in codes:
        if c != JOKER:
            H[c] += 1
    return _Counts(T, H, D, JT, codes.count(JOKER))


def _candidates(card: int, rules: CarouselRules) -> list[tuple[int, ...]]:
    """Melds (tuples of the cards their slots stand for) with a slot of ``card``:
    shortest first, so the rebuilt table uses few long melds."""
    rank, suit = card % 13, card // 13
    out: list[tuple[int, ...]] = []
    others = [s for s in range(4) if s != suit]
    for k in (2, 3):
        for extra in combinations(others, k):
            out.append(tuple(s * 13 + rank for s in sorted([suit, *extra])))
    top = 14 if rules.ace_high else 13
    positions = [1, 14] if rank == 0 else [rank + 1]
    for length in range(3, top + 1):
        for a in range(1, top - length + 2):
            b = a + length - 1
            if any(a <= p <= b for p in positions if p <= top):
                out.append(tuple(suit * 13 + (p - 1 if p <= 13 else 0) for p in range(a, b + 1)))
    out.sort(key=len)
    return out


def _fills(meld: tuple[int, ...], anchor_natural: bool, st: _Counts, rules: CarouselRules,
           anchor_card: int, hand_phase: bool
           ) -> Iterator[tuple[list[tuple[int, int]], _Counts, int, int]]:
    """Ways to fill the slots of ``meld``: yields (pairs, new counts, gain).

    Naturals come from the table's required cards first (identical copies), then
    from the hand; jokers from the table's first, then the hand's."""
    limit = rules.max_jokers_per_meld
    jokers = st.JT + st.JH
    n = len(meld)
    # an ace at both ends of A 2 .. K A: either slot may be the anchor, they are alike
    anchors = [i for i in range(n) if meld[i] == anchor_card][:1]
    for anchor in anchors:
        rest = [i for i in range(n) if i != anchor]
        anchor_options = [True] if anchor_natural else [True, False]
        for anchor_nat in anchor_options:
            max_j = min(jokers - (0 if anchor_nat else 1), n - 1,
                        n - 1 if limit is None else limit - (0 if anchor_nat else 1))
            for nj in range(max(0, max_j) + 1):
                for jset in combinations(rest, nj):
                    js = set(jset)
                    if not anchor_nat:
                        js.add(anchor)
                    if len(js) == n or (limit is not None and len(js) > limit):
                        continue
                    T, H, D = list(st.T), list(st.H), list(st.D)
                    gain = 0
                    ok = True
                    for i in range(n):
                        d = meld[i]
                        if D[d] > 0:
                            D[d] -= 1
                        if i in js:
                            continue
                        if T[d] > 0 and not hand_phase:
                            T[d] -= 1
                        elif H[d] > 0:
                            H[d] -= 1
                            gain += rules.card_value(d) * _VALMUL + 1
                        else:
                            ok = False
                            break
                    if not ok:
                        continue
                    k = len(js)
                    from_table = min(k, st.JT)
                    from_hand = k - from_table
                    if from_hand > st.JH:
                        continue
                    gain += from_hand * (rules.joker_value * _VALMUL + 1)
                    pairs = [(JOKER if i in js else meld[i], meld[i]) for i in range(n)]
                    yield pairs, _Counts(T, H, D, st.JT - from_table, st.JH - from_hand), gain, from_hand


def _rebuild_python(st: _Counts, target: int, rules: CarouselRules,
                    core: _carousel.CoreRules) -> tuple[list[TableMeld], int]:
    """Melds placing every required card and reaching ``target`` (the core's value).

    The slow reference of the C reconstruction ``_rebuild`` (``_carousel.rebuild_counts``,
    the same steps in the same order: tests/test_carousel_rebuild.py checks that both
    give the same melds); each step asks the core (``solve_counts``) from Python."""
    melds: list[TableMeld] = []
    played_jokers = 0
    guard = 0
    while True:
        guard += 1
        if guard > 1000:
            raise GaveUp("meld reconstruction did not converge")
        pending = [c for c in range(52) if st.T[c] > 0 or st.D[c] > 0]
        if pending:
            low = pending[0]
            anchor_natural = st.T[low] > 0
            hand_phase = False
        else:
            if target == 0 and st.JT == 0:
                return melds, played_jokers
            hand = [c for c in range(52) if st.H[c] > 0]
            if not hand:
                raise GaveUp("meld reconstruction ran out of cards")
            low = hand[0]
            # leave this card in hand if the rest still reaches the target
            skip = _Counts(st.T, list(st.H), st.D, st.JT, st.JH)
            skip.H[low] -= 1
            if skip.value(core) == target:
                st = skip
                continue
            anchor_natural = True
            hand_phase = True
        for meld in _candidates(low, rules):
            done = False
            for pairs, nst, gain, hj in _fills(meld, anchor_natural, st, rules, low, hand_phase):
                rest = nst.value(core)
                if rest >= 0 and rest + gain == target:
                    melds.append(make_meld(pairs, rules, "rebuilt meld"))
                    played_jokers += hj
                    st, target = nst, target - gain
                    done = True
                    break
            if done:
                break
        else:
            raise GaveUp(f"meld reconstruction found no meld for {low}")


_GAVE_UP = {1: "meld reconstruction did not converge",
            2: "meld reconstruction ran out of cards",
            4: "meld reconstruction built more melds than a table holds"}


def reconstruction_error(status: int, detail: int) -> GaveUp:
    """The GaveUp of a failed C meld reconstruction (``_carousel.rebuild_counts``'
    status and detail; the game kernel reports the same)."""
    if status == 3:
        return GaveUp(f"meld reconstruction found no meld for {detail}")
    return GaveUp(_GAVE_UP.get(status, f"meld reconstruction failed ({status})"))


def _rebuild(st: _Counts, target: int, rules: CarouselRules,
             core: _carousel.CoreRules, budget: _Budget | None = None) -> tuple[list[TableMeld], int]:
    """``_rebuild_python`` in C (``_carousel.rebuild_counts``): the same melds, in the
    same order, and the same GaveUp errors (and GaveUp past ``budget``)."""
    status, detail, built, played_jokers = _rebuild_counts(
        core, bytes(st.T), bytes(st.H), bytes(st.D), st.JT, st.JH, target, budget)
    if status != 0:
        raise reconstruction_error(status, detail)
    return [_rebuilt_meld(tuple(pairs), rules) for pairs in built], played_jokers


def _path_play(st: _Counts, rules: CarouselRules, core: _carousel.CoreRules, nl: int = 0,
               tl: float = 0.0, budget: _Budget | None = None, game_ties: bool = False
               ) -> tuple[int, list[TableMeld] | None, int]:
    """The best play in one core run: ``(value, melds, hand_jokers)``, the melds of the
    play the core's own program found (``_carousel.play_source``: the table after it as
    counts, naturals and the card each joker stands for, and the program's path) read
    off that path, else arranged from the counts (``_core_melds``, ``_arranged``);
    ``(0, None, 0)`` with no play. Positions whose path cannot be read (more than 7
    jokers), or whose path store finds no memory, take the value alone and rebuild
    the melds from it (``_rebuild`` on the position itself). GaveUp past a limit: the
    limits cover the search and the reconstruction together (``budget``: the call's,
    started when it was made). ``game_ties``: as ``best_play``'s."""
    if budget is None and (nl or tl):
        budget = _Budget(nl, tl)
    sn, stl = (0, 0.0) if budget is None else budget.rest()
    value, source = _carousel.play_source(core, bytes(st.T), bytes(st.H), bytes(st.D),
                                          st.JT, st.JH, sn, stl, not game_ties)
    if value in (-4, -5):
        raise _limit_error(value, nl, tl)
    if budget is not None:
        budget.spent()
    if value in (-2, -3):
        rn, rt = (0, 0.0) if budget is None else budget.rest()
        try:
            value = st.value(core, rn, rt)
        except MemoryError:
            raise _memory_error() from None
        if value in (-4, -5):
            raise _limit_error(value, nl, tl)
        if budget is not None:
            budget.spent()
        if value <= 0:
            return 0, None, 0
        try:
            rebuilt, hj = _rebuild(st, value, rules, core, budget)
        except MemoryError:
            raise _memory_error() from None
        return value, rebuilt, hj
    if source is None:
        return 0, None, 0
    nJT = source[105]
    got = _core_melds(core, source, budget)
    if got is not None:
        return value, list(got), nJT - st.JT
    built = _arranged(core, source[1:53], source[53:105], nJT, budget)
    return value, [_rebuilt_meld(tuple(pairs), rules) for pairs in built], nJT - st.JT


def _rebuild_path(st: _Counts, target: int, rules: CarouselRules,
                  core: _carousel.CoreRules) -> tuple[list[TableMeld], int]:
    """``_path_play`` as a reconstruction of ``target`` (the value ``solve_counts``
    gives): its melds and hand jokers, GaveUp if the core's play is worth another."""
    value, built, hj = _path_play(st, rules, core)
    if built is None:
        raise GaveUp(f"the core found no play (value {value}) where it had found {target}")
    if value != target:
        raise GaveUp(f"the core's play is worth {value}, not {target}")
    return built, hj


def _rebuild_path_game(st: _Counts, target: int, rules: CarouselRules,
                       core: _carousel.CoreRules) -> tuple[list[TableMeld], int]:
    """``_rebuild_path`` with the game kernel's play among equally good ones."""
    value, built, hj = _path_play(st, rules, core, game_ties=True)
    if built is None:
        raise GaveUp(f"the core found no play (value {value}) where it had found {target}")
    if value != target:
        raise GaveUp(f"the core's play is worth {value}, not {target}")
    return built, hj


@lru_cache(maxsize=1 << 16)
def _rebuilt_meld(pairs: tuple[tuple[int, int], ...], rules: CarouselRules) -> TableMeld:
    """``make_meld`` of rebuilt slot pairs, memoised (a TableMeld is immutable; the
    same melds come back turn after turn in a game)."""
    return make_meld(list(pairs), rules, "rebuilt meld")


# --------------------------------------------------------------------------- single positions
def best_play(table: TableLike, hand: HandLike, rules: CarouselRules | None = None, *,
              node_limit: int | None = None, time_limit: float | None = None,
              memory_limit: int | None = None, game_ties: bool = False) -> Play:
    """The legal play leaving the fewest points in hand (ties: most cards played).

    ``table``: a list of meld texts (``["6S 7S JK(8S)", "9H 9D 9C"]``), one string with
    melds separated by `` | ``, or melds as code lists (a table joker ``[52, declared]``);
    ``hand``: card text (``"5S 9S JK"``) or codes. Raises ValueError / TypeError naming
    the bad input. The search is exact and has no limit by default: ``node_limit``
    (states the search may expand) and ``time_limit`` (seconds) make it raise
    ``GaveUp`` naming the limit instead of answering late (never a wrong answer);
    so do ``memory_limit`` (bytes the solver may hold beyond what it holds when the call
    starts: its allocations past it fail, so the call's memory never grows past it) and
    a position that needs more memory than there is. The limits cover the whole call,
    the search and the arrangement of the melds together (with a limit the melds are
    arranged before the call returns).

    Where several plays are equally good (the same points left and cards played) any
    one is a right answer: on big positions (40 cards or more, table and hand, with a
    hand card to place) the one bounds reach first, the same one on every call
    (whatever other threads solve, whatever was solved before). ``game_ties=True`` returns
    the one the game kernel and the bots make instead (the program's own first; slower
    on big positions), so that a game played through this call is the kernel's game.

    The position is read, checked and solved in C (``_carousel.single_best``; meld
    texts, a table text, TableMelds, a hand as text or int codes), and the melds of the
    ``Play`` are arranged only when asked for; any other form, and every bad input,
    takes the Python path, which gives the same answer or the error."""
    if rules is None:
        rules = _DEFAULT
    elif type(rules) is not CarouselRules:
        rules = _rules(rules)
    nl, tl, ml = _all_limits(node_limit, time_limit, memory_limit)
    return _capped(ml, _best_play_within, table, hand, rules, nl, tl, ml > 0, game_ties)


def _best_play_within(table: TableLike, hand: HandLike, rules: CarouselRules, nl: int, tl: float,
                      arrange: bool, game_ties: bool) -> Play:
    """``best_play`` within the node and time limits ``nl`` / ``tl`` (0: none), its melds
    arranged before it returns when ``arrange`` or a limit is set."""
    budget = _Budget(nl, tl) if (nl or tl) else None
    got = _carousel.single_best(_core_rules(rules), rules, table, hand, rules.knock_limit, nl, tl,
                                not game_ties)
    if got is None:
        return _best_play(table, hand, rules, _rebuild_path_game if game_ties else _rebuild_path,
                          nl or None, tl or None, budget)
    if type(got) is int:
        raise _limit_error(got, nl, tl)
    if budget is not None and got.can_meld:
        # the limits cover the whole call: the melds are arranged now, within what the
        # search left of them (without limits they are arranged when first asked for)
        budget.spent()
        token = _REBUILD_BUDGET.set(budget)
        try:
            _ = got.melds
        finally:
            _REBUILD_BUDGET.reset(token)
    elif arrange and got.can_meld:
        _ = got.melds
    return got  # type: ignore[no-any-return]


def _best_play(table: TableLike, hand: HandLike, rules: CarouselRules | None, rebuild: _Rebuild,
               node_limit: int | None = None, time_limit: float | None = None,
               budget: _Budget | None = None) -> Play:
    """``best_play`` with the meld reconstruction ``rebuild`` (``_rebuild_path``: the
    core's own path, one core run; ``_rebuild`` or the slow reference
    ``_rebuild_python`` for tests and benchmarks: the value, then the melds)."""
    rules = _rules(rules)
    nl, tl = _limits(node_limit, time_limit)
    melds, codes, st = _position_counts(table, hand, rules)
    core = _core_rules(rules)
    total = rules.hand_points(codes)
    new_melds: list[TableMeld] | None = None
    hand_jokers = 0
    if rebuild is _rebuild_path or rebuild is _rebuild_path_game:
        value, new_melds, hand_jokers = _path_play(st, rules, core, nl, tl, budget,
                                                   rebuild is _rebuild_path_game)
    else:
        try:
            value = st.value(core, nl, tl)
        except MemoryError:
            raise _memory_error() from None
        if value in (-4, -5):
            raise _limit_error(value, nl, tl)
        if value < 0:  # never for melds that parse: each is a valid meld
            raise ValueError("the table is not valid: its cards cannot be arranged into melds")
        if value > 0:
            new_melds, hand_jokers = rebuild(st, value, rules, core)
    if value <= 0:
        return Play(total, 0, (), tuple(melds), False, total <= rules.knock_limit, total)
    assert new_melds is not None  # a play (value > 0) always has its melds
    table_nat = Counter(c for m in melds for c in m.cards if c != JOKER)
    final_nat = Counter(c for m in new_melds for c in m.cards if c != JOKER)
    played = sorted((final_nat - table_nat).elements()) + [JOKER] * hand_jokers
    points = value // _VALMUL
    left = total - points
    return Play(left, value % _VALMUL, tuple(played), tuple(sort_melds(new_melds)), True,
                left <= rules.knock_limit, total)


def can_meld(table: TableLike, hand: HandLike, rules: CarouselRules | None = None, *,
             node_limit: int | None = None, time_limit: float | None = None,
             memory_limit: int | None = None) -> bool:
    """Whether a legal play exists (at least one hand card placed). ``node_limit`` /
    ``time_limit`` / ``memory_limit`` as in ``best_play`` (GaveUp past them). A play
    seen on the table as laid (a meld of hand cards, a card a set lacks or that extends
    or splits a run, a joker a meld may still take) answers at once, within any limit;
    only the other positions run the solver.

    >>> can_meld(["6S 7S 8S"], "9S 2D"), can_meld(["QH KH AH"], "2H 3H")
    (True, False)
    """
    if rules is None:
        rules = _DEFAULT
    elif type(rules) is not CarouselRules:
        rules = _rules(rules)
    nl, tl, ml = _all_limits(node_limit, time_limit, memory_limit)
    value = _capped(ml, _any_play_value, table, hand, rules, nl, tl)
    if value in (-4, -5):
        raise _limit_error(value, nl, tl)
    return value > 0


def _any_play_value(table: TableLike, hand: HandLike, rules: CarouselRules, nl: int,
                    tl: float) -> int:
    """``can_meld``'s core value: some play's (not always the best), 0 none, -4 / -5."""
    core = _core_rules(rules)
    value = _carousel.single_value(core, table, hand, nl, tl, True)
    if value is None:
        try:
            value = _position_counts(table, hand, rules)[2].value(core, nl, tl)
        except MemoryError:
            raise _memory_error() from None
    if value == -2:
        raise _memory_error()
    return value  # type: ignore[no-any-return]


def max_cards_played(table: TableLike, hand: HandLike, rules: CarouselRules | None = None, *,
                     node_limit: int | None = None, time_limit: float | None = None,
                     memory_limit: int | None = None) -> int:
    """The most hand cards any legal play of the position places (0 when there is no
    legal play): not always the best play's ``cards_played``, which leaves the fewest
    points. ``node_limit`` / ``time_limit`` / ``memory_limit`` as in ``best_play``
    (GaveUp past them).

    >>> max_cards_played(["4C JK(5C) 6C"], "AC 4C 5C 8C JK")
    4
    >>> p = best_play(["4C JK(5C) 6C"], "AC 4C 5C 8C JK")
    >>> p.cards_played, p.points_left
    (3, 5)
    >>> max_cards_played(["QH KH AH"], "2H 3H")
    0
    """
    rules = _rules(rules)
    nl, tl, ml = _all_limits(node_limit, time_limit, memory_limit)
    return _capped(ml, _max_cards_within, table, hand, rules, nl, tl)


def _max_cards_within(table: TableLike, hand: HandLike, rules: CarouselRules, nl: int,
                      tl: float) -> int:
    core = _core_rules_cards(rules)
    value = _carousel.single_value(core, table, hand, nl, tl)
    if value is None:
        st = _position_counts(table, hand, rules)[2]
        try:
            value = st.value(core, nl, tl)
        except MemoryError:
            raise _memory_error() from None
    elif value == -2:
        raise _memory_error()
    if value in (-4, -5):
        raise _limit_error(value, nl, tl)
    if value < 0:  # never for melds that parse: each is a valid meld
        raise ValueError("the table is not valid: its cards cannot be arranged into melds")
    return value % _VALMUL


def can_knock(table: TableLike, hand: HandLike, rules: CarouselRules | None = None) -> bool:
    """Whether the points left after the best play are at most ``rules.knock_limit``
    (without a legal play: the hand's own points)."""
    return best_play_points([table], [hand], rules)[0] <= _rules(rules).knock_limit


# --------------------------------------------------------------------------- batch
def pack_positions(tables: Iterable[TableLike], hands: Iterable[HandLike], rules: CarouselRules | None = None
                   ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """``(tables, hands)`` uint8 arrays (module docstring) from lists of positions in
    any form ``best_play`` accepts; each position is validated."""
    rules = _rules(rules)
    table_list = tables if type(tables) is list else list(tables)
    hand_list = hands if type(hands) is list else list(hands)
    if len(table_list) != len(hand_list):
        raise ValueError(f"tables and hands must have the same length, got {len(table_list)} "
                         f"and {len(hand_list)}")
    # each position read and checked in C; the forms it does not read, and bad input,
    # through _position (its errors), in order
    return _carousel.pack_rows(_core_rules(rules), table_list, hand_list,
                               lambda t, h: _pack_row(t, h, rules))


def _pack_row(table: TableLike, hand: HandLike,
              rules: CarouselRules) -> tuple[list[int], list[int]]:
    """One position's batch rows (table codes, hand codes) through the Python path."""
    melds, codes = _position(table, hand, rules)
    return ([(_JOKER_BASE + r) if c == JOKER else c
             for m in melds for c, r in zip(m.cards, m.represents, strict=True)], codes)


def _as_array(x: object, name: str) -> npt.NDArray[np.uint8]:
    if not isinstance(x, np.ndarray):
        raise TypeError(f"{name} must be a numpy array (see pack_positions), got {type(x).__name__}")
    if x.ndim != 2 or x.dtype != np.uint8:
        raise ValueError(f"{name} must be a 2-D uint8 array of shape (positions, cards) (see "
                         f"pack_positions), got shape {x.shape} and dtype {x.dtype}")
    return np.ascontiguousarray(x)


#: the fewest rows a thread of a batch gets when the count is the cores'
_MIN_ROWS_PER_THREAD = 512


def best_play_values(tables: TablesLike, hands: HandsLike, rules: CarouselRules | None = None,
                     workers: int | None = None, *, threads: int | None = None,
                     node_limit: int | None = None, time_limit: float | None = None,
                     memory_limit: int | None = None
                     ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """``(points_left, cards_played)`` int32 arrays of the best play of each row.

    ``tables``/``hands``: uint8 arrays (module docstring) or lists of positions (packed
    with ``pack_positions``). Rows are split over ``workers`` threads (default: the cores,
    for batches of 512+ rows; ``threads`` is its deprecated name); the GIL is released.
    The search is exact and unlimited by default; with ``node_limit`` (states a row's
    search may expand) or ``time_limit`` (seconds a row's search may take) a row that
    reaches its limit gives up: its ``points_left`` is -2 and its ``cards_played`` names
    the limit, -4 ``node_limit`` or -5 ``time_limit``; -6 ``memory_limit`` (bytes each
    worker thread may hold beyond what it held when the batch started, its rows
    together); -2 there: the row needed more memory than there was (never a wrong
    answer; the other rows are exact)."""
    count, name = workers_or_threads(workers, threads)
    rules = _rules(rules)
    nl, tl, ml = _all_limits(node_limit, time_limit, memory_limit)
    return _batch(tables, hands, rules, count, name, nl, tl, _core_rules(rules), ml)


def _batch(tables: TablesLike, hands: HandsLike, rules: CarouselRules, workers: object,
           name: str, nl: int, tl: float, core: _carousel.CoreRules, ml: int = 0
           ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """``best_play_values`` with the core rules ``core`` (the cards-only ones for
    ``max_cards_played_counts``); ``name``: how the worker count was given."""
    if isinstance(tables, np.ndarray) != isinstance(hands, np.ndarray):
        raise TypeError("tables and hands must both be numpy arrays (see pack_positions) or both "
                        f"lists of positions, got {type(tables).__name__} and {type(hands).__name__}")
    if not isinstance(tables, np.ndarray):
        tables, hands = pack_positions(tables, hands, rules)
    ta = _as_array(tables, "tables")
    ha = _as_array(hands, "hands")
    if ta.shape[0] != ha.shape[0]:
        raise ValueError(f"tables and hands must have the same number of rows, got "
                         f"{ta.shape[0]} and {ha.shape[0]}")
    n = ta.shape[0]
    left = np.empty(n, dtype=np.int32)
    cards = np.empty(n, dtype=np.int32)
    run_split(n, batch_workers(workers, n, _MIN_ROWS_PER_THREAD, name),
              lambda a, b: _carousel.solve_batch(core, ta[a:b], ha[a:b], left[a:b], cards[a:b],
                                                 a, nl, tl, ml),
              (ValueError, MemoryError))
    bad = np.flatnonzero(left == -1)
    if bad.size:
        raise ValueError(f"tables row {int(bad[0])} is not a valid table: its cards cannot be "
                         "arranged into melds")
    return left, cards


def best_play_points(tables: TablesLike, hands: HandsLike, rules: CarouselRules | None = None,
                     workers: int | None = None, *, threads: int | None = None,
                     node_limit: int | None = None,
                     time_limit: float | None = None,
                     memory_limit: int | None = None) -> npt.NDArray[np.int32]:
    """Points left in hand after the best play of each row (int32 array; -2 for a row
    that gave up at ``node_limit`` / ``time_limit`` / ``memory_limit``, as in
    ``best_play_values``)."""
    return best_play_values(tables, hands, rules, workers, threads=threads,
                            node_limit=node_limit, time_limit=time_limit,
                            memory_limit=memory_limit)[0]


def max_cards_played_counts(tables: TablesLike, hands: HandsLike, rules: CarouselRules | None = None,
                            workers: int | None = None, *, threads: int | None = None,
                            node_limit: int | None = None,
                            time_limit: float | None = None,
                            memory_limit: int | None = None) -> npt.NDArray[np.int32]:
    """The most hand cards a legal play of each row places (int32 array, 0: no legal
    play); ``max_cards_played`` of each row. A row that gives up holds -4 (past
    ``node_limit``), -5 (past ``time_limit``), -6 (past ``memory_limit``, as in
    ``best_play_values``) or -2 (no memory)."""
    count, name = workers_or_threads(workers, threads)
    rules = _rules(rules)
    nl, tl, ml = _all_limits(node_limit, time_limit, memory_limit)
    return _batch(tables, hands, rules, count, name, nl, tl, _core_rules_cards(rules), ml)[1]


def can_meld_flags(tables: TablesLike, hands: HandsLike, rules: CarouselRules | None = None,
                   workers: int | None = None, *, threads: int | None = None
                   ) -> npt.NDArray[np.bool_]:
    """Whether each row has a legal play (bool array)."""
    return best_play_values(tables, hands, rules, workers, threads=threads)[1] > 0


def can_knock_flags(tables: TablesLike, hands: HandsLike, rules: CarouselRules | None = None,
                    workers: int | None = None, *, threads: int | None = None
                    ) -> npt.NDArray[np.bool_]:
    """Whether each row can knock after its best play (bool array)."""
    return best_play_values(tables, hands, rules, workers, threads=threads)[0] <= \
        _rules(rules).knock_limit


# --------------------------------------------------------------------------- chosen cards
def _chosen_counts(melds: Iterable[TableMeld], cards: Sequence[int]) -> _Counts:
    """The counts of a play that must place exactly ``cards``: the table's naturals and
    the chosen naturals all required, no optional hand, every joker (the table's and
    the chosen ones) to be placed, the table jokers' declared cards as demands."""
    st = _counts(melds, [])
    T = list(st.T)
    for c in cards:
        if c != JOKER:
            T[c] += 1
    return _Counts(T, [0] * 52, st.D, st.JT + list(cards).count(JOKER), 0)


def _with_optional(st: _Counts, optional: Sequence[int]) -> _Counts:
    """``st`` with the cards ``optional`` offered as a hand (each may be placed)."""
    H = [0] * 52
    for c in optional:
        if c != JOKER:
            H[c] += 1
    return _Counts(st.T, H, st.D, st.JT, list(optional).count(JOKER))


def _chosen(table: TableLike, cards: HandLike, hand: HandLike,
            rules: CarouselRules) -> tuple[list[TableMeld], list[int], list[int]]:
    """Parsed and checked ``(melds, cards, hand)`` of a chosen-cards query: the cards
    named must be in the hand (``IllegalMove`` naming the card otherwise), at least
    one of them; the position must fit the deck."""
    melds = parse_table(table, rules)
    codes = parse_hand(cards)
    hand_codes = list(codes) if hand is None else parse_hand(hand)
    if not codes:
        raise IllegalMove("4", "name at least one hand card: a meld play places at least one")
    lacking = Counter(codes) - Counter(hand_codes)
    if lacking:
        c = min(lacking)
        held = hand_codes.count(c)
        named = codes.count(c)
        if held == 0:
            why = f"{card_text(c)} is not in the hand"
        else:
            times = "twice" if named == 2 else f"{named} times"
            why = (f"{card_text(c)} is named {times}, but the hand holds "
                   f"{'one' if held == 1 else held}")
        raise IllegalMove("4", f"{why}: a play places only cards of the hand")
    check_position(melds, hand_codes, rules)
    return melds, codes, hand_codes


def _why_no_play(melds: list[TableMeld], codes: list[int], core: _carousel.CoreRules) -> str:
    """One line: why no arrangement of the table places exactly ``codes``."""
    for c in sorted(set(codes)):
        rest = list(codes)
        rest.remove(c)
        st = _with_optional(_chosen_counts(melds, [c]), rest)
        if st.value(core) < 0:
            if c == JOKER:
                return ("JK has no place: no arrangement of the table and the other cards "
                        "named has room for a joker")
            return (f"{card_text(c)} has no place: no arrangement of the table and the other "
                    "cards named puts it in a meld")
    if len(codes) == 1:  # pragma: no cover - the loop above found it
        return f"{card_text(codes[0])} has no place"
    return (f"{cards_text(sorted(codes))} cannot all be placed in one play: each has a place, "
            "but no arrangement of the table holds them all")


def _check_chosen_play(melds: list[TableMeld], new: list[TableMeld], codes: list[int]) -> None:
    """GaveUp unless ``new`` (melds each valid: ``make_meld`` built them) is the table
    ``melds`` plus exactly ``codes`` with every table joker keeping its card or
    replaced by a natural copy (the counting part of ``moves.check_meld_play``), so a
    reconstruction bug is never a wrong answer."""
    old_nat = Counter(c for m in melds for c in m.cards if c != JOKER)
    new_nat = Counter(c for m in new for c in m.cards if c != JOKER)
    jokers = sum(1 for m in new for c in m.cards if c == JOKER)
    old_jokers = sum(1 for m in melds for c in m.cards if c == JOKER)
    want = Counter(c for c in codes if c != JOKER)
    if new_nat != old_nat + want or jokers != old_jokers + list(codes).count(JOKER):
        raise GaveUp("the rebuilt table does not hold exactly the table and the cards named")
    old_decl = Counter(r for m in melds for r in m.jokers)
    new_decl = Counter(r for m in new for r in m.jokers)
    for d, k in old_decl.items():
        if k - min(k, new_decl.get(d, 0)) > new_nat.get(d, 0):
            raise GaveUp(f"the rebuilt table changes the card of a joker declared {card_text(d)}")


def play_cards(table: TableLike, cards: HandLike, hand: HandLike = None,
               rules: CarouselRules | None = None) -> Play:
    """The play placing exactly the hand cards ``cards``: the "must play these cards"
    query (a person names the cards to add, the solver arranges the whole table).

    ``table`` as ``best_play`` takes it; ``cards`` (text like ``"7S 9H JK"`` or codes,
    a card twice to play both copies) must all be in ``hand`` (default: the hand is
    exactly ``cards``), which gives ``points_left`` and ``can_knock``. Returns the
    ``Play``: every table card and exactly these cards in valid melds, each joker's
    card declared (a table joker keeps its card unless a natural copy replaces it;
    RULES-carousel.md 4). Where no such play exists it raises ``IllegalMove`` (a
    ValueError; ``.rule`` ``"4"``) with the reason in one line: a card not in the
    hand, named more often than the hand holds it, a card (or joker) with no place,
    or cards that each fit but not all at once. Bad input (a malformed card or meld,
    more copies than the deck) is a ValueError / TypeError naming it."""
    rules = _rules(rules)
    melds, codes, hand_codes = _chosen(table, cards, hand, rules)
    st = _chosen_counts(melds, codes)
    core = _core_rules(rules)
    if st.value(core) < 0:
        raise IllegalMove("4", _why_no_play(melds, codes, core))
    status, detail, built, _ = _carousel.rebuild_counts(
        core, bytes(st.T), bytes(st.H), bytes(st.D), st.JT, 0, 0)
    if status != 0:
        raise reconstruction_error(status, detail)
    new = sort_melds(_rebuilt_meld(tuple(pairs), rules) for pairs in built)
    _check_chosen_play(melds, new, codes)
    total = rules.hand_points(hand_codes)
    left = total - rules.hand_points(codes)
    return Play(left, len(codes), tuple(sorted(codes)), tuple(new), True,
                left <= rules.knock_limit, total)


def play_declared(table: TableLike, cards: HandLike, jokers: HandLike,
                  hand: HandLike = None, rules: CarouselRules | None = None) -> Play:
    """The one play placing exactly the hand cards ``cards`` after which the jokers on
    the table (the table's and those played) stand for exactly the cards ``jokers`` (a
    multiset, one card a joker: text like ``"KC 7D"`` or codes; order free).

    ``play_cards`` leaves each joker's card to the solver, and two plays of the same
    cards may differ there (``meld 7S JK`` with the joker as KC or as 7D): this is the
    play a canonical move text names (``carousel.notation``). A table joker may stand
    for another card only where a natural copy of its card replaces it (RULES-carousel.md
    4). ``IllegalMove`` (rule "4") when no arrangement of the table places these cards
    with these jokers; ``ValueError`` / ``TypeError`` for bad input."""
    rules = _rules(rules)
    melds, codes, hand_codes = _chosen(table, cards, hand, rules)
    declared = parse_hand(jokers, "jokers")
    if JOKER in declared:
        raise ValueError("jokers: a joker stands for a natural card, not JK")
    old = _counts(melds, [])
    njt = old.JT + codes.count(JOKER)
    if len(declared) != njt:
        raise ValueError(f"jokers: {len(declared)} cards named for {njt} joker"
                         f"{'s' if njt != 1 else ''} on the table after the play")
    nT = list(old.T)
    for c in codes:
        if c != JOKER:
            nT[c] += 1
    nD = [0] * 52
    for d in declared:
        nD[d] += 1
    for d in range(52):
        moved = old.D[d] - min(old.D[d], nD[d])
        if moved > nT[d]:
            raise IllegalMove("4", f"a table joker stands for {card_text(d)} and keeps that "
                                   f"card: no natural {card_text(d)} replaces it")
    slots = [t + j for t, j in zip(nT, nD, strict=True)]
    if max(slots) > 255:   # pragma: no cover - check_position bounds the copies
        raise ValueError("too many copies of a card")
    core = _core_rules(rules)
    st = _Counts(nT, [0] * 52, slots, njt, 0)
    if st.value(core) < 0:
        raise IllegalMove("4", f"no arrangement of the table places {cards_text(sorted(codes))} "
                               f"with the jokers standing for {cards_text(sorted(declared))}")
    status, detail, built, _ = _carousel.rebuild_counts(core, bytes(nT), bytes(52),
                                                        bytes(slots), njt, 0, 0)
    if status != 0:
        raise reconstruction_error(status, detail)
    new = sort_melds(_rebuilt_meld(tuple(pairs), rules) for pairs in built)
    _check_chosen_play(melds, new, codes)
    if Counter(r for m in new for r in m.jokers) != Counter(declared):
        raise GaveUp("the rebuilt table declares its jokers otherwise than asked")
    total = rules.hand_points(hand_codes)
    left = total - rules.hand_points(codes)
    return Play(left, len(codes), tuple(sorted(codes)), tuple(new), True,
                left <= rules.knock_limit, total)


def can_play_cards(table: TableLike, cards: HandLike, hand: HandLike = None,
                   rules: CarouselRules | None = None) -> bool:
    """Whether ``play_cards(table, cards, hand, rules)`` finds a play (one solve, no
    table rebuilt). Bad input still raises; cards not in the hand, or none, are False."""
    rules = _rules(rules)
    try:
        melds, codes, _ = _chosen(table, cards, hand, rules)
    except IllegalMove:
        return False
    return _chosen_counts(melds, codes).value(_core_rules(rules)) >= 0


def playable_cards(table: TableLike, hand: HandLike, chosen: HandLike = (),
                   rules: CarouselRules | None = None) -> tuple[int, ...]:
    """The hand cards that can join ``chosen`` on the way to a legal play: each card
    code ``k`` (sorted, once each, 52 = joker) of the hand less ``chosen`` such that
    some legal play places ``chosen``, ``k`` and perhaps more cards of the hand. One
    solve per distinct card (an action codec's legal mask: add a card, then commit
    where ``can_play_cards(table, chosen, hand)``). ``chosen`` must be in the hand
    (``IllegalMove`` otherwise)."""
    rules = _rules(rules)
    melds = parse_table(table, rules)
    hand_codes = parse_hand(hand)
    picked = parse_hand(chosen)
    lacking = Counter(picked) - Counter(hand_codes)
    if lacking:
        raise IllegalMove("4", f"chosen {cards_text(sorted(lacking.elements()))} not in the hand")
    check_position(melds, hand_codes, rules)
    rest = Counter(hand_codes) - Counter(picked)
    core = _core_rules(rules)
    out = []
    for k in sorted(rest):
        left = list((rest - Counter([k])).elements())
        if _with_optional(_chosen_counts(melds, picked + [k]), left).value(core) >= 0:
            out.append(k)
    return tuple(out)
