"""OpenSpiel door: importing this module registers the Python games ``python_rummy51``
and ``python_carousel``.

>>> import pyspiel
>>> import rummy51.envs.openspiel
>>> game = pyspiel.load_game("python_rummy51", {"players": 2})
>>> state = game.new_initial_state()
>>> state.is_chance_node()          # the deal: one chance outcome per card
True

One generic adapter, following OpenSpiel's ``kuhn_poker.py``, serves both games:
``SpielGame`` (``pyspiel.Game``), ``SpielState`` (``pyspiel.State``) over the game's agent
state in chance mode (every card dealt and every stock draw a chance outcome weighted by
the copies left) and ``SpielObserver`` (the observation and information-state tensors
and strings). A game supplies its specifics in a subclass of ``SpielGame``: its name,
parameters with their defaults, the rules and initial state they make, its layouts
(``Rummy51Game`` here, ``CarouselGame``; a third game would add a third).
Every parameter of the game type is given to the game (OpenSpiel passes them all);
an unknown one is refused in one line, as is an action id that is not one.

Rummy 51 (``python_rummy51``): the parameters are ``players``, ``first`` and every
``RuleSet`` field but the match ones (``match_deals``, ``match_points``,
``match_elimination``: a game is one deal). Returns are minus the deal's points
(docs/rules.md 6), so higher is better; the game is general-sum.

Carousel (``python_carousel``, ``rummy51.carousel.chance.CarouselChanceState``): the
parameters are ``players`` (4), ``dealer`` (the first dealer, 0), ``returns``
(``"game"``: the final scores of a whole game; ``"round"``: one round, its scores),
``max_rounds`` (50: a game still running then ends, its returns the totals) and every
``CarouselRules`` field but ``players`` (``decks`` and ``jokers`` default to -1, meaning
those of ``CarouselRules.for_players(players)``; ``max_jokers_per_meld`` -1 means any
number, the rules' None).

``state.resample_from_infostate(player, sampler)`` deals the hidden cards again
(``rummy51.r51.chance``, ``rummy51.carousel.chance``), which OpenSpiel's IS-MCTS bot
uses; ``resampler(seed)`` makes its worlds come from a seeded generator, so that a search
replays. ``EngineBot`` plays one of rummy51's own Rummy 51 bots (``GreedyBot``...)
through the integer actions and ``PointsEvaluator`` is a quick leaf evaluator for MCTS;
docs/agents.md has a game of IS-MCTS against greedy bots.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ._optional import need

# imported at run time (an optional extra), so untyped here: Any
pyspiel: Any = need("pyspiel", "openspiel")
_mcts: Any = need("open_spiel.python.algorithms.mcts", "openspiel")

from ..carousel.agent import carousel_layout_for  # noqa: E402
from ..carousel.chance import (  # noqa: E402
    CarouselChanceState,
    carousel_info_layout_for,
)
from ..carousel.chance import max_game_length as carousel_max_game_length  # noqa: E402
from ..carousel.codec import NUM_ACTIONS as CAROUSEL_ACTIONS  # noqa: E402
from ..carousel.rules import CarouselRules  # noqa: E402
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

__all__ = ["SpielGame", "SpielState", "SpielObserver", "resampler",
           "Rummy51Game", "Rummy51State", "Rummy51Observer", "EngineBot", "PointsEvaluator",
           "GAME_NAME", "PARAMETERS", "rules_of",
           "CarouselGame", "CarouselState", "CarouselObserver", "CAROUSEL_GAME_NAME",
           "carousel_rules_of",
           "CAROUSEL_PARAMETERS"]


# --------------------------------------------------------------------------- the adapter
class SpielGame(pyspiel.Game):  # pyspiel is untyped here (Any, above): our side is annotated
    """A game as an OpenSpiel ``pyspiel.Game``. A subclass supplies the game's specifics:
    the class attributes below and ``_setup`` (the rules, the initial agent state and the
    ``GameInfo`` of a full parameter dict), ``_layout`` (its tensors) and ``_observe``;
    ``register()`` makes ``pyspiel.load_game(NAME)`` build it."""

    #: the registered short name, and the long one
    NAME: ClassVar[str]
    LONG_NAME: ClassVar[str]
    MIN_PLAYERS: ClassVar[int] = 2
    MAX_PLAYERS: ClassVar[int]
    #: every parameter with its default (OpenSpiel's parameter specification)
    PARAMETERS: ClassVar[Mapping[str, Any]]
    #: what the unknown-parameter error says the parameters are
    PARAMETER_WORDS: ClassVar[str]
    #: the state class ``new_initial_state`` makes
    STATE: ClassVar[type[SpielState]]
    _TYPE: ClassVar[Any] = None

    rules: Any
    _initial: Any

    @classmethod
    def game_type(cls) -> Any:  # a pyspiel.GameType
        """The game's ``pyspiel.GameType`` (sequential, explicit-stochastic,
        imperfect-information, general-sum, terminal rewards, every tensor and string)."""
        if cls.__dict__.get("_TYPE") is None:
            cls._TYPE = pyspiel.GameType(
                short_name=cls.NAME,
                long_name=cls.LONG_NAME,
                dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
                chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
                information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
                utility=pyspiel.GameType.Utility.GENERAL_SUM,
                reward_model=pyspiel.GameType.RewardModel.TERMINAL,
                max_num_players=cls.MAX_PLAYERS,
                min_num_players=cls.MIN_PLAYERS,
                provides_information_state_string=True,
                provides_information_state_tensor=True,
                provides_observation_string=True,
                provides_observation_tensor=True,
                parameter_specification=dict(cls.PARAMETERS),
            )
        return cls._TYPE

    @classmethod
    def register(cls) -> None:
        """Register the game with OpenSpiel (``pyspiel.load_game(cls.NAME, params)``)."""
        pyspiel.register_game(cls.game_type(), cls)

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        given = dict(params or {})
        unknown = sorted(set(given) - set(self.PARAMETERS))
        if unknown:
            raise ValueError(f"unknown {self.NAME} parameter(s): {', '.join(unknown)} (the "
                             f"parameters are {self.PARAMETER_WORDS})")
        full = {**self.PARAMETERS, **given}
        info = self._setup(full)
        super().__init__(self.game_type(), pyspiel.GameInfo(max_chance_outcomes=53, **info),
                         full)

    # ------------------------------------------------------------------ the game's part
    def _setup(self, params: dict[str, Any]) -> dict[str, Any]:
        """Set ``rules`` and ``_initial`` (the agent state every new state copies: OpenSpiel
        makes a new initial state for every clone and tensor-size query) from the full
        parameters; return the ``GameInfo`` fields but ``max_chance_outcomes``."""
        raise NotImplementedError

    def _layout(self, perfect_recall: bool) -> Any:
        """The layout (``size``, ``pieces``, ``offsets``) of the observation tensor, or
        with ``perfect_recall`` of the information-state tensor."""
        raise NotImplementedError

    def _observe(self, agent: Any, player: int, out: np.ndarray, perfect_recall: bool) -> None:
        """Fill ``out`` with ``player``'s observation (information state) tensor."""
        raise NotImplementedError

    # ------------------------------------------------------------------ OpenSpiel's
    def new_initial_state(self) -> SpielState:
        return self.STATE(self)

    def make_py_observer(self, iig_obs_type: Any = None,  # a pyspiel.IIGObservationType
                         params: Mapping[str, Any] | None = None) -> SpielObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        return SpielObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self)


class SpielState(pyspiel.State):  # pyspiel is untyped here (Any, above): our side is annotated
    """A game in OpenSpiel's terms; ``agent`` is the game's agent state underneath (a
    subclass writes its actions and the state as text)."""

    def __init__(self, game: SpielGame) -> None:
        super().__init__(game)
        self.agent = game._initial.copy()

    def current_player(self) -> int:
        return self.agent.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return list(self.agent.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.agent.chance_outcomes()

    def apply_action(self, action: int) -> None:
        # OpenSpiel refuses a negative id before the game sees it, in a multi-line
        # SpielError: the game's own one-line error instead
        if not isinstance(action, (bool, np.bool_)) and isinstance(action, (int, np.integer)) \
                and action < 0:
            self.agent.apply_action(action)
        super().apply_action(action)

    def _apply_action(self, action: int) -> None:
        self.agent.apply_action(action)  # a one-line error if bad; nothing changes

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return self._chance_text(int(action))
        return self._move_text(player, int(action))

    def _chance_text(self, action: int) -> str:
        return f"chance {action}"

    def _move_text(self, player: int, action: int) -> str:
        try:
            return self.agent.action_text(action)
        except ValueError:
            return f"action {action}"

    def is_terminal(self) -> bool:
        return self.agent.is_terminal()

    def returns(self) -> list[float]:
        return self.agent.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: RngLike) -> SpielState:
        """A state ``player_id`` cannot tell from this one, the hidden cards dealt again
        (``probability_sampler``: OpenSpiel's sampler, a seed, or a numpy Generator)."""
        new = self.clone()
        new.agent = self.agent.resample_from_infostate(int(player_id),
                                                       seed_from(probability_sampler))
        return new

    def __str__(self) -> str:
        return str(self.agent)


class SpielObserver:
    """OpenSpiel observer: the observation tensor and string, or (with ``perfect_recall``)
    the information-state tensor and string, as the game lays them out."""

    def __init__(self, iig_obs_type: Any, game: SpielGame) -> None:  # a pyspiel.IIGObservationType
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER \
                or not iig_obs_type.public_info:
            raise ValueError(f"{game.NAME} observes a single player's private and public "
                             "information only")
        self.perfect_recall = iig_obs_type.perfect_recall
        self._game = game
        layout = game._layout(self.perfect_recall)
        self._layout = layout
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        for name, size in layout.pieces:
            o = layout.offsets[name]
            self.dict[name] = self.tensor[o:o + size]

    def set_from(self, state: SpielState, player: int) -> None:
        self._game._observe(state.agent, player, self.tensor, self.perfect_recall)

    def string_from(self, state: SpielState, player: int) -> str:
        if self.perfect_recall:
            return state.agent.information_state_string(player)
        return state.agent.observation_string(player)


def resampler(seed: SeedLike = None) -> Callable[[SpielState, int], SpielState]:
    """A resampler for ``ISMCTSBot.set_resampler``: the worlds come from a numpy Generator
    seeded with ``seed``, so a search replays. (OpenSpiel's IS-MCTS otherwise passes a
    fresh ``UniformProbabilitySampler``, which the OS seeds: its searches differ from run
    to run.)"""
    rng = np.random.default_rng(seed)

    def resample(state: SpielState, player: int) -> SpielState:
        return state.resample_from_infostate(player, rng)

    return resample


# --------------------------------------------------------------------------- Rummy 51
GAME_NAME = "python_rummy51"
#: Most players the game type declares (a deal checks that the deck can deal them).
MAX_PLAYERS = 10
_SKIP = ("match_deals", "match_points", "match_elimination")  # a game is one deal
_RULE_FIELDS = tuple(f.name for f in dataclasses.fields(RuleSet) if f.name not in _SKIP)
_DEFAULT = RuleSet()
#: The game parameters and their defaults: players, first, and the RuleSet fields.
PARAMETERS = {"players": 4, "first": 0, **{f: getattr(_DEFAULT, f) for f in _RULE_FIELDS}}


def rules_of(params: Mapping[str, Any]) -> RuleSet:
    """The RuleSet of a parameter dict (unknown names refused in one line)."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"unknown {GAME_NAME} parameter(s): {', '.join(unknown)} (the "
                         f"parameters are players, first and the RuleSet fields)")
    return RuleSet(**{k: params[k] for k in _RULE_FIELDS if k in params})


class Rummy51State(SpielState):
    """A deal in OpenSpiel's terms; ``agent`` is the ``AgentState`` underneath."""

    def _chance_text(self, action: int) -> str:
        return f"{'deal' if self.agent.game is None else 'stock'} {action}"

    def _move_text(self, player: int, action: int) -> str:
        a = self.agent
        try:
            if a.current_player() == player and action in a.legal_actions():
                return a.action_text(action)
        except ValueError:
            pass
        return a.codec.describe(action)


class Rummy51Game(SpielGame):
    """Rummy 51 as an OpenSpiel game (see the module docstring)."""

    NAME = GAME_NAME
    LONG_NAME = "Python Rummy 51 (two decks, jokers)"
    MAX_PLAYERS = MAX_PLAYERS
    PARAMETERS = PARAMETERS
    PARAMETER_WORDS = "players, first and the RuleSet fields"
    STATE = Rummy51State

    def _setup(self, params: dict[str, Any]) -> dict[str, Any]:
        self.rules = rules_of(params)
        self.players = int(params["players"])
        self.first = int(params["first"])
        if not 2 <= self.players <= MAX_PLAYERS:
            raise ValueError(f"players must be 2..{MAX_PLAYERS}, got {self.players}")
        self.codec = codec_for(self.rules)
        self._initial = AgentState.new(self.rules, self.players, first=self.first, chance=True)
        lo, hi = utility_bounds(self.rules)
        return {"num_distinct_actions": self.codec.size, "num_players": self.players,
                "min_utility": lo, "max_utility": hi, "utility_sum": None,
                "max_game_length": max_game_length(self.rules, self.players)}

    def _layout(self, perfect_recall: bool) -> Any:
        return (infostate_layout_for if perfect_recall else layout_for)(self.rules,
                                                                        self.players)

    def _observe(self, agent: Any, player: int, out: np.ndarray, perfect_recall: bool) -> None:
        if perfect_recall:
            agent.information_state_tensor(player, out=out)
        else:
            agent.observation(player, out=out)


#: The observer of either game (the name Rummy 51's had)
Rummy51Observer = SpielObserver


class EngineBot(pyspiel.Bot):  # pyspiel is untyped here (Any, above): our side is annotated
    """One of rummy51's Rummy 51 bots (``GreedyBot()``, ``TacticianBot()``...) as an
    OpenSpiel bot: it asks the bot for a move on its view and plays that move's integer
    actions (an opening is its melds staged, then open), one per ``step``."""

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


# --------------------------------------------------------------------------- Carousel
CAROUSEL_GAME_NAME = "python_carousel"
_CAROUSEL_FIELDS = tuple(f.name for f in dataclasses.fields(CarouselRules) if f.name != "players")
_CAROUSEL_DEFAULT = CarouselRules()
#: ``decks`` and ``jokers`` default to -1: those of ``CarouselRules.for_players(players)``
#: (OpenSpiel passes every parameter, so a default cannot depend on another parameter);
#: ``max_jokers_per_meld`` -1 is the rules' None (any number of jokers in a meld).
_CAROUSEL_AUTO = {"decks": -1, "jokers": -1, "max_jokers_per_meld": -1}
CAROUSEL_PARAMETERS = {"players": 4, "dealer": 0, "returns": "game", "max_rounds": 50,
                       **{f: _CAROUSEL_AUTO.get(f, getattr(_CAROUSEL_DEFAULT, f))
                          for f in _CAROUSEL_FIELDS}}


def carousel_rules_of(params: Mapping[str, Any]) -> CarouselRules:
    """The CarouselRules of a parameter dict (-1 for ``decks``, ``jokers``: those of
    ``for_players(players)``; for ``max_jokers_per_meld``: None)."""
    base = CarouselRules.for_players(int(params.get("players", 4)))
    given = {k: params[k] for k in _CAROUSEL_FIELDS if k in params
             and not (k in ("decks", "jokers") and params[k] == -1)}
    if given.get("max_jokers_per_meld") == -1:
        given["max_jokers_per_meld"] = None
    return dataclasses.replace(base, **given) if given else base


class CarouselState(SpielState):
    """A Carousel game in OpenSpiel's terms; ``agent`` is the ``CarouselChanceState``."""

    def __str__(self) -> str:
        a = self.agent
        if a.is_chance_node() and a.dealing:
            return f"round {a.game.round}: dealing, {len(a.dealt)} cards dealt"
        return a.observation_string(a.game.current)


class CarouselGame(SpielGame):
    """Carousel as an OpenSpiel game (see the module docstring)."""

    NAME = CAROUSEL_GAME_NAME
    LONG_NAME = "Python Carousel (manipulation rummy)"
    MAX_PLAYERS = 6
    PARAMETERS = CAROUSEL_PARAMETERS
    PARAMETER_WORDS = "players, dealer, returns, max_rounds and the CarouselRules fields"
    STATE = CarouselState

    def _setup(self, params: dict[str, Any]) -> dict[str, Any]:
        self.rules = carousel_rules_of(params)
        self.returns_mode = params["returns"]
        if self.returns_mode not in ("game", "round"):
            raise ValueError(f"returns must be 'game' or 'round', got {self.returns_mode!r}")
        self.dealer = int(params["dealer"])
        self.max_rounds = int(params["max_rounds"])
        r = self.rules
        self._initial = CarouselChanceState.new_chance(
            r, dealer=self.dealer, round_only=self.returns_mode == "round",
            max_rounds=self.max_rounds)
        rounds = 1 if self.returns_mode == "round" else self.max_rounds
        deck_points = r.hand_points(r.deck())
        round_max = (r.players - 1) * deck_points + r.undercut_bonus + r.going_out_bonus
        hi = float(round_max if rounds == 1 else r.target_score + round_max + r.game_bonus
                   + r.round_won_bonus * rounds)
        return {"num_distinct_actions": CAROUSEL_ACTIONS, "num_players": r.players,
                "min_utility": 0.0, "max_utility": hi, "utility_sum": None,
                "max_game_length": carousel_max_game_length(r, rounds)}

    def _layout(self, perfect_recall: bool) -> Any:
        return (carousel_info_layout_for if perfect_recall else carousel_layout_for)(self.rules)

    def _observe(self, agent: Any, player: int, out: np.ndarray, perfect_recall: bool) -> None:
        out[:] = (agent.information_state_tensor(player) if perfect_recall
                  else agent.observation(player))


#: The observer of either game (the name Carousel's had)
CarouselObserver = SpielObserver

Rummy51Game.register()
CarouselGame.register()
