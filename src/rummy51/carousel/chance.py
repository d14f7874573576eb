"""Carousel with chance nodes, information states and resampling (for OpenSpiel).

``CarouselChanceState`` is a ``CarouselAgentState`` whose deals and stock draws are
chance outcomes, as OpenSpiel's ``EXPLICIT_STOCHASTIC`` games are: every round is dealt
card by card (outcome: a card kind 0..52, weighted by the copies not yet dealt; the
dealer's left gets the first ``hand_size`` cards, and so on around the table), and a
draw from a non-empty stock is the player's decision ``DRAW`` followed by a chance node
whose outcome is the card (weighted by its copies in the stock).

>>> from rummy51.carousel import CarouselRules
>>> s = CarouselChanceState.new_chance(CarouselRules.for_players(2), dealer=0)
>>> s.current_player(), len(s.chance_outcomes())
(-1, 53)

What player ``p`` knows: ``information_state_string(p)`` (perfect recall: the cards
dealt to ``p`` each round, ``p``'s own draws with their cards, every public move; the
cards chosen for a play are public, as the play that follows shows them),
``information_state_tensor(p)`` (the observation tensor, then the cards dealt to ``p``
this round, ``p``'s stock draws this round, and per seat the stock draws this round over
the deck size). ``resample_from_infostate(p, rng)`` deals the cards ``p`` cannot see
(the other hands, the stock's order) again: in Carousel every hidden card comes from the
stock and every card a player shows goes to the table, so any deal of those cards with
the same hand sizes is consistent with what ``p`` saw.

``max_rounds`` caps a game (OpenSpiel needs a bound on its length): a game still
running after that many rounds ends there, its returns the totals so far.
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import cast

import numpy as np

from ..cards import card_text
from ..common.state import deprecated_clone
from .actions import DealRecord, DrawRecord, KnockRecord, MeldRecord, PassRecord, RoundRecord
from .agent import TERMINAL, CarouselAgentState, carousel_layout_for, round_records, seat_index
from .codec import DRAW
from .rules import CarouselRules

__all__ = ["CarouselChanceState", "CHANCE", "CarouselInfoLayout", "carousel_info_layout_for",
           "max_game_length"]

CHANCE = -1


def max_game_length(rules: CarouselRules, max_rounds: int) -> int:
    """An upper bound on the actions of a game (chance outcomes included): per round the
    deal, then per turn at most three draws with their chance outcomes, a card added per
    card in hand, a commit and a pass or knock; a round has at most one turn per stock
    card and a last turn for every player."""
    n = rules.players
    deal = n * rules.hand_size
    stock = rules.deck_size - deal
    per_turn = 6 + (rules.hand_size + 3) + 2
    return max_rounds * (deal + (stock + 2 * n + 1) * per_turn)


class CarouselChanceState(CarouselAgentState):
    """A Carousel game whose deals and draws are chance nodes (see the module docstring)."""

    _dealing: list[int] | None   # the cards of the round being dealt, in order
    _pending: bool                  # a draw waits for its chance outcome
    max_rounds: int

    @classmethod
    def new_chance(cls, rules: CarouselRules | None = None, dealer: int = 0,
                   round_only: bool = False, max_rounds: int = 50) -> CarouselChanceState:
        """A new game at its first chance node (the first card of the deal)."""
        rules = CarouselRules.for_players(4) if rules is None else rules
        if isinstance(max_rounds, bool) or not isinstance(max_rounds, (int, np.integer)) \
                or max_rounds < 1:
            raise ValueError(f"max_rounds must be an int >= 1, got {max_rounds!r}")
        s = cast(CarouselChanceState, cls.new(rules, seed=0, round_only=round_only,
                                              dealer=dealer))
        s._dealing = []
        s._pending = False
        s.max_rounds = int(max_rounds)
        return s

    def copy(self) -> CarouselChanceState:
        """An independent copy, fast (the game's ``GameState.copy()``)."""
        s = object.__new__(CarouselChanceState)
        s.__dict__ = self.__dict__.copy()
        s.game = self.game.copy()
        if self._dealing is not None:
            s._dealing = self._dealing[:]
        return s

    clone = deprecated_clone("CarouselChanceState")

    def __deepcopy__(self, memo: dict) -> CarouselChanceState:
        return self.copy()

    @property
    def dealing(self) -> bool:
        """A round is being dealt (card by card, by chance outcomes)."""
        return self._dealing is not None

    @property
    def dealt(self) -> tuple[int, ...]:
        """The cards of the round being dealt so far, in order (empty when none is)."""
        return tuple(self._dealing or ())

    # ------------------------------------------------------------------ who moves
    def is_terminal(self) -> bool:
        return super().is_terminal() or (self.game.round >= self.max_rounds)

    def current_player(self) -> int:
        if self.is_terminal():
            return TERMINAL
        if self._dealing is not None or self._pending:
            return CHANCE
        return self.game.current

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def legal_actions(self) -> list[int]:
        if self.is_chance_node():
            return []
        return super().legal_actions()

    def returns(self) -> list[float]:
        g = self.game
        if self.is_terminal() and not super().is_terminal():  # capped by max_rounds
            return [float(x) for x in g.totals]
        return super().returns()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(card kind, probability)`` of the chance node."""
        if self._dealing is not None:
            counts = Counter(self.rules.deck()) - Counter(self._dealing)
        elif self._pending:
            counts = Counter(self.game.stock)
        else:
            return []
        total = sum(counts.values())
        return [(c, counts[c] / total) for c in sorted(counts)]

    # ------------------------------------------------------------------ moves
    def apply_action(self, action: int) -> None:
        if self.is_chance_node():
            self._apply_chance(action)
            return
        if not isinstance(action, (bool, np.bool_)) and isinstance(action, (int, np.integer)) \
                and int(action) == DRAW and DRAW in self.legal_actions() and self.game.stock_size:
            self._pending = True
            self._legal = None
            return
        round_before = self.game.round
        super().apply_action(action)
        if self.game.round != round_before and not self.is_terminal():
            self._dealing = []  # the engine dealt the next round: it is dealt again by chance

    def _apply_chance(self, action: int) -> None:
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"a chance outcome is a card code 0..52, got {type(action).__name__} "
                            f"{action!r:.40}")
        c = int(action)
        outcomes = dict(self.chance_outcomes())
        if c not in outcomes:
            where = "left to deal" if self._dealing is not None else "in the stock"
            raise ValueError(f"chance outcome {c} is not a card {where} (outcomes: "
                             f"{', '.join(str(k) for k in sorted(outcomes))})")
        g = self.game
        if self._dealing is not None:
            self._dealing.append(c)
            if len(self._dealing) == g.n_players * self.rules.hand_size:
                self._finish_deal()
        else:
            g.put_on_stock(c)
            self._pending = False
            g.draw()
        self._oracle = None
        self._legal = None

    def _finish_deal(self) -> None:
        """Lay the dealt cards out as the engine's deal of this round would (the rest of
        the deck is the stock, in an order the draws' chance outcomes decide)."""
        dealt = self._dealing
        assert dealt is not None
        rest = list((Counter(self.rules.deck()) - Counter(dealt)).elements())
        self.game.deal_again(tuple(dealt + sorted(rest)))
        self._dealing = None

    def action_text(self, a: int) -> str:
        if self.is_chance_node():
            return f"{'deal' if self._dealing is not None else 'stock'} {card_text(int(a))}"
        return super().action_text(a)

    # ------------------------------------------------------------------ what a player knows
    def _dealt_to(self, p: int) -> list[int]:
        """The cards dealt to ``p`` this round (so far, while dealing)."""
        g = self.game
        n, h = g.n_players, self.rules.hand_size
        k = (p - g.dealer - 1) % n
        if self._dealing is not None:
            return self._dealing[k * h:(k + 1) * h]
        return list(g.decks[-1][k * h:(k + 1) * h])

    def information_state_string(self, player: int) -> str:
        g = self.game
        p = seat_index(player, g.n_players)
        lines = [f"carousel player {p} of {g.n_players}"]
        n, h = g.n_players, self.rules.hand_size
        for rec in g.history:
            if isinstance(rec, DealRecord):
                if rec.round == g.round and self._dealing is not None:
                    continue
                k = (p - rec.dealer - 1) % n
                mine = sorted(rec.deck[k * h:(k + 1) * h])
                lines.append(f"round {rec.round} dealer {rec.dealer}: dealt "
                             + " ".join(card_text(c) for c in mine))
            elif isinstance(rec, DrawRecord):
                shown = rec.player == p and rec.card is not None
                lines.append(f"{rec.turn} p{rec.player}: draw"
                             + (f" {card_text(rec.card)}" if shown and rec.card is not None
                                else "")
                             + (" (empty)" if rec.empty else ""))
            elif isinstance(rec, MeldRecord):
                lines.append(f"{rec.turn} p{rec.player}: {rec.action.text()}")
            elif isinstance(rec, KnockRecord):
                lines.append(f"{rec.turn} p{rec.player}: knock")
            elif isinstance(rec, PassRecord):
                lines.append(f"{rec.turn} p{rec.player}: pass")
            elif isinstance(rec, RoundRecord):
                lines.append(f"round over: {rec.result.to_dict()}")
        if self._dealing is not None:
            lines.append(f"round {g.round} dealing: " + " ".join(card_text(c) for c in
                                                                 self._dealt_to(p)))
        if self.chosen:
            lines.append(f"p{g.current} chose " + " ".join(card_text(c) for c in self.chosen))
        if self._pending:
            lines.append(f"p{g.current}: draw (pending)")
        return "\n".join(lines)

    def observation(self, player: int) -> np.ndarray:
        if self._dealing is not None:  # only the cards dealt to the player so far
            lay = carousel_layout_for(self.rules)
            out = np.zeros(lay.size, np.float32)
            lay._cards(out, lay.offsets["hand"], self._dealt_to(seat_index(player, self.n_players)))
            return out
        return super().observation(player)

    def observation_string(self, player: int) -> str:
        p = seat_index(player, self.n_players)
        if self._dealing is not None:
            return (f"player {p}, round {self.game.round}, dealing: "
                    + " ".join(card_text(c) for c in self._dealt_to(p)))
        return super().observation_string(p) + ("\n(draw pending)" if self._pending else "")

    def information_state_tensor(self, player: int) -> np.ndarray:
        return carousel_info_layout_for(self.rules).encode(self, player)

    def resample_from_infostate(self, player: int,
                                rng: np.random.Generator | int | None = None) -> CarouselChanceState:
        """A state ``player`` cannot tell from this one, the cards hidden from them (the
        other hands, the stock's order, the cards being dealt to others) dealt again."""
        p = seat_index(player, self.n_players)
        rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        s = self.copy()
        g = s.game
        if s._dealing is not None:
            n, h = g.n_players, self.rules.hand_size
            k = (p - g.dealer - 1) % n
            mine = set(range(k * h, min((k + 1) * h, len(s._dealing))))
            unseen = Counter(self.rules.deck()) - Counter(s._dealing[i] for i in mine)
            cards = list(unseen.elements())
            rng.shuffle(cards)
            for i in range(len(s._dealing)):
                if i not in mine:
                    s._dealing[i] = cards.pop()
            return s
        others = [q for q in range(g.n_players) if q != p]
        # the cards another player on turn has chosen for a play are public and stay in
        # their hand; the rest of that hand must still complete the play (as the real one
        # does): deals that do not are drawn again (the real deal is the last resort)
        keep: dict[int, list[int]] = {q: [] for q in others}
        q_now = g.current
        if q_now != p and self.chosen:
            keep[q_now] = list(self.chosen)
        hands0, stock0 = [h[:] for h in g.hands], list(g.stock)
        base = [c for q in others for c in g.hands[q]] + list(g.stock)[::-1]
        for c in keep.get(q_now, []):
            base.remove(c)
        for _ in range(200):
            pool = base[:]
            rng.shuffle(pool)
            for q in others:
                size = len(hands0[q]) - len(keep[q])
                g.hands[q] = sorted(keep[q] + pool[:size])
                del pool[:size]
            g.replace_stock(pool[::-1])
            s._oracle = None
            s._legal = None
            if not keep.get(q_now) or s.legal_actions():
                return s
        g.hands[:] = hands0
        g.replace_stock(stock0)
        s._oracle = None
        s._legal = None
        return s


class CarouselInfoLayout:
    """The information-state tensor's pieces: the observation's, then ``dealt`` (the
    cards dealt to the player this round), ``own_draws`` (their stock draws this round;
    card-count blocks) and ``draws`` (per seat, stock draws this round / deck_size)."""

    def __init__(self, rules: CarouselRules) -> None:
        self.observation = obs = carousel_layout_for(rules)
        b = obs.card_block
        n = rules.players
        self.pieces = list(obs.pieces) + [("dealt", b), ("own_draws", b), ("draws", n)]
        self.offsets: dict[str, int] = {}
        o = 0
        for name, size in self.pieces:
            self.offsets[name] = o
            o += size
        self.size = o
        self.rules = rules

    def encode(self, state: CarouselChanceState, player: int) -> np.ndarray:
        g = state.game
        n = g.n_players
        p = seat_index(player, n)
        out = np.zeros(self.size, np.float32)
        obs = self.observation
        out[:obs.size] = state.observation(p)
        obs._cards(out, self.offsets["dealt"], state._dealt_to(p))
        if state._dealing is not None:
            return out
        own: list[int] = []
        draws = [0] * n
        for rec in round_records(g):
            if isinstance(rec, DrawRecord) and not rec.empty:
                draws[rec.player] += 1
                if rec.player == p and rec.card is not None:
                    own.append(rec.card)
        obs._cards(out, self.offsets["own_draws"], own)
        o = self.offsets["draws"]
        for k in range(n):
            out[o + k] = min(1.0, draws[(p + k) % n] / self.rules.deck_size)
        return out


@lru_cache(maxsize=32)
def carousel_info_layout_for(rules: CarouselRules) -> CarouselInfoLayout:
    return CarouselInfoLayout(rules)
