"""A learned evaluator: its weights, its file, its loader and its forward pass.

The file (``.npz``, numpy's zip of arrays, read with ``allow_pickle=False``) holds four
float32 arrays, ``w1`` (features x hidden), ``b1`` (hidden), ``w2`` (2 x hidden), ``b2``
(2), and ``meta``, a JSON object in a 0-d string array::

    {"format": "rummy51-model", "format_version": 1, "game": "r51",
     "feature_version": 1, "n_features": 180, "hidden": 64,
     "sha256": "...",            # of the four arrays (little-endian float32, in order)
     "training": {"command": "rummy51 train r51 --out DIR --seed 1 ...", "seed": 1,
                  "games": 20000, "samples": 812345, ...},
     "feature_names": [...], "created": "...", "rummy51": "0.x"}

``load_model`` checks everything before a bot may use it: the file is there and is a
readable archive, the arrays have the right names, dtypes, shapes and finite values,
the checksum matches, and the game and feature version are the ones the game's code
computes (``register_game``). Anything wrong raises ``ModelError`` with one line naming
the file; nothing falls back to another evaluator.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["FORMAT", "FORMAT_VERSION", "GameFeatures", "Model", "ModelError", "load_model",
           "model_path", "register_game", "registered_game", "MODEL_DIR_ENV"]

FORMAT = "rummy51-model"
FORMAT_VERSION = 1
#: a directory of model files (``r51.npz``, ``carousel.npz``) used instead of the package's
MODEL_DIR_ENV = "RUMMY51_MODEL_DIR"
_ARRAYS = ("w1", "b1", "w2", "b2")
_PACKAGED = Path(__file__).resolve().parent.parent / "models"


class ModelError(ValueError):
    """A model file is missing, unreadable or does not fit the code that would use it
    (one line naming the file). A ``ValueError``: the command line says it in one line."""


@dataclass(frozen=True)
class GameFeatures:
    """What a game registers (``register_game``): its name, the version and names of the
    features its kernel computes, and ``featurize(view_or_state, player)``: one position's
    features as the deciding player sees them (a float32 vector), computed by the same C
    code the kernel's bots call."""

    game: str
    version: int
    names: tuple[str, ...]
    featurize: Callable[[Any, int | None], npt.NDArray[np.float32]]

    @property
    def n_features(self) -> int:
        return len(self.names)


_GAMES: dict[str, GameFeatures] = {}


def register_game(features: GameFeatures) -> None:
    """Register a game's features (each game's room does it when imported)."""
    _GAMES[features.game] = features


def registered_game(game: str) -> GameFeatures:
    """The registered features of ``game`` (``ValueError`` if it has none)."""
    try:
        return _GAMES[game]
    except KeyError:
        raise ValueError(f"no learned features for game {game!r}: choose from "
                         f"{', '.join(sorted(_GAMES)) or 'none registered'}") from None


def _digest(arrays: Sequence[np.ndarray]) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a, dtype="<f4").tobytes())
    return h.hexdigest()


@dataclass(frozen=True, eq=False)
class Model:
    """A two-layer network: ``relu(x @ w1 + b1) @ w2.T + b2`` gives (margin, win logit) of
    a position's features ``x`` for the deciding player. Float32, C-contiguous arrays (the
    kernels read them in place); ``meta`` is the file's metadata (``training``: how it was
    made). ``predict`` runs the kernels' own forward pass (``_net``); ``value`` computes
    a state's or a view's features first (the game's registered ``featurize``)."""

    game: str
    feature_version: int
    w1: npt.NDArray[np.float32]
    b1: npt.NDArray[np.float32]
    w2: npt.NDArray[np.float32]
    b2: npt.NDArray[np.float32]
    meta: Mapping[str, Any] = field(default_factory=dict)
    path: str | None = None

    def __post_init__(self) -> None:
        for name in _ARRAYS:
            a = getattr(self, name)
            if not isinstance(a, np.ndarray) or a.dtype != np.float32 or not a.flags.c_contiguous:
                raise ModelError(f"{self._where()}: {name} must be a C-contiguous float32 array")
        nin, nh = self.w1.shape if self.w1.ndim == 2 else (0, 0)
        if (self.w1.ndim != 2 or nin < 1 or nh < 1 or self.b1.shape != (nh,)
                or self.w2.shape != (2, nh) or self.b2.shape != (2,)):
            raise ModelError(f"{self._where()}: array shapes do not fit (w1 {self.w1.shape}, b1 "
                             f"{self.b1.shape}, w2 {self.w2.shape}, b2 {self.b2.shape})")
        if not all(np.isfinite(getattr(self, n)).all() for n in _ARRAYS):
            raise ModelError(f"{self._where()}: the weights hold NaN or infinite values")

    def _where(self) -> str:
        return f"model file {self.path}" if self.path else f"{self.game} model"

    @property
    def n_features(self) -> int:
        return int(self.w1.shape[0])

    @property
    def hidden(self) -> int:
        return int(self.w1.shape[1])

    @property
    def sha256(self) -> str:
        """The checksum of the weights (as stored in the file's metadata)."""
        return _digest([self.w1, self.b1, self.w2, self.b2])

    def __repr__(self) -> str:
        tr = self.meta.get("training", {}) if isinstance(self.meta, Mapping) else {}
        return (f"Model(game={self.game!r}, features={self.n_features} (version "
                f"{self.feature_version}), hidden={self.hidden}, samples={tr.get('samples')}, "
                f"path={self.path!r})")

    # ------------------------------------------------------------------ evaluation
    def predict(self, X: npt.ArrayLike) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float64]]:
        """``(margin, p_win)`` of features ``X``: one position (a vector) gives two scalars
        in 0-d arrays, a batch ``(n, features)`` two vectors."""
        from .. import _net

        x = np.asarray(X, dtype=np.float32)
        one = x.ndim == 1
        if one:
            x = x[None, :]
        if x.ndim != 2 or x.shape[1] != self.n_features:
            raise ValueError(f"features must be ({self.n_features},) or (n, {self.n_features}), "
                             f"got {np.shape(X)}")
        out = _net.forward(self, x)
        margin = out[:, 0]
        p = 1.0 / (1.0 + np.exp(-out[:, 1].astype(np.float64)))
        if one:
            return margin[0], p[0]
        return margin, p

    def features(self, obj: Any, player: int | None = None) -> npt.NDArray[np.float32]:
        """The features of a game state or a player's view (``player``: whose features; a
        view's own player by default, a state's player on turn), checked against the model."""
        g = registered_game(self.game)
        if g.version != self.feature_version or g.n_features != self.n_features:
            raise ModelError(f"{self._where()}: feature version {self.feature_version} "
                             f"({self.n_features} features), the code computes version "
                             f"{g.version} ({g.n_features})")
        return g.featurize(obj, player)

    def value(self, obj: Any, player: int | None = None) -> tuple[float, float]:
        """``(margin, p_win)`` of a state or a view for ``player``: the deal's (round's)
        expected final margin in the game's points (the others' mean score less the
        player's, positive is good) and the probability that the player wins it."""
        m, p = self.predict(self.features(obj, player))
        return float(m), float(p)

    def values(self, objs: Sequence[Any],
               players: Sequence[int | None] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The batch form of ``value``: ``(margins, p_wins)`` arrays, one entry per object."""
        objs = list(objs)
        who = [None] * len(objs) if players is None else list(players)
        if len(who) != len(objs):
            raise ValueError(f"{len(who)} players for {len(objs)} positions")
        if not objs:
            return np.zeros(0, np.float32), np.zeros(0, np.float64)
        X = np.stack([self.features(o, p) for o, p in zip(objs, who, strict=True)])
        m, p = self.predict(X)
        return np.asarray(m), np.asarray(p)

    # ------------------------------------------------------------------ files
    def to_bytes(self) -> bytes:
        meta = dict(self.meta)
        meta.update(format=FORMAT, format_version=FORMAT_VERSION, game=self.game,
                    feature_version=int(self.feature_version), n_features=self.n_features,
                    hidden=self.hidden, sha256=self.sha256)
        buf = io.BytesIO()
        np.savez(buf, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2,
                 meta=np.array(json.dumps(meta, sort_keys=True)))
        return buf.getvalue()

    def save(self, path: str | os.PathLike) -> Path:
        """Write the model file atomically (a run killed while writing leaves the old file)."""
        from ..runs import atomic_write_file

        path = Path(path)
        data = self.to_bytes()
        atomic_write_file(path, lambda f: f.write(data))
        return path


def model_path(game: str) -> Path:
    """Where ``load_model(game)`` reads: ``$RUMMY51_MODEL_DIR/GAME.npz`` when that variable
    is set, else the model shipped in the package (``rummy51/models/GAME.npz``)."""
    if not isinstance(game, str) or not game or "/" in game or "\\" in game or "." in game:
        raise ValueError(f"game must be a game's name like 'r51', got {game!r}")
    d = os.environ.get(MODEL_DIR_ENV)
    return (Path(d) if d else _PACKAGED) / f"{game}.npz"


_CACHE: dict[tuple, Model] = {}


def load_model(source: str | os.PathLike | Model, game: str | None = None,
               check_features: bool = True) -> Model:
    """A model, checked: ``source`` is a game's name (``"r51"``, ``"carousel"``: its shipped
    model, see ``model_path``), a model file's path or a ``Model``. ``game``: the game
    it must be for. With ``check_features`` its feature version and count must be the
    ones the game's code computes (the game must be registered: importing ``rummy51``
    registers both). Raises ``ModelError`` (one line naming the file) if anything is
    wrong. Files are read once per path and modification time."""
    if isinstance(source, Model):
        model = source
    else:
        if isinstance(source, str) and source and not source.endswith(".npz") \
                and os.sep not in source and "/" not in source:
            path = model_path(source)
            game = game or source
        else:
            path = Path(source)
        model = _read(path)
    if game is not None and model.game != game:
        raise ModelError(f"{model._where()}: a model for game {model.game!r}, not {game!r}")
    if check_features:
        g = _GAMES.get(model.game)
        if g is None:
            raise ModelError(f"{model._where()}: no features registered for game {model.game!r}")
        if g.version != model.feature_version or g.n_features != model.n_features:
            raise ModelError(f"{model._where()}: feature version {model.feature_version} "
                             f"({model.n_features} features), but this rummy51 computes version "
                             f"{g.version} ({g.n_features} features): train a new model")
    return model


def _read(path: Path) -> Model:
    where = f"model file {path}"
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ModelError(f"{where} does not exist") from None
    except OSError as e:
        raise ModelError(f"{where} cannot be read ({e.strerror or type(e).__name__})") from None
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    try:
        with np.load(path, allow_pickle=False) as z:
            files = set(z.files)
            missing = [n for n in (*_ARRAYS, "meta") if n not in files]
            if missing:
                raise ModelError(f"{where} is not a rummy51 model (no {', '.join(missing)})")
            arrays = {n: z[n] for n in (*_ARRAYS, "meta")}
    except ModelError:
        raise
    except Exception as e:  # a truncated zip, bad bytes, a directory, a pickle, ...
        raise ModelError(f"{where} is damaged or not a model file ({type(e).__name__}: "
                         f"{str(e)[:120]})") from None
    try:
        meta = json.loads(str(arrays["meta"][()]))
    except (ValueError, TypeError):
        raise ModelError(f"{where} has unreadable metadata") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ModelError(f"{where} is not a rummy51 model (its metadata names no format "
                         f"{FORMAT!r})")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ModelError(f"{where} has model format {meta.get('format_version')!r}; this rummy51 "
                         f"reads format {FORMAT_VERSION}")
    for n in _ARRAYS:
        if arrays[n].dtype != np.float32:
            raise ModelError(f"{where}: {n} is {arrays[n].dtype}, not float32")
    ws = [np.ascontiguousarray(arrays[n]) for n in _ARRAYS]
    if meta.get("sha256") != _digest(ws):
        raise ModelError(f"{where} fails its checksum (the weights were changed or damaged)")
    game, fv = meta.get("game"), meta.get("feature_version")
    if not isinstance(game, str) or not isinstance(fv, int):
        raise ModelError(f"{where}: its metadata names no game or feature version")
    model = Model(game=game, feature_version=fv, w1=ws[0], b1=ws[1], w2=ws[2], b2=ws[3],
                  meta=meta, path=str(path))
    if meta.get("n_features") != model.n_features or meta.get("hidden") != model.hidden:
        raise ModelError(f"{where}: its metadata says {meta.get('n_features')} features and "
                         f"{meta.get('hidden')} hidden units, the weights {model.n_features} and "
                         f"{model.hidden}")
    _CACHE[key] = model
    return model
