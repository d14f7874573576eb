"""The game engine: one deal of Rummy 51 (docs/rules.md sections 5-6).

A deal is a ``GameState``. It starts with a seeded chance step (the shuffle and the
deal), then players act one move at a time. Its ``phase`` says what comes next:

* ``Phase.DRAW``: the player on turn draws: ``Draw("stock")``, ``Draw("discard")`` or
  ``Draw("bottom")``;
* ``Phase.PLAY``: the player opens / lays down (``LayDown``), lays off (``LayOff``),
  swaps jokers (``SwapJoker``), any number of times, and ends the turn with
  ``Discard``; the first player's first turn starts here (no draw);
* ``Phase.OVER``: the deal has ended (``result``, ``scores()``).

Every move has a triad (pokerkit): ``verify_discard(card)`` raises ``IllegalMove``
(a ``ValueError``) naming the rule broken (``.rule``, e.g. ``"5.4"``),
``can_discard(card)`` returns a bool and ``discard(card)`` makes the move and returns
its record; ``apply(action)`` does the same for an action object, and
``legal_actions()`` lists the moves (OpenSpiel). A refused move leaves the state
unchanged. The only randomness is the shuffle and the reshuffles of an empty stock,
drawn from ``numpy.random.default_rng(seed)``, so a deal replays exactly from
``(rules, seed, actions)`` (``replay``); a hand history (``to_json``) also records
the deck order and every reshuffle, so ``from_json`` needs no RNG.

Bots see a ``PlayerView`` (``state.view(player)``): their own hand, everything
public (table, discard pile, hand sizes, who opened, public history), never another
hand nor the stock order. A view offers the same ``verify_x`` / ``can_x`` and
``legal_actions()`` as the state (when it is that player's turn).

>>> from rummy51 import RuleSet
>>> s = GameState.new(RuleSet(), players=4, seed=7)
>>> s.phase, s.current, len(s.hands[0]), len(s.hands[1])
(<Phase.PLAY: 'play'>, 0, 15, 14)
>>> rec = s.discard(max(s.hands[0]))
>>> s.phase, s.current
(<Phase.DRAW: 'draw'>, 1)

Rules choices where docs/rules.md is silent are listed in docs/engine.md.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from ..cards import JOKER, card_text, cards_text, shown, to_codes
from ..common.seeds import normalize_seed
from ..common.state import StateBase, ViewBase, deprecated_clone
from ..rules import RuleSet, rules_from_dict, rules_to_dict
from ._args import as_card, rule_option
from ._moves import _MoveRules
from .actions import (
    BOTTOM,
    DISCARD,
    FORMAT_VERSION,
    HISTORY_FORMAT,
    SOURCES,
    STOCK,
    Action,
    ChanceRecord,
    Discard,
    DiscardRecord,
    Draw,
    DrawRecord,
    IllegalMove,
    LayDown,
    LayDownRecord,
    LayOff,
    LayOffRecord,
    Phase,
    Record,
    Result,
    SwapJoker,
    SwapRecord,
    TurnInfo,
    action_from_json,
    action_to_json,
)
from .melds import (
    MeldError,
    TableMeld,
    card_value,
    check_meld,
)
from .notation import action_text, parse_action

__all__ = [
    "Phase",
    "IllegalMove",
    "Draw",
    "LayDown",
    "LayOff",
    "SwapJoker",
    "Discard",
    "Action",
    "Record",
    "DrawRecord",
    "LayDownRecord",
    "LayOffRecord",
    "SwapRecord",
    "DiscardRecord",
    "ChanceRecord",
    "TurnInfo",
    "Result",
    "GameState",
    "PlayerView",
    "replay",
    "stacked_deck",
    "action_to_json",
    "action_from_json",
    "parse_action",
    "action_text",
]



_T = TypeVar("_T")


def _make(cls: type[_T], fields: dict[str, Any]) -> _T:
    """A frozen dataclass instance from a complete dict of its fields, without the
    field-by-field ``object.__setattr__`` of the generated ``__init__`` (the engine's
    per-turn objects; every field is given, nothing needs validating)."""
    obj = object.__new__(cls)
    obj.__dict__.update(fields)
    return obj


def _replace_ti(ti: TurnInfo, **changes: Any) -> TurnInfo:
    """``dataclasses.replace`` of a TurnInfo, faster (it runs twice a turn)."""
    d = dict(ti.__dict__)
    d.update(changes)
    return _make(TurnInfo, d)


_DRAWS = {s: Draw(s) for s in SOURCES}
# a turn's start, before and after the player has opened
_TURN_START = (TurnInfo(opened_at_start=False), TurnInfo(opened_at_start=True))

# --------------------------------------------------------------------------- views
@dataclass(frozen=True, eq=False)
class PlayerView(ViewBase, _MoveRules):
    """What one player may see: their own ``hand``; the table, the discard pile, the bottom
    card (face up), everyone's hand size and whether they opened, the stock's size, this
    turn's ``TurnInfo`` and the public ``history`` (stock draws of others show no card).
    Bots get this and nothing else.

    When it is this player's turn (``player == current``), ``legal_actions()`` and the
    ``verify_x`` / ``can_x`` checks work as on the state."""

    player: int
    rules: RuleSet
    n_players: int
    first: int
    phase: Phase
    turn: int
    current: int
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    opened: tuple[bool, ...]
    table: tuple[TableMeld, ...]
    discard_pile: tuple[int, ...]
    bottom: int | None
    stock_count: int
    turn_info: TurnInfo
    history: Sequence[Record] = field(repr=False, default=())

    _ILLEGAL = IllegalMove

    @property
    def stock_size(self) -> int:
        return self.stock_count

    @property
    def my_turn(self) -> bool:
        return self.player == self.current and self.phase is not Phase.OVER

    @property
    def next_player(self) -> int:
        return (self.player + 1) % self.n_players

    def to_dict(self) -> dict:
        """The view as plain JSON data (``json.dumps(view.to_dict())`` works): cards in text
        notation, the table melds with their ids, the public history; for GUIs and language
        models (docs/agents.md)."""
        from .views import view_to_dict

        return view_to_dict(self)

    def to_json(self, indent: int | None = None) -> str:
        """The view as JSON text (see ``to_dict``)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)


# --------------------------------------------------------------------------- decks
def stacked_deck(rules: RuleSet, hands: Sequence, stock: Iterable = (), bottom: Any = None,
                 players: int | None = None, seed: int = 0) -> list[int]:
    """A full deck order for ``GameState.new(deck=...)`` that deals ``hands`` (seat order
    from the first player: 15 cards, then 14 each; shorter hands are filled up), puts
    ``stock`` on top of the stock (top first) and ``bottom`` as the bottom card. The cards
    not named fill the rest in a seeded random order (``seed``). For scripted tests."""
    n = len(hands) if players is None else players
    pool = Counter(int(c) for c in rules.deck())
    named_hands = [list(to_codes(h)) for h in hands] + [[] for _ in range(n - len(hands))]
    named_stock = list(to_codes(list(stock) if not isinstance(stock, str) else stock))
    named_bottom = None if bottom is None else as_card(bottom)
    for c in [c for h in named_hands for c in h] + named_stock + (
            [named_bottom] if named_bottom is not None else []):
        if pool[c] <= 0:
            raise ValueError(f"stacked deck uses {card_text(c)} more often than the deck holds it")
        pool[c] -= 1
    rest = list(pool.elements())
    rng = np.random.default_rng(seed)
    rest = [int(x) for x in rng.permutation(np.array(rest, dtype=np.int64))]
    deck = []
    for i, h in enumerate(named_hands):
        size = rules.first_hand_size if i == 0 else rules.hand_size
        if len(h) > size:
            raise ValueError(f"stacked hand {i} has {len(h)} cards; it is dealt {size}")
        deck.extend(h)
        while len(deck) < rules.first_hand_size + i * rules.hand_size:
            deck.append(rest.pop())
    deck.extend(named_stock)
    if rules.bottom_card:
        if named_bottom is None:
            named_bottom = rest.pop()
        deck.extend(rest)
        deck.append(named_bottom)
    else:
        if named_bottom is not None:
            raise ValueError("rules.bottom_card is off: there is no bottom card to stack")
        deck.extend(rest)
    return deck


# --------------------------------------------------------------------------- the state
class GameState(StateBase, _MoveRules):
    """One deal of Rummy 51 (docs/rules.md sections 5-6). Start one with ``GameState.new``.

    Public attributes (read them, do not change them): ``rules``, ``n_players``, ``first``
    (the first player), ``phase``, ``turn`` (0-based), ``current`` (the player on turn),
    ``hands`` (lists of card codes), ``table`` (``TableMeld``s; a meld's id is its index),
    ``opened``, ``discard_pile`` (top last), ``bottom`` (the bottom card, or None),
    ``turn_info``, ``history`` (every ``Record``, chance steps included), ``actions`` (the
    player actions, for ``replay``), ``result`` (a ``Result`` once over)."""

    _OVER = Phase.OVER

    def __init__(self) -> None:  # use GameState.new
        self.rules: RuleSet
        self.n_players: int
        self.first: int
        self.seed = None
        self.deck: tuple[int, ...] = ()
        self.hands: list[list[int]] = []
        self._stock: list[int] = []  # top of the stock last (pop)
        self.discard_pile: list[int] = []
        self.bottom: int | None = None
        self.table: list[TableMeld] = []
        self.opened: list[bool] = []
        self.phase = Phase.PLAY
        self.turn = 0
        self.current = 0
        self.turn_info = TurnInfo()
        self.history: list[Record] = []
        self.actions: list = []
        self.result: Result | None = None
        self._public: list[Record] = []
        self._rng: np.random.Generator | None = None
        self._forced: list[tuple[int, ...]] = []  # recorded reshuffles (from_json)

    # ------------------------------------------------------------------ creation
    @classmethod
    def new(cls, rules: RuleSet | None = None, players: int = 4, seed: Any = None, deck: Any = None,
            first: int = 0) -> GameState:
        """Shuffle (seeded) and deal a new deal for ``players`` players; ``first`` is the first
        player (15 cards, no draw on turn 0). ``seed`` is an int, a SeedSequence, a Generator
        or None (fresh entropy, recorded in ``seed``). ``deck`` (for tests, see
        ``stacked_deck``) gives the deck order instead: top first; the first player is dealt
        the first 15 cards, then each next player 14, the rest is the stock (top first) and
        the last card is the bottom card."""
        rules = RuleSet() if rules is None else rules
        if not isinstance(rules, RuleSet):
            raise TypeError(f"rules must be a RuleSet, got {type(rules).__name__}")
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or players < 2:
            raise ValueError(f"players must be an int >= 2, got {players!r}")
        need = (rules.first_hand_size + (players - 1) * rules.hand_size
                + (1 if rules.bottom_card else 0) + 1)
        if need > rules.deck_size:
            raise ValueError(f"{players} players need {need} cards (hands, a stock card"
                             f"{', the bottom card' if rules.bottom_card else ''}) but the deck "
                             f"has {rules.deck_size}")
        if not 0 <= int(first) < players:
            raise ValueError(f"first must be a seat 0..{players - 1}, got {first!r}")
        s = cls()
        s.rules = rules
        s.n_players = int(players)
        s.first = int(first)
        s._rng, s.seed = normalize_seed(seed)
        if deck is None:
            order = [int(c) for c in s._rng.permutation(rules.deck().astype(np.int64))]
        else:
            order = [int(as_card(c)) for c in (to_codes(deck) if isinstance(deck, str) else deck)]
            if Counter(order) != Counter(int(c) for c in rules.deck()):
                raise ValueError(f"deck must hold each card of the rule set's {rules.deck_size}-card "
                                 f"deck exactly once per copy; got {len(order)} cards that differ")
        s._deal(order)
        return s

    def _deal(self, order: list[int]) -> None:
        rules = self.rules
        n = self.n_players
        self.deck = tuple(order)
        self.hands = [[] for _ in range(n)]
        pos = 0
        for i in range(n):
            seat = (self.first + i) % n
            size = rules.first_hand_size if i == 0 else rules.hand_size
            self.hands[seat] = sorted(order[pos:pos + size])
            pos += size
        rest = order[pos:]
        if rules.bottom_card:
            self.bottom = rest[-1]
            rest = rest[:-1]
        self._stock = rest[::-1]
        self.opened = [False] * n
        self.current = self.first
        # equal hands (rules.first_player_draws): the first player draws in turn 0 too
        self.phase = Phase.DRAW if rules.first_player_draws else Phase.PLAY
        self.turn = 0
        self.turn_info = TurnInfo(opened_at_start=False)
        self.history.append(ChanceRecord(0, -1, None, "deal", tuple(order)))

    # ------------------------------------------------------------------ agents (docs/agents.md)
    clone = deprecated_clone("GameState")

    def _put_on_stock(self, card: int) -> None:
        """Make a copy of ``card`` the next stock card (the chance-node mode of
        ``rummy51.r51.agent``, where each stock draw is a chance outcome). It trades places
        with the top card, and the recorded order (the deck, or the last reshuffle) is
        rewritten to match, so the hand history still replays. Nobody sees the stock's
        order, so any order of its cards is one the shuffle could have made."""
        st = self._stock
        card = as_card(card)
        if st and st[-1] == card:
            return
        try:
            j = st.index(card)
        except ValueError:
            raise ValueError(f"{card_text(card)} is not in the stock") from None
        top = len(st) - 1
        st[j], st[top] = st[top], st[j]
        for k in range(len(self.history) - 1, -1, -1):
            rec = self.history[k]
            if type(rec) is ChanceRecord:
                break
        # the deal's record is history[0], so the loop always finds one
        assert type(rec) is ChanceRecord
        order = list(rec.cards)
        if rec.kind == "deal":
            # the deck: the hands, the stock (top first), the bottom card
            end = len(order) - (1 if self.rules.bottom_card else 0)
        else:
            end = len(order)
        # the stock list holds the recorded order reversed, its top last
        base = end - 1
        order[base - j], order[base - top] = order[base - top], order[base - j]
        self.history[k] = ChanceRecord(rec.turn, rec.player, rec.action, rec.kind, tuple(order))
        if rec.kind == "deal":
            self.deck = tuple(order)

    # ------------------------------------------------------------------ views
    def view(self, player: int | None = None) -> PlayerView:
        """What ``player`` (default: the player on turn) may see."""
        p = self.current if player is None else int(player)
        if not 0 <= p < self.n_players:
            raise ValueError(f"player must be 0..{self.n_players - 1}, got {player!r}")
        ti = self.turn_info
        if p != self.current and ti.source == STOCK and ti.drawn is not None:
            ti = _replace_ti(ti, drawn=None)
        return _make(PlayerView, {
            "player": p, "rules": self.rules, "n_players": self.n_players, "first": self.first,
            "phase": self.phase, "turn": self.turn, "current": self.current,
            "hand": tuple(self.hands[p]), "hand_sizes": tuple(map(len, self.hands)),
            "opened": tuple(self.opened), "table": tuple(self.table),
            "discard_pile": tuple(self.discard_pile), "bottom": self.bottom,
            "stock_count": len(self._stock), "turn_info": ti,
            "history": self._public_history(),
        })

    # ------------------------------------------------------------------ moves
    def draw(self, source: str = STOCK) -> DrawRecord:
        """Draw from ``source`` (``'stock'``, ``'discard'``, ``'bottom'``)."""
        self.verify_draw(source)
        p = self.current
        opened = self.opened[p]
        if source == STOCK:
            card = self._stock.pop()
        elif source == DISCARD:
            card = self.discard_pile.pop()
        else:
            bottom = self.bottom
            assert bottom is not None  # verify_draw refuses a draw of no bottom card
            card = bottom
            self.bottom = None
        self.hands[p].append(card)
        self.hands[p].sort()
        self.turn_info = _replace_ti(
            self.turn_info, source=source, drawn=card,
            must_open=(source == DISCARD and not opened and not self.free_round()),
            bottom=(source == BOTTOM))
        self.phase = Phase.PLAY
        action = _DRAWS[source]
        self.actions.append(action)
        rec = _make(DrawRecord, {"turn": self.turn, "player": p, "action": action, "card": card})
        pub = (_make(DrawRecord, {"turn": self.turn, "player": p, "action": action, "card": None})
               if source == STOCK else rec)
        return self._record(rec, pub)

    def lay_down(self, melds: Any, stand_ins: Any = None) -> LayDownRecord:
        """Lay down ``melds`` (an opening if the player has not opened)."""
        action = melds if isinstance(melds, LayDown) else LayDown(melds, stand_ins)
        built, value = self.verify_lay_down(action)
        p = self.current
        hand = self.hands[p]
        for m in action.melds:
            for c in m:
                hand.remove(c)
        ids = []
        for m in built:
            ids.append(len(self.table))
            self.table.append(m)
        opening = not self.opened[p]
        self.opened[p] = True
        if self.turn_info.freed_joker:
            self.turn_info = _replace_ti(self.turn_info, freed_joker=False)
        self.actions.append(action)
        return self._record(LayDownRecord(self.turn, p, action, tuple(ids), value, opening))

    def lay_off(self, card: Any, meld_id: int, side: str | None = None) -> LayOffRecord:
        """Lay ``card`` off on meld ``meld_id``."""
        action = LayOff(card, meld_id, side)
        new = self.verify_lay_off(action.card, action.meld_id, action.side)
        p = self.current
        self.hands[p].remove(action.card)
        self.table[action.meld_id] = new
        if new.owner != p and not self.turn_info.touched_others:
            self.turn_info = _replace_ti(self.turn_info, touched_others=True)
        self.actions.append(action)
        return self._record(LayOffRecord(self.turn, p, action, new))

    def swap_joker(self, card: Any, meld_id: int) -> SwapRecord:
        """Give ``card`` for the joker of meld ``meld_id`` that stands for it."""
        action = SwapJoker(card, meld_id)
        new = self.verify_swap_joker(action.card, action.meld_id)
        p = self.current
        hand = self.hands[p]
        hand.remove(action.card)
        hand.append(JOKER)
        hand.sort()
        self.table[action.meld_id] = new
        self.turn_info = _replace_ti(
            self.turn_info, freed_joker=True,
            touched_others=self.turn_info.touched_others or new.owner != p)
        self.actions.append(action)
        return self._record(SwapRecord(self.turn, p, action, new))

    def discard(self, card: Any) -> DiscardRecord:
        """Discard ``card``: the turn ends (and the deal, if it was the last card)."""
        action = card if type(card) is Discard else Discard(card)
        self.verify_discard(action.card)
        p = self.current
        hand = self.hands[p]
        hand.remove(action.card)
        self.discard_pile.append(action.card)
        self.actions.append(action)
        outcome = None
        if not hand:
            ti = self.turn_info
            if not ti.opened_at_start and not ti.touched_others:
                outcome = "hand_bottom" if ti.bottom else "hand"
            else:
                outcome = "out"
        rec = self._record(_make(DiscardRecord, {"turn": self.turn, "player": p,
                                                 "action": action, "outcome": outcome}))
        if outcome is not None:
            self._end(p, outcome)
        else:
            self._next_turn()
        return rec

    def apply(self, action: Action) -> Record:
        """Make the move ``action`` and return its record (``IllegalMove`` if not legal; the
        state is then unchanged)."""
        if isinstance(action, Draw):
            return self.draw(action.source)
        if isinstance(action, LayDown):
            return self.lay_down(action)
        if isinstance(action, LayOff):
            return self.lay_off(action.card, action.meld_id, action.side)
        if isinstance(action, SwapJoker):
            return self.swap_joker(action.card, action.meld_id)
        if isinstance(action, Discard):
            return self.discard(action)
        raise TypeError(f"not an action: {action!r} (Draw, LayDown, LayOff, SwapJoker or Discard)")

    # ------------------------------------------------------------------ turns and the end
    def _next_turn(self) -> None:
        if self.turn + 1 >= self.rules.max_turns:
            self._end(None, "capped")
            return
        self.turn += 1
        self.current = (self.current + 1) % self.n_players
        self.phase = Phase.DRAW
        self.turn_info = _TURN_START[self.opened[self.current]]
        if not self._stock:
            self._refill_stock()

    def _refill_stock(self) -> None:
        """docs/rules.md 5.8: the discard pile but its top card becomes the new stock, shuffled
        (a chance step); if that is off or impossible the deal ends as a draw."""
        if not self.rules.reshuffle_stock or len(self.discard_pile) < 2:
            self._end(None, "stock_out")
            return
        pile = self.discard_pile[:-1]
        if self._forced:
            order = list(self._forced.pop(0))
            if Counter(order) != Counter(pile):
                raise ValueError("the recorded reshuffle does not hold the cards of the discard pile")
        else:
            order = [int(c) for c in self._generator().permutation(np.array(pile, dtype=np.int64))]
        self.discard_pile = self.discard_pile[-1:]
        self._stock = order[::-1]
        rec = ChanceRecord(self.turn, -1, None, "reshuffle", tuple(order))
        self._record(rec, ChanceRecord(self.turn, -1, None, "reshuffle", ()))

    def _end(self, winner: int | None, how: str) -> None:
        self.phase = Phase.OVER
        self.result = Result(winner, how, self._scores(winner, how))

    def _scores(self, winner: int | None, how: str) -> tuple[int, ...]:
        r = self.rules
        n = self.n_players
        if winner is None:
            if rule_option(r, "draw_scoring", "zero") == "zero":
                return (0,) * n
            return tuple(self._hand_points(p) for p in range(n))
        base = {"out": r.score_out, "hand": r.score_hand, "hand_bottom": r.score_hand_bottom}[how]
        doubles = how == "hand_bottom" or (how == "hand" and r.doubles_on == "hand")
        mult = 2 if doubles and r.hand_doubles else 1
        return tuple(base if p == winner else mult * self._hand_points(p) for p in range(n))

    def _hand_points(self, p: int) -> int:
        if not self.opened[p]:
            return self.rules.score_unopened
        return sum(card_value(c, self.rules) for c in self.hands[p])

    def scores(self) -> tuple[int, ...]:
        """Each player's points for the deal (docs/rules.md 6; lower is better). Only once over."""
        if self.result is None:
            raise ValueError("scores() exists only once the deal is over (phase OVER)")
        return self.result.scores

    # ------------------------------------------------------------------ checks
    def check(self) -> None:
        """Raise ``AssertionError`` if an invariant is broken: every card of the deck is in
        exactly one place, no card held more than ``rules.decks`` times (jokers: ``jokers``),
        every table meld valid, hands non-empty while the deal runs, scores consistent."""
        r = self.rules
        places = [c for h in self.hands for c in h] + self._stock + self.discard_pile
        places += [c for m in self.table for c in m.cards]
        if self.bottom is not None:
            places.append(self.bottom)
        assert Counter(places) == Counter(int(c) for c in r.deck()), "cards not accounted for"
        for p, h in enumerate(self.hands):
            cnt = Counter(h)
            for c, k in cnt.items():
                assert k <= (r.jokers if c == JOKER else r.decks), f"player {p} holds {k} x {c}"
            if self.phase is not Phase.OVER:
                assert h, f"player {p} has an empty hand while the deal runs"
        for i, m in enumerate(self.table):
            try:
                check_meld(m, r)
            except MeldError as e:  # pragma: no cover - a bug
                raise AssertionError(f"table meld {i}: {e}") from None
            assert self.opened[m.owner], f"meld {i} belongs to unopened player {m.owner}"
        if self.phase is not Phase.OVER:
            assert self._stock or self.phase is not Phase.DRAW, "empty stock at a draw"
            assert self.turn < r.max_turns
        else:
            res = self.result
            assert res is not None and len(res.scores) == self.n_players
            assert res.scores == self._scores(res.winner, res.how)
            if res.winner is not None:
                assert not self.hands[res.winner], "the winner still holds cards"
                assert sum(1 for h in self.hands if not h) == 1

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        """The hand history as a JSON-ready dict: rules, players, first player, seed, the
        deck order, every reshuffle, the actions and the result."""
        return {
            "format": HISTORY_FORMAT,
            "version": FORMAT_VERSION,
            "rules": rules_to_dict(self.rules, full=True),
            "players": self.n_players,
            "first": self.first,
            "seed": self.seed,
            "deck": cards_text(self.deck).split(),
            "reshuffles": [cards_text(r.cards).split() for r in self.history
                           if isinstance(r, ChanceRecord) and r.kind == "reshuffle"],
            "actions": [action_to_json(a) for a in self.actions],
            "result": None if self.result is None else {
                "winner": self.result.winner, "how": self.result.how,
                "scores": list(self.result.scores)},
        }

    def to_json(self, indent: int | None = None) -> str:
        """The hand history as JSON text (see ``to_dict``)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: dict) -> GameState:  # noqa: C901  one check per field of the history format, each a pinned one-line error
        """Rebuild a deal from its hand history, replaying every action (the recorded deck
        and reshuffles are used, no RNG); a recorded result must match."""
        if not isinstance(d, dict):
            raise ValueError(f"a hand history is a JSON object, got {type(d).__name__}")
        if d.get("format") != HISTORY_FORMAT:
            raise ValueError(f"not a rummy51 hand history (format {d.get('format')!r})")
        if d.get("version") != FORMAT_VERSION:
            raise ValueError(f"hand history version {d.get('version')!r} is not supported "
                             f"(this is version {FORMAT_VERSION})")

        def field(name: str, parse: Callable[[Any], Any], default: Any = _NO_DEFAULT) -> Any:
            if name not in d:
                if default is _NO_DEFAULT:
                    raise ValueError(f"hand history has no {name!r}")
                return default
            try:
                return parse(d[name])
            except (ValueError, TypeError, KeyError, AttributeError, IndexError) as e:
                raise ValueError(f"hand history {name!r} is bad: {e}") from None

        def whole(v: Any) -> int:
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"{v!r} is not a whole number")
            return v

        def code_lists(v: Any) -> list[tuple[int, ...]]:
            if not isinstance(v, list):
                raise ValueError("not a list")
            return [tuple(to_codes(r)) for r in v]

        rules = field("rules", lambda v: rules_from_dict(v, strict=True))
        players = field("players", whole)
        first = field("first", whole, 0)
        deck = field("deck", to_codes)
        seed = d.get("seed")
        actions = field("actions", _a_list)
        forced = field("reshuffles", code_lists, [])
        try:
            s = cls.new(rules, players=players, seed=seed, deck=deck, first=first)
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as e:
            raise ValueError(f"hand history cannot start a deal: {e}") from None
        s._forced = forced
        for i, a in enumerate(actions):
            try:
                if not isinstance(a, dict):
                    raise ValueError(f"an action is a JSON object, got {type(a).__name__}")
                action = action_from_json(a)
            except (ValueError, TypeError, KeyError, AttributeError) as e:
                raise ValueError(f"hand history action {i} is bad: {e}") from None
            try:
                s.apply(action)
            except IllegalMove as e:
                raise ValueError(f"hand history action {i} ({shown(repr(a), quote=False)}) is "
                                 f"illegal: {e}") from None
            except (ValueError, TypeError, IndexError) as e:
                raise ValueError(f"hand history action {i} ({shown(repr(a), quote=False)}) "
                                 f"cannot be replayed: {e}") from None
        res = d.get("result")
        if res is not None:
            got = None if s.result is None else {"winner": s.result.winner, "how": s.result.how,
                                                 "scores": list(s.result.scores)}
            if got != res:
                raise ValueError(f"hand history result {shown(repr(res), 120, quote=False)} "
                                 f"differs from the replayed {got}")
        return s

    @classmethod
    def from_json(cls, text: str) -> GameState:
        """Rebuild a deal from JSON text (see ``from_dict``)."""
        return cls.from_dict(json.loads(text))

    def __repr__(self) -> str:
        return (f"<GameState {self.n_players} players, turn {self.turn}, player {self.current}, "
                f"{self.phase.value}>")


_NO_DEFAULT = object()


def _a_list(v: Any) -> list:
    if not isinstance(v, list):
        raise ValueError(f"not a list but {type(v).__name__}")
    return v


def replay(rules: RuleSet | None, seed: Any, actions: Iterable[Action], players: int = 4,
           first: int = 0, deck: Any = None) -> GameState:
    """The deal given by ``(rules, seed, actions)``: a new state with that seed, every action
    applied in order. ``seed`` must be the recorded one (an int; ``state.seed``)."""
    s = GameState.new(rules, players=players, seed=seed, deck=deck, first=first)
    for a in actions:
        s.apply(a)
    return s

