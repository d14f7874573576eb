"""Argument checks shared by every module (a private module made for sharing).

``int_arg`` is the one way a whole-number argument is checked: a Python ``int`` or a
numpy integer (never a bool), in range, returned as a plain ``int`` so that nothing
downstream computes in a numpy dtype.
"""
from __future__ import annotations

import os
import warnings

import numpy as np

__all__ = ["int_arg", "threads_arg", "workers_arg", "workers_or_threads", "range_text",
           "MAX_COUNT", "MAX_CHUNK", "MAX_GAME_CHUNK"]

#: Most deals, games or samples one study may ask for (counts stay exact in int64 and in
#: float64 means; at a million deals a second this is eleven days).
MAX_COUNT = 10**12
#: Most deals or samples in one chunk of the opening and odds studies (the C kernels
#: count in int64; a chunk should be minutes of work, not days).
MAX_CHUNK = 10**9
#: Most deals in one chunk of a games study (its records are held in memory: players
#: rows per deal).
MAX_GAME_CHUNK = 10**6


def int_arg(name: str, value: object, lo: int, hi: int | None = None) -> int:
    """``value`` as a plain int, or a TypeError/ValueError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a whole number, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        raise ValueError(f"{name} must be {range_text(value, lo, hi)}, got {value}")
    return int(value)


def range_text(value: int | np.integer, lo: int, hi: int | None) -> str:
    """How a range is said in an error: ``1..6`` for a small one; ``>= 1`` or ``at most
    1000000000000`` (the side that was crossed) for one whose top is only a sanity bound."""
    if hi is None or (value < lo and hi >= 10**6):
        return f">= {lo}"
    if hi >= 10**6:
        return f"at most {hi}"
    return f"{lo}..{hi}"


def threads_arg(threads: int | None) -> int:
    """A thread count: None means every core."""
    return workers_arg(threads, "threads")


def workers_arg(workers: int | None, name: str = "workers") -> int:
    """A worker count, 1..1024: None means every core (``name``: the argument as given)."""
    if workers is None:
        return os.cpu_count() or 1
    return int_arg(name, workers, 1, 1024)


def workers_or_threads(workers: object, threads: object) -> tuple[object, str]:
    """``(count, the name it was given by)``: ``workers``, or ``threads``, its old name
    (deprecated for one release: it warns); both given and different is a ``ValueError``."""
    if threads is None:
        return workers, "workers"
    warnings.warn("threads is deprecated: use workers (the same count)", DeprecationWarning,
                  stacklevel=3)
    if workers is not None and workers != threads:
        raise ValueError(f"give workers or threads, not both ({workers} and {threads})")
    return threads, "threads"
