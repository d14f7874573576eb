"""Ratings of bots from game records: pairwise wins and Bradley-Terry on the Elo scale
(MM algorithm), with bootstrap intervals over deals.
"""
from __future__ import annotations


import numpy as np

from ._model import ELO_MEAN, _ELO


# --------------------------------------------------------------------------- games
def pairwise_wins(records):
    """The pairwise comparisons of a games run: in every deal with a winner, the
    winner's bot beats the bot of each other seat (seats of the same bot as the winner
    are no comparison). Returns ``(bots, deal_index, winner, loser, n_deals)``: the
    sorted bot names, and for each comparison the deal (0..n_deals-1) and the bots'
    indices into ``bots``."""
    df = records[["deal", "bot", "went_out", "draw"]]
    bots = sorted(df.bot.astype(str).unique())
    code = {b: i for i, b in enumerate(bots)}
    deal_ids, deal_idx = np.unique(df.deal.to_numpy(), return_inverse=True)
    bot_idx = df.bot.astype(str).map(code).to_numpy()
    won = df.went_out.to_numpy(bool) & ~df.draw.to_numpy(bool)
    winner_of = np.full(len(deal_ids), -1)
    winner_of[deal_idx[won]] = bot_idx[won]
    w = winner_of[deal_idx]
    keep = (w >= 0) & ~won & (bot_idx != w)
    return bots, deal_idx[keep], w[keep], bot_idx[keep], len(deal_ids)


def _bt_fit(W: np.ndarray, prior: np.ndarray, tol: float = 1e-10,
            max_iter: int = 100_000) -> np.ndarray:
    """Log-strengths (mean 0) of Bradley-Terry models by the MM algorithm (Hunter,
    2004), a batch at once: ``W[b, i, j]`` = times i beat j in replicate b; ``prior``
    (K x K) virtual wins added to W. ``p_i <- W_i / sum_j N_ij / (p_i + p_j)``."""
    W = W + prior
    N = W + np.swapaxes(W, 1, 2)
    wins = W.sum(2)
    logp = np.zeros(W.shape[:2])
    for _ in range(max_iter):
        p = np.exp(logp)
        denom = (N / (p[:, :, None] + p[:, None, :])).sum(2)
        with np.errstate(divide="ignore"):
            new = np.log(wins) - np.log(denom)
        new -= new.mean(1, keepdims=True)
        done = np.max(np.abs(new - logp)) < tol
        logp = new
        if done:
            break
    return logp


def bradley_terry(records, *, bootstrap: int = 200, seed: int = 2026, prior: float = 0.5,
                  level: float = 0.95):
    """Bradley-Terry ratings of the bots of a games run, on the Elo scale.

    Comparisons are those of ``pairwise_wins``: a deal's winner beats each other
    seat's bot. Strengths ``p`` are fitted by the MM algorithm, with ``prior`` virtual
    wins each way between every pair of bots that met (it keeps a bot that never won
    finite; with thousands of deals it moves nothing). ``rating = 1500 + 400 *
    log10(p)`` with the geometric mean of ``p`` at 1, so the mean rating is 1500 and a
    difference of 400 means odds of 10 to 1 in a comparison. Intervals: percentiles of
    ``bootstrap`` refits on the deals resampled with replacement (the deals are the
    independent units; a deal's comparisons go together), drawn from
    ``numpy.random.default_rng(seed)``.

    Returns a DataFrame, best first: ``bot``, ``rating``, ``rating_lo``,
    ``rating_hi``, ``rating_se`` (the bootstrap's standard deviation), ``wins`` and
    ``comparisons`` (pairwise), ``deals`` (deals the bot played) and ``bootstrap``."""
    import pandas as pd

    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    if prior < 0:
        raise ValueError(f"prior must be >= 0, got {prior}")
    bots, d, w, l, n_deals = pairwise_wins(records)
    K = len(bots)
    played = records.groupby(records.bot.astype(str)).deal.nunique().reindex(bots).to_numpy()
    pair = w * K + l
    W = np.bincount(pair, minlength=K * K).reshape(K, K).astype(float)
    met = (W + W.T) > 0
    # a bot without any comparison (every deal it played was drawn) has no rating
    act = np.flatnonzero(met.any(1))
    sub = np.ix_(act, act)
    pri = prior * met[sub]
    rating, lo, hi, se = (np.full(K, np.nan) for _ in range(4))
    B = int(bootstrap)
    if len(act) >= 2:
        rating[act] = ELO_MEAN + _ELO * _bt_fit(W[sub][None], pri)[0]
        if B > 0 and n_deals > 1:
            rng = np.random.default_rng(seed)
            reps = np.empty((B, K * K))
            for b in range(B):
                weights = np.bincount(rng.integers(0, n_deals, n_deals), minlength=n_deals)
                reps[b] = np.bincount(pair, weights=weights[d], minlength=K * K)
            reps = reps.reshape(B, K, K)[:, act][:, :, act]
            boot = ELO_MEAN + _ELO * _bt_fit(reps, pri)
            a = (1 - level) / 2
            lo[act], hi[act] = np.quantile(boot, [a, 1 - a], axis=0)
            se[act] = boot.std(0, ddof=1)
    df = pd.DataFrame({"bot": bots, "rating": rating, "rating_lo": lo, "rating_hi": hi,
                       "rating_se": se, "wins": W.sum(1).astype(int),
                       "comparisons": (W + W.T).sum(1).astype(int), "deals": played,
                       "bootstrap": B})
    return (df.sort_values("rating", ascending=False, kind="stable", na_position="last")
              .reset_index(drop=True))
