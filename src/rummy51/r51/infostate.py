"""Rummy 51's information-state tensor: what one player has seen, in a fixed shape.

``AgentState.information_state_tensor(p)`` is the observation tensor of ``p``
(``rummy51.r51.observation``: the hand, the table, the piles, the turn) followed by a
summary of the public history and of ``p``'s own private history, made of named pieces
(``InfoStateLayout.pieces``; docs/agents.md gives the sizes for the default rules):

* ``dealt``: the cards ``p`` was dealt (a card-count block);
* ``bottom_dealt``: the bottom card as dealt (one-hot of 53, public; zero without one);
* ``own_stock``: the cards ``p`` drew from the stock (a card-count block);
* per seat, relative as in the observation (seat 0 is ``p``): ``took`` the cards taken
  from the discard pile or the bottom, ``discarded`` the cards discarded, ``laid`` the
  hand cards laid down, laid off or swapped in (card-count blocks), and ``draws`` the
  number of stock draws over ``max_turns``.

The counts are cumulative (a card discarded twice counts twice, up to the block's
copies), so the tensor has the same shape at every point of every deal of the same
rules and players. It summarises the history rather than ordering it: two states can
share the tensor and differ in the information state string (the order of the moves),
which is perfect recall. During a chance-mode deal only ``dealt`` (so far) is set.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..rules import RuleSet
from .actions import STOCK, ChanceRecord, DiscardRecord, DrawRecord, LayDownRecord, LayOffRecord, SwapRecord
from .observation import dealt_to, layout_for, player_index

if TYPE_CHECKING:  # agent imports this module
    from .agent import AgentState

__all__ = ["InfoStateLayout", "infostate_layout_for", "history_counts"]


class InfoStateLayout:
    """The pieces of the information-state tensor for ``rules`` and ``players``:
    ``pieces`` (``(name, size)``; the observation's pieces first), ``offsets``, ``size``."""

    def __init__(self, rules: RuleSet, players: int) -> None:
        self.rules = rules
        self.players = n = players
        self.observation = obs = layout_for(rules, players)
        b = obs.card_block
        self.pieces = list(obs.pieces) + [
            ("dealt", b),
            ("bottom_dealt", 53),
            ("own_stock", b),
            ("took", n * b),
            ("discarded", n * b),
            ("laid", n * b),
            ("draws", n),
        ]
        self.offsets = {}
        o = 0
        for name, size in self.pieces:
            self.offsets[name] = o
            o += size
        self.size = o

    def encode(self, state: AgentState, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """The information-state tensor of ``player`` in ``state`` (an ``AgentState``)."""
        n = self.players
        p = player_index(player, n)
        if out is None:
            out = np.zeros(self.size, np.float32)
        obs = self.observation
        state.observation(p, out=out[:obs.size])
        out[obs.size:] = 0.0
        off = self.offsets
        cards = obs._cards
        b = obs.card_block
        g = state.game
        if g is None:
            dealt = dealt_to(state, p)
            if dealt:
                cards(out, off["dealt"], _counts(dealt))
            return out
        deal = cast(ChanceRecord, g.history[0]).cards  # the deal
        cards(out, off["dealt"], _counts(_initial_hand(state, deal, p)))
        if self.rules.bottom_card:
            out[off["bottom_dealt"] + deal[-1]] = 1.0
        h = history_counts(state)
        cards(out, off["own_stock"], h["own_stock"][p])
        for k in range(n):
            q = (p + k) % n
            cards(out, off["took"] + k * b, h["took"][q])
            cards(out, off["discarded"] + k * b, h["discarded"][q])
            cards(out, off["laid"] + k * b, h["laid"][q])
            out[off["draws"] + k] = min(1.0, h["draws"][q] / self.rules.max_turns)
        return out


def _counts(cards: Sequence[int] | np.ndarray) -> np.ndarray:
    return np.bincount(np.asarray(cards, dtype=np.intp), minlength=53)


@lru_cache(maxsize=64)
def infostate_layout_for(rules: RuleSet, players: int) -> InfoStateLayout:
    """The information-state layout of ``rules`` and ``players`` (cached)."""
    return InfoStateLayout(rules, players)


def _initial_hand(state: AgentState, deck: Sequence[int], p: int) -> list[int]:
    rules = state.rules
    k = (p - state.first) % state.n_players
    start = 0 if k == 0 else rules.hand_size + 1 + (k - 1) * rules.hand_size
    return list(deck[start:start + rules.hand_size + (1 if k == 0 else 0)])


def history_counts(state: AgentState) -> dict[str, Any]:
    """Per seat, the cumulative card counts of the history (see the module docstring):
    ``took``, ``discarded``, ``laid``, ``own_stock`` (53 counts each) and ``draws``
    (stock draws). Read incrementally and cached on the state like the known cards."""
    g = state.game
    assert g is not None  # the deal is dealt
    hist = g.history
    cached = state.cached("hist_counts")
    if cached is not None and cached[0] == len(hist):
        return cached[1]
    n = state.n_players
    if cached is not None and cached[0] < len(hist):
        start = cached[0]
        c = cached[1]
        h = {k: [row[:] for row in c[k]] for k in ("took", "discarded", "laid", "own_stock")}
        h["draws"] = c["draws"][:]
    else:
        start = 0
        h = {k: [[0] * 53 for _ in range(n)] for k in ("took", "discarded", "laid", "own_stock")}
        h["draws"] = [0] * n
    for i in range(start, len(hist)):
        r: Any = hist[i]  # a Record, dispatched on its exact type (which mypy does not narrow)
        t = type(r)
        if t is DrawRecord:
            if r.action.source == STOCK:
                h["draws"][r.player] += 1
                if r.card is not None:
                    h["own_stock"][r.player][r.card] += 1
            elif r.card is not None:
                h["took"][r.player][r.card] += 1
        elif t is DiscardRecord:
            h["discarded"][r.player][r.action.card] += 1
        elif t is LayOffRecord or t is SwapRecord:
            h["laid"][r.player][r.action.card] += 1
        elif t is LayDownRecord:
            row = h["laid"][r.player]
            for m in r.action.melds:
                for c in m:
                    row[c] += 1
    state.remember("hist_counts", (len(hist), h))
    return h
