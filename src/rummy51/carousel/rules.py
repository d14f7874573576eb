"""CarouselRules: every **(option)** of RULES-carousel.md as one frozen dataclass.

``CarouselRules()`` is the three-to-five-player game (two decks, two jokers); the
two-player deck (one deck, one joker) comes from ``CarouselRules.for_players(2)``.
Variants are data::

    >>> import dataclasses
    >>> r = CarouselRules.for_players(2)
    >>> r.decks, r.jokers, r.deck_size
    (1, 1, 53)
    >>> dataclasses.replace(r, max_jokers_per_meld=1).max_jokers_per_meld
    1
    >>> CarouselRules(jokers=2.5)
    Traceback (most recent call last):
    ...
    TypeError: CarouselRules.jokers must be an int, got 2.5
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, fields
from typing import Any, Optional

import numpy as np

from ..cards import JOKER

__all__ = ["CarouselRules", "MAX_DECKS", "MAX_JOKERS", "GAME_TIES", "STOCK_OUTS"]

#: The solver core keeps at most this many copies of a natural card (2-bit counts).
MAX_DECKS = 2
#: The solver core tracks at most this many jokers on the table (its state packs
#: the joker count in 3 bits).
MAX_JOKERS = 4


def _as_int(name: str, value) -> int:
    """A plain ``int`` from an int or a numpy integer; TypeError for bool, float, str."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"CarouselRules.{name} must be an int, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"CarouselRules.{name} must be an int, got {value!r}") from None


#: The readings of a shared highest final total (``CarouselRules.game_tie``).
GAME_TIES = ("share", "play_on")
#: The readings of who starts the last turns when the stock runs out
#: (``CarouselRules.stock_out``): the source's, then the older one.
STOCK_OUTS = ("exhauster", "finder")
_CHOICE_FIELDS = {"game_tie": GAME_TIES, "stock_out": STOCK_OUTS}
_BOOL_FIELDS = ("ace_high", "round_bonus_for_all", "last_turn_knock")


@dataclass(frozen=True, kw_only=True)
class CarouselRules:
    """The rules of one game of Carousel (RULES-carousel.md), every option a field.

    Cards and melds (sections 1-2, the solver's part):

    * ``players`` (4): 2..5 players, 6 with two decks.
    * ``decks`` (2): 52-card decks, 1 or 2 (``for_players``: 1 for two players).
    * ``jokers`` (2): jokers in the deck, 0..4 (``for_players``: 1 for two players).
    * ``max_jokers_per_meld`` (None): None = any number of jokers in a meld (always at
      least one natural card); 1 = at most one joker per meld (the option). 0 forbids
      jokers in melds.
    * ``ace_high`` (True): the ace may follow the king (Q-K-A; A 2 .. K A with two aces);
      False: the ace is low only.
    * ``ace_value`` (1), ``face_value`` (10), ``joker_value`` (25): the points of a card
      left in hand; 2..10 count their face value.

    The deal and the knock (section 3):

    * ``hand_size`` (10): cards dealt to each player.
    * ``knock_limit`` (5): a player whose hand counts this many points or fewer may knock.
    * ``last_turn_knock`` (False): may a player knock in one of the last turns after the
      stock ran out (3.5 is silent; its "the round is scored with no knocker" reads as
      no)? True: they may, at the end of that turn (after melding, or without one), and
      the round ends as a knock.
    * ``stock_out`` ("exhauster"): who the last turns of 3.5 start from.
      ``"exhauster"`` (the source): the player who takes the last card of the stock
      exhausts it; when that player's turn ends and the round goes on, every player,
      from the next one round to the exhauster, has one more turn (meld, no draw).
      ``"finder"`` (this package's reading before 2026-12-04): the last turns start
      from the player whose draw *finds* the stock empty, who ends them; when the last
      card was a third draw (or the exhauster melded), the exhauster's left finds the
      stock empty and so has two meld chances.

    Scoring (sections 5-6):

    * ``undercut_bonus`` (10), ``going_out_bonus`` (25).
    * ``target_score`` (150): the game ends when a player's total reaches it.
    * ``game_bonus`` (100): for each player who reached the target.
    * ``round_won_bonus`` (25): per round won, at the end of the game.
    * ``round_bonus_for_all`` (False): False = only players who did not reach the
      target score the round bonus; True = every player, those who reached it included.
    * ``game_tie`` ("share"): when the highest final total is shared (section 6 is
      silent), ``"share"``: those players all win; ``"play_on"``: another round is dealt,
      and another, until one final total is highest alone.
    """

    players: int = 4
    decks: int = 2
    jokers: int = 2
    max_jokers_per_meld: Optional[int] = None
    ace_high: bool = True
    ace_value: int = 1
    face_value: int = 10
    joker_value: int = 25
    hand_size: int = 10
    knock_limit: int = 5
    undercut_bonus: int = 10
    going_out_bonus: int = 25
    target_score: int = 150
    game_bonus: int = 100
    round_won_bonus: int = 25
    round_bonus_for_all: bool = False
    last_turn_knock: bool = False
    game_tie: str = "share"
    stock_out: str = "exhauster"

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _CHOICE_FIELDS:
                choices = _CHOICE_FIELDS[f.name]
                if not isinstance(value, str) or value not in choices:
                    raise ValueError(f"CarouselRules.{f.name} must be one of "
                                     f"{', '.join(map(repr, choices))}, got {value!r}")
                object.__setattr__(self, f.name, str(value))
                continue
            if f.name in _BOOL_FIELDS:
                if not isinstance(value, (bool, np.bool_)):
                    raise TypeError(f"CarouselRules.{f.name} must be a bool, got {value!r}")
                object.__setattr__(self, f.name, bool(value))
                continue
            if f.name == "max_jokers_per_meld" and value is None:
                continue
            object.__setattr__(self, f.name, _as_int(f.name, value))
        self._range("players", 2, 6)
        self._range("decks", 1, MAX_DECKS)
        self._range("jokers", 0, MAX_JOKERS)
        if self.max_jokers_per_meld is not None:
            self._range("max_jokers_per_meld", 0, MAX_JOKERS)
        self._range("ace_value", 1, 100)
        self._range("face_value", 1, 100)
        self._range("joker_value", 1, 200)
        self._range("hand_size", 1, 60)
        self._range("knock_limit", 0, 1000)
        for name in ("undercut_bonus", "going_out_bonus", "game_bonus", "round_won_bonus"):
            self._range(name, 0, 100_000)
        self._range("target_score", 1, 1_000_000)
        if self.players == 6 and self.decks < 2:
            raise ValueError("CarouselRules.players may be 6 only with two decks, "
                             f"got decks={self.decks}")
        if self.players * self.hand_size > self.deck_size:
            raise ValueError(
                f"CarouselRules.hand_size {self.hand_size} for {self.players} players needs "
                f"{self.players * self.hand_size} cards, but the deck has {self.deck_size}")

    def _range(self, name: str, lo: int, hi: int) -> None:
        value = getattr(self, name)
        if not lo <= value <= hi:
            raise ValueError(f"CarouselRules.{name} must be {lo}..{hi}, got {value}")

    # ------------------------------------------------------------------ presets
    @classmethod
    def for_players(cls, n: int, **overrides) -> "CarouselRules":
        """The deck RULES-carousel.md deals for ``n`` players: 2 players one deck and
        one joker, 3 or more two decks and two jokers; ``overrides`` replace fields."""
        n = _as_int("players", n)
        if not 2 <= n <= 6:
            raise ValueError(f"CarouselRules.players must be 2..6, got {n}")
        deck: dict[str, Any] = {"decks": 1, "jokers": 1} if n == 2 else {"decks": 2, "jokers": 2}
        deck.update(overrides)
        return cls(players=n, **deck)

    # ------------------------------------------------------------------ derived
    @property
    def deck_size(self) -> int:
        """Cards in the deck: ``52 * decks + jokers``."""
        return 52 * self.decks + self.jokers

    def card_value(self, code: int) -> int:
        """Points of a card left in hand (joker ``joker_value``, ace ``ace_value``,
        J Q K ``face_value``, 2..10 face value)."""
        if code == JOKER:
            return self.joker_value
        rank = code % 13 + 1
        if rank == 1:
            return self.ace_value
        if rank >= 11:
            return self.face_value
        return rank

    def hand_points(self, codes) -> int:
        """The points of a hand (section 1)."""
        return sum(self.card_value(int(c)) for c in codes)

    def deck(self) -> list[int]:
        """Every card code of the deck, sorted (jokers last)."""
        return sorted(list(range(52)) * self.decks) + [JOKER] * self.jokers
