"""The game engine: one deal of Rummy 51 (RULES.md sections 5-6), and matches.

A deal is a ``GameState``. It starts with a seeded chance step (the shuffle and the
deal), then players act one move at a time. Its ``phase`` says what comes next:

* ``Phase.DRAW``: the player on turn draws: ``Draw("stock")``, ``Draw("discard")`` or
  ``Draw("bottom")``;
* ``Phase.PLAY``: the player opens / lays down (``LayDown``), lays off (``LayOff``),
  swaps jokers (``SwapJoker``), any number of times, and ends the turn with
  ``Discard``; the first player's first turn starts here (no draw);
* ``Phase.OVER``: the deal has ended (``result``, ``scores()``).

Every move has a triad (pokerkit): ``verify_discard(card)`` raises ``IllegalMove``
(a ``ValueError``) naming the rule broken (``.rule``, e.g. ``"5.4"``),
``can_discard(card)`` returns a bool and ``discard(card)`` makes the move and returns
its record; ``apply(action)`` does the same for an action object, and
``legal_actions()`` lists the moves (OpenSpiel). A refused move leaves the state
unchanged. The only randomness is the shuffle and the reshuffles of an empty stock,
drawn from ``numpy.random.default_rng(seed)``, so a deal replays exactly from
``(rules, seed, actions)`` (``replay``); a hand history (``to_json``) also records
the deck order and every reshuffle, so ``from_json`` needs no RNG.

Bots see a ``PlayerView`` (``state.view(player)``): their own hand, everything
public (table, discard pile, hand sizes, who opened, public history), never another
hand nor the stock order. A view offers the same ``verify_x`` / ``can_x`` and
``legal_actions()`` as the state (when it is that player's turn).

>>> from rummy51 import RuleSet
>>> s = GameState.new(RuleSet(), players=4, seed=7)
>>> s.phase, s.current, len(s.hands[0]), len(s.hands[1])
(<Phase.PLAY: 'play'>, 0, 15, 14)
>>> rec = s.discard(s.hands[0][-1])
>>> s.phase, s.current
(<Phase.DRAW: 'draw'>, 1)

Rules choices where RULES.md is silent are listed in docs/engine.md.
"""
from __future__ import annotations

import abc
import copy
import enum
import json
from collections import Counter
from collections.abc import Sequence as _SequenceABC
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence, Union

import numpy as np

from .. import solver
from ..cards import JOKER, card_text, cards_text, parse_card, to_codes
from .melds import (
    HIGH,
    LOW,
    MeldError,
    TableMeld,
    card_value,
    check_meld,
    go_out_melds,
    joker_meld_possible,
    joker_melds,
    lay_off,
    lay_off_candidates,
    lay_off_sides,
    make_meld,
    melds_in,
    opening_value,
    swap_joker,
    swap_targets,
)
from ..rules import RuleSet, rules_from_dict, rules_to_dict

__all__ = [
    "Phase",
    "IllegalMove",
    "Draw",
    "LayDown",
    "LayOff",
    "SwapJoker",
    "Discard",
    "Action",
    "Record",
    "DrawRecord",
    "LayDownRecord",
    "LayOffRecord",
    "SwapRecord",
    "DiscardRecord",
    "ChanceRecord",
    "TurnInfo",
    "Result",
    "GameState",
    "PlayerView",
    "Match",
    "replay",
    "stacked_deck",
    "action_to_json",
    "action_from_json",
]

STOCK, DISCARD, BOTTOM = "stock", "discard", "bottom"
SOURCES = (STOCK, DISCARD, BOTTOM)
HISTORY_FORMAT = "rummy51/hand-history"
MATCH_FORMAT = "rummy51/match"
FORMAT_VERSION = 1


def _option(rules: RuleSet, name: str, default):
    """A RuleSet option for a choice RULES.md leaves open (see docs/engine.md)."""
    return getattr(rules, name, default)


def _make(cls, fields: dict):
    """A frozen dataclass instance from a complete dict of its fields, without the
    field-by-field ``object.__setattr__`` of the generated ``__init__`` (the engine's
    per-turn objects; every field is given, nothing needs validating)."""
    obj = object.__new__(cls)
    obj.__dict__.update(fields)
    return obj


def _replace_ti(ti: "TurnInfo", **changes) -> "TurnInfo":
    """``dataclasses.replace`` of a TurnInfo, faster (it runs twice a turn)."""
    d = dict(ti.__dict__)
    d.update(changes)
    return _make(TurnInfo, d)


# --------------------------------------------------------------------------- phases, errors
class Phase(enum.Enum):
    """What the deal waits for."""

    DRAW = "draw"  # the player on turn draws
    PLAY = "play"  # the player lays down / lays off / swaps, then discards
    OVER = "over"  # the deal has ended


class IllegalMove(ValueError):
    """A move the rules do not allow; ``rule`` names the RULES.md section broken
    (``"5.4"``) or ``"engine"`` for a choice documented in docs/engine.md."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"{message} (RULES.md {rule})" if rule[0].isdigit() else message)
        self.rule = rule
        self.reason = message


# --------------------------------------------------------------------------- actions
def _card(x) -> int:
    if isinstance(x, str):
        return parse_card(x)
    if isinstance(x, (bool, np.bool_)):
        raise ValueError(f"{x!r} is not a card")
    c = int(x)
    if c != x or not 0 <= c <= JOKER:
        raise ValueError(f"{x!r} is not a card code: codes are 0..51 or 52 (joker)")
    return c


def _meld_codes(m) -> tuple[int, ...]:
    if isinstance(m, TableMeld):
        return m.cards
    return tuple(to_codes(m))


@dataclass(frozen=True)
class Draw:
    """Draw one card: from the top of the ``"stock"``, the top of the ``"discard"`` pile,
    or the ``"bottom"`` card (only to win by hand, RULES.md 5.7)."""

    source: str = STOCK

    def __post_init__(self):
        if self.source not in SOURCES:
            raise ValueError(f"Draw source must be 'stock', 'discard' or 'bottom', got {self.source!r}")

    def text(self) -> str:
        return f"draw {self.source}"


@dataclass(frozen=True)
class LayDown:
    """Lay melds from the hand: ``melds`` is a tuple of melds, each a tuple of card codes
    (text is accepted: ``LayDown(("7S 8S 9S", "10D 10C 10H"))``). ``stand_ins`` may name,
    per meld, the card each joker stands for (``None`` = the reading worth most; for a run,
    this is how the player picks the side of an end joker). Unopened, this is the opening
    and must reach ``rules.threshold``."""

    melds: tuple
    stand_ins: Optional[tuple] = None

    def __post_init__(self):
        if isinstance(self.melds, (str, TableMeld)):
            melds = (_meld_codes(self.melds),)
        else:
            melds = tuple(_meld_codes(m) for m in self.melds)
        object.__setattr__(self, "melds", melds)
        if self.stand_ins is not None:
            si = tuple(None if s is None else tuple(to_codes(s)) for s in self.stand_ins)
            if len(si) != len(melds):
                raise ValueError(f"LayDown has {len(melds)} melds but {len(si)} stand_ins entries")
            if all(s is None for s in si):
                si = None
            object.__setattr__(self, "stand_ins", si)

    @classmethod
    def of(cls, melds: Iterable) -> "LayDown":
        """A LayDown of the solver's ``Meld`` or ``TableMeld`` objects, stand-ins kept."""
        melds = list(melds)
        cards = tuple(tuple(m.cards) for m in melds)
        si = tuple(tuple(r for c, r in zip(m.cards, m.represents) if c == JOKER) or None
                   for m in melds)
        return cls(cards, si)

    def text(self) -> str:
        return "lay down " + " | ".join(cards_text(m) for m in self.melds)


@dataclass(frozen=True)
class LayOff:
    """Lay ``card`` off on the table meld ``meld_id``; for a run, ``side`` is ``"low"`` or
    ``"high"`` (``None``: the only end that fits, the high one when both do)."""

    card: int
    meld_id: int
    side: Optional[str] = None

    def __post_init__(self):
        object.__setattr__(self, "card", _card(self.card))
        object.__setattr__(self, "meld_id", int(self.meld_id))
        if self.side not in (None, LOW, HIGH):
            raise ValueError(f"LayOff side must be 'low', 'high' or None, got {self.side!r}")

    def text(self) -> str:
        side = f" ({self.side})" if self.side else ""
        return f"lay off {card_text(self.card)} on meld {self.meld_id}{side}"


@dataclass(frozen=True)
class SwapJoker:
    """Give ``card`` for the joker of table meld ``meld_id`` that stands for it; the
    joker must go into a new meld this turn (the next move is a ``LayDown`` holding it)."""

    card: int
    meld_id: int

    def __post_init__(self):
        object.__setattr__(self, "card", _card(self.card))
        object.__setattr__(self, "meld_id", int(self.meld_id))

    def text(self) -> str:
        return f"swap {card_text(self.card)} for the joker of meld {self.meld_id}"


@dataclass(frozen=True)
class Discard:
    """Discard ``card``, ending the turn (and the deal, if it was the last card)."""

    card: int

    def __post_init__(self):
        object.__setattr__(self, "card", _card(self.card))

    def text(self) -> str:
        return f"discard {card_text(self.card)}"


Action = Union[Draw, LayDown, LayOff, SwapJoker, Discard]


# --------------------------------------------------------------------------- records
@dataclass(frozen=True)
class Record:
    """What a move did: its ``turn`` (0-based, in the deal), ``player`` and ``action``."""

    turn: int
    player: int
    action: Any


@dataclass(frozen=True)
class DrawRecord(Record):
    card: Optional[int] = None  # the card drawn (None in other players' views of a stock draw)


@dataclass(frozen=True)
class LayDownRecord(Record):
    meld_ids: tuple = ()  # ids of the new table melds
    value: int = 0  # their opening value (RULES.md 2-3)
    opening: bool = False  # this lay-down opened the player


@dataclass(frozen=True)
class LayOffRecord(Record):
    meld: Optional[TableMeld] = None  # the meld after the lay-off


@dataclass(frozen=True)
class SwapRecord(Record):
    meld: Optional[TableMeld] = None  # the meld after the swap


@dataclass(frozen=True)
class DiscardRecord(Record):
    outcome: Optional[str] = None  # None, or how the player went out: 'out', 'hand', 'hand_bottom'


@dataclass(frozen=True)
class ChanceRecord(Record):
    """A chance step: ``kind`` ``'deal'`` (``cards``: the deck, top first) or ``'reshuffle'``
    (``cards``: the new stock, top first; hidden in views)."""

    kind: str = ""
    cards: tuple = ()


@dataclass(frozen=True)
class TurnInfo:
    """What the player on turn has done this turn (public, but ``drawn`` of a stock draw is
    shown only to that player)."""

    source: Optional[str] = None  # where the player drew from (None: not yet / first turn)
    drawn: Optional[int] = None  # the card drawn
    must_open: bool = False  # took the discard after the free rounds while unopened: must open now
    bottom: bool = False  # took the bottom card: must win by hand this turn
    freed_joker: bool = False  # swapped a joker that must go into a new meld (next move)
    opened_at_start: bool = False  # had opened before this turn (then no win by hand)
    touched_others: bool = False  # laid off on / swapped from another player's meld (no hand win)

    @property
    def taken(self) -> Optional[int]:
        """The card taken from the discard pile this turn, if any."""
        return self.drawn if self.source == DISCARD else None


# shared immutable objects of every turn
_DRAWS = {s: Draw(s) for s in SOURCES}
# a turn's start, before and after the player has opened
_TURN_START = (TurnInfo(opened_at_start=False), TurnInfo(opened_at_start=True))


@dataclass(frozen=True)
class Result:
    """How a deal ended. ``how``: ``'out'``, ``'hand'``, ``'hand_bottom'`` (a winner), or
    ``'capped'`` (``rules.max_turns`` reached) / ``'stock_out'`` (the stock ran out and
    could not be refilled): a draw, ``winner`` None."""

    winner: Optional[int]
    how: str
    scores: tuple[int, ...]

    @property
    def draw(self) -> bool:
        return self.winner is None


# --------------------------------------------------------------------------- move rules
class _MoveRules:
    """The checks of every move, shared by ``GameState`` and ``PlayerView``: they read only
    what the player on turn may see (their hand, the table, the discard pile, the bottom
    card, who opened, this turn's ``TurnInfo``)."""

    rules: RuleSet
    n_players: int
    phase: Phase
    turn: int
    current: int
    table: Sequence[TableMeld]
    opened: Sequence[bool]
    discard_pile: Sequence[int]
    bottom: Optional[int]
    turn_info: TurnInfo

    @abc.abstractmethod
    def _hand(self) -> Sequence[int]:
        """The hand of the player on turn (GameState: the real one; PlayerView: its own)."""

    @property
    @abc.abstractmethod
    def stock_size(self) -> int:
        """Cards left in the stock."""

    @property
    def round(self) -> int:
        """The round of the deal (0-based): round r is turns r*n .. r*n + n - 1."""
        return self.turn // self.n_players

    @property
    def discard_top(self) -> Optional[int]:
        """The card on top of the discard pile, or None."""
        return self.discard_pile[-1] if self.discard_pile else None

    def free_round(self) -> bool:
        """Whether taking the discard is free for an unopened player this turn
        (RULES.md 5.4: the first round; proposed option ``free_discard_rounds``)."""
        return self.round < _option(self.rules, "free_discard_rounds", 1)

    # ------------------------------------------------------------------ helpers
    def _in_phase(self, phase: Phase, what: str) -> None:
        if self.phase is Phase.OVER:
            raise IllegalMove("5.6", f"cannot {what}: the deal is over")
        if self.phase is not phase:
            if phase is Phase.DRAW:
                if self.turn == 0 and self.turn_info.source is None:
                    raise IllegalMove("5.2", f"cannot {what}: the first player does not draw in "
                                             "the first turn, they only discard (and may open)")
                raise IllegalMove("5.3", f"cannot {what}: the player has already drawn this turn")
            raise IllegalMove("5.3", f"cannot {what}: the turn starts with a draw "
                                     "(from the stock or the discard pile)")

    def _has(self, hand: Sequence[int], card: int, what: str) -> None:
        if card not in hand:
            raise IllegalMove("4", f"cannot {what}: {card_text(card)} is not in the hand of "
                                   f"player {self.current}")

    def _common_play(self, what: str) -> None:
        """Lay-offs and swaps: an opened player, not in a bottom-card turn, no joker waiting."""
        ti = self.turn_info
        if not self.opened[self.current]:
            raise IllegalMove("4", f"cannot {what}: only a player who has opened may lay off or "
                                   "swap jokers")
        if ti.bottom:
            raise IllegalMove("5.7", f"cannot {what}: the bottom card was taken to win by hand; "
                                     "lay down all but one card and discard it")
        if ti.freed_joker:
            raise IllegalMove("5.5", f"cannot {what}: the swapped joker must first go into a new "
                                     "meld (lay it down)")

    def _meld(self, meld_id) -> TableMeld:
        try:
            i = int(meld_id)
        except (TypeError, ValueError):
            raise IllegalMove("engine", f"{meld_id!r} is not a meld id") from None
        if not 0 <= i < len(self.table):
            raise IllegalMove("engine", f"there is no meld {meld_id} on the table "
                                        f"(ids 0..{len(self.table) - 1})")
        return self.table[i]

    def _finishable(self, rest: Sequence[int]) -> bool:
        """Whether ``rest`` can still all be laid down but one card (bottom-card turns)."""
        if len(rest) == 1:
            return True
        if len(rest) < 4:
            return False
        return go_out_melds(rest, self.rules) is not None

    # ------------------------------------------------------------------ draw
    def verify_draw(self, source: str = STOCK) -> int:
        """Raise ``IllegalMove`` unless the player on turn may draw from ``source``; return the
        card they would get."""
        if source not in SOURCES:
            raise IllegalMove("5.3", f"{source!r} is not a pile: draw from 'stock', 'discard' "
                                     "or 'bottom'")
        if self.phase is not Phase.DRAW:
            self._in_phase(Phase.DRAW, f"draw from the {source}")
        p = self.current
        hand = self._hand()
        if source == STOCK:
            if self.stock_size == 0:  # pragma: no cover - refilled or ended at the turn's start
                raise IllegalMove("5.8", "the stock is empty")
            return -1
        if source == DISCARD:
            top = self.discard_top
            if top is None:
                raise IllegalMove("5.3", "the discard pile is empty")
            if self.opened[p] or self.free_round():
                return top
            must = top if self.rules.discard_card_must_meld else None
            if not solver.can_open(list(hand) + [top], self.rules, keep=1, must_use=must):
                extra = " using that card" if must is not None else ""
                raise IllegalMove(
                    "5.4", f"cannot take {card_text(top)} from the discard pile: after the first "
                           f"round a player who has not opened may take it only to open in this "
                           f"turn{extra}, and this hand cannot open with it")
            return top
        # the bottom card
        if not self.rules.bottom_card or self.bottom is None:
            raise IllegalMove("5.1", "there is no bottom card (rules.bottom_card is off, or it "
                                     "was taken)")
        if self.opened[p]:
            raise IllegalMove("5.7", "the bottom card may be taken only to win by hand, and "
                                     f"player {p} has already opened")
        if not solver.can_go_out(list(hand) + [self.bottom], self.rules):
            raise IllegalMove("5.7", f"the bottom card {card_text(self.bottom)} may be taken only "
                                     "to win by hand, and this hand cannot go out with it")
        return self.bottom

    def can_draw(self, source: str = STOCK) -> bool:
        try:
            self.verify_draw(source)
        except IllegalMove:
            return False
        return True

    # ------------------------------------------------------------------ lay down
    def verify_lay_down(self, melds, stand_ins=None) -> tuple[list[TableMeld], int]:
        """Raise ``IllegalMove`` unless the player on turn may lay down ``melds``; return the
        table melds they become and their opening value."""
        action = melds if isinstance(melds, LayDown) else LayDown(melds, stand_ins)
        self._in_phase(Phase.PLAY, "lay down melds")
        p = self.current
        ti = self.turn_info
        hand = self._hand()
        if not action.melds:
            raise IllegalMove("3", "a lay-down needs at least one meld")
        built = []
        for i, cards in enumerate(action.melds):
            si = action.stand_ins[i] if action.stand_ins is not None else None
            try:
                built.append(make_meld(cards, self.rules, owner=p, stand_ins=si))
            except MeldError as e:
                raise IllegalMove("3", str(e)) from None
        used = Counter(c for m in action.melds for c in m)
        have = Counter(hand)
        for c, n in used.items():
            if have[c] < n:
                raise IllegalMove("4", f"cannot lay down: the melds use {n} x {card_text(c)} but "
                                       f"player {p} holds {have[c]}")
        n_used = sum(used.values())
        if n_used >= len(hand):
            raise IllegalMove("4", f"cannot lay down {n_used} of {len(hand)} cards: a card must "
                                   "stay in the hand for the discard")
        value = sum(opening_value(cards, self.rules) for cards in action.melds)
        if not self.opened[p]:
            if value < self.rules.threshold:
                raise IllegalMove("4", f"an opening must be worth at least {self.rules.threshold} "
                                       f"(rules.threshold); these melds are worth {value}")
            if ti.must_open and self.rules.discard_card_must_meld and ti.taken not in used:
                raise IllegalMove("5.4", f"the card taken from the discard pile "
                                         f"({card_text(ti.taken)}) must be in the opening melds "
                                         "(rules.discard_card_must_meld)")
        if ti.freed_joker and used[JOKER] < 1:
            raise IllegalMove("5.5", "the swapped joker must go into a new meld: lay down a meld "
                                     "holding it")
        if ti.bottom:
            rest = list(hand)
            for c in used.elements():
                rest.remove(c)
            if not self._finishable(rest):
                raise IllegalMove("5.7", "the bottom card was taken to win by hand: after this "
                                         "lay-down the rest of the hand could not all be laid "
                                         "down but one card")
        return built, value

    def can_lay_down(self, melds, stand_ins=None) -> bool:
        try:
            self.verify_lay_down(melds, stand_ins)
        except (IllegalMove, ValueError):
            return False
        return True

    # ------------------------------------------------------------------ lay off
    def verify_lay_off(self, card, meld_id: int, side: Optional[str] = None) -> TableMeld:
        """Raise ``IllegalMove`` unless the player on turn may lay ``card`` off on meld
        ``meld_id``; return the meld it would become."""
        card = _card(card)
        what = f"lay off {card_text(card)}"
        self._in_phase(Phase.PLAY, what)
        self._common_play(what)
        hand = self._hand()
        self._has(hand, card, what)
        if len(hand) <= 1:
            raise IllegalMove("5.6", "the last card must be discarded: it may not be laid off")
        meld = self._meld(meld_id)
        try:
            return lay_off(meld, card, self.rules, side)
        except MeldError as e:
            raise IllegalMove("3", str(e)) from None

    def can_lay_off(self, card, meld_id: int, side: Optional[str] = None) -> bool:
        try:
            self.verify_lay_off(card, meld_id, side)
        except (IllegalMove, ValueError):
            return False
        return True

    # ------------------------------------------------------------------ joker swap
    def verify_swap_joker(self, card, meld_id: int) -> TableMeld:
        """Raise ``IllegalMove`` unless the player on turn may give ``card`` for the joker of
        meld ``meld_id``; return the meld it would become."""
        card = _card(card)
        what = f"swap {card_text(card)} for a joker"
        self._in_phase(Phase.PLAY, what)
        self._common_play(what)
        hand = self._hand()
        self._has(hand, card, what)
        meld = self._meld(meld_id)
        try:
            new = swap_joker(meld, card, self.rules)
        except MeldError as e:
            raise IllegalMove("5.5", str(e)) from None
        after = list(hand)
        after.remove(card)
        after.append(JOKER)
        if not joker_meld_possible(after, self.rules):
            raise IllegalMove("5.5", "the freed joker must go into a new meld this turn, and no "
                                     "new meld with it (keeping a card to discard) can be made "
                                     "from this hand")
        return new

    def can_swap_joker(self, card, meld_id: int) -> bool:
        try:
            self.verify_swap_joker(card, meld_id)
        except (IllegalMove, ValueError):
            return False
        return True

    # ------------------------------------------------------------------ discard
    def verify_discard(self, card) -> None:
        """Raise ``IllegalMove`` unless the player on turn may discard ``card``."""
        card = _card(card)
        if self.phase is not Phase.PLAY:
            self._in_phase(Phase.PLAY, f"discard {card_text(card)}")
        hand = self._hand()
        if card not in hand:
            self._has(hand, card, f"discard {card_text(card)}")
        ti = self.turn_info
        p = self.current
        if ti.freed_joker:
            raise IllegalMove("5.5", "the swapped joker must go into a new meld before the discard")
        if ti.must_open and not self.opened[p]:
            raise IllegalMove("5.4", f"player {p} took {card_text(ti.taken)} from the discard pile "
                                     "without having opened: they must open before discarding")
        if ti.bottom and len(hand) > 1:
            raise IllegalMove("5.7", "the bottom card was taken to win by hand: lay down all but "
                                     "one card before discarding")
        if (ti.source == DISCARD and card == ti.drawn and len(hand) > 1 and hand.count(card) == 1
                and not _option(self.rules, "discard_taken_card", False)):
            raise IllegalMove("engine", f"the card just taken from the discard pile "
                                        f"({card_text(card)}) may not be discarded in the same turn "
                                        "(unless it is the last card, or the hand holds its twin)")

    def can_discard(self, card) -> bool:
        try:
            self.verify_discard(card)
        except (IllegalMove, ValueError):
            return False
        return True

    # ------------------------------------------------------------------ any action
    def verify(self, action: Action):
        """Raise ``IllegalMove`` unless ``action`` is legal now."""
        if isinstance(action, Draw):
            return self.verify_draw(action.source)
        if isinstance(action, LayDown):
            return self.verify_lay_down(action)
        if isinstance(action, LayOff):
            return self.verify_lay_off(action.card, action.meld_id, action.side)
        if isinstance(action, SwapJoker):
            return self.verify_swap_joker(action.card, action.meld_id)
        if isinstance(action, Discard):
            return self.verify_discard(action.card)
        raise TypeError(f"not an action: {action!r}")

    def is_legal(self, action: Action) -> bool:
        try:
            self.verify(action)
        except (IllegalMove, ValueError):
            return False
        return True

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self) -> list:
        """The moves of the player on turn (OpenSpiel).

        Complete for draws, lay-offs (each fitting side), joker swaps and discards; for
        lay-downs it lists every single meld the hand can make once the player has opened
        (jokers only where a natural card is missing), and before opening the canonical
        openings: the solver's best opening and, when the hand can go out at once, a
        collection laying down all but one card. ``apply`` accepts any other legal
        lay-down too (several melds at once, other stand-ins)."""
        if self.phase is Phase.OVER:
            return []
        if self.phase is Phase.DRAW:
            return [Draw(s) for s in SOURCES if self.can_draw(s)]
        return self._legal_plays()

    def _openings(self, hand: list[int]) -> list[LayDown]:
        """Canonical openings of an unopened hand (see ``legal_actions``)."""
        rules = self.rules
        ti = self.turn_info
        must = ti.taken if (ti.must_open and rules.discard_card_must_meld) else None
        out = []
        if not ti.bottom:
            best = solver.best_opening(hand, rules, keep=1, must_use=must)
            if best.can_open:
                out.append(LayDown.of(best.melds))
                if len(best.leftover) == 1:
                    return out  # the best opening already goes out
        if len(hand) >= 4 and solver.can_go_out(hand, rules):
            melds = go_out_melds(hand, rules)
            if melds is not None and (must is None or any(must in m.cards for m in melds)):
                lay = LayDown.of(melds)
                if lay not in out:
                    out.append(lay)
        return out

    def _legal_plays(self) -> list:
        hand = list(self._hand())
        p = self.current
        ti = self.turn_info
        opened = self.opened[p]
        rules = self.rules
        out: list = []
        if ti.freed_joker:
            out = [LayDown.of([m]) for m in melds_in(hand, rules) if m.jokers]
            for m in joker_melds(hand, rules):
                lay = LayDown.of([m])
                if lay not in out:
                    out.append(lay)
            return out
        if not opened:
            out.extend(self._openings(hand))
        elif len(hand) > 3:
            for m in melds_in(hand, rules):
                lay = LayDown.of([m])
                if ti.bottom:
                    rest = list(hand)
                    for c in m.cards:
                        rest.remove(c)
                    if not self._finishable(rest):
                        continue
                out.append(lay)
        if opened and not ti.bottom and len(hand) > 1:
            held = set(hand)
            for i, meld in enumerate(self.table):
                for c in sorted(held & lay_off_candidates(meld, rules)):
                    for side in lay_off_sides(meld, c, rules):
                        out.append(LayOff(c, i, side))
            for i, meld in enumerate(self.table):
                if meld.jokers:
                    for c in swap_targets(meld):
                        if c in hand:
                            after = list(hand)
                            after.remove(c)
                            after.append(JOKER)
                            if joker_meld_possible(after, rules):
                                out.append(SwapJoker(c, i))
        if ti.must_open and not opened:
            return out
        if ti.bottom and len(hand) > 1:
            return out
        may_taken = _option(rules, "discard_taken_card", False)
        for c in sorted(set(hand)):
            if (ti.source == DISCARD and c == ti.drawn and len(hand) > 1 and hand.count(c) == 1
                    and not may_taken):
                continue
            out.append(Discard(c))
        return out


# --------------------------------------------------------------------------- views
class _Snapshot(_SequenceABC):
    """A read-only view of the first ``n`` items of an append-only list."""

    __slots__ = ("_items", "_n")

    def __init__(self, items: list, n: int):
        self._items = items
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self._items[: self._n][i])
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("history index out of range")
        return self._items[i]

    def __repr__(self) -> str:
        return f"<history of {self._n} records>"


@dataclass(frozen=True, eq=False)
class PlayerView(_MoveRules):
    """What one player may see: their own ``hand``; the table, the discard pile, the bottom
    card (face up), everyone's hand size and whether they opened, the stock's size, this
    turn's ``TurnInfo`` and the public ``history`` (stock draws of others show no card).
    Bots get this and nothing else.

    When it is this player's turn (``player == current``), ``legal_actions()`` and the
    ``verify_x`` / ``can_x`` checks work as on the state."""

    player: int
    rules: RuleSet
    n_players: int
    first: int
    phase: Phase
    turn: int
    current: int
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    opened: tuple[bool, ...]
    table: tuple[TableMeld, ...]
    discard_pile: tuple[int, ...]
    bottom: Optional[int]
    stock_count: int
    turn_info: TurnInfo
    history: Sequence[Record] = field(repr=False, default=())

    def _hand(self) -> Sequence[int]:
        if self.player != self.current:
            raise IllegalMove("engine", f"this is player {self.player}'s view; it is player "
                                        f"{self.current}'s turn")
        return self.hand

    @property
    def stock_size(self) -> int:
        return self.stock_count

    @property
    def my_turn(self) -> bool:
        return self.player == self.current and self.phase is not Phase.OVER

    @property
    def next_player(self) -> int:
        return (self.player + 1) % self.n_players


# --------------------------------------------------------------------------- decks
def normalize_seed(seed):
    """(rng, seed as recorded in JSON: int, {'entropy','spawn_key'} or None)."""
    if isinstance(seed, np.random.Generator):
        return seed, None
    if isinstance(seed, np.random.SeedSequence):
        ss = seed
    elif seed is None:
        ss = np.random.SeedSequence()
    elif isinstance(seed, dict):
        ss = np.random.SeedSequence(int(seed["entropy"]), spawn_key=tuple(seed.get("spawn_key", ())))
    else:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative int, a SeedSequence, a Generator or "
                             f"None, got {seed!r}")
        ss = np.random.SeedSequence(int(seed))
    rec = int(ss.entropy) if not ss.spawn_key else {"entropy": int(ss.entropy),
                                                     "spawn_key": [int(k) for k in ss.spawn_key]}
    return np.random.default_rng(ss), rec


def stacked_deck(rules: RuleSet, hands: Sequence, stock: Iterable = (), bottom=None,
                 players: Optional[int] = None, seed: int = 0) -> list[int]:
    """A full deck order for ``GameState.new(deck=...)`` that deals ``hands`` (seat order
    from the first player: 15 cards, then 14 each; shorter hands are filled up), puts
    ``stock`` on top of the stock (top first) and ``bottom`` as the bottom card. The cards
    not named fill the rest in a seeded random order (``seed``). For scripted tests."""
    n = len(hands) if players is None else players
    pool = Counter(int(c) for c in rules.deck())
    named_hands = [list(to_codes(h)) for h in hands] + [[] for _ in range(n - len(hands))]
    named_stock = list(to_codes(list(stock) if not isinstance(stock, str) else stock))
    named_bottom = None if bottom is None else _card(bottom)
    for c in [c for h in named_hands for c in h] + named_stock + (
            [named_bottom] if named_bottom is not None else []):
        if pool[c] <= 0:
            raise ValueError(f"stacked deck uses {card_text(c)} more often than the deck holds it")
        pool[c] -= 1
    rest = list(pool.elements())
    rng = np.random.default_rng(seed)
    rest = [int(x) for x in rng.permutation(np.array(rest, dtype=np.int64))]
    deck = []
    for i, h in enumerate(named_hands):
        size = rules.hand_size + (1 if i == 0 else 0)
        if len(h) > size:
            raise ValueError(f"stacked hand {i} has {len(h)} cards; it is dealt {size}")
        deck.extend(h)
        while len(deck) < sum(rules.hand_size + (1 if j == 0 else 0) for j in range(i + 1)):
            deck.append(rest.pop())
    deck.extend(named_stock)
    if rules.bottom_card:
        if named_bottom is None:
            named_bottom = rest.pop()
        deck.extend(rest)
        deck.append(named_bottom)
    else:
        if named_bottom is not None:
            raise ValueError("rules.bottom_card is off: there is no bottom card to stack")
        deck.extend(rest)
    return deck


# --------------------------------------------------------------------------- the state
class GameState(_MoveRules):
    """One deal of Rummy 51 (RULES.md sections 5-6). Start one with ``GameState.new``.

    Public attributes (read them, do not change them): ``rules``, ``n_players``, ``first``
    (the first player), ``phase``, ``turn`` (0-based), ``current`` (the player on turn),
    ``hands`` (lists of card codes), ``table`` (``TableMeld``s; a meld's id is its index),
    ``opened``, ``discard_pile`` (top last), ``bottom`` (the bottom card, or None),
    ``turn_info``, ``history`` (every ``Record``, chance steps included), ``actions`` (the
    player actions, for ``replay``), ``result`` (a ``Result`` once over)."""

    def __init__(self):  # use GameState.new
        self.rules: RuleSet
        self.n_players: int
        self.first: int
        self.seed = None
        self.deck: tuple[int, ...] = ()
        self.hands: list[list[int]] = []
        self._stock: list[int] = []  # top of the stock last (pop)
        self.discard_pile: list[int] = []
        self.bottom: Optional[int] = None
        self.table: list[TableMeld] = []
        self.opened: list[bool] = []
        self.phase = Phase.PLAY
        self.turn = 0
        self.current = 0
        self.turn_info = TurnInfo()
        self.history: list[Record] = []
        self.actions: list = []
        self.result: Optional[Result] = None
        self._public: list[Record] = []
        self._rng: Optional[np.random.Generator] = None
        self._forced: list[tuple[int, ...]] = []  # recorded reshuffles (from_json)

    # ------------------------------------------------------------------ creation
    @classmethod
    def new(cls, rules: Optional[RuleSet] = None, players: int = 4, seed=None, deck=None,
            first: int = 0) -> "GameState":
        """Shuffle (seeded) and deal a new deal for ``players`` players; ``first`` is the first
        player (15 cards, no draw on turn 0). ``seed`` is an int, a SeedSequence, a Generator
        or None (fresh entropy, recorded in ``seed``). ``deck`` (for tests, see
        ``stacked_deck``) gives the deck order instead: top first; the first player is dealt
        the first 15 cards, then each next player 14, the rest is the stock (top first) and
        the last card is the bottom card."""
        rules = RuleSet() if rules is None else rules
        if not isinstance(rules, RuleSet):
            raise TypeError(f"rules must be a RuleSet, got {type(rules).__name__}")
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or players < 2:
            raise ValueError(f"players must be an int >= 2, got {players!r}")
        need = players * rules.hand_size + 1 + (1 if rules.bottom_card else 0) + 1
        if need > rules.deck_size:
            raise ValueError(f"{players} players need {need} cards (hands, a stock card"
                             f"{', the bottom card' if rules.bottom_card else ''}) but the deck "
                             f"has {rules.deck_size}")
        if not 0 <= int(first) < players:
            raise ValueError(f"first must be a seat 0..{players - 1}, got {first!r}")
        s = cls()
        s.rules = rules
        s.n_players = int(players)
        s.first = int(first)
        s._rng, s.seed = normalize_seed(seed)
        if deck is None:
            order = [int(c) for c in s._rng.permutation(rules.deck().astype(np.int64))]
        else:
            order = [int(_card(c)) for c in (to_codes(deck) if isinstance(deck, str) else deck)]
            if Counter(order) != Counter(int(c) for c in rules.deck()):
                raise ValueError(f"deck must hold each card of the rule set's {rules.deck_size}-card "
                                 f"deck exactly once per copy; got {len(order)} cards that differ")
        s._deal(order)
        return s

    def _deal(self, order: list[int]) -> None:
        rules = self.rules
        n = self.n_players
        self.deck = tuple(order)
        self.hands = [[] for _ in range(n)]
        pos = 0
        for i in range(n):
            seat = (self.first + i) % n
            size = rules.hand_size + (1 if i == 0 else 0)
            self.hands[seat] = sorted(order[pos:pos + size])
            pos += size
        rest = order[pos:]
        if rules.bottom_card:
            self.bottom = rest[-1]
            rest = rest[:-1]
        self._stock = rest[::-1]
        self.opened = [False] * n
        self.current = self.first
        self.phase = Phase.PLAY
        self.turn = 0
        self.turn_info = TurnInfo(opened_at_start=False)
        self.history.append(ChanceRecord(0, -1, None, "deal", tuple(order)))

    def copy(self) -> "GameState":
        """An independent copy (the RNG state too)."""
        return copy.deepcopy(self)

    # ------------------------------------------------------------------ views
    def _hand(self) -> Sequence[int]:
        return self.hands[self.current]

    @property
    def stock_size(self) -> int:
        return len(self._stock)

    @property
    def stock(self) -> tuple[int, ...]:
        """The stock, top first (hidden from players)."""
        return tuple(reversed(self._stock))

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def view(self, player: Optional[int] = None) -> PlayerView:
        """What ``player`` (default: the player on turn) may see."""
        p = self.current if player is None else int(player)
        if not 0 <= p < self.n_players:
            raise ValueError(f"player must be 0..{self.n_players - 1}, got {player!r}")
        ti = self.turn_info
        if p != self.current and ti.source == STOCK and ti.drawn is not None:
            ti = _replace_ti(ti, drawn=None)
        return _make(PlayerView, {
            "player": p, "rules": self.rules, "n_players": self.n_players, "first": self.first,
            "phase": self.phase, "turn": self.turn, "current": self.current,
            "hand": tuple(self.hands[p]), "hand_sizes": tuple(map(len, self.hands)),
            "opened": tuple(self.opened), "table": tuple(self.table),
            "discard_pile": tuple(self.discard_pile), "bottom": self.bottom,
            "stock_count": len(self._stock), "turn_info": ti,
            "history": _Snapshot(self._public, len(self._public)),
        })

    # ------------------------------------------------------------------ moves
    def _record(self, rec: Record, public: Optional[Record] = None) -> Record:
        self.history.append(rec)
        self._public.append(rec if public is None else public)
        return rec

    def draw(self, source: str = STOCK) -> DrawRecord:
        """Draw from ``source`` (``'stock'``, ``'discard'``, ``'bottom'``)."""
        self.verify_draw(source)
        p = self.current
        opened = self.opened[p]
        if source == STOCK:
            card = self._stock.pop()
        elif source == DISCARD:
            card = self.discard_pile.pop()
        else:
            card = self.bottom
            self.bottom = None
        self.hands[p].append(card)
        self.hands[p].sort()
        self.turn_info = _replace_ti(
            self.turn_info, source=source, drawn=card,
            must_open=(source == DISCARD and not opened and not self.free_round()),
            bottom=(source == BOTTOM))
        self.phase = Phase.PLAY
        action = _DRAWS[source]
        self.actions.append(action)
        rec = _make(DrawRecord, {"turn": self.turn, "player": p, "action": action, "card": card})
        pub = (_make(DrawRecord, {"turn": self.turn, "player": p, "action": action, "card": None})
               if source == STOCK else rec)
        return self._record(rec, pub)

    def lay_down(self, melds, stand_ins=None) -> LayDownRecord:
        """Lay down ``melds`` (an opening if the player has not opened)."""
        action = melds if isinstance(melds, LayDown) else LayDown(melds, stand_ins)
        built, value = self.verify_lay_down(action)
        p = self.current
        hand = self.hands[p]
        for m in action.melds:
            for c in m:
                hand.remove(c)
        ids = []
        for m in built:
            ids.append(len(self.table))
            self.table.append(m)
        opening = not self.opened[p]
        self.opened[p] = True
        if self.turn_info.freed_joker:
            self.turn_info = _replace_ti(self.turn_info, freed_joker=False)
        self.actions.append(action)
        return self._record(LayDownRecord(self.turn, p, action, tuple(ids), value, opening))

    def lay_off(self, card, meld_id: int, side: Optional[str] = None) -> LayOffRecord:
        """Lay ``card`` off on meld ``meld_id``."""
        action = LayOff(card, meld_id, side)
        new = self.verify_lay_off(action.card, action.meld_id, action.side)
        p = self.current
        self.hands[p].remove(action.card)
        self.table[action.meld_id] = new
        if new.owner != p and not self.turn_info.touched_others:
            self.turn_info = _replace_ti(self.turn_info, touched_others=True)
        self.actions.append(action)
        return self._record(LayOffRecord(self.turn, p, action, new))

    def swap_joker(self, card, meld_id: int) -> SwapRecord:
        """Give ``card`` for the joker of meld ``meld_id`` that stands for it."""
        action = SwapJoker(card, meld_id)
        new = self.verify_swap_joker(action.card, action.meld_id)
        p = self.current
        hand = self.hands[p]
        hand.remove(action.card)
        hand.append(JOKER)
        hand.sort()
        self.table[action.meld_id] = new
        self.turn_info = _replace_ti(
            self.turn_info, freed_joker=True,
            touched_others=self.turn_info.touched_others or new.owner != p)
        self.actions.append(action)
        return self._record(SwapRecord(self.turn, p, action, new))

    def discard(self, card) -> DiscardRecord:
        """Discard ``card``: the turn ends (and the deal, if it was the last card)."""
        action = card if type(card) is Discard else Discard(card)
        self.verify_discard(action.card)
        p = self.current
        hand = self.hands[p]
        hand.remove(action.card)
        self.discard_pile.append(action.card)
        self.actions.append(action)
        outcome = None
        if not hand:
            ti = self.turn_info
            if not ti.opened_at_start and not ti.touched_others:
                outcome = "hand_bottom" if ti.bottom else "hand"
            else:
                outcome = "out"
        rec = self._record(_make(DiscardRecord, {"turn": self.turn, "player": p,
                                                 "action": action, "outcome": outcome}))
        if outcome is not None:
            self._end(p, outcome)
        else:
            self._next_turn()
        return rec

    def apply(self, action: Action) -> Record:
        """Make the move ``action`` and return its record (``IllegalMove`` if not legal; the
        state is then unchanged)."""
        if isinstance(action, Draw):
            return self.draw(action.source)
        if isinstance(action, LayDown):
            return self.lay_down(action)
        if isinstance(action, LayOff):
            return self.lay_off(action.card, action.meld_id, action.side)
        if isinstance(action, SwapJoker):
            return self.swap_joker(action.card, action.meld_id)
        if isinstance(action, Discard):
            return self.discard(action)
        raise TypeError(f"not an action: {action!r} (Draw, LayDown, LayOff, SwapJoker or Discard)")

    # ------------------------------------------------------------------ turns and the end
    def _next_turn(self) -> None:
        if self.turn + 1 >= self.rules.max_turns:
            self._end(None, "capped")
            return
        self.turn += 1
        self.current = (self.current + 1) % self.n_players
        self.phase = Phase.DRAW
        self.turn_info = _TURN_START[self.opened[self.current]]
        if not self._stock:
            self._refill_stock()

    def _refill_stock(self) -> None:
        """RULES.md 5.8: the discard pile but its top card becomes the new stock, shuffled
        (a chance step); if that is off or impossible the deal ends as a draw."""
        if not self.rules.reshuffle_stock or len(self.discard_pile) < 2:
            self._end(None, "stock_out")
            return
        pile = self.discard_pile[:-1]
        if self._forced:
            order = list(self._forced.pop(0))
            if Counter(order) != Counter(pile):
                raise ValueError("the recorded reshuffle does not hold the cards of the discard pile")
        else:
            order = [int(c) for c in self._rng.permutation(np.array(pile, dtype=np.int64))]
        self.discard_pile = self.discard_pile[-1:]
        self._stock = order[::-1]
        rec = ChanceRecord(self.turn, -1, None, "reshuffle", tuple(order))
        self._record(rec, ChanceRecord(self.turn, -1, None, "reshuffle", ()))

    def _end(self, winner: Optional[int], how: str) -> None:
        self.phase = Phase.OVER
        self.result = Result(winner, how, self._scores(winner, how))

    def _scores(self, winner: Optional[int], how: str) -> tuple[int, ...]:
        r = self.rules
        n = self.n_players
        if winner is None:
            if _option(r, "draw_scoring", "zero") == "zero":
                return (0,) * n
            return tuple(self._hand_points(p) for p in range(n))
        base = {"out": r.score_out, "hand": r.score_hand, "hand_bottom": r.score_hand_bottom}[how]
        mult = 2 if how != "out" and r.hand_doubles else 1
        return tuple(base if p == winner else mult * self._hand_points(p) for p in range(n))

    def _hand_points(self, p: int) -> int:
        if not self.opened[p]:
            return self.rules.score_unopened
        return sum(card_value(c, self.rules) for c in self.hands[p])

    def scores(self) -> tuple[int, ...]:
        """Each player's points for the deal (RULES.md 6; lower is better). Only once over."""
        if self.result is None:
            raise ValueError("scores() exists only once the deal is over (phase OVER)")
        return self.result.scores

    # ------------------------------------------------------------------ checks
    def check(self) -> None:
        """Raise ``AssertionError`` if an invariant is broken: every card of the deck is in
        exactly one place, no card held more than ``rules.decks`` times (jokers: ``jokers``),
        every table meld valid, hands non-empty while the deal runs, scores consistent."""
        r = self.rules
        places = [c for h in self.hands for c in h] + self._stock + self.discard_pile
        places += [c for m in self.table for c in m.cards]
        if self.bottom is not None:
            places.append(self.bottom)
        assert Counter(places) == Counter(int(c) for c in r.deck()), "cards not accounted for"
        for p, h in enumerate(self.hands):
            cnt = Counter(h)
            for c, k in cnt.items():
                assert k <= (r.jokers if c == JOKER else r.decks), f"player {p} holds {k} x {c}"
            if self.phase is not Phase.OVER:
                assert h, f"player {p} has an empty hand while the deal runs"
        for i, m in enumerate(self.table):
            try:
                check_meld(m, r)
            except MeldError as e:  # pragma: no cover - a bug
                raise AssertionError(f"table meld {i}: {e}") from None
            assert self.opened[m.owner], f"meld {i} belongs to unopened player {m.owner}"
        if self.phase is not Phase.OVER:
            assert self._stock or self.phase is not Phase.DRAW, "empty stock at a draw"
            assert self.turn < r.max_turns
        else:
            res = self.result
            assert res is not None and len(res.scores) == self.n_players
            assert res.scores == self._scores(res.winner, res.how)
            if res.winner is not None:
                assert not self.hands[res.winner], "the winner still holds cards"
                assert sum(1 for h in self.hands if not h) == 1

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        """The hand history as a JSON-ready dict: rules, players, first player, seed, the
        deck order, every reshuffle, the actions and the result."""
        return {
            "format": HISTORY_FORMAT,
            "version": FORMAT_VERSION,
            "rules": rules_to_dict(self.rules, full=True),
            "players": self.n_players,
            "first": self.first,
            "seed": self.seed,
            "deck": cards_text(self.deck).split(),
            "reshuffles": [cards_text(r.cards).split() for r in self.history
                           if isinstance(r, ChanceRecord) and r.kind == "reshuffle"],
            "actions": [action_to_json(a) for a in self.actions],
            "result": None if self.result is None else {
                "winner": self.result.winner, "how": self.result.how,
                "scores": list(self.result.scores)},
        }

    def to_json(self, indent: Optional[int] = None) -> str:
        """The hand history as JSON text (see ``to_dict``)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: dict) -> "GameState":
        """Rebuild a deal from its hand history, replaying every action (the recorded deck
        and reshuffles are used, no RNG); a recorded result must match."""
        if d.get("format") != HISTORY_FORMAT:
            raise ValueError(f"not a rummy51 hand history (format {d.get('format')!r})")
        if d.get("version") != FORMAT_VERSION:
            raise ValueError(f"hand history version {d.get('version')!r} is not supported "
                             f"(this is version {FORMAT_VERSION})")
        rules = rules_from_dict(d["rules"], strict=True)
        s = cls.new(rules, players=int(d["players"]), seed=d.get("seed"),
                    deck=to_codes(d["deck"]), first=int(d.get("first", 0)))
        s._forced = [tuple(to_codes(r)) for r in d.get("reshuffles", [])]
        for i, a in enumerate(d["actions"]):
            try:
                s.apply(action_from_json(a))
            except IllegalMove as e:
                raise ValueError(f"hand history action {i} ({a}) is illegal: {e}") from None
        res = d.get("result")
        if res is not None:
            got = None if s.result is None else {"winner": s.result.winner, "how": s.result.how,
                                                 "scores": list(s.result.scores)}
            if got != res:
                raise ValueError(f"hand history result {res} differs from the replayed {got}")
        return s

    @classmethod
    def from_json(cls, text: str) -> "GameState":
        """Rebuild a deal from JSON text (see ``from_dict``)."""
        return cls.from_dict(json.loads(text))

    def __repr__(self) -> str:
        return (f"<GameState {self.n_players} players, turn {self.turn}, player {self.current}, "
                f"{self.phase.value}>")


def action_to_json(a: Action) -> dict:
    """One action as a JSON-ready dict (cards in text notation)."""
    if isinstance(a, Draw):
        return {"draw": a.source}
    if isinstance(a, LayDown):
        d: dict = {"lay_down": [cards_text(m).split() for m in a.melds]}
        if a.stand_ins is not None:
            d["stand_ins"] = [None if s is None else cards_text(s).split() for s in a.stand_ins]
        return d
    if isinstance(a, LayOff):
        d = {"lay_off": card_text(a.card), "meld": a.meld_id}
        if a.side is not None:
            d["side"] = a.side
        return d
    if isinstance(a, SwapJoker):
        return {"swap": card_text(a.card), "meld": a.meld_id}
    if isinstance(a, Discard):
        return {"discard": card_text(a.card)}
    raise TypeError(f"not an action: {a!r}")


def action_from_json(d: dict) -> Action:
    """The inverse of ``action_to_json``."""
    if "draw" in d:
        return Draw(d["draw"])
    if "lay_down" in d:
        return LayDown(tuple(tuple(to_codes(m)) for m in d["lay_down"]), d.get("stand_ins"))
    if "lay_off" in d:
        return LayOff(d["lay_off"], d["meld"], d.get("side"))
    if "swap" in d:
        return SwapJoker(d["swap"], d["meld"])
    if "discard" in d:
        return Discard(d["discard"])
    raise ValueError(f"not an action: {d!r}")


def replay(rules: Optional[RuleSet], seed, actions: Iterable[Action], players: int = 4,
           first: int = 0, deck=None) -> GameState:
    """The deal given by ``(rules, seed, actions)``: a new state with that seed, every action
    applied in order. ``seed`` must be the recorded one (an int; ``state.seed``)."""
    s = GameState.new(rules, players=players, seed=seed, deck=deck, first=first)
    for a in actions:
        s.apply(a)
    return s


# --------------------------------------------------------------------------- matches
class Match:
    """A series of deals (RULES.md 6): deal k's first player is ``(first + k) % players``
    (the deal passes to the next player), totals add up. The match ends after
    ``rules.match_deals`` deals, or once a total reaches ``rules.match_points``; with both
    None it is a single deal. Deal k is seeded by ``SeedSequence(entropy, spawn_key=(k,))``.

    >>> from rummy51 import RuleSet
    >>> m = Match(RuleSet(match_deals=2), players=3, seed=1)
    >>> d = m.new_deal(); d.first
    0
    """

    def __init__(self, rules: Optional[RuleSet] = None, players: int = 4, seed=None,
                 first: int = 0):
        self.rules = RuleSet() if rules is None else rules
        self.n_players = int(players)
        self.first = int(first)
        if seed is None:
            seed = np.random.SeedSequence().entropy
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"a match seed must be a non-negative int or None, got {seed!r}")
        self.seed = int(seed)
        self.deals: list[GameState] = []
        self.totals = [0] * self.n_players
        self._current: Optional[GameState] = None

    @property
    def over(self) -> bool:
        r = self.rules
        k = len(self.deals)
        if r.match_deals is None and r.match_points is None:
            return k >= 1
        if r.match_deals is not None and k >= r.match_deals:
            return True
        if r.match_points is not None and any(t >= r.match_points for t in self.totals):
            return True
        return False

    def deal_seed(self, k: int) -> np.random.SeedSequence:
        return np.random.SeedSequence(self.seed, spawn_key=(k,))

    def new_deal(self) -> GameState:
        """The next deal (play it, then ``record`` it)."""
        if self.over:
            raise ValueError("the match is over")
        if self._current is not None and not self._current.over:
            raise ValueError("the current deal is not over: finish and record it first")
        k = len(self.deals)
        self._current = GameState.new(self.rules, self.n_players, seed=self.deal_seed(k),
                                      first=(self.first + k) % self.n_players)
        return self._current

    def record(self, state: GameState) -> None:
        """Add a finished deal's scores to the totals."""
        if not state.over:
            raise ValueError("record() takes a finished deal")
        if state is not self._current:
            raise ValueError("record() takes the deal new_deal() returned")
        self.deals.append(state)
        self._current = None
        for p, s in enumerate(state.scores()):
            self.totals[p] += s

    def standings(self) -> list[int]:
        """Seats from best (lowest total) to worst."""
        return sorted(range(self.n_players), key=lambda p: (self.totals[p], p))

    def to_dict(self) -> dict:
        return {"format": MATCH_FORMAT, "version": FORMAT_VERSION,
                "rules": rules_to_dict(self.rules, full=True), "players": self.n_players,
                "first": self.first, "seed": self.seed, "totals": list(self.totals),
                "deals": [d.to_dict() for d in self.deals]}

    def to_json(self, indent: Optional[int] = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: dict) -> "Match":
        if d.get("format") != MATCH_FORMAT:
            raise ValueError(f"not a rummy51 match (format {d.get('format')!r})")
        m = cls(rules_from_dict(d["rules"], strict=True), int(d["players"]), int(d["seed"]), int(d["first"]))
        for dd in d["deals"]:
            m._current = GameState.from_dict(dd)
            m.record(m._current)
        if m.totals != list(d["totals"]):
            raise ValueError(f"match totals {d['totals']} differ from the replayed {m.totals}")
        return m

    @classmethod
    def from_json(cls, text: str) -> "Match":
        return cls.from_dict(json.loads(text))
