"""A trained policy network as a bot: ``PolicyBot`` (bot name ``ppo``), numpy only.

The network was trained on the Gymnasium door ``rummy51/Rummy51-v0`` (2 players, the
default rules, against greedy bots) by ``bench/train_ppo.py`` (docs/agents.md, "A
training recipe"): a warm start imitating the greedy bot, then sb3-contrib's
``MaskablePPO``. Its weights ship with the package (``rummy51/models/ppo-r51.npz``); the forward
pass is numpy (no torch at run time): the action mask and the observation tensor in,
two tanh layers, one logit per id; the bot plays the legal id of the highest logit.

The bot sees only its ``PlayerView``: the observation tensor and the legal ids are
built from the view (``view_observation``), the very tensor the door gives the agent
(tests/test_policy_bots.py checks it). An opening is staged meld by meld as on the door,
then returned as one ``LayDown``.

>>> from rummy51.r51.bots import GreedyBot, play_deal
>>> state = play_deal([PolicyBot(), GreedyBot()], seed=3)
>>> state.over
True
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..common.policy_net import PolicyNet, load_net
from ..rules import RuleSet
from .actions import Action
from .codec import CANCEL, MELD0, OPEN, ActionCodec, codec_for
from .engine import PlayerView
from .observation import layout_for

__all__ = ["PolicyNet", "PolicyBot", "view_observation", "DEFAULT_WEIGHTS"]

#: the weights shipped with the package (2 players, default rules)
DEFAULT_WEIGHTS = Path(__file__).parents[1] / "models" / "ppo-r51.npz"


class _ViewGame:
    """What ``ObservationLayout.encode`` reads of a game, from a ``PlayerView``: the
    other hands are only their sizes (placeholders of the right length)."""

    def __init__(self, view: PlayerView) -> None:
        self._view = view
        p = view.player
        self.hands = [tuple(view.hand) if q == p else (0,) * size
                      for q, size in enumerate(view.hand_sizes)]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._view, name)


class _ViewState:
    """What ``ObservationLayout.encode`` and ``known_cards`` read of an ``AgentState``."""

    def __init__(self, view: PlayerView, codec: ActionCodec, staged: list[int], may_cancel: bool) -> None:
        self.game = _ViewGame(view)
        self.rules = view.rules
        self.n_players = view.n_players
        self.codec = codec
        self.staged = staged
        self.may_cancel = may_cancel
        self._pending = False
        self._cache: dict[str, Any] = {}

    def cached(self, key: Any) -> Any:
        return self._cache.get(key)

    def remember(self, key: Any, value: Any) -> None:
        self._cache[key] = value


def view_observation(view: PlayerView, staged: list[int] | None = None,
                     may_cancel: bool = True) -> np.ndarray:
    """The observation tensor of ``view.player`` (``AgentState.observation``), built from
    the view alone, with ``staged`` the meld ids staged this turn."""
    codec = codec_for(view.rules)
    state = _ViewState(view, codec, list(staged or []), may_cancel)
    return layout_for(view.rules, view.n_players).encode(state, view.player)  # type: ignore[arg-type]


class PolicyBot:
    """Plays the trained policy network (``weights``: a ``.npz`` of
    ``bench/train_ppo.py``; default the shipped one, 2-player deals under the default
    rules; another table is a one-line ``ValueError`` at the first decision).

    * Every decision: the legal ids of the view and the observation tensor; the legal id
      of the highest logit (deterministic: ``seed`` is accepted and unused).
    * Before opening, a meld id stages the meld and the bot decides again; ``OPEN`` lays
      the staged melds down as one ``LayDown``; ``CANCEL`` takes them back (once a turn).
    """

    def __init__(self, seed: Any = None, weights: str | Path | None = None) -> None:
        self.weights = str(DEFAULT_WEIGHTS if weights is None else weights)
        self.net = load_net(self.weights)
        self._cancelled_turn: int | None = None

    def __repr__(self) -> str:
        return f"PolicyBot(weights={Path(self.weights).name!r})"

    @classmethod
    def check_table(cls, rules: RuleSet, players: int) -> None:
        """A one-line ValueError unless the shipped network plays this table (studies ask
        before the first deal)."""
        load_net(str(DEFAULT_WEIGHTS)).check("rummy51", players, layout_for(rules, players).size,
                                             codec_for(rules).size)

    def choose(self, view: PlayerView) -> Action:
        rules: RuleSet = view.rules
        codec = codec_for(rules)
        layout = layout_for(rules, view.n_players)
        self.net.check("rummy51", view.n_players, layout.size, codec.size)
        staged: list[int] = []
        may_cancel = self._cancelled_turn != view.turn
        for _ in range(4 * rules.hand_size + 8):
            legal = codec.legal_actions(view, staged, may_cancel)
            obs = view_observation(view, staged, may_cancel)
            a = self.net.best(legal, obs)
            if a == CANCEL:
                staged = []
                may_cancel = False
                self._cancelled_turn = view.turn
                continue
            if a >= MELD0 and a != OPEN and not view.opened[view.player] and a < codec.slot0:
                staged.append(a)
                continue
            move = codec.decode(a, view, staged)
            assert not isinstance(move, str)
            return move  # type: ignore[return-value]
        raise RuntimeError("the ppo bot staged melds without end")  # pragma: no cover
