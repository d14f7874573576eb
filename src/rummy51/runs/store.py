"""Run directories: a manifest, one verified file per finished chunk, final tables.

::

    DIR/manifest.json                  kind, settings and their hash, seed, versions,
                                       status, the chunks done, one entry per session
    DIR/chunks/chunk-000012.parquet    one per finished chunk (or .csv), written atomically
    DIR/...                            the study's final tables, written at the end

Every file is written to a temporary name and renamed into place (``atomic_write_text``,
``write_chunk``), so a run killed at any moment leaves whole files only; chunk files
are fsync'ed and carry a SHA-256 of their columns and the run's settings hash, and
``RunDir.scan`` verifies each one on resume (a damaged file is kept as ``*.damaged``
and its chunk run again). A study describes its chunk files with a ``ChunkLayout``
(integer columns and their storage dtypes) and never opens the files itself.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import platform
import threading
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["FORMAT_VERSION", "CHUNK_FORMATS", "ChunkWarning", "ChunkLayout", "RunDir",
           "RunDirError", "DamagedFile", "chunk_meta", "fs_error", "atomic_write_file", "make_dirs",
           "atomic_write_text", "replace_durably", "temp_path", "write_chunk", "read_chunk",
           "new_manifest", "chunk_format", "now", "versions", "ranges", "unranges",
           "has_pyarrow"]

#: The run-directory format this rummy51 writes and reads.
FORMAT_VERSION = 1
CHUNK_FORMATS = ("parquet", "csv")


class ChunkWarning(UserWarning):
    """A chunk file of a run directory was damaged or partial and is run again."""


class DamagedFile(ValueError):
    """A file of a run directory is missing, cut short, altered or foreign: ``path``
    names it. ``RunDir.scan`` keeps it aside as ``*.damaged`` and runs its chunk again."""

    def __init__(self, path: str | os.PathLike, message: str) -> None:
        super().__init__(message)
        self.path = Path(path)


class RunDirError(ValueError):
    """A run directory cannot be written or read (a full disk, a read-only or missing
    directory, ...). A ``ValueError``, so the command line says it in one line."""


def fs_error(e: OSError, what: str) -> RunDirError:
    """The one-line error for an ``OSError`` while doing ``what`` (``"write DIR/x"``)."""
    reason = e.strerror or type(e).__name__
    hint = ""
    if e.errno in (28, 27, 122):   # ENOSPC, EFBIG, EDQUOT
        hint = "; free some space, then continue the run with resume"
    elif e.errno in (13, 1, 30):   # EACCES, EPERM, EROFS
        hint = "; choose a directory you can write to"
    return RunDirError(f"cannot {what}: {reason}{hint}")


# --------------------------------------------------------------------------- small helpers
def ranges(indices: Iterable[int]) -> list[list[int]]:
    """``[0, 1, 2, 5, 7, 8]`` -> ``[[0, 2], [5, 5], [7, 8]]`` (inclusive ranges)."""
    out: list[list[int]] = []
    for i in sorted(indices):
        if out and i == out[-1][1] + 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def unranges(rs: Iterable[Sequence[int]]) -> list[int]:
    return [i for a, b in rs for i in range(a, b + 1)]


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def versions() -> dict[str, str]:
    """The versions that made a run (rummy51, numpy, python, the platform, ...)."""
    from .._version import __version__

    out = {"rummy51": __version__, "numpy": np.__version__,
           "python": platform.python_version(), "platform": platform.platform()}
    from importlib import metadata

    for dist in ("pandas", "pyarrow", "tqdm", "dask", "distributed"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return out


def has_pyarrow() -> bool:
    """Whether pyarrow is installed (without importing it: that takes a while)."""
    from importlib.util import find_spec

    return find_spec("pyarrow") is not None


def chunk_format(fmt: str | None) -> str:
    """The chunk format of a new run: ``fmt``, or parquet by default."""
    if fmt is None:
        fmt = "parquet" if has_pyarrow() else "csv"
    if fmt not in CHUNK_FORMATS:
        raise ValueError(f"chunk format must be 'parquet' or 'csv', got {fmt!r}")
    if fmt == "parquet" and not has_pyarrow():
        raise ValueError("chunk format 'parquet' needs pyarrow: pip install pyarrow")
    return fmt


# --------------------------------------------------------------------------- atomic files
def replace_durably(tmp: Path, path: Path) -> None:
    """Rename ``tmp`` over ``path`` and fsync the directory (best effort)."""
    os.replace(tmp, path)
    try:  # make the rename durable (not every file system allows it)
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


def temp_path(path: Path) -> Path:
    """The temporary name a file is written under before it is renamed to ``path``."""
    return path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")


def atomic_write_text(path: Path, text: str, durable: bool = True) -> None:
    """Write ``text`` to a temporary file and rename it over ``path``: a reader (or a
    run killed at any moment) sees the old file or the new one, never a part. With
    ``durable`` the data is also fsync'ed (it survives a power cut)."""
    path = Path(path)
    tmp = temp_path(path)
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        if durable:
            replace_durably(tmp, path)
        else:
            os.replace(tmp, path)
    except BaseException as e:
        _discard(tmp)
        if isinstance(e, OSError):
            raise fs_error(e, f"write {path}") from None
        raise


def atomic_write_file(path: Path, write: Callable[[Any], None]) -> None:
    """Like ``atomic_write_text`` for binary data: ``write(f)`` writes to an open binary
    file; it is fsync'ed and renamed over ``path``."""
    path = Path(path)
    tmp = temp_path(path)
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        replace_durably(tmp, path)
    except BaseException as e:
        _discard(tmp)
        if isinstance(e, OSError):
            raise fs_error(e, f"write {path}") from None
        raise


def make_dirs(path: Path) -> None:
    """``mkdir -p path``, or the one-line error saying why not."""
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise fs_error(e, f"create the directory {path}") from None


def _discard(tmp: Path) -> None:
    try:
        tmp.unlink()
    except OSError:
        pass


# --------------------------------------------------------------------------- chunk files
@dataclass(frozen=True)
class ChunkLayout:
    """The columns of a study's chunk files: integer columns (in order), the dtype
    each is stored with in Parquet, and the tag of the CSV header line."""

    columns: tuple[str, ...]
    dtypes: Mapping[str, Any]
    csv_tag: str

    def digest(self, cols: Mapping[str, np.ndarray]) -> str:
        """SHA-256 of the columns, each as little-endian int64, in order."""
        h = hashlib.sha256()
        for c in self.columns:
            h.update(np.ascontiguousarray(cols[c], dtype="<i8").tobytes())
        return h.hexdigest()


def write_chunk(path: Path, fmt: str, layout: ChunkLayout, cols: Mapping[str, np.ndarray],
                meta: Mapping[str, Any]) -> None:
    """Write one chunk file atomically and durably. ``meta`` (JSON-able) is stored with
    the rows, plus ``rows``, ``sha256`` and the rummy51 version."""
    from .._version import __version__

    n = len(cols[layout.columns[0]])
    meta = dict(meta, rows=int(n), sha256=layout.digest(cols), rummy51=__version__)
    tmp = temp_path(path)
    try:
        if fmt == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.table({c: np.asarray(cols[c]).astype(layout.dtypes[c])
                              for c in layout.columns}, metadata={"rummy51": json.dumps(meta)})
            with open(tmp, "wb") as f:
                pq.write_table(table, f)
                f.flush()
                os.fsync(f.fileno())
        else:
            body = np.column_stack([np.asarray(cols[c], np.int64) for c in layout.columns]) \
                if n else np.zeros((0, len(layout.columns)), np.int64)
            lines = [layout.csv_tag + json.dumps(meta, separators=(",", ":")),
                     ",".join(layout.columns)]
            lines += [",".join(map(str, r)) for r in body.tolist()]
            with open(tmp, "w", encoding="ascii", newline="\n") as f:
                f.write("\n".join(lines) + "\n")
                f.flush()
                os.fsync(f.fileno())
    except BaseException as e:
        _discard(tmp)
        if isinstance(e, OSError):
            raise fs_error(e, f"write {path}") from None
        raise
    try:
        replace_durably(tmp, path)
    except OSError as e:
        _discard(tmp)
        raise fs_error(e, f"write {path}") from None


def read_chunk(path: Path, fmt: str, layout: ChunkLayout, config_hash: str,
               expect: Mapping[str, Any]) -> tuple[dict, dict[str, np.ndarray]]:
    """``(meta, columns)`` of a chunk file, verified: its settings hash, the ``expect``-ed
    meta values, its row count and checksum. Columns come back as int64. A damaged,
    partial or foreign file raises ``ValueError`` saying why."""
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            table = pq.read_table(path)
            raw = (table.schema.metadata or {}).get(b"rummy51")
            if raw is None:
                raise ValueError("no rummy51 metadata")
            meta = json.loads(raw)
            cols = {c: table.column(c).to_numpy().astype(np.int64) for c in layout.columns}
        else:
            with open(path, encoding="ascii") as f:
                head = f.readline()
                if not head.startswith(layout.csv_tag):
                    raise ValueError("no rummy51 header line")
                meta = json.loads(head[len(layout.csv_tag):])
                if f.readline().strip() != ",".join(layout.columns):
                    raise ValueError("no column header")
                body = np.loadtxt(f, delimiter=",", dtype=np.int64, ndmin=2)
            k = len(layout.columns)
            if body.size == 0:
                body = np.zeros((0, k), np.int64)
            if body.shape[1] != k:
                raise ValueError(f"rows do not have {k} columns")
            cols = {c: body[:, j] for j, c in enumerate(layout.columns)}
    except ValueError:
        raise
    except Exception as e:  # unreadable: truncated parquet, bad bytes, missing column, ...
        raise ValueError(f"unreadable ({type(e).__name__}: {e})") from None
    if not isinstance(meta, dict):
        raise ValueError("its metadata is not a JSON object")
    if meta.get("config_hash") != config_hash:
        raise ValueError("it belongs to a run with other settings")
    for key, want in expect.items():
        if meta.get(key) != want:
            raise ValueError(f"its {key} is {meta.get(key)!r}, not {want!r}")
    rows = len(cols[layout.columns[0]])
    if meta.get("rows") != rows:
        raise ValueError(f"{rows} rows instead of {meta.get('rows')}")
    if meta.get("sha256") != layout.digest(cols):
        raise ValueError("checksum mismatch")
    return meta, cols


# --------------------------------------------------------------------------- run directory
def new_manifest(kind: str, settings_json: Mapping, config_hash: str, seed: Mapping,
                 fmt: str | None, command: str | None, n_chunks: int,
                 status: str = "running", **extra: Any) -> dict:
    """A fresh manifest of a ``kind`` run (``extra``: the study's own fields, such as
    its counts, placed before the versions)."""
    manifest = {
        "kind": kind,
        "format_version": FORMAT_VERSION,
        "settings": dict(settings_json),
        "config_hash": config_hash,
        "seed": dict(seed),
        "chunk_format": fmt,
        "chunks": {"total": n_chunks, "done_count": 0, "done": []},
    }
    manifest.update(extra)
    manifest.update(versions=versions(), command=command, created=now(), updated=now(),
                    status=status, sessions=[])
    return manifest


def chunk_meta(path: Path) -> dict | None:
    """The metadata of a chunk file, read without its rows (None: no such file, or none
    readable). Not verified: ``read_chunk`` does that."""
    try:
        if path.suffix == ".parquet":
            import pyarrow.parquet as pq

            raw = (pq.read_schema(path).metadata or {}).get(b"rummy51")
            meta = json.loads(raw) if raw else {}
        else:
            with open(path, encoding="ascii") as f:
                head = f.readline(1 << 20)
            meta = json.loads(head.split(" ", 2)[2]) if head.startswith("# rummy51") else {}
    except Exception:
        return None
    return meta if isinstance(meta, dict) else None


def _chunk_meta_hash(path: Path) -> str | None:
    """The settings hash a chunk file's metadata names (None if it names none)."""
    meta = chunk_meta(path)
    return None if meta is None else meta.get("config_hash")


def _orphan_chunk_hashes(path: Path) -> set | None:
    """For a directory holding only ``chunks/`` (and temporary or final files of a run)
    but no manifest: the settings hashes its chunk files name; None if it is not such a
    directory."""
    chunks = path / "chunks"
    if not path.is_dir() or not chunks.is_dir():
        return None
    files = [p for p in chunks.iterdir() if p.name.startswith("chunk-")
             and p.suffix in (".parquet", ".csv")]
    if not files:
        return None
    return {_chunk_meta_hash(p) for p in files}


def _a(word: object) -> str:
    """The article of a word: ``an 'odds'``, ``a 'games'``."""
    return "an" if isinstance(word, str) and word[:1].lower() in "aeiou" else "a"


class RunDir:
    """A run directory of one ``kind``: its manifest and chunk files.

    ``RunDir.create(path, manifest)`` starts one (the directory must be new or empty);
    ``RunDir.open(path, kind)`` opens one to resume or read; ``settings(parse)`` turns
    the manifest's settings into the study's object and checks their hash;
    ``scan(specs, read)`` verifies the finished chunk files."""

    def __init__(self, path: Path, manifest: dict) -> None:
        #: whether ``create`` took over the chunk files of a run whose manifest was lost
        self.adopted = False
        self.path = Path(path)
        self.manifest = manifest
        self.kind = manifest["kind"]
        self.fmt = manifest.get("chunk_format") or "csv"
        self.hash: str = manifest.get("config_hash") or ""
        self.lock = threading.Lock()
        self._lock_fd: int | None = None

    @property
    def chunks(self) -> Path:
        return self.path / "chunks"

    def chunk_path(self, index: int) -> Path:
        return self.chunks / f"chunk-{index:06d}.{self.fmt}"

    @classmethod
    def create(cls, path: str | os.PathLike, manifest: dict) -> RunDir:
        """A new run directory at ``path`` (new or empty). A directory whose
        ``manifest.json`` was lost but whose chunk files belong to these very settings
        (their settings hash) is taken over: its chunk files count as done once verified
        (``adopted``), so giving the run's command again recovers it."""
        path = Path(path)
        if (path / "manifest.json").exists():
            raise ValueError(f"{path} already holds a run (manifest.json): continue it with "
                             f"resume (--resume {path}) or choose another directory")
        json.dumps(manifest)    # a manifest that cannot be written fails before any file
        adopt = False
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            hashes = _orphan_chunk_hashes(path)
            if hashes is None:
                raise ValueError(f"{path} is not an empty directory: choose a new directory "
                                 "for the run")
            if hashes != {manifest.get("config_hash")}:
                raise ValueError(
                    f"{path} holds chunk files of a run but no manifest.json, and they were "
                    "made with other settings: give the command that made them again with "
                    f"--out {path} to recover them, or choose another directory")
            adopt = True
        try:
            (path / "chunks").mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise fs_error(e, f"create the run directory {path}") from None
        run = cls(path, manifest)
        run.adopted = adopt
        run.write_manifest()
        return run

    @staticmethod
    def read_manifest(path: str | os.PathLike, kind: str) -> dict:
        """The manifest of a ``kind`` run directory (``ValueError`` naming what is wrong)."""
        path = Path(path)
        if not path.is_dir():
            raise ValueError(f"{path} is not a run directory (it does not exist)")
        mf = path / "manifest.json"
        try:
            with open(mf, encoding="utf-8") as f:
                manifest = json.load(f)
        except FileNotFoundError:
            raise ValueError(f"{path} is not a run directory: it has no manifest.json") from None
        except (OSError, ValueError) as e:
            raise ValueError(f"{mf} is unreadable ({e}): the run directory is damaged") from None
        if not isinstance(manifest, dict):
            raise ValueError(f"{mf} is not a JSON object: the run directory is damaged")
        if manifest.get("kind") != kind:
            have = manifest.get("kind")
            raise ValueError(f"{path} holds {_a(have)} {have!r} run, not {_a(kind)} {kind!r} run")
        if manifest.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"{path} has run-directory format {manifest.get('format_version')!r}; "
                             f"this rummy51 reads format {FORMAT_VERSION}")
        return manifest

    @classmethod
    def open(cls, path: str | os.PathLike, kind: str) -> RunDir:
        return cls(Path(path), cls.read_manifest(path, kind))

    def settings(self, parse: Callable[[Mapping], Any]) -> Any:
        """``parse(manifest["settings"])``, checked against the manifest's settings hash
        (the parsed object's ``config_hash``)."""
        where = self.path / "manifest.json"
        try:
            settings = parse(self.manifest["settings"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{where} has bad settings ({e})") from None
        if settings.config_hash != self.hash:
            raise ValueError(f"{where}: settings do not match their hash (the manifest was edited)")
        return settings

    def check_resume_format(self, fmt: str | None) -> None:
        if fmt is not None and fmt != self.fmt:
            raise ValueError(f"cannot resume {self.path}: its chunks are {self.fmt} files, not {fmt}")
        if self.fmt == "parquet" and not has_pyarrow():
            raise ValueError(f"{self.path} holds parquet chunks: install pyarrow to resume it")

    def write_manifest(self, durable: bool = True) -> None:
        # the chunk files are the record of what is done (each is fsync'ed and verified
        # on resume); the manifest's list of done chunks is a summary, so the updates
        # after each chunk skip the fsync
        with self.lock:
            self.manifest["updated"] = now()
            atomic_write_text(self.path / "manifest.json",
                              json.dumps(self.manifest, indent=1, sort_keys=False) + "\n",
                              durable=durable)

    def take(self) -> None:
        """Hold the run directory for this process (an exclusive lock on ``DIR/.lock``,
        released when the process ends, however it ends): a second process running the
        same directory is refused, naming the holder. Taking it again is a no-op."""
        if getattr(self, "_lock_fd", None) is not None:
            return
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock
            return
        lock = self.path / ".lock"
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise fs_error(e, f"lock {self.path}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                holder = os.read(fd, 200).decode("utf-8", "replace").strip() or "another process"
            except OSError:
                holder = "another process"
            os.close(fd)
            raise RunDirError(f"{self.path} is being run by {holder}: wait for it to end "
                              "(or stop it) before resuming") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"process {os.getpid()} since {now()}".encode())
        self._lock_fd = fd

    def release(self) -> None:
        """Let go of the directory (``take``)."""
        fd = getattr(self, "_lock_fd", None)
        if fd is not None:
            self._lock_fd = None
            try:
                os.ftruncate(fd, 0)
            except OSError:
                pass
            os.close(fd)

    def clean_temp(self) -> None:
        """Remove the temporary files of interrupted writes (never a finished file)."""
        for folder in (self.path, self.chunks, self.path / "histories"):
            for tmp in folder.glob(".*.tmp-*"):
                try:
                    tmp.unlink()
                except OSError:
                    pass

    def scan(self, specs: list[dict], read: Callable[[Path, dict], Any],
             rename: bool = True) -> dict[int, Any]:
        """``{index: read(path, spec)}`` of every finished chunk file that verifies.
        With ``rename`` (resuming) the temporary files of interrupted writes are
        removed and a damaged file is renamed ``*.damaged`` (kept, never deleted) with
        a ChunkWarning, so its chunk runs again; without, damaged files are skipped.

        With ``rename`` the directory is taken first (``take``): a process still running
        it refuses the resume before anything is removed (its files being written are
        temporary files too; removing one made that process fail and let the second
        one in). The lock is let go if the scan fails; otherwise the session keeps it."""
        if not rename:
            return self._scan(specs, read, False)
        self.take()
        try:
            return self._scan(specs, read, True)
        except BaseException:
            self.release()
            raise

    def _scan(self, specs: list[dict], read: Callable[[Path, dict], Any],
              rename: bool) -> dict[int, Any]:
        if rename:
            self.chunks.mkdir(parents=True, exist_ok=True)
            self.clean_temp()
        found: dict[int, Any] = {}
        for spec in self._present(specs):
            path = self.chunk_path(spec["index"])
            try:
                found[spec["index"]] = read(path, spec)
            except ValueError as e:
                if not rename:
                    continue
                if isinstance(e, DamagedFile) and e.path != path:
                    # a file that belongs to the chunk (its histories) is bad: that file
                    # is kept aside, and the chunk runs again (rewriting both)
                    self._set_aside(e.path, spec["index"], e)
                    continue
                k = 0
                while True:
                    bad = path.with_name(path.name + (f".damaged-{k}" if k else ".damaged"))
                    if not bad.exists():
                        break
                    k += 1
                os.replace(path, bad)
                warnings.warn(f"chunk {spec['index']} in {path.parent} is damaged ({e}); kept as "
                              f"{bad.name} and run again", ChunkWarning, stacklevel=3)
        return found

    def _present(self, specs: Sequence[dict]) -> list[dict]:
        """The specs (spec ``i`` has index ``i``) whose chunk file is present, in order:
        from the directory's listing, so a plan of billions of chunks costs nothing."""
        try:
            names = [p.name for p in self.chunks.iterdir()]
        except FileNotFoundError:
            return []
        except OSError as e:
            raise fs_error(e, f"read the directory {self.chunks}") from None
        suffix = f".{self.fmt}"
        idx = []
        for name in names:
            digits = name[len("chunk-"):-len(suffix)] if name.endswith(suffix) else ""
            if name.startswith("chunk-") and digits.isdigit() and digits.isascii():
                i = int(digits)
                if i < len(specs) and self.chunk_path(i).name == name:
                    idx.append(i)
        out = []
        for i in sorted(idx):
            spec = specs[i]
            if spec["index"] != i:   # pragma: no cover - every plan numbers its chunks so
                raise RuntimeError(f"chunk spec {i} has index {spec['index']}")
            out.append(spec)
        return out

    @staticmethod
    def _set_aside(path: Path, index: int, e: ValueError) -> None:
        if not path.exists():
            warnings.warn(f"chunk {index}: {e}; the chunk runs again", ChunkWarning, stacklevel=4)
            return
        k = 0
        while True:
            bad = path.with_name(path.name + (f".damaged-{k}" if k else ".damaged"))
            if not bad.exists():
                break
            k += 1
        os.replace(path, bad)
        warnings.warn(f"chunk {index}: {e}; kept as {bad.name} and the chunk runs again",
                      ChunkWarning, stacklevel=4)
