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
* ``SearchBot``: tries the solver's candidate plays, drawing on and knocking or holding
  back by determinized rollouts of the rest of the round (in C; the kernel plays it too).
* ``PlainSearchBot``: the search as it was before knocks could be held back (every
  rollout knocks at the first chance), kept unchanged so that gains are measured
  against it.
* ``LearnedSearchBot``: the search guided by the learned model (its candidates, its
  rollouts' moves and the score where they stop).
* ``LearnedBot``: the learned model's greedy policy (``rummy51.learned``), no search.

>>> from rummy51.carousel import CarouselRules
>>> s = play_game([GreedyBot(), GreedyBot(), GreedyBot()], CarouselRules.for_players(3), seed=1)
>>> s.over, max(s.totals) >= 150
(True, True)
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from .. import _carousel
from ..common.bots import registry_key
from .actions import Action, Draw, Knock, Meld, Pass, Phase
from .engine import GameState, PlayerView
from .policy import PolicyBot
from .rules import CarouselRules
from .solver import best_play, can_meld
from .table import TableMeld

if TYPE_CHECKING:
    from ..learned import Model

__all__ = ["Bot", "RandomBot", "GreedyBot", "CarefulBot", "SearchBot", "PlainSearchBot",
           "LearnedSearchBot", "LearnedBot", "PolicyBot", "BOTS", "kernel_bots", "make_bot",
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


def _best_meld(table: list, hand: list, rules: CarouselRules) -> Meld | None:
    """The solver's best play of ``hand`` on ``table`` as the kernel makes it (its play
    among equally good ones), or None when no play exists."""
    if can_meld(table, hand, rules):
        return Meld(best_play(table, hand, rules, game_ties=True).melds)
    return None


def _kernel_meld(view: PlayerView, decide: Callable[[PlayerView, int], tuple]) -> Meld | None:
    """The meld of a bot whose C kernel decides (search, learned): in the last turns the
    greedy move; else ``decide(view, decision)``'s choice (-1: no readable path, the greedy
    move; a part of the hand: its cards' best play; otherwise no meld)."""
    table, hand = list(view.table), list(view.hand)
    if view.turn_info.last:
        return _best_meld(table, hand, view.rules)
    decision = _carousel.SEARCH_MELD if view.phase is Phase.MELD else _carousel.SEARCH_NODRAW
    choice, part, jokers = decide(view, decision)[:3]
    if choice == -1:
        return _best_meld(table, hand, view.rules)
    if part is not None:
        sub = [c for c in range(52) for _ in range(part[c])] + [52] * jokers
        return Meld(best_play(table, sub, view.rules, game_ties=True).melds)
    return None


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
        meld = _best_meld(list(view.table), list(view.hand), view.rules)
        return meld if meld is not None else _no_meld(view)


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
            meld = _best_meld(list(view.table), list(view.hand), view.rules)
            if meld is not None:
                return meld
            if ph is Phase.MELD:
                return _DRAW
        return _KNOCK if self._knock(view) else _PASS


#: rollouts a decision by default (SearchBot)
DEFAULT_ROLLOUTS = 64
#: paired z statistic at which a candidate is dropped (the search stops with one left)
DEFAULT_Z_STOP = 2.0
#: paired z statistic by which the best candidate must beat the greedy move to be played
DEFAULT_Z_PLAY = 1.0
#: the player's own turns a rollout plays after the decision's before the learned model
#: scores it (LearnedSearchBot)
DEFAULT_HORIZON = 0
#: the most turns of a horizon
MAX_HORIZON = 50


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
    * End of turn with a hand that may knock: knock, or pass (hold back). A pass is
      tried three ways, each its own candidate: its rollouts knock at the player's next
      chance (the greedy bot), or hold on to go out (knock only when the stock holds
      fewer cards than there are players), or hold on until another hand holds 3 cards
      or fewer; the best of them is the value of passing.
    * Last turns after the stock ran out: as ``GreedyBot``.

    That is this class with ``model=None``. By default (``model="carousel"``, the
    shipped learned model) the search is guided by the model, as ``LearnedSearchBot``
    describes (the candidates, the rollouts' moves and where they stop): the variant
    measured strongest against ``search-plain`` (docs/learned.md).

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

    #: the name of this search in the kernel's ``bots`` and in ``--bots``
    NAME = "search"
    #: whether a knock decision's passes may hold back (False: ``PlainSearchBot``)
    HOLD = True
    #: the learned model read by default ("carousel", the shipped one; None: rollouts to
    #: the round's end with the greedy bot in every seat)
    MODEL: str | None = "carousel"

    rng: np.random.Generator
    rollouts: int
    horizon: int
    z_stop: float
    z_play: float
    used: int
    decisions: int

    def __init__(self, seed: Any = None, rollouts: int = DEFAULT_ROLLOUTS,
                 z_stop: float = DEFAULT_Z_STOP, z_play: float = DEFAULT_Z_PLAY,
                 model: Any = "default", horizon: int = DEFAULT_HORIZON) -> None:
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
        if isinstance(horizon, bool) or not isinstance(horizon, Integral):
            raise TypeError(f"horizon must be an int, got {horizon!r}")
        if not 0 <= int(horizon) <= MAX_HORIZON:
            raise ValueError(f"horizon must be 0..{MAX_HORIZON}, got {horizon}")
        self.model: Model | None = None
        if isinstance(model, str) and model == "default":
            model = self.MODEL
        if self.HOLD and model is not None:
            from ..learned import load_model

            self.model = load_model(model, game="carousel")
        self.horizon = int(horizon) if self.model is not None else 0
        self.rng = np.random.default_rng(seed)
        self.rollouts = int(rollouts)
        self.z_stop = float(z_stop)
        self.z_play = float(z_play)
        self.used = 0          # rollouts made so far (all decisions)
        self.decisions = 0     # decisions searched so far

    def kernel_spec(self) -> tuple:
        """This bot as an entry of ``_carousel.play_greedy_game``'s ``bots``."""
        if self.model is not None:
            return (self.NAME, self.rng, self.rollouts, self.z_stop, self.z_play, self.model,
                    self.horizon)
        return (self.NAME, self.rng, self.rollouts, self.z_stop, self.z_play)

    def _decide(self, view: PlayerView, decision: int) -> tuple[int, bytes | None, int, int]:
        rules = view.rules
        H, jh = _counts(view.hand)
        T, D, jt = _table_counts(view.table)
        res = _carousel.search_decide(
            _core_rules(rules), game_rules(rules), self.rng, decision, H, jh, T, D, jt,
            view.hand_sizes, view.player, view.stock_count, view.turn_info.draws,
            view.stock_out, self.rollouts, self.z_stop, self.z_play, self.HOLD, self.model,
            self.horizon)
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
            meld = _kernel_meld(view, self._decide)
            if meld is not None:
                return meld
            if ph is Phase.MELD:
                return _DRAW
        return _KNOCK if self._knock(view) else _PASS


class PlainSearchBot(SearchBot):
    """``SearchBot`` as it played before it could hold a knock back and before the learned
    model (``search-plain``): the same draws, meld decisions and candidates, but a knock
    decision has one pass, whose rollouts knock at the player's next chance as the greedy
    bot does, and every rollout is played to the round's end with the greedy bot in
    every seat. Its seeded games are those the search
    bot played before (the same moves for the same seeds), so the gain of the new search
    is measured against it in one run."""

    NAME = "search-plain"
    HOLD = False

    def __init__(self, seed: Any = None, rollouts: int = DEFAULT_ROLLOUTS,
                 z_stop: float = DEFAULT_Z_STOP, z_play: float = DEFAULT_Z_PLAY) -> None:
        super().__init__(seed, rollouts, z_stop, z_play, model=None, horizon=0)


class LearnedSearchBot(SearchBot):
    """``SearchBot`` guided by the learned model (``search-learned``; ``model``: "carousel",
    the shipped one, a path or a ``Model``; ``horizon``: the player's own turns a rollout
    plays before the model scores it, default 0).

    * May meld: the candidates are the learned bot's (the solver's best play, no play,
      the best play with the jokers kept back); the move played unless the rollouts beat
      it by ``z_play`` is the learned bot's choice among them.
    * End of turn with a hand that may knock: knock, or pass; after a pass the player's
      knocks in the rollout are the learned bot's (it holds when the model values
      passing higher), and the rollout is looked at one turn of its own further.
    * Rollouts: every seat plays the learned bot's moves; a rollout stops when the
      player's turn begins again after the others have answered (``horizon`` turns of
      its own later), where the model's value of what the player sees scores it; a
      round that ends sooner is scored as it ends.

    * Draw: draw. Last turns after the stock ran out: as ``GreedyBot``.

    Everything else (determinizations, budget, early stops) is ``SearchBot``'s: this is
    ``SearchBot`` with its default model under its own name, so that it stays the
    learned search if the default changes; the kernel's ``"search-learned"`` seat runs
    the same C code.
    """

    NAME = "search-learned"
    MODEL = "carousel"


class LearnedBot:
    """The learned model's greedy policy (``learned``): no search, no randomness.

    * Draw: draw.
    * May meld (after a first or second draw, or after finding the stock empty): the
      candidates are the solver's best play first, no play, and the best play with the
      hand's jokers kept back.
      A play that melds every card is worth the going-out bonus and the other hands'
      expected points; another play ends the turn and is worth the model's value of the
      position after it (the better of knocking and passing when the hand may knock); no
      play is worth the model's value of drawing again (or of the turn's end when the
      stock ran out). The best is played; the solver's best play on a tie.
    * End of turn with a hand that may knock: knock when the model values knocking at
      least as high as passing.
    * Last turns after the stock ran out: as ``GreedyBot``.

    The values are the model's (``rummy51.learned``; ``model``: "carousel", the shipped
    one, a path or a ``Model``, loaded and checked when the bot is made), of what the
    bot's ``PlayerView`` shows; the kernel's ``"learned"`` seat runs the same C code
    (``_carousel.learned_decide``) on the same view, so both play the same games.
    """

    NAME = "learned"

    def __init__(self, seed: Any = None, model: Any = "carousel") -> None:
        from ..learned import load_model

        self.model: Model = load_model(model, game="carousel")
        self.rng = np.random.default_rng(seed)   # unused: the policy is deterministic
        self.decisions = 0

    def __repr__(self) -> str:
        return f"LearnedBot(model={self.model.path or self.model.game!r})"

    def kernel_spec(self) -> tuple:
        """This bot as an entry of ``_carousel.play_greedy_game``'s ``bots``."""
        return ("learned", self.model)

    def _decide(self, view: PlayerView, decision: int) -> tuple[int, bytes | None, int]:
        rules = view.rules
        H, jh = hand_counts(view.hand)
        T, D, jt = table_counts(view.table)
        self.decisions += 1
        return _carousel.learned_decide(
            core_rules(rules), game_rules(rules), self.model, decision, H, jh, T, D, jt,
            view.hand_sizes, view.player, view.stock_count, view.turn_info.draws,
            view.stock_out)

    def choose(self, view: PlayerView) -> Action:
        ph = view.phase
        if ph is Phase.DRAW:
            return _DRAW
        if ph is Phase.MELD or ph is Phase.NO_DRAW:
            meld = _kernel_meld(view, self._decide)
            if meld is not None:
                return meld
            if ph is Phase.MELD:
                return _DRAW
        if not view.can_knock():
            return _PASS
        if view.turn_info.last:
            return _KNOCK
        return _KNOCK if self._decide(view, _carousel.SEARCH_KNOCK)[0] == 0 else _PASS


#: The built-in bots by name (``--bots`` names).
BOTS: dict[str, type] = {"random": RandomBot, "greedy": GreedyBot, "careful": CarefulBot,
                         "search": SearchBot, "search-plain": PlainSearchBot,
                         "search-learned": LearnedSearchBot, "learned": LearnedBot,
                         "ppo": PolicyBot}
#: the bots whose name takes a budget (``search:64``)
_BUDGETED = ("search", "search-plain", "search-learned")


def parse_bot(spec: str) -> tuple[str, dict]:
    """``(name, options)`` of a ``--bots`` entry: a name of ``BOTS`` (case, ``-`` and
    ``_`` free: ``searchplain`` is ``search-plain``), or ``search:N`` /
    ``search-plain:N`` / ``search-learned:N`` (a search bot with ``N`` rollouts a decision). ValueError (one
    line) otherwise."""
    text = str(spec).strip()
    name, _, opt = text.partition(":")
    key = registry_key(name, BOTS)
    if key is None:
        raise ValueError(f"bots: {text!r} is not a Carousel bot: choose from {', '.join(BOTS)}")
    if not opt:
        return key, {}
    if key not in _BUDGETED:
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


def kernel_bots(bots: Sequence[Bot] | None, players: int) -> list | None:
    """``_carousel.play_greedy_game``'s ``bots`` from bot objects (None: all greedy): None
    for a ``GreedyBot``, ``(rng, max_risk, samples)`` for a ``CarefulBot``, the
    ``kernel_spec()`` of a search or learned bot. ValueError for a bot the kernel does
    not play."""
    if bots is None:
        return None
    bots = list(bots)
    if len(bots) != players:
        raise ValueError(f"bots: one a seat, {players}, got {len(bots)}")
    out: list = []
    for b in bots:
        if isinstance(b, CarefulBot):
            out.append((b.rng, b.max_risk, b.samples))
        elif isinstance(b, GreedyBot):
            out.append(None)
        elif isinstance(b, (SearchBot, LearnedBot)):
            out.append(b.kernel_spec())
        else:
            raise ValueError(f"the C game kernel plays GreedyBot, CarefulBot, SearchBot and "
                             f"LearnedBot, not {type(b).__name__}")
    return out


def make_bot(name: str, seed: Any = None) -> Bot:
    """A fresh bot of ``BOTS[name]`` (with ``seed`` when it takes one); ``name`` may be
    ``search:N``, ``search-plain:N`` or ``search-learned:N`` (``parse_bot``)."""
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
