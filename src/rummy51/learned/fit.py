"""Fitting a model with numpy: a two-layer network trained by Adam on minibatches.

Deterministic: float64 arithmetic, the minibatch order of epoch ``e`` drawn from its own
``SeedSequence`` child, the initial weights from another, and the state after every
epoch (weights, Adam's moments, the best epoch so far) a plain dict of arrays that the
training run saves, so a run resumed after a kill continues exactly where it was. On
one machine and numpy build a retrain gives the same bits; elsewhere BLAS may sum in
another order (the weights then agree to about 1e-6 relative).

The loss is the squared error of the margin (scaled by its standard deviation) plus
``win_weight`` times the log-loss of the win logit; the model kept is the epoch with the
least validation loss (positions of held-out deals). The features' standardization and
the margin's scale are folded into the returned float32 weights (``fold``), so the
kernels read raw features.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["FitSettings", "FitData", "init_state", "run_epoch", "fold", "validation_mask"]


@dataclass(frozen=True)
class FitSettings:
    hidden: int = 64
    epochs: int = 12
    batch: int = 256
    lr: float = 1e-3
    win_weight: float = 0.5
    l2: float = 1e-6

    def to_json(self) -> dict:
        return {"hidden": self.hidden, "epochs": self.epochs, "batch": self.batch,
                "lr": self.lr, "win_weight": self.win_weight, "l2": self.l2}


@dataclass
class FitData:
    """The training positions: features ``X`` (n x features, float32), the margin and
    win targets, and which rows are held out for validation."""

    X: npt.NDArray[np.int16] | npt.NDArray[np.float32]
    margin: npt.NDArray[np.float64]
    win: npt.NDArray[np.float64]
    val: npt.NDArray[np.bool_]

    def __post_init__(self) -> None:
        tr = ~self.val
        nf = self.X.shape[1]
        # the mean and standard deviation in float64, a block of rows at a time (exact
        # sums of integers: the same on any machine)
        s1 = np.zeros(nf)
        s2 = np.zeros(nf)
        idx = np.flatnonzero(tr)
        for a in range(0, len(idx), 65536):
            xb = self.X[idx[a:a + 65536]].astype(np.float64)
            s1 += xb.sum(axis=0)
            s2 += (xb * xb).sum(axis=0)
        n = max(len(idx), 1)
        self.mu = s1 / n
        var = np.maximum(s2 / n - self.mu ** 2, 0.0)
        sd = np.sqrt(var) if tr.any() else np.ones(nf)
        sd[sd < 1e-6] = 1.0
        self.sd = sd
        self.m_mu = float(self.margin[tr].mean()) if tr.any() else 0.0
        s = float(self.margin[tr].std()) if tr.any() else 1.0
        self.m_sd = s if s > 1e-9 else 1.0
        self.train_idx = np.flatnonzero(tr)
        self.val_idx = np.flatnonzero(self.val)

    def batch(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        x = (self.X[idx].astype(np.float64) - self.mu) / self.sd
        return x, (self.margin[idx] - self.m_mu) / self.m_sd, self.win[idx]


def validation_mask(groups: npt.NDArray[np.int64], fraction_in_10: int = 1) -> npt.NDArray[np.bool_]:
    """Rows of held-out deals: a deal is held out when a hash of its number falls in the
    first ``fraction_in_10`` tenths (all of a deal's positions on one side)."""
    h = (np.asarray(groups, np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)
    return (h % np.uint64(10)) < np.uint64(fraction_in_10)


def init_state(n_in: int, s: FitSettings, seed: np.random.SeedSequence) -> dict:
    rng = np.random.default_rng(seed)
    h = s.hidden
    st = {
        "W1": rng.normal(0.0, np.sqrt(2.0 / n_in), (n_in, h)),
        "b1": np.zeros(h),
        "W2": rng.normal(0.0, np.sqrt(1.0 / h), (2, h)),
        "b2": np.zeros(2),
    }
    for k in list(st):
        st["m_" + k] = np.zeros_like(st[k])
        st["v_" + k] = np.zeros_like(st[k])
    st["t"] = np.array(0, np.int64)
    st["epoch"] = np.array(0, np.int64)
    st["best_loss"] = np.array(np.inf)
    st["best_epoch"] = np.array(-1, np.int64)
    for k in ("W1", "b1", "W2", "b2"):
        st["best_" + k] = st[k].copy()
    st["history"] = np.zeros((0, 4))   # epoch, train loss, val margin RMSE (points), val log-loss
    return st


def _forward(st: Mapping, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = x @ st["W1"] + st["b1"]
    h = np.maximum(a, 0.0)
    out = h @ st["W2"].T + st["b2"]
    return a, h, out


def _losses(out: np.ndarray, ym: np.ndarray, yw: np.ndarray, win_weight: float) -> tuple:
    em = out[:, 0] - ym
    z = out[:, 1]
    # log(1 + exp(z)) - y z, stably
    ll = np.maximum(z, 0) - z * yw + np.log1p(np.exp(-np.abs(z)))
    return em, z, float(np.mean(em * em) + win_weight * np.mean(ll)), float(np.mean(ll))


def evaluate(st: Mapping, data: FitData, idx: np.ndarray, s: FitSettings,
             best: bool = False) -> tuple[float, float, float]:
    """``(loss, margin RMSE in points, win log-loss)`` on rows ``idx``."""
    if len(idx) == 0:
        return 0.0, 0.0, 0.0
    p = {k: st[("best_" if best else "") + k] for k in ("W1", "b1", "W2", "b2")}
    tot = se = lls = 0.0
    for a in range(0, len(idx), 8192):
        x, ym, yw = data.batch(idx[a:a + 8192])
        _, _, out = _forward(p, x)
        em, _, loss, ll = _losses(out, ym, yw, s.win_weight)
        k = len(x)
        tot += loss * k
        se += float(np.sum(em * em))
        lls += ll * k
    n = len(idx)
    return tot / n, float(np.sqrt(se / n)) * data.m_sd, lls / n


def run_epoch(st: dict, data: FitData, s: FitSettings, seed: np.random.SeedSequence) -> dict:
    """One epoch of Adam over the training rows in the order drawn from ``seed``; updates
    ``st`` in place (and returns it), with the validation loss and the best epoch."""
    rng = np.random.default_rng(seed)
    order = data.train_idx[rng.permutation(len(data.train_idx))]
    b1_, b2_, eps = 0.9, 0.999, 1e-8
    total = 0.0
    nb = 0
    for a in range(0, len(order), s.batch):
        idx = order[a:a + s.batch]
        x, ym, yw = data.batch(idx)
        pre, h, out = _forward(st, x)
        em, z, loss, _ = _losses(out, ym, yw, s.win_weight)
        total += loss
        nb += 1
        k = len(idx)
        g_out = np.empty_like(out)
        g_out[:, 0] = 2.0 * em / k
        g_out[:, 1] = s.win_weight * (1.0 / (1.0 + np.exp(-z)) - yw) / k
        grads = {"W2": g_out.T @ h, "b2": g_out.sum(axis=0)}
        gh = g_out @ st["W2"]
        gh[pre <= 0] = 0.0
        grads["W1"] = x.T @ gh + s.l2 * st["W1"]
        grads["b1"] = gh.sum(axis=0)
        st["t"] = st["t"] + 1
        t = int(st["t"])
        for name, g in grads.items():
            m = st["m_" + name]
            v = st["v_" + name]
            m *= b1_
            m += (1 - b1_) * g
            v *= b2_
            v += (1 - b2_) * g * g
            st[name] = st[name] - s.lr * (m / (1 - b1_ ** t)) / (np.sqrt(v / (1 - b2_ ** t)) + eps)
    ep = int(st["epoch"])
    vloss, vrmse, vll = evaluate(st, data, data.val_idx, s)
    if len(data.val_idx) == 0:
        vloss = total / max(nb, 1)
    if vloss < float(st["best_loss"]):
        st["best_loss"] = np.array(vloss)
        st["best_epoch"] = np.array(ep, np.int64)
        for key in ("W1", "b1", "W2", "b2"):
            st["best_" + key] = st[key].copy()
    st["history"] = np.vstack([st["history"], [ep, total / max(nb, 1), vrmse, vll]])
    st["epoch"] = np.array(ep + 1, np.int64)
    return st


def fold(st: Mapping, data_mu: np.ndarray, data_sd: np.ndarray, m_mu: float, m_sd: float,
         best: bool = True) -> tuple[np.ndarray, ...]:
    """The float32 weights a kernel reads (raw features in, margin in points out): the
    standardization folded into the first layer, the margin's scale into the second."""
    pre = "best_" if best else ""
    W1, b1, W2, b2 = (np.asarray(st[pre + k], np.float64) for k in ("W1", "b1", "W2", "b2"))
    w1 = W1 / data_sd[:, None]
    bb1 = b1 - (data_mu / data_sd) @ W1
    w2 = W2.copy()
    bb2 = b2.copy()
    w2[0] *= m_sd
    bb2[0] = b2[0] * m_sd + m_mu
    return (np.ascontiguousarray(w1, np.float32), np.ascontiguousarray(bb1, np.float32),
            np.ascontiguousarray(w2, np.float32), np.ascontiguousarray(bb2, np.float32))
