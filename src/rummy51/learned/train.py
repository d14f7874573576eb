"""Training a model by self-play: a run directory like the studies', then a numpy fit.

``train(game, out=DIR, seed=S, games=N, ...)`` (the command line: ``rummy51 train GAME``)
does two things, both resumable:

1. **Data**: ``games`` self-play games in the game's C kernel, cut into chunks; each
   chunk is a verified chunk file (``rummy51.runs``: manifest, SHA-256, atomic writes,
   seeds by chunk: chunk ``i`` draws only from ``SeedSequence(seed, spawn_key=(i,))``)
   holding, per recorded position, the deal number, the features (integers, as the
   deciding player sees the position) and the targets: the final margin as
   ``y_num / y_den`` (the others' mean score less the player's, positive is good) and
   whether the player won.
2. **Fit** (``rummy51.learned.fit``): the positions of every chunk, a tenth of the deals
   held out for validation, a two-layer network trained by Adam for ``epochs``; the
   state after each epoch is saved (``DIR/fit-state.npz``), so a killed run resumes at
   its last finished epoch. The best epoch's weights become ``DIR/model.npz``, with the
   training command, seed, data size, feature version and checksum in its metadata.

A game supplies a ``Trainer`` (``register_trainer``): its name, features, the chunk
function that plays and records games (``play_chunk(spec)``), its data options and
their defaults. The command line ``rummy51 train`` lists the registered games.
"""
from __future__ import annotations

import hashlib
import json
import shlex
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import runs
from .._checks import int_arg
from .fit import FitData, FitSettings, fold, init_state, run_epoch, validation_mask
from .model import GameFeatures, Model

__all__ = ["KIND", "TARGETS", "TrainResult", "TrainSettings", "Trainer", "register_trainer",
           "registered_trainer", "self_play_data", "train", "trainers"]

KIND = "train"
#: the target columns of a chunk, before the features (x000, x001, ...)
TARGETS = ("deal", "y_num", "y_den", "y_win")
_FIT_KEY = 2**31 - 1     # the fit's seeds: SeedSequence(seed, spawn_key=(_FIT_KEY, k))
MAX_GAMES = 10**8


@dataclass(frozen=True)
class Trainer:
    """A game's training recipe: ``play_chunk(spec)`` plays ``spec["n"]`` games numbered
    from ``spec["deal0"]`` (seeded from ``spec``'s ``entropy`` and ``spawn_key``, the
    chunk's own) with the data options ``spec["data"]`` and returns the columns
    ``TARGETS`` plus the features as an int16 ``X`` (rows x features). ``check_data``
    turns user options into the data settings (one-line ``ValueError`` on nonsense);
    ``defaults``: games, chunk size and fit settings of the shipped recipe."""

    game: str
    features: Callable[[], GameFeatures]
    play_chunk: Callable[[Mapping], dict]
    check_data: Callable[[Mapping], dict]
    defaults: Mapping[str, Any] = field(default_factory=dict)
    describe: str = ""
    #: the data options of the command line: name (``players``: ``--players``) -> help
    options: Mapping[str, str] = field(default_factory=dict)


_TRAINERS: dict[str, Trainer] = {}


def register_trainer(t: Trainer) -> None:
    _TRAINERS[t.game] = t


def registered_trainer(game: str) -> Trainer:
    try:
        return _TRAINERS[game]
    except KeyError:
        raise ValueError(f"train: no game {game!r}: choose from "
                         f"{', '.join(sorted(_TRAINERS)) or 'none'}") from None


def trainers() -> dict[str, Trainer]:
    return dict(_TRAINERS)


def self_play_data(game: str, d: Mapping, defaults: Mapping[str, Any], max_players: int,
                   bot: Callable[[str], str]) -> dict:
    """The self-play data settings both games share, checked: ``d`` over ``defaults``
    (an unknown key refused), ``players`` 2..``max_players`` and ``rollouts`` 0..1000
    (ints), ``rate`` in (0, 1], ``explore`` in [0, 1), ``bots`` one name or one a seat,
    each turned into its canonical name by ``bot`` (which raises a ``ValueError`` naming
    the name it refuses). Every error is one line beginning ``train GAME:``."""
    out: dict[str, Any] = dict(defaults)
    for k, v in d.items():
        if k not in out:
            raise ValueError(f"train {game}: no data option {k!r} (choose from "
                             f"{', '.join(out)})")
        out[k] = v
    try:
        players = int(out["players"])
        rollouts = int(out["rollouts"])
        rate = float(out["rate"])
        explore = float(out["explore"])
    except (TypeError, ValueError):
        raise ValueError(f"train {game}: players and rollouts must be ints, rate and explore "
                         "numbers") from None
    if not 0 <= rollouts <= 1000:
        raise ValueError(f"train {game}: rollouts must be 0..1000, got {rollouts}")
    if not 2 <= players <= max_players:
        raise ValueError(f"train {game}: players must be 2..{max_players}, got {players}")
    if not 0 < rate <= 1:
        raise ValueError(f"train {game}: rate must be > 0 and <= 1, got {rate}")
    if not 0 <= explore < 1:
        raise ValueError(f"train {game}: explore must be 0..1 (below 1), got {explore}")
    bots = out["bots"]
    names = [b.strip() for b in (bots.split(",") if isinstance(bots, str) else bots)]
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise ValueError(f"train {game}: {len(names)} bots for {players} players")
    try:
        canon = [bot(b) for b in names]
    except ValueError as e:
        raise ValueError(f"train {game}: {e}") from None
    return {"players": players, "bots": ",".join(canon), "rate": rate, "explore": explore,
            "rollouts": rollouts}


@dataclass(frozen=True)
class TrainSettings:
    """Everything that decides a training run's model (the manifest's ``settings``)."""

    game: str
    games: int
    chunk_size: int
    entropy: Any
    feature_version: int
    n_features: int
    data: Mapping[str, Any]
    fit: FitSettings

    def to_json(self) -> dict:
        return {"game": self.game, "games": self.games, "chunk_size": self.chunk_size,
                "entropy": self.entropy, "feature_version": self.feature_version,
                "n_features": self.n_features, "data": dict(self.data),
                "fit": self.fit.to_json()}

    @classmethod
    def from_json(cls, d: Mapping) -> TrainSettings:
        return cls(game=str(d["game"]), games=int(d["games"]), chunk_size=int(d["chunk_size"]),
                   entropy=d["entropy"], feature_version=int(d["feature_version"]),
                   n_features=int(d["n_features"]), data=dict(d["data"]),
                   fit=FitSettings(**d["fit"]))

    @property
    def config_hash(self) -> str:
        return hashlib.sha256(json.dumps(self.to_json(), sort_keys=True).encode()).hexdigest()

    def plan(self) -> list[dict]:
        specs = []
        for i, a in enumerate(range(0, self.games, self.chunk_size)):
            specs.append({"index": i, "n": min(self.chunk_size, self.games - a), "deal0": a,
                          "entropy": self.entropy, "spawn_key": [i], "data": dict(self.data),
                          "game": self.game})
        return specs

    def command(self, out: str) -> str:
        """The one command that makes this run again."""
        args = ["rummy51", "train", self.game, "--out", out, "--seed", str(self.entropy),
                "--games", str(self.games), "--chunk-size", str(self.chunk_size),
                "--epochs", str(self.fit.epochs), "--hidden", str(self.fit.hidden),
                "--batch", str(self.fit.batch), "--lr", repr(self.fit.lr)]
        for k, v in sorted(self.data.items()):
            args += [f"--{k.replace('_', '-')}", ",".join(map(str, v))
                     if isinstance(v, (list, tuple)) else str(v)]
        return shlex.join(args)


def _layout(n_features: int) -> runs.ChunkLayout:
    cols = TARGETS + tuple(f"x{i:03d}" for i in range(n_features))
    dt = {c: "int16" for c in cols}
    dt.update(deal="int64", y_num="int32", y_den="int32", y_win="int8")
    return runs.ChunkLayout(columns=cols, dtypes=dt, csv_tag="# rummy51 train ")


def _cols(res: Mapping, n_features: int) -> dict[str, np.ndarray]:
    X = np.asarray(res["X"])
    if X.ndim != 2 or X.shape[1] != n_features:
        raise AssertionError(f"a chunk's features are {X.shape}, not (rows, {n_features})")
    cols = {c: np.asarray(res[c], np.int64) for c in TARGETS}
    for i in range(n_features):
        cols[f"x{i:03d}"] = X[:, i].astype(np.int64)
    return cols


def _compact(cols: Mapping[str, np.ndarray], n_features: int) -> dict:
    """A chunk's rows kept for the fit: the targets, and the features as one int16 matrix
    (the chunk files' int64 columns would take four times the memory)."""
    X = np.empty((len(cols["deal"]), n_features), np.int16)
    for i in range(n_features):
        X[:, i] = cols[f"x{i:03d}"]
    return {**{c: np.asarray(cols[c]) for c in TARGETS}, "X": X}


@dataclass
class TrainResult:
    """What ``train`` made: the model (also ``DIR/model.npz``), the run directory, the
    positions it was fitted on and each epoch's losses."""

    model: Model
    path: Path
    run_dir: Path
    samples: int
    history: np.ndarray
    seconds: float

    def __str__(self) -> str:
        tr = self.model.meta.get("training", {})
        return (f"{self.model.game} model: {self.samples:,} positions of {tr.get('games'):,} "
                f"games, {self.model.n_features} features, {self.model.hidden} hidden units; "
                f"best epoch {tr.get('best_epoch')}: validation margin RMSE "
                f"{tr.get('val_margin_rmse'):.2f} points, win log-loss "
                f"{tr.get('val_logloss'):.4f}; written to {self.path}")


def _settings(game: str, seed: Any, games: int | None, chunk_size: int | None,
              epochs: int | None, hidden: int | None, batch: int | None, lr: float | None,
              data: Mapping | None) -> TrainSettings:
    t = registered_trainer(game)
    d = t.defaults
    games = int_arg("games", d.get("games", 20000) if games is None else games, 1, MAX_GAMES)
    chunk_size = int_arg("chunk_size", d.get("chunk_size", 500) if chunk_size is None
                         else chunk_size, 1, 10**6)
    epochs = int_arg("epochs", d.get("epochs", 12) if epochs is None else epochs, 1, 10**4)
    hidden = int_arg("hidden", d.get("hidden", 64) if hidden is None else hidden, 1, 256)
    batch = int_arg("batch", d.get("batch", 256) if batch is None else batch, 1, 10**6)
    lr = float(d.get("lr", 1e-3) if lr is None else lr)
    if not 0 < lr < 1:
        raise ValueError(f"lr must be > 0 and < 1, got {lr}")
    entropy, spawn = runs.seed_root(seed)
    if spawn:
        raise ValueError("seed: give an int (the training seed is recorded in the model)")
    feats = t.features()
    return TrainSettings(game=game, games=games, chunk_size=chunk_size, entropy=entropy,
                         feature_version=feats.version, n_features=feats.n_features,
                         data=t.check_data(data or {}),
                         fit=FitSettings(hidden=hidden, epochs=epochs, batch=batch, lr=lr,
                                         win_weight=float(d.get("win_weight", 0.5))))


def train(game: str, out: str | Path | None = None, resume: str | Path | None = None,
          seed: Any = None, games: int | None = None, chunk_size: int | None = None,
          epochs: int | None = None, hidden: int | None = None, batch: int | None = None,
          lr: float | None = None, data: Mapping | None = None, workers: int = 1,
          progress: bool | None = None, fmt: str | None = None,
          on_epoch: Callable[[int, int, np.ndarray], None] | None = None) -> TrainResult:
    """Train a model for ``game`` in a new run directory ``out`` (or continue the run in
    ``resume``: the data chunks not yet written are played, the fit goes on from its last
    finished epoch). ``seed`` (an int; fresh entropy if None) decides everything: the
    same seed and sizes give the same weights. ``workers`` threads play the chunks (the
    kernels release the GIL). ``on_epoch(epoch, epochs, history_row)`` is told of each
    finished epoch. Returns a ``TrainResult`` (the model is also ``DIR/model.npz``)."""
    t0 = time.perf_counter()
    workers = int_arg("workers", workers, 1, 256)
    if (out is None) == (resume is None):
        raise ValueError("give out (a new run directory) or resume (a run to continue), not both")
    if resume is not None:
        run = runs.RunDir.open(resume, KIND)
        settings = run.settings(TrainSettings.from_json)
        run.check_resume_format(fmt)
        t = registered_trainer(settings.game)
        feats = t.features()
        if (feats.version, feats.n_features) != (settings.feature_version, settings.n_features):
            raise ValueError(f"cannot resume {resume}: it records features version "
                             f"{settings.feature_version}, this rummy51 computes {feats.version}")
        if game is not None and game != settings.game:
            raise ValueError(f"cannot resume {resume}: it trains {settings.game!r}, not {game!r}")
    else:
        settings = _settings(game, seed, games, chunk_size, epochs, hidden, batch, lr, data)
        t = registered_trainer(game)
        path = Path(out)  # type: ignore[arg-type]
        manifest = runs.new_manifest(
            KIND, settings.to_json(), settings.config_hash, {"entropy": settings.entropy},
            runs.chunk_format(fmt), settings.command(str(path)), len(settings.plan()),
            game=settings.game)
        run = runs.RunDir.create(path, manifest)
    layout = _layout(settings.n_features)
    specs = settings.plan()

    def read(path: Path, spec: Mapping) -> dict:
        _, cols = runs.read_chunk(path, run.fmt, layout, run.hash, {"index": spec["index"]})
        return _compact(cols, settings.n_features)

    found = run.scan(specs, read)
    results: dict[int, dict] = dict(found)
    session = runs.Session(run, specs, found, {"workers": workers}, progress,
                           f"train {settings.game}", unit=" games")
    with session:
        def work(spec: dict) -> dict:
            return _cols(t.play_chunk(spec), settings.n_features)

        def done(spec: dict, cols: dict) -> None:
            runs.write_chunk(run.chunk_path(spec["index"]), run.fmt, layout, cols,
                             {"index": spec["index"], "config_hash": run.hash})
            results[spec["index"]] = _compact(cols, settings.n_features)
            session.chunk_done(spec)

        runs.run_threads(session.todo, workers, work, done)
        session.bar.close()
        model, hist, samples = _fit(run, settings, results, on_epoch)
        mpath = run.path / "model.npz"
        model.save(mpath)
        tr = model.meta["training"]
        session.finish(time.perf_counter() - t0, model={
            "path": "model.npz", "sha256": model.sha256, "samples": samples,
            "best_epoch": tr["best_epoch"], "val_margin_rmse": tr["val_margin_rmse"]})
    return TrainResult(model=Model(**{**model.__dict__, "path": str(mpath)}), path=mpath,
                       run_dir=run.path, samples=samples, history=hist,
                       seconds=time.perf_counter() - t0)


def _fit(run: runs.RunDir, settings: TrainSettings, results: Mapping[int, dict],
         on_epoch: Callable[[int, int, np.ndarray], None] | None) -> tuple[Model, np.ndarray, int]:
    order = sorted(results)
    nf = settings.n_features
    X = (np.concatenate([results[i]["X"] for i in order]) if order
         else np.zeros((0, nf), np.int16))
    tcol = {c: np.concatenate([results[i][c] for i in order]) for c in TARGETS}
    if len(X) < 2:
        raise ValueError(f"train: {len(X)} positions recorded: play more games (--games)")
    margin = tcol["y_num"].astype(np.float64) / tcol["y_den"]
    data = FitData(X=X, margin=margin, win=tcol["y_win"].astype(np.float64),
                   val=validation_mask(tcol["deal"]))
    fs = settings.fit
    state_path = run.path / "fit-state.npz"
    st = _load_state(state_path, run.hash)
    if st is None:
        st = init_state(nf, fs, np.random.SeedSequence(settings.entropy, spawn_key=(_FIT_KEY, 0)))
    while int(st["epoch"]) < fs.epochs:
        e = int(st["epoch"])
        run_epoch(st, data, fs, np.random.SeedSequence(settings.entropy, spawn_key=(_FIT_KEY, 1 + e)))
        _save_state(state_path, st, run.hash)
        if on_epoch is not None:
            on_epoch(e, fs.epochs, st["history"][-1])
    w1, b1, w2, b2 = fold(st, data.mu, data.sd, data.m_mu, data.m_sd)
    best = int(st["best_epoch"])
    hist = st["history"]
    row = hist[hist[:, 0] == best][0] if len(hist) else [best, 0, 0, 0]
    games = settings.games
    tr = {"command": settings.command(str(run.path)), "seed": settings.entropy,
          "games": games, "samples": int(len(X)), "train_samples": int(len(data.train_idx)),
          "val_samples": int(len(data.val_idx)), "epochs": fs.epochs, "best_epoch": best,
          "val_margin_rmse": round(float(row[2]), 4), "val_logloss": round(float(row[3]), 5),
          "margin_sd": round(data.m_sd, 4), "fit": fs.to_json(), "data": dict(settings.data),
          "config_hash": run.hash,
          "history": [[int(r[0]), round(float(r[1]), 6), round(float(r[2]), 4),
                       round(float(r[3]), 5)] for r in hist]}
    feats = registered_trainer(settings.game).features()
    meta = {"training": tr, "feature_names": list(feats.names), "created": runs.now(),
            "rummy51": runs.versions()["rummy51"]}
    model = Model(game=settings.game, feature_version=settings.feature_version, w1=w1, b1=b1,
                  w2=w2, b2=b2, meta=meta)
    return model, hist, int(len(X))


def _save_state(path: Path, st: Mapping, config_hash: str) -> None:
    import io

    buf = io.BytesIO()
    np.savez(buf, config_hash=np.array(config_hash), **st)
    data = buf.getvalue()
    runs.atomic_write_file(path, lambda f: f.write(data))


def _load_state(path: Path, config_hash: str) -> dict | None:
    """The fit's state after its last finished epoch (None: none yet, or unreadable, which
    restarts the fit from its first epoch: the same seeds give the same weights)."""
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            if str(z["config_hash"][()]) != config_hash:
                return None
            return {k: z[k] for k in z.files if k != "config_hash"}
    except Exception:
        return None
