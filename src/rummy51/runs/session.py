"""One session of a chunked run: the bookkeeping every study shares.

``Session(run, specs, found, info, progress, desc, unit=" deals")`` is opened once the study knows
its chunk plan and which chunks are already done (``found``, from ``RunDir.scan``). It
records itself in the manifest (``status`` running, one entry in ``sessions``),
shows the progress bar, and is told of each chunk as it finishes (``chunk_done``:
the done list in the manifest, the bar, the study's ``on_chunk`` hook). ``with
session:`` marks the manifest ``interrupted`` if anything goes wrong (Ctrl-C
included, and SIGTERM, which it turns into a ``KeyboardInterrupt`` meanwhile) and
re-raises; ``finish(**fields)`` marks it ``finished``. Without a run
directory (``run=None``) only the bar and the counts are kept.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any

from .plan import Todo
from .progress import Progress
from .signals import terminate_as_interrupt
from .store import RunDir, now, ranges

__all__ = ["Session"]


class Session:
    def __init__(self, run: RunDir | None, specs: Sequence[dict], found: Mapping[int, Any],
                 info: Mapping[str, Any], progress: bool | None, desc: str,
                 on_chunk: Callable[[int, int, int], None] | None = None,
                 t_start: float | None = None, unit: str = " deals") -> None:
        self.run = run
        self.specs = specs
        self.done = set(found)
        # taken lazily (specs may be a ChunkPlan of billions of chunks)
        self.todo = Todo(specs, self.done)
        self.on_chunk = on_chunk
        self.t_start = time.perf_counter() if t_start is None else t_start
        self.info = {"started": now(), **info, "chunks_run": 0}
        if run is not None:
            run.take()
            run.manifest["status"] = "running"
            run.manifest["chunks"].update(done_count=len(self.done), done=ranges(self.done))
            run.manifest.setdefault("sessions", []).append(self.info)
            run.write_manifest()
        total = getattr(specs, "units", None)
        total = sum(s["n"] for s in specs) if total is None else int(total)
        self.bar = Progress(progress, total, total - self.todo.units(), desc, unit)

    def chunk_done(self, spec: Mapping) -> None:
        """Count a finished chunk (its file, if any, is already written)."""
        self.done.add(spec["index"])
        self.info["chunks_run"] += 1
        self.bar.update(spec["n"])
        if self.run is not None:
            self.run.manifest["chunks"].update(done_count=len(self.done), done=ranges(self.done))
            self.run.write_manifest(durable=False)
        if self.on_chunk is not None:
            self.on_chunk(spec["index"], len(self.done), len(self.specs))

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.t_start

    def __enter__(self) -> Session:
        # SIGTERM ends the run like Ctrl-C: running chunks saved, manifest "interrupted"
        self._signals = terminate_as_interrupt()
        self._signals.__enter__()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        sig = getattr(self, "_signals", None)
        if sig is not None:
            sig.__exit__(None, None, None)
        self.bar.close()
        if exc_type is not None and self.run is not None:
            self.run.manifest["status"] = "interrupted"
            self.info["elapsed_s"] = round(self.elapsed, 3)
            try:
                self.run.write_manifest()
            except ValueError:
                # the disk that failed the run may fail this too: the error that ended
                # the run is the one to report, and the chunk files are the record
                pass
        if exc_type is not None and self.run is not None:
            self.run.release()   # on success ``finish`` lets go, after the final tables

    def finish(self, elapsed: float, **fields: Any) -> None:
        """Mark the run finished (after the study wrote its final tables)."""
        if self.run is None:
            return
        self.info["elapsed_s"] = round(elapsed, 3)
        self.run.manifest["status"] = "finished"
        self.run.manifest["finished"] = now()
        self.run.manifest.update(fields)
        self.run.write_manifest()
        self.run.release()
