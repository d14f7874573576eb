"""The Rummy 51 vocabulary of a deal: phases, ``IllegalMove``, the action objects, the records a move
returns, ``TurnInfo`` and ``Result``, and actions as JSON."""
from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..cards import JOKER, card_text, cards_text, to_codes
from ..common.errors import IllegalMove as _IllegalMove
from ._args import as_card, as_meld_id, meld_codes
from .melds import (
    HIGH,
    LOW,
    TableMeld,
)

STOCK, DISCARD, BOTTOM = "stock", "discard", "bottom"
SOURCES = (STOCK, DISCARD, BOTTOM)
HISTORY_FORMAT = "rummy51/hand-history"
MATCH_FORMAT = "rummy51/match"
FORMAT_VERSION = 1

# --------------------------------------------------------------------------- phases, errors
class Phase(enum.Enum):
    """What the deal waits for."""

    DRAW = "draw"  # the player on turn draws
    PLAY = "play"  # the player lays down / lays off / swaps, then discards
    OVER = "over"  # the deal has ended


class IllegalMove(_IllegalMove):
    """A move the rules do not allow; ``rule`` names the docs/rules.md section broken
    (``"5.4"``) or ``"engine"`` for a choice documented in docs/engine.md. A subclass
    of ``rummy51.IllegalMove`` (a ``ValueError``), the base of every game's refusals."""

    RULES = "docs/rules.md"



@dataclass(frozen=True)
class Draw:
    """Draw one card: from the top of the ``"stock"``, the top of the ``"discard"`` pile,
    or the ``"bottom"`` card (only to win by hand, docs/rules.md 5.7)."""

    source: str = STOCK

    def __post_init__(self) -> None:
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
    stand_ins: tuple | None = None

    def __post_init__(self) -> None:
        melds: tuple[tuple[int, ...], ...]
        if isinstance(self.melds, (str, TableMeld)):
            melds = (meld_codes(self.melds),)
        else:
            melds = tuple(meld_codes(m) for m in self.melds)
        object.__setattr__(self, "melds", melds)
        if self.stand_ins is not None:
            si = tuple(None if s is None else tuple(to_codes(s)) for s in self.stand_ins)
            if len(si) != len(melds):
                raise ValueError(f"LayDown has {len(melds)} melds but {len(si)} stand_ins entries")
            object.__setattr__(self, "stand_ins", None if all(s is None for s in si) else si)

    @classmethod
    def of(cls, melds: Iterable) -> LayDown:
        """A LayDown of the solver's ``Meld`` or ``TableMeld`` objects, stand-ins kept."""
        melds = list(melds)
        cards = tuple(tuple(m.cards) for m in melds)
        si = tuple(tuple(r for c, r in zip(m.cards, m.represents, strict=True) if c == JOKER) or None
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
    side: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "card", as_card(self.card))
        object.__setattr__(self, "meld_id", as_meld_id(self.meld_id))
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

    def __post_init__(self) -> None:
        object.__setattr__(self, "card", as_card(self.card))
        object.__setattr__(self, "meld_id", as_meld_id(self.meld_id))

    def text(self) -> str:
        return f"swap {card_text(self.card)} for the joker of meld {self.meld_id}"


@dataclass(frozen=True)
class Discard:
    """Discard ``card``, ending the turn (and the deal, if it was the last card)."""

    card: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "card", as_card(self.card))

    def text(self) -> str:
        return f"discard {card_text(self.card)}"


Action = Draw | LayDown | LayOff | SwapJoker | Discard


# --------------------------------------------------------------------------- records
@dataclass(frozen=True)
class Record:
    """What a move did: its ``turn`` (0-based, in the deal), ``player`` and ``action``."""

    turn: int
    player: int
    action: Any


@dataclass(frozen=True)
class DrawRecord(Record):
    card: int | None = None  # the card drawn (None in other players' views of a stock draw)


@dataclass(frozen=True)
class LayDownRecord(Record):
    meld_ids: tuple = ()  # ids of the new table melds
    value: int = 0  # their opening value (docs/rules.md 2-3)
    opening: bool = False  # this lay-down opened the player


@dataclass(frozen=True)
class LayOffRecord(Record):
    meld: TableMeld | None = None  # the meld after the lay-off


@dataclass(frozen=True)
class SwapRecord(Record):
    meld: TableMeld | None = None  # the meld after the swap


@dataclass(frozen=True)
class DiscardRecord(Record):
    outcome: str | None = None  # None, or how the player went out: 'out', 'hand', 'hand_bottom'


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

    source: str | None = None  # where the player drew from (None: not yet / first turn)
    drawn: int | None = None  # the card drawn
    must_open: bool = False  # took the discard after the free rounds while unopened: must open now
    bottom: bool = False  # took the bottom card: must win by hand this turn
    freed_joker: bool = False  # swapped a joker that must go into a new meld (next move)
    opened_at_start: bool = False  # had opened before this turn (then no win by hand)
    touched_others: bool = False  # laid off on / swapped from another player's meld (no hand win)

    @property
    def taken(self) -> int | None:
        """The card taken from the discard pile this turn, if any."""
        return self.drawn if self.source == DISCARD else None


# shared immutable objects of every turn

@dataclass(frozen=True)
class Result:
    """How a deal ended. ``how``: ``'out'``, ``'hand'``, ``'hand_bottom'`` (a winner), or
    ``'capped'`` (``rules.max_turns`` reached) / ``'stock_out'`` (the stock ran out and
    could not be refilled): a draw, ``winner`` None."""

    winner: int | None
    how: str
    scores: tuple[int, ...]

    @property
    def draw(self) -> bool:
        return self.winner is None


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
