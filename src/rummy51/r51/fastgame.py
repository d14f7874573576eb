"""Whole deals of the built-in bots in C: ``play_kernel_deal`` (any table of random,
greedy, hand-hunter and tactician bots), ``play_greedy_deal``, and ``simulate_games``
whenever every seat is a built-in bot.

The kernel (``rummy51._game``) is the game engine and the four bots of
``rummy51.r51.bots`` written again over plain C data, move for move: the same shuffle from
the same seed, the same solver questions, the same table melds and tie-breaks, and for
``RandomBot`` the same ``legal_actions()`` list in the same order and the same two
``Generator.integers`` draws a move. So a deal played here is the deal
``play_deal(bots, rules, seed, first)`` plays; with ``record=True`` the moves come back
as engine actions, and ``replay`` turns them into a ``GameState`` (every move checked
by the Python engine).

>>> from rummy51 import RuleSet
>>> d = play_greedy_deal(RuleSet(), players=4, seed=3)
>>> d.how in ("out", "hand", "hand_bottom", "capped", "stock_out"), len(d.scores)
(True, 4)

``position(state)`` loads a deal in progress (a ``GameState``) into the kernel, and
``play_position(state, bots)`` plays the rest of it there: the deal the Python engine
would play from that state with those bots (``play_deal(bots, state=state.copy())``),
move for move. The search bot (``rummy51.r51.search``) plays its rollouts from such
positions.

Rules the kernel does not play (``supported`` names why): ``max_jokers_per_meld=2``, and the
optional table readings of docs/rules.md other than their defaults (``joker_limit_on_table``,
``opening_run='pure_run'``, ``first_player_free_take``, ``first_player_draws``, ``doubles_on``).
``match_elimination`` is a match rule: the kernel plays single deals.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

import numpy as np

from .. import _game
from .._catalogue import build_catalogue
from ..cards import JOKER
from ..rules import RuleSet
from ..solver import compiled_rules
from .actions import (
    BOTTOM,
    DISCARD,
    STOCK,
    Action,
    Discard,
    DiscardRecord,
    Draw,
    DrawRecord,
    LayDown,
    LayDownRecord,
    LayOff,
    LayOffRecord,
    Phase,
    Record,
    SwapJoker,
    SwapRecord,
    TurnInfo,
)
from .bots import Bot, GreedyBot, HandHunterBot, RandomBot, TacticianBot
from .engine import GameState, PlayerView, normalize_seed, replay
from .melds import HIGH, LOW, RUN, TableMeld

__all__ = [
    "BOT_CODES",
    "ENDS",
    "Continuation",
    "FastDeal",
    "bot_code",
    "greedy_kernel",
    "kernel_bots",
    "play_greedy_deal",
    "play_kernel_deal",
    "known_cards",
    "play_position",
    "position",
    "supported",
]

#: how a deal ends, indexed by the kernel's code (the order of games.ENDS)
ENDS = ("out", "hand", "hand_bottom", "capped", "stock_out")
MAX_PLAYERS = 8
_SOURCES = (STOCK, DISCARD, BOTTOM)
_SIDES = (None, LOW, HIGH)


#: the kernel's code of each built-in bot, by its name in ``bots.BOTS``
BOT_CODES = {"random": 0, "greedy": 1, "hand-hunter": 2, "tactician": 3, "search": 5,
             "search-plain": 5, "search-learned": 4, "learned": 6}
_CLASS_CODES: dict[type, int] = {RandomBot: 0, GreedyBot: 1, HandHunterBot: 2, TacticianBot: 3}
_KERNEL_CLASSES: dict[int, Any] = {}


def register_search_bot(cls: type, code: int = 4) -> None:
    """``rummy51.r51.search`` and ``rummy51.r51.learned`` register their bots (the search
    bot without the learned model 5, the default and ``search-plain``; with it 4,
    ``search-learned``; the learned bot 6) when imported: they sit
    above this module (they load their views here), so this module does not import them.
    A registered class gives the kernel its seat's parameters (``params()``, and
    ``default_params()`` for a seat given by name)."""
    _CLASS_CODES[cls] = code
    _KERNEL_CLASSES[code] = cls


#: the bots that draw from their own generator (a random seat, a search seat)
_SEEDED = (0, 4, 5)
#: the bots whose parameters the kernel needs from their class (search, learned)
_PARAMS = (4, 5, 6)


def bot_code(bot: object) -> int | None:
    """The kernel's code of a bot (a name of ``BOTS``, a built-in bot class or instance;
    not a subclass, whose moves the kernel cannot know), or None. A search bot instance
    says itself which it is (``kernel_code``: with or without its learned model)."""
    if isinstance(bot, str):
        return BOT_CODES.get(bot)
    cls = bot if isinstance(bot, type) else type(bot)
    code = _CLASS_CODES.get(cls)
    if code in _PARAMS and not isinstance(bot, type):
        code = int(cast(Any, bot).kernel_code)
    return code


def kernel_params(codes: Sequence[int]) -> list | None:
    """The seat parameters of a table given by bot codes (names): the defaults of a
    search or learned seat, with the learned model loaded and checked
    (``rummy51.learned.load_model``: a missing or damaged model file raises
    ``ModelError``), None for the other seats (None when there is no such seat)."""
    if not any(c in _PARAMS for c in codes):
        return None
    return [_KERNEL_CLASSES[c].default_params() if c in _PARAMS else None for c in codes]


def kernel_bots(bots: Iterable[object]) -> bool:
    """Whether the kernel plays every one of ``bots`` (names, classes or instances)."""
    return all(bot_code(b) is not None for b in bots)


def seat_rngs(codes: Sequence[int], entropy: Any, key: Sequence[int],
              seed_of: Sequence[int] | None = None) -> list | None:
    """The random seats' generators of a games study's deal (``deal_seeds``: seat ``s``'s
    bot seed is child ``key + (1 + s,)``; with a seat arrangement ``seed_of[s]``, the
    listed bot's own child ``key + (1 + seed_of[s],)``), None for the other seats (or
    for no random seat)."""
    if not any(c in _SEEDED for c in codes):
        return None
    SS, rng = np.random.SeedSequence, np.random.default_rng
    who = range(len(codes)) if seed_of is None else seed_of
    return [rng(SS(entropy, spawn_key=tuple(key) + (1 + k,))) if c in _SEEDED else None
            for k, c in zip(who, codes, strict=True)]


def _params(bot: object) -> tuple | None:
    if isinstance(bot, HandHunterBot):
        return (bot.p_hold, bot.max_round, bot.min_opponent_cards)
    if isinstance(bot, TacticianBot):
        return (bot.take_gain, bot.feed_penalty)
    if _CLASS_CODES.get(type(bot)) in _PARAMS:
        return cast(Any, bot).params()   # a search or learned bot (registered, not imported here)
    return None


def supported(rules: RuleSet, players: int = 4) -> str | None:
    """Why the C kernel cannot play these rules (None if it can)."""
    if rules.max_jokers_per_meld > 1:
        return "max_jokers_per_meld=2 (the kernel plays at most one joker per meld)"
    # the optional table readings the kernel does not play (yet): each names the engine's rule
    if not rules.joker_limit_on_table:
        return ("joker_limit_on_table=False (the kernel lays jokers off only within "
                "max_jokers_per_meld)")
    if rules.opening_run == "pure_run":
        # "run" it plays: the constraint lives in the solver core it asks
        return ("opening_run='pure_run' (the kernel joins a jokerless run to a joker run on "
                "the table, losing the run the opening must show)")
    if rules.first_player_free_take:
        return "first_player_free_take=True (the kernel counts free rounds from turn 0)"
    if rules.first_player_draws:
        return "first_player_draws=True (the kernel deals the first player one card more)"
    if rules.doubles_on != "hand":
        return f"doubles_on={rules.doubles_on!r} (the kernel doubles after every win by hand)"
    if not 2 <= players <= MAX_PLAYERS:
        return f"{players} players (the kernel plays 2..{MAX_PLAYERS})"
    return None


@lru_cache(maxsize=16)
def greedy_kernel(rules: RuleSet) -> _game.GreedyKernel:
    why = supported(rules)
    if why is not None:
        raise ValueError(f"the greedy game kernel cannot play these rules: {why}")
    return _game.GreedyKernel(rules, compiled_rules(rules), build_catalogue(rules))


@dataclass(frozen=True)
class FastDeal:
    """One finished deal: ``winner`` (None for a draw), ``how`` (out, hand, hand_bottom,
    capped, stock_out), ``length`` (turns played), per seat ``scores``, ``opened`` and
    ``turn_opened`` (the player's own turn, 1-based, in which they opened; -1 never),
    and the moves (``actions``) when recorded."""

    rules: RuleSet
    players: int
    first: int
    seed: object
    winner: int | None
    how: str
    length: int
    scores: tuple[int, ...]
    opened: tuple[bool, ...]
    turn_opened: tuple[int, ...]
    actions: tuple | None = None

    def replay(self) -> GameState:
        """The deal again through the Python engine (needs ``record=True``): every move is
        checked; the result must match."""
        if self.actions is None:
            raise ValueError("this deal was played without record=True: no actions to replay")
        state = replay(self.rules, self.seed, self.actions, players=self.players, first=self.first)
        res = state.result
        assert res is not None, "a replayed deal is over"
        got = (res.winner, res.how, tuple(res.scores))
        if got != (self.winner, self.how, self.scores):
            raise AssertionError(f"the engine's replay ends {got}, the kernel's "
                                 f"{(self.winner, self.how, self.scores)}")
        return state


def _decode(log: np.ndarray, n: int) -> list[Action]:
    """The kernel's action log as engine actions."""
    out: list[Action] = []
    i = 0
    log = log[:n].tolist()
    while i < n:
        op = log[i]
        if op == 0:
            out.append(Draw(_SOURCES[log[i + 1]]))
            i += 2
        elif op == 1:
            k = log[i + 1]
            i += 2
            melds, stand = [], []
            for _ in range(k):
                m = log[i]
                melds.append(tuple(log[i + 1:i + 1 + m]))
                i += 1 + m
                nj = log[i]
                stand.append(tuple(log[i + 1:i + 1 + nj]) or None)
                i += 1 + nj
            out.append(LayDown(tuple(melds), tuple(stand)))
        elif op == 2:
            out.append(LayOff(log[i + 1], log[i + 2], _SIDES[log[i + 3]]))
            i += 4
        elif op == 3:
            out.append(SwapJoker(log[i + 1], log[i + 2]))
            i += 3
        elif op == 4:
            out.append(Discard(log[i + 1]))
            i += 2
        else:  # pragma: no cover - a kernel bug
            raise RuntimeError(f"corrupt action log: code {op} at {i}")
    return out


def play_greedy_deal(rules: RuleSet | None = None, players: int = 4, seed: Any = None,
                     first: int = 0, record: bool = False) -> FastDeal:
    """Play one deal of ``players`` greedy bots in C, as ``play_deal`` would with
    ``GreedyBot``s: ``seed`` is what ``GameState.new`` takes (an int, a SeedSequence, a
    dict, None); ``first`` the first player. ``record=True`` keeps the moves."""
    rules = RuleSet() if rules is None else rules
    if not isinstance(rules, RuleSet):
        raise TypeError(f"rules must be a RuleSet, got {type(rules).__name__}")
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)):
        raise TypeError(f"players must be an int, got {players!r}")
    why = supported(rules, int(players))
    if why is not None:
        raise ValueError(f"the greedy game kernel cannot play this: {why}; use "
                         "rummy51.r51.bots.play_deal")
    if isinstance(seed, np.random.Generator):
        raise TypeError("seed must be an int, a SeedSequence, a dict or None (a Generator "
                        "cannot be recorded for a replay)")
    rng, recorded = normalize_seed(seed)
    log = np.empty(1 << 16, np.int32) if record else None
    while True:
        state = rng.bit_generator.state
        winner, how, length, scores, opened, turn_opened, log_n = _game.play_greedy(
            greedy_kernel(rules), rng, int(players), int(first), log)
        if log is None or log_n <= len(log):
            break
        log = np.empty(2 * log_n, np.int32)  # a long deal: play it again with room
        rng.bit_generator.state = state
    return FastDeal(
        rules=rules, players=int(players), first=int(first), seed=recorded,
        winner=None if winner < 0 else int(winner), how=ENDS[how], length=int(length),
        scores=tuple(scores), opened=tuple(opened), turn_opened=tuple(turn_opened),
        actions=tuple(_decode(log, log_n)) if record and log is not None else None)


def play_kernel_deal(bots: Sequence[Bot], rules: RuleSet | None = None, seed: Any = None, first: int = 0,
                     record: bool = False, bot_seeds: Sequence[int] | None = None) -> FastDeal:
    """Play one deal in C as ``play_deal(bots, rules, seed, first)`` would: ``bots`` holds
    one built-in bot per seat, as instances (a ``RandomBot`` draws from its own ``rng``,
    which advances as in Python; a hand-hunter's or tactician's parameters are read) or
    as names of ``bots.BOTS`` (then a random seat's generator is
    ``default_rng(bot_seeds[seat])``, as ``RandomBot(seed=bot_seeds[seat])``; other bots
    take their defaults). ``record=True`` keeps the moves."""
    rules = RuleSet() if rules is None else rules
    if not isinstance(rules, RuleSet):
        raise TypeError(f"rules must be a RuleSet, got {type(rules).__name__}")
    bots = list(bots)
    found = [bot_code(b) for b in bots]
    codes = [c for c in found if c is not None]
    if len(codes) < len(found):
        bad = next(b for b, c in zip(bots, found, strict=True) if c is None)
        raise ValueError(f"the game kernel plays the built-in bots only "
                         f"({', '.join(BOT_CODES)}), not {bad!r}")
    players = len(bots)
    why = supported(rules, players)
    if why is not None:
        raise ValueError(f"the game kernel cannot play this: {why}; use rummy51.r51.bots.play_deal")
    if isinstance(seed, np.random.Generator):
        raise TypeError("seed must be an int, a SeedSequence, a dict or None (a Generator "
                        "cannot be recorded for a replay)")
    rngs: list[np.random.Generator | None] = []
    for i, (b, c) in enumerate(zip(bots, codes, strict=True)):
        if c not in _SEEDED:
            rngs.append(None)
        elif isinstance(b, RandomBot) or _CLASS_CODES.get(type(b)) in _PARAMS:
            rngs.append(cast(Any, b).rng)
        else:
            rngs.append(np.random.default_rng(None if bot_seeds is None else bot_seeds[i]))
    params = [_params(b) for b in bots]
    if any(isinstance(b, str) and c in _PARAMS for b, c in zip(bots, codes, strict=True)):
        named = kernel_params(codes) or []
        params = [named[i] if isinstance(b, str) and c in _PARAMS else params[i]
                  for i, (b, c) in enumerate(zip(bots, codes, strict=True))]
    rng, recorded = normalize_seed(seed)
    log = np.empty(1 << 16, np.int32) if record else None
    while True:
        state = rng.bit_generator.state
        bstates = [(r, r.bit_generator.state) for r in rngs if r is not None]
        winner, how, length, scores, opened, turn_opened, log_n = _game.play_table(
            greedy_kernel(rules), rng, players, int(first), codes, rngs, params, log)
        if log is None or log_n <= len(log):
            break
        log = np.empty(2 * log_n, np.int32)  # a long deal: play it again with room
        rng.bit_generator.state = state
        for r, st in bstates:
            r.bit_generator.state = st
    return FastDeal(
        rules=rules, players=players, first=int(first), seed=recorded,
        winner=None if winner < 0 else int(winner), how=ENDS[how], length=int(length),
        scores=tuple(scores), opened=tuple(opened), turn_opened=tuple(turn_opened),
        actions=tuple(_decode(log, log_n)) if record and log is not None else None)


# --------------------------------------------------------------------------- positions
_PHASE_CODES = {Phase.DRAW: 0, Phase.PLAY: 1}
_SOURCE_CODES = {None: -1, STOCK: 0, DISCARD: 1, BOTTOM: 2}


def turn_info_codes(ti: TurnInfo) -> tuple[int, ...]:
    """A ``TurnInfo`` as the kernel's seven fields (source, drawn, must_open, bottom,
    freed joker, touched others, opened at start)."""
    return (_SOURCE_CODES[ti.source], -1 if ti.drawn is None else int(ti.drawn),
            int(ti.must_open), int(ti.bottom), int(ti.freed_joker), int(ti.touched_others),
            int(ti.opened_at_start))


def table_codes(table: Iterable[TableMeld]) -> list[tuple]:
    """Table melds as the kernel's ``(kind, owner, cards, stand-ins)`` (kind 0 run, 1 set)."""
    return [(0 if m.kind == RUN else 1, int(m.owner), tuple(m.cards), tuple(m.represents))
            for m in table]


def turns_opened(history: Sequence[Record], players: int) -> list[int]:
    """Each seat's ``turn_opened`` (its own turn, 1-based, of its opening; -1 never) from a
    history (a state's or a view's: lay-downs are public)."""
    out = [-1] * players
    for rec in history:
        if type(rec) is LayDownRecord and rec.opening:
            out[rec.player] = rec.turn // players + 1
    return out


def _rules_kernel(rules: RuleSet, players: int) -> Any:
    why = supported(rules, players)
    if why is not None:
        raise ValueError(f"the game kernel cannot play this: {why}")
    return greedy_kernel(rules)


def position(state: GameState) -> _game.Position:
    """The deal ``state`` (in progress: not over) loaded into the kernel: every hand, the
    stock in its order, the discard pile, the bottom card, the table, who opened, the turn
    and this turn's ``TurnInfo``. A ``ValueError`` if the kernel cannot play its rules."""
    if not isinstance(state, GameState):
        raise TypeError(f"state must be a GameState, got {type(state).__name__}")
    if state.over:
        raise ValueError("the deal is over: there is nothing left to play")
    n = state.n_players
    kernel = _rules_kernel(state.rules, n)
    cnt = np.zeros((n, 53), np.int32)
    for p, hand in enumerate(state.hands):
        np.add.at(cnt[p], np.asarray(hand, np.int64), 1)
    pos = _game.Position(
        kernel, n, state.current, state.turn, _PHASE_CODES[state.phase], cnt,
        np.asarray(state.stock[::-1], np.int32), np.asarray(state.discard_pile, np.int32),
        -1 if state.bottom is None else int(state.bottom), table_codes(state.table),
        list(state.opened), turns_opened(state.history, n), turn_info_codes(state.turn_info))
    assert pos.complete(), "a state's cards are all in one place"
    pos.set_known(_known_all(state))
    return pos


def known_cards(view: PlayerView) -> list[Counter]:
    """Per seat, cards the public history shows in its hand now (empty for the viewer):
    a card taken from the discard pile or the bottom, a joker freed by a swap, each less
    the copies the seat has played since (laid down, laid off, swapped in, discarded).
    With two decks a played copy may have been another one of the same card; counting it
    against the known copy keeps the count a lower bound, never more than the seat
    holds."""
    n = view.n_players
    known: list[Counter] = [Counter() for _ in range(n)]

    def played(p: int, c: int) -> None:
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


def _known_all(state: GameState) -> np.ndarray:
    """Every seat's known cards (``search.known_cards``: what the public history shows in
    its hand), as the kernel tracks them."""
    n = state.n_players
    out = np.zeros((n, 53), np.int32)
    for viewer in range(n):
        seen = known_cards(state.view(viewer))
        for p in range(n):
            if p != viewer and viewer == (p + 1) % n:
                for c, k in seen[p].items():
                    out[p, c] = k
    return out


@dataclass(frozen=True)
class Continuation:
    """The rest of a deal played in C from a position: ``winner`` (None for a draw),
    ``how``, ``length`` (turns of the whole deal), per seat ``scores``, ``opened`` and
    ``turn_opened``, and the moves made after the position (``actions``, when recorded)."""

    winner: int | None
    how: str
    length: int
    scores: tuple[int, ...]
    opened: tuple[bool, ...]
    turn_opened: tuple[int, ...]
    actions: tuple | None = None


def play_position(state: GameState, bots: Sequence[Bot], rng: np.random.Generator | None = None,
                  record: bool = False) -> Continuation:
    """Play the rest of deal ``state`` in C with one built-in bot per seat (names or
    instances, as ``play_kernel_deal`` takes them; a ``RandomBot`` draws from its own
    ``rng``). An empty stock is refilled from the discard pile shuffled with ``rng``; by
    default a copy of the deal's own RNG, so the result is the Python engine's
    ``play_deal(bots, state=state.copy())``. ``state`` is not changed."""
    bots = list(bots)
    if len(bots) != state.n_players:
        raise ValueError(f"{len(bots)} bots for {state.n_players} players")
    codes = [bot_code(b) for b in bots]
    if any(c is None for c in codes):
        bad = next(b for b, c in zip(bots, codes, strict=True) if c is None)
        raise ValueError(f"the game kernel plays the built-in bots only "
                         f"({', '.join(BOT_CODES)}), not {bad!r}")
    pos = position(state)
    rngs: list[np.random.Generator | None] = []
    for b, c in zip(bots, codes, strict=True):
        if c not in _SEEDED:
            rngs.append(None)
        elif isinstance(b, RandomBot) or _CLASS_CODES.get(type(b)) in _PARAMS:
            rngs.append(cast(Any, b).rng)
        else:
            raise ValueError("a random or search seat needs a bot instance (its generator)")
    params = [_params(b) for b in bots]
    deal_rng = state.rng_copy() if rng is None else rng
    log = np.empty(1 << 16, np.int32) if record else None
    while True:
        st = deal_rng.bit_generator.state
        bstates = [r.bit_generator.state if r is not None else None for r in rngs]
        winner, how, length, scores, opened, turn_opened, log_n = pos.play(
            deal_rng, [c for c in codes if c is not None], rngs, params, log)
        if log is None or log_n <= len(log):
            break
        log = np.empty(2 * log_n, np.int32)
        deal_rng.bit_generator.state = st
        for r, saved in zip(rngs, bstates, strict=True):
            if r is not None and saved is not None:
                r.bit_generator.state = saved
    return Continuation(
        winner=None if winner < 0 else int(winner), how=ENDS[how], length=int(length),
        scores=tuple(scores), opened=tuple(opened), turn_opened=tuple(turn_opened),
        actions=tuple(_decode(log, log_n)) if record and log is not None else None)
