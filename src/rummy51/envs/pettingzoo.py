"""PettingZoo door: ``env(**rules)`` is an AEC environment of one Rummy 51 deal.

>>> from rummy51.envs.pettingzoo import env
>>> e = env(players=2)
>>> e.reset(seed=42)
>>> obs, reward, terminated, truncated, info = e.last()
>>> sorted(obs), bool(obs["action_mask"].sum() > 0)
(['action_mask', 'observation'], True)

Agents are ``player_0 .. player_{n-1}`` (seat numbers). The agent on turn acts until
its turn ends: a Rummy 51 turn is several moves (draw, lay down, lay off, discard), so
``agent_selection`` stays on one agent for several steps. Actions are the integer
codec's (``rummy51.r51.codec``, ``Discrete(size)``); observations are dicts of the
``observation`` tensor (float32 in [0, 1], ``rummy51.r51.observation``) and the
``action_mask`` (int8, zero off turn). Rewards come at the end: minus each player's
points (docs/rules.md 6). A deal capped by ``max_turns`` is a truncation, any other end
a termination. ``reset(seed=s)`` deals the deal ``GameState.new(seed=s)`` deals, so a
seed reproduces it; ``reset()`` without a seed takes the next seed from the
environment's own generator.

Keyword arguments: ``players`` (4), ``first`` (0), ``render_mode`` (``"ansi"`` or
``"human"``) and any ``RuleSet`` field (``env(jokers=2, threshold=40)``).

``carousel_env(players=4, round_only=False, render_mode=None, **rules)`` is Carousel's:
actions are ``rummy51.carousel.codec``'s 57 ids (a meld play: "add card" ids, then
"commit"), observations ``rummy51.carousel.agent``'s tensor and the mask; a game runs
to the target score and rewards come at its end (the final scores), or with
``round_only=True`` one round (the round's scores). ``rules`` may be a
``CarouselRules``; other keywords are its fields.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ._optional import need

# imported at run time (an optional extra), so untyped here: Any
_pz: Any = need("pettingzoo", "pettingzoo")
_spaces: Any = need("gymnasium.spaces", "pettingzoo")

from ..carousel.agent import CarouselAgentState, carousel_layout_for  # noqa: E402
from ..carousel.codec import NUM_ACTIONS as CAROUSEL_ACTIONS  # noqa: E402
from ..carousel.rules import CarouselRules  # noqa: E402
from ..r51.agent import AgentState  # noqa: E402
from ..r51.codec import codec_for  # noqa: E402
from ..r51.observation import layout_for  # noqa: E402
from ..rules import RuleSet  # noqa: E402

__all__ = ["env", "raw_env", "Rummy51Env", "carousel_env", "CarouselEnv"]


def env(**kwargs: Any) -> Rummy51Env:
    """A Rummy 51 AEC environment (see the module docstring)."""
    return Rummy51Env(**kwargs)


class Rummy51Env(_pz.AECEnv):  # pettingzoo is untyped here (Any, above): our side is annotated
    """One deal of Rummy 51 as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "rummy51_v0",
                "is_parallelizable": False}

    def __init__(self, players: int = 4, first: int = 0, render_mode: str | None = None,
                 **rules: Any) -> None:
        super().__init__()
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        self.rules = RuleSet(**rules)
        AgentState.new(self.rules, players, seed=0, first=first)  # checks players and first
        self.players = int(players)
        self.first = int(first)
        self.render_mode = render_mode
        self.codec = codec_for(self.rules)
        self._layout = layout_for(self.rules, self.players)
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self.agents = self.possible_agents[:]
        obs_space = _spaces.Dict({
            "observation": _spaces.Box(0.0, 1.0, (self._layout.size,), np.float32),
            "action_mask": _spaces.Box(0, 1, (self.codec.size,), np.int8),
        })
        act_space = _spaces.Discrete(self.codec.size)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._seeds = np.random.default_rng()
        self.state: AgentState | None = None

    def observation_space(self, agent: str) -> Any:  # a gymnasium Dict space
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:  # a gymnasium Discrete space
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the AEC loop
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            deal_seed = seed
        else:
            deal_seed = int(self._seeds.integers(2**63))
        first = self.first
        if options and "first" in options:
            first = options["first"]
        self.state = AgentState.new(self.rules, self.players, seed=deal_seed, first=first)
        self.agents = self.possible_agents[:]
        self.rewards: dict[str, float] = {a: 0 for a in self.agents}
        self._cumulative_rewards: dict[str, float] = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def _seat(self, agent: str) -> int:
        try:
            return self.possible_agents.index(agent)
        except ValueError:
            raise ValueError(f"{agent!r} is not an agent: {', '.join(self.possible_agents)}") from None

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        s = self._need_reset()
        p = self._seat(agent)
        obs = s.observation(p)
        if s.current_player() == p:
            mask = s.legal_actions_mask()
        else:
            mask = np.zeros(self.codec.size, np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int) -> None:
        s = self._need_reset()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        s.apply_action(action)  # a one-line ValueError / TypeError if bad; nothing changes
        self._cumulative_rewards[agent] = 0
        if s.is_terminal():
            g = s.game
            assert g is not None and g.result is not None  # the deal is over
            capped = g.result.how == "capped"
            for a, r in zip(self.possible_agents, s.returns(), strict=True):
                self.rewards[a] = r
                self.terminations[a] = not capped
                self.truncations[a] = capped
                self.infos[a] = {"result": {"winner": g.result.winner, "how": g.result.how}}
        else:
            for a in self.agents:
                self.rewards[a] = 0
            self.agent_selection = self.possible_agents[s.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _need_reset(self) -> AgentState:
        if self.state is None:
            raise ValueError("call reset() before observe() or step()")
        return self.state

    # ------------------------------------------------------------------ display
    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        s = self._need_reset()
        p = s.current_player()
        text = s.observation_string(p if p >= 0 else 0)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


raw_env = Rummy51Env


# --------------------------------------------------------------------------- Carousel
def carousel_env(**kwargs: Any) -> CarouselEnv:
    """A Carousel AEC environment (see the module docstring)."""
    return CarouselEnv(**kwargs)


class CarouselEnv(_pz.AECEnv):  # pettingzoo is untyped here (Any, above): our side is annotated
    """A game (or a round) of Carousel as a PettingZoo AEC environment."""

    metadata = {"render_modes": ["ansi", "human"], "name": "carousel_v0",
                "is_parallelizable": False}

    def __init__(self, players: int | None = None, round_only: bool = False,
                 render_mode: str | None = None, rules: CarouselRules | None = None,
                 **fields: Any) -> None:
        super().__init__()
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        if rules is None:
            base = CarouselRules.for_players(4 if players is None else players)
            rules = CarouselRules(**{**base.__dict__, **fields}) if fields else base
        elif fields:
            rules = CarouselRules(**{**rules.__dict__, **fields})
        if players is not None and players != rules.players:
            rules = CarouselRules(**{**rules.__dict__, "players": players})
        self.rules = rules
        self.players = rules.players
        self.round_only = bool(round_only)
        self.render_mode = render_mode
        size = carousel_layout_for(rules).size
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self.agents = self.possible_agents[:]
        obs_space = _spaces.Dict({
            "observation": _spaces.Box(0.0, 1.0, (size,), np.float32),
            "action_mask": _spaces.Box(0, 1, (CAROUSEL_ACTIONS,), np.int8),
        })
        act_space = _spaces.Discrete(CAROUSEL_ACTIONS)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._seeds = np.random.default_rng()
        self.state: CarouselAgentState | None = None

    def observation_space(self, agent: str) -> Any:  # a gymnasium Dict space
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:  # a gymnasium Discrete space
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            game_seed = seed
        else:
            game_seed = int(self._seeds.integers(2**63))
        self.state = CarouselAgentState.new(self.rules, seed=game_seed, round_only=self.round_only)
        self.agents = self.possible_agents[:]
        self.rewards: dict[str, float] = {a: 0 for a in self.agents}
        self._cumulative_rewards: dict[str, float] = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def _seat(self, agent: str) -> int:
        try:
            return self.possible_agents.index(agent)
        except ValueError:
            raise ValueError(f"{agent!r} is not an agent: {', '.join(self.possible_agents)}") from None

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        s = self._need_reset()
        p = self._seat(agent)
        mask = (s.legal_actions_mask() if s.current_player() == p
                else np.zeros(CAROUSEL_ACTIONS, np.int8))
        return {"observation": s.observation(p), "action_mask": mask}

    def step(self, action: int) -> None:
        s = self._need_reset()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        s.apply_action(action)  # a one-line IllegalMove / TypeError if bad; nothing changes
        self._cumulative_rewards[agent] = 0
        if s.is_terminal():
            g = s.game
            for a, r in zip(self.possible_agents, s.returns(), strict=True):
                self.rewards[a] = r
                self.terminations[a] = True
                self.infos[a] = {"rounds": len(g.rounds)}
        else:
            for a in self.agents:
                self.rewards[a] = 0
            self.agent_selection = self.possible_agents[s.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _need_reset(self) -> CarouselAgentState:
        if self.state is None:
            raise ValueError("call reset() before observe() or step()")
        return self.state

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        s = self._need_reset()
        text = s.observation_string(s.game.current)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
