"""Ratings of bots from game records: pairwise wins and Bradley-Terry on the Elo scale
(MM algorithm), with bootstrap intervals over deals; a multiplayer Plackett-Luce rating
(OpenSkill, optional); paired comparisons of two bots on the same deals.

A *play* is one deal under one seat arrangement (runs with ``seats`` "rotate" or
"permute" play every deal several times); the *deal* (its cards) is the independent
unit that intervals resample. These are statistics of records: the games studies
(``GameStudy.ratings``, ``GameStudy.paired``) and the reports both use them.

>>> import pandas as pd
>>> rec = pd.DataFrame({"deal": [0, 0, 1, 1, 2, 2], "bot": ["a", "b"] * 3,
...                     "went_out": [True, False, True, False, False, True],
...                     "draw": [False] * 6})
>>> bt = bradley_terry(rec, bootstrap=50, seed=1)
>>> list(bt.bot), bool(bt.rating.iloc[0] > 1500 > bt.rating.iloc[1])
(['a', 'b'], True)
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ELO_MEAN", "play_ids", "pairwise_wins", "bradley_terry", "plackett_luce",
           "paired_comparison"]

#: The mean rating of ``bradley_terry`` (the Elo scale's usual centre).
ELO_MEAN = 1500.0
_ELO = 400.0 / math.log(10.0)  # rating points per unit of log-strength


# --------------------------------------------------------------------------- games
def play_ids(records: pd.DataFrame) -> np.ndarray:
    """One id per play (deal and seat arrangement) for every row of ``records``."""
    deal = records["deal"].to_numpy(np.int64)
    if "arrangement" not in records:
        return deal
    arr = records["arrangement"].to_numpy(np.int64)
    return deal * (int(arr.max(initial=0)) + 1) + arr


def pairwise_wins(records: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, int]:
    """The pairwise comparisons of a games run: in every play with a winner, the
    winner's bot beats the bot of each other seat (seats of the same bot as the winner
    are no comparison). Returns ``(bots, deal_index, winner, loser, n_deals)``: the
    sorted bot names, and for each comparison the deal (0..n_deals-1: the unit the
    bootstrap resamples, all arrangements of a deal together) and the bots' indices
    into ``bots``."""
    df = records[["deal", "bot", "went_out", "draw"]]
    bots = sorted(df.bot.astype(str).unique())
    code = {b: i for i, b in enumerate(bots)}
    play_id, play_idx = np.unique(play_ids(records), return_inverse=True)
    deal_ids, deal_idx = np.unique(df.deal.to_numpy(), return_inverse=True)
    bot_idx = df.bot.astype(str).map(code).to_numpy()
    won = df.went_out.to_numpy(bool) & ~df.draw.to_numpy(bool)
    winner_of = np.full(len(play_id), -1)
    winner_of[play_idx[won]] = bot_idx[won]
    w = winner_of[play_idx]
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


def bradley_terry(records: pd.DataFrame, *, bootstrap: int = 200, seed: int = 2026, prior: float = 0.5,
                  level: float = 0.95) -> pd.DataFrame:
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
    bots, d, winner, loser, n_deals = pairwise_wins(records)
    K = len(bots)
    played = (records.assign(_play=play_ids(records)).groupby(records.bot.astype(str))
              ._play.nunique().reindex(bots).to_numpy())
    pair = winner * K + loser
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


# --------------------------------------------------------------------------- Plackett-Luce
def plackett_luce(records: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """Multiplayer ratings by OpenSkill's Plackett-Luce model (Weng and Lin 2011): every
    play is a match of its seats, ranked by score (lower is better, equal scores tie),
    rated in play order. Needs the optional ``openskill`` package (``pip install
    ".[ratings]"`` from a clone). Seats of the same bot in one play are rated as separate
    players and the bot takes the mean of their updates.

    Returns a DataFrame, best first: ``bot``, ``mu``, ``sigma``, ``mu_lo`` and
    ``mu_hi`` (``mu`` ± z ``sigma``: the posterior's interval, not a sampling one),
    ``ordinal`` (``mu - 3 sigma``, OpenSkill's conservative rank) and ``plays``."""
    import pandas as pd

    try:
        from openskill.models import PlackettLuce
    except ImportError:
        raise ValueError('Plackett-Luce ratings need openskill: pip install ".[ratings]" '
                         "from a clone of rummy51") from None
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + level / 2)
    model = PlackettLuce()
    df = pd.DataFrame({"play": play_ids(records), "bot": records["bot"].astype(str).to_numpy(),
                       "score": records["score"].to_numpy(np.int64)})
    rating = {b: model.rating(name=b) for b in sorted(df.bot.unique())}
    plays = dict.fromkeys(rating, 0)
    order = np.argsort(df.play.to_numpy(), kind="stable")
    bots = df.bot.to_numpy()[order]
    scores = df.score.to_numpy()[order]
    starts = np.flatnonzero(np.r_[True, np.diff(df.play.to_numpy()[order]) != 0])
    ends = np.r_[starts[1:], len(order)]
    for a, b in zip(starts, ends, strict=True):
        seat_bots = bots[a:b]
        teams = [[model.rating(mu=rating[s].mu, sigma=rating[s].sigma, name=s)] for s in seat_bots]
        new = model.rate(teams, ranks=[int(x) for x in scores[a:b]])
        upd: dict = {}
        for s, team in zip(seat_bots, new, strict=True):
            upd.setdefault(s, []).append(team[0])
        for s, rs in upd.items():
            rating[s] = model.rating(mu=float(np.mean([r.mu for r in rs])),
                                     sigma=float(np.mean([r.sigma for r in rs])), name=s)
            plays[s] += 1
    out = pd.DataFrame({"bot": list(rating), "mu": [r.mu for r in rating.values()],
                        "sigma": [r.sigma for r in rating.values()]})
    out["mu_lo"] = out.mu - z * out.sigma
    out["mu_hi"] = out.mu + z * out.sigma
    out["ordinal"] = out.mu - 3 * out.sigma
    out["plays"] = [plays[b] for b in out.bot]
    return out.sort_values("mu", ascending=False, kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------- paired
def paired_comparison(records: pd.DataFrame, a: str, b: str, *,
                      level: float = 0.95) -> pd.DataFrame:
    """Bot ``a`` against bot ``b`` on the same deals: for every deal both played, the
    difference of their mean score and of their win rate over the deal's plays (and
    seats), then the mean difference over deals with its standard error and interval
    (the deals are the independent units). With seats "rotate" or "permute" the two
    bots met the same cards from every seat, so seat luck cancels deal by deal.

    Returns a DataFrame with one row per metric (``score``: lower is better; ``win``):
    ``a``, ``b``, ``deals``, ``mean_a``, ``mean_b``, ``diff`` (a - b), ``diff_se``,
    ``diff_lo``, ``diff_hi``."""
    from statistics import NormalDist

    import pandas as pd

    z = NormalDist().inv_cdf(0.5 + level / 2)
    names = set(records["bot"].astype(str))
    for x in (a, b):
        if x not in names:
            raise ValueError(f"bot {x!r} did not play in this run: it has {', '.join(sorted(names))}")
    if a == b:
        raise ValueError("compare two different bots")
    r = records.assign(bot=records["bot"].astype(str), win=records["went_out"].astype(float))
    per = r[r.bot.isin([a, b])].groupby(["deal", "bot"])[["score", "win"]].mean().unstack("bot")
    per = per.dropna()
    rows = []
    for m in ("score", "win"):
        d = (per[(m, a)] - per[(m, b)]).to_numpy(float)
        n = d.size
        mean = float(d.mean()) if n else float("nan")
        se = float(d.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
        rows.append({"metric": m, "a": a, "b": b, "deals": n,
                     "mean_a": float(per[(m, a)].mean()) if n else float("nan"),
                     "mean_b": float(per[(m, b)].mean()) if n else float("nan"),
                     "diff": mean, "diff_se": se, "diff_lo": mean - z * se, "diff_hi": mean + z * se})
    return pd.DataFrame(rows)
