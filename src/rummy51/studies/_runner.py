"""The run loop of the studies that play seeded chunks (a private module made for
sharing): the games studies of Rummy 51 and of Carousel use it, the openings study too,
and so would a third game's.

A study supplies its *plan*, a private module that ``execute`` and ``start`` take as a
``RunPlan`` (a ``typing.Protocol``: mypy checks that the module has every member, with
its signature):

* ``KIND`` (the manifest's kind), ``LABEL`` (the progress bar's name) and ``UNIT`` (what it
  counts); ``LOCAL`` (where a local run plays its chunks: "processes" for Python bots,
  which hold the GIL, "threads" for a kernel that releases it) and ``RECORDS`` (whether
  the run keeps a records file, whose format the manifest then names);
* ``Settings``: a frozen dataclass (for a games study deriving from ``TableSettings``:
  players, bots, games, chunk size, rules, seed) with ``to_json()``, ``from_json(d)``,
  ``config_hash`` and ``plan()`` (one spec a chunk: ``index``, ``n``, ...);
* ``play_chunk(spec) -> dict`` (``index``, ``cols``, ``seconds``...), run by the
  executors; ``check_cols(spec, cols)`` (why the columns cannot be the chunk's, or
  None); ``write_chunk(run, spec, res)``; ``chunk_reader(run)`` (a chunk file back to
  the same dict);
* ``new_manifest(settings, fmt, command, n_chunks, status)``, ``read_manifest(path)``.

A games study's plan is a ``RecordsPlan``, which adds what its records need:
``record_columns(settings)`` (the chunk columns, in order) and ``DTYPES``;
``frame(cols, settings)`` (the records DataFrame of chunk columns) and ``cols_of(df)``
(the columns back from a records file); ``units(settings, cols)`` (the games the
columns hold).

The study's public module then holds its result (for a games study a ``ChunkStudy``
dataclass with its tables) and its run function: ``run_args``, ``start`` and
``execute`` of its plan.

What is written once here: the run arguments every study takes (``run_args``),
a new run or a resumed one (``start``: the settings given must match the directory's),
the session (chunks to do, progress, Ctrl-C, the manifest), the executors, the check
and the file of every chunk that comes back, the result's facts (``execute``), and a
games result's persistence (``ChunkStudy.save`` / ``load``).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from .. import runs
from .._checks import int_arg
from ..common.seats import arrangements
from ..runs.seeding import SeedLike
from ..stats import proportion
from ._common import PathLike, RunFacts, compare_settings, json_records, unfinished

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RunPlan", "RecordsPlan", "RunResult", "mean_se", "rate", "length_stats",
           "TableSettings", "seat_bots", "RunArgs",
           "run_args", "start", "histories_arg", "default_command", "execute", "write_chunk_file",
           "read_chunk_file", "game_seeds", "plays", "read_run_histories", "ChunkStudy", "ChunkFiles"]


# --------------------------------------------------------------------------- the plan
class PlanSettings(Protocol):
    """What the run loop asks of a plan's settings."""

    @property
    def config_hash(self) -> str: ...

    def to_json(self) -> dict: ...

    def plan(self) -> Sequence[dict]: ...


class SettingsClass(Protocol):
    """A plan's ``Settings`` class: the settings back from a manifest."""

    def from_json(self, d: Mapping) -> Any: ...


@runtime_checkable
class RunPlan(Protocol):
    """A study's plan as the run loop takes it (see the module docstring); a plan
    module implements it (mypy checks the module against it)."""

    KIND: str
    LABEL: str
    UNIT: str
    LOCAL: str
    RECORDS: bool

    @property
    def Settings(self) -> SettingsClass: ...  # noqa: N802  (the plan module's class)

    def play_chunk(self, spec: dict) -> dict: ...

    def check_cols(self, spec: Mapping, cols: Any) -> str | None: ...

    def write_chunk(self, run: runs.RunDir, spec: Mapping, res: Mapping) -> None: ...

    def chunk_reader(self, run: runs.RunDir) -> Callable[[Path, Mapping], dict]: ...

    def new_manifest(self, settings: Any, fmt: str | None, command: str | None,
                     n_chunks: int, status: str = "running") -> dict: ...

    def read_manifest(self, path: Any) -> dict: ...


@runtime_checkable
class RecordsPlan(RunPlan, Protocol):
    """A games study's plan: a ``RunPlan`` whose chunks are records (see the module
    docstring)."""

    @property
    def DTYPES(self) -> Mapping[str, Any]: ...  # noqa: N802  (the plan module's constant)

    def record_columns(self, settings: Any) -> tuple[str, ...]: ...

    def frame(self, cols: Mapping[str, np.ndarray], settings: Any) -> pd.DataFrame: ...

    def cols_of(self, df: pd.DataFrame) -> dict[str, np.ndarray]: ...

    def units(self, settings: Any, cols: Mapping[str, np.ndarray]) -> int: ...


class RunResult(Protocol):
    """What ``execute`` makes of a run: a result class built from the chunks' results,
    saved into the run directory."""

    @classmethod
    def _from_results(cls, settings: Any, found: Mapping[int, dict], **kw: Any) -> Any: ...


# --------------------------------------------------------------------------- table helpers
def mean_se(x: np.ndarray) -> tuple[float, float]:
    """The mean of ``x`` and its standard error (NaN for too few values)."""
    n = x.size
    if n == 0:
        return float("nan"), float("nan")
    return float(x.mean()), (float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan"))


def rate(prefix: str, k: int, n: int) -> dict:
    """``{prefix}_rate``, ``_lo`` and ``_hi``: k of n with its 95 % Wilson interval."""
    p, lo, hi = proportion(int(k), int(n))
    return {f"{prefix}_rate": float(p), f"{prefix}_lo": float(lo), f"{prefix}_hi": float(hi)}


def length_stats(what: str, length: np.ndarray) -> dict:
    """The mean length (turns) of ``what`` with its standard error, the median, the 90th
    percentile and the turns in all."""
    n = length.size
    m, se = mean_se(length)
    return {f"mean_{what}_length": m, f"mean_{what}_length_se": se,
            f"median_{what}_length": float(np.median(length)) if n else float("nan"),
            f"p90_{what}_length": float(np.percentile(length, 90)) if n else float("nan"),
            "turns": int(length.sum())}


# --------------------------------------------------------------------------- the settings
@dataclass(frozen=True)
class TableSettings(ABC):
    """What the settings of a study of games at a table share (the base of a plan's frozen
    ``Settings`` dataclass, which adds its own fields and may narrow the type of
    ``rules``): ``players``, ``bots`` (one a seat), ``games``, ``chunk_size``, ``rules``
    and the seed (``entropy``, ``spawn_key``); their JSON and the hash of it."""

    players: int
    bots: tuple[str, ...]
    games: int
    chunk_size: int
    rules: Any
    entropy: Any
    spawn_key: tuple[int, ...]

    def table_json(self, rules_to_dict: Callable[[Any], dict], **extra: Any) -> dict:
        """The manifest's ``settings``: the table's, ``extra`` (before the rules), the
        rules and the seed."""
        return {"players": self.players, "bots": list(self.bots), "games": self.games,
                "chunk_size": self.chunk_size, **extra, "rules": rules_to_dict(self.rules),
                "seed": {"entropy": self.entropy, "spawn_key": list(self.spawn_key)}}

    @staticmethod
    def table_fields(d: Mapping, rules_from_dict: Callable[[Any], Any]) -> dict:
        """The table's fields of a settings dataclass from ``table_json``'s object."""
        ent = d["seed"]["entropy"]
        return {"players": int(d["players"]), "bots": tuple(str(b) for b in d["bots"]),
                "games": int(d["games"]), "chunk_size": int(d["chunk_size"]),
                "rules": rules_from_dict(d["rules"]),
                "entropy": ent if isinstance(ent, int) else [int(x) for x in ent],
                "spawn_key": tuple(int(k) for k in d["seed"]["spawn_key"])}

    @abstractmethod
    def to_json(self) -> dict:
        """The manifest's ``settings`` (``table_json`` with the plan's own fields)."""

    def hash_json(self) -> dict:
        """What ``config_hash`` hashes: ``to_json()`` (a plan may leave out a field whose
        value is the one runs made before the field existed played, so they resume)."""
        return self.to_json()

    @property
    def config_hash(self) -> str:
        """The first 16 hex digits of the SHA-256 of ``hash_json()`` (sorted keys)."""
        text = json.dumps(self.hash_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def chunk_specs(self, first: str, **extra: Any) -> runs.ChunkPlan:
        """The chunks in seeding order, made lazily (a ``runs.ChunkPlan``): chunk ``i``
        plays games ``first .. first + n - 1`` (``first`` names that key: ``deal0``,
        ``game0``); ``extra`` joins every spec. More chunks than the run machinery
        indexes (``runs.MAX_CHUNKS``) is a ``ValueError``."""
        count = runs.check_chunks(self.games, self.chunk_size)
        size, games = self.chunk_size, self.games
        common = {"players": self.players, "bots": list(self.bots), **extra,
                  "entropy": self.entropy, "spawn_key": list(self.spawn_key)}

        def make(i: int) -> dict:
            g0 = i * size
            return {"index": i, first: g0, "n": min(size, games - g0), **common,
                    "bots": list(self.bots), "spawn_key": list(self.spawn_key)}
        return runs.ChunkPlan(count, make, games)


# --------------------------------------------------------------------------- the run
def seat_bots(names: tuple, players: int | None, default_players: int,
              example: str) -> tuple[tuple[str, ...], int]:
    """``(bots, players)``: the bot names one a seat (one name plays every seat);
    ``players`` None: as many as names, or ``default_players`` for one name."""
    if not names:
        raise ValueError(f"bots: the list is empty: give one bot per seat, like {example}")
    if players is None:
        players = len(names) if len(names) > 1 else default_players
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise ValueError(f"bots: {len(names)} bots for {players} players: give one bot per "
                         "seat (or one bot for every seat)")
    return tuple(names), players


@dataclass(frozen=True)
class RunArgs:
    """The arguments of a run that every study takes, checked (``run_args``)."""

    seed: Any
    workers: int
    out: Any
    resume: Any
    chunk_format: str | None
    progress: bool | None
    backend: str
    scheduler: Any
    on_chunk: Callable[[int, int, int], None] | None
    t_start: float


def run_args(*, seed: SeedLike, workers: int | None, out: PathLike | None, resume: PathLike | None,
             chunk_format: str | None, progress: bool | None, backend: str, scheduler: Any,
             on_chunk: Callable[[int, int, int], None] | None, t_start: float) -> RunArgs:
    """The checks of the arguments every study takes (``workers`` None: all cores)."""
    if backend not in ("local", "dask"):
        raise ValueError(f"backend must be 'local' or 'dask', got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise ValueError("scheduler is only used with backend='dask'")
    nworkers = (os.cpu_count() or 1) if workers is None else int_arg("workers", workers, 1, 4096)
    if out is not None and resume is not None and Path(out) != Path(resume):
        raise ValueError("give either out (a new run directory) or resume (an existing one), not both")
    if chunk_format is not None and chunk_format not in runs.CHUNK_FORMATS:
        raise ValueError(f"chunk_format must be 'parquet' or 'csv', got {chunk_format!r}")
    return RunArgs(seed, nworkers, out, resume, chunk_format, progress, backend, scheduler,
                   on_chunk, t_start)


def start(plan: RunPlan, args: RunArgs, given: Mapping[str, Any],
          new_settings: Callable[[Any, tuple], Any]) -> tuple[runs.RunDir | None, Any]:
    """``(run, settings)``: on ``resume``, the run directory opened and its settings
    (refused when a setting in ``given`` or the seed differs, or the chunk format);
    otherwise no directory yet and ``new_settings(entropy, spawn_key)`` of the seed."""
    if args.resume is not None:
        run = runs.RunDir.open(args.resume, plan.KIND)
        settings = run.settings(plan.Settings.from_json)
        cmp = dict(given)
        cmp["seed"] = None if args.seed is None else runs.seed_root(args.seed)
        compare_settings(args.resume, settings, cmp)
        run.check_resume_format(args.chunk_format)
        return run, settings
    entropy, spawn_key = runs.seed_root(args.seed)
    return None, new_settings(entropy, spawn_key)


def histories_arg(histories: Any, run: runs.RunDir | None, args: RunArgs, engine: str) -> bool:
    """Whether a run writes hand histories: ``histories`` None means the run's own
    value on resume (False for a new run). It is fixed when the run starts: a resume
    asking for the other value is refused (the run's plays would be recorded in part).
    Histories come from the Python engine: ``engine`` "c" cannot write them."""
    recorded = bool(run.manifest.get("histories")) if args.resume is not None and run is not None \
        else None
    if histories is None:
        histories = bool(recorded)
    if not isinstance(histories, (bool, np.bool_)):
        raise TypeError(f"histories must be True or False, got {histories!r}")
    histories = bool(histories)
    if recorded is not None and histories != recorded:
        raise ValueError(
            f"histories: {args.resume} was run {'with' if recorded else 'without'} hand "
            "histories, fixed when it started; resume it without changing that (or start a "
            f"new run{' with histories' if histories else ''})")
    if histories and args.out is None and args.resume is None:
        raise ValueError("histories are written into a run directory: give out (or resume)")
    if histories and engine == "c":
        raise ValueError("engine c: the C game kernel writes no histories (they come from the "
                         "Python engine, which plays the games when histories are asked for): "
                         "leave engine at auto or python")
    return histories


def default_command(function: str, **args: Any) -> str:
    """The manifest's ``command`` of a run started from Python: the call with the
    arguments given (those that are not None)."""
    return f"rummy51.{function}(" + ", ".join(
        f"{k}={v!r}" for k, v in args.items() if v is not None) + ")"


def execute(plan: RunPlan, study: type[RunResult], settings: Any, run: runs.RunDir | None,
            args: RunArgs, *, command: str, in_c: bool | None, spec_extra: Mapping[str, Any],
            manifest_extra: Mapping[str, Any] | None = None) -> Any:
    """Run the chunks of ``settings.plan()`` (each spec with ``spec_extra``) not yet done
    and return the ``study`` result.

    With ``out`` (and no ``resume``) the run directory is created (``manifest_extra``
    joins its manifest); chunk files already in a directory are checked and kept. The
    chunks run on the plan's ``LOCAL`` executor (processes or threads) or on Dask. Each
    chunk that comes back is checked (``plan.check_cols``), written (``plan.write_chunk``,
    by this process: workers may not share its disk) and counted by the session
    (progress bar, manifest, ``on_chunk``). ``in_c``: whether the C kernel plays (the
    session log says so; None: the question does not arise). The result carries the
    run's facts and is saved into the directory."""
    plan_specs: Any = settings.plan()
    if not isinstance(plan_specs, runs.ChunkPlan):
        listed = list(plan_specs)
        plan_specs = runs.ChunkPlan(len(listed), lambda i: dict(listed[i]),
                                    sum(int(s["n"]) for s in listed))
    specs = plan_specs.with_extra(spec_extra)   # lazy: made one at a time
    if args.out is not None and args.resume is None:
        fmt = runs.chunk_format(args.chunk_format)
        manifest = plan.new_manifest(settings, fmt, command, len(specs))
        manifest.update(manifest_extra or {})
        run = runs.RunDir.create(args.out, manifest)
    found: dict[int, dict] = {}
    if run is not None and (args.resume is not None or run.adopted):
        found = run.scan(specs, plan.chunk_reader(run))
    info = {"backend": args.backend, "workers": args.workers, "command": command}
    if in_c is not None:
        info["engine"] = "c" if in_c else "python"
    session = runs.Session(run, specs, found, info, args.progress, plan.LABEL, args.on_chunk,
                           args.t_start, unit=plan.UNIT)

    def done_cb(spec: dict, res: dict) -> None:
        why = plan.check_cols(spec, res["cols"])
        if why:
            raise RuntimeError(f"chunk {spec['index']} came back wrong: {why}")
        if run is not None:  # this process writes: workers may not share its disk
            plan.write_chunk(run, spec, res)
        found[spec["index"]] = res
        session.chunk_done(spec)

    todo = session.todo
    used = args.workers
    with session:
        if args.backend == "local":
            used = max(1, min(args.workers, len(todo)))
            local = runs.run_threads if plan.LOCAL == "threads" else runs.run_processes
            local(todo, args.workers, plan.play_chunk, done_cb)
        else:
            used = runs.run_dask(todo, args.scheduler, args.workers,
                                 f"rummy51-{plan.KIND}-{settings.config_hash}", done_cb,
                                 task=plan.play_chunk)
    elapsed = session.elapsed
    result = study._from_results(settings, found, chunks=len(specs),
                                 chunks_done=len(session.done), elapsed=elapsed,
                                 deals_run=todo.units(), chunks_run=len(todo),
                                 workers=used if todo else args.workers, backend=args.backend,
                                 directory=None if run is None else str(run.path))
    if run is not None:
        result.save(run.path, fmt=run.fmt)
    fields = {"records_format": None if run is None else run.fmt} if plan.RECORDS else {}
    session.finish(elapsed, **fields)
    return result


# --------------------------------------------------------------------------- chunk files
def write_chunk_file(run: runs.RunDir, spec: Mapping, res: Mapping, layout: runs.ChunkLayout,
                     first: str) -> None:
    """A chunk's columns into its file, with its facts (``first``: the spec's key of its
    first game, ``deal0`` or ``game0``). Its hand histories (``res["histories"]``), if
    any, are written first and their count and checksum go into the chunk file's facts:
    the chunk file, which marks the chunk done, vouches for them."""
    meta = {"chunk": spec["index"], "config_hash": run.hash, first: spec[first],
            "n": spec["n"], "seconds": round(float(res["seconds"]), 4),
            "turns": int(res["turns"])}
    if "histories" in res:
        meta["histories"] = runs.write_histories(run.path, spec["index"], res["histories"])
    runs.write_chunk(run.chunk_path(spec["index"]), run.fmt, layout, res["cols"], meta)


class ChunkFiles:
    """A records plan's ``write_chunk`` and ``chunk_reader`` (``RunPlan``) from its chunk
    layouts (``fixed`` for fixed seats, ``arranged`` with the ``arrangement`` column, by
    the spec's ``seats``), the spec's key of its first game (``first``: ``deal0`` or
    ``game0``) and its ``check_cols``. The games studies of both games keep their chunk
    files alike through it."""

    def __init__(self, fixed: runs.ChunkLayout, arranged: runs.ChunkLayout, first: str,
                 check: Callable[[Mapping, Mapping], str | None]) -> None:
        self.fixed, self.arranged, self.first, self.check = fixed, arranged, first, check

    def layout(self, spec: Mapping) -> runs.ChunkLayout:
        return self.fixed if spec.get("seats", "fixed") == "fixed" else self.arranged

    def write_chunk(self, run: runs.RunDir, spec: Mapping, res: Mapping) -> None:
        """A chunk's file (after its hand histories, if any: the chunk file marks it done
        and holds their checksum)."""
        write_chunk_file(run, spec, res, self.layout(spec), self.first)

    def chunk_reader(self, run: runs.RunDir) -> Callable[[Path, Mapping], dict]:
        """Reads a chunk file of ``run`` back to its verified result (``cols``,
        ``seconds``, ``turns``)."""
        def read(path: Path, spec: Mapping) -> dict:
            return read_chunk_file(run, path, spec, self.layout(spec), self.first, self.check,
                                   plays(spec))
        return read


def read_chunk_file(run: runs.RunDir, path: Path, spec: Mapping, layout: runs.ChunkLayout,
                    first: str, check: Callable[[Mapping, Mapping], str | None],
                    plays: int | None = None) -> dict:
    """A chunk file back to its verified result (``cols``, ``seconds``, ``turns``):
    ``ValueError`` when it is not the chunk's (``check`` says why). In a run made with
    histories the chunk's history file is verified too (``plays``: how many it holds);
    a bad one raises ``runs.DamagedFile`` naming it."""
    meta, raw = runs.read_chunk(path, run.fmt, layout, run.hash,
                                {"chunk": spec["index"], first: spec[first], "n": spec["n"]})
    cols = {c: raw[c].astype(layout.dtypes[c]) for c in layout.columns}
    why = check(spec, cols)
    if why:
        raise ValueError(why)
    if run.manifest.get("histories"):
        runs.check_histories(run, spec["index"], meta, spec["n"] if plays is None else plays)
    return {"index": spec["index"], "cols": cols, "seconds": float(meta.get("seconds", 0.0)),
            "turns": int(meta.get("turns", 0))}


# --------------------------------------------------------------------------- seeds
def game_seeds(entropy: int | Sequence[int], spawn_key: Sequence[int], chunk: int, j: int,
               players: int) -> tuple[np.random.SeedSequence, list[np.random.SeedSequence]]:
    """``(game_seed, [bot_seed per seat])`` of the ``j``-th game (a deal of Rummy 51, a
    game of Carousel) of chunk ``chunk``: children ``(j, 0)`` and ``(j, 1 + s)`` of the
    chunk's SeedSequence. The game seed shuffles; each listed bot keeps its own seed
    whatever seat an arrangement gives it."""
    base = tuple(runs.chunk_seed(entropy, spawn_key, chunk).spawn_key) + (int(j),)
    game = np.random.SeedSequence(entropy, spawn_key=base + (0,))
    bots = [np.random.SeedSequence(entropy, spawn_key=base + (1 + s,)) for s in range(players)]
    return game, bots


# --------------------------------------------------------------------------- histories
def plays(spec: Mapping) -> int:
    """The plays (and hand histories) of a chunk: its games under every arrangement."""
    return int(spec["n"]) * len(arrangements(spec["players"], spec.get("seats", "fixed")))


def read_run_histories(plan: RunPlan, path: PathLike,
                       chunks: Iterable[int] | None = None) -> Iterator[dict]:
    """The hand histories of a run directory of ``plan``'s kind written with
    ``histories=True`` (``histories/chunk-NNNNNN.jsonl.gz``): an iterator of dicts, one
    per play, in the order of the records; ``chunks``: only these chunk indices. Each
    file is verified against its chunk file (count and checksum). A run without
    histories, a chunk not finished, a missing or damaged file raise ``ValueError``
    naming it: a play is never skipped or renumbered."""
    files = runs.chunk_histories(path, plan.KIND, chunks)   # the run is checked here

    def lines() -> Iterator[dict]:
        for i, texts in files:
            f = runs.histories_path(path, i)
            for n, line in enumerate(texts, 1):
                d = runs.parse_line(line, f"{f} line {n}")
                if not isinstance(d, dict):
                    raise ValueError(f"{f} line {n} is not a history (a JSON object)")
                yield d
    return lines()


# --------------------------------------------------------------------------- the result
@dataclass(frozen=True, eq=False)
class ChunkStudy(RunFacts, ABC):
    """What the results of chunked game studies share: the records, the table (players and
    their bots), building from chunk results, the final files of a run directory and
    reading them back. A subclass (a frozen dataclass) sets ``_plan`` and gives
    ``_settings()``, ``_make(settings, records, **facts)``, ``meta()``, ``summary()`` and
    ``overview()``."""

    records: Any
    players: int
    bots: tuple[str, ...]

    _plan: ClassVar[RecordsPlan]

    @abstractmethod
    def _settings(self) -> Any:
        """The plan's own (see the class docstring)."""

    @classmethod
    @abstractmethod
    def _make(cls, settings: Any, records: pd.DataFrame, **kw: Any) -> ChunkStudy:
        """The result from its settings, records and run facts."""

    @abstractmethod
    def meta(self) -> dict:
        """The plan's own (see the class docstring)."""

    @abstractmethod
    def summary(self, by: str | None = None) -> pd.DataFrame:
        """The plan's own (see the class docstring)."""

    @abstractmethod
    def overview(self) -> pd.DataFrame:
        """The plan's own (see the class docstring)."""

    @classmethod
    def _check_records(cls, settings: Any, specs: Sequence[dict],
                       cols: Mapping[str, np.ndarray]) -> str | None:
        """Why a finished run's records file cannot be its records (None if it can)."""
        return None

    def same_records(self, other: ChunkStudy) -> bool:
        """Whether ``other`` holds exactly the same settings and records."""
        return (self._settings() == other._settings()
                and self.records.reset_index(drop=True).equals(other.records.reset_index(drop=True)))

    def to_dict(self) -> dict:
        """``meta``, ``overview`` and ``summary`` (all groups) as JSON-able data (the
        records are too many: they are in the records file, or ``records``)."""
        return {"meta": self.meta(), "overview": json_records(self.overview())[0],
                "summary": json_records(self.summary())}

    @classmethod
    def _from_results(cls, settings: Any, found: Mapping[int, dict], **kw: Any) -> ChunkStudy:
        plan = cls._plan
        order = sorted(found)
        cols = {c: np.concatenate([found[i]["cols"][c] for i in order])
                if order else np.zeros(0, plan.DTYPES[c]) for c in plan.record_columns(settings)}
        kw.setdefault("compute_seconds", float(sum(found[i]["seconds"] for i in order)))
        return cls._make(settings, plan.frame(cols, settings), **kw)

    def save(self, path: PathLike, fmt: str | None = None) -> Path:
        """Write the final files into ``path`` (created if needed): ``records.parquet``
        (``fmt="parquet"``, the default with pyarrow) or ``records.csv``,
        ``summary.csv``, ``overview.csv`` and ``results.json``; and a ``manifest.json``
        if there is none (a study computed without ``out``)."""
        plan = self._plan
        path = Path(path)
        runs.make_dirs(path)
        mf = path / "manifest.json"
        if mf.exists():
            manifest = plan.read_manifest(path)
            if manifest.get("config_hash") != self._settings().config_hash:
                raise ValueError(f"{path} holds a run with other settings: choose another directory")
            fmt = fmt or manifest.get("chunk_format")
        if fmt is not None and fmt not in runs.CHUNK_FORMATS:
            raise ValueError(f"fmt must be 'parquet' or 'csv', got {fmt!r}")
        fmt = runs.chunk_format(fmt)
        if not mf.exists():
            manifest = plan.new_manifest(self._settings(), None, None, self.chunks,
                                         status="finished" if self.complete else "partial")
            manifest["records_format"] = fmt
            runs.atomic_write_text(mf, json.dumps(manifest, indent=1) + "\n")
        other = path / ("records.csv" if fmt == "parquet" else "records.parquet")
        if other.exists():
            other.unlink()
        target = path / f"records.{fmt}"
        if fmt == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.Table.from_pandas(self.records, preserve_index=False)
            runs.atomic_write_file(target, lambda f: pq.write_table(table, f))
        else:
            runs.atomic_write_text(target, self.records.to_csv(index=False))
        runs.atomic_write_text(path / "summary.csv", self.summary().to_csv(index=False))
        runs.atomic_write_text(path / "overview.csv", self.overview().to_csv(index=False))
        runs.atomic_write_text(path / "results.json", json.dumps(self.to_dict(), indent=1) + "\n")
        return path

    @classmethod
    def load(cls, path: PathLike, partial: bool = False) -> ChunkStudy:
        """Read a run directory back. A finished run is read from its records file; an
        unfinished one is refused unless ``partial=True``, which reads the verified chunk
        files found (``complete`` is then False)."""
        import pandas as pd

        plan = cls._plan
        path = Path(path)
        manifest = plan.read_manifest(path)
        try:
            settings = plan.Settings.from_json(manifest["settings"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{path / 'manifest.json'} has bad settings ({e})") from None
        specs = settings.plan()
        meta: dict = {}
        res = path / "results.json"
        if res.exists():
            try:
                meta = json.loads(res.read_text(encoding="utf-8")).get("meta", {})
            except (OSError, ValueError):
                meta = {}
        files = [path / "records.parquet", path / "records.csv"]
        rec = next((f for f in files if f.exists()), None)
        if manifest.get("status") == "finished" and rec is not None:
            try:
                df = pd.read_parquet(rec) if rec.suffix == ".parquet" else pd.read_csv(rec)
                cols = plan.cols_of(df)
            except Exception as e:
                raise ValueError(f"{rec} is unreadable ({type(e).__name__}: {e}): run resume on "
                                 f"{path} to rebuild it from the chunk files") from None
            why = cls._check_records(settings, specs, cols)
            if why:
                raise ValueError(f"{rec} is damaged ({why}): run resume on {path} to rebuild it")
            done = min(len(specs), meta.get("chunks", {}).get("done_count", len(specs)))
            if settings.games == plan.units(settings, cols):
                done = len(specs)
            return cls._make(settings, plan.frame(cols, settings), chunks=len(specs),
                             chunks_done=done,
                             elapsed=meta.get("elapsed_s") or float("nan"),
                             compute_seconds=meta.get("compute_s") or float("nan"),
                             workers=meta.get("workers", 1), backend=meta.get("backend", "local"),
                             directory=str(path))
        if not partial and manifest.get("status") == "finished":
            raise ValueError(f"{path} has no records file: run resume on it (--resume {path}) to "
                             "rebuild it from the chunk files")
        if not partial:
            raise unfinished(path)
        run = runs.RunDir.open(path, plan.KIND)
        found = run.scan(specs, plan.chunk_reader(run), rename=False)
        return cls._from_results(settings, found, chunks=len(specs), chunks_done=len(found),
                                 directory=str(path))

