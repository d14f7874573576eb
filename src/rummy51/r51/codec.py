"""The integer action codec of Rummy 51: every legal move is one whole number.

Game-AI libraries (OpenSpiel, PettingZoo, RLlib) want a fixed, finite set of actions
numbered ``0 .. size - 1`` and a mask of the legal ones. ``ActionCodec(rules)`` is that
numbering for a ``RuleSet``. It is stable: the ids follow from the rule set alone by the
layout below (docs/agents.md lists it with the sizes), never from the deal.

====================  ===============================================================
ids                   move
====================  ===============================================================
0, 1, 2               draw from the stock, the discard pile, the bottom card
3 .. 55               discard a card: ``3 + code`` (codes 0..51, 52 the joker)
56 ``OPEN``           end the staging: lay the staged melds down as the opening
57 ``CANCEL``         take the staged melds back into the hand (once a turn)
58 .. 58+M-1          one meld of the meld table (below): lay it down, or before the
                      player has opened, stage it for the opening
58+M ..               table slots: ``58 + M + 15 * slot + sub`` (``sub`` below), where
                      ``slot`` is a table meld's id (0 .. ``n_slots - 1``)
====================  ===============================================================

**The meld table** lists every meld a hand can lay down, each once: runs first, then
sets. Runs: suit S H D C, then the low run position ``a`` (0 the low ace, 1..12 the
2..K, 13 the high ace), then the length (3 up to the high end), then the joker slots
(none first, then each choice of joker slots in lexicographic order, at most
``max_jokers_per_meld``, always one natural card). A run's joker has a fixed stand-in,
so ``8S 9S JK`` as 7-8-9 and as 8-9-10 are two melds. Sets: rank A..K, size 3 then 4,
jokers 0 up, then the suits of the naturals in lexicographic order. A set's joker
floats (docs/engine.md, choice 8): naming its stand-in changes nothing that can be done
with it, so a set is one meld with the default stand-ins. Runs are as long as the rules
allow (A..A, 14 cards) because laying a long run differs from laying two short ones.
A meld the engine cannot lay is left out: ``AS 2S .. KS`` always reads as 2..A (docs/engine.md,
choice 8), so the table has no A..K run of 13 naturals.

**Staging.** An opening may need several melds whose values together reach the
threshold, and only the whole counts. Before the player has opened, a meld id *stages*
the meld (it stays in the hand, set aside); ``OPEN`` lays the staged melds down as one
``LayDown`` (the engine checks the threshold then); ``CANCEL`` puts them back. A meld
may be staged only when some legal opening holds the staged melds and it (the solver
answers that for the rest of the hand), so staging never leads to a dead end. Once
opened, a meld id lays the meld down at once.

**Table slots.** Slot ``i`` is the table meld of id ``i`` (melds are never removed, so
ids are stable). There are ``deck_size // 3`` slots (36 by default): a table meld holds
at least 3 cards. ``sub``:

* a run: 0 lay off the natural card below its low end, 1 the one above its high end,
  2 a joker at the low end, 3 a joker at the high end, 4 swap its first joker (from
  the low end) for the card it stands for, 5 its second joker;
* a set: 6..9 lay off its rank in suit S, H, D, C; 10 lay off a joker; 11..14 give its
  rank in suit S, H, D, C for one of its jokers.

``legal_actions(moves)`` lists every legal move (the soak test applies each of them);
``decode(id, moves)`` gives the action (the engine's ``Draw``, ``Discard``, ``LayDown``,
``LayOff``, ``SwapJoker``, or this module's ``Stage`` and ``Cancel``), and
``encode(action, moves)`` the id back. ``moves`` is the ``GameState`` or the player's
``PlayerView``: all that is read is what the player on turn may see.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from .._checks import int_arg
from ..cards import JOKER, card_text, cards_text, to_codes
from ..rules import RuleSet
from ..solver import compiled_rules
from .actions import (
    BOTTOM,
    DISCARD,
    STOCK,
    Action,
    Discard,
    Draw,
    IllegalMove,
    LayDown,
    LayOff,
    Phase,
    SwapJoker,
)
from .melds import (
    HIGH,
    LOW,
    RUN,
    SET,
    MeldError,
    TableMeld,
    go_out_melds,
    joker_meld_possible,
    lay_off_candidates,
    lay_off_sides,
    make_meld,
    position_card,
    swap_targets,
    top_position,
)

if TYPE_CHECKING:  # engine is the caller's; the codec reads whichever it is given
    from typing import TypeAlias

    from .engine import GameState, PlayerView

    Moves: TypeAlias = GameState | PlayerView

__all__ = [
    "ActionCodec",
    "CodecMeld",
    "Stage",
    "Cancel",
    "codec_for",
    "DRAW_STOCK",
    "DRAW_DISCARD",
    "DRAW_BOTTOM",
    "DISCARD0",
    "OPEN",
    "CANCEL",
    "MELD0",
    "SLOT_ACTIONS",
]

DRAW_STOCK, DRAW_DISCARD, DRAW_BOTTOM = 0, 1, 2
DISCARD0 = 3  # discard card c: DISCARD0 + c
OPEN = 56
CANCEL = 57
MELD0 = 58
SLOT_ACTIONS = 15  # ids per table slot
_SOURCES = (STOCK, DISCARD, BOTTOM)

# sub-actions of a table slot
RUN_LOW, RUN_HIGH, RUN_JOKER_LOW, RUN_JOKER_HIGH, RUN_SWAP_1, RUN_SWAP_2 = range(6)
SET_SUIT0 = 6  # 6..9: lay off the set's rank in suit S, H, D, C
SET_JOKER = 10
SET_SWAP0 = 11  # 11..14: give the set's rank in suit S, H, D, C for a joker


_SUB_TEXT = (
    "lay off below a run's low end", "lay off above a run's high end",
    "lay off a joker at a run's low end", "lay off a joker at a run's high end",
    "swap a run's first joker", "swap a run's second joker",
    "lay off the spade of a set", "lay off the heart of a set", "lay off the diamond of a set",
    "lay off the club of a set", "lay off a joker on a set",
    "give the spade of a set for a joker", "give the heart of a set for a joker",
    "give the diamond of a set for a joker", "give the club of a set for a joker",
)


# --------------------------------------------------------------------------- staging actions
@dataclass(frozen=True)
class Stage:
    """Set one meld aside for the opening (before the player has opened; ``OPEN`` lays
    the staged melds down together). ``cards`` as in a ``LayDown`` meld; ``stand_ins``
    the card each joker stands for (a run's jokers), or None."""

    cards: tuple
    stand_ins: tuple | None = None

    def __post_init__(self) -> None:
        lay = LayDown((self.cards,), None if self.stand_ins is None else (self.stand_ins,))
        object.__setattr__(self, "cards", lay.melds[0])
        object.__setattr__(self, "stand_ins", None if lay.stand_ins is None else lay.stand_ins[0])

    def lay_down(self) -> LayDown:
        return LayDown((self.cards,), None if self.stand_ins is None else (self.stand_ins,))


@dataclass(frozen=True)
class Cancel:
    """Take the staged melds back into the hand (once a turn)."""


# --------------------------------------------------------------------------- the meld table
@dataclass(frozen=True)
class CodecMeld:
    """One meld of the codec's meld table."""

    id: int  # its action id
    kind: str  # "run" or "set"
    cards: tuple  # laid order (a run from its low end), 52 = joker
    represents: tuple  # the card each slot stands for
    naturals: tuple  # its natural cards, sorted
    jokers: int
    value: int  # opening value (docs/rules.md 3: the best reading of its cards counts)
    stand_ins: tuple | None  # the jokers' stand-ins, as LayDown names them (None: no joker)

    def lay_down(self) -> LayDown:
        return LayDown((self.cards,), None if self.stand_ins is None else (self.stand_ins,))

    def stage(self) -> Stage:
        return Stage(self.cards, self.stand_ins)

    def text(self) -> str:
        return TableMeld(self.kind, self.cards, self.represents).text()


def _run_entries(rules: RuleSet) -> Iterator[tuple[str, tuple[int, ...], tuple[int, ...], tuple[Any, ...]]]:
    top = top_position(rules)
    mj = rules.max_jokers_per_meld
    for suit in range(4):
        for a in range(0, top + 1):
            for b in range(a + 2, top + 1):
                n = b - a + 1
                reps = tuple(position_card(p, suit) for p in range(a, b + 1))
                for nj in range(0, min(mj, n - 1) + 1):
                    for js in combinations(range(n), nj):
                        cards = tuple(JOKER if i in js else reps[i] for i in range(n))
                        yield RUN, cards, reps, (suit, a, b, tuple(a + i for i in js))


def _set_entries(rules: RuleSet) -> Iterator[tuple[str, tuple[int, ...], tuple[int, ...], tuple[Any, ...]]]:
    mj = rules.max_jokers_per_meld
    for rank in range(13):
        for size in (3, 4):
            for nj in range(0, min(mj, size - 1) + 1):
                for suits in combinations(range(4), size - nj):
                    nat = tuple(s * 13 + rank for s in suits)
                    missing = [s * 13 + rank for s in range(4) if s not in suits]
                    cards = nat + (JOKER,) * nj
                    reps = nat + tuple(missing[:nj])
                    yield SET, cards, reps, (nat, nj)


@lru_cache(maxsize=32)
def _meld_table(rules: RuleSet, validate: bool = False) -> tuple[
        tuple[CodecMeld, ...], dict[Any, int], dict[Any, int], dict[Any, int]]:
    """(melds, run index, set index, index by table meld) of the meld table for ``rules``
    (cached). Each meld is one the engine builds from its cards and stand-ins; that is
    checked with ``make_meld`` for the runs of 13 and 14 cards (the only ones whose ace
    can stand at either end: the engine reads ``AS 2S .. KS`` as 2..A, the reading worth
    more, the high one on a tie, so the other cannot be laid and is left out) and, with
    ``validate`` (tests), for every meld."""
    melds: list[CodecMeld] = []
    run_index: dict[Any, int] = {}
    set_index: dict[Any, int] = {}
    table_key: dict[Any, int] = {}
    for kind, cards, reps, key in list(_run_entries(rules)) + list(_set_entries(rules)):
        nj = cards.count(JOKER)
        # the jokers' stand-ins are named for the engine (a set's too: with two jokers
        # per meld, 5S JK JK would otherwise read as the run 5-6-7, worth more)
        si = tuple(r for c, r in zip(cards, reps, strict=True) if c == JOKER) if nj else None
        # the engine must build exactly this meld from (cards, stand-ins); a 14-card run
        # whose joker stands for an ace reads the same at both ends, and only one of the
        # two can be laid (the other is left out)
        if validate or len(cards) >= 13:
            try:
                m = make_meld(cards, rules, stand_ins=si)
            except MeldError:  # pragma: no cover - every generated meld is one
                continue
            if m.kind != kind or m.cards != cards or m.represents != reps:
                continue
        i = MELD0 + len(melds)
        nat = tuple(sorted(c for c in cards if c != JOKER))
        # worth what its stand-ins stand for (a named stand-in counts, docs/rules.md 4)
        value = TableMeld(kind, cards, reps).value(rules)
        melds.append(CodecMeld(i, kind, cards, reps, nat, nj, value, si))
        (run_index if kind == RUN else set_index)[key] = i
        table_key[(kind, cards, reps) if kind == RUN else (kind, nat, nj)] = i
    return tuple(melds), run_index, set_index, table_key


# --------------------------------------------------------------------------- the codec
class ActionCodec:
    """The integer actions of Rummy 51 under ``rules`` (see the module docstring)."""

    def __init__(self, rules: RuleSet | None = None) -> None:
        rules = RuleSet() if rules is None else rules
        if not isinstance(rules, RuleSet):
            raise TypeError(f"rules must be a RuleSet, got {type(rules).__name__}")
        self.rules = rules
        self.melds, self._run_index, self._set_index, self._key = _meld_table(rules)
        self.n_melds = len(self.melds)
        self.slot0 = MELD0 + self.n_melds
        self.n_slots = rules.deck_size // 3
        self.size = self.slot0 + SLOT_ACTIONS * self.n_slots
        self._cr = compiled_rules(rules)
        self._top = top_position(rules)

    def __repr__(self) -> str:
        return (f"<ActionCodec {self.size} actions: 3 draws, 53 discards, open, cancel, "
                f"{self.n_melds} melds, {self.n_slots} table slots x {SLOT_ACTIONS}>")

    # ------------------------------------------------------------------ ids
    def check_id(self, action: object) -> int:
        """``action`` as a plain int, or a one-line TypeError / ValueError."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"an action id is a whole number 0..{self.size - 1}, got "
                            f"{type(action).__name__} {action!r:.40}")
        return int_arg("action id", action, 0, self.size - 1)

    def kind(self, action: int) -> str:
        """What an id does: 'draw', 'discard', 'open', 'cancel', 'meld', 'lay_off' or 'swap'."""
        a = self.check_id(action)
        if a < DISCARD0:
            return "draw"
        if a < OPEN:
            return "discard"
        if a == OPEN:
            return "open"
        if a == CANCEL:
            return "cancel"
        if a < self.slot0:
            return "meld"
        sub = (a - self.slot0) % SLOT_ACTIONS
        return "swap" if sub in (RUN_SWAP_1, RUN_SWAP_2) or sub >= SET_SWAP0 else "lay_off"

    def describe(self, action: int) -> str:
        """What an id does, without a position (``decode`` gives the move itself)."""
        a = self.check_id(action)
        if a < DISCARD0:
            return f"draw {_SOURCES[a]}"
        if a < OPEN:
            return f"discard {card_text(a - DISCARD0)}"
        if a == OPEN:
            return "open (lay down the staged melds)"
        if a == CANCEL:
            return "cancel (take the staged melds back)"
        if a < self.slot0:
            return f"meld {self.melds[a - MELD0].text()}"
        slot, sub = divmod(a - self.slot0, SLOT_ACTIONS)
        return f"table meld {slot}: " + _SUB_TEXT[sub]

    def meld(self, action: int) -> CodecMeld:
        """The meld of a meld id."""
        a = self.check_id(action)
        if not MELD0 <= a < self.slot0:
            raise ValueError(f"action {a} is not a meld id ({MELD0}..{self.slot0 - 1})")
        return self.melds[a - MELD0]

    def meld_id(self, meld: TableMeld | CodecMeld | Stage | Any) -> int:
        """The id of a meld: a ``TableMeld``, a ``CodecMeld``, a ``Stage`` or cards (with the
        stand-ins of their jokers, as ``LayDown`` takes them)."""
        if isinstance(meld, CodecMeld):
            return meld.id
        if isinstance(meld, Stage):
            meld = self._table_meld(meld.cards, meld.stand_ins)
        elif not isinstance(meld, TableMeld):
            meld = self._table_meld(to_codes(meld), None)
        key: tuple[Any, ...]
        if meld.kind == RUN:
            key = (RUN, tuple(meld.cards), tuple(meld.represents))
        else:
            key = (SET, tuple(sorted(c for c in meld.cards if c != JOKER)), meld.jokers)
        try:
            return self._key[key]
        except KeyError:
            raise IllegalMove("3", f"{meld.text()!r} is no meld of this rule set's meld "
                                   "table") from None

    def _table_meld(self, cards: Iterable[int], stand_ins: tuple[int, ...] | None) -> TableMeld:
        try:
            return make_meld(tuple(cards), self.rules, stand_ins=stand_ins)
        except MeldError as e:
            raise IllegalMove("3", str(e)) from None

    def slot_id(self, slot: int, sub: int) -> int:
        if not 0 <= slot < self.n_slots:
            raise ValueError(f"table slot {slot} is out of range 0..{self.n_slots - 1}")
        return self.slot0 + SLOT_ACTIONS * slot + sub

    # ------------------------------------------------------------------ decode
    def decode(self, action: int, moves: Moves, staged: Sequence[int] = ()) -> Action | Stage | Cancel:  # noqa: C901  one branch per range of the id layout (module docstring), which it mirrors
        """The move id ``action`` stands for now: an engine action, ``Stage`` or ``Cancel``.

        ``moves`` is the ``GameState`` or the player's ``PlayerView``; ``staged`` the meld
        ids staged so far this turn. Raises ``ValueError`` (``IllegalMove`` when the id
        does not fit the position: an empty slot, a run move on a set) in one line."""
        a = self.check_id(action)
        if a < DISCARD0:
            return Draw(_SOURCES[a])
        if a < OPEN:
            return Discard(a - DISCARD0)
        if a == OPEN:
            if not staged:
                raise IllegalMove("engine", f"action {a} (open) lays down the staged melds, "
                                            "and none are staged")
            ms = [self.melds[i - MELD0] for i in staged]
            si = tuple(m.stand_ins for m in ms)
            return LayDown(tuple(m.cards for m in ms), si if any(s is not None for s in si) else None)
        if a == CANCEL:
            return Cancel()
        if a < self.slot0:
            m = self.melds[a - MELD0]
            if moves.phase is not Phase.OVER and not moves.opened[moves.current]:
                return m.stage()
            return m.lay_down()
        slot, sub = divmod(a - self.slot0, SLOT_ACTIONS)
        table = moves.table
        if slot >= len(table):
            held = f"holds {len(table)} meld{'s' if len(table) != 1 else ''}" if table else "is empty"
            raise IllegalMove("engine", f"action {a} is a move on table meld {slot}, and the "
                                        f"table {held}")
        meld = table[slot]
        if meld.kind == RUN:
            if sub == RUN_LOW or sub == RUN_HIGH:
                pos = meld.low - 1 if sub == RUN_LOW else meld.high + 1
                if not 0 <= pos <= self._top:
                    raise IllegalMove("3", f"action {a}: meld {slot} ({meld.text()}) has no "
                                           f"{'low' if sub == RUN_LOW else 'high'} end to lay "
                                           "off on")
                return LayOff(position_card(pos, meld.suit), slot, LOW if sub == RUN_LOW else HIGH)
            if sub == RUN_JOKER_LOW or sub == RUN_JOKER_HIGH:
                return LayOff(JOKER, slot, LOW if sub == RUN_JOKER_LOW else HIGH)
            if sub == RUN_SWAP_1 or sub == RUN_SWAP_2:
                reps = [r for c, r in zip(meld.cards, meld.represents, strict=True) if c == JOKER]
                k = sub - RUN_SWAP_1
                if k >= len(reps):
                    raise IllegalMove("5.5", f"action {a}: meld {slot} ({meld.text()}) holds "
                                             f"{len(reps)} joker(s), no joker {k + 1} to swap")
                return SwapJoker(reps[k], slot)
            raise IllegalMove("engine", f"action {a} is a set move, and table meld {slot} "
                                        f"({meld.text()}) is a run")
        rank = meld.represents[0] % 13
        if SET_SUIT0 <= sub < SET_SUIT0 + 4:
            return LayOff((sub - SET_SUIT0) * 13 + rank, slot, None)
        if sub == SET_JOKER:
            return LayOff(JOKER, slot, None)
        if sub >= SET_SWAP0:
            return SwapJoker((sub - SET_SWAP0) * 13 + rank, slot)
        raise IllegalMove("engine", f"action {a} is a run move, and table meld {slot} "
                                    f"({meld.text()}) is a set")

    # ------------------------------------------------------------------ encode
    def encode(self, action: Action | Stage | Cancel, moves: Moves, staged: Sequence[int] = ()) -> int:  # noqa: C901  decode's inverse: one branch per action kind
        """The id of ``action`` (the inverse of ``decode``). A lay-down of several melds is
        several ids: see ``encode_sequence``."""
        if isinstance(action, Draw):
            return _SOURCES.index(action.source)
        if isinstance(action, Discard):
            return DISCARD0 + action.card
        if isinstance(action, Cancel):
            return CANCEL
        if isinstance(action, Stage):
            return self.meld_id(action)
        if isinstance(action, LayDown):
            ids = self._lay_down_ids(action)
            if staged:
                if sorted(ids) == sorted(staged):
                    return OPEN
                raise IllegalMove("engine", "melds are staged for the opening: lay down exactly "
                                            "those (open) or cancel them first")
            if len(ids) == 1 and (moves.phase is Phase.OVER or moves.opened[moves.current]):
                return ids[0]
            raise ValueError(f"{_lay_text(action)!r} is {len(self.encode_sequence(action, moves))}"
                             " integer actions here (an opening is staged meld by meld, then "
                             "opened): use encode_sequence")
        if isinstance(action, LayOff):
            meld = self._slot_meld(action.meld_id, moves)
            sides = lay_off_sides(meld, action.card, self.rules)
            if not sides or (action.side is not None and meld.kind == RUN
                             and action.side not in sides):
                where = f" at its {action.side} end" if action.side else ""
                raise IllegalMove("3", f"{card_text(action.card)} does not fit meld "
                                       f"{action.meld_id} ({meld.text()}){where}")
            if meld.kind == SET:
                if action.card == JOKER:
                    return self.slot_id(action.meld_id, SET_JOKER)
                return self.slot_id(action.meld_id, SET_SUIT0 + action.card // 13)
            side = action.side
            if side is None:
                side = HIGH if HIGH in sides else LOW
            if action.card == JOKER:
                sub = RUN_JOKER_LOW if side == LOW else RUN_JOKER_HIGH
            else:
                sub = RUN_LOW if side == LOW else RUN_HIGH
            return self.slot_id(action.meld_id, sub)
        if isinstance(action, SwapJoker):
            meld = self._slot_meld(action.meld_id, moves)
            if meld.kind == SET:
                if action.card not in swap_targets(meld):
                    raise IllegalMove("5.5", f"no joker of meld {action.meld_id} "
                                             f"({meld.text()}) can be swapped for "
                                             f"{card_text(action.card)}")
                return self.slot_id(action.meld_id, SET_SWAP0 + action.card // 13)
            reps = [r for c, r in zip(meld.cards, meld.represents, strict=True) if c == JOKER]
            if action.card not in reps:
                raise IllegalMove("5.5", f"no joker of meld {action.meld_id} ({meld.text()}) "
                                         f"stands for {card_text(action.card)}")
            return self.slot_id(action.meld_id, RUN_SWAP_1 + reps.index(action.card))
        raise TypeError(f"not an action: {action!r:.60} (Draw, LayDown, LayOff, SwapJoker, "
                        "Discard, Stage or Cancel)")

    def encode_sequence(self, action: Action | Stage | Cancel, moves: Moves,
                        staged: Sequence[int] = ()) -> list[int]:
        """The ids that make the engine move ``action`` now: one id for most moves; a
        ``LayDown`` of several melds is one id a meld, and an opening is its melds staged
        then ``OPEN``."""
        if not isinstance(action, LayDown):
            return [self.encode(action, moves, staged)]
        ids = self._lay_down_ids(action)
        if staged:
            return [self.encode(action, moves, staged)]
        if moves.phase is Phase.OVER or moves.opened[moves.current]:
            if moves.turn_info.freed_joker:  # the freed joker's meld comes first
                ids.sort(key=lambda i: self.melds[i - MELD0].jokers == 0)
            return ids
        return ids + [OPEN]

    def _lay_down_ids(self, action: LayDown) -> list[int]:
        out = []
        for i, cards in enumerate(action.melds):
            si = action.stand_ins[i] if action.stand_ins is not None else None
            out.append(self.meld_id(self._table_meld(cards, si)))
        return out

    def _slot_meld(self, meld_id: int, moves: Moves) -> TableMeld:
        if meld_id >= self.n_slots:
            raise ValueError(f"meld id {meld_id} is past the table's {self.n_slots} slots")
        if meld_id >= len(moves.table):
            raise IllegalMove("engine", f"there is no meld {meld_id} on the table (ids "
                                        f"0..{len(moves.table) - 1})")
        return moves.table[meld_id]

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, moves: Moves, staged: Sequence[int] = (), may_cancel: bool = True) -> list[int]:  # noqa: C901  one branch per phase, the ids in ascending order as OpenSpiel wants them
        """Every legal move id of the player on turn, ascending (OpenSpiel's order).

        ``staged``: the meld ids staged for the opening this turn; ``may_cancel``: whether
        the turn's one ``CANCEL`` is still there."""
        phase = moves.phase
        if phase is Phase.OVER:
            return []
        if phase is Phase.DRAW:
            return [i for i, s in enumerate(_SOURCES) if moves.can_draw(s)]
        hand = moves._hand()
        p = moves.current
        ti = moves.turn_info
        opened = moves.opened[p]
        counts = [0] * 53
        for c in hand:
            counts[c] += 1
        out: list[int] = []
        if not opened:
            if staged:
                for i in staged:
                    for c in self.melds[i - MELD0].cards:
                        counts[c] -= 1
            out.extend(self._stageable(moves, hand, counts, staged))
            if staged:
                if moves.can_lay_down(self.decode(OPEN, moves, staged)):
                    out.append(OPEN)
                if may_cancel:
                    out.append(CANCEL)
                return sorted(out)
        else:
            n = len(hand)
            melds = self._hand_melds(counts, n - 1)
            if ti.freed_joker:
                return [i for i in melds if self.melds[i - MELD0].jokers]
            if ti.bottom:
                melds = [i for i in melds if self._finishable_after(hand, i)]
            out.extend(melds)
            if not ti.bottom and n > 1:
                out.extend(self._slot_moves(moves, hand, counts))
        if ti.must_open and not opened:
            return sorted(out)
        if ti.bottom and len(hand) > 1:
            return sorted(out)
        out.extend(DISCARD0 + c for c in sorted(set(hand)) if moves.can_discard(c))
        return sorted(out)

    def _hand_melds(self, counts: list[int], max_cards: int) -> list[int]:  # noqa: C901  one enumeration (runs by suit and window, then sets by rank), nested loops in id order
        """Ids of every meld the card counts can make, of at most ``max_cards`` cards."""
        out: list[int] = []
        if max_cards < 3:
            return out
        rules = self.rules
        J = min(counts[JOKER], rules.max_jokers_per_meld)
        top = self._top
        run_index = self._run_index
        for suit in range(4):
            base = suit * 13
            have = [counts[base + (0 if p == 13 else p)] for p in range(top + 1)]
            for a in range(0, top - 1):
                missing: list[int] = []
                for b in range(a, top + 1):
                    if have[b] == 0 or (b == 13 and a == 0 and have[13] < 2):
                        missing.append(b)
                        if len(missing) > J:
                            break
                    n = b - a + 1
                    if n < 3:
                        continue
                    if n > max_cards:
                        break
                    if a == 0 and b == 13:
                        out.extend(self._ace_to_ace(suit, have, J))
                        continue
                    free = J - len(missing)
                    present = [p for p in range(a, b + 1) if p not in missing]
                    for k in range(0, free + 1):
                        for extra in combinations(present, k):
                            if len(extra) == len(present):
                                continue
                            js = tuple(sorted(missing + list(extra)))
                            i = run_index.get((suit, a, b, js))
                            if i is not None:
                                out.append(i)
        set_index = self._set_index
        for rank in range(13):
            suits = [s for s in range(4) if counts[s * 13 + rank]]
            if not suits:
                continue
            for size in (3, 4):
                if size > max_cards:
                    break
                for nj in range(0, min(J, size - 1) + 1):
                    for chosen in combinations(suits, size - nj):
                        i = set_index.get((tuple(s * 13 + rank for s in chosen), nj))
                        if i is not None:
                            out.append(i)
        return out

    def _ace_to_ace(self, suit: int, have: list[int], J: int) -> list[int]:
        """The A..A runs of ``suit`` (14 cards, an ace at both ends) that the card counts
        ``have`` (by run position) can make with at most ``J`` jokers."""
        out = []
        for k in range(0, J + 1):
            for js in combinations(range(14), k):
                if any(have[p] == 0 for p in range(1, 13) if p not in js):
                    continue
                if sum(1 for p in (0, 13) if p not in js) > have[0]:
                    continue
                i = self._run_index.get((suit, 0, 13, js))
                if i is not None:
                    out.append(i)
        return out

    def _stageable(self, moves: Moves, hand: Sequence[int], counts: list[int],
                   staged: Sequence[int]) -> list[int]:
        """Meld ids the unopened player on turn may stage: those after which some legal
        opening still holds everything staged (docs/agents.md, "Staging")."""
        n_left = sum(counts)
        cands = self._hand_melds(counts, n_left - 1)
        if not cands:
            return []
        rules = self.rules
        ti = moves.turn_info
        value = sum(self.melds[i - MELD0].value for i in staged)
        must = ti.taken if (ti.must_open and rules.discard_card_must_meld) else None
        staged_cards: set = set()
        for i in staged:
            staged_cards.update(self.melds[i - MELD0].cards)
        threshold = rules.threshold
        out = []
        cache: dict = {}
        for i in cands:
            m = self.melds[i - MELD0]
            rest = list(counts)
            for c in m.cards:
                rest[c] -= 1
            key = tuple(rest)
            if ti.bottom:
                ok = cache.get(key)
                if ok is None:
                    ok = self._bottom_reach(rest)
                    cache[key] = ok
                if ok is not None and value + m.value + ok >= threshold:
                    out.append(i)
                continue
            need = must if (must is not None and must not in staged_cards
                            and must not in m.cards) else -1
            if need == -1 and value + m.value >= threshold:
                out.append(i)
                continue
            ck = (key, need)
            best = cache.get(ck)
            if best is None:
                codes = bytes(c for c in range(53) for _ in range(rest[c]))
                if need != -1 and need not in codes:
                    best = -1
                else:
                    best = _core.solve_one(self._cr, codes, "best", 1, need)[0]
                    if need != -1 and best == 0:
                        best = -1  # the taken card fits in no meld of the rest
                cache[ck] = best
            if best >= 0 and value + m.value + best >= threshold:
                out.append(i)
        return out

    def _bottom_reach(self, rest: list[int]) -> int | None:
        """After taking the bottom card: the most the rest of the hand adds to the opening
        when it is all laid down but one card, or None if it cannot be."""
        codes = [c for c in range(53) for _ in range(rest[c])]
        if len(codes) == 1:
            return 0
        if len(codes) < 4:
            return None
        melds = go_out_melds(codes, self.rules)
        if melds is None:
            return None
        return sum(m.value(self.rules) for m in melds)

    def _finishable_after(self, hand: Sequence[int], i: int) -> bool:
        """A bottom-card turn, opened: the rest after laying meld ``i`` can still all go
        down but one card."""
        rest = list(hand)
        for c in self.melds[i - MELD0].cards:
            rest.remove(c)
        if len(rest) == 1:
            return True
        if len(rest) < 4:
            return False
        return go_out_melds(rest, self.rules) is not None

    def _slot_moves(self, moves: Moves, hand: Sequence[int], counts: list[int]) -> list[int]:
        """Lay-offs and joker swaps of an opened player (not in a bottom-card turn)."""
        rules = self.rules
        out = []
        held = set(hand)
        slot0 = self.slot0
        for i, meld in enumerate(moves.table):
            base = slot0 + SLOT_ACTIONS * i
            for c in sorted(held & lay_off_candidates(meld, rules)):
                for side in lay_off_sides(meld, c, rules):
                    if meld.kind == SET:
                        out.append(base + (SET_JOKER if c == JOKER else SET_SUIT0 + c // 13))
                    elif c == JOKER:
                        out.append(base + (RUN_JOKER_LOW if side == LOW else RUN_JOKER_HIGH))
                    else:
                        out.append(base + (RUN_LOW if side == LOW else RUN_HIGH))
            if meld.jokers:
                reps = [r for c, r in zip(meld.cards, meld.represents, strict=True) if c == JOKER]
                for c in swap_targets(meld):
                    if counts[c]:
                        after = list(hand)
                        after.remove(c)
                        after.append(JOKER)
                        if joker_meld_possible(after, rules):
                            if meld.kind == SET:
                                out.append(base + SET_SWAP0 + c // 13)
                            else:
                                out.append(base + RUN_SWAP_1 + reps.index(c))
        return out


def _lay_text(a: LayDown) -> str:
    return "lay down " + " | ".join(cards_text(m) for m in a.melds)


@lru_cache(maxsize=32)
def codec_for(rules: RuleSet) -> ActionCodec:
    """The codec of ``rules`` (cached: the meld table is built once per rule set)."""
    return ActionCodec(rules)
