"""A toy game for the learned-evaluator tests: three integer features, a margin that is
a known function of them (so a fit can be checked), registered as game ``toy``."""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from rummy51 import runs
from rummy51.learned import GameFeatures, Trainer, register_game, register_trainer

NAMES = ("a", "b", "c")


def featurize(obj, player=None):
    return np.asarray(obj, np.float32)


def features() -> GameFeatures:
    return GameFeatures("toy", 1, NAMES, featurize)


def play_chunk(spec: Mapping) -> dict:
    rng = runs.chunk_rng(spec["entropy"], spec["spawn_key"][:-1], spec["spawn_key"][-1])
    k = spec["data"]["per_game"]
    n = spec["n"] * k
    X = rng.integers(-5, 6, (n, 3)).astype(np.int16)
    margin2 = 6 * X[:, 0] - 4 * np.maximum(X[:, 1], 0) + rng.integers(-2, 3, n)
    return {"deal": np.repeat(spec["deal0"] + np.arange(spec["n"]), k), "y_num": margin2,
            "y_den": np.full(n, 2), "y_win": (margin2 > 0).astype(np.int8), "X": X}


def check_data(d: Mapping) -> dict:
    per = int(d.get("per_game", 20))
    if per < 1:
        raise ValueError("per_game must be >= 1")
    return {"per_game": per}


register_game(features())
register_trainer(Trainer("toy", features, play_chunk, check_data,
                         defaults={"games": 200, "chunk_size": 50, "epochs": 3, "hidden": 8}))
