"""The search bot: determinized Monte Carlo rollouts through the C game kernel.

``SearchBot`` plays the tactician's move unless a search finds a better one, at every
decision of the deal: where to draw from, which opening (or none yet), lay-downs,
lay-offs, joker swaps and the discard. It tries the candidate moves in many imagined
deals consistent with what it sees (a *determinization* deals the cards it has not
seen, the other hands less the cards known to be there and the stock, at random),
plays each to the end of the deal with the kernel's tactician in every seat, and races
them so that the rollouts go where the decision is close. The decision loop is C
(``_game_searchbot.pxi``): the kernel seats the bot itself (``"search"``), and this
class, seated by the Python engine, calls the same code on its view, with the same
moves. See ``SearchBot`` for the strategy, its budget and its seeding; docs/games.md,
section "Search bot", for how it does against the tactician.

>>> from rummy51 import RuleSet
>>> from rummy51.r51.bots import TacticianBot, play_deal
>>> state = play_deal([SearchBot(seed=1, rollouts=40), TacticianBot()], RuleSet(), seed=3)
>>> state.over
True
"""
from __future__ import annotations

from collections import Counter
from numbers import Real
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _game
from .._checks import int_arg
from ..cards import JOKER
from ..learned import Model, load_model
from . import fastgame
from .actions import Action
from .engine import PlayerView
from .fastgame import known_cards

__all__ = ["DEFAULT_HORIZON", "DEFAULT_ROLLOUTS", "LearnedSearchBot", "PlainSearchBot", "SearchBot",
           "known_cards", "view_position"]

#: kernel rollouts a decision by default (a candidate played on one determinization is one)
DEFAULT_ROLLOUTS = 256
#: turns a rollout plays before it is cut off and scored by the static margin (0: to the end)
DEFAULT_HORIZON = 4
#: discard candidates tried: the best few by the greedy bot's key
DEFAULT_CANDIDATES = 3
#: standard errors by which a challenger must beat the tactician's move to be played
DEFAULT_Z = 1.0
_LOG = 512  # the chosen move's log


def view_position(
        view: PlayerView) -> tuple[_game.Position, npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """``(position, pool, hidden)``: what ``view.player`` knows, loaded into the kernel.

    ``position`` holds the player's own hand, for every other seat the cards known to be
    in its hand (``known_cards``: taken from the discard pile or the bottom, a freed
    joker, and not played since), the table, the discard pile, the bottom card, who
    opened, the turn and this turn's ``TurnInfo``; its stock is empty. ``pool`` is every
    card the player has not seen (the deck less their hand, the table, the discard pile,
    the bottom card and the known cards), ``hidden[q]`` how many of them seat ``q``
    holds; the rest (``view.stock_count``) is the stock."""
    rules = view.rules
    n = view.n_players
    me = view.player
    kernel = fastgame._rules_kernel(rules, n)
    known = known_cards(view)
    cnt = np.zeros((n, 53), np.int32)
    for c in view.hand:
        cnt[me, c] += 1
    hidden = np.zeros(n, np.int32)
    for q in range(n):
        if q == me:
            continue
        for c, k in known[q].items():
            cnt[q, c] += k
        hidden[q] = view.hand_sizes[q] - sum(known[q].values())
    pool = Counter(int(c) for c in rules.deck())
    pool.subtract(int(c) for c in view.hand)
    pool.subtract(int(c) for c in view.discard_pile)
    pool.subtract(int(c) for m in view.table for c in m.cards)
    if view.bottom is not None:
        pool[int(view.bottom)] -= 1
    for q in range(n):
        if q != me:
            pool.subtract(known[q])
    if any(k < 0 for k in pool.values()):  # pragma: no cover - a bug in known_cards
        raise AssertionError("the cards the player knows of are more than the deck holds")
    cards = np.fromiter(sorted(pool.elements()), np.int32)
    if len(cards) != int(hidden.sum()) + view.stock_count:  # pragma: no cover - a bug
        raise AssertionError(f"{len(cards)} unseen cards for {int(hidden.sum())} hidden "
                             f"and {view.stock_count} in the stock")
    pos = fastgame._game.Position(
        kernel, n, view.current, view.turn, fastgame._PHASE_CODES[view.phase], cnt,
        np.zeros(0, np.int32), np.asarray(view.discard_pile, np.int32),
        -1 if view.bottom is None else int(view.bottom), fastgame.table_codes(view.table),
        list(view.opened), fastgame.turns_opened(view.history, n),
        fastgame.turn_info_codes(view.turn_info))
    # every seat's known cards, the viewer's too (what the others know of its hand: the
    # learned model reads it from their view of a rollout's position), as the kernel
    # keeps them
    kn = cnt.copy()
    kn[me] = 0
    for c, k in _own_known(view).items():
        kn[me, c] = k
    pos.set_known(kn)
    return pos, cards, hidden


def _own_known(view: PlayerView) -> Counter:
    """The viewer's cards that the public history shows (``known_cards`` of the viewer's
    own seat, as the other players count them): taken from the discard pile or the
    bottom, a joker freed by a swap, less the copies played since."""
    from .actions import DiscardRecord, DrawRecord, LayDownRecord, LayOffRecord, SwapRecord

    me = view.player
    known: Counter = Counter()

    def played(c: int) -> None:
        if known[c] > 0:
            known[c] -= 1

    for rec in view.history:
        if rec.player != me:
            continue
        t = type(rec)
        if isinstance(rec, DrawRecord):
            if rec.card is not None and rec.action.source != "stock":
                known[rec.card] += 1
        elif t is LayDownRecord:
            for m in rec.action.melds:
                for c in m:
                    played(c)
        elif t is LayOffRecord or t is DiscardRecord:
            played(rec.action.card)
        elif t is SwapRecord:
            played(rec.action.card)
            known[JOKER] += 1
    return +known


class SearchBot:
    """Determinized Monte Carlo search in the C game kernel, at every decision: where to
    draw from, which opening (or none yet), lay-downs, lay-offs, joker swaps and the
    discard; the tactician's move unless a challenger beats it in a paired test.

    * **Candidates** (``_game_searchbot.pxi``, ``list_cands``), the tactician's own move
      first. Draw: the bottom card whenever the rules allow it (it goes out at once,
      -120), else the stock and the discard pile when both may be drawn. Before opening:
      the most valuable opening, the most valuable one that keeps the jokers in hand, and
      waiting, i.e. each of the ``candidates`` (3) best discards by the greedy bot's key
      (the best opening value the rest keeps). After opening: a lay-down of the melds
      left in hand, up to 4 joker swaps, a lay-off of each card that fits the table (one
      place a card, up to 6), and the ``candidates`` best discards (least deadwood left,
      less the tactician's penalty for a card that feeds the next player). A freed joker
      and a bottom-card turn are the tactician's. A candidate whose move is the same as
      an earlier one's is dropped. After the candidate move the rest of the turn, like
      the rest of the deal, is the rollout's.
    * **A rollout**: the cards the player has not seen (the deck less its hand, the
      table, the discard pile, the bottom card and the cards known to be in other hands:
      taken from the discard pile or the bottom, or a freed joker, and not played since)
      are shuffled and dealt to the other hands (each its hidden count) and to the
      stock; the candidate move is made; every seat, the player's too, is played by the
      kernel's tactician for ``horizon`` (4) turns, counted from the decision's turn, or to
      the end of the deal if it ends first (``horizon=0``: always to the end). Every
      candidate of a determinization
      meets the same deal and the same reshuffles (common random numbers): the
      comparisons are paired. Its value is the *margin*: the other players' mean score
      less the player's own (penalty points; a draw scores 0). A rollout cut off at the
      horizon scores each hand as if another player went out then (the static margin):
      not opened, the unopened penalty; opened, its deadwood (the card values left after
      laying its best melds).
    * **The race**: determinizations in batches of 8, every live candidate played on
      each. With several challengers the first look is after 8 determinizations: a
      challenger is dropped when its paired mean difference to the tactician's move is
      more than one standard error below zero, or when it never differed from it; then,
      while more than two are left, the worse half by mean goes (sequential halving).
      The last challenger, picked from several, is tested again on fresh
      determinizations (so the pick does not bias the test). A paired test (that one,
      or a decision with one challenger, like a draw) plays at least 16, drops the
      challenger as soon as its mean falls below the tactician's move, and stops early
      once it is more than 3 standard errors above. The move is the challenger if its
      mean beats the tactician's move by more than ``z`` standard errors, else the
      tactician's.
    * **Budget**: ``rollouts`` (default 256) kernel rollouts a decision (a candidate
      played on one determinization is one), checked between batches once the first
      look's (or a paired test's) minimum is played. With ``time_ms`` the race also
      stops once that many milliseconds have passed (after that minimum), so the play
      depends on the machine.
    * **Seeding**: the determinizations come from the bot's own ``numpy`` Generator
      (``seed``); the same seed against the same opponents plays the same deal. The
      kernel's ``"search"`` seat (``fastgame.play_kernel_deal``, ``--engine auto``) runs
      the same code on the same view with the same generator: the same moves.

    It sees only its ``PlayerView``: the view holds no other hand and no stock order.
    It needs the kernel for the rules (``fastgame.supported``): other rules raise
    ``ValueError`` at the first decision. ``searches`` (decisions with two or more
    candidates), ``switches`` (decisions where it left the tactician's move) and
    ``rollouts_played`` count what it did.
    """

    rollouts: int
    time_ms: float | None
    candidates: int
    z: float
    horizon: int
    rng: np.random.Generator
    searches: int
    switches: int
    rollouts_played: int

    #: the learned model scoring the rollouts at the horizon (None, the default: the
    #: static margin; ``LearnedSearchBot`` has the shipped model)
    model: Model | None

    def __init__(self, seed: Any = None, rollouts: int | None = DEFAULT_ROLLOUTS,
                 time_ms: float | None = None, candidates: int = DEFAULT_CANDIDATES,
                 z: float = DEFAULT_Z, horizon: int = DEFAULT_HORIZON,
                 model: Any = None) -> None:
        if rollouts is None and time_ms is None:
            raise ValueError("give a budget: rollouts, time_ms or both")
        self.rollouts = (10**7 if rollouts is None
                         else int_arg("rollouts", rollouts, 2, 10**7))
        if time_ms is not None:
            if isinstance(time_ms, (bool, np.bool_)) or not isinstance(time_ms, Real):
                raise TypeError(f"time_ms must be a number of milliseconds, got {time_ms!r}")
            if not 0 < float(time_ms) < float("inf"):
                raise ValueError(f"time_ms must be > 0 (milliseconds a decision), got {time_ms}")
            time_ms = float(time_ms)
        self.time_ms = time_ms
        self.candidates = int_arg("candidates", candidates, 1, 16)
        if isinstance(z, (bool, np.bool_)) or not isinstance(z, Real) or not 0 <= float(z) < 100:
            raise ValueError(f"z must be a number of standard errors 0..100, got {z!r}")
        self.z = float(z)
        self.horizon = int_arg("horizon", horizon, 0, 10**6)
        # the model is loaded and checked now: a missing or damaged file refuses the bot
        self.model = None if model is None else load_model(model, game="r51")
        self.rng = np.random.default_rng(seed)
        self.last_candidates: int = 0
        self.searches = 0
        self.switches = 0
        self.rollouts_played = 0

    def __repr__(self) -> str:
        model = "None" if self.model is None else repr(self.model.path or self.model.game)
        return (f"{type(self).__name__}(rollouts={self.rollouts}, time_ms={self.time_ms}, "
                f"candidates={self.candidates}, z={self.z}, horizon={self.horizon}, "
                f"model={model})")

    @property
    def kernel_code(self) -> int:
        """The kernel's bot code of this seat: 4 with a learned model, 5 without."""
        return 5 if self.model is None else 4

    def params(self) -> tuple:
        """The kernel's parameters of a search seat: ``(budget, candidates, z, ms, horizon)``,
        and the model last when the bot has one."""
        base = (self.rollouts, self.candidates, self.z, self.time_ms or 0.0, self.horizon)
        return base if self.model is None else (*base, self.model)

    @classmethod
    def default_params(cls) -> tuple:
        """A kernel seat given by name (``"search"``): the defaults, no model."""
        return (DEFAULT_ROLLOUTS, DEFAULT_CANDIDATES, DEFAULT_Z, 0.0, DEFAULT_HORIZON)

    def choose(self, view: PlayerView) -> Action:
        pos, pool, hidden = view_position(view)
        log = np.empty(_LOG, np.int32)
        n, played, searched, switched, self.last_candidates = pos.search(
            pool, hidden, self.rng, self.params()[:5], log, self.model)
        self.rollouts_played += played
        self.searches += searched
        self.switches += switched
        moves = fastgame._decode(log, n)
        if len(moves) != 1:  # pragma: no cover - a kernel bug
            raise AssertionError(f"the search chose {len(moves)} moves")
        return moves[0]


class PlainSearchBot(SearchBot):
    """The search bot as it was before the learned model (``"search-plain"``): the stable
    reference every strength claim is measured against, whose seeded games never move.
    It is ``SearchBot``'s default today (``SearchBot()`` plays the same games); the name
    stays fixed if the default ever changes.

    * **Candidates, rollouts, race, budget, seeding**: ``SearchBot``'s.
    * **Horizon**: a rollout cut off there is scored by the static margin (each hand as if
      another player went out then), not by the learned model.
    """

    def __init__(self, seed: Any = None, rollouts: int | None = DEFAULT_ROLLOUTS,
                 time_ms: float | None = None, candidates: int = DEFAULT_CANDIDATES,
                 z: float = DEFAULT_Z, horizon: int = DEFAULT_HORIZON, model: Any = None) -> None:
        super().__init__(seed=seed, rollouts=rollouts, time_ms=time_ms, candidates=candidates,
                         z=z, horizon=horizon, model=model)


class LearnedSearchBot(SearchBot):
    """The search bot whose rollouts are scored at the horizon by the learned model
    (``"search-learned"``; ``SearchBot(model="r51")`` is the same bot).

    * **Candidates, rollouts, race, budget, seeding**: ``SearchBot``'s.
    * **Horizon**: a rollout cut off there is scored half by the static margin, half by
      the shipped model's margin (``rummy51.learned``, ``models/r51.npz``) from every
      seat's own view of the rollout's position (docs/learned.md).

    It is not the default search: in a paired seat-permuted run against ``search-plain``
    it scored below it (docs/learned.md gives the run and its command). A missing or
    damaged model file refuses the bot (``rummy51.learned.ModelError``).
    """

    def __init__(self, seed: Any = None, rollouts: int | None = DEFAULT_ROLLOUTS,
                 time_ms: float | None = None, candidates: int = DEFAULT_CANDIDATES,
                 z: float = DEFAULT_Z, horizon: int = DEFAULT_HORIZON, model: Any = "r51") -> None:
        super().__init__(seed=seed, rollouts=rollouts, time_ms=time_ms, candidates=candidates,
                         z=z, horizon=horizon, model=model)

    @classmethod
    def default_params(cls) -> tuple:
        """A kernel seat given by name (``"search-learned"``): the defaults, the shipped model."""
        return (DEFAULT_ROLLOUTS, DEFAULT_CANDIDATES, DEFAULT_Z, 0.0, DEFAULT_HORIZON,
                load_model("r51", game="r51"))


# the kernel's "search", "search-plain" (5) and "search-learned" (4) seats play these
# bots (fastgame.bot_code; an instance says itself whether it has a model)
fastgame.register_search_bot(SearchBot, 5)
fastgame.register_search_bot(LearnedSearchBot, 4)
fastgame.register_search_bot(PlainSearchBot, 5)
