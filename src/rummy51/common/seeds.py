"""Seeds as every game takes them: ``normalize_seed`` (a state's seed, as recorded in its
history) and ``seed_from`` (what a search's sampler may be)."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from typing import TypeAlias

    from ..runs.seeding import SeedLike

    #: what ``seed_from`` takes: a seed, a Generator, or a callable returning floats in [0, 1)
    RngLike: TypeAlias = SeedLike | Callable[[], float]

__all__ = ["normalize_seed", "seed_from"]


def normalize_seed(seed: Any) -> tuple[np.random.Generator, Any]:
    """(rng, seed as recorded in JSON: int, {'entropy','spawn_key'} or None)."""
    if isinstance(seed, np.random.Generator):
        return seed, None
    if isinstance(seed, np.random.SeedSequence):
        ss = seed
    elif seed is None:
        ss = np.random.SeedSequence()
    elif isinstance(seed, dict):
        ent, key = seed.get("entropy"), seed.get("spawn_key", [])
        if (isinstance(ent, bool) or not isinstance(ent, (int, np.integer)) or ent < 0
                or not isinstance(key, (list, tuple))
                or any(isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0
                       for k in key)):
            raise ValueError(f"seed {seed!r} is not {{'entropy': int >= 0, 'spawn_key': "
                             "[int >= 0, ...]}")
        ss = np.random.SeedSequence(int(ent), spawn_key=tuple(int(k) for k in key))
    else:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative int, a SeedSequence, a Generator or "
                             f"None, got {seed!r}")
        ss = np.random.SeedSequence(int(seed))
    # the entropy is an int (int() refuses a SeedSequence made from a list of ints, as before)
    entropy: Any = ss.entropy
    rec = int(entropy) if not ss.spawn_key else {"entropy": int(entropy),
                                                 "spawn_key": [int(k) for k in ss.spawn_key]}
    return np.random.default_rng(ss), rec


def seed_from(rng: RngLike) -> np.random.Generator:
    """A numpy Generator from a seed, a Generator, or a callable returning floats in [0, 1)
    (OpenSpiel's ``UniformProbabilitySampler``)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if callable(rng) and not isinstance(rng, (int, np.integer)):
        return np.random.default_rng(int(float(rng()) * 2**53))
    if isinstance(rng, (bool, np.bool_, float, str, bytes)):
        raise TypeError(f"rng must be a seed (a whole number >= 0), a numpy Generator or a "
                        f"sampler, got {type(rng).__name__} {rng!r:.40}")
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError) as e:
        raise type(e)(f"rng must be a seed (a whole number >= 0), a numpy Generator or a "
                      f"sampler, got {rng!r:.40}") from None
