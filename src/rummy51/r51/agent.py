"""A deal of Rummy 51 as a sequence of integer actions: the state every agent door uses.

``AgentState`` wraps a ``GameState`` with the integer codec (``rummy51.r51.codec``),
the opening being staged this turn, and optionally **chance nodes**: with
``chance=True`` the deal is dealt card by card and every stock draw is a chance
outcome (the card), weighted by the copies left in the stock, as OpenSpiel's
``EXPLICIT_STOCHASTIC`` games are. Without it the deal is shuffled from ``seed`` as
``GameState.new`` does, and no chance node shows.

>>> from rummy51 import RuleSet
>>> s = AgentState.new(RuleSet(), players=4, seed=7)
>>> s.current_player(), len(s.legal_actions()) > 0
(0, True)
>>> s.apply_action(s.legal_actions()[0])
>>> c = AgentState.new(RuleSet(), players=2, chance=True)
>>> c.current_player() == CHANCE, len(c.chance_outcomes())
(True, 53)

The OpenSpiel game, the PettingZoo environment and the JSON door for language models
(``rummy51.envs``) are thin layers over this class; docs/agents.md describes them.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from ..cards import card_text
from ..common.state import deprecated_clone
from ..rules import RuleSet
from .actions import Action, IllegalMove, Phase
from .codec import CANCEL, DRAW_STOCK, MELD0, OPEN, ActionCodec, Cancel, Stage, codec_for
from .engine import GameState, PlayerView
from .notation import action_text

if TYPE_CHECKING:
    from .chance import RngLike

__all__ = ["AgentState", "CHANCE", "TERMINAL", "max_game_length", "utility_bounds"]

#: ``current_player()`` of a chance node and of the end (OpenSpiel's ``PlayerId`` values).
CHANCE = -1
TERMINAL = -4


def _deal_size(rules: RuleSet, players: int) -> int:
    return players * rules.hand_size + 1 + (1 if rules.bottom_card else 0)


def max_game_length(rules: RuleSet, players: int, chance: bool = True) -> int:
    """An upper bound on the moves of a deal (OpenSpiel's ``max_game_length``): the deal's
    chance steps, then per turn a draw (and its chance step), at most ``2 * (hand_size + 1)``
    staging, lay-down, lay-off and swap moves (each but a swap or a stage lays a card down,
    a swap is followed by a lay-down, one cancel a turn), open, cancel and the discard."""
    per_turn = 2 * (rules.hand_size + 1) + 5
    deal = _deal_size(rules, players) if chance else 0
    return deal + rules.max_turns * per_turn


def utility_bounds(rules: RuleSet) -> tuple[float, float]:
    """(least, most) a player's return can be: the negated points of docs/rules.md 6
    (returns are ``-score``, higher is better)."""
    worst_card = max(rules.joker_penalty, rules.ace_value, 10)
    mult = 2 if rules.hand_doubles else 1
    # the winner's score, a draw's 0, a hand's points (doubled or not), an unopened player's
    scores = [rules.score_out, rules.score_hand, rules.score_hand_bottom, 0,
              mult * (rules.hand_size + 1) * worst_card, rules.score_unopened,
              mult * rules.score_unopened]
    lo, hi = min(scores), max(scores)
    return float(-hi), float(-lo)


@lru_cache(maxsize=64)
def _deck_counts(rules: RuleSet) -> tuple[int, ...]:
    return tuple([rules.decks] * 52 + [rules.jokers])


def _check_seats(rules: RuleSet, players: object, first: object) -> tuple[int, int]:
    """``(players, first)`` as ints, checked as ``GameState.new`` checks them (without
    dealing: OpenSpiel makes a new initial state for every clone)."""
    if isinstance(players, (bool, np.bool_)) or not isinstance(players, (int, np.integer)) \
            or players < 2:
        raise ValueError(f"players must be an int >= 2, got {players!r}")
    need = players * rules.hand_size + 1 + (1 if rules.bottom_card else 0) + 1
    if need > rules.deck_size:
        raise ValueError(f"{players} players need {need} cards but the deck has "
                         f"{rules.deck_size}")
    if isinstance(first, (bool, np.bool_)) or not isinstance(first, (int, np.integer)) \
            or not 0 <= first < players:
        raise ValueError(f"first must be a seat 0..{players - 1}, got {first!r}")
    return int(players), int(first)


class AgentState:
    """One deal as integer actions (see the module docstring).

    ``current_player()`` is the seat on turn, ``CHANCE`` or ``TERMINAL``;
    ``legal_actions()`` the ids (ascending) and ``legal_actions_mask()`` the 0/1 mask;
    ``apply_action(id)`` makes the move (a card code at a chance node);
    ``chance_outcomes()`` lists ``(card, probability)``; ``returns()`` the negated scores;
    ``copy()`` a fast copy; ``observation(p)``, ``information_state_string(p)``,
    ``observation_string(p)`` what player ``p`` knows; ``resample_from_infostate(p, rng)``
    a state the same for ``p`` with the hidden cards dealt again. ``game`` is the
    ``GameState`` (``None`` while a chance-mode deal is being dealt)."""

    # the attributes (set in ``new``, copied by ``clone``; annotations only, for the checker)
    rules: RuleSet
    codec: ActionCodec
    chance: bool
    n_players: int
    first: int
    game: GameState | None
    staged: tuple[int, ...]  # the meld ids staged this turn
    _dealt: list[int]  # chance mode: the cards dealt so far, in order
    _remaining: list[int] | None  # chance mode, while dealing: copies left per card code
    _pending: bool  # a stock draw waits for its chance outcome
    _cancelled: bool
    _flags_turn: int
    _private: tuple[tuple[int, int, int], ...]  # (len(history), player, id) of staging moves
    _legal: list[int] | None
    _cache: dict[Any, Any]
    _memo: dict[Any, Any]

    # ------------------------------------------------------------------ creation
    @classmethod
    def new(cls, rules: RuleSet | None = None, players: int = 4, seed: Any = None, first: int = 0,
            chance: bool = False, deck: Any = None) -> AgentState:
        """A new deal: shuffled from ``seed`` (or dealt from ``deck``, top first), or with
        ``chance=True`` a state whose deal comes from chance outcomes."""
        rules = RuleSet() if rules is None else rules
        if not isinstance(rules, RuleSet):
            raise TypeError(f"rules must be a RuleSet, got {type(rules).__name__}")
        s = cls.__new__(cls)
        s.rules = rules
        s.codec = codec_for(rules)
        s.chance = bool(chance)
        s._dealt = []
        s._remaining = None
        s._pending = False
        s.staged = ()
        s._cancelled = False
        s._flags_turn = 0
        s._private = ()
        s._legal = None
        s._cache = {}  # what grows with the deal, kept across moves (known cards, strings)
        s._memo = {}  # what one position gives (texts, tensors), new at every move
        if chance:
            if deck is not None or seed is not None:
                raise ValueError("a chance-mode deal comes from chance outcomes: give no seed "
                                 "or deck")
            s.n_players, s.first = _check_seats(rules, players, first)
            s.game = None
            s._remaining = list(_deck_counts(rules))
        else:
            s.game = GameState.new(rules, players=players, seed=seed, deck=deck, first=first)
            s.n_players, s.first = s.game.n_players, s.game.first
        return s

    @classmethod
    def from_game(cls, game: GameState) -> AgentState:
        """An agent state over an existing deal (its next moves as integers)."""
        if not isinstance(game, GameState):
            raise TypeError(f"game must be a GameState, got {type(game).__name__}")
        s = cls.new(game.rules, players=game.n_players, seed=0, first=game.first)
        s.game = game.copy()
        s._flags_turn = game.turn
        return s

    # ------------------------------------------------------------------ copies
    def copy(self) -> AgentState:
        """A fast independent copy (see bench/README.md, section Doors)."""
        s = object.__new__(AgentState)
        d = self.__dict__.copy()
        if self.game is not None:
            d["game"] = self.game.copy()
        if self._remaining is not None:
            d["_dealt"] = self._dealt[:]
            d["_remaining"] = self._remaining[:]
        d["_cache"] = dict(self._cache)
        # the same position: the memo is shared until one of the two moves (a move makes
        # a new memo, it never clears the shared one)
        s.__dict__ = d
        return s

    clone = deprecated_clone("AgentState")

    def __deepcopy__(self, memo: dict[int, Any]) -> AgentState:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d.pop("codec", None)  # rebuilt from the rules (the meld table is large)
        d["_legal"] = None
        d["_cache"] = {}
        d["_memo"] = {}
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__.update(d)
        self.codec = codec_for(self.rules)

    # ------------------------------------------------------------------ caches, determinizations
    def cached(self, key: Any) -> Any:
        """What ``remember`` kept under ``key`` for this deal (None if nothing): the
        observation and information-state modules keep what grows with the deal here."""
        return self._cache.get(key)

    def remember(self, key: Any, value: Any) -> None:
        """Keep ``value`` under ``key`` for this deal (copies share what was kept before)."""
        self._cache[key] = value

    @property
    def dealt(self) -> tuple[int, ...]:
        """Chance mode: the cards dealt so far, in the order dealt."""
        return tuple(self._dealt)

    def with_dealt(self, dealt: Sequence[int]) -> AgentState:
        """A copy whose deal so far is ``dealt`` (chance mode, while dealing: the cards a
        player has not seen dealt again by ``rummy51.r51.chance``); the copies left in
        the stock follow, and the caches start afresh."""
        s = self.copy()
        s._dealt = [int(c) for c in dealt]
        rem = Counter(int(c) for c in self.rules.deck())
        rem.subtract(s._dealt)
        s._remaining = [rem[c] for c in range(53)]
        s._cache = {}
        s._memo = {}
        s._legal = None
        return s

    def resampled_from(self, source: AgentState, player: int) -> None:
        """Make this copy of ``source``, whose game ``rummy51.r51.chance`` has dealt the
        cards hidden from ``player`` again, consistent with that: another player's staging
        is hidden from ``player`` and starts afresh, ``player``'s own staging moves stay,
        and what ``player`` knows (the public known cards, their information state) stays
        cached while the rest, about hands dealt again, is forgotten."""
        p = player
        g = self.game
        assert g is not None
        if g.current != p:  # another player's staging is hidden from p: start it afresh
            self.staged = ()
            self._cancelled = False
        self._private = tuple(ev for ev in source._private if ev[1] == p)
        # the count of p's staging moves in p's cached information state now indexes p's
        # alone
        self._cache = {}
        self._memo = {}
        if "known" in source._cache:
            self._cache["known"] = source._cache["known"]
        info = source._cache.get(("info", p))
        if info is not None:
            done, pdone, text = info
            self._cache[("info", p)] = (
                done, sum(1 for ev in source._private[:pdone] if ev[1] == p), text)
        self._legal = None if g.current != p else source._legal

    # ------------------------------------------------------------------ who moves
    @property
    def dealing(self) -> bool:
        """Chance mode, before the deal is complete."""
        return self.game is None

    def current_player(self) -> int:
        g = self.game
        if g is None:
            return CHANCE
        if g.phase is Phase.OVER:
            return TERMINAL
        if self._pending:
            return CHANCE
        return g.current

    def is_terminal(self) -> bool:
        return self.game is not None and self.game.phase is Phase.OVER

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    @property
    def may_cancel(self) -> bool:
        return not self._cancelled

    # ------------------------------------------------------------------ actions
    def legal_actions(self) -> list[int]:
        """The legal ids of the player on turn, ascending; ``[]`` at a chance node or the end."""
        if self._legal is None:
            if self.current_player() < 0:
                self._legal = []
            else:
                assert self.game is not None  # a player is on turn, so the deal is dealt
                self._legal = self.codec.legal_actions(self.game, self.staged, not self._cancelled)
        return self._legal

    def legal_actions_mask(self) -> np.ndarray:
        """An int8 array of ``codec.size``: 1 where the id is legal."""
        mask = np.zeros(self.codec.size, np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(card code, probability)`` of the chance node: the next card dealt, or the card
        a stock draw brings, each weighted by its copies left."""
        if self.game is None:
            counts = self._remaining
            assert counts is not None  # set by new(chance=True) until the deal is complete
        elif self._pending:
            counts = [0] * 53
            for c in self.game.stock:
                counts[c] += 1
        else:
            return []
        total = sum(counts)
        return [(c, n / total) for c, n in enumerate(counts) if n]

    def decode(self, action: int) -> Action | Stage | Cancel:
        """The move id ``action`` stands for now (an engine action, ``Stage`` or ``Cancel``)."""
        g = self._need_game("decode an action")
        return self.codec.decode(action, g, self.staged)

    def encode(self, action: Action | Stage | Cancel) -> int:
        """The id of a move (an engine action, ``Stage`` or ``Cancel``) now."""
        g = self._need_game("encode an action")
        return self.codec.encode(action, g, self.staged)

    def encode_sequence(self, action: Action | Stage | Cancel) -> list[int]:
        """The ids that make an engine move now (an opening: its melds staged, then open)."""
        g = self._need_game("encode an action")
        return self.codec.encode_sequence(action, g, self.staged)

    def action_text(self, action: int) -> str:
        """The text of a move id now (``parse_action`` reads it back); a chance outcome is
        ``'deal 7S'`` or ``'stock 7S'``."""
        if self.is_chance_node():
            c = int(action)
            return f"{'deal' if self.game is None else 'stock'} {card_text(c)}"
        return action_text(self.decode(action))

    def _need_game(self, what: str) -> GameState:
        """The game, or a ValueError while a chance-mode deal is being dealt."""
        g = self.game
        if g is None:
            raise ValueError(f"cannot {what}: the deal is still being dealt (chance nodes)")
        return g

    def why_illegal(self, action: int) -> str:
        """Why ``action`` is not legal now, in a few words (for error messages)."""
        a = self.codec.check_id(action)
        p = self.current_player()
        if p == TERMINAL:
            return "the deal is over"
        if p == CHANCE:
            return "this is a chance node (apply a card code from chance_outcomes())"
        kind = self.codec.kind(a)
        g = self.game
        assert g is not None  # a player is on turn, so the deal is dealt
        if kind == "cancel":
            return "nothing is staged to cancel" if not self.staged else \
                "the turn's one cancel was used"
        if kind == "open" and not self.staged:
            return "nothing is staged to open"
        try:
            move = self.decode(a)
        except ValueError as e:
            why = str(e)
            return "it" + why[len(f"action {a}"):] if why.startswith(f"action {a} ") else why
        text = action_text(move)
        if self.staged and kind not in ("meld", "open"):
            return f"{text}: melds are staged; open them or cancel first"
        if kind == "meld" and not g.opened[p]:
            if g.phase is not Phase.PLAY:
                return f"{text}: the turn starts with a draw"
            left = list(g.hands[p])
            for i in self.staged:
                for c in self.codec.meld(i).cards:
                    left.remove(c)
            for c in self.codec.meld(a).cards:
                if c not in left:
                    return f"{text}: the hand holds no {card_text(c)} to stage"
                left.remove(c)
            if not left:
                return f"{text}: a card must stay in the hand for the discard"
            return (f"{text}: no legal opening holds the staged melds and this one (an opening "
                    f"is worth at least {self.rules.threshold})")
        # staging ids (a meld before opening, cancel) were explained above
        assert not isinstance(move, (Stage, Cancel))
        try:
            g.verify(move)
        except (IllegalMove, ValueError) as e:
            return f"{text}: {e}"
        return f"{text}: not a legal move here"

    def apply_action(self, action: int) -> None:
        """Make move ``action`` (an id), or at a chance node the card code of the outcome.
        An illegal or malformed id raises a one-line ``ValueError`` (``IllegalMove``) or
        ``TypeError``, and the state is unchanged."""
        p = self.current_player()
        if p == TERMINAL:
            raise IllegalMove("5.6", "the deal is over: no move can be made")
        if p == CHANCE:
            self._apply_chance(action)
            return
        a = self.codec.check_id(action)
        if a not in self.legal_actions():
            raise IllegalMove("engine", f"action {a} is not legal now: {self.why_illegal(a)}")
        g = self.game
        assert g is not None  # a player is on turn, so the deal is dealt
        if a == DRAW_STOCK and self.chance:
            self._pending = True
        elif a == OPEN:
            g.lay_down(self.codec.decode(OPEN, g, self.staged))
            self.staged = ()
        elif a == CANCEL:
            self._private += ((len(g.history), g.current, a),)
            self.staged = ()
            self._cancelled = True
        elif MELD0 <= a < self.codec.slot0 and not g.opened[g.current]:
            self._private += ((len(g.history), g.current, a),)
            self.staged = self.staged + (a,)
        else:
            move = self.codec.decode(a, g, self.staged)
            assert not isinstance(move, (Stage, Cancel))  # staging ids are handled above
            g.apply(move)
        self._moved()

    def _apply_chance(self, action: object) -> None:
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"a chance outcome is a card code 0..52, got {type(action).__name__} "
                            f"{action!r:.40}")
        c = int(action)
        outcomes = dict(self.chance_outcomes())
        if c not in outcomes:
            what = "left in the deck" if self.game is None else "in the stock"
            raise ValueError(f"chance outcome {c} is not a card {what} (outcomes: "
                             f"{', '.join(str(k) for k in sorted(outcomes))})")
        if self.game is None:
            remaining = self._remaining
            assert remaining is not None  # set by new(chance=True) until the deal is complete
            self._dealt.append(c)
            remaining[c] -= 1
            if len(self._dealt) == _deal_size(self.rules, self.n_players):
                self._finish_deal()
        else:
            self.game._put_on_stock(c)
            self.game.draw("stock")
            self._pending = False
        self._moved()

    def _finish_deal(self) -> None:
        """The deal is complete: the hands in dealing order, the stock (its order is each
        draw's chance outcome) and the bottom card make the deck order."""
        rules = self.rules
        n_hands = self.n_players * rules.hand_size + 1
        remaining = self._remaining
        assert remaining is not None  # set by new(chance=True) until the deal is complete
        stock = [c for c in range(53) for _ in range(remaining[c])]
        deck = self._dealt[:n_hands] + stock + self._dealt[n_hands:]
        self.game = GameState.new(rules, players=self.n_players, seed=0, deck=deck,
                                  first=self.first)
        self._remaining = None
        self._dealt = []

    def _moved(self) -> None:
        self._legal = None
        self._memo = {}
        g = self.game
        if g is not None and g.turn != self._flags_turn:
            self._flags_turn = g.turn
            self.staged = ()
            self._cancelled = False

    # ------------------------------------------------------------------ results
    def returns(self) -> list[float]:
        """Each player's return: minus their points (docs/rules.md 6) once the deal is over,
        else zeros (OpenSpiel's terminal rewards)."""
        g = self.game
        if g is None or not self.is_terminal():
            return [0.0] * self.n_players
        return [float(-x) for x in g.scores()]

    def view(self, player: int | None = None) -> PlayerView:
        """What ``player`` sees (``GameState.view``)."""
        return self._need_game("show a view").view(player)

    # ------------------------------------------------------------------ what a player knows
    def observation(self, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation tensor of ``player`` (float32; docs/agents.md lists its layout),
        a new array, or written into ``out``."""
        from .observation import layout_for

        key = ("obs", player)
        t = self._memo.get(key) if type(player) is int else None
        if t is None:
            t = layout_for(self.rules, self.n_players).encode(self, player)
            t.flags.writeable = False
            self._memo[key] = t
        if out is None:
            return t.copy()
        out[:] = t
        return out

    def information_state_tensor(self, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """The information-state tensor of ``player`` (float32, the observation tensor then
        a summary of the history seen; ``rummy51.r51.infostate``), a new array or ``out``."""
        from .infostate import infostate_layout_for

        key = ("info_t", player)
        t = self._memo.get(key) if type(player) is int else None
        if t is None:
            t = infostate_layout_for(self.rules, self.n_players).encode(self, player)
            t.flags.writeable = False
            self._memo[key] = t
        if out is None:
            return t.copy()
        out[:] = t
        return out

    def information_state_string(self, player: int) -> str:
        """Everything ``player`` has seen, in order (perfect recall): their cards as dealt,
        the bottom card, every public move, their own stock draws and staging."""
        from .observation import information_state_string

        return information_state_string(self, player)

    def observation_string(self, player: int) -> str:
        """What ``player`` sees now (hand, table, piles, sizes, flags), as text."""
        from .observation import observation_string

        key = ("obs_str", player)
        text = self._memo.get(key) if type(player) is int else None
        if text is None:
            text = self._memo[key] = observation_string(self, player)
        return text

    def resample_from_infostate(self, player: int, rng: RngLike = None) -> AgentState:
        """A state that ``player`` cannot tell from this one, the cards hidden from them
        (other hands, the stock's order, the deal's order) dealt again at random, each
        consistent with every move seen: an opponent still holds the cards they took from
        the discard pile, and held every card they later played (``rummy51.r51.chance``)."""
        from .chance import resample

        return resample(self, player, rng)

    # ------------------------------------------------------------------ text
    def __str__(self) -> str:
        text = self._memo.get("str")
        if text is None:
            text = self._memo["str"] = self._text()
        return text

    def _text(self) -> str:
        from .observation import cards_str, meld_str

        if self.game is None:
            return (f"dealing: {len(self._dealt)} of {_deal_size(self.rules, self.n_players)} "
                    f"cards: {cards_str(self._dealt)}")
        g = self.game
        lines = [f"turn {g.turn}, player {g.current}, {g.phase.value}"
                 + (", stock draw pending" if self._pending else "")
                 + (f", result {g.result}" if g.result is not None else "")]
        for p, h in enumerate(g.hands):
            lines.append(f"p{p}{' (opened)' if g.opened[p] else ''}: {cards_str(h)}")
        for i, m in enumerate(g.table):
            lines.append(f"meld {i} (p{m.owner}): {meld_str(m)}")
        lines.append(f"discard pile: {cards_str(g.discard_pile)}")
        lines.append(f"stock (top first): {cards_str(reversed(g._stock))}")
        lines.append(f"bottom: {cards_str(() if g.bottom is None else (g.bottom,)) or '-'}")
        if self.staged:
            lines.append("staged: " + " | ".join(self.codec.meld(i).text() for i in self.staged))
        if self._cancelled:
            lines.append("cancelled this turn")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<AgentState {self.n_players} players, player {self.current_player()}>"

