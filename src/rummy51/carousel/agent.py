"""A game of Carousel as a sequence of integer actions (``rummy51.carousel.codec``).

``CarouselAgentState`` wraps the engine's ``GameState`` with the cards chosen for the
meld play being built, the legal ids and mask (the solver's answers), an observation
tensor and strings, for the Gymnasium and other agent doors.

>>> from rummy51.carousel import CarouselRules
>>> s = CarouselAgentState.new(CarouselRules.for_players(3), seed=7)
>>> s.legal_actions()                  # a turn starts with a draw
[0]
>>> s.apply_action(0)
>>> s.action_text(s.legal_actions()[0])
'draw'

``round_only=True`` ends the state with its first round (returns: the round's scores);
otherwise it runs the whole game (returns: the final scores, docs/rules-carousel.md 6).
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ..cards import JOKER, card_text
from ..common.state import deprecated_clone
from .actions import Action, Draw, IllegalMove, Knock, Meld, MeldRecord, Pass, Phase, Record
from .codec import ADD0, COMMIT, DRAW, KNOCK, NUM_ACTIONS, PASS, MaskOracle, action_name, chosen_text
from .engine import GameState
from .rules import CarouselRules

__all__ = ["CarouselAgentState", "CarouselLayout", "carousel_layout_for", "check_action_id",
           "fast_copy", "round_records", "seat_index"]

_PHASES = (Phase.DRAW, Phase.MELD, Phase.NO_DRAW, Phase.END, Phase.OVER)
TERMINAL = -4


def check_action_id(action: object) -> int:
    """``action`` as an int id 0..NUM_ACTIONS-1, or a one-line TypeError / ValueError."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"a Carousel action id is an int 0..{NUM_ACTIONS - 1}, got "
                        f"{type(action).__name__} {action!r:.40}")
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action id {a} is out of range 0..{NUM_ACTIONS - 1}")
    return a


class CarouselAgentState:
    """One game (or one round, ``round_only``) of Carousel as integer actions."""

    rules: CarouselRules
    game: GameState
    chosen: tuple[int, ...]
    round_only: bool
    _oracle: MaskOracle | None
    _legal: list[int] | None
    _round0: int

    @classmethod
    def new(cls, rules: CarouselRules | None = None, players: int | None = None,
            seed: Any = None, round_only: bool = False, dealer: int | None = None
            ) -> CarouselAgentState:
        """A new game shuffled from ``seed`` (``GameState.new``)."""
        s = cls.__new__(cls)
        s.game = GameState.new(rules, players=players, seed=seed, dealer=dealer)
        s.rules = s.game.rules
        s.chosen = ()
        s.round_only = bool(round_only)
        s._oracle = None
        s._legal = None
        s._round0 = s.game.round
        return s

    @property
    def n_players(self) -> int:
        return self.game.n_players

    def copy(self) -> CarouselAgentState:
        """An independent copy, fast (the game's ``GameState.copy()``, not ``deepcopy``)."""
        s = object.__new__(CarouselAgentState)
        s.__dict__ = self.__dict__.copy()
        s.game = self.game.copy()
        return s

    clone = deprecated_clone("CarouselAgentState")

    def __getstate__(self) -> dict:
        d = dict(self.__dict__)
        d["_oracle"] = None  # the solver's compiled rules do not pickle; remade on demand
        d["_legal"] = None
        return d

    def __setstate__(self, d: dict) -> None:
        self.__dict__.update(d)

    # ------------------------------------------------------------------ who moves
    def is_terminal(self) -> bool:
        g = self.game
        return g.phase is Phase.OVER or (self.round_only and g.round != self._round0)

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self.game.current

    def is_chance_node(self) -> bool:
        """False: this state shuffles from its seed (``rummy51.carousel.chance`` has the
        chance-node version)."""
        return False

    def oracle(self) -> MaskOracle:
        """The solver's answers for this position (made once per position)."""
        if self._oracle is None:
            g = self.game
            self._oracle = MaskOracle(g.table, g.hands[g.current], self.rules)
        return self._oracle

    # ------------------------------------------------------------------ actions
    def legal_actions(self) -> list[int]:
        """The legal ids, ascending (``[]`` at the end)."""
        if self._legal is not None:
            return self._legal
        out: list[int] = []
        if not self.is_terminal():
            g = self.game
            ph = g.phase
            if ph is Phase.DRAW:
                out = [DRAW]
            elif ph is Phase.END:
                out = [PASS] + ([KNOCK] if g.can_knock() else [])
            else:  # MELD or NO_DRAW: a play may be built
                o = self.oracle()
                if not self.chosen:
                    out = [DRAW] if ph is Phase.MELD else [PASS]
                    if ph is Phase.NO_DRAW and g.can_knock():
                        out.append(KNOCK)
                elif o.can_commit(self.chosen):
                    out.append(COMMIT)
                out += [ADD0 + k for k in o.playable(self.chosen)]
        self._legal = out
        return out

    def legal_actions_mask(self) -> np.ndarray:
        """int8 of ``NUM_ACTIONS``: 1 where the id is legal."""
        mask = np.zeros(NUM_ACTIONS, np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def why_illegal(self, a: int) -> str:
        """Why id ``a`` is not legal now, in a few words."""
        if self.is_terminal():
            return "the game is over" if self.game.phase is Phase.OVER else "the round is over"
        g = self.game
        if a >= ADD0:
            k = a - ADD0
            if g.phase not in (Phase.MELD, Phase.NO_DRAW):
                return f"no meld can be made now (phase {g.phase.value})"
            held = g.hands[g.current].count(k)
            if held <= self.chosen.count(k):
                return (f"the hand holds no {'more ' if held else ''}{card_text(k)} to add")
            return (f"no legal play places {chosen_text(self.chosen + (k,))} (with or "
                    "without more cards of the hand)")
        if a == COMMIT:
            if not self.chosen:
                return "no card is chosen to commit"
            try:
                self.oracle().play(self.chosen)
            except IllegalMove as e:
                return f"the chosen cards {chosen_text(self.chosen)} cannot be placed: {e.reason}"
            return "not a legal commit here"
        if self.chosen:
            return (f"cards are chosen ({chosen_text(self.chosen)}): add more or commit "
                    "before another move")
        try:
            move: Action = Draw() if a == DRAW else Pass() if a == PASS else Knock()
            g.verify(move)
        except IllegalMove as e:
            return str(e)
        return "not a legal move here"

    def apply_action(self, action: int) -> None:
        """Make id ``action``; an illegal or malformed id is a one-line ``IllegalMove`` /
        ``TypeError`` / ``ValueError`` and the state is unchanged."""
        a = check_action_id(action)
        if self.is_terminal():
            raise IllegalMove("engine", f"action {a} ({action_name(a)}): the "
                              f"{'game' if self.game.phase is Phase.OVER else 'round'} is over")
        if a not in self.legal_actions():
            raise IllegalMove("engine", f"action {a} ({action_name(a)}) is not legal now: "
                              f"{self.why_illegal(a)}")
        g = self.game
        if a >= ADD0:
            self.chosen = tuple(sorted(self.chosen + (a - ADD0,)))
            self._legal = None
            return
        if a == COMMIT:
            play = self.oracle().play(self.chosen)
            g.meld(Meld(play.melds))
            self.chosen = ()
        elif a == DRAW:
            g.draw()
        elif a == PASS:
            g.pass_()
        else:
            g.knock()
        self._oracle = None
        self._legal = None

    def apply_engine_action(self, move: Action) -> None:
        """Make an engine move (``Draw``, ``Meld``, ``Knock``, ``Pass``) of the player on
        turn directly (a bot's move), while no card is chosen."""
        if self.chosen:
            raise IllegalMove("engine", f"cards are chosen ({chosen_text(self.chosen)}): "
                              "commit them first")
        if self.is_terminal():
            raise IllegalMove("engine", "the game is over" if self.game.phase is Phase.OVER
                              else "the round is over")
        self.game.apply(move)  # IllegalMove if illegal; the engine changes nothing then
        self._oracle = None
        self._legal = None

    def decode_commit(self) -> Meld:
        """The ``Meld`` a commit of the chosen cards makes now (the solver's arrangement)."""
        return Meld(self.oracle().play(self.chosen).melds)

    def action_text(self, a: int) -> str:
        """The text of id ``a`` now (``commit`` with the table it makes)."""
        a = check_action_id(a)
        if a == COMMIT and self.chosen and not self.is_terminal():
            try:
                return f"commit {chosen_text(self.chosen)}: {self.decode_commit().text()}"
            except IllegalMove:
                pass
        return action_name(a)

    # ------------------------------------------------------------------ results
    def returns(self) -> list[float]:
        """Once over: the final scores (``round_only``: the first round's scores); zeros
        before. Higher is better."""
        g = self.game
        if not self.is_terminal():
            return [0.0] * g.n_players
        if self.round_only:
            return [float(x) for x in g.rounds[self._round0].scores]
        assert g.final is not None
        return [float(x) for x in g.final]

    # ------------------------------------------------------------------ what a player sees
    def observation(self, player: int) -> np.ndarray:
        """The observation tensor of ``player`` (float32 in [0, 1]; ``CarouselLayout``)."""
        return carousel_layout_for(self.rules).encode(self, player)

    def observation_string(self, player: int) -> str:
        g = self.game
        p = seat_index(player, g.n_players)
        lines = [f"player {p}, round {g.round}, turn {g.turn}, player {g.current} to "
                 f"{g.phase.value}", "hand: " + " ".join(card_text(c) for c in g.hands[p])]
        if self.chosen and g.current == p:
            lines.append(f"chosen: {chosen_text(self.chosen)}")
        lines += [f"meld {i}: {m.text()}" for i, m in enumerate(g.table)]
        lines.append(f"stock: {g.stock_size}; hand sizes: {' '.join(str(len(h)) for h in g.hands)}"
                     f"; totals: {' '.join(str(t) for t in g.totals)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.observation_string(self.game.current)

    def __repr__(self) -> str:
        return f"<CarouselAgentState {self.n_players} players, player {self.current_player()}>"


def fast_copy(game: GameState) -> GameState:
    """Deprecated: ``game.copy()`` (the same fast copy; kept for one release)."""
    warnings.warn("fast_copy(game) is deprecated: use game.copy() (the same fast copy)",
                  DeprecationWarning, stacklevel=2)
    return game.copy()


def seat_index(player: object, n: int) -> int:
    if isinstance(player, (bool, np.bool_)) or not isinstance(player, (int, np.integer)):
        raise TypeError(f"player must be a seat number 0..{n - 1}, got {player!r:.40}")
    if not 0 <= player < n:
        raise ValueError(f"player must be a seat 0..{n - 1}, got {player}")
    return int(player)


class CarouselLayout:
    """The observation tensor's pieces for ``rules`` (``pieces``, ``offsets``, ``size``).
    A card-count block has ``deck_size`` entries: copy planes of the 52 naturals, then
    one per joker. Seats are relative (0 is the player).

    * ``hand``, ``chosen``, ``table`` (the table's cards): card-count blocks;
    * ``table_jokers``: per natural card, the table jokers declared as it (count / 2);
    * ``seats``: per seat, hand size / (hand_size + 3), on turn, dealer,
      total / target_score (capped at 1), rounds won / 10 (capped);
    * ``played``: per seat, the cards melded this round (card-count blocks; public);
    * ``counts``: stock / deck_size, melds on the table / (deck_size // 3), the stock
      ran out, the hand's points <= knock_limit;
    * ``phase``: draw, meld, no draw, end, over, building a play;
    * ``turn``: draws made (one-hot 0..3), melded, a last turn.
    """

    def __init__(self, rules: CarouselRules) -> None:
        self.rules = rules
        n = rules.players
        self.card_block = b = rules.deck_size
        self.pieces = [("hand", b), ("chosen", b), ("table", b), ("table_jokers", 52),
                       ("seats", 5 * n), ("played", n * b), ("counts", 4), ("phase", 6),
                       ("turn", 6)]
        self.offsets: dict[str, int] = {}
        o = 0
        for name, size in self.pieces:
            self.offsets[name] = o
            o += size
        self.size = o
        self._card_of = np.array([c for k in range(rules.decks) for c in range(52)]
                                 + [JOKER] * rules.jokers, np.intp)
        self._copy_of = np.array([k for k in range(rules.decks) for _ in range(52)]
                                 + list(range(rules.jokers)), np.intp)

    def _cards(self, out: np.ndarray, base: int, cards: Iterable[int]) -> None:
        counts = np.bincount(np.asarray(list(cards), dtype=np.intp), minlength=53)
        out[base:base + self.card_block] = counts[self._card_of] > self._copy_of

    def encode(self, state: CarouselAgentState, player: int) -> np.ndarray:
        g = state.game
        r = self.rules
        n = g.n_players
        p = seat_index(player, n)
        out = np.zeros(self.size, np.float32)
        off = self.offsets
        self._cards(out, off["hand"], g.hands[p])
        if state.chosen and g.current == p:
            self._cards(out, off["chosen"], state.chosen)
        self._cards(out, off["table"], [c for m in g.table for c in m.cards])
        o = off["table_jokers"]
        for m in g.table:
            for c, d in zip(m.cards, m.represents, strict=True):
                if c == JOKER:
                    out[o + d] = min(1.0, out[o + d] + 0.5)
        o = off["seats"]
        for k in range(n):
            q = (p + k) % n
            out[o + 5 * k] = min(1.0, len(g.hands[q]) / (r.hand_size + 3))
            out[o + 5 * k + 1] = float(g.current == q and not state.is_terminal())
            out[o + 5 * k + 2] = float(g.dealer == q)
            out[o + 5 * k + 3] = min(1.0, g.totals[q] / r.target_score)
            out[o + 5 * k + 4] = min(1.0, g.rounds_won[q] / 10)
        played: list[list[int]] = [[] for _ in range(n)]
        for rec in round_records(g):
            if isinstance(rec, MeldRecord):
                played[rec.player] += list(rec.played)
        for k in range(n):
            self._cards(out, off["played"] + k * self.card_block, played[(p + k) % n])
        o = off["counts"]
        out[o] = g.stock_size / r.deck_size
        out[o + 1] = min(1.0, len(g.table) / (r.deck_size // 3))
        out[o + 2] = float(g.view(p).stock_out)
        out[o + 3] = float(r.hand_points(g.hands[p]) <= r.knock_limit)
        o = off["phase"]
        out[o + _PHASES.index(g.phase)] = 1.0
        out[o + 5] = float(bool(state.chosen) and g.current == p)
        o = off["turn"]
        ti = g.turn_info
        out[o + min(ti.draws, 3)] = 1.0
        out[o + 4] = float(ti.melded)
        out[o + 5] = float(ti.last)
        return out


def round_records(g: GameState) -> Sequence[Record]:
    """The records of the round being played (from its deal on)."""
    hist = g.history
    for i in range(len(hist) - 1, -1, -1):
        if type(hist[i]).__name__ == "DealRecord":
            return hist[i:]
    return hist


@lru_cache(maxsize=32)
def carousel_layout_for(rules: CarouselRules) -> CarouselLayout:
    return CarouselLayout(rules)
