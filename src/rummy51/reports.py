"""Statistical reports: run directories in, tables, figures, HTML and Markdown out.

Pure functions: they compute and never print (the command line ``rummy51 report``
writes the files). The pieces:

* ``load_run(path) -> Run``: a run directory read by the ``kind`` in its
  ``manifest.json`` ("openings": ``OpeningStudy.load``; "games": ``GameStudy.load``).
  A missing directory, a missing or damaged manifest, a kind this module does not
  know or a damaged run raise ``ReportError`` (a ``ValueError``) naming the path
  and what is wrong.
* ``build_report(runs, title=None) -> Report``: every table (``ReportTable``: the
  numbers as a pandas DataFrame plus how to show its columns) and every figure
  (``ReportFigure``: a ``matplotlib.figure.Figure`` drawn by the Agg canvas, never
  pyplot, with the plotted numbers as a DataFrame), grouped in ``Section`` s, with
  ``Headline`` numbers for the first screen. Several runs are shown side by side:
  one row (or one column) per run in the tables, and figures whose panels share
  their axes.
* ``opening_sections(runs)``, ``game_sections(runs)``: the sections of each kind.
* ``bradley_terry(records)``: Bradley-Terry ratings of the bots of a game run on the
  Elo scale, fitted by the MM algorithm, with bootstrap intervals over deals.
* ``render_html(report) -> str``: one self-contained page (PNG figures as base64
  data URIs, inline CSS, no script, no external file or font) that opens offline;
  ``render_markdown(report, assets_dir) -> str`` writes the figures as PNG files
  into ``assets_dir`` and returns Markdown that links them; ``write_tables(report,
  directory)`` writes every table and every figure's data as CSV.

Every number shown comes from the run directories: the openings tables are
``OpeningStudy.summary()``, ``value_distribution()``, ``by_turn()`` and
``overview()`` of the loaded runs; the games tables are computed from the
per-player-deal records. Probabilities carry 95 % Wilson intervals
(``rummy51.stats``), means ± 1.96 standard errors, ratings 95 % bootstrap intervals.

>>> import pandas as pd
>>> rec = pd.DataFrame({"deal": [0, 0, 1, 1, 2, 2], "bot": ["a", "b"] * 3,
...                     "went_out": [True, False, True, False, False, True],
...                     "draw": [False] * 6})
>>> bt = bradley_terry(rec, bootstrap=50, seed=1)
>>> list(bt.bot), bool(bt.rating.iloc[0] > 1500 > bt.rating.iloc[1])
(['a', 'b'], True)
"""
from __future__ import annotations

import base64
import dataclasses
import functools
import html
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Sequence, Union

import numpy as np

from .stats import Z95, proportion

__all__ = [
    "ReportError",
    "Run",
    "Column",
    "ReportTable",
    "ReportFigure",
    "Section",
    "Headline",
    "Report",
    "GAME_COLUMNS",
    "load_run",
    "load_runs",
    "build_report",
    "opening_sections",
    "game_sections",
    "game_records",
    "pairwise_wins",
    "bradley_terry",
    "figure_png",
    "render_html",
    "render_markdown",
    "write_tables",
    "fmt_pct",
    "fmt_interval",
    "cell_text",
]

#: Columns a games run's records must have (one row per player and deal).
GAME_COLUMNS = ("deal", "seat", "bot", "first_player", "score", "opened", "turn_opened",
                "went_out", "hand_win", "bottom_card_win", "deal_length", "draw")
#: The kinds of run directory a report reads.
KINDS = ("openings", "games")

ELO_MEAN = 1500.0
_ELO = 400.0 / math.log(10.0)  # rating points per unit of log-strength


class ReportError(ValueError):
    """A run directory cannot be reported on: missing, damaged, or of an unknown kind."""


# --------------------------------------------------------------------------- runs
@dataclass(frozen=True, eq=False)
class Run:
    """A loaded run directory: ``study`` is an ``OpeningStudy`` or a ``GameStudy``;
    ``name`` is the short name the report shows (the directory's name, made unique)."""

    path: Path
    kind: str
    name: str
    study: Any
    manifest: dict
    records: Any = None  # games: the per-player-deal records (a DataFrame)


def _load_openings(path: Path):
    from .montecarlo import OpeningStudy

    return OpeningStudy.load(path)


def _load_games(path: Path):
    try:
        from .games import GameStudy
    except ImportError as e:
        raise ReportError(f"{path} holds a games run, but this rummy51 cannot read games runs "
                          f"(rummy51.games: {e})") from None
    return GameStudy.load(path)


_LOADERS = {"openings": _load_openings, "games": _load_games}


def load_run(path, name: Optional[str] = None) -> Run:
    """Read the run directory ``path`` by the ``kind`` of its ``manifest.json``.

    Raises ``ReportError`` naming the path and the problem when the directory is
    missing, has no readable manifest, is of a kind the report does not know, or its
    results cannot be read (an unfinished or damaged run)."""
    p = Path(path)
    if not p.exists():
        raise ReportError(f"{p}: no such run directory")
    if not p.is_dir():
        raise ReportError(f"{p} is a file, not a run directory")
    mf = p / "manifest.json"
    if not mf.is_file():
        raise ReportError(f"{p} is not a run directory: it has no manifest.json")
    try:
        manifest = json.loads(mf.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise ReportError(f"{mf} is damaged: it is not readable JSON ({e})") from None
    if not isinstance(manifest, dict):
        raise ReportError(f"{mf} is damaged: it holds no JSON object")
    kind = manifest.get("kind")
    if kind not in _LOADERS:
        raise ReportError(f"{mf}: run kind {kind!r} has no report (a report reads "
                          f"{' and '.join(repr(k) for k in KINDS)} runs)")
    try:
        study = _LOADERS[kind](p)
        records = game_records(study, p) if kind == "games" else None
    except ReportError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, OSError) as e:
        raise ReportError(f"cannot read the {kind} run in {p}: {e}") from None
    return Run(path=p, kind=kind, name=name or p.name or str(p), study=study,
               manifest=manifest, records=records)


def load_runs(paths: Iterable) -> tuple[Run, ...]:
    """``load_run`` of each path (a ``Run`` is kept as it is), names made unique:
    two directories of the same name are told apart by their parents."""
    runs = [p if isinstance(p, Run) else load_run(p) for p in paths]
    if not runs:
        raise ReportError("no run directories: give at least one")
    given = [r.name for r in runs]
    names = list(given)
    for i, r in enumerate(runs):
        if given.count(r.name) > 1:
            parts = r.path.resolve().parts
            names[i] = "/".join(parts[-2:]) if len(parts) >= 2 else r.name
    seen: dict[str, int] = {}
    out = []
    for r, n in zip(runs, names):
        k = seen.get(n, 0)
        seen[n] = k + 1
        out.append(dataclasses.replace(r, name=n if not k else f"{n} ({k + 1})"))
    return tuple(out)


def game_records(study, path=None):
    """The records of a ``GameStudy`` (one row per player and deal, ``GAME_COLUMNS``),
    bot names as plain strings; ``ReportError`` when a column is missing or there are
    no deals."""
    where = f" in {path}" if path is not None else ""
    df = study.records
    missing = [c for c in GAME_COLUMNS if c not in df.columns]
    if missing:
        raise ReportError(f"the games records{where} lack the column(s) {', '.join(missing)}")
    if df.empty:
        raise ReportError(f"the games run{where} holds no deals")
    return df.assign(bot=df["bot"].astype(str))


# --------------------------------------------------------------------------- report data
@dataclass(frozen=True)
class Column:
    """How one column of a table is shown.

    ``kind``: "text", "int" (thousands separators), "pct" (a probability in percent;
    ``lo``/``hi`` name its interval's columns), "num" (``digits`` decimals; ``se``
    names a standard-error column shown as ± 1.96 SE, or ``lo``/``hi`` an interval)."""

    key: str
    header: str
    kind: str = "text"
    lo: Optional[str] = None
    hi: Optional[str] = None
    se: Optional[str] = None
    digits: int = 2


@dataclass(frozen=True, eq=False)
class ReportTable:
    """A table: ``data`` holds the numbers (written as ``<name>.csv``), ``columns`` say
    which are shown and how."""

    name: str
    title: str
    data: Any
    columns: tuple[Column, ...]
    caption: str = ""


@dataclass(frozen=True, eq=False)
class ReportFigure:
    """A figure: a ``matplotlib.figure.Figure`` (Agg canvas) and the numbers it plots
    (``data``, written as ``<name>.csv``)."""

    name: str
    title: str
    figure: Any
    caption: str = ""
    data: Any = None


@dataclass(frozen=True, eq=False)
class Section:
    title: str
    anchor: str
    intro: str
    items: tuple[Union[ReportTable, ReportFigure], ...]


@dataclass(frozen=True)
class Headline:
    """A number for the first screen: ``value`` (with an interval ``lo``..``hi``)
    shown as ``kind`` ("pct", "int", "num", "text")."""

    label: str
    value: Any
    kind: str = "pct"
    lo: Optional[float] = None
    hi: Optional[float] = None
    note: str = ""
    digits: int = 0
    run: str = ""  # the run it belongs to (the page groups the headlines by run)


@dataclass(frozen=True, eq=False)
class Report:
    title: str
    runs: tuple[Run, ...]
    runs_table: ReportTable
    headlines: tuple[Headline, ...]
    sections: tuple[Section, ...]
    version: str = ""

    def tables(self) -> Iterator[ReportTable]:
        yield self.runs_table
        for s in self.sections:
            yield from (i for i in s.items if isinstance(i, ReportTable))

    def figures(self) -> Iterator[ReportFigure]:
        for s in self.sections:
            yield from (i for i in s.items if isinstance(i, ReportFigure))


# --------------------------------------------------------------------------- formatting
def _finite(x) -> bool:
    try:
        return x is not None and np.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def _pct_digits(*ps) -> int:
    vals = [abs(100 * float(p)) for p in ps if _finite(p) and float(p) != 0]
    low = min(vals) if vals else 1.0
    return 2 if low >= 1 else 3 if low >= 0.01 else 4


def fmt_pct(p, digits: Optional[int] = None) -> str:
    """A probability in percent: ``fmt_pct(0.36414) == '36.41%'``; 3 decimals below 1 %
    (4 below 0.01 %), '–' for NaN."""
    if not _finite(p):
        return "–"
    d = _pct_digits(p) if digits is None else digits
    return f"{100 * float(p):.{d}f}%"


def fmt_interval(lo, hi, digits: int = 2, pct: bool = True) -> str:
    """``'36.32–36.51'``: an interval's ends (in percent when ``pct``)."""
    if not (_finite(lo) and _finite(hi)):
        return ""
    k = 100.0 if pct else 1.0
    return f"{k * float(lo):.{digits}f}–{k * float(hi):.{digits}f}"


def cell_text(col: Column, row: dict) -> tuple[str, str]:
    """``(value, interval)`` texts of ``col`` in ``row`` (a dict of the table's data)."""
    v = row.get(col.key)
    if col.kind == "text":
        return ("–" if v is None or (isinstance(v, float) and v != v) else str(v)), ""
    if not _finite(v):
        return "–", ""
    if col.kind == "int":
        return f"{int(round(float(v))):,}", ""
    if col.kind == "pct":
        lo, hi = row.get(col.lo) if col.lo else None, row.get(col.hi) if col.hi else None
        d = _pct_digits(v, lo, hi)
        return fmt_pct(v, d), fmt_interval(lo, hi, d) if col.lo else ""
    if col.kind == "num":
        text = f"{float(v):.{col.digits}f}"
        if col.se and _finite(row.get(col.se)):
            return text, f"± {Z95 * float(row[col.se]):.{col.digits}f}"
        if col.lo and _finite(row.get(col.lo)) and _finite(row.get(col.hi)):
            return text, fmt_interval(row[col.lo], row[col.hi], col.digits, pct=False)
        return text, ""
    raise ValueError(f"column {col.key!r}: unknown kind {col.kind!r}")


def _headline_text(h: Headline) -> tuple[str, str]:
    if h.kind == "pct":
        d = _pct_digits(h.value, h.lo, h.hi)
        return fmt_pct(h.value, d), (fmt_interval(h.lo, h.hi, d) if h.lo is not None else "")
    if h.kind == "int":
        return f"{int(h.value):,}", ""
    if h.kind == "num":
        ci = (fmt_interval(h.lo, h.hi, h.digits, pct=False)
              if h.lo is not None and _finite(h.lo) else "")
        return f"{float(h.value):.{h.digits}f}", ci
    return str(h.value), ""


# --------------------------------------------------------------------------- figures
_COLORS = ("#1f5fa8", "#d9622b", "#2a9d57", "#b8336a", "#7a5cc0", "#8c6d31", "#2ab0b8",
           "#5f6b7a", "#c9a227", "#e377c2")
_GREY = "#9aa3ad"
FIG_WIDTH = 10.5  # inches; 100 dpi: 1050 px, the width of the page's column


def _color(i: int) -> str:
    return _COLORS[i % len(_COLORS)]


def _figure(width: float, height: float):
    """An empty figure on the Agg canvas (never pyplot), constrained layout, 100 dpi."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ReportError("reports draw their figures with matplotlib: "
                          "pip install 'rummy51[report]'") from None
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _panels(n: int, ncols: int = 3, height: float = 3.3, sharex=True, sharey=True,
            width: float = FIG_WIDTH):
    """A figure of ``n`` panels on a grid, the axes flattened; the spare cells of the
    grid are hidden."""
    ncols = max(1, min(ncols, n))
    nrows = math.ceil(n / ncols)
    fig = _figure(width, height * nrows + 0.4)
    axes = fig.subplots(nrows, ncols, sharex=sharex, sharey=sharey, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, list(axes[:n])


def _finish(fig) -> None:
    """The report's look, set on the finished figure's own artists (no rcParams, no
    pyplot): light grid, no top and right spines, bold titles, legends without frames."""
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        for side in ("left", "bottom"):
            ax.spines[side].set_color("#8a939e")
        ax.grid(True, color="#e3e6eb", linewidth=0.8)
        ax.set_axisbelow(True)
        ax.tick_params(colors="#3b4350", labelcolor="#3b4350")
        title = ax.title
        title.set_fontweight("bold")
        title.set_fontsize(9.5 if "\n" in title.get_text() else 11)
        if ax.get_legend() is not None:
            ax.get_legend().set_frame_on(False)
    for leg in fig.legends:
        leg.set_frame_on(False)


def _styled(fn):
    """A figure builder whose figure gets the report's look (``_finish``)."""
    @functools.wraps(fn)
    def wrapper(*a, **kw):
        fig = fn(*a, **kw)
        _finish(fig)
        return fig
    return wrapper


def _percent_axis(ax, top: Optional[float] = 1.0) -> None:
    from matplotlib.ticker import PercentFormatter

    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    if top is not None:
        ax.set_ylim(0, top)


def _legend(fig, axes, n_entries: int) -> None:
    if n_entries <= 1:
        return
    seen: dict[str, Any] = {}
    for ax in axes:
        for h, l in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(l, h)
    longest = max(len(l) for l in seen)
    fig.legend(list(seen.values()), list(seen), loc="outside lower center", fontsize=9,
               ncols=max(1, min(len(seen), 5, 120 // (longest + 6))))


def _yerr(p, lo, hi) -> np.ndarray:
    p, lo, hi = (np.asarray(x, float) for x in (p, lo, hi))
    return np.vstack([np.clip(p - lo, 0, None), np.clip(hi - p, 0, None)])


def _grouped_bars(ax, groups: Sequence[str], series: Sequence[tuple[str, Any]], *,
                  labels: bool = True) -> None:
    """Bars with interval whiskers: one group per x label, one bar per series; each
    series is ``(name, DataFrame with p, lo, hi indexed by the group labels)``."""
    S = len(series)
    width = 0.8 / max(S, 1)
    x0 = np.arange(len(groups))
    for i, (name, df) in enumerate(series):
        d = df.reindex(list(groups))
        ok = np.isfinite(d["p"].to_numpy(float))
        x = x0 + (i - (S - 1) / 2) * width
        bars = ax.bar(x[ok], d["p"].to_numpy(float)[ok], width * 0.92, color=_color(i),
                      label=name, yerr=_yerr(d["p"], d["lo"], d["hi"])[:, ok],
                      error_kw={"elinewidth": 1, "capsize": 2.5, "ecolor": "#2b2f36"})
        if labels and S <= 2:
            ax.bar_label(bars, labels=[fmt_pct(v, 1) if v >= 0.01 else fmt_pct(v)
                                       for v in d["p"].to_numpy(float)[ok]],
                         padding=3, fontsize=8, color="#3b4350")
    ax.set_xticks(x0, list(groups))


def figure_png(fig, dpi: int = 100) -> bytes:
    """The figure as PNG bytes (Agg)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


# --------------------------------------------------------------------------- openings
_JOKER_ORDER = ("all", "0", "1", "2", "3+")


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
    out = []
    for run in runs:
        st = run.study
        for label, rules in st.configs:
            if multi:
                name = f"{run.name}: {label}" if len(st.labels) > 1 else run.name
            else:
                name = label
            out.append(_Series(name, run.name, label, rules, len(out)))
    return out


def _tagged(runs: Sequence[Run], series: Sequence[_Series], method: str, **kw):
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


def _hand_title(hand: str, rules) -> str:
    from .montecarlo import _kind_text

    return _kind_text(hand, rules)


def _rule_diffs(series: Sequence[_Series]) -> list[str]:
    from .rules import RuleSet

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
def _fig_by_jokers(summary, series, hands):
    fig, axes = _panels(len(hands), sharex=False, height=2.9)
    groups = list(_JOKER_ORDER)
    for ax, hand in zip(axes, hands):
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


def _dist_range(dist) -> int:
    """The largest value worth drawing: where the 'all' distributions have 99.99 % of
    their mass (at least past every threshold)."""
    d = dist[dist.jokers == "all"]
    top = d[d.p_at_least >= 1e-4]
    return int(top.value.max()) + 3 if len(top) else int(d.value.max())


@_styled
def _fig_value_distribution(dist, series, hands):
    from matplotlib.ticker import PercentFormatter

    fig, axes = _panels(len(hands))
    vmax = _dist_range(dist)
    single = len(series) == 1
    for ax, hand in zip(axes, hands):
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


def _mark_thresholds(ax, series) -> None:
    thrs = sorted({s.rules.threshold for s in series})
    for t in thrs:
        ax.axvline(t, color="#c0392b", ls="--", lw=1.1)
        ax.annotate(f"opens at {t}" if len(thrs) == 1 else str(t), (t, 1),
                    xycoords=("data", "axes fraction"), xytext=(3, -3),
                    textcoords="offset points", va="top", fontsize=8.5, color="#c0392b")


@_styled
def _fig_survival(dist, series, hands):
    fig, axes = _panels(len(hands))
    vmax = _dist_range(dist)
    for ax, hand in zip(axes, hands):
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


def _pooled_by_turn(bt):
    """P(opened by turn t) per joker class, the seats pooled (counts summed)."""
    g = (bt.groupby(["run", "series", "config", "players", "jokers", "turn"], sort=False)
           [["deals", "opened"]].sum().reset_index())
    p, lo, hi = proportion(g.opened.to_numpy(), g.deals.to_numpy())
    return g.assign(p_opened=p, p_opened_lo=lo, p_opened_hi=hi)


def _turn_panels(bt, series):
    pairs = []
    for s in series:
        for p in sorted(bt[bt.series == s.name].players.unique()):
            pairs.append((s, int(p)))
    return pairs


@_styled
def _fig_by_turn(seat_data, joker_data, series, views: Sequence[str]):
    """P(opened by turn t): one panel per (series, players) and view; lines per seat
    (view "seat", from ``seat_data``) or per joker class with the seats pooled (view
    "jokers", from ``joker_data``)."""
    from matplotlib.ticker import MaxNLocator

    pairs = _turn_panels(seat_data, series)
    panels = [(s, players, v) for s, players in pairs for v in views]
    fig, axes = _panels(len(panels), ncols=min(3, len(panels)), height=3.4,
                        width=FIG_WIDTH if len(panels) > 1 else 7.5)
    data = {"seat": seat_data, "jokers": joker_data}
    for ax, (s, players, by) in zip(axes, panels):
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


def _sweep_x(series) -> Optional[str]:
    """The rule field to put on the x axis of the sweep figure: a numeric field that
    differs (the one with the most values), when at most two fields differ."""
    diffs = _rule_diffs(series)
    numeric = [f for f in diffs if all(type(getattr(s.rules, f)) is int for s in series)]
    if not numeric or len(diffs) > 2:
        return None
    return max(numeric, key=lambda f: len({getattr(s.rules, f) for s in series}))


@_styled
def _fig_sweep(summary, series, hands):
    """P(can open) per configuration: against the swept rule field when there is one."""
    fig, axes = _panels(len(hands), sharex=True)
    xf = _sweep_x(series)
    alls = summary[summary.jokers == "all"]
    for ax, hand in zip(axes, hands):
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
                                [f"{f}={v}" for f, v in zip(others, key[1:])]) or None
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
def _fig_players(bt, series):
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
    import pandas as pd

    runs = [r for r in runs if r.kind == "openings"]
    if not runs:
        return []
    series = _opening_series(runs)
    multi = len(series) > 1
    scol = _series_cols(series, runs)
    sections: list[Section] = []
    summary = _tagged(runs, series, "summary", by_jokers=True)
    have_deals = len(summary) > 0
    hands = [h for h in ("first", "other", "raw") if have_deals and h in set(summary.hand)]

    if have_deals:
        alls = summary[summary.jokers == "all"].reset_index(drop=True)
        alls.insert(alls.columns.get_loc("hand") + 1, "hand_text",
                    [_hand_title(h, next(s.rules for s in series if s.name == n))
                     for h, n in zip(alls.hand, alls.series)])
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
        if multi:
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
            items[:0] = [
                ReportFigure("openings_sweep", "P(can open) across the runs and configurations",
                             _fig_sweep(summary, series, hands),
                             "Points with 95 % Wilson intervals"
                             + (f", against {xf}." if xf else "."),
                             alls[["run", "series", "config", "hand", "p_open", "p_open_lo",
                                   "p_open_hi"]]),
                ReportTable("openings_side_by_side",
                            "Side by side: one row per run and configuration", ov, tuple(cols),
                            "first: the first player's hand; other: 14 + 1 drawn; raw: 14 cards.")]
        sections.append(Section(
            "Opening from the deal", "openings",
            "How often a freshly dealt hand can open (melds worth at least the threshold, one "
            "card kept for the discard) and go out at once (the hand win). Jokers decide most "
            "of it.", tuple(items)))

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
                             for v, n in zip(wide.value, wide.series)])
        cols = scol + [Column("x", "x")]
        for h in hands:
            cols.append(Column(f"p_at_least_{h}", f"{h}", "pct", f"p_at_least_lo_{h}",
                               f"p_at_least_hi_{h}"))
        sections.append(Section(
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
                         "is P(can open)."))))

    bt = _tagged(runs, series, "by_turn", by_jokers=True)
    if len(bt):
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
        sections.append(Section(
            "Turn by turn", "turns",
            "A full table is dealt from one deck; each seat draws from the stock and, until "
            "it can open, discards the card whose removal keeps its best opening value "
            "highest. Nobody takes from the discard pile: this is when the cards allow an "
            "opening, not a strategy.", tuple(items)))
    return sections


def _opening_headlines(run: Run) -> list[Headline]:
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


def _tagged_games(runs: Sequence[Run], method: str, *args):
    """``study.<method>(*args)`` of every games run, concatenated, ``run`` in front."""
    import pandas as pd

    frames = []
    for r in runs:
        df = getattr(r.study, method)(*args).copy()
        df.insert(0, "run", r.name)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def _bottom_wins(runs: Sequence[Run]):
    """Per run and bot: wins by hand with the bottom card per player-deal (Wilson)."""
    import pandas as pd

    rows = []
    for r in runs:
        for bot, g in r.records.groupby("bot", sort=False):
            k = int(g.bottom_card_win.sum())
            p, lo, hi = proportion(k, len(g))
            rows.append({"run": r.name, "bot": bot, "player_deals": len(g), "bottom_card_wins": k,
                         "bottom_card_win_rate": float(p), "bottom_card_win_lo": float(lo),
                         "bottom_card_win_hi": float(hi)})
    return pd.DataFrame(rows)


def _bot_order(ratings) -> list[str]:
    """Bots best first by the first run's rating, then any others by name."""
    order: list[str] = []
    for df in ratings:
        for b in df.bot:
            if b not in order:
                order.append(b)
    return order


def _rate_parts(t, by: str, prefix: str, runs: Sequence[str]):
    """``[(run, DataFrame p, lo, hi indexed by `by`)]`` of the ``<prefix>_rate`` columns."""
    parts = []
    for run in runs:
        d = t[t.run == run].set_index(by)[[f"{prefix}_rate", f"{prefix}_lo", f"{prefix}_hi"]]
        d.columns = ["p", "lo", "hi"]
        parts.append((run, d))
    return parts


@_styled
def _fig_win_rates(bots_t, seats_t, pos_t, runs, bot_order, players):
    fig = _figure(FIG_WIDTH, 3.9)
    n_seats = int(seats_t.seat.nunique())
    axes = list(fig.subplots(1, 3, sharey=True,
                             width_ratios=[len(bot_order) + 0.5, n_seats, n_seats]))
    seat_bot = seats_t.drop_duplicates("seat").set_index("seat").bot
    for ax, (by, t, groups, title) in zip(axes, (
            ("bot", bots_t, bot_order, "by bot"),
            ("seat", seats_t, sorted(seats_t.seat.unique()), "by seat"),
            ("position", pos_t, sorted(pos_t.position.unique()), "by place in the turn order"))):
        _grouped_bars(ax, groups, _rate_parts(t, by, "win", runs))
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
    axes[0].set_ylabel("win rate (per player-deal)")
    _legend(fig, axes, len(runs))
    return fig


@_styled
def _fig_hand_wins(bots_t, bottom_t, runs, bot_order):
    from matplotlib.ticker import PercentFormatter

    fig, axes = _panels(2, ncols=2, sharex=True, sharey=False, height=3.4)
    for ax, t, prefix, title in ((axes[0], bots_t, "hand_win", "won by hand (going out at once)"),
                                 (axes[1], bottom_t, "bottom_card_win",
                                  "won by hand with the bottom card")):
        _grouped_bars(ax, bot_order, _rate_parts(t, "bot", prefix, runs))
        ax.set_title(title)
        ax.set_ylim(0, None)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
    axes[0].set_ylabel("rate per player-deal")
    _legend(fig, axes, len(runs))
    return fig


def _score_hist(runs: Sequence[Run], bot_order):
    """Per run and bot: player-deals per 10-point score bin (bins centred on multiples of
    10; the extreme 0.1 % of all scores at each end counted in the edge bins)."""
    import pandas as pd

    scores = np.concatenate([r.records.score.to_numpy(float) for r in runs])
    lo, hi = np.quantile(scores, [0.001, 0.999])
    bins = np.arange(10 * math.floor(lo / 10) - 5, 10 * math.ceil(hi / 10) + 15, 10)
    frames = []
    for r in runs:
        for bot, g in r.records.groupby("bot", sort=False):
            s = g.score.to_numpy(float)
            h, _ = np.histogram(np.clip(s, bins[0], bins[-1]), bins=bins)
            frames.append(pd.DataFrame({"run": r.name, "bot": bot, "lo": bins[:-1],
                                        "hi": bins[1:], "count": h, "share": h / len(s)}))
    return _ordered(pd.concat(frames, ignore_index=True), bot_order, [r.name for r in runs])


def _length_hist(runs: Sequence[Run]):
    """Per run: deals per deal length (one-turn bins, or wider past 100 turns; the
    longest 0.5 % counted in the last bin)."""
    import pandas as pd

    lengths = [r.records.groupby("deal").deal_length.first().to_numpy(float) for r in runs]
    top = max(np.quantile(L, 0.995) for L in lengths)
    step = max(1, math.ceil((top + 1) / 100))
    bins = np.arange(0, top + 2 * step, step) - 0.5
    frames = []
    for r, L in zip(runs, lengths):
        h, _ = np.histogram(np.clip(L, None, bins[-1] - 0.5), bins=bins)
        frames.append(pd.DataFrame({"run": r.name, "lo": bins[:-1], "hi": bins[1:], "count": h,
                                    "share": h / len(L)}))
    return pd.concat(frames, ignore_index=True)


def _stairs(ax, d, **kw) -> None:
    ax.stairs(d.share.to_numpy(), np.append(d.lo.to_numpy(), d.hi.to_numpy()[-1]), **kw)


@_styled
def _fig_scores(hist, bots_t, runs, bot_order):
    from matplotlib.ticker import PercentFormatter

    fig, axes = _panels(len(runs), ncols=min(2, len(runs)), height=3.5)
    for ax, run in zip(axes, runs):
        for i, bot in enumerate(bot_order):
            d = hist[(hist.run == run) & (hist.bot == bot)]
            if not len(d):
                continue
            mean = bots_t[(bots_t.run == run) & (bots_t.bot == bot)].mean_score.iloc[0]
            _stairs(ax, d, color=_color(i), lw=1.5, label=f"{bot} (mean {mean:+.1f})")
        ax.set_title(run if len(runs) > 1 else "score per player-deal")
        ax.set_xlabel("score (points; lower is better)")
        ax.legend(fontsize=8, loc="upper right")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes[0].set_ylabel("share of player-deals")
    return fig


@_styled
def _fig_deal_length(hist, over, runs):
    from matplotlib.ticker import PercentFormatter

    fig, axes = _panels(1, height=3.3, width=7.5)
    ax = axes[0]
    one = len(runs) == 1
    for i, run in enumerate(runs):
        o = over[over.run == run].iloc[0]
        _stairs(ax, hist[hist.run == run], color=_color(i), lw=1.5, fill=one,
                alpha=0.8 if one else 1.0,
                label=f"{run}: mean {o.mean_deal_length:.1f}, median {o.median_deal_length:.0f}")
        ax.axvline(o.mean_deal_length, color="#2b2f36" if one else _color(i), ls="--", lw=1)
    ax.set_xlabel("deal length (turns)")
    ax.set_ylabel("share of deals")
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
    ax.legend(fontsize=8.5)
    return fig


@_styled
def _fig_ratings(rt, runs, bot_order):
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
            for yy, v in zip(y[ok], r[ok]):
                ax.annotate(f"{v:.0f}", (v, yy), xytext=(0, 6), textcoords="offset points",
                            ha="center", fontsize=8.5)
    ax.axvline(ELO_MEAN, color=_GREY, ls="--", lw=1)
    ax.set_yticks(range(len(bot_order)), bot_order)
    ax.set_ylim(len(bot_order) - 0.5, -0.7)
    ax.set_xlabel("Bradley–Terry rating (Elo scale, mean 1500)")
    if R > 1:
        ax.legend(fontsize=8.5)
    return fig


def _score_table(runs: Sequence[Run]):
    import pandas as pd

    rows = []
    for r in runs:
        df = r.records
        for bot, g in df.groupby("bot", sort=False):
            s = pd.to_numeric(g.score).astype(float)
            n = len(s)
            un = int((~g.opened & ~g.went_out).sum())
            p, lo, hi = proportion(un, n)
            rows.append({"run": r.name, "bot": bot, "player_deals": n, "mean_score": s.mean(),
                         "mean_score_se": s.std(ddof=1) / math.sqrt(n) if n > 1 else np.nan,
                         "q10": s.quantile(0.1), "median": s.median(), "q90": s.quantile(0.9),
                         "unopened": un, "unopened_rate": float(p), "unopened_lo": float(lo),
                         "unopened_hi": float(hi)})
    return pd.DataFrame(rows)


def _ordered(df, bot_order, names):
    rank = {b: i for i, b in enumerate(bot_order)}
    runs = {n: i for i, n in enumerate(names)}
    return (df.assign(_r=df.run.map(runs), _b=df.bot.astype(str).map(rank))
              .sort_values(["_r", "_b"], kind="stable").drop(columns=["_r", "_b"])
              .reset_index(drop=True))


def game_sections(runs: Sequence[Run], *, bootstrap: int = 200, seed: int = 2026) -> list[Section]:
    """The report sections of games runs (side by side when several). The tables by
    bot, seat and position are the runs' ``GameStudy.summary(by)``, the deal table
    their ``overview()``; ratings come from ``bradley_terry`` of the records."""
    import pandas as pd

    runs = [r for r in runs if r.kind == "games"]
    if not runs:
        return []
    names = [r.name for r in runs]
    multi = len(runs) > 1
    rcol = [Column("run", "run")] if multi else []
    ratings = []
    for r in runs:
        t = bradley_terry(r.records, bootstrap=bootstrap, seed=seed)
        t.insert(0, "run", r.name)
        ratings.append(t)
    rt = pd.concat(ratings, ignore_index=True)
    bot_order = _bot_order(ratings)
    bots_t = _ordered(_tagged_games(runs, "summary", "bot"), bot_order, names)
    bots_t["bot"] = bots_t.bot.astype(str)
    seats_t = _tagged_games(runs, "summary", "seat")
    seats_t["bot"] = seats_t.bot.astype(str)
    pos_t = _tagged_games(runs, "summary", "position")
    bottom_t = _bottom_wins(runs)
    over = _tagged_games(runs, "overview")
    players = [int(r.study.players) for r in runs]

    rate_cols = [Column("player_deals", "player-deals", "int"),
                 Column("win_rate", "win rate", "pct", "win_lo", "win_hi"),
                 Column("hand_win_rate", "won by hand", "pct", "hand_win_lo", "hand_win_hi"),
                 Column("open_rate", "opened", "pct", "open_lo", "open_hi"),
                 Column("mean_turn_opened", "mean turn opened", "num", se="mean_turn_opened_se",
                        digits=2),
                 Column("mean_score", "mean score", "num", se="mean_score_se", digits=2)]
    sections = [Section(
        "Who wins", "games",
        "Bots playing full deals against each other. A player-deal is one seat in one deal; "
        "a win is going out, and the win rate is wins per player-deal (draws count as deals "
        "without a win). Intervals: 95 % Wilson; means ± 1.96 standard errors. Scores: "
        "lower is better.",
        (ReportFigure("games_win_rates", "Win rate by bot, by seat and by place in the turn order",
                      _fig_win_rates(bots_t, seats_t, pos_t, names, bot_order, players),
                      "Whiskers: 95 % Wilson intervals; the dashed line is the fair share "
                      "1/players. Seats with the same bot are pooled in 'by bot'.",
                      pd.concat([bots_t.assign(group="bot"), seats_t.assign(group="seat"),
                                 pos_t.assign(group="position")], ignore_index=True)),
         ReportTable("games_by_bot", "Results by bot", bots_t,
                     tuple(rcol + [Column("bot", "bot"), Column("seats", "seats")] + rate_cols)),
         ReportTable("games_by_seat", "Results by seat", seats_t,
                     tuple(rcol + [Column("seat", "seat", "int"), Column("bot", "bot")]
                           + rate_cols)),
         ReportTable("games_by_position", "Results by place in the turn order", pos_t,
                     tuple(rcol + [Column("position", "position (0 = first player)", "int")]
                           + rate_cols),
                     "The first player holds 15 cards and does not draw on the first turn.")))]

    rt_cols = rcol + [Column("bot", "bot"),
                      Column("rating", "rating", "num", "rating_lo", "rating_hi", digits=0),
                      Column("wins", "pairwise wins", "int"),
                      Column("comparisons", "comparisons", "int"),
                      Column("deals", "deals played", "int")]
    items: list = [ReportFigure("games_ratings", "Bradley–Terry ratings of the bots",
                                _fig_ratings(rt, names, bot_order),
                                "Whiskers: 95 % bootstrap intervals over deals.", rt),
                   ReportTable("games_ratings", "Ratings", rt, tuple(rt_cols),
                               f"Fitted by the MM algorithm; intervals from {bootstrap} bootstrap "
                               f"resamples of the deals (seed {seed}).")]
    if multi:
        wide = rt.pivot_table(index="bot", columns="run",
                              values=["rating", "rating_lo", "rating_hi"], sort=False)
        wide.columns = [f"{a}@{r}" for a, r in wide.columns]
        wr = bots_t.pivot_table(index="bot", columns="run",
                                values=["win_rate", "win_lo", "win_hi"], sort=False)
        wr.columns = [f"{a}@{r}" for a, r in wr.columns]
        side = wide.join(wr, how="outer").reindex(bot_order).reset_index()
        cols = [Column("bot", "bot")]
        for n in names:
            cols.append(Column(f"rating@{n}", f"rating: {n}", "num", f"rating_lo@{n}",
                               f"rating_hi@{n}", digits=0))
        for n in names:
            cols.append(Column(f"win_rate@{n}", f"win rate: {n}", "pct", f"win_lo@{n}",
                               f"win_hi@{n}"))
        items.append(ReportTable("games_side_by_side", "Side by side: one column per run", side,
                                 tuple(cols)))
    sections.append(Section(
        "Ratings", "ratings",
        "Each deal's winner beats every other seat's bot (seats of its own bot aside): a "
        "Bradley–Terry model of these pairwise results gives one rating per bot. On the Elo "
        "scale, 400 points more means odds of 10 to 1 in a comparison.", tuple(items)))

    score_t = _ordered(_score_table(runs), bot_order, names)
    score_h = _score_hist(runs, bot_order)
    length_h = _length_hist(runs)
    sections.append(Section(
        "Scores", "scores",
        "The score of each seat in each deal (RULES.md section 6): −40 for going out, −80 "
        "for a hand win, the cards left in hand for an opened loser, 100 for an unopened one, "
        "doubled after a hand win.",
        (ReportFigure("games_scores", "Score distributions by bot",
                      _fig_scores(score_h, bots_t, names, bot_order),
                      "Share of player-deals per 10-point bin (the extreme 0.1 % at each end "
                      "counted in the edge bins).", score_h),
         ReportTable("games_scores", "Scores by bot", score_t,
                     tuple(rcol + [Column("bot", "bot"),
                                   Column("player_deals", "player-deals", "int"),
                                   Column("mean_score", "mean", "num", se="mean_score_se"),
                                   Column("q10", "10 %", "num", digits=0),
                                   Column("median", "median", "num", digits=0),
                                   Column("q90", "90 %", "num", digits=0),
                                   Column("unopened_rate", "left unopened", "pct",
                                          "unopened_lo", "unopened_hi")])))))

    sections.append(Section(
        "Deal length and hand wins", "deals",
        "How long a deal lasts (turns played), how often it ends without a winner (turn cap "
        "reached or stock exhausted), and how often it is won by hand.",
        (ReportFigure("games_deal_length", "Deal length",
                      _fig_deal_length(length_h, over, names),
                      "Share of deals by length in turns (the longest 0.5 % counted in the last "
                      "bin); dashed: the mean.", length_h),
         ReportFigure("games_hand_wins", "Hand-win rate by bot",
                      _fig_hand_wins(bots_t, bottom_t, names, bot_order),
                      "Per player-deal; whiskers: 95 % Wilson intervals.",
                      bots_t[["run", "bot", "player_deals", "hand_wins", "hand_win_rate",
                              "hand_win_lo", "hand_win_hi"]].merge(bottom_t, on=["run", "bot",
                                                                                 "player_deals"])),
         ReportTable("games_deals", "Deals", over,
                     tuple(rcol + [Column("deals", "deals", "int"),
                                   Column("players", "players", "int"),
                                   Column("mean_deal_length", "mean length", "num",
                                          se="mean_deal_length_se", digits=1),
                                   Column("median_deal_length", "median", "num", digits=0),
                                   Column("p90_deal_length", "90 %", "num", digits=0),
                                   Column("draw_rate", "draws", "pct", "draw_lo", "draw_hi"),
                                   Column("hand_win_rate", "won by hand", "pct", "hand_win_lo",
                                          "hand_win_hi"),
                                   Column("bottom_card_win_rate", "with the bottom card", "pct",
                                          "bottom_card_win_lo", "bottom_card_win_hi")]),
                     "Rates per deal."))))
    return sections


def _game_headlines(run: Run, ratings) -> list[Headline]:
    st = run.study
    ov = st.overview().iloc[0]
    out = [Headline("Deals played", int(ov.deals), "int",
                    note=f"{st.players} players: {', '.join(st.bots)}")]
    if len(ratings) > 1 and _finite(ratings.rating.iloc[0]):
        top = ratings.iloc[0]
        out.append(Headline(f"Top rated: {top.bot}", top.rating, "num", top.rating_lo,
                            top.rating_hi, "Bradley–Terry, Elo scale (mean 1500)"))
        s = st.summary("bot")
        w = s[s.bot.astype(str) == top.bot].iloc[0]
        out.append(Headline(f"Win rate of {top.bot}", w.win_rate, "pct", w.win_lo, w.win_hi,
                            f"per player-deal; fair share {fmt_pct(1 / st.players, 1)}"))
    se = ov.mean_deal_length_se
    out.append(Headline("Mean deal length (turns)", ov.mean_deal_length, "num",
                        ov.mean_deal_length - Z95 * se if _finite(se) else None,
                        ov.mean_deal_length + Z95 * se if _finite(se) else None,
                        f"draws {fmt_pct(ov.draw_rate)}, won by hand {fmt_pct(ov.hand_win_rate)}",
                        digits=1))
    return out


# --------------------------------------------------------------------------- the report
def _runs_table(runs: Sequence[Run]) -> ReportTable:
    import pandas as pd

    rows = []
    for r in runs:
        m = r.manifest
        seed = m.get("seed")
        seed = seed.get("entropy") if isinstance(seed, dict) else seed
        if r.kind == "openings":
            st = r.study
            parts = []
            if st.hands:
                parts.append(f"{int(st.deals_done.sum()):,} deals")
            if st.players and st.turn_deals:
                parts.append(f"by turn: {st.turn_deals:,} deals × "
                             f"{'/'.join(map(str, st.players))} players")
            if len(st.labels) > 1:
                parts.append(f"{len(st.labels)} configurations: {', '.join(st.labels)}")
            else:
                parts.append(f"rules: {st.labels[0]}")
            what = "; ".join(parts)
        else:
            from .montecarlo import rules_label

            st = r.study
            what = (f"{st.deals_done:,} deals, {st.players} players: {', '.join(st.bots)}; "
                    f"rules: {rules_label(st.rules)}")
        rows.append({"run": r.name, "kind": r.kind, "path": str(r.path), "contents": what,
                     "seed": "" if seed is None else str(seed),
                     "created": str(m.get("created", ""))[:19].replace("T", " "),
                     "command": m.get("command") or ""})
    cols = (Column("run", "run"), Column("kind", "kind"), Column("contents", "contents"),
            Column("seed", "seed"), Column("created", "created (UTC)"),
            Column("command", "command"))
    return ReportTable("runs", "Run directories", pd.DataFrame(rows), cols)


def build_report(runs: Iterable, title: Optional[str] = None, *, bootstrap: int = 200,
                 seed: int = 2026) -> Report:
    """The report of ``runs`` (run directories, or ``Run`` s from ``load_run``):
    headlines, the table of runs, the openings sections, then the games sections.
    ``bootstrap`` and ``seed`` set the rating intervals (``bradley_terry``)."""
    from . import __version__

    runs = load_runs(runs)
    sections = opening_sections(runs)
    gsec = game_sections(runs, bootstrap=bootstrap, seed=seed)
    sections += gsec
    heads: list[Headline] = []
    for r in runs:
        if r.kind == "openings":
            hs = _opening_headlines(r)
        else:
            rt = next(i for s in gsec for i in s.items
                      if isinstance(i, ReportTable) and i.name == "games_ratings").data
            hs = _game_headlines(r, rt[rt.run == r.name].reset_index(drop=True))
        heads += [dataclasses.replace(h, run=r.name) for h in hs]
    if title is None:
        kinds = {r.kind for r in runs}
        title = ("Opening study" if kinds == {"openings"} else "Game study" if kinds == {"games"}
                 else "Opening and game studies") + f": {', '.join(r.name for r in runs)}"
    return Report(title=title, runs=runs, runs_table=_runs_table(runs), headlines=tuple(heads),
                  sections=tuple(sections), version=__version__)


# --------------------------------------------------------------------------- CSV
def write_tables(report: Report, directory) -> list[Path]:
    """Write every table (``<name>.csv``) and every figure's data (``fig_<name>.csv``)
    into ``directory`` (created if needed); returns the paths written."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for t in report.tables():
        p = d / f"{t.name}.csv"
        t.data.to_csv(p, index=False)
        out.append(p)
    for f in report.figures():
        if f.data is not None:
            p = d / f"fig_{f.name}.csv"
            f.data.to_csv(p, index=False)
            out.append(p)
    return out


# --------------------------------------------------------------------------- HTML
_CSS = """
:root{--fg:#1f2430;--muted:#5b6472;--line:#e3e6eb;--accent:#1f5fa8;--panel:#f5f7fa}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:var(--fg);
 font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans","Liberation Sans",
 Arial,sans-serif}
main{max-width:1120px;margin:0 auto;padding:22px 32px 60px}
header{border-bottom:3px solid var(--accent);padding-bottom:10px;margin-bottom:16px}
h1{font-size:26px;margin:0 0 2px;letter-spacing:-.2px}
h2{font-size:21px;margin:26px 0 4px;padding-top:8px;border-top:1px solid var(--line)}
h3{font-size:15.5px;margin:16px 0 6px}
.sub{color:var(--muted);font-size:13.5px;margin:0}
section.group{margin:12px 0 4px}
.gname{font-size:13.5px;color:var(--muted);margin-bottom:5px}
.gname b{color:var(--fg);font-size:14.5px;margin-right:6px}
.cards{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:10px}
.card{background:var(--panel);border:1px solid var(--line);border-left:4px solid var(--accent);
 border-radius:6px;padding:7px 12px}
.card .label{font-size:12.5px;color:var(--muted);font-weight:600;line-height:1.3}
.card .value.small{font-size:19px}
.card .value{font-size:24px;font-weight:700;line-height:1.3;font-variant-numeric:tabular-nums}
.card .ci{font-size:12.5px;color:var(--muted);margin-left:6px;font-weight:400}
.card .note{font-size:12px;color:var(--muted);line-height:1.3}
nav.toc{font-size:13.5px;margin:14px 0 4px;display:flex;flex-wrap:wrap;gap:2px 14px}
nav.toc span{color:var(--muted)}
nav.toc a{color:var(--accent);text-decoration:none;white-space:nowrap}
@media (max-width:900px){.cards{grid-template-columns:repeat(2,minmax(0,1fr))}}
.intro{color:#3b4350;margin:4px 0 10px;max-width:900px}
figure{margin:8px 0 18px}
figure img{display:block;max-width:100%;height:auto;border:1px solid var(--line);border-radius:4px}
figcaption{font-size:13px;color:var(--muted);margin-top:4px}
.tablewrap{overflow-x:auto;margin:6px 0 16px}
table{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
caption{caption-side:bottom;text-align:left;font-size:12.5px;color:var(--muted);padding-top:5px}
th{background:var(--panel);font-weight:600;text-align:right;padding:5px 10px;
 border-bottom:2px solid #cfd5dc;white-space:nowrap}
td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th.t,td.t{text-align:left}
td.wrap{white-space:normal;max-width:360px}
.tok{white-space:nowrap}
td .ci{color:var(--muted);font-size:11.5px;margin-left:5px}
tr:hover td{background:#fafbfc}
table.runs td{font-size:12.5px}
code{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
footer{margin-top:40px;color:var(--muted);font-size:12.5px;border-top:1px solid var(--line);
 padding-top:8px}
a.csv{font-size:12px;color:var(--accent);margin-left:8px;font-weight:400}
"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _row_dicts(df) -> list[dict]:
    return df.to_dict("records")


def _html_table(t: ReportTable, tables_href: Optional[str], cls: str = "",
                heading: bool = True) -> str:
    head = "".join(f'<th class="{"t" if c.kind == "text" else "n"}">{_e(c.header)}</th>'
                   for c in t.columns)
    body = []
    for row in _row_dicts(t.data):
        cells = []
        for c in t.columns:
            v, ci = cell_text(c, row)
            klass = "t" if c.kind == "text" else "n"
            if c.key == "command" or c.key == "contents":
                klass += " wrap"
                if c.key == "command" and v != "–":  # wrap between words, never at a '-'
                    v_html = "<code>" + " ".join(f'<span class="tok">{_e(w)}</span>'
                                                 for w in v.split(" ")) + "</code>"
                else:
                    v_html = _e(v)
            else:
                v_html = f'<span class="v">{_e(v)}</span>' + (f' <span class="ci">{_e(ci)}</span>'
                                                             if ci else "")
            raw = row.get(c.key)
            dv = ""
            if c.kind != "text" and _finite(raw):
                dv = f' data-value="{float(raw)!r}"'
            cells.append(f'<td class="{klass}" data-col="{_e(c.key)}"{dv}>{v_html}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    link = (f' <a class="csv" href="{_e(tables_href.rstrip("/") + "/" + t.name + ".csv")}">CSV</a>'
            if tables_href else "")
    cap = f"<caption>{_e(t.caption)}</caption>" if t.caption else ""
    head_html = f'<h3 id="t-{_e(t.name)}">{_e(t.title)}{link}</h3>' if heading else link
    return (f'{head_html}<div class="tablewrap"><table id="table-{_e(t.name)}" class="{cls}">{cap}'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def _html_figure(f: ReportFigure, png: bytes) -> str:
    b64 = base64.b64encode(png).decode("ascii")
    w, h = _png_size(png)
    return (f'<figure id="f-{_e(f.name)}"><h3>{_e(f.title)}</h3>'
            f'<img src="data:image/png;base64,{b64}" width="{w}" height="{h}" alt="{_e(f.title)}">'
            f"<figcaption>{_e(f.caption)}</figcaption></figure>")


def _png_size(png: bytes) -> tuple[int, int]:
    import struct

    return struct.unpack(">II", png[16:24])


def render_html(report: Report, *, tables_href: Optional[str] = None) -> str:
    """The report as one self-contained HTML page: figures as base64 PNG data URIs,
    inline CSS, no script and nothing fetched. ``tables_href``: where the CSV tables
    are, relative to the page (adds a CSV link to each table)."""
    parts = [f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
             f'<meta name="viewport" content="width=device-width, initial-scale=1">'
             f'<link rel="icon" href="data:,"><title>{_e(report.title)}</title>'
             f"<style>{_CSS}</style></head><body><main>"]
    kinds = ", ".join(f"{r.name} ({r.kind})" for r in report.runs)
    dirs = "directory" if len(report.runs) == 1 else "directories"
    parts.append(f"<header><h1>{_e(report.title)}</h1><p class=\"sub\">rummy51 "
                 f"{_e(report.version)} report of {len(report.runs)} run {dirs}: {_e(kinds)}. "
                 "Probabilities with 95 % intervals.</p></header>")
    contents = dict(zip(report.runs_table.data.run, report.runs_table.data.contents))
    kind_of = {r.name: r.kind for r in report.runs}
    for run in dict.fromkeys(h.run for h in report.headlines):
        cards = []
        for h in (h for h in report.headlines if h.run == run):
            v, ci = _headline_text(h)
            cards.append(f'<div class="card"><div class="label">{_e(h.label)}</div>'
                         f'<div class="value{" small" if h.kind == "text" else ""}">{_e(v)}'
                         + (f'<span class="ci">[{_e(ci)}]</span>' if ci else "")
                         + f'</div><div class="note">{_e(h.note)}</div></div>')
        what = f"{kind_of.get(run, '')} run: {contents.get(run, '')}" if run in kind_of else ""
        parts.append(f'<section class="group"><div class="gname"><b>{_e(run)}</b> '
                     f'<span>{_e(what)}</span></div><div class="cards">{"".join(cards)}</div>'
                     f"</section>")
    toc = " ".join(f'<a href="#{_e(s.anchor)}">{_e(s.title)}</a>' for s in report.sections)
    parts.append(f'<nav class="toc"><span>Contents:</span> {toc} '
                 f'<a href="#runs">Runs</a></nav>')
    for s in report.sections:
        parts.append(f'<section id="{_e(s.anchor)}"><h2>{_e(s.title)}</h2>'
                     f'<p class="intro">{_e(s.intro)}</p>')
        for item in s.items:
            if isinstance(item, ReportFigure):
                parts.append(_html_figure(item, figure_png(item.figure)))
            else:
                parts.append(_html_table(item, tables_href))
        parts.append("</section>")
    parts.append('<section id="runs"><h2>Run directories</h2>'
                 + _html_table(report.runs_table, tables_href, "runs", heading=False)
                 + "</section>")
    parts.append("<footer>Built by <code>rummy51 report</code> from the run directories' files "
                 "(manifest.json and results); every number above is computed from them."
                 "</footer></main></body></html>")
    return "\n".join(parts) + "\n"


# --------------------------------------------------------------------------- Markdown
def _md(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_table(t: ReportTable, tables_href: Optional[str]) -> str:
    head = "| " + " | ".join(_md(c.header) for c in t.columns) + " |"
    align = "|" + "|".join(":--" if c.kind == "text" else "--:" for c in t.columns) + "|"
    rows = []
    for row in _row_dicts(t.data):
        cells = []
        for c in t.columns:
            v, ci = cell_text(c, row)
            if c.key == "command" and v != "–":
                v = f"`{v}`"
            if ci:
                v += f" {ci}" if ci.startswith("±") else f" [{ci}]"
            cells.append(_md(v))
        rows.append("| " + " | ".join(cells) + " |")
    link = f" ([CSV]({tables_href.rstrip('/')}/{t.name}.csv))" if tables_href else ""
    out = [f"### {t.title}{link}", "", head, align, *rows]
    if t.caption:
        out += ["", f"*{t.caption}*"]
    return "\n".join(out)


def render_markdown(report: Report, assets_dir, *, assets_href: Optional[str] = None,
                    tables_href: Optional[str] = None) -> str:
    """The report as Markdown: writes each figure as ``<assets_dir>/<name>.png`` and
    returns the text, which links them as ``<assets_href>/<name>.png`` (default: the
    name of ``assets_dir``, for a Markdown file written beside it)."""
    adir = Path(assets_dir)
    adir.mkdir(parents=True, exist_ok=True)
    href = (assets_href if assets_href is not None else adir.name).rstrip("/")
    out = [f"# {report.title}", "",
           f"rummy51 {report.version} report of {len(report.runs)} run "
           f"director{'y' if len(report.runs) == 1 else 'ies'}: "
           + ", ".join(f"`{r.name}` ({r.kind})" for r in report.runs)
           + ". Probabilities in percent with [95 % intervals]; means ± 1.96 standard errors.", ""]
    contents = dict(zip(report.runs_table.data.run, report.runs_table.data.contents))
    for run in dict.fromkeys(h.run for h in report.headlines):
        out += [f"**{run}**: {contents.get(run, '')}", "", "| | | |", "|:--|--:|:--|"]
        for h in (h for h in report.headlines if h.run == run):
            v, ci = _headline_text(h)
            out.append(f"| {_md(h.label)} | **{_md(v)}**" + (f" [{_md(ci)}]" if ci else "")
                       + f" | {_md(h.note)} |")
        out.append("")
    for s in report.sections:
        out += [f"## {s.title}", "", s.intro, ""]
        for item in s.items:
            if isinstance(item, ReportFigure):
                (adir / f"{item.name}.png").write_bytes(figure_png(item.figure))
                out += [f"### {item.title}", "", f"![{item.title}]({href}/{item.name}.png)", "",
                        f"*{item.caption}*", ""]
            else:
                out += [_md_table(item, tables_href), ""]
    out += ["## Run directories", "", _md_table(report.runs_table, tables_href), ""]
    return "\n".join(out)
