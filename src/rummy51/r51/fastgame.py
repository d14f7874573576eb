"""Whole deals of greedy bots in C: ``play_greedy_deal`` (and ``simulate_games`` when every
seat is ``"greedy"``).

The kernel (``rummy51._game``) is the game engine and ``GreedyBot`` written again over
plain C data, move for move: the same shuffle from the same seed, the same solver
questions, the same table melds and tie-breaks. So a deal played here is the deal
``play_deal([GreedyBot()] * n, rules, seed, first)`` plays, about 50 times faster; with
``record=True`` the moves come back as engine actions, and ``replay`` turns them into a
``GameState`` (every move checked by the Python engine).

>>> from rummy51 import RuleSet
>>> d = play_greedy_deal(RuleSet(), players=4, seed=3)
>>> d.how in ("out", "hand", "hand_bottom", "capped", "stock_out"), len(d.scores)
(True, 4)

Rules the kernel does not play (``supported`` names why): ``max_jokers_per_meld=2``, and the
table readings of issue 14 other than their defaults (``joker_limit_on_table``, ``opening_run='pure_run'``,
``first_player_free_take``, ``first_player_draws``, ``doubles_on``). ``match_elimination`` is a
match rule: the kernel plays single deals.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import numpy as np

from .. import _game
from .._catalogue import build_catalogue
from ..rules import RuleSet
from ..solver import compiled_rules
from .actions import BOTTOM, DISCARD, STOCK, Action, Discard, Draw, LayDown, LayOff, SwapJoker
from .engine import GameState, normalize_seed, replay
from .melds import HIGH, LOW

__all__ = ["FastDeal", "play_greedy_deal", "supported", "greedy_kernel", "ENDS"]

#: how a deal ends, indexed by the kernel's code (the order of games.ENDS)
ENDS = ("out", "hand", "hand_bottom", "capped", "stock_out")
MAX_PLAYERS = 8
_SOURCES = (STOCK, DISCARD, BOTTOM)
_SIDES = (None, LOW, HIGH)


def supported(rules: RuleSet, players: int = 4) -> Optional[str]:
    """Why the C kernel cannot play these rules (None if it can)."""
    if rules.max_jokers_per_meld > 1:
        return "max_jokers_per_meld=2 (the kernel plays at most one joker per meld)"
    # the options of issue 14 the kernel does not play (yet): each names the engine's rule
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
def greedy_kernel(rules: RuleSet) -> "_game.GreedyKernel":
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
    winner: Optional[int]
    how: str
    length: int
    scores: tuple[int, ...]
    opened: tuple[bool, ...]
    turn_opened: tuple[int, ...]
    actions: Optional[tuple] = None

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


def play_greedy_deal(rules: Optional[RuleSet] = None, players: int = 4, seed=None,
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
                         "rummy51.bots.play_deal")
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
