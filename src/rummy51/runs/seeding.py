"""Seeding of chunked runs: one root SeedSequence, one child per chunk.

A run's randomness is ``SeedSequence(entropy, spawn_key)``; chunk ``i`` draws only
from its child ``i`` (``chunk_seed``), so the numbers never depend on how many
threads, processes or machines run the chunks, nor in which order.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["seed_root", "chunk_seed", "chunk_rng"]

#: What a study takes as ``seed``: entropy (an int or ints), a SeedSequence, a Generator or None
SeedLike = int | Sequence[int] | np.random.SeedSequence | np.random.Generator | None


def seed_root(seed: SeedLike) -> tuple[Any, tuple[int, ...]]:
    """``(entropy, spawn_key)`` of the root SeedSequence for ``seed``.

    An int (or a sequence of ints) is the entropy itself; a SeedSequence gives its
    entropy and spawn key; a Generator gives 128 bits drawn from it; None fresh
    entropy from the operating system."""
    if seed is None:
        return np.random.SeedSequence().entropy, ()
    if isinstance(seed, np.random.SeedSequence):
        ent = seed.entropy
        if ent is None:
            raise ValueError("seed: a SeedSequence without entropy cannot be recorded")
        return (int(ent) if isinstance(ent, (int, np.integer)) else [int(x) for x in ent],
                tuple(int(k) for k in seed.spawn_key))
    if isinstance(seed, np.random.Generator):
        return int.from_bytes(seed.bytes(16), "little"), ()
    if isinstance(seed, (bool, np.bool_)):
        raise TypeError(f"seed must be an int >= 0, a SeedSequence, a Generator or None, got {seed!r}")
    if isinstance(seed, (int, np.integer)):
        if seed < 0:
            raise ValueError(f"seed must be >= 0, got {seed}")
        return int(seed), ()
    if isinstance(seed, (list, tuple)) and seed and all(
            isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x >= 0 for x in seed):
        return [int(x) for x in seed], ()
    raise TypeError(f"seed must be an int >= 0, a SeedSequence, a Generator or None, got {seed!r}")


def chunk_seed(entropy: int | Sequence[int], spawn_key: Sequence[int], index: int) -> np.random.SeedSequence:
    """The SeedSequence of chunk ``index``: ``SeedSequence(entropy, spawn_key).spawn(n)[index]``
    for any ``n > index`` (computed directly, without spawning the others)."""
    return np.random.SeedSequence(entropy, spawn_key=tuple(spawn_key) + (int(index),))


def chunk_rng(entropy: int | Sequence[int], spawn_key: Sequence[int], index: int) -> np.random.Generator:
    """The PCG64 Generator of chunk ``index``."""
    return np.random.Generator(np.random.PCG64(chunk_seed(entropy, spawn_key, index)))
