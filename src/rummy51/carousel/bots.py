"""Carousel bots: ``choose(view) -> action``, seeing a ``PlayerView`` only.

Every bot states its strategy in its docstring as short per-phase rules. Bots use the
public solver API (``best_play``, ``can_meld``) and the view (its ``can_x`` checks);
never the state.

* ``RandomBot``: random moves (random legal meld plays too).
* ``GreedyBot``: the best play whenever it has one, knocks as soon as it may.
* ``CarefulBot``: greedy play, but knocks only when an undercut looks unlikely from
  what it has seen.

>>> from rummy51.carousel import CarouselRules
>>> s = play_game([GreedyBot(), GreedyBot(), GreedyBot()], CarouselRules.for_players(3), seed=1)
>>> s.over, max(s.totals) >= 150
(True, True)
"""
from __future__ import annotations

from typing import Optional, Protocol, Sequence

import numpy as np

from .actions import Action, Draw, Knock, Meld, Pass, Phase
from .engine import GameState, PlayerView
from .rules import CarouselRules
from .solver import best_play, can_meld

__all__ = ["Bot", "RandomBot", "GreedyBot", "CarefulBot", "BOTS", "play_game"]

_DRAW, _KNOCK, _PASS = Draw(), Knock(), Pass()


class Bot(Protocol):
    """A player: ``choose(view)`` returns one legal action for the player on turn."""

    def choose(self, view: PlayerView) -> Action:  # pragma: no cover - protocol
        ...


def _no_meld(view: PlayerView) -> Action:
    """What a player who does not meld does: draw on, or end the turn."""
    if view.phase is Phase.MELD:
        return _DRAW
    return _KNOCK if view.can_knock() else _PASS


class RandomBot:
    """Random moves, every one legal.

    * Draw: draw.
    * May meld: with probability ``p_meld`` (1/2) try a random play of a random part of
      the hand (each card kept with probability 1/2): while the table holds at most
      ``rearrange_up_to`` (4) melds, the solver's best play of that part with the whole
      table (a rearrangement); on a larger table, new melds laid from that part beside
      the table as it is (the solver's time grows fast with the table). When that finds
      nothing, or otherwise, draw on (with no draw left: end the turn as below).
    * End of turn: knock or pass at random when knocking is allowed, else pass.
    """

    def __init__(self, seed=None, p_meld: float = 0.5, rearrange_up_to: int = 4):
        self.rng = np.random.default_rng(seed)
        self.p_meld = p_meld
        self.rearrange_up_to = rearrange_up_to

    def _end(self, view: PlayerView) -> Action:
        if view.can_knock() and self.rng.random() < 0.5:
            return _KNOCK
        return _PASS

    def choose(self, view: PlayerView) -> Action:
        ph = view.phase
        if ph is Phase.DRAW:
            return _DRAW
        if ph is Phase.END:
            return self._end(view)
        if self.rng.random() < self.p_meld:
            hand = list(view.hand)
            keep = self.rng.random(len(hand)) < 0.5
            part = [c for c, k in zip(hand, keep) if k] or [hand[int(self.rng.integers(len(hand)))]]
            table = list(view.table)
            if len(table) <= self.rearrange_up_to:
                play = best_play(table, part, view.rules)
                if play.can_meld:
                    return Meld(play.melds)
            else:
                play = best_play([], part, view.rules)
                if play.can_meld:
                    return Meld(tuple(table) + tuple(play.melds))
        return _DRAW if ph is Phase.MELD else self._end(view)


class GreedyBot:
    """The best play whenever it helps, a knock as soon as it may.

    * Draw: draw.
    * May meld: when a legal play exists, make the solver's best play (the fewest
      points left; every play lowers the count, so any play helps); otherwise draw on.
    * End of turn (and with no draw left and nothing to meld): knock whenever the hand
      is worth ``rules.knock_limit`` points or fewer, else pass.
    """

    def choose(self, view: PlayerView) -> Action:
        ph = view.phase
        if ph is Phase.DRAW:
            return _DRAW
        if ph is Phase.END:
            return _KNOCK if view.can_knock() else _PASS
        table, hand = list(view.table), list(view.hand)
        if can_meld(table, hand, view.rules):
            return Meld(best_play(table, hand, view.rules).melds)
        return _no_meld(view)


def undercut_risk(view: PlayerView, points: int, rng: np.random.Generator,
                  samples: int = 200) -> float:
    """The chance, as the player sees it, that another player holds ``points`` or
    fewer: each other hand is taken as ``hand_size`` cards drawn at random from the cards
    the player has not seen (the deck less their hand and the table), ``samples`` draws
    per player, the players independent."""
    rules = view.rules
    pool = list(rules.deck())
    for c in list(view.hand) + [c for m in view.table for c in m.cards]:
        pool.remove(c)
    values = np.array([rules.card_value(c) for c in pool], np.int32)
    m = len(values)
    p_safe = 1.0
    for o, k in enumerate(view.hand_sizes):
        if o == view.player or k == 0:
            continue
        k = min(k, m)
        picks = rng.random((samples, m)).argpartition(k - 1, axis=1)[:, :k] if k < m else \
            np.tile(np.arange(m), (samples, 1))
        low = float(np.mean(values[picks].sum(axis=1) <= points))
        p_safe *= 1.0 - low
    return 1.0 - p_safe


class CarefulBot:
    """Greedy play, with a knock only when an undercut looks unlikely.

    * Draw and meld: as ``GreedyBot`` (the best play whenever there is one).
    * Knock: only when the hand is worth ``rules.knock_limit`` or fewer **and** the
      estimated chance that another player holds as few points or fewer (a tie beats
      the knocker too) is below ``max_risk`` (0.2). The estimate (``undercut_risk``)
      deals every other hand, at its known size, at random from the cards the bot has
      not seen (deck less its hand and the table), 200 times. With the stock about to
      run out (fewer cards than players) it knocks anyway at 2 points or fewer; with 0
      points (nothing to lose) it always knocks.
    """

    def __init__(self, seed=None, max_risk: float = 0.2, samples: int = 200):
        self.rng = np.random.default_rng(seed)
        self.max_risk = max_risk
        self.samples = samples

    def _knock(self, view: PlayerView) -> bool:
        if not view.can_knock():
            return False
        pts = view.rules.hand_points(view.hand)
        if pts == 0 or (view.stock_count < view.n_players and pts <= 2):
            return True
        return undercut_risk(view, pts, self.rng, self.samples) < self.max_risk

    def choose(self, view: PlayerView) -> Action:
        ph = view.phase
        if ph is Phase.DRAW:
            return _DRAW
        if ph is Phase.MELD or ph is Phase.NO_DRAW:
            table, hand = list(view.table), list(view.hand)
            if can_meld(table, hand, view.rules):
                return Meld(best_play(table, hand, view.rules).melds)
            if ph is Phase.MELD:
                return _DRAW
        return _KNOCK if self._knock(view) else _PASS


#: The built-in bots by name (``--bots`` names).
BOTS = {"random": RandomBot, "greedy": GreedyBot, "careful": CarefulBot}


def make_bot(name: str, seed=None):
    """A fresh bot of ``BOTS[name]`` (with ``seed`` when it takes one)."""
    cls = BOTS[name]
    return cls() if cls is GreedyBot else cls(seed=seed)


def play_game(bots: Sequence[Bot], rules: Optional[CarouselRules] = None, seed=None,
              *, check: bool = False, max_moves: int = 1_000_000) -> GameState:
    """Play a whole game between ``bots`` (one per seat) and return the finished state;
    ``check`` runs ``state.check()`` after every move (slow: for tests)."""
    if rules is None:
        rules = CarouselRules.for_players(len(bots))
    s = GameState.new(rules, players=len(bots), seed=seed)
    moves = 0
    while s.phase is not Phase.OVER:
        s.apply(bots[s.current].choose(s.view(s.current)))
        if check:
            s.check()
        moves += 1
        if moves > max_moves:
            raise RuntimeError(f"the game did not end in {max_moves} moves")
    return s
