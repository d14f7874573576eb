"""Argument checks shared by every module (a private module made for sharing).

``int_arg`` is the one way a whole-number argument is checked: a Python ``int`` or a
numpy integer (never a bool), in range, returned as a plain ``int`` so that nothing
downstream computes in a numpy dtype.
"""
from __future__ import annotations

import os
from typing import Optional

import numpy as np

__all__ = ["int_arg", "threads_arg"]


def int_arg(name: str, value, lo: int, hi: Optional[int] = None) -> int:
    """``value`` as a plain int, or a TypeError/ValueError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a whole number, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{name} must be {rng}, got {value}")
    return int(value)


def threads_arg(threads) -> int:
    """A thread count: None means every core."""
    if threads is None:
        return os.cpu_count() or 1
    return int_arg("threads", threads, 1, 1024)
