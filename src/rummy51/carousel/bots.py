"""Carousel bots: ``choose(view) -> action``, seeing a ``PlayerView`` only.

Every bot states its strategy in its docstring as short per-phase rules. Bots use the
public solver API (``best_play``, ``can_meld``) and the view (its ``can_x`` checks);
never the state.

* ``RandomBot``: random moves (random legal meld plays too).
* ``GreedyBot``: the best play whenever it has one, knocks as soon as it may.
* ``CarefulBot``: greedy play, but knocks only when an undercut looks unlikely from
  what it has seen.
* ``PolicyBot`` (``ppo``, ``rummy51.carousel.policy``): the trained policy network of
  ``bench/train_ppo.py`` (2-player games).
* ``SearchBot``: tries the solver's candidate plays, drawing on and knocking or not by
  determinized rollouts of the rest of the round (in C; the kernel plays it too).

>>> from rummy51.carousel import CarouselRules
>>> s = play_game([GreedyBot(), GreedyBot(), GreedyBot()], CarouselRules.for_players(3), seed=1)
>>> s.over, max(s.totals) >= 150
(True, True)
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from functools import lru_cache
from numbers import Integral, Real
from typing import Any, Protocol

import numpy as np

from .. import _carousel
from ..common.bots import registry_key
from .actions import Action, Draw, Knock, Meld, Pass, Phase
from .engine import GameState, PlayerView
from .policy import PolicyBot
from .rules import CarouselRules
from .solver import best_play, can_meld
from .table import TableMeld

__all__ = ["Bot", "RandomBot", "GreedyBot", "CarefulBot", "SearchBot", "PolicyBot", "BOTS", "make_bot",
           "parse_bot", "play_game"]

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

    def __init__(self, seed: Any = None, p_meld: float = 0.5, rearrange_up_to: int = 4) -> None:
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
            part = ([c for c, k in zip(hand, keep, strict=True) if k]
                    or [hand[int(self.rng.integers(len(hand)))]])
            table = list(view.table)
            if len(table) <= self.rearrange_up_to:
                play = best_play(table, part, view.rules, game_ties=True)
                if play.can_meld:
                    return Meld(play.melds)
            else:
                play = best_play([], part, view.rules, game_ties=True)
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
            return Meld(best_play(table, hand, view.rules, game_ties=True).melds)
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

    def __init__(self, seed: Any = None, max_risk: float = 0.2, samples: int = 200) -> None:
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
                return Meld(best_play(table, hand, view.rules, game_ties=True).melds)
            if ph is Phase.MELD:
                return _DRAW
        return _KNOCK if self._knock(view) else _PASS


#: rollouts a decision by default (SearchBot)
DEFAULT_ROLLOUTS = 64
#: paired z statistic at which a candidate is dropped (the search stops with one left)
DEFAULT_Z_STOP = 2.0
#: paired z statistic by which the best candidate must beat the greedy move to be played
DEFAULT_Z_PLAY = 1.0


def hand_counts(cards: Iterable[int]) -> tuple[bytes, int]:
    """Cards as the kernel reads a hand: 52 counts of the naturals (bytes) and the jokers."""
    h = [0] * 52
    j = 0
    for c in cards:
        if c == 52:
            j += 1
        else:
            h[c] += 1
    return bytes(h), j


def table_counts(table: Iterable[TableMeld]) -> tuple[bytes, bytes, int]:
    """A table as the kernel reads it: the naturals ``T`` and the jokers declared as each
    card ``D`` (52 counts each, bytes), and the jokers ``JT``."""
    T = [0] * 52
    D = [0] * 52
    jt = 0
    for m in table:
        for c, r in zip(m.cards, m.represents, strict=True):
            if c == 52:
                D[r] += 1
                jt += 1
            else:
                T[c] += 1
    return bytes(T), bytes(D), jt


@lru_cache(maxsize=32)
def core_rules(rules: CarouselRules) -> _carousel.CoreRules:
    """The kernel's rules object of ``rules`` (cached)."""
    return _carousel.CoreRules(rules)


# the names the search bot's code and tests have used
_counts, _table_counts, _core_rules = hand_counts, table_counts, core_rules


def game_rules(rules: CarouselRules) -> tuple[int, ...]:
    """The game rules the C kernel reads (``_carousel.play_greedy_game``'s
    ``game_rules``)."""
    return (rules.players, rules.hand_size, rules.deck_size, rules.knock_limit,
            rules.undercut_bonus, rules.going_out_bonus, rules.target_score, rules.game_bonus,
            rules.round_won_bonus, int(rules.round_bonus_for_all), int(rules.last_turn_knock),
            int(rules.game_tie == "play_on"), int(rules.stock_out == "exhauster"))


#: the CarouselRules fields the search bot's rollouts play (any other field, at a value
#: other than its default, is a rule they do not know)
_SEARCH_FIELDS = frozenset((
    "players", "decks", "jokers", "max_jokers_per_meld", "ace_high", "ace_value",
    "face_value", "joker_value", "hand_size", "knock_limit", "undercut_bonus",
    "going_out_bonus", "target_score", "game_bonus", "round_won_bonus",
    "round_bonus_for_all", "last_turn_knock", "game_tie", "stock_out"))


def check_search_rules(rules: CarouselRules) -> None:
    """Raise ValueError (one line, naming the field) for rules the search bot's
    rollouts do not play."""
    for f in dataclasses.fields(rules):
        if f.name in _SEARCH_FIELDS:
            continue
        v = getattr(rules, f.name)
        if f.default is dataclasses.MISSING or v != f.default:
            raise ValueError(f"the search bot does not play rules.{f.name} = {v!r} (its "
                             "rollouts know the rules of docs/rules-carousel.md defaults only there)")
    if rules.players > 6:
        raise ValueError(f"the search bot plays 2..6 players, not {rules.players}")


class SearchBot:
    """Determinized rollouts of the rest of the round at every real decision.

    * Draw: draw.
    * May meld (after a first or second draw; or after finding the stock empty): with
      no legal play, draw on (or end the turn). Otherwise the candidates, from the
      solver: its best play (the greedy move); no play (draw again / end the turn);
      the best play with the hand's jokers kept back; the best play with the highest
      card it places kept back; the single hand card worth the most that can be
      played alone (the smallest play, which still ends the drawing).
    * End of turn with a hand that may knock: knock, or pass.
    * Last turns after the stock ran out: as ``GreedyBot``.

    A decision scores each candidate by the **margin** it leads to: the bot's round
    score less the mean round score of the other players, at the end of the round.
    Each candidate is played on the same determinizations (common random numbers): the
    cards the bot has not seen (the deck less its hand and the table) shuffled with its
    generator and dealt to the other hands (their known sizes) and the stock; then
    every seat, its own included, plays the greedy bot's moves to the end of the round.
    Determinizations come in batches of 4; after each, a candidate whose paired
    differences to the leader reach a z statistic of ``z_stop`` (2.0) is dropped, and at
    a half and three quarters of the budget the worse half of those left goes
    (sequential halving). It stops with one candidate left or when the next batch
    would pass ``rollouts`` (64) candidate rollouts; it plays the best mean, unless the
    greedy move is still in and the best beats it by a paired z below ``z_play`` (1.0).
    A decision with one candidate (no legal play) draws no random number.

    The search runs in C (``_carousel.search_decide``, the function the game kernel
    calls for a search seat), on this bot's numpy generator: the kernel and the Python
    engine play the same games move for move. It sees what its ``PlayerView`` shows:
    its hand, the table, every hand's size and the stock's size.
    """

    rng: np.random.Generator
    rollouts: int
    z_stop: float
    z_play: float
    used: int
    decisions: int

    def __init__(self, seed: Any = None, rollouts: int = DEFAULT_ROLLOUTS,
                 z_stop: float = DEFAULT_Z_STOP, z_play: float = DEFAULT_Z_PLAY) -> None:
        if isinstance(rollouts, bool) or not isinstance(rollouts, Integral):
            raise TypeError(f"rollouts must be an int, got {rollouts!r}")
        if not 1 <= int(rollouts) <= 100_000:
            raise ValueError(f"rollouts must be 1..100000, got {rollouts}")
        for name, z in (("z_stop", z_stop), ("z_play", z_play)):
            if isinstance(z, bool) or not isinstance(z, Real):
                raise TypeError(f"{name} must be a number, got {z!r}")
        if not z_stop > 0:
            raise ValueError(f"z_stop must be > 0, got {z_stop}")
        if not z_play >= 0:
            raise ValueError(f"z_play must be >= 0, got {z_play}")
        self.rng = np.random.default_rng(seed)
        self.rollouts = int(rollouts)
        self.z_stop = float(z_stop)
        self.z_play = float(z_play)
        self.used = 0          # rollouts made so far (all decisions)
        self.decisions = 0     # decisions searched so far

    def kernel_spec(self) -> tuple:
        """This bot as an entry of ``_carousel.play_greedy_game``'s ``bots``."""
        return ("search", self.rng, self.rollouts, self.z_stop, self.z_play)

    def _decide(self, view: PlayerView, decision: int) -> tuple[int, bytes | None, int, int]:
        rules = view.rules
        H, jh = _counts(view.hand)
        T, D, jt = _table_counts(view.table)
        res = _carousel.search_decide(
            _core_rules(rules), game_rules(rules), self.rng, decision, H, jh, T, D, jt,
            view.hand_sizes, view.player, view.stock_count, view.turn_info.draws,
            view.stock_out, self.rollouts, self.z_stop, self.z_play)
        if res[3]:
            self.used += res[3]
            self.decisions += 1
        return res

    def _knock(self, view: PlayerView) -> bool:
        if not view.can_knock():
            return False
        if view.turn_info.last:
            return True
        return self._decide(view, _carousel.SEARCH_KNOCK)[0] == 0

    def choose(self, view: PlayerView) -> Action:
        ph = view.phase
        if ph is Phase.DRAW:
            return _DRAW
        if ph is Phase.MELD or ph is Phase.NO_DRAW:
            table, hand = list(view.table), list(view.hand)
            if view.turn_info.last:
                if can_meld(table, hand, view.rules):
                    return Meld(best_play(table, hand, view.rules, game_ties=True).melds)
            else:
                decision = _carousel.SEARCH_MELD if ph is Phase.MELD else _carousel.SEARCH_NODRAW
                choice, part, jokers, _ = self._decide(view, decision)
                if choice == -1:      # no readable path: the greedy move
                    if can_meld(table, hand, view.rules):
                        return Meld(best_play(table, hand, view.rules, game_ties=True).melds)
                elif part is not None:
                    sub = [c for c in range(52) for _ in range(part[c])] + [52] * jokers
                    return Meld(best_play(table, sub, view.rules, game_ties=True).melds)
            if ph is Phase.MELD:
                return _DRAW
        return _KNOCK if self._knock(view) else _PASS


#: The built-in bots by name (``--bots`` names).
BOTS = {"random": RandomBot, "greedy": GreedyBot, "careful": CarefulBot, "search": SearchBot,
        "ppo": PolicyBot}


def parse_bot(spec: str) -> tuple[str, dict]:
    """``(name, options)`` of a ``--bots`` entry: a name of ``BOTS``, or ``search:N``
    (a search bot with ``N`` rollouts a decision). ValueError (one line) otherwise."""
    text = str(spec).strip()
    name, _, opt = text.partition(":")
    key = registry_key(name, BOTS)
    if key is None:
        raise ValueError(f"bots: {text!r} is not a Carousel bot: choose from {', '.join(BOTS)}")
    if not opt:
        return key, {}
    if key != "search":
        raise ValueError(f"bots: {text!r}: only the search bot takes an option (search:ROLLOUTS)")
    try:
        n = int(opt)
    except ValueError:
        raise ValueError(f"bots: {text!r}: the search bot's budget must be an int of rollouts "
                         "a decision, like search:64") from None
    if n < 1:
        raise ValueError(f"bots: {text!r}: the search bot's budget must be at least 1 rollout, "
                         f"got {n}")
    return key, {"rollouts": n}


def make_bot(name: str, seed: Any = None) -> Bot:
    """A fresh bot of ``BOTS[name]`` (with ``seed`` when it takes one); ``name`` may be
    ``search:N`` (``parse_bot``)."""
    key, opts = parse_bot(name)
    cls = BOTS[key]
    return cls() if cls is GreedyBot else cls(seed=seed, **opts)


def play_game(bots: Sequence[Bot], rules: CarouselRules | None = None, seed: Any = None,
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
