"""Report sections of opening-study runs: tables and figures of P(open), the value
distribution, by-turn odds, sweeps and player counts.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..stats import proportion
from ._figures import (
    _COLORS,
    _GREY,
    _JOKER_ORDER,
    FIG_WIDTH,
    _color,
    _grouped_bars,
    _legend,
    _panels,
    _percent_axis,
    _styled,
    _yerr,
)
from ._model import Column, Headline, ReportFigure, ReportTable, Run, Section, fmt_pct

if TYPE_CHECKING:  # pandas and matplotlib are imported where a report is built
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..rules import RuleSet


@dataclass(frozen=True)
class _Series:
    """One configuration of one openings run: what the figures draw as one line."""

    name: str
    run: str
    config: str
    rules: Any
    index: int


def _opening_series(runs: Sequence[Run]) -> list[_Series]:
    multi = len(runs) > 1
    out: list[_Series] = []
    for run in runs:
        st = run.study
        for label, rules in st.configs:
            if multi:
                name = f"{run.name}: {label}" if len(st.labels) > 1 else run.name
            else:
                name = label
            out.append(_Series(name, run.name, label, rules, len(out)))
    return out


def _tagged(runs: Sequence[Run], series: Sequence[_Series], method: str, **kw: Any) -> pd.DataFrame:
    """``study.<method>(**kw)`` of every run, concatenated, with ``run`` and ``series``
    columns in front."""
    import pandas as pd

    names = {(s.run, s.config): s.name for s in series}
    frames = []
    for run in runs:
        df = getattr(run.study, method)(**kw)
        if df is None or len(df) == 0:
            continue
        df = df.copy()
        df.insert(0, "series", [names[(run.name, c)] for c in df["config"]])
        df.insert(0, "run", run.name)
        frames.append(df)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _hand_title(hand: str, rules: RuleSet) -> str:
    from ..studies.openings import kind_text

    return kind_text(hand, rules)


def _rule_diffs(series: Sequence[_Series]) -> list[str]:
    from ..rules import RuleSet

    fields = [f.name for f in dataclasses.fields(RuleSet)]
    return [f for f in fields if len({getattr(s.rules, f) for s in series}) > 1]


def _series_cols(series: Sequence[_Series], runs: Sequence[Run]) -> list[Column]:
    cols = []
    if len(runs) > 1:
        cols.append(Column("run", "run"))
    if any(len(r.study.labels) > 1 for r in runs):
        cols.append(Column("config", "configuration"))
    return cols


@_styled
def _fig_by_jokers(summary: pd.DataFrame, series: Sequence[_Series], hands: Sequence[str]) -> Figure:
    fig, axes = _panels(len(hands), sharex=False, height=2.9)
    groups = list(_JOKER_ORDER)
    for ax, hand in zip(axes, hands, strict=True):
        parts = []
        for s in series:
            sub = summary[(summary.series == s.name) & (summary.hand == hand)]
            df = sub.set_index("jokers")[["p_open", "p_open_lo", "p_open_hi"]]
            df.columns = ["p", "lo", "hi"]
            parts.append((s.name, df))
        _grouped_bars(ax, groups, parts)
        ax.set_xticks(range(len(groups)), ["all", "0 jokers", "1", "2", "3+"])
        ax.set_title(_hand_title(hand, series[0].rules))
        _percent_axis(ax, top=1.08)
    axes[0].set_ylabel("P(can open)")
    _legend(fig, axes, len(series))
    return fig


def _dist_range(dist: pd.DataFrame) -> int:
    """The largest value worth drawing: where the 'all' distributions have 99.99 % of
    their mass (at least past every threshold)."""
    d = dist[dist.jokers == "all"]
    top = d[d.p_at_least >= 1e-4]
    return int(top.value.max()) + 3 if len(top) else int(d.value.max())


@_styled
def _fig_value_distribution(dist: pd.DataFrame, series: Sequence[_Series],
                            hands: Sequence[str]) -> Figure:
    from matplotlib.ticker import PercentFormatter

    fig, axes = _panels(len(hands))
    vmax = _dist_range(dist)
    single = len(series) == 1
    for ax, hand in zip(axes, hands, strict=True):
        for s in series:
            d = dist[(dist.series == s.name) & (dist.hand == hand) & (dist.jokers == "all")]
            d = d[d.value <= vmax]
            thr = s.rules.threshold
            if single:
                colors = np.where(d.value.to_numpy() >= thr, _COLORS[0], _GREY)
                ax.bar(d.value, d.p, width=1.0, color=colors, linewidth=0)
            else:
                ax.step(d.value, d.p, where="mid", color=_color(s.index), label=s.name, lw=1.3)
        _mark_thresholds(ax, series)
        ax.set_title(_hand_title(hand, series[0].rules))
        ax.set_xlabel("best opening value")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
        ax.set_xlim(0, vmax)
        ax.set_ylim(0, None)
    axes[0].set_ylabel("share of hands")
    _legend(fig, axes, len(series))
    return fig


def _mark_thresholds(ax: Axes, series: Sequence[_Series]) -> None:
    thrs = sorted({s.rules.threshold for s in series})
    for t in thrs:
        ax.axvline(t, color="#c0392b", ls="--", lw=1.1)
        ax.annotate(f"opens at {t}" if len(thrs) == 1 else str(t), (t, 1),
                    xycoords=("data", "axes fraction"), xytext=(3, -3),
                    textcoords="offset points", va="top", fontsize=8.5, color="#c0392b")


@_styled
def _fig_survival(dist: pd.DataFrame, series: Sequence[_Series], hands: Sequence[str]) -> Figure:
    fig, axes = _panels(len(hands))
    vmax = _dist_range(dist)
    for ax, hand in zip(axes, hands, strict=True):
        for s in series:
            d = dist[(dist.series == s.name) & (dist.hand == hand) & (dist.jokers == "all")]
            d = d[d.value <= vmax]
            c = _color(s.index)
            ax.fill_between(d.value, d.p_at_least_lo, d.p_at_least_hi, color=c, alpha=0.25,
                            step="mid", lw=0)
            ax.step(d.value, d.p_at_least, where="mid", color=c, lw=1.4, label=s.name)
            at = d[d.value == s.rules.threshold]
            if len(at):
                y = float(at.p_at_least.iloc[0])
                ax.plot([s.rules.threshold], [y], "o", color=c, ms=4)
                if len(series) <= 2:
                    ax.annotate(fmt_pct(y, 1), (s.rules.threshold, y), xytext=(6, 4),
                                textcoords="offset points", fontsize=8.5, color=c)
        _mark_thresholds(ax, series)
        ax.set_title(_hand_title(hand, series[0].rules))
        ax.set_xlabel("x")
        ax.set_xlim(0, vmax)
        _percent_axis(ax, top=1.02)
    axes[0].set_ylabel("P(best opening value ≥ x)")
    _legend(fig, axes, len(series))
    return fig


def _pooled_by_turn(bt: pd.DataFrame) -> pd.DataFrame:
    """P(opened by turn t) per joker class, the seats pooled (counts summed)."""
    g = (bt.groupby(["run", "series", "config", "players", "jokers", "turn"], sort=False)
           [["deals", "opened"]].sum().reset_index())
    p, lo, hi = proportion(g.opened.to_numpy(), g.deals.to_numpy())
    return g.assign(p_opened=p, p_opened_lo=lo, p_opened_hi=hi)


def _turn_panels(bt: pd.DataFrame, series: Sequence[_Series]) -> list[tuple[_Series, int]]:
    pairs = []
    for s in series:
        for p in sorted(bt[bt.series == s.name].players.unique()):
            pairs.append((s, int(p)))
    return pairs


@_styled
def _fig_by_turn(seat_data: pd.DataFrame, joker_data: pd.DataFrame, series: Sequence[_Series],
                 views: Sequence[str]) -> Figure:
    """P(opened by turn t): one panel per (series, players) and view; lines per seat
    (view "seat", from ``seat_data``) or per joker class with the seats pooled (view
    "jokers", from ``joker_data``)."""
    from matplotlib.ticker import MaxNLocator

    pairs = _turn_panels(seat_data, series)
    panels = [(s, players, v) for s, players in pairs for v in views]
    fig, axes = _panels(len(panels), ncols=min(3, len(panels)), height=3.4,
                        width=FIG_WIDTH if len(panels) > 1 else 7.5)
    data = {"seat": seat_data, "jokers": joker_data}
    for ax, (s, players, by) in zip(axes, panels, strict=True):
        d = data[by][(data[by].series == s.name) & (data[by].players == players)]
        keys = sorted(d.seat.unique()) if by == "seat" else [j for j in _JOKER_ORDER[1:]
                                                             if j in set(d.jokers)]
        for i, k in enumerate(keys):
            dd = d[d.seat == k] if by == "seat" else d[d.jokers == k]
            if int(dd.deals.iloc[0]) == 0:
                continue
            c = _color(i)
            label = (f"seat {k}" + (" (first player)" if k == 1 else "")) if by == "seat" \
                else f"{k} joker{'s' if k != '1' else ''} dealt"
            ax.fill_between(dd.turn, dd.p_opened_lo, dd.p_opened_hi, color=c, alpha=0.2, lw=0)
            ax.plot(dd.turn, dd.p_opened, color=c, lw=1.6, marker="o", ms=2.5, label=label)
        what = "per seat" if by == "seat" else "per jokers dealt, seats pooled"
        title = f"{players} players, {what}"
        if len(series) == 1:
            ax.set_title(title)
        else:
            ax.set_title(f"{s.name}\n{title}")
        ax.set_xlabel("turn t")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        _percent_axis(ax, top=1.02)
        ax.legend(loc="lower right", fontsize=8)
    axes[0].set_ylabel("P(opened by turn t)")
    return fig


def _sweep_x(series: Sequence[_Series]) -> str | None:
    """The rule field to put on the x axis of the sweep figure: a numeric field that
    differs (the one with the most values), when at most two fields differ."""
    diffs = _rule_diffs(series)
    numeric = [f for f in diffs if all(type(getattr(s.rules, f)) is int for s in series)]
    if not numeric or len(diffs) > 2:
        return None
    return max(numeric, key=lambda f: len({getattr(s.rules, f) for s in series}))


@_styled
def _fig_sweep(summary: pd.DataFrame, series: Sequence[_Series], hands: Sequence[str]) -> Figure:
    """P(can open) per configuration: against the swept rule field when there is one."""
    fig, axes = _panels(len(hands), sharex=True)
    xf = _sweep_x(series)
    alls = summary[summary.jokers == "all"]
    for ax, hand in zip(axes, hands, strict=True):
        d = alls[alls.hand == hand].set_index("series")
        if xf is None:
            x = np.arange(len(series))
            for s in series:
                if s.name in d.index:
                    r = d.loc[s.name]
                    ax.errorbar([s.index], [r.p_open], yerr=_yerr([r.p_open], [r.p_open_lo],
                                [r.p_open_hi]), fmt="o", color=_color(s.index), capsize=3)
            ax.set_xticks(x, [s.name for s in series], rotation=30, ha="right")
        else:
            others = [f for f in _rule_diffs(series) if f != xf]
            groups: dict[tuple, list[_Series]] = {}
            for s in series:
                key = (s.run,) + tuple(getattr(s.rules, f) for f in others)
                groups.setdefault(key, []).append(s)
            multi_run = len({s.run for s in series}) > 1
            for i, (key, ss) in enumerate(groups.items()):
                ss = [s for s in ss if s.name in d.index]
                ss.sort(key=lambda s: getattr(s.rules, xf))
                xs = [getattr(s.rules, xf) for s in ss]
                p = [d.loc[s.name].p_open for s in ss]
                lab = ", ".join(([key[0]] if multi_run else []) +
                                [f"{f}={v}" for f, v in zip(others, key[1:], strict=True)]) or None
                ax.errorbar(xs, p, yerr=_yerr(p, [d.loc[s.name].p_open_lo for s in ss],
                                              [d.loc[s.name].p_open_hi for s in ss]),
                            fmt="-o", color=_color(i), capsize=3, ms=4, label=lab)
            ax.set_xlabel(xf)
            ax.set_xticks(sorted({getattr(s.rules, xf) for s in series}))
        ax.set_title(_hand_title(hand, series[0].rules))
        _percent_axis(ax, top=1.02)
    axes[0].set_ylabel("P(can open)")
    if xf is not None:
        _legend(fig, axes, 2 if axes[0].get_legend_handles_labels()[1] else 0)
    return fig


@_styled
def _fig_players(bt: pd.DataFrame, series: Sequence[_Series]) -> Figure:
    """P(opened by the last turn) against the player count: seat 1 and the other seats."""
    from matplotlib.ticker import MaxNLocator

    fig, axes = _panels(2, ncols=2)
    T = int(bt.turn.max())
    d = bt[(bt.jokers == "all") & (bt.turn == T)]
    for i, s in enumerate(series):
        ds = d[d.series == s.name]
        players = sorted(ds.players.unique())
        first = ds[ds.seat == 1].set_index("players").reindex(players)
        axes[0].errorbar(players, first.p_opened, yerr=_yerr(first.p_opened, first.p_opened_lo,
                         first.p_opened_hi), fmt="-o", color=_color(i), capsize=3, ms=4,
                         label=s.name)
        rest = ds[ds.seat > 1].groupby("players")[["deals", "opened"]].sum().reindex(players)
        p, lo, hi = proportion(rest.opened.fillna(0).to_numpy(), rest.deals.fillna(0).to_numpy())
        axes[1].errorbar(players, p, yerr=_yerr(p, lo, hi), fmt="-o", color=_color(i),
                         capsize=3, ms=4, label=s.name)
    axes[0].set_title("seat 1 (first player)")
    axes[1].set_title("other seats (pooled)")
    for ax in axes:
        ax.set_xlabel("players at the table")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        _percent_axis(ax, top=None)
    axes[0].set_ylabel(f"P(opened by turn {T})")
    _legend(fig, axes, len(series))
    return fig


def opening_sections(runs: Sequence[Run]) -> list[Section]:
    """The report sections of opening-study runs (side by side when several)."""
    runs = [r for r in runs if r.kind == "openings"]
    if not runs:
        return []
    series = _opening_series(runs)
    sections: list[Section] = []
    summary = _tagged(runs, series, "summary", by_jokers=True)
    if len(summary) > 0:
        hands = [h for h in ("first", "other", "raw") if h in set(summary.hand)]
        sections.append(_deal_section(runs, series, summary, hands))
        sections.append(_values_section(runs, series, hands))
    bt = _tagged(runs, series, "by_turn", by_jokers=True)
    if len(bt):
        sections.append(_turns_section(runs, series, bt))
    return sections


def _deal_section(runs: Sequence[Run], series: Sequence[_Series], summary: pd.DataFrame,
                  hands: Sequence[str]) -> Section:
    """The "Opening from the deal" section: P(can open) and P(go out at once) of a dealt
    hand (``summary``), of all hands and by the jokers they hold; several
    configurations get the sweep figure and the side-by-side table in front."""
    scol = _series_cols(series, runs)
    alls = summary[summary.jokers == "all"].reset_index(drop=True)
    alls.insert(alls.columns.get_loc("hand") + 1, "hand_text",
                [_hand_title(h, next(s.rules for s in series if s.name == n))
                 for h, n in zip(alls.hand, alls.series, strict=True)])
    summary_t = ReportTable(
        "openings_summary", "P(can open) and P(go out at once) from the deal", alls,
        tuple(scol + [Column("hand_text", "hand"), Column("threshold", "opens at", "int"),
                      Column("hands", "hands", "int"),
                      Column("p_open", "P(can open)", "pct", "p_open_lo", "p_open_hi"),
                      Column("p_go_out", "P(go out at once)", "pct", "p_go_out_lo",
                             "p_go_out_hi"),
                      Column("mean_best", "mean best value", "num", se="mean_best_se")]),
        "In percent with the 95 % Wilson interval; the mean best opening value ± 1.96 "
        "standard errors. One card is always kept for the discard.")
    byj = summary[summary.jokers != "all"].reset_index(drop=True)
    jokers_f = ReportFigure(
        "openings_by_jokers", "P(can open) by jokers in the hand",
        _fig_by_jokers(summary, series, hands),
        "Bars: P(can open) of all hands and by the jokers they hold; whiskers: 95 % Wilson "
        "intervals.",
        summary[["run", "series", "config", "hand", "jokers", "hands", "p_open", "p_open_lo",
                 "p_open_hi"]])
    jokers_t = ReportTable(
        "openings_by_jokers", "By jokers in the hand", byj,
        tuple(scol + [Column("hand", "hand"), Column("jokers", "jokers"),
                      Column("hands", "hands", "int"), Column("share", "share", "pct"),
                      Column("p_open", "P(can open)", "pct", "p_open_lo", "p_open_hi"),
                      Column("p_go_out", "P(go out at once)", "pct", "p_go_out_lo",
                             "p_go_out_hi"),
                      Column("mean_best", "mean best value", "num", se="mean_best_se")]),
        "share: the fraction of hands that hold that many jokers.")
    items: list = [jokers_f, summary_t, jokers_t]
    if len(series) > 1:
        items[:0] = _sweep_items(runs, series, summary, alls, hands)
    return Section(
        "Opening from the deal", "openings",
        "How often a freshly dealt hand can open (melds worth at least the threshold, one "
        "card kept for the discard) and go out at once (the hand win). Jokers decide most "
        "of it.", tuple(items))


def _sweep_items(runs: Sequence[Run], series: Sequence[_Series], summary: pd.DataFrame,
                 alls: pd.DataFrame, hands: Sequence[str]) -> list:
    """The sweep figure (P(can open) per configuration, ``alls`` its data) and the table
    of every run and configuration side by side, for several configurations."""
    # (overview() of a study without the deal part fails: only runs with hands)
    ov = _tagged([r for r in runs if r.study.hands], series, "overview")
    diffs = _rule_diffs(series)
    rules_of = {s.name: s.rules for s in series}
    for f in diffs:
        ov[f] = [getattr(rules_of[n], f) for n in ov.series]
    cols = [Column("series", "configuration")] + [Column(f, f, "int") for f in diffs]
    cols.append(Column("deals", "deals", "int"))
    for h in hands:
        cols.append(Column(f"p_open_{h}", f"P(can open) {h}", "pct", f"p_open_lo_{h}",
                           f"p_open_hi_{h}"))
    for h in hands:
        if h != "raw":
            cols.append(Column(f"p_go_out_{h}", f"P(go out) {h}", "pct",
                               f"p_go_out_lo_{h}", f"p_go_out_hi_{h}"))
    xf = _sweep_x(series)
    return [
        ReportFigure("openings_sweep", "P(can open) across the runs and configurations",
                     _fig_sweep(summary, series, hands),
                     "Points with 95 % Wilson intervals"
                     + (f", against {xf}." if xf else "."),
                     alls[["run", "series", "config", "hand", "p_open", "p_open_lo",
                           "p_open_hi"]]),
        ReportTable("openings_side_by_side",
                    "Side by side: one row per run and configuration", ov, tuple(cols),
                    "first: the first player's hand; other: 14 + 1 drawn; raw: 14 cards.")]


def _values_section(runs: Sequence[Run], series: Sequence[_Series], hands: Sequence[str]) -> Section:
    """The "Best opening value" section: the distribution of a dealt hand's best opening
    value, and P(best >= x) for a few x and the thresholds."""
    multi = len(series) > 1
    scol = _series_cols(series, runs)
    dist = _tagged(runs, series, "value_distribution")
    xs = sorted({30, 40, 45, 60, 70, 80, 90, 100} | {s.rules.threshold for s in series})
    da = dist[(dist.jokers == "all") & dist.value.isin(xs)]
    wide = da.pivot_table(index=["run", "series", "config", "value"], columns="hand",
                          values=["p_at_least", "p_at_least_lo", "p_at_least_hi"],
                          sort=False)
    wide.columns = [f"{a}_{h}" for a, h in wide.columns]
    wide = wide.reset_index().sort_values(["series", "value"], kind="stable",
                                          key=lambda c: c.map({s.name: s.index for s in series})
                                          if c.name == "series" else c)
    thr_of = {s.name: s.rules.threshold for s in series}
    wide.insert(4, "x", [f"{v} (threshold)" if v == thr_of[n] else str(v)
                         for v, n in zip(wide.value, wide.series, strict=True)])
    cols = scol + [Column("x", "x")]
    for h in hands:
        cols.append(Column(f"p_at_least_{h}", f"{h}", "pct", f"p_at_least_lo_{h}",
                           f"p_at_least_hi_{h}"))
    return Section(
        "Best opening value", "values",
        "The largest total of disjoint melds a hand holds (one card kept). Its "
        "distribution answers the question for any threshold x: P(best ≥ x).",
        (ReportFigure("openings_value_distribution", "Distribution of the best opening value",
                      _fig_value_distribution(dist, series, hands),
                      "Share of hands by best opening value (all joker counts); the dashed "
                      "line is the threshold" + ("; bars at or above it can open." if not multi
                                                  else "."),
                      dist[dist.jokers == "all"][["run", "series", "config", "hand", "value",
                                                   "count", "hands", "p"]]),
         ReportFigure("openings_p_at_least", "P(best opening value ≥ x)",
                      _fig_survival(dist, series, hands),
                      "Bands: 95 % Wilson intervals; the dot is P(can open) at the threshold.",
                      dist[dist.jokers == "all"][["run", "series", "config", "hand", "value",
                                                   "p_at_least", "p_at_least_lo",
                                                   "p_at_least_hi"]]),
         ReportTable("openings_p_at_least", "P(best opening value ≥ x)", wide, tuple(cols),
                     "Every x from 0 up is in the figure's CSV; the row at the threshold "
                     "is P(can open).")))


def _turns_section(runs: Sequence[Run], series: Sequence[_Series], bt: pd.DataFrame) -> Section:
    """The "Turn by turn" section: P(opened by turn t) per seat and per jokers dealt
    (``bt``, the runs' by-turn tables), and by the number of players when it varies."""
    import pandas as pd

    multi = len(series) > 1
    scol = _series_cols(series, runs)
    T = int(bt.turn.max())
    show = sorted({t for t in (1, 2, 3, 5, 10, T) if t <= T})
    bta = bt[(bt.jokers == "all") & bt.turn.isin(show)]
    wide = bta.pivot_table(index=["run", "series", "config", "players", "turn"], columns="seat",
                           values=["p_opened", "p_opened_lo", "p_opened_hi", "deals"],
                           sort=False)
    wide.columns = [f"{a}_{s}" for a, s in wide.columns]
    wide = wide.reset_index()
    maxp = int(bt.players.max())
    cols = (scol + ([Column("players", "players", "int")]
                    if bt.players.nunique() > 1 or multi else [])
            + [Column("turn", "turn", "int")])
    for seat in range(1, maxp + 1):
        if f"p_opened_{seat}" in wide.columns:
            cols.append(Column(f"p_opened_{seat}", f"seat {seat}", "pct",
                               f"p_opened_lo_{seat}", f"p_opened_hi_{seat}"))
    table = ReportTable("openings_by_turn", "P(opened by turn t)", wide, tuple(cols),
                        "Selected turns; every turn, seat and joker count is in the figures' "
                        "CSV.")
    seat_data = bt[bt.jokers == "all"]
    joker_data = _pooled_by_turn(bt[bt.jokers != "all"])
    caption = ("Bands: 95 % Wilson intervals. Seat 1 holds 15 cards and does not draw on "
               "turn 1; every seat discards by the keep-best policy.")
    items: list[ReportFigure | ReportTable]
    if len(_turn_panels(bt, series)) == 1:
        items = [ReportFigure("openings_by_turn", "P(opened by turn t)",
                              _fig_by_turn(seat_data, joker_data, series, ("seat", "jokers")),
                              caption,
                              pd.concat([seat_data, joker_data], ignore_index=True)),
                 table]
    else:
        items = [ReportFigure("openings_by_turn_seat", "P(opened by turn t), per seat",
                              _fig_by_turn(seat_data, joker_data, series, ("seat",)), caption,
                              seat_data),
                 ReportFigure("openings_by_turn_jokers",
                              "P(opened by turn t), per jokers dealt",
                              _fig_by_turn(seat_data, joker_data, series, ("jokers",)),
                              "The seats pooled; bands: 95 % Wilson intervals.", joker_data),
                 table]
    if any(bt[bt.series == s.name].players.nunique() > 1 for s in series):
        items.insert(2, ReportFigure(
            "openings_players", f"P(opened by turn {T}) by the number of players",
            _fig_players(bt, series), "Points with 95 % Wilson intervals.",
            bt[(bt.jokers == "all") & (bt.turn == T)]))
    return Section(
        "Turn by turn", "turns",
        "A full table is dealt from one deck; each seat draws from the stock and, until "
        "it can open, discards the card whose removal keeps its best opening value "
        "highest. Nobody takes from the discard pile: this is when the cards allow an "
        "opening, not a strategy.", tuple(items))


def opening_headlines(run: Run) -> list[Headline]:
    st = run.study
    if not st.hands:
        return []
    s = st.summary(by_jokers=False)
    r0 = st.rules[0]
    out = []
    for hand in ("first", "other"):
        d = s[s.hand == hand]
        if not len(d):
            continue
        who, cards = _hand_title(hand, r0).split(", ", 1)
        what = f"P(can open): {who}"
        if len(d) == 1:
            r = d.iloc[0]
            out.append(Headline(what, r.p_open, "pct", r.p_open_lo, r.p_open_hi,
                                f"{cards}; {int(r.hands):,} hands"))
        else:
            out.append(Headline(what, f"{fmt_pct(d.p_open.min())} – {fmt_pct(d.p_open.max())}",
                                "text", note=f"over {len(d)} configurations"))
    d = s[s.hand == "first"]
    if len(d) == 1:
        r = d.iloc[0]
        out.append(Headline("P(go out at once): first player", r.p_go_out, "pct",
                            r.p_go_out_lo, r.p_go_out_hi, "the hand win, straight from the deal"))
    if len(st.labels) == 1 and st.players and st.turn_deals:
        bt = st.by_turn()
        t = min(5, st.turns)
        q = bt[(bt.players == st.players[0]) & (bt.turn == t)]
        p, lo, hi = proportion(int(q.opened.sum()), int(q.deals.sum()))
        out.append(Headline(f"P(opened by turn {t})", float(p), "pct", float(lo), float(hi),
                            f"any seat of {st.players[0]}; keep-best discards"))
    return out
