"""OpenSpiel's ``python_carousel`` (registered by importing ``rummy51.envs.openspiel``).

>>> import pyspiel
>>> import rummy51.envs.openspiel
>>> game = pyspiel.load_game("python_carousel", {"players": 3, "returns": "round"})
>>> game.num_distinct_actions(), game.new_initial_state().is_chance_node()
(57, True)

The game is ``rummy51.carousel.chance.CarouselChanceState`` in OpenSpiel's terms: chance
nodes for every card dealt and every stock draw, the Carousel codec's 57 actions (a
meld play is "add card" actions then "commit"), observation and information-state
tensors and strings, ``resample_from_infostate``. Parameters: ``players`` (4), ``dealer``
(the first dealer, 0), ``returns`` (``"game"``: the final scores of a whole game;
``"round"``: one round, its scores), ``max_rounds`` (50: a game still running then ends,
its returns the totals) and every ``CarouselRules`` field but ``players`` (``decks`` and
``jokers`` default to -1, meaning those of ``CarouselRules.for_players(players)``: one
deck and one joker for two players, two and two otherwise).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ._optional import need

pyspiel: Any = need("pyspiel", "openspiel")

from ..carousel.agent import carousel_layout_for  # noqa: E402
from ..carousel.chance import (  # noqa: E402
    CarouselChanceState,
    carousel_info_layout_for,
    max_game_length,
)
from ..carousel.codec import NUM_ACTIONS  # noqa: E402
from ..carousel.rules import CarouselRules  # noqa: E402
from ..common.seeds import seed_from  # noqa: E402

if TYPE_CHECKING:
    from ..common.seeds import RngLike

__all__ = ["CarouselGame", "CarouselState", "CarouselObserver", "GAME_NAME", "PARAMETERS"]

GAME_NAME = "python_carousel"
_RULE_FIELDS = tuple(f.name for f in dataclasses.fields(CarouselRules) if f.name != "players")
_DEFAULT = CarouselRules()
#: ``decks`` and ``jokers`` default to -1: those of ``CarouselRules.for_players(players)``
#: (OpenSpiel passes every parameter, so a default cannot depend on another parameter).
PARAMETERS = {"players": 4, "dealer": 0, "returns": "game", "max_rounds": 50,
              **{f: getattr(_DEFAULT, f) for f in _RULE_FIELDS
                 if getattr(_DEFAULT, f) is not None},
              "decks": -1, "jokers": -1}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Carousel (manipulation rummy)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


def _rules(params: Mapping[str, Any]) -> CarouselRules:
    unknown = sorted(set(params) - set(PARAMETERS) - {"max_jokers_per_meld"})
    if unknown:
        raise ValueError(f"unknown {GAME_NAME} parameter(s): {', '.join(unknown)} (the parameters "
                         "are players, dealer, returns, max_rounds and the CarouselRules fields)")
    base = CarouselRules.for_players(int(params.get("players", 4)))
    given = {k: params[k] for k in _RULE_FIELDS if k in params
             and not (k in ("decks", "jokers") and params[k] == -1)}
    return dataclasses.replace(base, **given) if given else base


class CarouselGame(pyspiel.Game):  # pyspiel is untyped here (Any, above): our side is annotated
    """Carousel as an OpenSpiel game (see the module docstring)."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.rules = _rules(params)
        full = dict(PARAMETERS)
        full.update(params)
        self.returns_mode = full["returns"]
        if self.returns_mode not in ("game", "round"):
            raise ValueError(f"returns must be 'game' or 'round', got {self.returns_mode!r}")
        self.dealer = int(full["dealer"])
        self.max_rounds = int(full["max_rounds"])
        r = self.rules
        self._initial = CarouselChanceState.new_chance(
            r, dealer=self.dealer, round_only=self.returns_mode == "round",
            max_rounds=self.max_rounds)
        rounds = 1 if self.returns_mode == "round" else self.max_rounds
        deck_points = r.hand_points(r.deck())
        round_max = (r.players - 1) * deck_points + r.undercut_bonus + r.going_out_bonus
        hi = float(round_max if rounds == 1 else r.target_score + round_max + r.game_bonus
                   + r.round_won_bonus * rounds)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=53,
            num_players=r.players,
            min_utility=0.0,
            max_utility=hi,
            utility_sum=None,
            max_game_length=max_game_length(r, rounds),
        )
        super().__init__(_GAME_TYPE, info, full)

    def new_initial_state(self) -> CarouselState:
        return CarouselState(self)

    def make_py_observer(self, iig_obs_type: Any = None,  # a pyspiel.IIGObservationType
                         params: Mapping[str, Any] | None = None) -> CarouselObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        return CarouselObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self)


class CarouselState(pyspiel.State):  # pyspiel is untyped here (Any, above): our side is annotated
    """A Carousel game in OpenSpiel's terms; ``agent`` is the ``CarouselChanceState``."""

    def __init__(self, game: CarouselGame) -> None:
        super().__init__(game)
        self.agent = game._initial.copy()

    def current_player(self) -> int:
        return self.agent.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return list(self.agent.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.agent.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.agent.apply_action(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance {int(action)}"
        try:
            return self.agent.action_text(action)
        except ValueError:
            return f"action {int(action)}"

    def is_terminal(self) -> bool:
        return self.agent.is_terminal()

    def returns(self) -> list[float]:
        return self.agent.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: RngLike) -> CarouselState:
        new = self.clone()
        new.agent = self.agent.resample_from_infostate(int(player_id),
                                                       seed_from(probability_sampler))
        return new

    def __str__(self) -> str:
        a = self.agent
        if a.is_chance_node() and a._dealing is not None:
            return f"round {a.game.round}: dealing, {len(a._dealing)} cards dealt"
        return a.observation_string(a.game.current)


class CarouselObserver:
    """The observation tensor and string, or (``perfect_recall``) the information-state
    tensor and string (``rummy51.carousel.agent`` and ``rummy51.carousel.chance``)."""

    def __init__(self, iig_obs_type: Any, game: CarouselGame) -> None:  # a pyspiel.IIGObservationType
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER \
                or not iig_obs_type.public_info:
            raise ValueError("python_carousel observes a single player's private and public "
                             "information only")
        self.perfect_recall = iig_obs_type.perfect_recall
        layout: Any = (carousel_info_layout_for if self.perfect_recall
                       else carousel_layout_for)(game.rules)
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        for name, size in layout.pieces:
            o = layout.offsets[name]
            self.dict[name] = self.tensor[o:o + size]

    def set_from(self, state: CarouselState, player: int) -> None:
        a = state.agent
        self.tensor[:] = (a.information_state_tensor(player) if self.perfect_recall
                          else a.observation(player))

    def string_from(self, state: CarouselState, player: int) -> str:
        a = state.agent
        if self.perfect_recall:
            return a.information_state_string(player)
        return a.observation_string(player)


pyspiel.register_game(_GAME_TYPE, CarouselGame)
