"""Small statistics for the Monte Carlo studies: pure, vectorised, no printing.

* ``wilson(k, n)``: the Wilson score interval of a binomial proportion (95 % by
  default), for scalars or arrays of counts;
* ``proportion(k, n)``: the estimate ``k / n`` with its Wilson interval;
* ``hist_mean(counts)``: the mean of a histogram of integer values (value = bin
  index) and the standard error of that mean;
* ``at_least(counts)``: ``counts[..., x:].sum(-1)`` for every x (the survival
  counts, so ``at_least(h) / n`` is P(value >= x)).

>>> lo, hi = wilson(50, 100)
>>> round(float(lo), 4), round(float(hi), 4)
(0.4038, 0.5962)
>>> [round(float(x), 4) for x in wilson(0, 10)]
[0.0, 0.2775]
>>> hist_mean([0, 2, 2])          # values 1, 1, 2, 2
(1.5, 0.28867513459481287)
>>> at_least([1, 2, 3]).tolist()
[6, 5, 3]
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["Z95", "wilson", "proportion", "hist_mean", "at_least"]

#: The 0.975 quantile of the standard normal: a two-sided 95 % interval.
Z95 = 1.959963984540054


def _counts(k: ArrayLike, n: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    k = np.asarray(k)
    n = np.asarray(n)
    for name, a in (("k", k), ("n", n)):
        if a.dtype.kind not in "iuf" or (a.size and np.any(a < 0)):
            raise ValueError(f"{name} must hold counts >= 0, got {a!r}")
    if np.any(k > n):
        raise ValueError("k must not exceed n: a proportion counts k successes in n trials")
    return k.astype(np.float64), n.astype(np.float64)


def wilson(k: ArrayLike, n: ArrayLike, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval ``(lo, hi)`` of the proportion ``k / n``.

    ``k`` and ``n`` are counts (scalars or broadcastable arrays, ``0 <= k <= n``);
    ``z`` is the normal quantile (default: 95 % two-sided). The interval is
    ``(p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)``; it stays inside
    [0, 1], is exactly 0 at k = 0 and exactly 1 at k = n. Where ``n`` is 0 there
    is no estimate and both ends are NaN. Returns float64 arrays (0-d for scalars).
    """
    if not np.isfinite(z) or z <= 0:
        raise ValueError(f"z must be a positive number, got {z!r}")
    kf, nf = _counts(k, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = kf / nf
        z2n = z * z / nf
        centre = (p + z2n / 2) / (1 + z2n)
        half = z / (1 + z2n) * np.sqrt(p * (1 - p) / nf + z2n / (4 * nf))
        lo = np.clip(centre - half, 0.0, 1.0)
        hi = np.clip(centre + half, 0.0, 1.0)
    lo = np.where(kf == 0, 0.0, lo)
    hi = np.where(kf == nf, 1.0, hi)
    lo = np.where(nf == 0, np.nan, lo)
    hi = np.where(nf == 0, np.nan, hi)
    return lo, hi


def proportion(k: ArrayLike, n: ArrayLike, z: float = Z95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(p, lo, hi)``: the estimate ``k / n`` (NaN where n is 0) and its Wilson interval."""
    lo, hi = wilson(k, n, z)
    kf, nf = _counts(k, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(nf == 0, np.nan, kf / nf)
    return p, lo, hi


def hist_mean(counts: ArrayLike, axis: int = -1) -> tuple[Any, Any]:
    """Mean and standard error of the mean of a histogram of integer values.

    ``counts[..., v]`` is how often value ``v`` occurred. The standard error is
    ``s / sqrt(n)`` with ``s`` the sample standard deviation (``n - 1``). Returns
    floats for a 1-D histogram, arrays otherwise; NaN where there are no counts
    (and a standard error of NaN where there is one).
    """
    c = np.moveaxis(np.asarray(counts, dtype=np.float64), axis, -1)
    v = np.arange(c.shape[-1], dtype=np.float64)
    n = c.sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = (c * v).sum(-1) / n
        ss = (c * (v - mean[..., None]) ** 2).sum(-1)
        se = np.sqrt(ss / (n - 1) / n)
    mean = np.where(n == 0, np.nan, mean)
    se = np.where(n <= 1, np.nan, se)
    if mean.ndim == 0:
        return float(mean), float(se)
    return mean, se


def at_least(counts: ArrayLike, axis: int = -1) -> np.ndarray:
    """Survival counts: ``out[..., x] = counts[..., x:].sum()`` along ``axis``."""
    c = np.asarray(counts)
    return np.flip(np.cumsum(np.flip(c, axis), axis), axis)
