"""The Carousel engine: one game of rounds to the target score (docs/rules-carousel.md
sections 3, 5 and 6).

A game is a ``GameState``. The seed draws the first dealer and every round's shuffle;
the deal passes to the left each round, the player on the dealer's left starts. Its
``phase`` says what comes next:

* ``Phase.DRAW``: a turn starts, the player draws (``Draw()``);
* ``Phase.MELD``: after the first or second draw, the player melds once (``Meld``: the
  whole new table) or draws again;
* ``Phase.NO_DRAW``: no draw is left (the stock ran out in this turn, or this is one
  of the last turns after it ran out): meld once or ``Pass()``;
* ``Phase.END``: the end of the turn (after a meld, or the third draw): ``Knock()``
  with 5 points or fewer, or ``Pass()``;
* ``Phase.OVER``: a total reached the target and the game is scored (``final``,
  ``winners``).

A player who melds every card goes out and the round ends at once. When a round ends it
is scored (``rounds``: ``RoundResult`` s) and the next one is dealt, until the game is
over. Every move has a triad (pokerkit): ``verify_meld(melds)`` raises ``IllegalMove``
naming the rule broken (``.rule``, e.g. ``"4"``), ``can_meld(melds)`` returns a bool,
``meld(melds)`` makes the move and returns its record; ``apply(action)`` does the same
for an action object and ``legal_actions()`` lists the moves (with one meld play, the
solver's best). A refused move leaves the state unchanged; a move argument that is no
move at all (``meld(None)``, ``apply(5)``) is ``IllegalMove`` too (rule ``"engine"``),
and an argument that is no game (``new(players=2.5)``, ``view("x")``) a ``TypeError``
or ``ValueError`` naming it. The game replays exactly
from ``(rules, seed, actions)`` (``replay``); its history (``to_json``) also records
every round's deck, so ``from_json`` needs no RNG.

Bots see a ``PlayerView`` (``state.view(player)``): their own hand, the table, the
stock's size, every hand's size, the totals and the public history (the cards of
stock draws hidden), never another hand nor the stock.

>>> from rummy51.carousel import CarouselRules
>>> s = GameState.new(CarouselRules.for_players(3), seed=7)
>>> s.phase, s.current == (s.dealer + 1) % 3, [len(h) for h in s.hands]
(<Phase.DRAW: 'draw'>, True, [10, 10, 10])
>>> rec = s.draw()
>>> s.phase, len(s.hands[s.current])
(<Phase.MELD: 'meld'>, 11)

The rules choices where docs/rules-carousel.md is silent are listed in docs/carousel.md.
"""
from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._checks import int_arg
from ..cards import JOKER, cards_text, shown, to_codes
from ..common.seeds import normalize_seed
from ..common.state import StateBase, ViewBase, deprecated_clone
from .actions import (
    FORMAT_VERSION,
    HISTORY_FORMAT,
    Action,
    DealRecord,
    Draw,
    DrawRecord,
    IllegalMove,
    Knock,
    KnockRecord,
    Meld,
    MeldRecord,
    Pass,
    PassRecord,
    Phase,
    Record,
    RoundRecord,
    RoundResult,
    TurnInfo,
    action_from_json,
    action_to_json,
    short_repr,
)
from .moves import MoveRules, final_scores, score_round
from .rules import CarouselRules
from .table import TableMeld, check_position

__all__ = ["GameState", "PlayerView", "replay", "rules_to_dict", "rules_from_dict"]

_START = TurnInfo()
_LAST = TurnInfo(last=True)


def rules_to_dict(rules: CarouselRules) -> dict:
    """A ``CarouselRules`` as a JSON-ready dict (every field)."""
    return dataclasses.asdict(rules)


def rules_from_dict(d: dict, *, recorded: bool = False) -> CarouselRules:
    """The inverse of ``rules_to_dict`` (an unknown field is a ``ValueError``; a missing
    one takes its default). ``recorded``: ``d`` was written whole by ``rules_to_dict``
    (a history, a run's manifest), so a missing ``stock_out`` means it was written
    before that field existed, when the last turns started from the finder: "finder"."""
    if not isinstance(d, dict):
        raise TypeError(f"Carousel rules must be a dict of CarouselRules fields, got "
                        f"{type(d).__name__}")
    names = {f.name for f in dataclasses.fields(CarouselRules)}
    bad = sorted(repr(k) for k in set(d) - names)   # repr: one line, whatever the key
    if bad:
        raise ValueError(f"unknown CarouselRules field(s): {', '.join(bad)}")
    if recorded and "stock_out" not in d:
        d = dict(d, stock_out="finder")
    return CarouselRules(**d)


# --------------------------------------------------------------------------- views
@dataclass(frozen=True, eq=False)
class PlayerView(ViewBase, MoveRules):
    """What one player may see: their own ``hand``; the table, the stock's size, every
    hand's size, the totals and rounds won, this turn's ``TurnInfo`` and the public
    ``history`` (stock draws show no card, the decks are hidden; the hands are shown
    when a round is scored). When it is this player's turn the ``verify_x`` /
    ``can_x`` checks and ``legal_actions()`` work as on the state."""

    player: int
    rules: CarouselRules
    n_players: int
    round: int
    dealer: int
    phase: Phase
    turn: int
    current: int
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    table: tuple[TableMeld, ...]
    stock_count: int
    turn_info: TurnInfo
    totals: tuple[int, ...]
    rounds_won: tuple[int, ...]
    stock_out: bool = False
    history: Sequence[Record] = field(repr=False, default=())

    _ILLEGAL = IllegalMove

    @property
    def my_turn(self) -> bool:
        return self.player == self.current


# --------------------------------------------------------------------------- the state
class GameState(StateBase, MoveRules):
    """One game of Carousel. Start one with ``GameState.new``.

    Public attributes (read them, do not change them): ``rules``, ``n_players``,
    ``first_dealer``, ``dealer``, ``round`` (0-based), ``phase``, ``turn`` (0-based, in
    the round), ``current``, ``hands``, ``table`` (``TableMeld`` s), ``turn_info``,
    ``totals``, ``rounds_won``, ``rounds`` (``RoundResult`` s), ``history`` (every
    ``Record``, deals included), ``actions`` (the player actions, for ``replay``),
    ``final`` and ``winners`` once over."""

    _OVER = Phase.OVER

    def __init__(self) -> None:  # use GameState.new
        self.rules: CarouselRules
        self.n_players = 0
        self.seed = None
        self.first_dealer = 0
        self.dealer = 0
        self.round = 0
        self.hands: list[list[int]] = []
        self._stock: list[int] = []   # top of the stock last (pop)
        self.table: list[TableMeld] = []
        self.phase = Phase.DRAW
        self.turn = 0
        self.current = 0
        self.turn_info = _START
        self.totals: list[int] = []
        self.rounds_won: list[int] = []
        self.rounds: list[RoundResult] = []
        self.history: list[Record] = []
        self.actions: list[Action] = []
        self.final: tuple[int, ...] | None = None
        self.winners: tuple[int, ...] = ()
        self.decks: list[tuple[int, ...]] = []   # every round's deck order, top first
        self._public: list[Record] = []
        self._rng: np.random.Generator | None = None
        self._forced: list[tuple[int, ...]] = []  # decks to deal instead of shuffling
        # the seat the last turns of 3.5 start after (and end with): the exhauster or
        # the finder (rules.stock_out); None while the stock lasts
        self._stock_out_by: int | None = None
        self._last: list[int] | None = None    # seats still to play a last turn

    # ------------------------------------------------------------------ creation
    @classmethod
    def new(cls, rules: CarouselRules | None = None, players: int | None = None,
            seed: Any = None, *, dealer: int | None = None, decks: Sequence = ()) -> GameState:
        """A new game, its first round dealt. ``rules`` (default
        ``CarouselRules.for_players(players or 4)``); ``players`` replaces
        ``rules.players`` when given. ``seed``: an int, a SeedSequence, a Generator or
        None (fresh entropy, recorded in ``seed``); it draws the first dealer, then each
        round's shuffle. For tests: ``dealer`` fixes the first dealer and ``decks`` gives
        the first rounds' deck orders (top first: the dealer's left is dealt the first
        ``hand_size`` cards, and so on around the table; the rest is the stock)."""
        if rules is None:
            rules = CarouselRules.for_players(4 if players is None else players)
        if not isinstance(rules, CarouselRules):
            raise TypeError(f"rules must be a CarouselRules, got {type(rules).__name__}")
        if players is not None:
            players = int_arg("players", players, 2, 6)
            if players != rules.players:
                rules = dataclasses.replace(rules, players=players)
        s = cls()
        s.rules = rules
        n = s.n_players = rules.players
        s._rng, s.seed = normalize_seed(seed)
        first = int(s._rng.integers(n))
        if dealer is not None:
            first = int_arg("dealer", dealer, 0, n - 1)
        s.first_dealer = s.dealer = first
        full = Counter(rules.deck())
        if isinstance(decks, (str, bytes)) or not isinstance(decks, (list, tuple)):
            raise TypeError(f"decks must be a list of deck orders, got {type(decks).__name__}")
        for i, d in enumerate(decks):
            try:
                if isinstance(d, str):
                    order = tuple(to_codes(d))
                else:
                    order = tuple(int_arg(f"decks[{i}] card", c, 0, JOKER) for c in d)
            except (TypeError, ValueError) as e:
                raise ValueError(f"decks[{i}] must be a deck order (card texts, or codes "
                                 f"0..52): {e}") from None
            if Counter(order) != full:
                raise ValueError(f"decks[{i}] must hold each card of the {rules.deck_size}-card "
                                 "deck exactly once per copy")
            s._forced.append(order)
        s.totals = [0] * n
        s.rounds_won = [0] * n
        s._deal()
        return s

    def _deal(self) -> None:
        rules, n = self.rules, self.n_players
        if self._forced:
            order = self._forced.pop(0)
        else:
            rng = self._generator()
            order = tuple(int(c) for c in rng.permutation(np.asarray(rules.deck(), np.int64)))
        self.decks.append(order)
        h = rules.hand_size
        self.hands = [[] for _ in range(n)]
        for i in range(n):
            seat = (self.dealer + 1 + i) % n
            self.hands[seat] = sorted(order[i * h:(i + 1) * h])
        self._stock = list(order[n * h:][::-1])
        self.table = []
        self.current = (self.dealer + 1) % n
        self.phase = Phase.DRAW
        self.turn = 0
        self.turn_info = _START
        self._stock_out_by = None
        self._last = None
        rec = DealRecord(self.round, 0, -1, None, self.dealer, order)
        self.history.append(rec)
        self._public.append(dataclasses.replace(rec, deck=()))
        if not self._stock and rules.stock_out == "exhauster":
            # the deal took the last card: the dealer exhausted the stock, and the last
            # turns start at once, from the dealer's left round to the dealer
            self._stock_out_by = self.dealer
            self._last = [(self.dealer + k) % n for k in range(2, n + 1)]
            self.phase = Phase.NO_DRAW
            self.turn_info = _LAST

    clone = deprecated_clone("GameState")

    # ------------------------------------------------------------------ chance mode
    def deal_again(self, order: Sequence[int]) -> None:
        """Deal this round again from the deck order ``order`` (top first): the hands,
        the stock and the round's recorded deck (the chance mode of
        ``rummy51.carousel.chance``, whose chance outcomes decide the deal card by card)."""
        order = tuple(order)
        h = self.rules.hand_size
        n = self.n_players
        for i in range(n):
            self.hands[(self.dealer + 1 + i) % n] = sorted(order[i * h:(i + 1) * h])
        self._stock = list(order[n * h:][::-1])
        self.decks[-1] = order
        hist = self.history
        for j in range(len(hist) - 1, -1, -1):
            rec = hist[j]
            if isinstance(rec, DealRecord):
                hist[j] = dataclasses.replace(rec, deck=order)
                break

    def put_on_stock(self, card: int) -> None:
        """Make the copy of ``card`` nearest the top of the stock its top card, trading
        places with the top card (the chance mode, where each stock draw is a chance
        outcome; nobody sees the stock's order). ``ValueError`` if the stock holds none."""
        stock = self._stock          # top last
        try:
            i = len(stock) - 1 - stock[::-1].index(card)
        except ValueError:
            raise ValueError(f"{cards_text([card])} is not in the stock") from None
        stock[i], stock[-1] = stock[-1], stock[i]

    # ------------------------------------------------------------------ reading
    def view(self, player: int | None = None) -> PlayerView:
        """What ``player`` (default: the player on turn) may see."""
        p = self.current if player is None else int_arg("player", player, 0,
                                                         self.n_players - 1)
        return PlayerView(
            player=p, rules=self.rules, n_players=self.n_players, round=self.round,
            dealer=self.dealer, phase=self.phase, turn=self.turn, current=self.current,
            hand=tuple(self.hands[p]), hand_sizes=tuple(map(len, self.hands)),
            table=tuple(self.table), stock_count=len(self._stock), turn_info=self.turn_info,
            totals=tuple(self.totals), rounds_won=tuple(self.rounds_won),
            stock_out=self._stock_out_by is not None,
            history=self._public_history())

    # ------------------------------------------------------------------ moves
    def draw(self) -> DrawRecord:
        """Draw the top card of the stock; an empty stock stops the drawing (3.5). Who
        takes the last card exhausts the stock; with ``rules.stock_out`` "finder" the
        last turns start from the player whose draw finds it empty instead."""
        self.verify_draw()
        p = self.current
        draws = self.turn_info.draws + 1
        self.actions.append(Draw())
        if self._stock:
            card = self._stock.pop()
            self.hands[p].append(card)
            self.hands[p].sort()
            self.turn_info = TurnInfo(draws=draws)
            self.phase = Phase.MELD if draws < 3 else Phase.END
            if not self._stock and self.rules.stock_out == "exhauster":
                self._stock_out_by = p
            rec = DrawRecord(self.round, self.turn, p, Draw(), card)
            return self._record(rec, dataclasses.replace(rec, card=None))
        if self._stock_out_by is None:   # "finder" (the exhauster is this player already)
            self._stock_out_by = p
        self.turn_info = TurnInfo(draws=draws)
        # the step reached: after a first or second draw the player may still meld
        self.phase = Phase.NO_DRAW if draws < 3 else Phase.END
        return self._record(DrawRecord(self.round, self.turn, p, Draw(), None, True))

    def meld(self, melds: Any) -> MeldRecord:
        """Play ``melds`` as the whole new table (section 4); see ``verify_meld``."""
        new, played = self.verify_meld(melds)
        action = melds if isinstance(melds, Meld) else Meld(melds)   # before any change
        p = self.current
        hand = self.hands[p]
        for c in played:
            hand.remove(c)
        self.table = new
        self.actions.append(action)
        out = not hand
        rec = MeldRecord(self.round, self.turn, p, action, played, tuple(new), out)
        self._record(rec)
        last = self.turn_info.last
        self.turn_info = TurnInfo(draws=self.turn_info.draws, melded=True, last=last)
        if out:
            self._end_round("out", p)
        elif last and not self.rules.last_turn_knock:
            self._end_turn()
        else:
            self.phase = Phase.END
        return rec

    def knock(self) -> KnockRecord:
        """Knock: the round ends and is scored (3.4)."""
        self.verify_knock()
        p = self.current
        self.actions.append(Knock())
        rec = KnockRecord(self.round, self.turn, p, Knock(), self.hand_points())
        self._record(rec)
        self._end_round("knock", p)
        return rec

    def pass_(self) -> PassRecord:
        """End the turn without knocking (with no draw left: without melding)."""
        self.verify_pass()
        self.actions.append(Pass())
        rec = PassRecord(self.round, self.turn, self.current, Pass())
        self._record(rec)
        self._end_turn()
        return rec

    def apply(self, action: Action) -> Record:
        """Make the move ``action`` (``Draw``, ``Meld``, ``Knock`` or ``Pass``)."""
        if isinstance(action, Draw):
            return self.draw()
        if isinstance(action, Meld):
            return self.meld(action)
        if isinstance(action, Knock):
            return self.knock()
        if isinstance(action, Pass):
            return self.pass_()
        raise IllegalMove("engine", f"action must be a Carousel action (Draw(), Meld(...), "
                                    f"Knock(), Pass()), got {short_repr(action)}")

    # ------------------------------------------------------------------ flow
    def _end_turn(self) -> None:
        n = self.n_players
        if self._stock_out_by is None:
            self.turn += 1
            self.current = (self.current + 1) % n
            self.phase = Phase.DRAW
            self.turn_info = _START
            return
        if self._last is None:   # the exhauster's (finder's) turn just ended: the last turns
            f = self._stock_out_by
            self._last = [(f + k) % n for k in range(1, n + 1)]
        if self._last:
            self.turn += 1
            self.current = self._last.pop(0)
            self.phase = Phase.NO_DRAW
            self.turn_info = _LAST
            return
        self._end_round("stock", None)   # ``turn`` stays the last turn's (turns = turn + 1)

    def _end_round(self, how: str, knocker: int | None) -> None:
        rules = self.rules
        points = tuple(rules.hand_points(h) for h in self.hands)
        winners, scores, undercut = score_round(points, knocker, how, rules)
        res = RoundResult(self.round, self.dealer, how, knocker, points, winners, scores,
                          undercut, self.turn + 1)
        self.rounds.append(res)
        for p, s in enumerate(scores):
            self.totals[p] += s
        for w in winners:
            self.rounds_won[w] += 1
        self._record(RoundRecord(self.round, self.turn, -1, None, res))
        if max(self.totals) >= rules.target_score:
            final, game_winners = final_scores(self.totals, self.rounds_won, rules)
            if rules.game_tie == "share" or len(game_winners) == 1:
                self.final, self.winners = final, game_winners
                self.phase = Phase.OVER
                return
        self.round += 1
        self.dealer = (self.dealer + 1) % self.n_players
        self._deal()

    # ------------------------------------------------------------------ checks
    def check(self) -> None:
        """Raise ``AssertionError`` if an invariant is broken: every card of the deck in
        exactly one place (the stock, a hand or the table), every table meld valid, no
        empty hand while a round runs, totals the sum of the round scores."""
        r = self.rules
        places = [c for h in self.hands for c in h] + self._stock
        places += [c for m in self.table for c in m.cards]
        assert Counter(places) == Counter(r.deck()), "cards not accounted for"
        try:
            check_position(self.table, [], r)
        except ValueError as e:  # pragma: no cover - a bug
            raise AssertionError(f"the table is not valid: {e}") from None
        if self.phase is not Phase.OVER:
            assert all(self.hands), "an empty hand while the round runs"
        for p in range(self.n_players):
            assert self.totals[p] == sum(x.scores[p] for x in self.rounds), "totals"

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        """The game's history as a JSON-ready dict: rules, seed, first dealer, every
        round's deck, the actions, every round's result and the final scores."""
        return {
            "format": HISTORY_FORMAT,
            "version": FORMAT_VERSION,
            "rules": rules_to_dict(self.rules),
            "seed": self.seed,
            "first_dealer": self.first_dealer,
            "decks": [cards_text(d).split() for d in self.decks],
            "actions": [action_to_json(a) for a in self.actions],
            "rounds": [x.to_dict() for x in self.rounds],
            "final": None if self.final is None else list(self.final),
            "winners": list(self.winners),
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: dict) -> GameState:
        """Rebuild a game from its history, replaying every action on the recorded decks
        (no RNG); the recorded rounds, final scores and winners must match."""
        if not isinstance(d, dict) or d.get("format") != HISTORY_FORMAT:
            raise ValueError("not a Carousel history (format "
                             f"{d.get('format') if isinstance(d, dict) else None!r})")
        if d.get("version") != FORMAT_VERSION:
            raise ValueError(f"Carousel history version {d.get('version')!r} is not supported")
        try:
            rules = rules_from_dict(d["rules"], recorded=True)
            s = cls.new(rules, seed=d.get("seed"), dealer=int(d["first_dealer"]),
                        decks=[to_codes(x) for x in d["decks"]])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"the history cannot start a game: {e}") from None
        for i, a in enumerate(d.get("actions", [])):
            try:
                s.apply(action_from_json(a))
            except (ValueError, TypeError, KeyError) as e:
                raise ValueError(f"history action {i} ({shown(repr(a), quote=False)}) cannot be "
                                 f"replayed: {e}") from None
        got = [x.to_dict() for x in s.rounds]
        if "rounds" in d and got != d["rounds"]:
            raise ValueError("the history's round results differ from the replayed ones")
        final = None if s.final is None else list(s.final)
        if "final" in d and d["final"] != final:
            raise ValueError(f"the history's final scores {shown(repr(d['final']), quote=False)} differ "
                             f"from {final}")
        winners = list(s.winners)
        if d.get("final") is not None and "winners" in d and d["winners"] != winners:
            raise ValueError(f"the history's winners {shown(repr(d['winners']), quote=False)} differ from "
                             f"the replayed {winners}")
        return s

    @classmethod
    def from_json(cls, text: str) -> GameState:
        return cls.from_dict(json.loads(text))

    def __repr__(self) -> str:
        return (f"<Carousel GameState {self.n_players} players, round {self.round}, turn "
                f"{self.turn}, player {self.current}, {self.phase.value}>")


def replay(rules: CarouselRules | None, seed: Any, actions: Iterable[Action],
           players: int | None = None) -> GameState:
    """The game given by ``(rules, seed, actions)``: a new game with that seed, every
    action applied in order. ``seed`` must be the recorded one (``state.seed``)."""
    s = GameState.new(rules, players=players, seed=seed)
    for a in actions:
        s.apply(a)
    return s
