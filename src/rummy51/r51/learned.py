"""Rummy 51's learned evaluator: its features, the learned bot, its training recipe.

The features (``FEATURE_NAMES``, computed by the C kernel, ``_game_learned.pxi``) of a
position as one player sees it: its hand (copies of each card), the cards seen
elsewhere (discard pile, table, bottom card, cards other hands are known to hold), the
cards that fit the table, the discard pile's top, the next player's known cards, and
counts (players, whose turn, phase, turn, stock, the hand's points, its best opening
value, deadwood, whether it can go out or open, this turn's facts, each other seat's
hand size, opening and known cards). Nothing of another hand but its size and what the
public history shows; never the stock's order.

``LearnedBot`` (``"learned"``) is the model's greedy policy: at each decision it values
each candidate move's resulting position with the model and plays the best (no
search). The training recipe (``rummy51 train r51``) records self-play deals of kernel
tacticians, with a little exploration.

>>> from rummy51 import RuleSet
>>> from rummy51.r51.bots import GreedyBot, play_deal
>>> play_deal([LearnedBot(), GreedyBot()], RuleSet(), seed=3).over
True
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _game, runs
from ..learned import (
    GameFeatures,
    Model,
    Trainer,
    load_model,
    register_game,
    register_trainer,
    self_play_data,
)
from ..rules import RuleSet
from . import fastgame
from .actions import Action
from .engine import GameState, PlayerView
from .search import view_position

__all__ = ["FEATURE_NAMES", "FEATURE_VERSION", "LearnedBot", "features"]

FEATURE_VERSION, _NF = _game.r51_feature_count()
_CARDS = [f"{r}{s}" for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                                 "J", "Q", "K")] + ["JK"]
_SCALARS = (
    "players", "seat_on_turn", "play_phase", "stock_draw_pending", "turn", "round",
    "free_round", "stock", "discard_pile", "table_melds", "bottom_card", "hand_size", "opened",
    "hand_points", "hand_jokers", "best_opening", "deadwood", "can_go_out", "can_open",
    "round_opened", "drew_stock", "drew_discard", "drew_bottom", "must_open", "freed_joker",
    "bottom_turn", "touched_others",
    *(f"seat{j}_{w}" for j in (1, 2, 3)
      for w in ("hand_size", "opened", "known", "known_jokers", "round_opened")),
    "least_other_hand", "others_opened", "joker_swaps", "table_jokers", "unseen", "lay_offs")
FEATURE_NAMES: tuple[str, ...] = (
    *(f"hand_{c}" for c in _CARDS), *(f"seen_{c}" for c in _CARDS),
    *(f"fits_{c}" for c in _CARDS), *(f"top_{c}" for c in _CARDS),
    *(f"next_known_{c}" for c in _CARDS), *_SCALARS)
assert len(FEATURE_NAMES) == _NF, (len(FEATURE_NAMES), _NF)


def features(obj: GameState | PlayerView, player: int | None = None) -> npt.NDArray[np.float32]:
    """The features of a state or a view as ``player`` sees them (a view: its own player;
    a state: ``player``, by default the player on turn). The same C code as the kernel's
    bots; a state gives the same features as its player's view."""
    if isinstance(obj, PlayerView):
        if player is not None and int(player) != obj.player:
            raise ValueError(f"a view of seat {obj.player} gives that seat's features, not "
                             f"seat {player}'s")
        if obj.phase.name == "OVER":
            raise ValueError("the deal is over: there is no position to value")
        pos, _, hidden = view_position(obj)
        return _game.position_features(pos, obj.player, 0, hidden, obj.stock_count)
    if isinstance(obj, GameState):
        p = obj.current if player is None else int(player)
        if not 0 <= p < obj.n_players:
            raise ValueError(f"player must be a seat 0..{obj.n_players - 1}, got {player}")
        return _game.position_features(fastgame.position(obj), p)
    raise TypeError(f"a Rummy 51 GameState or PlayerView, got {type(obj).__name__}")


register_game(GameFeatures("r51", FEATURE_VERSION, FEATURE_NAMES, features))

_LOG = 512


class LearnedBot:
    """The learned model's greedy policy (``"learned"``): no search, no rollout.

    * **Draw**: the tactician's (valuing the stock's afterstate against the discard
      pile's top with the model played worse: bench/README.md).
    * **Play**: the candidate moves are the search bot's (the tactician's move first,
      the openings, waiting, lay-downs, lay-offs, joker swaps, the 3 best discards by
      the greedy bot's key); each candidate's resulting position is valued by the model
      for the bot (the margin it expects at the deal's end) and the best is played, the
      tactician's move on a tie; a move that goes out is always played.

    It sees only its view; the kernel's ``"learned"`` seat runs the same code on the
    same view (the same moves).

    ``model``: ``"r51"`` (the shipped model), a path or a ``Model``; it is loaded and
    checked when the bot is made (a missing or damaged file raises ``ModelError``)."""

    kernel_code = 6

    def __init__(self, seed: Any = None, model: Any = "r51") -> None:
        self.model: Model = load_model(model, game="r51")
        self.rng = np.random.default_rng(seed)   # unused: the policy is deterministic
        self.decisions = 0

    def __repr__(self) -> str:
        return f"LearnedBot(model={self.model.path or self.model.game!r})"

    def params(self) -> tuple:
        return (self.model,)

    @classmethod
    def default_params(cls) -> tuple:
        return (load_model("r51", game="r51"),)

    def choose(self, view: PlayerView) -> Action:
        pos, pool, hidden = view_position(view)
        log = np.empty(_LOG, np.int32)
        n, _, _ = _game.position_learned(pos, pool, hidden, self.model, log)
        self.decisions += 1
        moves = fastgame._decode(log, n)
        if len(moves) != 1:  # pragma: no cover - a kernel bug
            raise AssertionError(f"the learned bot chose {len(moves)} moves")
        return moves[0]


fastgame.register_search_bot(LearnedBot, 6)


# --------------------------------------------------------------------------- training
_DATA_DEFAULTS = {"players": 2, "bots": "tactician", "rate": 0.1, "explore": 0.05, "rollouts": 0}


def _data_bot(b: str) -> str:
    """A self-play seat's name, a bot of the C game kernel."""
    if fastgame.BOT_CODES.get(b) not in (1, 2, 3, 4, 5, 6):
        raise ValueError(f"bots must be kernel bots (greedy, hand-hunter, tactician, search, "
                         f"search-plain, search-learned, learned), not {b!r}")
    return b


def check_data(d: Mapping) -> dict:
    """The data settings of a training run: ``players`` (2..8), ``bots`` (kernel bots of
    the self-play seats: one name, or one per seat), ``rate`` (the chance that a seat's
    view of a decision point is recorded) and ``explore`` (the chance of a random draw
    source or discard instead of the bot's move)."""
    return self_play_data("r51", d, _DATA_DEFAULTS, 8, _data_bot)


def play_chunk(spec: Mapping) -> dict:
    """One chunk of self-play deals (default rules): deal ``j`` shuffled with
    ``SeedSequence(seed, spawn_key=(chunk, j, 0))``, seat ``s``'s generator child
    ``(chunk, j, 1 + s)``, the recorder's seed drawn from ``(chunk, j, 99)``."""
    d = spec["data"]
    players = int(d["players"])
    names = d["bots"].split(",")
    codes = [fastgame.BOT_CODES[b] for b in names]
    rules = RuleSet()
    kernel = fastgame.greedy_kernel(rules)
    params = fastgame.kernel_params(codes)
    base = tuple(runs.chunk_seed(spec["entropy"], (), spec["spawn_key"][0]).spawn_key)
    SS, rng = np.random.SeedSequence, np.random.default_rng
    cap = 4096
    X = np.empty((cap, _NF), np.float32)
    who = np.empty(cap, np.int32)
    ro = int(d.get("rollouts", 0))
    ysum = np.zeros(cap, np.int64)
    rows_X: list[np.ndarray] = []
    rows: dict[str, list[np.ndarray]] = {"deal": [], "y_num": [], "y_den": [], "y_win": []}
    for j in range(spec["n"]):
        deal = spec["deal0"] + j
        ent = spec["entropy"]
        seed = int(SS(ent, spawn_key=base + (j, 99)).generate_state(2, np.uint64)[0])
        bot_rngs = fastgame.seat_rngs(codes, ent, base + (j,))
        n, winner, scores = _game.record_deal(
            kernel, rng(SS(ent, spawn_key=base + (j, 0))), players, deal % players, codes,
            bot_rngs, params, X, who, seed, float(d["rate"]), float(d["explore"]), ro, ysum)
        if n > cap:  # pragma: no cover - a very long deal: more rows than the buffer
            n = cap
        sc = np.asarray(scores, np.int64)
        q = who[:n].astype(np.int64)
        rows_X.append(X[:n].astype(np.int16))
        rows["deal"].append(np.full(n, deal, np.int64))
        if ro:       # the mean over the rollouts from the row's position
            rows["y_num"].append(ysum[:n].copy())
            rows["y_den"].append(np.full(n, ro * (players - 1), np.int64))
        else:        # the deal's own end
            rows["y_num"].append(sc.sum() - sc[q] - (players - 1) * sc[q])
            rows["y_den"].append(np.full(n, players - 1, np.int64))
        rows["y_win"].append((q == winner).astype(np.int64))
    out: dict[str, Any] = {k: np.concatenate(v) if v else np.zeros(0, np.int64)
                           for k, v in rows.items()}
    out["X"] = np.concatenate(rows_X) if rows_X else np.zeros((0, _NF), np.int16)
    return out


def _features() -> GameFeatures:
    return GameFeatures("r51", FEATURE_VERSION, FEATURE_NAMES, features)


register_trainer(Trainer(
    game="r51", features=_features, play_chunk=play_chunk, check_data=check_data,
    defaults={"games": 20000, "chunk_size": 500, "epochs": 12, "hidden": 64, "batch": 256,
              "lr": 1e-3},
    describe="Rummy 51 (default rules): self-play deals of kernel tacticians",
    options={"players": "r51: players at the self-play table (default 2)",
             "bots": "r51: the self-play seats' kernel bots (default tactician)",
             "rate": "r51: chance that a seat's view of a decision point is recorded (0.1)",
             "explore": "r51: chance of a random draw or discard instead of the bot's (0.05)",
             "rollouts": "r51: the margin target: the mean of this many determinized tactician "
                         "rollouts from the position (0: the deal's own end)"}))
