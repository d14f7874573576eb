"""Figure helpers the report sections share (a private module): colours, panels, the
Agg canvas (never pyplot), PNG output.
"""
from __future__ import annotations

import functools
import io
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, ParamSpec

import numpy as np

from ._model import ReportError, fmt_pct

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn (an optional extra)
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

_P = ParamSpec("_P")
#: how subplots share an axis (matplotlib's sharex / sharey)
Share = bool | Literal["none", "all", "row", "col"]

# --------------------------------------------------------------------------- figures
_COLORS = ("#1f5fa8", "#d9622b", "#2a9d57", "#b8336a", "#7a5cc0", "#8c6d31", "#2ab0b8",
           "#5f6b7a", "#c9a227", "#e377c2")
_GREY = "#9aa3ad"
FIG_WIDTH = 10.5  # inches; 100 dpi: 1050 px, the width of the page's column


def _color(i: int) -> str:
    return _COLORS[i % len(_COLORS)]


def _stairs(ax: Axes, d: pd.DataFrame, **kw: Any) -> None:
    """A histogram of ``d`` (columns ``lo``, ``hi``, ``share``: one row a bin) as steps."""
    ax.stairs(d.share.to_numpy(), np.append(d.lo.to_numpy(), d.hi.to_numpy()[-1]), **kw)


def _figure(width: float, height: float) -> Figure:
    """An empty figure on the Agg canvas (never pyplot), constrained layout, 100 dpi."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ReportError("reports draw their figures with matplotlib: "
                          'pip install ".[report]" from a clone of rummy51') from None
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _panels(n: int, ncols: int = 3, height: float = 3.3, sharex: Share = True,
            sharey: Share = True, width: float = FIG_WIDTH) -> tuple[Figure, list[Axes]]:
    """A figure of ``n`` panels on a grid, the axes flattened; the spare cells of the
    grid are hidden."""
    ncols = max(1, min(ncols, n))
    nrows = math.ceil(n / ncols)
    fig = _figure(width, height * nrows + 0.4)
    axes = fig.subplots(nrows, ncols, sharex=sharex, sharey=sharey, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, list(axes[:n])


def _finish(fig: Figure) -> None:
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
        legend = ax.get_legend()
        if legend is not None:
            legend.set_frame_on(False)
    for leg in fig.legends:
        leg.set_frame_on(False)


def _styled(fn: Callable[_P, Figure]) -> Callable[_P, Figure]:
    """A figure builder whose figure gets the report's look (``_finish``)."""
    @functools.wraps(fn)
    def wrapper(*a: _P.args, **kw: _P.kwargs) -> Figure:
        fig = fn(*a, **kw)
        _finish(fig)
        return fig
    return wrapper


def _percent_axis(ax: Axes, top: float | None = 1.0) -> None:
    from matplotlib.ticker import PercentFormatter

    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    if top is not None:
        ax.set_ylim(0, top)


def _legend(fig: Figure, axes: Sequence[Axes], n_entries: int) -> None:
    if n_entries <= 1:
        return
    seen: dict[str, Any] = {}
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, h)
    longest = max(len(label) for label in seen)
    fig.legend(list(seen.values()), list(seen), loc="outside lower center", fontsize=9,
               ncols=max(1, min(len(seen), 5, 120 // (longest + 6))))


def _yerr(p: Any, lo: Any, hi: Any) -> np.ndarray:  # array-likes (pandas columns too)
    p, lo, hi = (np.asarray(x, float) for x in (p, lo, hi))
    return np.vstack([np.clip(p - lo, 0, None), np.clip(hi - p, 0, None)])


def _grouped_bars(ax: Axes, groups: Sequence[str], series: Sequence[tuple[str, Any]], *,
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


def figure_png(fig: Figure, dpi: int = 100) -> bytes:
    """The figure as PNG bytes (Agg)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


# --------------------------------------------------------------------------- openings
_JOKER_ORDER = ("all", "0", "1", "2", "3+")
