"""Carousel's learned evaluator: its features, its training recipe.

The features (``FEATURE_NAMES``, computed by the C kernel, ``_carousel_learned.pxi``) of
a position as one player sees it: its hand (copies of each card), the table (for each
card, the table's cards standing for it), every other hand's size in seat order after
the player, the stock's size, and counts made of those (players, the hand's points,
cards and jokers, the table's cards and jokers, the smallest and the total of the other
hands, whether the stock ran out, hand cards with a partner for a set or a run and the
points of those without, the highest card, the cards not seen and the jokers among
them, whether the hand may knock and by how much it is over the limit, pairs, draws),
and the **phase**: what comes next for the player (its turn ended without a knock; it
draws a second or a third card after no play; it knocked; its turn begins). Nothing of
another hand but its size; never the stock's order.

The model values a position for the player: its expected round margin (its round score
less the mean of the others') and its chance to win the round, under the play of the
self-play games it was trained on. ``LearnedBot`` (``carousel.bots``) plays the model's
greedy policy; ``SearchBot`` scores its rollouts' horizon with it.

>>> from rummy51.carousel import CarouselRules
>>> from rummy51.carousel.engine import GameState
>>> x = features(GameState.new(CarouselRules.for_players(2), seed=1))
>>> len(x) == len(FEATURE_NAMES), float(x[FEATURE_NAMES.index("hand_cards")])
(True, 10.0)
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _carousel, runs
from ..learned import GameFeatures, Trainer, register_game, register_trainer, self_play_data
from .actions import Phase
from .bots import (
    LearnedBot,
    core_rules,
    game_rules,
    hand_counts,
    kernel_bots,
    make_bot,
    parse_bot,
    table_counts,
)
from .engine import GameState, PlayerView
from .rules import CarouselRules

__all__ = ["FEATURE_NAMES", "FEATURE_VERSION", "PHASES", "features", "phase_of"]

FEATURE_VERSION: int = _carousel.LEARNED_VERSION
_NF: int = _carousel.LEARNED_FEATURES
_CARDS = [f"{r}{s}" for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                                 "J", "Q", "K")]
#: the phases of a valued position, by their codes (what comes next for the player)
PHASES = ("passed", "draw2", "draw3", "knocked", "draw1")
_SCALARS = (
    "players", "stock", "hand_cards", "hand_points", "hand_jokers", "table_cards",
    "table_jokers", *(f"seat{k}_hand" for k in range(1, 6)), "least_other_hand",
    "other_hands", *(f"phase_{p}" for p in PHASES), "stock_out", "set_partners",
    "run_partners", "isolated", "isolated_points", "highest_card", "high_cards", "unseen",
    "unseen_jokers", "may_knock", "knock_limit", "over_limit", "pairs", "draws", "can_meld",
    "best_points_left", "best_cards_left", "best_goes_out", "best_may_knock")
FEATURE_NAMES: tuple[str, ...] = (
    *(f"hand_{c}" for c in _CARDS), "hand_JK", *(f"table_{c}" for c in _CARDS), *_SCALARS)
assert len(FEATURE_NAMES) == _NF, (len(FEATURE_NAMES), _NF)


def phase_of(view: PlayerView) -> tuple[int, int]:
    """``(phase, draws)`` of a view as the features read it: the player on turn before
    its first draw ``draw1``; after a first or second draw (it may meld) the value of
    drawing on (``draw2``, ``draw3``); at the end of its turn, and for a player not on
    turn, ``passed``."""
    if view.player != view.current or view.phase is Phase.OVER:
        return _carousel.PHASE_PASSED, 0
    if view.phase is Phase.DRAW:
        return _carousel.PHASE_DRAW1, 0
    if view.phase is Phase.MELD:
        d = view.turn_info.draws
        return (_carousel.PHASE_DRAW2 if d <= 1 else _carousel.PHASE_DRAW3), d
    return _carousel.PHASE_PASSED, 0


def features(obj: GameState | PlayerView, player: int | None = None,
             phase: int | None = None) -> npt.NDArray[np.float32]:
    """The features (float32, ``len(FEATURE_NAMES)``) of a state or a view as ``player``
    sees them (a view: its own player; a state: ``player``, by default the player on
    turn), computed by the kernel's own C code. ``phase``: a code of ``PHASES`` (default
    ``phase_of`` the view). A state gives the same features as its player's view."""
    if isinstance(obj, GameState):
        p = obj.current if player is None else int(player)
        if not 0 <= p < obj.n_players:
            raise ValueError(f"player must be a seat 0..{obj.n_players - 1}, got {player}")
        if obj.phase is Phase.OVER:
            raise ValueError("the game is over: there is no position to value")
        obj = obj.view(p)
    elif isinstance(obj, PlayerView):
        if player is not None and int(player) != obj.player:
            raise ValueError(f"a view of seat {obj.player} gives that seat's features, not "
                             f"seat {player}'s")
        if obj.phase is Phase.OVER:
            raise ValueError("the game is over: there is no position to value")
    else:
        raise TypeError(f"a Carousel GameState or PlayerView, got {type(obj).__name__}")
    v = obj
    ph, draws = phase_of(v)
    if phase is not None:
        if not 0 <= int(phase) < len(PHASES):
            raise ValueError(f"phase must be 0..{len(PHASES) - 1} ({', '.join(PHASES)}), "
                             f"got {phase}")
        ph = int(phase)
    H, jh = hand_counts(v.hand)
    T, D, jt = table_counts(v.table)
    return _carousel.learned_features(core_rules(v.rules), game_rules(v.rules), H, jh, T, D, jt,
                                      v.hand_sizes, v.player, v.stock_count, draws,
                                      v.stock_out, ph)


def _features() -> GameFeatures:
    return GameFeatures("carousel", FEATURE_VERSION, FEATURE_NAMES, features)


register_game(_features())


# --------------------------------------------------------------------------- training
_DATA_DEFAULTS: dict[str, Any] = {"players": 2, "bots": "greedy", "rate": 0.25,
                                  "explore": 0.1, "rollouts": 0}
#: the kernel bots a self-play seat may be
_DATA_BOTS = ("greedy", "careful", "search", "search-plain", "search-learned", "learned")


def _data_bot(b: str) -> str:
    """A self-play seat's canonical name (``search:N`` keeps its budget)."""
    key, opts = parse_bot(b)
    if key not in _DATA_BOTS:
        raise ValueError(f"bots must be kernel bots ({', '.join(_DATA_BOTS)}), not {b!r}")
    return key if not opts else f"{key}:{opts['rollouts']}"


def check_data(d: Mapping) -> dict:
    """The data settings of a training run: ``players`` (2..6), ``bots`` (the kernel bots
    of the self-play seats: one name, or one a seat; ``search:N`` / ``search-plain:N``
    take a budget), ``rate`` (the chance that a position a seat's choice leads to is
    recorded) and ``explore`` (the chance that a seat's decision is a random one of its
    candidates), ``rollouts`` (0: a row's margin target is its round's own end; N > 0:
    the mean margin of N determinized greedy rollouts from the row's position, the
    search's rollouts, a target with far less noise)."""
    return self_play_data("carousel", d, _DATA_DEFAULTS, 6, _data_bot)


def play_chunk(spec: Mapping) -> dict:
    """One chunk of self-play rounds (a training "game" is one round; default rules of
    the player count): round ``j`` of the chunk is dealt from ``SeedSequence(seed,
    spawn_key=(chunk, j, 0))`` by seat ``j mod players``, seat ``s``'s bot seeded from
    ``(chunk, j, 1 + s)``, the recorder from ``(chunk, j, 99)``."""
    d = spec["data"]
    players = int(d["players"])
    names = str(d["bots"]).split(",")
    rules = CarouselRules.for_players(players)
    core, params = core_rules(rules), game_rules(rules)
    deck = np.asarray(rules.deck(), np.int64)
    base = tuple(runs.chunk_seed(spec["entropy"], (), spec["spawn_key"][0]).spawn_key)
    SS, rng = np.random.SeedSequence, np.random.default_rng
    ent = spec["entropy"]
    cap = 2048
    X = np.empty((cap, _NF), np.float32)
    who = np.empty(cap, np.int32)
    ph = np.empty(cap, np.int32)
    ro = int(d.get("rollouts", 0))
    y = np.zeros(cap, np.int64)
    rows_X: list[np.ndarray] = []
    rows: dict[str, list] = {"deal": [], "y_num": [], "y_den": [], "y_win": []}
    for j in range(spec["n"]):
        deal = spec["deal0"] + j
        order = rng(SS(ent, spawn_key=base + (j, 0))).permutation(deck).astype(np.uint8)
        bots = kernel_bots([make_bot(names[s], seed=SS(ent, spawn_key=base + (j, 1 + s)))
                             for s in range(players)], players)
        n, scores, winners = _carousel.record_round(
            core, params, order, deal % players, bots, rng(SS(ent, spawn_key=base + (j, 99))),
            float(d["rate"]), float(d["explore"]), X, who, ph, ro, y)
        n = min(n, cap)
        sc = np.asarray(scores, np.int64)
        q = who[:n].astype(np.int64)
        rows_X.append(X[:n].astype(np.int16))
        rows["deal"].append(np.full(n, deal, np.int64))
        if ro:       # the mean over the rollouts from the row's position
            rows["y_num"].append(y[:n].copy())
            rows["y_den"].append(np.full(n, ro * (players - 1), np.int64))
        else:
            rows["y_num"].append((players - 1) * sc[q] - (sc.sum() - sc[q]))
            rows["y_den"].append(np.full(n, players - 1, np.int64))
        rows["y_win"].append(np.asarray(winners, np.int64)[q])
    out: dict[str, Any] = {k: np.concatenate(v) if v else np.zeros(0, np.int64)
                           for k, v in rows.items()}
    out["X"] = np.concatenate(rows_X) if rows_X else np.zeros((0, _NF), np.int16)
    return out


register_trainer(Trainer(
    game="carousel", features=_features, play_chunk=play_chunk, check_data=check_data,
    defaults={"games": 20000, "chunk_size": 500, "epochs": 12, "hidden": 64, "batch": 256,
              "lr": 1e-3},
    describe="Carousel (default rules of the player count): self-play rounds of kernel bots",
    options={"players": "carousel: players at the self-play table (default 2)",
             "bots": "carousel: the self-play seats' kernel bots (default greedy)",
             "rate": "carousel: chance that a position a choice leads to is recorded (0.25)",
             "explore": "carousel: chance of a random candidate instead of the bot's (0.1)",
             "rollouts": "carousel: the margin target: the mean of this many determinized "
                         "greedy rollouts from the position (0: the round's own end)"}))

# the bot's name for the documentation's readers
_ = LearnedBot
