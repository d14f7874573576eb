"""Hand histories of a run directory: part of their chunk.

A run made with histories keeps every play's history (one JSON object a line, gzip)::

    DIR/histories/chunk-000012.jsonl.gz    the histories of chunk 12, in its records' order

The file is written (atomically, fsync'ed) before its chunk file, and the chunk file's
metadata holds its line count and the SHA-256 of its text (``histories``: ``lines``,
``sha256``): the chunk file, which marks the chunk done, vouches for its histories. So a
history is verified wherever its chunk is: on resume (a damaged or missing history
makes its chunk run again, the bad file kept aside as ``*.damaged``) and on read
(``chunk_histories`` refuses it, naming the file). Runs made before the checksum
existed carry none: their files are checked for whole gzip streams only.

This module knows no game: the lines are text, parsed by the study or the analysis.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..cards import shown
from .store import DamagedFile, RunDir, atomic_write_file, chunk_meta, make_dirs

__all__ = ["HISTORIES_DIR", "MAX_HISTORY_BYTES", "histories_path", "write_histories", "parse_line",
           "MAX_HISTORY_TEXT", "read_history_text",
           "read_histories_file", "check_histories", "chunk_histories"]

#: The folder of a run directory that holds the histories.
HISTORIES_DIR = "histories"
#: Most bytes one chunk's histories may decompress to (a chunk is at most a million
#: plays of a few kilobytes; more is not a file this package wrote).
MAX_HISTORY_BYTES = 8 * 2**30


def histories_path(run_path: str | os.PathLike, index: int) -> Path:
    """``DIR/histories/chunk-NNNNNN.jsonl.gz``: the histories of chunk ``index``."""
    return Path(run_path) / HISTORIES_DIR / f"chunk-{int(index):06d}.jsonl.gz"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_histories(run_path: str | Path, index: int, lines: Sequence[str]) -> dict:
    """Write chunk ``index``'s histories (one JSON text each) atomically and durably;
    returns what the chunk file's metadata keeps of them (``lines``, ``sha256`` of the
    uncompressed text)."""
    data = ("\n".join(lines) + "\n").encode("utf-8") if lines else b""
    make_dirs(Path(run_path) / HISTORIES_DIR)
    packed = gzip.compress(data, mtime=0)
    atomic_write_file(histories_path(run_path, index), lambda f: f.write(packed))
    return {"lines": len(lines), "sha256": _digest(data)}


def _decompress(path: Path) -> bytes:
    try:
        packed = path.read_bytes()
    except FileNotFoundError:
        raise DamagedFile(path, f"{path} is missing or damaged (it does not exist)") from None
    except OSError as e:
        raise DamagedFile(path, f"{path} is missing or damaged ({e.strerror or e})") from None
    try:
        d = zlib.decompressobj(wbits=31)        # gzip, one member
        data = d.decompress(packed, MAX_HISTORY_BYTES)
        if d.unconsumed_tail:
            raise DamagedFile(path, f"{path} is missing or damaged (it decompresses to more "
                                    f"than {MAX_HISTORY_BYTES} bytes)")
        if not d.eof:
            raise EOFError("the gzip stream is cut short")
    except (zlib.error, EOFError) as e:
        raise DamagedFile(path, f"{path} is missing or damaged ({type(e).__name__}: "
                                f"{str(e)[:120]})") from None
    return data


def read_histories_file(path: str | Path, meta: Mapping[str, Any] | None) -> list[str]:
    """The verified lines of a history file: ``meta`` (the chunk file's ``histories``)
    gives their count and checksum (None: a run made before they were kept; the gzip
    stream is checked only). ``DamagedFile`` (a ``ValueError``) names a missing, cut,
    altered or foreign file."""
    path = Path(path)
    data = _decompress(path)
    if meta is not None:
        if not isinstance(meta, Mapping) or "sha256" not in meta:
            raise DamagedFile(path, f"{path}: its chunk file's record of it is damaged")
        if _digest(data) != meta["sha256"]:
            raise DamagedFile(path, f"{path} is damaged (checksum mismatch with its chunk file)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DamagedFile(path, f"{path} is missing or damaged (not UTF-8 text: {e.reason} at "
                                f"byte {e.start})") from None
    lines = text.split("\n")   # JSON text holds no newline (str.splitlines cuts at more)
    if lines[-1] == "":
        lines.pop()
    if meta is not None and len(lines) != meta.get("lines"):
        raise DamagedFile(path, f"{path} is damaged ({len(lines)} histories, its chunk file "
                                f"says {meta.get('lines')})")
    return lines


def check_histories(run: RunDir, index: int, meta: Mapping[str, Any], lines: int) -> None:
    """Whether chunk ``index`` of ``run`` (a run made with histories; ``meta``: its chunk
    file's metadata) has its histories whole: ``lines`` of them. ``DamagedFile`` naming
    the history file otherwise (a resume runs the chunk again)."""
    path = histories_path(run.path, index)
    got = read_histories_file(path, meta.get("histories"))
    if len(got) != lines:
        raise DamagedFile(path, f"{path} is damaged ({len(got)} histories, not {lines})")


def chunk_histories(path: str | os.PathLike, kind: str,
                    chunks: Iterable[int] | None = None) -> Iterator[tuple[int, list[str]]]:
    """``(chunk, lines)`` of a ``kind`` run directory made with histories, chunk by chunk
    in order (``chunks``: only these), each verified against its chunk file. A run
    without histories, a chunk not finished, or a missing or damaged file raise
    ``ValueError`` naming it (never a game skipped: the plays keep their numbers)."""
    path = Path(path)
    manifest = RunDir.read_manifest(path, kind)
    if not manifest.get("histories"):
        raise ValueError(f"{path} was run without histories (--histories)")
    run = RunDir(path, manifest)
    total = int(manifest.get("chunks", {}).get("total", 0))
    wanted = range(total) if chunks is None else chunks

    def gen() -> Iterator[tuple[int, list[str]]]:
        for i in wanted:
            i = int(i)
            if not 0 <= i < total:
                raise ValueError(f"{path} has chunks 0..{total - 1}, not {i}")
            cpath = run.chunk_path(i)
            meta = chunk_meta(cpath)
            if meta is None:
                hpath = histories_path(path, i)
                why = "is not finished" if not cpath.exists() else "has a damaged chunk file"
                raise ValueError(f"{hpath} cannot be read: chunk {i} of {path} {why} "
                                 f"(resume the run: --resume {path})")
            if meta.get("config_hash") != run.hash or meta.get("chunk") != i:
                raise ValueError(f"{cpath} is not chunk {i} of this run (resume the run to "
                                 "replace it)")
            yield i, read_histories_file(histories_path(path, i), meta.get("histories"))
    return gen()


#: Most bytes of history text a file given to the analysis may hold (decompressed).
MAX_HISTORY_TEXT = 256 * 2**20


def read_history_text(path: str | Path, limit: int = MAX_HISTORY_TEXT) -> str:
    """The text of a history file (JSON or JSON Lines; gzip-compressed if it starts like
    gzip), read boundedly: a ``ValueError`` naming the file when it cannot be read, is
    a damaged or cut gzip stream, holds more than ``limit`` bytes of text, is not UTF-8
    or does not start like JSON (``/dev/zero`` is refused at its first bytes)."""
    path = Path(path)
    try:
        f = open(path, "rb")
    except OSError as e:
        raise ValueError(f"cannot read the history {shown(str(path), 200, quote=False)}: "
                         f"{e.strerror or type(e).__name__}") from None
    with f:
        try:
            head = f.read(2)
            packed = head == b"\x1f\x8b"
            if packed:
                f.seek(0)
                stream: Any = gzip.GzipFile(fileobj=f, mode="rb")
                head = b""
            else:
                stream = f
            first = head + stream.read(65536 - len(head))
            lead = first.lstrip(b" \t\r\n\xef\xbb\xbf")[:1]
            if first and lead not in (b"{", b"[", b""):
                raise ValueError(f"{path} is not a history: it does not start like JSON text "
                                 f"(first byte {lead!r})")
            rest = stream.read(limit + 1 - len(first)) if len(first) < limit + 1 else b""
            data = first + rest
        except (OSError, EOFError, zlib.error) as e:
            kind = "gzip stream" if packed else "file"
            raise ValueError(f"{path} is damaged: cannot read its {kind} ({type(e).__name__}: "
                             f"{' '.join(str(e).split())[:120]})") from None
    if len(data) > limit:
        raise ValueError(f"{path} holds more than {limit // 2**20} MiB of history text: split it "
                         "into smaller files")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path} is not UTF-8 text ({e.reason} at byte {e.start})") from None


def parse_line(line: str, where: str) -> Any:
    """One history line as JSON (a ``ValueError`` naming ``where``; nesting too deep for
    the parser is one too)."""
    try:
        return json.loads(line)
    except RecursionError:
        raise ValueError(f"{where} is not a history (JSON nested too deeply)") from None
    except ValueError as e:
        raise ValueError(f"{where} is not JSON ({str(e)[:120]})") from None
