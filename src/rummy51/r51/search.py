"""The search bot: determinized Monte Carlo rollouts through the C game kernel.

``SearchBot`` plays like ``TacticianBot`` except at its two choices that decide most of a
deal: where to draw from and which card to discard. There it tries every candidate
move in many imagined deals consistent with what it sees and keeps the move with the
best mean outcome. Each imagined deal (a *determinization*) deals the cards the player
has not seen (the other hands less the cards known to be there, and the stock) at
random; the candidate move is made, and every seat is played by the kernel's tactician
(or greedy bot) to the end of the deal. See ``SearchBot`` for the strategy, its budget
and its seeding; docs/games.md, section "Search bot", for how it does against the
tactician.

>>> from rummy51 import RuleSet
>>> from rummy51.r51.bots import TacticianBot, play_deal
>>> state = play_deal([SearchBot(seed=1, rollouts=40), TacticianBot()], RuleSet(), seed=3)
>>> state.over
True
"""
from __future__ import annotations

import time
from collections import Counter
from numbers import Real

import numpy as np

from .._checks import int_arg
from ..cards import JOKER
from .actions import (
    BOTTOM,
    DISCARD,
    STOCK,
    Action,
    Discard,
    DiscardRecord,
    Draw,
    DrawRecord,
    LayDownRecord,
    LayOffRecord,
    Phase,
    SwapRecord,
)
from .bots import TacticianBot
from .engine import PlayerView

__all__ = ["DEFAULT_ROLLOUTS", "SearchBot", "known_cards", "view_position"]

#: rollouts a decision by default
DEFAULT_ROLLOUTS = 200
#: discard candidates tried: the tactician's best few by its own ranking
DEFAULT_CANDIDATES = 3
#: standard errors by which a challenger must beat the tactician's move to be played
DEFAULT_Z = 1.0
_ROLLOUT_BOTS = {"tactician": 3, "greedy": 1}
_SOURCE = {STOCK: 0, DISCARD: 1, BOTTOM: 2}
_BATCH = 2  # rollouts a candidate between two looks at the clock (time budget)


def known_cards(view: PlayerView) -> list[Counter]:
    """Per seat, cards the public history shows in its hand now (empty for the viewer):
    a card taken from the discard pile or the bottom, a joker freed by a swap, each less
    the copies the seat has played since (laid down, laid off, swapped in, discarded).
    With two decks a played copy may have been another one of the same card; counting it
    against the known copy keeps the count a lower bound, never more than the seat
    holds."""
    n = view.n_players
    known: list[Counter] = [Counter() for _ in range(n)]

    def played(p, c):
        if known[p][c] > 0:
            known[p][c] -= 1

    for rec in view.history:
        t = type(rec)
        p = rec.player
        if p == view.player or p < 0:
            continue
        if isinstance(rec, DrawRecord):
            if rec.card is not None:
                known[p][rec.card] += 1
        elif t is LayDownRecord:
            for m in rec.action.melds:
                for c in m:
                    played(p, c)
        elif t is LayOffRecord or t is DiscardRecord:
            played(p, rec.action.card)
        elif t is SwapRecord:
            played(p, rec.action.card)
            known[p][JOKER] += 1
    return [+k for k in known]


def view_position(view: PlayerView):
    """``(position, pool, hidden)``: what ``view.player`` knows, loaded into the kernel.

    ``position`` holds the player's own hand, for every other seat the cards known to be
    in its hand (``known_cards``: taken from the discard pile or the bottom, a freed
    joker, and not played since), the table, the discard pile, the bottom card, who
    opened, the turn and this turn's ``TurnInfo``; its stock is empty. ``pool`` is every
    card the player has not seen (the deck less their hand, the table, the discard pile,
    the bottom card and the known cards), ``hidden[q]`` how many of them seat ``q``
    holds; the rest (``view.stock_count``) is the stock."""
    from . import fastgame

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
    return pos, cards, hidden


def ranked_discards(view: PlayerView, tactician: TacticianBot) -> list[int]:
    """The cards the rules let the player discard, best first by ``TacticianBot``'s own
    discard ranking (its ``_discard`` is the first): ``tactician.ranked_discards``."""
    return tactician.ranked_discards(view)


class SearchBot:
    """Tactician play, with the draw and the discard chosen by determinized Monte Carlo
    rollouts in the C game kernel.

    * Draw: the bottom card whenever the rules allow it (it goes out at once, -120), as
      the tactician does. Else, when both the stock and the discard may be drawn, the
      tactician's source is tested against the other on all ``rollouts`` rollouts and
      the other is taken only if its mean *margin* is higher by more than ``z``
      standard errors of the paired differences.
    * Play: the tactician's move (go out at once, open with the best opening, lay down,
      swap jokers, lay off). When the tactician would discard, its ``candidates`` (3)
      best discards by its own ranking are tried: half of the rollouts spread over
      them, the best of the others (the *challenger*) is then tested against the
      tactician's card on the other half, fresh rollouts (so the pick does not bias
      the test), and played only if it wins by more than ``z`` standard errors.
    * A rollout: the unseen cards (the deck less the player's hand, the table, the
      discard pile, the bottom card and the cards known to be in other hands: taken
      from the discard pile or the bottom, or a freed joker, and not played since) are
      shuffled and dealt to the other hands (each its hidden count) and to the stock;
      the candidate is made; every seat, the player's too, is played by the kernel's
      ``rollout_bot`` (tactician by default) to the end of the deal. Every candidate
      of a rollout meets the same determinization and reshuffles (common random
      numbers); the comparisons are paired.
    * Margin: the other players' mean score less the player's own score at the end
      of the rollout (scores are penalty points, lower is better; a draw scores 0), so
      a higher margin is better; with two players it is the score difference the
      tournaments report.
    * Budget: ``rollouts`` (default 200) determinizations a searched decision, each
      played out once for every candidate it serves: a draw plays both sources on all
      200 (400 kernel rollouts); a discard its 3 candidates on 33 each, then the
      tactician's card and the challenger on the other 101 (301 kernel rollouts). With ``time_ms``, batches of determinizations until that many
      milliseconds have passed (half for a discard's first stage); ``rollouts`` then
      caps them, ``rollouts=None`` leaves only the clock.
    * Seeding: the determinizations come from the bot's own ``numpy`` Generator
      (``seed``), so the same seed against the same opponents plays the same deal; with
      ``time_ms`` the number of rollouts, and so the play, depends on the machine.

    It sees only its ``PlayerView``: the view holds no other hand and no stock order,
    and the rollouts deal the unseen cards at random. It needs the kernel for the rules
    (``fastgame.supported``): other rules raise ``ValueError`` at the first search.
    ``searches``, ``switches`` (decisions where it left the tactician's move) and
    ``rollouts_played`` count what it did.
    """

    rollouts: int | None
    time_ms: float | None
    candidates: int
    z: float
    rollout_bot: str
    rng: np.random.Generator
    _tactician: TacticianBot
    searches: int
    switches: int
    rollouts_played: int

    def __init__(self, seed=None, rollouts: int | None = DEFAULT_ROLLOUTS,
                 time_ms: float | None = None, candidates: int = DEFAULT_CANDIDATES,
                 z: float = DEFAULT_Z, rollout_bot: str = "tactician") -> None:
        if rollouts is None and time_ms is None:
            raise ValueError("give a budget: rollouts, time_ms or both")
        self.rollouts = None if rollouts is None else int_arg("rollouts", rollouts, 2, 10**7)
        if time_ms is not None:
            if isinstance(time_ms, (bool, np.bool_)) or not isinstance(time_ms, Real):
                raise TypeError(f"time_ms must be a number of milliseconds, got {time_ms!r}")
            if not 0 < float(time_ms) < float("inf"):
                raise ValueError(f"time_ms must be > 0 (milliseconds a decision), got {time_ms}")
            time_ms = float(time_ms)
        self.time_ms = time_ms
        self.candidates = int_arg("candidates", candidates, 2, 256)
        if isinstance(z, (bool, np.bool_)) or not isinstance(z, Real) or not 0 <= float(z) < 100:
            raise ValueError(f"z must be a number of standard errors 0..100, got {z!r}")
        self.z = float(z)
        if rollout_bot not in _ROLLOUT_BOTS:
            raise ValueError(f"rollout_bot must be one of {', '.join(_ROLLOUT_BOTS)}, got "
                             f"{rollout_bot!r}")
        self.rollout_bot = rollout_bot
        self.rng = np.random.default_rng(seed)
        self._tactician = TacticianBot()
        self.searches = 0
        self.switches = 0
        self.rollouts_played = 0

    def __repr__(self) -> str:
        return (f"SearchBot(rollouts={self.rollouts}, time_ms={self.time_ms}, "
                f"candidates={self.candidates}, z={self.z}, rollout_bot={self.rollout_bot!r})")

    # ------------------------------------------------------------------ choose
    def choose(self, view: PlayerView) -> Action:
        if view.phase is Phase.DRAW:
            return self._draw(view)
        return self._play(view)

    def _draw(self, view: PlayerView) -> Action:
        if view.bottom is not None and view.can_draw(BOTTOM):
            return Draw(BOTTOM)
        own = self._tactician.choose(view)
        sources = [s for s in (STOCK, DISCARD) if view.can_draw(s)]
        if len(sources) < 2 or not isinstance(own, Draw):
            return own
        other = DISCARD if own.source == STOCK else STOCK
        cands = np.array([[0, _SOURCE[own.source], 0], [0, _SOURCE[other], 0]], np.int32)
        self._start()
        pos = view_position(view)
        diffs = self._paired(view, pos, cands, self.rollouts, self._deadline(1.0))
        self.searches += 1
        return Draw(other) if self._wins(diffs[1]) else own

    def _play(self, view: PlayerView) -> Action:
        own = self._tactician.choose(view)
        if not isinstance(own, Discard):
            return own
        ranked = ranked_discards(view, self._tactician)
        if len(ranked) < 2:
            return own
        if ranked[0] != own.card:  # pragma: no cover - the ranking is the tactician's
            ranked.remove(own.card)
            ranked.insert(0, own.card)
        ranked = ranked[:self.candidates]
        self._start()
        pos = view_position(view)
        self.searches += 1
        first = None if self.rollouts is None else self.rollouts // 2
        cands = np.array([[4, c, 0] for c in ranked], np.int32)
        if len(ranked) > 2:
            per = None if first is None else max(1, first // len(ranked))
            diffs = self._paired(view, pos, cands, per, self._deadline(0.5))
            challenger = 1 + int(np.argmax([d.mean() for d in diffs[1:]]))
            rest = (None if self.rollouts is None or per is None
                    else max(1, self.rollouts - per * len(ranked)))
            cands = cands[[0, challenger]]
            diffs = self._paired(view, pos, cands, rest, self._deadline(1.0))
        else:
            challenger = 1
            diffs = self._paired(view, pos, cands, self.rollouts, self._deadline(1.0))
        return Discard(ranked[challenger]) if self._wins(diffs[1]) else own

    # ------------------------------------------------------------------ search
    def _start(self) -> None:
        """A decision's search begins: its time budget starts now."""
        if self.time_ms is not None:
            self._until = time.perf_counter() + self.time_ms / 1000.0

    def _wins(self, d: np.ndarray) -> bool:
        """Whether paired margins ``d`` (challenger less the tactician's move) are above
        zero by more than ``z`` standard errors."""
        if len(d) < 2:
            return False
        se = d.std(ddof=1) / np.sqrt(len(d))
        win = bool(d.mean() > self.z * se and d.mean() > 0)
        self.switches += win
        return win

    def _deadline(self, share: float) -> float | None:
        """With a time budget: the clock time by which ``share`` of what is left of this
        decision's budget is spent (None without one)."""
        if self.time_ms is None:
            return None
        now = time.perf_counter()
        return now + share * max(0.0, self._until - now)

    def _paired(self, view, pos, cands, per: int | None, until: float | None
                ) -> list[np.ndarray]:
        """Margins of every candidate less candidate 0's, rollout by rollout: ``per``
        rollouts each, or (``until``, a clock time) batches until then, ``per`` at most."""
        position, pool, hidden = pos
        n = view.n_players
        me = view.player
        others = [q for q in range(n) if q != me]
        bots = [_ROLLOUT_BOTS[self.rollout_bot]] * n
        params = [None] * n
        chunks = []
        if until is None:
            chunks.append(self._run(position, pool, hidden, cands, bots, params, per, others, me))
        else:
            done = 0
            while True:
                k = _BATCH if per is None else min(_BATCH, per - done)
                chunks.append(self._run(position, pool, hidden, cands, bots, params, k,
                                        others, me))
                done += k
                if (per is not None and done >= per) or time.perf_counter() >= until:
                    break
        m = np.concatenate(chunks, axis=1)
        self.rollouts_played += m.size
        return [m[i] - m[0] for i in range(len(cands))]

    def _run(self, pos, pool, hidden, cands, bots, params, k, others, me) -> np.ndarray:
        out = np.empty((len(cands), k, len(hidden)), np.int32)
        pos.rollouts(pool, hidden, cands, self.rng, bots, params, out)
        return out[:, :, others].mean(axis=2) - out[:, :, me]
