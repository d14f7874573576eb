"""Single-agent Gymnasium environments: one seat against rummy51's own bots.

``import rummy51.envs`` registers them when gymnasium is installed
(``pip install ".[agents]"`` from a clone):

>>> import gymnasium, rummy51.envs
>>> env = gymnasium.make("rummy51/Carousel-v0", players=3, opponents="greedy")
>>> obs, info = env.reset(seed=1)
>>> sorted(obs), int(obs["action_mask"].sum()) >= 1
(['action_mask', 'observation'], True)

* ``rummy51/Rummy51-v0`` (``Rummy51GymEnv``): the integer actions of
  ``rummy51.r51.codec`` and the observation of ``rummy51.r51.observation``;
* ``rummy51/Carousel-v0`` (``CarouselGymEnv``): the actions of
  ``rummy51.carousel.codec`` (a meld play is "add card" actions then "commit") and the
  observation of ``rummy51.carousel.agent``.

Options (keywords of ``gymnasium.make``; defaults in brackets): ``rules`` (a ``RuleSet`` /
``CarouselRules``, or a dict of their fields; the default rules, for Carousel those of
``CarouselRules.for_players(players)``), ``players`` (4), ``opponents`` (``"greedy"``: a
bot name for every other seat, or a list of names, one per other seat in seat order),
``seat`` (0, the agent's seat), ``reward`` (``"deal"`` for Rummy 51, ``"game"`` for
Carousel), ``shaping`` (0.0), ``illegal_action`` (``"terminate"`` or ``"raise"``;
``"terminate"``), ``illegal_reward`` (-1.0); Rummy 51 also ``deals`` (1) and ``first`` (0:
the seat that starts the first deal, the next deal the next seat; ``"random"``: drawn
for every episode), Carousel ``round_only`` (False; the first dealer is drawn from the
seed). A deal or round that ends before the agent's first move (another player goes out
at once) is dealt again, so every episode has a move. The observation is a ``Dict`` of ``observation``
(float32 in [0, 1]) and ``action_mask`` (int8); ``action_masks()`` is the mask as bools
(sb3-contrib's ``MaskablePPO`` reads it). ``action_space.sample()`` draws a legal id of
the current position.

Rewards: Rummy 51, minus the agent's points of each deal (``"deal"``: at the end of every
deal; ``"game"``: their sum at the end of the episode of ``deals`` deals); a deal capped by
``max_turns`` truncates the episode. Carousel, an episode is a whole game, or one round
with ``round_only=True``: ``"round"`` gives each round's score as the round ends and the
end-of-game bonuses with the last round, ``"game"`` the final score at the end; both add
up to the final score (docs/rules-carousel.md 5-6), and with ``round_only`` both are the
round's score at its end. ``shaping=c`` adds, at every agent step, ``c`` times the change
of a potential (potential-based shaping: the best policy stays the same): minus the points
the agent would pay if the deal or round ended now (Rummy 51: an opened hand its cards'
values, an unopened one ``score_unopened`` less half its best opening's value up to the
threshold; Carousel: the hand's points), the potential of the end taken as 0; an episode's
shaped rewards add up to the unshaped ones plus ``c`` times minus the potential at the
start. The final ``info`` holds ``scores`` and ``won`` (the deal, round or game).

``reset(seed=s)`` reproduces the deal (and the bots' choices); an illegal id in ``step``
ends the episode with reward ``illegal_reward`` and ``info["illegal_action"]`` (the
default ``illegal_action="terminate"``, as PettingZoo's classic games do; Gymnasium's
``check_env`` steps sampled ids after a reset, legal or not, and passes on the defaults),
or is a one-line ``IllegalMove`` that changes nothing (``"raise"``, for code that must
never send one). An id that is no integer (a float, a bool, an array of another
dtype) is a one-line ``TypeError``.
"""
from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ._optional import need

# imported at run time (an optional extra), so untyped here: Any
_gym: Any = need("gymnasium", "agents")
_spaces: Any = need("gymnasium.spaces", "agents")

from ..carousel.agent import CarouselAgentState, carousel_layout_for  # noqa: E402
from ..carousel.bots import BOTS as CAROUSEL_BOTS  # noqa: E402
from ..carousel.codec import NUM_ACTIONS  # noqa: E402
from ..carousel.rules import CarouselRules  # noqa: E402
from ..r51.agent import AgentState  # noqa: E402
from ..r51.bots import BOTS as R51_BOTS  # noqa: E402
from ..r51.codec import codec_for  # noqa: E402
from ..r51.melds import card_value  # noqa: E402
from ..r51.observation import layout_for  # noqa: E402
from ..rules import RuleSet  # noqa: E402
from ..solver import best_opening  # noqa: E402

__all__ = ["Rummy51GymEnv", "CarouselGymEnv", "MaskedDiscrete", "register"]

Obs = dict[str, np.ndarray]  # {"observation": float32 tensor, "action_mask": int8 mask}
Step = tuple[float, bool, bool, dict[str, Any]]  # reward, terminated, truncated, info


class MaskedDiscrete(_spaces.Discrete):  # gymnasium is untyped here (Any, above): our side is annotated
    """A ``Discrete`` space whose ``sample()`` without a mask draws a legal id of the
    environment's current position (with a mask, as ``Discrete`` does)."""

    def __init__(self, n: int, env: _Base, seed: Any = None) -> None:  # seed: as Discrete takes it
        super().__init__(n, seed=seed)
        self._env = env

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> np.int64:
        if mask is None and probability is None and self._env._state is not None:
            mask = self._env.action_masks().astype(np.int8)
            if not mask.any():
                mask = None
        return super().sample(mask=mask, probability=probability)


def _action_id(action: object) -> int:
    """``action`` as an int: an int, a numpy integer, or a 0-d / 1-element integer array."""
    if isinstance(action, np.ndarray):
        if action.dtype.kind not in "iu" or action.size != 1:
            raise TypeError(f"an action is one integer id, got an array of dtype {action.dtype} "
                            f"and shape {action.shape}")
        return int(action.reshape(()))
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"an action is an integer id, got {type(action).__name__} {action!r:.40}")
    return int(action)


def _opponents(opponents: str | Iterable[str], players: int, seat: int, bots: Mapping[str, Any]) -> list[str]:
    names = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
    if len(names) != players - 1:
        raise ValueError(f"opponents: {players - 1} bot names for {players} players, got "
                         f"{len(names)}")
    for n in names:
        if n not in bots:
            raise ValueError(f"opponents: unknown bot {n!r} (one of {', '.join(sorted(bots))})")
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < players:
        raise ValueError(f"seat must be 0..{players - 1}, got {seat!r}")
    return names


class _Base(_gym.Env):  # gymnasium is untyped here (Any, above): our side is annotated
    """What both games share: the loop of the other seats, masks, checks."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}
    _state: Any

    def _setup(self, obs_size: int, n_actions: int, seat: int, reward: str, rewards: tuple[str, ...],
               illegal_action: str, illegal_reward: float, render_mode: str | None,
               shaping: float = 0.0) -> None:
        if reward not in rewards:
            raise ValueError(f"reward must be one of {', '.join(map(repr, rewards))}, got {reward!r}")
        if illegal_action not in ("raise", "terminate"):
            raise ValueError(f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        if (isinstance(shaping, (bool, np.bool_)) or not isinstance(shaping, (int, float, np.number))
                or not np.isfinite(shaping)):
            raise ValueError(f"shaping must be a finite number (0 for none), got {shaping!r}")
        self.seat = int(seat)
        self.shaping = float(shaping)
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.observation_space = _spaces.Dict({
            "observation": _spaces.Box(0.0, 1.0, (obs_size,), np.float32),
            "action_mask": _spaces.Box(0, 1, (n_actions,), np.int8),
        })
        self.action_space = MaskedDiscrete(n_actions, self)
        self._state = None
        self._done = False

    def action_masks(self) -> np.ndarray:
        """The legal ids as a bool array (all False when the episode is over)."""
        if self._state is None or self._done:
            return np.zeros(self.action_space.n, bool)
        return self._state.legal_actions_mask().astype(bool)

    def _obs(self) -> Obs:
        s = self._state
        mask = (np.zeros(self.action_space.n, np.int8) if self._done
                else s.legal_actions_mask())
        return {"observation": np.array(s.observation(self.seat), np.float32), "action_mask": mask}

    def step(self, action: object) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        if self._state is None:
            raise ValueError("call reset() before step()")
        a = _action_id(action)
        if self._done:
            raise ValueError("the episode is over: call reset()")
        if a not in self._state.legal_actions():
            if self.illegal_action == "terminate" and 0 <= a < self.action_space.n:
                self._done = True
                return self._obs(), self.illegal_reward, True, False, {"illegal_action": a}
            self._state.apply_action(a)  # raises the one-line IllegalMove, nothing changed
        before = self._potential() if self.shaping else 0.0
        reward, terminated, truncated, info = self._advance(a)
        if self.shaping:
            after = 0.0 if self._done else self._potential()
            reward += self.shaping * (after - before)
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, terminated, truncated, info

    def _potential(self) -> float:  # pragma: no cover - each game has its own
        raise NotImplementedError

    def render(self) -> str | None:
        if self.render_mode is None or self._state is None:
            return None
        text = self._state.observation_string(self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text


class Rummy51GymEnv(_Base):
    """Rummy 51 for one seat against bots (see the module docstring)."""

    def __init__(self, rules: RuleSet | dict[str, Any] | None = None, players: int = 4,
                 opponents: str | Iterable[str] = "greedy", seat: int = 0,
                 reward: str = "deal", deals: int = 1, first: int | str = 0,
                 illegal_action: str = "terminate", illegal_reward: float = -1.0,
                 render_mode: str | None = None, shaping: float = 0.0) -> None:
        if isinstance(rules, dict):
            rules = RuleSet(**rules)
        self.rules = RuleSet() if rules is None else rules
        if not isinstance(self.rules, RuleSet):
            raise TypeError(f"rules must be a RuleSet or a dict of its fields, got "
                            f"{type(self.rules).__name__}")
        self.random_first = isinstance(first, str) and first == "random"
        if isinstance(first, str) and not self.random_first:
            raise ValueError(f"first must be a seat number or 'random', got {first!r}")
        first0 = 0 if isinstance(first, str) else first
        AgentState.new(self.rules, players, seed=0, first=first0)  # checks players and first
        self.players = int(players)
        self.first = int(first0)
        self.opponent_names = _opponents(opponents, self.players, seat, R51_BOTS)
        if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 1:
            raise ValueError(f"deals must be an int >= 1, got {deals!r}")
        self.deals = int(deals)
        self._setup(layout_for(self.rules, self.players).size, codec_for(self.rules).size,
                    seat, reward, ("deal", "game"), illegal_action, illegal_reward, render_mode,
                    shaping)

    def _potential(self) -> float:
        """Minus the points the agent would pay if another player went out now (a new
        deal of a several-deal episode counts from its own start)."""
        g = self._state.game
        r = self.rules
        hand = g.hands[self.seat]
        if g.opened[self.seat]:
            return -float(sum(card_value(c, r) for c in hand))
        return -float(r.score_unopened) + 0.5 * min(best_opening(hand, r, keep=1).value, r.threshold)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        others = [p for p in range(self.players) if p != self.seat]
        self._bots = {}
        for p, name in zip(others, self.opponent_names, strict=True):
            cls = R51_BOTS[name]
            seeded = "seed" in inspect.signature(cls).parameters  # random, search: reproducible
            self._bots[p] = cls(seed=int(rng.integers(2**63))) if seeded else cls()
        self._deal_no = 0
        self._total = 0.0
        if self.random_first:
            self.first = int(rng.integers(self.players))
        self._done = False
        self._new_deal()
        self._play_others()
        while self._state.is_terminal():  # over before the agent's first move: deal again
            self._new_deal()
            self._play_others()
        return self._obs(), {}

    def _new_deal(self) -> None:
        first = (self.first + self._deal_no) % self.players
        self._state = AgentState.new(self.rules, self.players,
                                     seed=int(self.np_random.integers(2**63)), first=first)

    def _play_others(self) -> None:
        s = self._state
        while not s.is_terminal() and s.current_player() != self.seat:
            p = s.current_player()
            for a in s.encode_sequence(self._bots[p].choose(s.view(p))):
                s.apply_action(a)

    def _advance(self, a: int) -> Step:
        s = self._state
        s.apply_action(a)
        self._play_others()
        reward, terminated, truncated, info = 0.0, False, False, {}
        while s.is_terminal():
            r = s.returns()[self.seat]
            self._total += r
            self._deal_no += 1
            capped = s.game.result.how == "capped"
            if self.reward_mode == "deal":
                reward += r
            if self._deal_no == self.deals or capped:
                if self.reward_mode == "game":
                    reward += self._total
                self._done = True
                terminated, truncated = not capped, capped
                info = {"scores": s.returns(), "won": s.game.result.winner == self.seat,
                        "deals": self._deal_no}
                break
            self._new_deal()
            self._play_others()
            s = self._state
        return reward, terminated, truncated, info


class CarouselGymEnv(_Base):
    """Carousel for one seat against bots (see the module docstring)."""

    def __init__(self, rules: CarouselRules | dict[str, Any] | None = None, players: int | None = None,
                 opponents: str | Iterable[str] = "greedy",
                 seat: int = 0, reward: str = "game", illegal_action: str = "terminate",
                 illegal_reward: float = -1.0, render_mode: str | None = None,
                 round_only: bool = False, shaping: float = 0.0) -> None:
        if isinstance(rules, dict):
            rules = CarouselRules(**rules)
        if rules is None:
            rules = CarouselRules.for_players(4 if players is None else players)
        if not isinstance(rules, CarouselRules):
            raise TypeError(f"rules must be a CarouselRules or a dict of its fields, got "
                            f"{type(rules).__name__}")
        if players is not None and players != rules.players:
            rules = CarouselRules(**{**rules.__dict__, "players": players})
        self.rules = rules
        self.players = rules.players
        self.opponent_names = _opponents(opponents, self.players, seat, CAROUSEL_BOTS)
        if not isinstance(round_only, (bool, np.bool_)):
            raise TypeError(f"round_only must be True or False, got {round_only!r}")
        self.round_only = bool(round_only)
        self._setup(carousel_layout_for(rules).size, NUM_ACTIONS, seat, reward,
                    ("round", "game"), illegal_action, illegal_reward, render_mode, shaping)

    def _potential(self) -> float:
        """Minus the points of the agent's hand."""
        return -float(self.rules.hand_points(self._state.game.hands[self.seat]))

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        others = [p for p in range(self.players) if p != self.seat]
        self._bots = {}
        for p, name in zip(others, self.opponent_names, strict=True):
            cls = CAROUSEL_BOTS[name]
            self._bots[p] = cls() if name == "greedy" else cls(seed=int(rng.integers(2**63)))
        self._state = CarouselAgentState.new(self.rules, seed=int(rng.integers(2**63)),
                                             round_only=self.round_only)
        self._rounds = 0
        self._done = False
        self._play_others()
        while self._state.is_terminal():  # over before the agent's first move: deal again
            self._state = CarouselAgentState.new(self.rules, seed=int(rng.integers(2**63)),
                                                 round_only=self.round_only)
            self._play_others()
        return self._obs(), {}

    def _play_others(self) -> None:
        s = self._state
        while not s.is_terminal() and s.current_player() != self.seat:
            p = s.current_player()
            s.apply_engine_action(self._bots[p].choose(s.game.view(p)))

    def _advance(self, a: int) -> Step:
        s = self._state
        s.apply_action(a)
        self._play_others()
        g = s.game
        reward = 0.0
        if self.reward_mode == "round":
            for res in g.rounds[self._rounds:]:
                reward += res.scores[self.seat]
        self._rounds = len(g.rounds)
        info: dict[str, Any] = {}
        if s.is_terminal():
            self._done = True
            final = s.returns()
            if self.round_only:
                reward = final[self.seat]
                info = {"scores": final, "won": self.seat in g.rounds[0].winners, "rounds": 1}
            else:
                if self.reward_mode == "game":
                    reward = final[self.seat]
                else:
                    reward += final[self.seat] - g.totals[self.seat]  # the end-of-game bonuses
                info = {"scores": final, "won": self.seat in g.winners, "rounds": len(g.rounds)}
        return reward, s.is_terminal(), False, info


def register() -> None:
    """Register ``rummy51/Rummy51-v0`` and ``rummy51/Carousel-v0`` (importing
    ``rummy51.envs`` does it when gymnasium is installed; a second call changes nothing)."""
    from . import _register_gym

    _register_gym()
