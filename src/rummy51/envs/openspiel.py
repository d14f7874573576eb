"""OpenSpiel door: importing this module registers the Python game ``python_rummy51``.

>>> import pyspiel
>>> import rummy51.envs.openspiel
>>> game = pyspiel.load_game("python_rummy51", {"players": 2})
>>> state = game.new_initial_state()
>>> state.is_chance_node()          # the deal: one chance outcome per card
True

It follows OpenSpiel's ``kuhn_poker.py``: ``Rummy51Game`` (``pyspiel.Game``),
``Rummy51State`` (``pyspiel.State``) over ``rummy51.r51.agent.AgentState`` in chance
mode (the deal card by card, each stock draw a chance outcome weighted by the copies
left in the stock), and an observer giving the observation tensor and strings. The game
parameters are ``players``, ``first`` and every ``RuleSet`` field but the match ones
(``match_deals``, ``match_points``: a game is one deal). Returns are minus the deal's
points (docs/rules.md 6), so higher is better; the game is general-sum.

``state.resample_from_infostate(player, sampler)`` deals the hidden cards again
(``rummy51.r51.chance``), which OpenSpiel's IS-MCTS bot uses; ``resampler(seed)`` makes
its worlds come from a seeded generator, so that a search replays. ``EngineBot`` plays one
of rummy51's own bots (``GreedyBot``...) through the integer actions and
``PointsEvaluator`` is a quick leaf evaluator for MCTS; docs/agents.md has a game of
IS-MCTS against greedy bots.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ._optional import need

# imported at run time (an optional extra), so untyped here: Any
pyspiel: Any = need("pyspiel", "openspiel")
_mcts: Any = need("open_spiel.python.algorithms.mcts", "openspiel")

from ..common.seeds import seed_from  # noqa: E402
from ..r51.agent import AgentState, max_game_length, utility_bounds  # noqa: E402
from ..r51.bots import Bot  # noqa: E402
from ..r51.codec import codec_for  # noqa: E402
from ..r51.infostate import infostate_layout_for  # noqa: E402
from ..r51.melds import card_value  # noqa: E402
from ..r51.observation import layout_for  # noqa: E402
from ..rules import RuleSet  # noqa: E402
from ..solver import best_opening  # noqa: E402

if TYPE_CHECKING:
    from ..common.seeds import RngLike
    from ..runs.seeding import SeedLike

__all__ = ["Rummy51Game", "Rummy51State", "Rummy51Observer", "EngineBot", "PointsEvaluator",
           "resampler", "GAME_NAME", "PARAMETERS", "rules_of"]

GAME_NAME = "python_rummy51"
#: Most players the game type declares (a deal checks that the deck can deal them).
MAX_PLAYERS = 10
_SKIP = ("match_deals", "match_points", "match_elimination")  # a game is one deal
_RULE_FIELDS = tuple(f.name for f in dataclasses.fields(RuleSet) if f.name not in _SKIP)
_DEFAULT = RuleSet()
#: The game parameters and their defaults: players, first, and the RuleSet fields.
PARAMETERS = {"players": 4, "first": 0, **{f: getattr(_DEFAULT, f) for f in _RULE_FIELDS}}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Rummy 51 (two decks, jokers)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


def rules_of(params: Mapping[str, Any]) -> RuleSet:
    """The RuleSet of a parameter dict (unknown names refused in one line)."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"unknown {GAME_NAME} parameter(s): {', '.join(unknown)} (the "
                         f"parameters are players, first and the RuleSet fields)")
    return RuleSet(**{k: params[k] for k in _RULE_FIELDS if k in params})


class Rummy51Game(pyspiel.Game):  # pyspiel is untyped here (Any, above): our side is annotated
    """Rummy 51 as an OpenSpiel game (see the module docstring)."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        full = dict(PARAMETERS)
        full.update(params or {})
        self.rules = rules_of(full)
        self.players = int(full["players"])
        self.first = int(full["first"])
        if not 2 <= self.players <= MAX_PLAYERS:
            raise ValueError(f"players must be 2..{MAX_PLAYERS}, got {self.players}")
        self.codec = codec_for(self.rules)
        # OpenSpiel makes a new initial state for every clone and tensor-size query: copy one
        self._initial = AgentState.new(self.rules, self.players, first=self.first, chance=True)
        lo, hi = utility_bounds(self.rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.size,
            max_chance_outcomes=53,
            num_players=self.players,
            min_utility=lo,
            max_utility=hi,
            utility_sum=None,
            max_game_length=max_game_length(self.rules, self.players),
        )
        super().__init__(_GAME_TYPE, info, full)

    def new_initial_state(self) -> Rummy51State:
        return Rummy51State(self)

    def make_py_observer(self, iig_obs_type: Any = None,  # a pyspiel.IIGObservationType
                         params: Mapping[str, Any] | None = None) -> Rummy51Observer:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        return Rummy51Observer(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self)


class Rummy51State(pyspiel.State):  # pyspiel is untyped here (Any, above): our side is annotated
    """A deal in OpenSpiel's terms; ``agent`` is the ``AgentState`` underneath."""

    def __init__(self, game: Rummy51Game) -> None:
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
        a = self.agent
        if player == pyspiel.PlayerId.CHANCE:
            return f"{'deal' if a.game is None else 'stock'} {int(action)}"
        try:
            if a.current_player() == player and action in a.legal_actions():
                return a.action_text(action)
        except ValueError:
            pass
        return a.codec.describe(action)

    def is_terminal(self) -> bool:
        return self.agent.is_terminal()

    def returns(self) -> list[float]:
        return self.agent.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: RngLike) -> Rummy51State:
        """A state ``player_id`` cannot tell from this one, the hidden cards dealt again
        (``probability_sampler``: OpenSpiel's sampler, a seed, or a numpy Generator)."""
        new = self.clone()
        new.agent = self.agent.resample_from_infostate(int(player_id),
                                                       seed_from(probability_sampler))
        return new

    def __str__(self) -> str:
        return str(self.agent)


def resampler(seed: SeedLike = None) -> Callable[[Rummy51State, int], Rummy51State]:
    """A resampler for ``ISMCTSBot.set_resampler``: the worlds come from a numpy Generator
    seeded with ``seed``, so a search replays. (OpenSpiel's IS-MCTS otherwise passes a
    fresh ``UniformProbabilitySampler``, which the OS seeds: its searches differ from run
    to run.)"""
    rng = np.random.default_rng(seed)

    def resample(state: Rummy51State, player: int) -> Rummy51State:
        return state.resample_from_infostate(player, rng)

    return resample


class Rummy51Observer:
    """OpenSpiel observer: the observation tensor and string, or (with ``perfect_recall``)
    the information-state tensor and string; ``rummy51.r51.observation`` and
    ``rummy51.r51.infostate`` define them."""

    def __init__(self, iig_obs_type: Any, game: Rummy51Game) -> None:  # a pyspiel.IIGObservationType
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER \
                or not iig_obs_type.public_info:
            raise ValueError("python_rummy51 observes a single player's private and public "
                             "information only")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.dict: dict[str, np.ndarray]
        layout: Any = (infostate_layout_for if self.perfect_recall else layout_for)(
            game.rules, game.players)
        self._layout = layout
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = {}
        for name, size in layout.pieces:
            o = layout.offsets[name]
            self.dict[name] = self.tensor[o:o + size]

    def set_from(self, state: Rummy51State, player: int) -> None:
        if self.perfect_recall:
            state.agent.information_state_tensor(player, out=self.tensor)
        else:
            state.agent.observation(player, out=self.tensor)

    def string_from(self, state: Rummy51State, player: int) -> str:
        if self.perfect_recall:
            return state.agent.information_state_string(player)
        return state.agent.observation_string(player)


class EngineBot(pyspiel.Bot):  # pyspiel is untyped here (Any, above): our side is annotated
    """One of rummy51's bots (``GreedyBot()``, ``TacticianBot()``...) as an OpenSpiel bot:
    it asks the bot for a move on its view and plays that move's integer actions (an
    opening is its melds staged, then open), one per ``step``."""

    def __init__(self, bot: Bot, player_id: int) -> None:
        pyspiel.Bot.__init__(self)
        self.bot = bot
        self.player_id = int(player_id)
        self._queue: list[int] = []

    def restart_at(self, state: Rummy51State) -> None:
        self._queue = []

    def step(self, state: Rummy51State | AgentState) -> int:
        a = state.agent if isinstance(state, Rummy51State) else state
        legal = a.legal_actions()
        if self._queue and self._queue[0] in legal:
            return self._queue.pop(0)
        move = self.bot.choose(a.view(a.current_player()))
        ids = a.encode_sequence(move)
        self._queue = ids[1:]
        return ids[0]


class PointsEvaluator(_mcts.Evaluator):  # open_spiel is untyped here (Any, above)
    """A quick leaf value for MCTS and IS-MCTS, without rollouts (a random Rummy 51 deal
    runs for hundreds of moves): minus the points each player would pay if another went
    out now (docs/rules.md 6): an opened player the cards left in hand, one who has not
    opened ``score_unopened``, less half the value of the best opening its hand holds (up
    to the threshold), so that getting close to opening counts. At the end, the returns.
    A simple heuristic, not tuned: docs/agents.md gives its results against greedy bots."""

    def evaluate(self, state: Rummy51State | AgentState) -> np.ndarray:
        a = state.agent if isinstance(state, Rummy51State) else state
        if a.is_terminal():
            return np.array(a.returns())
        g = a.game
        if g is None:
            return np.zeros(a.n_players)
        r = a.rules
        out = []
        for q in range(a.n_players):
            hand = g.hands[q]
            if g.opened[q]:
                out.append(-float(sum(card_value(c, r) for c in hand)))
            else:
                v = best_opening(hand, r, keep=1).value
                out.append(-float(r.score_unopened) + 0.5 * min(v, r.threshold))
        return np.array(out)

    def prior(self, state: Rummy51State) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]


pyspiel.register_game(_GAME_TYPE, Rummy51Game)

from . import openspiel_carousel  # noqa: E402,F401  (registers python_carousel)
