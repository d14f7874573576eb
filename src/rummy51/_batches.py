"""Batches of rows split over worker threads (a private module made for sharing): the
batch solvers of both games (``rummy51.solver``, ``rummy51.carousel.solver``) release the
GIL row by row, so one thread pool a process serves them all."""
from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["executor", "batch_workers", "run_split"]

_pool: ThreadPoolExecutor | None = None
_pool_pid = -1
_pool_lock = threading.Lock()


def executor() -> ThreadPoolExecutor:
    """The process's pool of solver threads (made again in a forked child)."""
    global _pool, _pool_pid
    with _pool_lock:
        if _pool is None or _pool_pid != os.getpid():
            _pool = ThreadPoolExecutor(max_workers=max(4, os.cpu_count() or 1),
                                       thread_name_prefix="rummy51")
            _pool_pid = os.getpid()
        return _pool


def batch_workers(workers: object, n: int, min_rows: int, name: str = "workers") -> int:
    """The threads a batch of ``n`` rows runs on: ``workers`` (at most one a row), or
    with None the cores, each with ``min_rows`` rows at least. A count that is none is
    a ``ValueError`` naming the argument as given (``name``)."""
    if workers is None:
        return max(1, min(os.cpu_count() or 1, n // min_rows))
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"{name} must be a positive int or None, got {workers!r}")
    return max(1, min(int(workers), max(n, 1)))


def run_split(n: int, workers: int, part: Callable[[int, int], None],
              catch: tuple[type[Exception], ...] = (ValueError,)) -> None:
    """``part(a, b)`` for ``workers`` consecutive slices of ``range(n)`` on the pool (one
    slice: here); every slice runs to its end, then the first error of a kind in
    ``catch`` is raised."""
    if workers == 1:
        part(0, n)
        return
    bounds = np.linspace(0, n, workers + 1).astype(np.int64)
    futures = [executor().submit(part, int(a), int(b))
               for a, b in itertools.pairwise(bounds) if b > a]
    errors = []
    for f in futures:
        try:
            f.result()
        except catch as e:
            errors.append(e)
    if errors:
        raise errors[0]
