"""Learned evaluators: small networks trained by self-play in the C kernels, for both games.

Design (docs/learned.md has the long form):

* **The model** (``Model``): features -> ``hidden`` ReLU units -> 2 outputs, the deal's
  (round's) final *margin* for the deciding player (the others' mean score less its
  own, in the game's points, positive is good) and the *logit* of its winning. Float32
  weights; the features are what the deciding player may see (its hand, the table, the
  discard pile, what others hold that the public history shows, counts), computed by
  the game's C kernel. Nothing hidden is read.
* **Files**: ``rummy51/models/GAME.npz`` in the package (``load_model("r51")``), or any
  path; ``$RUMMY51_MODEL_DIR`` points the shipped names elsewhere. Metadata inside:
  the training command, seed, data size, feature version and count, a checksum.
  ``load_model`` checks all of it; a missing, damaged or mismatched file raises
  ``ModelError`` in one line naming it, and the bots that need a model refuse to play.
* **Inference**: ``_net.pxd``, a ``cdef inline`` nogil forward pass that each game
  kernel compiles in (``net_bind`` fills its ``Net`` struct from a ``Model``); no
  Python per evaluation, no torch. ``Model.predict(X)`` runs the same code in batch,
  ``Model.value(view_or_state, player)`` computes the features first (``register_game``:
  each game registers its featurizer), ``Model.values`` is the batch form.
* **Training** (``train``; ``rummy51 train GAME --out DIR``): self-play games in the
  kernel recorded into verified chunk files of a run directory (``rummy51.runs``:
  seeds by chunk, resume), then a deterministic numpy fit with its state saved after
  every epoch (``fit``). Each game registers a ``Trainer`` (its chunk function).

This room knows no game: the games sit above it and register themselves.
"""
from .fit import FitSettings
from .model import (
    FORMAT,
    FORMAT_VERSION,
    MODEL_DIR_ENV,
    GameFeatures,
    Model,
    ModelError,
    load_model,
    model_path,
    register_game,
    registered_game,
)
from .train import (
    Trainer,
    TrainResult,
    TrainSettings,
    register_trainer,
    registered_trainer,
    self_play_data,
    train,
    trainers,
)

__all__ = [
    "FORMAT", "FORMAT_VERSION", "MODEL_DIR_ENV", "FitSettings", "GameFeatures", "Model",
    "ModelError", "TrainResult", "TrainSettings", "Trainer", "load_model", "model_path",
    "register_game", "register_trainer", "registered_game", "registered_trainer",
    "self_play_data", "train", "trainers",
]
