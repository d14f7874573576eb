"""What the report sections of the two games' runs share (a private module): tables of
several runs side by side, the one histogram helper (bins, counts, shares), the
figures laid out alike (win rates by bot, seat and place; ratings; a histogram per bot;
lengths) and the blunder tables.

A game's section module (``games``, ``carousel``) supplies its columns, words and
bins; a third game's would too.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..ratings import ELO_MEAN
from ._figures import (
    _GREY,
    FIG_WIDTH,
    _color,
    _figure,
    _grouped_bars,
    _legend,
    _panels,
    _percent_axis,
    _stairs,
    _styled,
    _yerr,
)
from ._model import Column, ReportTable, Run

if TYPE_CHECKING:  # pandas and matplotlib are imported where a report is built
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["run_cols", "tagged", "ordered", "rate_parts", "histogram", "length_edges", "fig_win_rates",
           "fig_ratings", "fig_histograms", "fig_lengths", "blunder_tables"]


# --------------------------------------------------------------------------- tables
def run_cols(runs: Sequence[Run]) -> list[Column]:
    """The leading ``run`` column of a table of several runs (none for one run)."""
    return [Column("run", "run")] if len(runs) > 1 else []


def tagged(runs: Sequence[Run], method: str, *args: Any, **kw: Any) -> pd.DataFrame:
    """``study.<method>(*args, **kw)`` of every run, concatenated, ``run`` in front."""
    import pandas as pd

    frames = []
    for r in runs:
        df = getattr(r.study, method)(*args, **kw).copy()
        df.insert(0, "run", r.name)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def ordered(df: pd.DataFrame, bot_order: Sequence[str], names: Sequence[str]) -> pd.DataFrame:
    """``df`` sorted by run (in ``names``' order), then bot (in ``bot_order``'s)."""
    rank = {b: i for i, b in enumerate(bot_order)}
    runs = {n: i for i, n in enumerate(names)}
    return (df.assign(_r=df.run.map(runs), _b=df.bot.astype(str).map(rank))
              .sort_values(["_r", "_b"], kind="stable").drop(columns=["_r", "_b"])
              .reset_index(drop=True))


def rate_parts(t: pd.DataFrame, by: str, prefix: str,
               runs: Sequence[str]) -> list[tuple[str, pd.DataFrame]]:
    """``[(run, DataFrame p, lo, hi indexed by `by`)]`` of the ``<prefix>_rate`` columns."""
    parts = []
    for run in runs:
        d = t[t.run == run].set_index(by)[[f"{prefix}_rate", f"{prefix}_lo", f"{prefix}_hi"]]
        d.columns = ["p", "lo", "hi"]
        parts.append((run, d))
    return parts


# --------------------------------------------------------------------------- histograms
def histogram(groups: Iterable[tuple[Mapping[str, Any], np.ndarray]],
              edges: np.ndarray) -> pd.DataFrame:
    """One row per group and bin: the group's keys (``run``, ``bot``...), the bin
    (``lo``, ``hi``), its ``count`` and its ``share`` of the group's values; values
    beyond the edges are counted in the edge bins (empty groups are left out)."""
    import pandas as pd

    frames = []
    for keys, values in groups:
        v = np.asarray(values, float)
        if not len(v):
            continue
        h, _ = np.histogram(np.clip(v, edges[0], edges[-1]), bins=edges)
        frames.append(pd.DataFrame({**keys, "lo": edges[:-1], "hi": edges[1:], "count": h,
                                    "share": h / len(v)}))
    return pd.concat(frames, ignore_index=True)


def length_edges(lengths: Iterable[np.ndarray], most_bins: int) -> np.ndarray:
    """Bin edges for lengths in turns: one-turn bins up to ``most_bins`` of them, wider
    past that, the longest 0.5 % (of the longest-playing group) in the last bin."""
    top = max(np.quantile(v, 0.995) for v in lengths)
    step = max(1, math.ceil((top + 1) / most_bins))
    return np.arange(0, top + 2 * step, step) - 0.5


# --------------------------------------------------------------------------- figures
@_styled
def fig_win_rates(bots_t: pd.DataFrame, seats_t: pd.DataFrame, pos_t: pd.DataFrame,
                  runs: Sequence[str], bot_order: Sequence[str], players: Sequence[int],
                  prefix: str, ylabel: str) -> Figure:
    """The ``<prefix>_rate`` of each run by bot, by seat and by place in the turn order,
    with their intervals and the fair share 1/players."""
    fig = _figure(FIG_WIDTH, 3.9)
    n_seats = int(seats_t.seat.nunique())
    axes = list(fig.subplots(1, 3, sharey=True,
                             width_ratios=[len(bot_order) + 0.5, n_seats, n_seats]))
    seat_bot = seats_t.drop_duplicates("seat").set_index("seat").bot
    for ax, (by, t, groups, title) in zip(axes, (
            ("bot", bots_t, bot_order, "by bot"),
            ("seat", seats_t, sorted(seats_t.seat.unique()), "by seat"),
            ("position", pos_t, sorted(pos_t.position.unique()), "by place in the turn order")),
            strict=True):
        _grouped_bars(ax, groups, rate_parts(t, by, prefix, runs))
        if by == "seat":
            same = len(runs) == 1 or seats_t.groupby("seat").bot.nunique().max() == 1
            ax.set_xticks(range(len(groups)), [f"{g}\n{seat_bot[g]}" if same else str(g)
                                               for g in groups], fontsize=8.5)
        elif by == "position":
            ax.set_xticks(range(len(groups)), ["first" if g == 0 else f"+{g}" for g in groups])
        ax.set_title(title)
        for i, p in enumerate(players):
            ax.axhline(1 / p, color="#c0392b" if len(runs) == 1 else _color(i), ls="--", lw=1)
        _percent_axis(ax, top=None)
        ax.set_ylim(0, None)
    axes[0].set_ylabel(ylabel)
    _legend(fig, axes, len(runs))
    return fig


@_styled
def fig_ratings(rt: pd.DataFrame, runs: Sequence[str], bot_order: Sequence[str]) -> Figure:
    """The Bradley-Terry ratings of the bots, one row a bot, one marker a run."""
    R = len(runs)
    fig = _figure(7.5, 0.5 * len(bot_order) * max(1.0, R ** 0.5) + 1.2)
    ax = fig.subplots()
    for i, run in enumerate(runs):
        d = rt[rt.run == run].set_index("bot").reindex(bot_order)
        y = np.arange(len(bot_order)) + (i - (R - 1) / 2) * (0.6 / R)
        r = d.rating.to_numpy(float)
        ok = np.isfinite(r)
        err = _yerr(r, d.rating_lo.fillna(d.rating), d.rating_hi.fillna(d.rating))
        ax.errorbar(r[ok], y[ok], xerr=err[:, ok], fmt="o", color=_color(i), capsize=3, ms=5,
                    label=run)
        if R == 1:
            for yy, v in zip(y[ok], r[ok], strict=True):
                ax.annotate(f"{v:.0f}", (v, yy), xytext=(0, 6), textcoords="offset points",
                            ha="center", fontsize=8.5)
    ax.axvline(ELO_MEAN, color=_GREY, ls="--", lw=1)
    ax.set_yticks(range(len(bot_order)), bot_order)
    ax.set_ylim(len(bot_order) - 0.5, -0.7)
    ax.set_xlabel("Bradley–Terry rating (Elo scale, mean 1500)")
    if R > 1:
        ax.legend(fontsize=8.5)
    return fig


@_styled
def fig_histograms(hist: pd.DataFrame, runs: Sequence[str], bot_order: Sequence[str],
                   label: Callable[[str, str], str], title: str, xlabel: str, ylabel: str,
                   lw: float = 1.5) -> Figure:
    """One panel a run, one step line a bot (``histogram``'s frame with ``run`` and
    ``bot``); ``label(run, bot)`` names a line."""
    from matplotlib.ticker import PercentFormatter

    fig, axes = _panels(len(runs), ncols=min(2, len(runs)), height=3.5)
    for ax, run in zip(axes, runs, strict=True):
        for i, bot in enumerate(bot_order):
            d = hist[(hist.run == run) & (hist.bot == bot)]
            if not len(d):
                continue
            _stairs(ax, d, color=_color(i), lw=lw, label=label(run, bot))
        ax.set_title(run if len(runs) > 1 else title)
        ax.set_xlabel(xlabel)
        ax.legend(fontsize=8, loc="upper right")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes[0].set_ylabel(ylabel)
    return fig


@_styled
def fig_lengths(hist: pd.DataFrame, over: pd.DataFrame, runs: Sequence[str], what: str,
                xlabel: str, ylabel: str) -> Figure:
    """The runs' lengths (``histogram``'s frame with ``run``) as steps, one panel, the
    mean dashed; ``over`` holds ``mean_<what>_length`` and ``median_<what>_length``."""
    from matplotlib.ticker import PercentFormatter

    fig, axes = _panels(1, height=3.3, width=7.5)
    ax = axes[0]
    one = len(runs) == 1
    for i, run in enumerate(runs):
        o = over[over.run == run].iloc[0]
        mean, median = o[f"mean_{what}_length"], o[f"median_{what}_length"]
        _stairs(ax, hist[hist.run == run], color=_color(i), lw=1.5, fill=one,
                alpha=0.8 if one else 1.0, label=f"{run}: mean {mean:.1f}, median {median:.0f}")
        ax.axvline(mean, color="#2b2f36" if one else _color(i), ls="--", lw=1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
    ax.legend(fontsize=8.5)
    return fig


# --------------------------------------------------------------------------- blunders
def blunder_tables(prefix: str, by_bot: pd.DataFrame, worst: pd.DataFrame,
                   rcol: Sequence[Column], *, plays: Column | None, where: Sequence[Column],
                   extra: Sequence[Column] = (), titles: tuple[str, str],
                   notes: tuple[str, str] = ("", "")) -> tuple[ReportTable, ReportTable]:
    """The two tables of a blunder section: per bot the decisions analysed and their
    mean loss (``plays``: the column of the games analysed, if shown), and each bot's
    worst decisions (``where``: the columns that place a decision; ``extra`` after the
    loss)."""
    head = list(rcol) + [Column("bot", "bot")]
    return (
        ReportTable(f"{prefix}_blunders", titles[0], by_bot,
                    tuple(head + ([plays] if plays is not None else [])
                          + [Column("decisions", "decisions", "int"),
                             Column("mean_loss", "mean loss", "num", se="mean_loss_se"),
                             Column("share_over", "loss > 1 point", "pct")]), notes[0]),
        ReportTable(f"{prefix}_worst_decisions", titles[1], worst,
                    tuple(head + list(where)
                          + [Column("played", "played"), Column("best", "best"),
                             Column("loss", "loss", "num", digits=1)] + list(extra)),
                    notes[1]))
