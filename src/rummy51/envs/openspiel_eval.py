"""Cheap leaf evaluators for OpenSpiel's ``MCTSBot`` on ``python_rummy51`` and
``python_carousel`` (``pip install ".[agents]"``).

OpenSpiel's own ``RandomRolloutEvaluator`` plays random moves to the end: a random Rummy
51 deal runs for hundreds of moves, so MCTS manages one or two moves a second. These
evaluators answer the same two questions (``evaluate(state)``: a value per player, on
the scale of the game's returns; ``prior(state)``: ``(action, probability)`` pairs) for
much less:

* ``RolloutEvaluator(rollouts=1, seed=None)``: plays the rest with greedy bots.
  Rummy 51: the rest of the deal in the C game kernel (``rummy51.r51.fastgame``; rules
  the kernel does not play fall back to the Python engine), the returns minus each
  player's points. Carousel: the rest of the round in the Python engine with greedy
  bots; the value is the round's scores (``returns="round"``), or for a whole game the
  totals so far plus that round's scores (a one-round horizon). The stock, whose order
  a chance-node state does not fix, is shuffled for every rollout. Uniform priors.
* ``NetworkEvaluator(game)``: the trained networks that ship with the package
  (``bench/train_ppo.py``, the ``ppo`` bots): the policy network's softmax over the
  legal ids as the prior, the value network of each player's observation as its value
  (2-player tables under the rules they were trained for).
* ``ValueEvaluator(value, prior=None)``: any Python-callable model, ``value(agent_state,
  player) -> float`` (and optionally ``prior(agent_state) -> {id: probability}``), for
  models trained elsewhere.

Every evaluator takes an OpenSpiel state of these games (it reads its ``agent``, the
``AgentState`` / ``CarouselChanceState`` underneath) or that agent state itself. At a
chance node the prior is the chance outcomes. bench/README.md (Doors) has the moves per
second of ``MCTSBot`` with each.

>>> import pyspiel, numpy as np
>>> import rummy51.envs.openspiel
>>> from open_spiel.python.algorithms.mcts import MCTSBot
>>> game = pyspiel.load_game("python_rummy51", {"players": 2})
>>> bot = MCTSBot(game, 30.0, 20, RolloutEvaluator(seed=1), random_state=np.random.RandomState(1))
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ._optional import need

_mcts: Any = need("open_spiel.python.algorithms.mcts", "agents")

from ..carousel.agent import CarouselAgentState  # noqa: E402
from ..carousel.bots import GreedyBot as CarouselGreedy  # noqa: E402
from ..carousel.engine import Phase as CPhase  # noqa: E402
from ..common.policy_net import PolicyNet  # noqa: E402
from ..r51.agent import AgentState  # noqa: E402
from ..r51.bots import GreedyBot, play_deal  # noqa: E402
from ..r51.fastgame import play_position, supported  # noqa: E402

__all__ = ["RolloutEvaluator", "NetworkEvaluator", "ValueEvaluator", "agent_of"]


def agent_of(state: Any) -> Any:
    """The agent state under an OpenSpiel state (its ``agent``), or ``state`` itself."""
    agent = getattr(state, "agent", state)
    if not isinstance(agent, (AgentState, CarouselAgentState)):
        raise TypeError(f"not a state of python_rummy51 or python_carousel: {type(state).__name__}")
    return agent


def _chance_or_uniform(state: Any, agent: Any) -> list[tuple[int, float]]:
    if agent.is_chance_node():
        return list(agent.chance_outcomes())
    legal = agent.legal_actions()
    return [(a, 1.0 / len(legal)) for a in legal]


class _Base(_mcts.Evaluator):  # open_spiel is untyped here (Any, above): our side is annotated
    def prior(self, state: Any) -> list[tuple[int, float]]:
        agent = agent_of(state)
        return _chance_or_uniform(state, agent)


class RolloutEvaluator(_Base):
    """Greedy-bot rollouts (the module docstring): ``rollouts`` a leaf, averaged; the
    shuffles and random choices from ``seed``."""

    def __init__(self, rollouts: int = 1, seed: Any = None) -> None:
        if isinstance(rollouts, bool) or not isinstance(rollouts, (int, np.integer)) or rollouts < 1:
            raise ValueError(f"rollouts must be an int >= 1, got {rollouts!r}")
        self.rollouts = int(rollouts)
        self.rng = np.random.default_rng(seed)

    def evaluate(self, state: Any) -> np.ndarray:
        agent = agent_of(state)
        if agent.is_terminal():
            return np.asarray(agent.returns(), float)
        if isinstance(agent, AgentState):
            return self._rummy51(agent)
        return self._carousel(agent)

    def _rummy51(self, agent: AgentState) -> np.ndarray:
        g = agent.game
        n = agent.n_players
        if g is None:  # still being dealt
            return np.zeros(n)
        kernel = supported(g.rules, n) is None
        total = np.zeros(n)
        for _ in range(self.rollouts):
            world = g.copy()
            self.rng.shuffle(world._stock)
            if kernel:
                scores = play_position(world, [GreedyBot() for _ in range(n)], self.rng).scores
            else:  # pragma: no cover - rules the kernel does not play
                scores = play_deal([GreedyBot() for _ in range(n)], state=world).scores()
            total -= np.asarray(scores, float)
        return total / self.rollouts

    def _carousel(self, agent: CarouselAgentState) -> np.ndarray:
        g = agent.game
        n = g.n_players
        base = np.zeros(n) if agent.round_only else np.asarray(g.totals, float)
        if getattr(agent, "_dealing", None) is not None:  # the round is being dealt
            return base
        total = np.zeros(n)
        bots = [CarouselGreedy() for _ in range(n)]
        for _ in range(self.rollouts):
            world = g.copy()
            self.rng.shuffle(world._stock)
            r0 = len(world.rounds)
            moves = 0
            while len(world.rounds) == r0 and world.phase is not CPhase.OVER and moves < 10_000:
                world.apply(bots[world.current].choose(world.view(world.current)))
                moves += 1
            if len(world.rounds) > r0:
                total += np.asarray(world.rounds[r0].scores, float)
        return base + total / self.rollouts


class NetworkEvaluator(_Base):
    """The shipped policy and value networks of the ``ppo`` bot of ``game``
    (``"rummy51"`` or ``"carousel"``), or those of ``weights`` (a ``policy.npz`` of
    ``bench/train_ppo.py`` holding its value network too). Values are the value
    network's estimate of each player's return against greedy play, in the game's own
    points; priors the policy's softmax over the legal ids."""

    def __init__(self, game: str = "rummy51", weights: str | Path | None = None) -> None:
        if game not in ("rummy51", "carousel"):
            raise ValueError(f"game must be 'rummy51' or 'carousel', got {game!r}")
        if weights is None:
            if game == "rummy51":
                from ..r51.policy import DEFAULT_WEIGHTS
            else:
                from ..carousel.policy import DEFAULT_WEIGHTS
            weights = DEFAULT_WEIGHTS
        self.game = game
        self.policy = PolicyNet(weights)
        self.value = PolicyNet(weights, prefix="v")
        self.scale = float(self.policy.meta.get("reward_scale", 1.0))

    def evaluate(self, state: Any) -> np.ndarray:
        agent = agent_of(state)
        if agent.is_terminal():
            return np.asarray(agent.returns(), float)
        n = agent.n_players if isinstance(agent, AgentState) else agent.game.n_players
        if agent.game is None or getattr(agent, "_dealing", None) is not None:
            return np.zeros(n)
        cur = agent.current_player()
        out = np.zeros(n)
        for p in range(n):
            mask = agent.legal_actions_mask() if p == cur else np.zeros(self.policy.outputs, np.int8)
            out[p] = float(self.value.logits(mask, agent.observation(p))[0]) / self.scale
        if isinstance(agent, CarouselAgentState) and not agent.round_only:
            out += np.asarray(agent.game.totals, float)
        return out

    def prior(self, state: Any) -> list[tuple[int, float]]:
        agent = agent_of(state)
        if agent.is_chance_node() or agent.game is None:
            return _chance_or_uniform(state, agent)
        legal = agent.legal_actions()
        z = self.policy.logits(agent.legal_actions_mask(), agent.observation(agent.current_player()),
                               np.asarray(legal)).astype(float)
        z -= z.max()
        p = np.exp(z)
        p /= p.sum()
        return [(int(a), float(q)) for a, q in zip(legal, p, strict=True)]


class ValueEvaluator(_Base):
    """A model of your own: ``value(agent_state, player) -> float`` (on the scale of the
    game's returns) for every player, and ``prior(agent_state) -> {id: probability}``
    (default uniform) for the player on turn."""

    def __init__(self, value: Callable[[Any, int], float],
                 prior: Callable[[Any], dict[int, float]] | None = None) -> None:
        if not callable(value) or (prior is not None and not callable(prior)):
            raise TypeError("value (and prior) must be callables")
        self._value = value
        self._prior = prior

    def evaluate(self, state: Any) -> np.ndarray:
        agent = agent_of(state)
        if agent.is_terminal():
            return np.asarray(agent.returns(), float)
        n = agent.n_players if isinstance(agent, AgentState) else agent.game.n_players
        return np.array([float(self._value(agent, p)) for p in range(n)])

    def prior(self, state: Any) -> list[tuple[int, float]]:
        agent = agent_of(state)
        if self._prior is None or agent.is_chance_node():
            return _chance_or_uniform(state, agent)
        given = self._prior(agent)
        legal = agent.legal_actions()
        w = np.array([max(0.0, float(given.get(a, 0.0))) for a in legal])
        if w.sum() <= 0:
            w = np.ones(len(legal))
        w /= w.sum()
        return [(int(a), float(q)) for a, q in zip(legal, w, strict=True)]
