"""What the engines of both games share: the prologue of a game state (its hands and
stock, its history and the public history the views show, fast copies, its RNG) and of
a player's view (the hand that is only the viewer's on their turn)."""
from __future__ import annotations

import enum
import warnings
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

import numpy as np

from .errors import IllegalMove
from .history import HistoryView

__all__ = ["StateBase", "ViewBase", "deprecated_clone"]

_S = TypeVar("_S", bound="StateBase")
_R = TypeVar("_R")


def deprecated_clone(owner: str) -> Any:
    """A ``clone()`` method that warns and returns ``self.copy()`` (``copy()`` is the one
    name of a state's copy; ``clone()`` stays for one release)."""
    def clone(self: Any) -> Any:
        warnings.warn(f"{owner}.clone() is deprecated: use copy() (the same fast copy)",
                      DeprecationWarning, stacklevel=2)
        return self.copy()

    clone.__doc__ = f"Deprecated: ``copy()`` (``{owner}.clone()`` is kept for one release)."
    return clone


class StateBase:
    """The base of a game's state (``rummy51.r51.GameState``, ``rummy51.carousel.engine.
    GameState``): the attributes below are set by the game's ``new``; the game sets
    ``_OVER`` (its phase of a finished game)."""

    #: the phase of a game that has ended (each game's ``Phase.OVER``)
    _OVER: ClassVar[enum.Enum]
    #: the attributes holding lists of lists, copied two deep by ``copy()``
    _NESTED: ClassVar[frozenset[str]] = frozenset({"hands"})

    hands: list[list[int]]
    _stock: list[int]            # top of the stock last (pop)
    current: int
    phase: Any                   # the game's Phase
    seed: Any
    history: list
    _public: list
    _rng: np.random.Generator | None
    _forced: list

    # ------------------------------------------------------------------ reading
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
        return self.phase is self._OVER

    def _public_history(self) -> HistoryView:
        """What a view shows of the history: the public records so far."""
        return HistoryView(self._public, len(self._public))

    def _record(self, rec: _R, public: Any = None) -> _R:
        """Append ``rec`` to the history and ``public`` (default ``rec``: a record with
        nothing hidden) to the public history."""
        self.history.append(rec)
        self._public.append(rec if public is None else public)
        return rec

    # ------------------------------------------------------------------ copies
    def copy(self: _S) -> _S:
        """An independent copy, fast (tree search copies a state per simulated move; see
        bench/README.md, section Doors): the lists are copied (the hands two deep), the
        immutable records, melds and rules are shared, and the RNG's state is copied now
        but a generator is built from it only when a shuffle needs it."""
        s = object.__new__(type(self))
        nested = self._NESTED
        d: dict[str, Any] = {}
        for k, v in self.__dict__.items():
            t = type(v)
            if t is list:
                d[k] = [x[:] for x in v] if k in nested else v[:]
            elif t is dict:
                d[k] = dict(v)
            else:
                d[k] = v
        rng = self._rng
        if rng is not None:
            bg = rng.bit_generator
            d["_rng"] = None
            d["_rng_state"] = (type(bg), bg.state)
        s.__dict__ = d
        return s

    def _generator(self) -> np.random.Generator:
        """The state's RNG; a copy builds it from the state ``copy()`` took."""
        if self._rng is None:
            snap = self.__dict__.pop("_rng_state", None)
            if snap is None:  # pragma: no cover - every dealt state has an RNG
                self._rng = np.random.default_rng()
            else:
                bg = snap[0](0)
                bg.state = snap[1]
                self._rng = np.random.Generator(bg)
        return self._rng

    def rng_copy(self) -> np.random.Generator:
        """A copy of the state's RNG where it stands (its next shuffle's draws); the
        state's own is not advanced by drawing from it."""
        bg = self._generator().bit_generator
        new = type(bg)(0)
        new.state = bg.state
        return np.random.Generator(new)

    # ------------------------------------------------------------------ determinizations
    def replace_stock(self, stock: Sequence[int]) -> None:
        """Make ``stock`` (top first) the stock: a search's determinization deals the
        cards a player has not seen again (``rummy51.r51.chance``,
        ``rummy51.carousel.chance``). The caller keeps the cards consistent."""
        self._stock = [int(c) for c in stock][::-1]

    def reseed(self, rng: np.random.Generator) -> None:
        """Shuffle from ``rng`` from now on, forgetting the seed and any recorded shuffle
        still to come (a determinization's: the real seed would tell the real deck)."""
        self.seed = None
        self._rng = rng
        self.__dict__.pop("_rng_state", None)
        self._forced = []


class ViewBase:
    """The base of a game's player view: the hand is the viewer's own, and the moves
    are theirs to check only on their turn. The game sets ``_ILLEGAL`` (its
    ``IllegalMove``)."""

    _ILLEGAL: ClassVar[type[IllegalMove]] = IllegalMove

    player: int
    current: int
    hand: tuple[int, ...]

    def _hand(self) -> Sequence[int]:
        if self.player != self.current:
            raise self._ILLEGAL("engine", f"this is player {self.player}'s view; it is player "
                                          f"{self.current}'s turn")
        return self.hand
