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

Both are one generic adapter, ``TableEnv``: a game supplies its specifics (a new state
of a seed, the sizes of its spaces, what its end tells each agent). A step after the
end (every agent done) or with an id that is not a legal action is refused in one line
and changes nothing.
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

__all__ = ["TableEnv", "env", "raw_env", "Rummy51Env", "carousel_env", "CarouselEnv"]


# --------------------------------------------------------------------------- the adapter
class TableEnv(_pz.AECEnv):  # pettingzoo is untyped here (Any, above): our side is annotated
    """A game at a table as a PettingZoo AEC environment: agents ``player_0 ..``, the
    game's integer actions, a dict observation (the tensor and the action mask), rewards
    at the end. A subclass supplies ``_new_state(seed, options)``, ``_ending(state)``
    and, in ``__init__``, the players, the tensor's size and the number of actions
    (``_spaces``); ``GAME`` names what one episode is ("deal", "game")."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "is_parallelizable": False}
    GAME = "game"

    state: Any

    def _spaces(self, players: int, observation_size: int, actions: int,
                render_mode: str | None) -> None:
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        self.render_mode = render_mode
        self.players = int(players)
        self.num_actions = int(actions)
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self.agents = self.possible_agents[:]
        obs_space = _spaces.Dict({
            "observation": _spaces.Box(0.0, 1.0, (int(observation_size),), np.float32),
            "action_mask": _spaces.Box(0, 1, (self.num_actions,), np.int8),
        })
        act_space = _spaces.Discrete(self.num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._seeds = np.random.default_rng()
        self.state = None

    # ------------------------------------------------------------------ the game's part
    def _new_state(self, seed: int, options: dict[str, Any] | None) -> Any:
        """A new episode's agent state dealt from ``seed``."""
        raise NotImplementedError

    def _ending(self, state: Any) -> tuple[bool, dict[str, Any]]:
        """At the end: whether the episode was cut short (a truncation, not a
        termination) and the info every agent gets."""
        raise NotImplementedError

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> Any:  # a gymnasium Dict space
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:  # a gymnasium Discrete space
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the AEC loop
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            game_seed = seed
        else:
            game_seed = int(self._seeds.integers(2**63))
        self.state = self._new_state(game_seed, options)
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
            mask = np.zeros(self.num_actions, np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        s = self._need_reset()
        if not self.agents:
            raise ValueError(f"the {self.GAME} is over and every agent is done: call reset() "
                             f"for another (got action {action!r:.40})")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        s.apply_action(action)  # a one-line error if bad; nothing changes
        self._cumulative_rewards[agent] = 0
        if s.is_terminal():
            cut, info = self._ending(s)
            for a, r in zip(self.possible_agents, s.returns(), strict=True):
                self.rewards[a] = r
                self.terminations[a] = not cut
                self.truncations[a] = cut
                self.infos[a] = dict(info)
        else:
            for a in self.agents:
                self.rewards[a] = 0
            self.agent_selection = self.possible_agents[s.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _need_reset(self) -> Any:
        if self.state is None:
            raise ValueError("call reset() before observe() or step()")
        return self.state

    # ------------------------------------------------------------------ display
    def _render_player(self, state: Any) -> int:
        p = state.current_player()
        return p if p >= 0 else 0

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        s = self._need_reset()
        text = s.observation_string(self._render_player(s))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


# --------------------------------------------------------------------------- Rummy 51
def env(**kwargs: Any) -> Rummy51Env:
    """A Rummy 51 AEC environment (see the module docstring)."""
    return Rummy51Env(**kwargs)


class Rummy51Env(TableEnv):
    """One deal of Rummy 51 as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {**TableEnv.metadata, "name": "rummy51_v0"}
    GAME = "deal"

    def __init__(self, players: int = 4, first: int = 0, render_mode: str | None = None,
                 **rules: Any) -> None:
        super().__init__()
        self.rules = RuleSet(**rules)
        AgentState.new(self.rules, players, seed=0, first=first)  # checks players and first
        self.first = int(first)
        self.codec = codec_for(self.rules)
        self._layout = layout_for(self.rules, int(players))
        self._spaces(players, self._layout.size, self.codec.size, render_mode)

    def _new_state(self, seed: int, options: dict[str, Any] | None) -> AgentState:
        first = self.first
        if options and "first" in options:
            first = options["first"]
        return AgentState.new(self.rules, self.players, seed=seed, first=first)

    def _ending(self, state: AgentState) -> tuple[bool, dict[str, Any]]:
        g = state.game
        assert g is not None and g.result is not None  # the deal is over
        return g.result.how == "capped", {"result": {"winner": g.result.winner,
                                                      "how": g.result.how}}


raw_env = Rummy51Env


# --------------------------------------------------------------------------- Carousel
def carousel_env(**kwargs: Any) -> CarouselEnv:
    """A Carousel AEC environment (see the module docstring)."""
    return CarouselEnv(**kwargs)


class CarouselEnv(TableEnv):
    """A game (or a round) of Carousel as a PettingZoo AEC environment."""

    metadata = {**TableEnv.metadata, "name": "carousel_v0"}

    def __init__(self, players: int | None = None, round_only: bool = False,
                 render_mode: str | None = None, rules: CarouselRules | None = None,
                 **fields: Any) -> None:
        super().__init__()
        if rules is None:
            base = CarouselRules.for_players(4 if players is None else players)
            rules = CarouselRules(**{**base.__dict__, **fields}) if fields else base
        elif fields:
            rules = CarouselRules(**{**rules.__dict__, **fields})
        if players is not None and players != rules.players:
            rules = CarouselRules(**{**rules.__dict__, "players": players})
        self.rules = rules
        self.round_only = bool(round_only)
        self.GAME = "round" if self.round_only else "game"
        self._spaces(rules.players, carousel_layout_for(rules).size, CAROUSEL_ACTIONS,
                     render_mode)

    def _new_state(self, seed: int, options: dict[str, Any] | None) -> CarouselAgentState:
        return CarouselAgentState.new(self.rules, seed=seed, round_only=self.round_only)

    def _ending(self, state: CarouselAgentState) -> tuple[bool, dict[str, Any]]:
        return False, {"rounds": len(state.game.rounds)}

    def _render_player(self, state: CarouselAgentState) -> int:
        return state.game.current
