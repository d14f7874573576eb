"""The Carousel vocabulary of a game: phases, ``IllegalMove``, the actions, the records a
move returns, ``TurnInfo``, ``RoundResult`` and actions as JSON (docs/rules-carousel.md
sections 3, 5 and 6).

A meld play is a whole new table (``Meld(melds)``), written like the solver's tables:
each meld a list of cards, a table joker with the card it stands for (``JK(8S)`` or
``[52, 7]``)::

    >>> Meld(["6S 7S JK(8S)", "9H 9D 9C"]).text()
    'meld 6S 7S JK(8S) | 9H 9D 9C'
    >>> action_from_json(action_to_json(Meld(["6S 7S JK(8S)"]))) == Meld(["6S 7S JK(8S)"])
    True
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Any

from ..cards import JOKER, card_text, parse_card
from ..common.errors import IllegalMove as _IllegalMove
from .table import TableMeld

__all__ = [
    "Phase", "IllegalMove", "Draw", "Meld", "Knock", "Pass", "Action", "Record",
    "DealRecord", "DrawRecord", "MeldRecord", "KnockRecord", "PassRecord", "RoundRecord",
    "TurnInfo", "RoundResult", "action_to_json", "action_from_json", "HISTORY_FORMAT",
    "FORMAT_VERSION", "meld_items",
]

HISTORY_FORMAT = "rummy51/carousel-history"
FORMAT_VERSION = 1


class Phase(enum.Enum):
    """What the game waits for (docs/rules-carousel.md 3.3-3.5)."""

    DRAW = "draw"        # a turn starts: the player draws
    MELD = "meld"        # after the first or second draw: meld once, or draw again
    NO_DRAW = "no_draw"  # no draw left (the stock ran out, or a last turn): meld once or pass
    END = "end"          # the end of the turn: knock (5 points or fewer) or pass
    OVER = "over"        # the game has ended (a total reached the target)


class IllegalMove(_IllegalMove):
    """A move the rules do not allow; ``rule`` names the docs/rules-carousel.md section
    broken (``"3.3"``), or ``"engine"`` for a choice listed in docs/carousel.md.

    A subclass of ``rummy51.IllegalMove`` (a ``ValueError``), as Rummy 51's is: one
    ``except`` catches the refusals of both engines."""

    RULES = "docs/rules-carousel.md"


# --------------------------------------------------------------------------- actions
@dataclass(frozen=True)
class Draw:
    """Draw the top card of the stock (3.3); when the stock is empty the draw finds
    nothing and the drawing of the turn stops (3.5)."""

    def text(self) -> str:
        return "draw"


_JOKER_DECL = re.compile(r"^(?:JK|\*|JOKER)\((.+)\)$", re.IGNORECASE)


def _slot(tok: Any) -> int | tuple[int, int]:
    """One card of a meld: a natural code, or ``(52, declared)`` for a joker."""
    if isinstance(tok, str):
        m = _JOKER_DECL.match(tok.strip())
        if m:
            return (JOKER, parse_card(m.group(1).strip()))
        return parse_card(tok.strip())
    if isinstance(tok, (list, tuple)):
        if len(tok) != 2:
            raise ValueError(f"{list(tok)!r} is not a table joker; write [52, declared]")
        return (int(tok[0]), int(tok[1]))
    if isinstance(tok, bool):
        raise TypeError(f"{tok!r} is not a card code")
    return int(tok)


def _meld_slots(meld: Any) -> tuple:
    if isinstance(meld, TableMeld):
        return tuple((JOKER, r) if c == JOKER else c
                     for c, r in zip(meld.cards, meld.represents, strict=True))
    if isinstance(meld, str):
        return tuple(_slot(t) for t in meld.replace(",", " ").split())
    return tuple(_slot(t) for t in meld)


def short_repr(x: object, limit: int = 60) -> str:
    """``repr(x)`` on one line, cut to ``limit`` characters."""
    try:
        r = repr(x)
    except Exception:  # pragma: no cover - a repr that fails
        r = f"<{type(x).__name__}>"
    r = " ".join(r.split())
    return r if len(r) <= limit else r[:limit - 3] + "..."


_MELDS_ARE = ("the whole new table: a Meld, a str of melds split by '|' "
              "('4S 5S 6S | 9H 9D JK(9C)') or a list of melds (each a str, a TableMeld "
              "or a list of cards)")


def meld_items(melds: Any) -> list:
    """The melds of a meld play as a list (each a str, a ``TableMeld``, or a list or
    tuple of cards), from what ``Meld`` and ``GameState.meld`` take: a ``Meld``, one
    str (melds split by ``|``), one ``TableMeld``, or a list or tuple of melds.
    Anything else is ``IllegalMove`` naming the argument (``rule`` "engine")."""
    if isinstance(melds, Meld):
        return list(melds.melds)
    if isinstance(melds, str):
        return melds.split("|")
    if isinstance(melds, TableMeld):
        return [melds]
    if not isinstance(melds, (list, tuple)):
        raise IllegalMove("engine", f"melds must be {_MELDS_ARE}; got {type(melds).__name__} "
                                    f"{short_repr(melds)}")
    for i, m in enumerate(melds):
        if not isinstance(m, (str, TableMeld, list, tuple)):
            raise IllegalMove("engine", f"melds[{i}] must be a meld (a str like '4S 5S 6S', "
                                        f"a TableMeld or a list of cards); got "
                                        f"{type(m).__name__} {short_repr(m)}")
    return list(melds)


@dataclass(frozen=True)
class Meld:
    """One meld play (section 4): ``melds`` is the whole table after the play, each meld
    its cards with every joker's declared card (``"4S 5S JK(6S)"``, ``[[52, 5], 3, 4]``
    or a ``TableMeld``). Held as tuples of slots: a natural code, a joker ``(52, d)``;
    it is checked against the table and the hand when it is played."""

    melds: tuple

    def __post_init__(self) -> None:
        slots = []
        for i, x in enumerate(meld_items(self.melds)):
            try:
                slots.append(_meld_slots(x))
            except (ValueError, TypeError) as e:
                raise IllegalMove("2", f"meld {i + 1} ({short_repr(x)}) is not a meld of cards: "
                                       f"{e}") from None
        object.__setattr__(self, "melds", tuple(slots))

    def text(self) -> str:
        def one(s: int | tuple[int, int]) -> str:
            return f"JK({card_text(s[1])})" if isinstance(s, tuple) else card_text(s)
        return "meld " + " | ".join(" ".join(one(s) for s in m) for m in self.melds)


@dataclass(frozen=True)
class Knock:
    """End the round with 5 points or fewer in hand, at the end of the turn (3.4)."""

    def text(self) -> str:
        return "knock"


@dataclass(frozen=True)
class Pass:
    """End the turn without knocking (or, with no draw left, without melding)."""

    def text(self) -> str:
        return "pass"


Action = Draw | Meld | Knock | Pass


# --------------------------------------------------------------------------- records
@dataclass(frozen=True)
class Record:
    """What a move did: its ``turn`` (0-based, in the round), ``round`` and ``player``."""

    round: int
    turn: int
    player: int
    action: Any


@dataclass(frozen=True)
class DealRecord(Record):
    """The chance step of a round: ``dealer`` and ``deck`` (top first; hidden in views)."""

    dealer: int = 0
    deck: tuple = ()


@dataclass(frozen=True)
class DrawRecord(Record):
    card: int | None = None  # None: the stock was empty, or another player's view
    empty: bool = False         # the draw found the stock empty (3.5)


@dataclass(frozen=True)
class MeldRecord(Record):
    played: tuple = ()          # the hand cards placed (sorted codes, 52 = joker)
    table: tuple = ()           # the table after the play (TableMelds)
    went_out: bool = False


@dataclass(frozen=True)
class KnockRecord(Record):
    points: int = 0


@dataclass(frozen=True)
class PassRecord(Record):
    pass


@dataclass(frozen=True)
class RoundRecord(Record):
    """The scoring of a round (public: the hands are shown for the count)."""

    result: Any = None


@dataclass(frozen=True)
class TurnInfo:
    """The turn so far: ``draws`` made (an empty draw counts), whether the player
    ``melded``, and whether this is a ``last`` turn after the stock ran out."""

    draws: int = 0
    melded: bool = False
    last: bool = False


@dataclass(frozen=True)
class RoundResult:
    """How a round ended (section 5). ``how``: ``"knock"``, ``"out"`` (a player melded
    every card) or ``"stock"`` (the stock ran out, no knocker). ``knocker`` is the player
    who knocked or went out (None for ``"stock"``); ``points`` every hand's count;
    ``winners`` the seats that won; ``scores`` the round's scores; ``undercut`` whether
    the winners beat (or tied) a knocker; ``turns`` the turns played."""

    round: int
    dealer: int
    how: str
    knocker: int | None
    points: tuple[int, ...]
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    undercut: bool
    turns: int

    def to_dict(self) -> dict:
        return {"round": self.round, "dealer": self.dealer, "how": self.how,
                "knocker": self.knocker, "points": list(self.points),
                "winners": list(self.winners), "scores": list(self.scores),
                "undercut": self.undercut, "turns": self.turns}

    @classmethod
    def from_dict(cls, d: dict) -> RoundResult:
        return cls(int(d["round"]), int(d["dealer"]), str(d["how"]),
                   None if d["knocker"] is None else int(d["knocker"]),
                   tuple(map(int, d["points"])), tuple(map(int, d["winners"])),
                   tuple(map(int, d["scores"])), bool(d["undercut"]), int(d["turns"]))


# --------------------------------------------------------------------------- JSON
def _slot_text(s: int | tuple[int, int]) -> str:
    return f"JK({card_text(s[1])})" if isinstance(s, tuple) else card_text(s)


def action_to_json(a: Action) -> dict:
    """One action as a JSON-ready dict (cards in text notation)."""
    if isinstance(a, Draw):
        return {"draw": True}
    if isinstance(a, Meld):
        return {"meld": [" ".join(_slot_text(s) for s in m) for m in a.melds]}
    if isinstance(a, Knock):
        return {"knock": True}
    if isinstance(a, Pass):
        return {"pass": True}
    raise TypeError(f"not a Carousel action: {a!r}")


def action_from_json(d: dict) -> Action:
    """The inverse of ``action_to_json``."""
    if "draw" in d:
        return Draw()
    if "meld" in d:
        return Meld(tuple(d["meld"]))
    if "knock" in d:
        return Knock()
    if "pass" in d:
        return Pass()
    raise ValueError(f"not a Carousel action: {d!r}")
