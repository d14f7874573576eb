"""Report sections of Carousel runs (kind ``"carousel"``, ``simulate_carousel``): win
rates by bot and seat with Wilson intervals, how rounds end, knock and undercut rates,
round length, P(knock possible by turn t) by position, and score distributions.

``load_carousel_run(path)`` reads a run directory into the report's ``Run``;
``carousel_sections(runs)`` builds the sections of every Carousel run among ``runs``
(the others are skipped); ``carousel_headlines(run)`` the first-screen numbers.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np

from ._figures import _color, _panels, _percent_axis, _styled
from ._model import Column, Headline, ReportError, ReportFigure, ReportTable, Run, Section

__all__ = ["KIND", "load_carousel", "load_carousel_run", "carousel_sections",
           "carousel_headlines"]

KIND = "carousel"


def load_carousel(path: Path):
    """The loader of a carousel run (the study), as ``reports._model``'s loader of kind "carousel" does."""
    from ..studies.carousel import CarouselStudy

    return CarouselStudy.load(path)


def load_carousel_run(path, name: Optional[str] = None) -> Run:
    """A carousel run directory as a report ``Run`` (``ReportError`` if it cannot be read)."""
    import json

    p = Path(path)
    try:
        manifest = json.loads((p / "manifest.json").read_text(encoding="utf-8"))
        study = load_carousel(p)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ReportError(f"cannot read the carousel run in {p}: {e}") from None
    if study.records.empty:
        raise ReportError(f"the carousel run in {p} holds no rounds")
    return Run(path=p, kind=KIND, name=name or p.name, study=study, manifest=manifest,
               records=study.records)


def _tagged(runs: Sequence[Run], method: str, *args, **kw):
    import pandas as pd

    frames = []
    for r in runs:
        df = getattr(r.study, method)(*args, **kw).copy()
        df.insert(0, "run", r.name)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


_RATE_COLS = (
    Column("game_win_rate", "game wins", "pct", lo="game_win_lo", hi="game_win_hi"),
    Column("round_win_rate", "round wins", "pct", lo="round_win_lo", hi="round_win_hi"),
    Column("knock_rate", "knocks", "pct", lo="knock_lo", hi="knock_hi"),
    Column("out_rate", "went out", "pct", lo="out_lo", hi="out_hi"),
    Column("undercut_rate", "undercut (per knock)", "pct", lo="undercut_lo", hi="undercut_hi"),
    Column("mean_score", "round score", "num", se="mean_score_se", digits=1),
    Column("mean_final", "final score", "num", se="mean_final_se", digits=1),
)


@_styled
def _fig_win_rates(t, runs):
    fig, axes = _panels(len(runs), ncols=min(2, len(runs)), height=3.3)
    for ax, run in zip(axes, runs):
        d = t[(t.run == run) & (t.group == "seat")]
        x = np.arange(len(d))
        p = d.game_win_rate.to_numpy(float)
        err = np.vstack([p - d.game_win_lo.to_numpy(float), d.game_win_hi.to_numpy(float) - p])
        ax.bar(x, p, yerr=err, color=[_color(i) for i in range(len(d))], capsize=3)
        ax.set_xticks(x, [f"seat {int(s)}\n{b}" for s, b in zip(d.seat, d.bot)], fontsize=8)
        ax.set_title(run if len(runs) > 1 else "game win rate by seat (95% Wilson)")
        _percent_axis(ax, None)
    return fig


@_styled
def _fig_knock_possible(kp, runs):
    fig, axes = _panels(len(runs), ncols=min(2, len(runs)), height=3.3)
    for ax, run in zip(axes, runs):
        d = kp[kp.run == run]
        for q in sorted(d.position.unique()):
            e = d[d.position == q]
            ax.plot(e.t, e.p, marker="o", ms=3, color=_color(int(q)), label=f"position {q}")
            ax.fill_between(e.t, e.p_lo, e.p_hi, color=_color(int(q)), alpha=0.2)
        ax.set_xlabel("the player's own turn t in the round")
        ax.set_title(run if len(runs) > 1 else "P(knock possible by turn t)")
        ax.legend(fontsize=8)
        _percent_axis(ax, None)
    return fig


@_styled
def _fig_scores(hist, runs):
    fig, axes = _panels(len(runs), ncols=min(2, len(runs)), height=3.3)
    for ax, run in zip(axes, runs):
        d = hist[hist.run == run]
        for i, bot in enumerate(dict.fromkeys(d.bot)):
            e = d[d.bot == bot]
            ax.plot(e.score, e.share, drawstyle="steps-mid", color=_color(i), label=bot)
        ax.set_xlabel("final game score (bonuses included)")
        ax.set_title(run if len(runs) > 1 else "final scores by bot")
        ax.legend(fontsize=8)
    return fig


def _binned_finals(runs: Sequence[Run], width: int = 25):
    import pandas as pd

    frames = []
    for r in runs:
        g = r.study.games()
        for bot in dict.fromkeys(r.study.bots):
            s = g[g.bot == bot]["final"].to_numpy(np.int64)
            if not len(s):
                continue
            lo = (s // width) * width
            vals, counts = np.unique(lo, return_counts=True)
            frames.append(pd.DataFrame({"run": r.name, "bot": bot, "score": vals + width / 2,
                                        "lo": vals, "count": counts, "share": counts / len(s)}))
    return pd.concat(frames, ignore_index=True)


def carousel_sections(runs: Sequence[Run]) -> list[Section]:
    """The report sections of the Carousel runs among ``runs`` (none: ``[]``)."""
    runs = [r for r in runs if r.kind == KIND]
    if not runs:
        return []
    names = [r.name for r in runs]
    rates = _tagged(runs, "summary")
    over = _tagged(runs, "overview")
    kp = _tagged(runs, "knock_possible", 12)
    finals = _binned_finals(runs)
    rounds_hist = _tagged(runs, "score_distribution", "round")
    win_table = ReportTable(
        "carousel_win_rates", "Carousel: results by bot, seat and position", rates,
        (Column("run", "run"), Column("group", "by"), Column("bot", "bot"),
         Column("seat", "seat", "int"), Column("position", "position", "int"),
         Column("player_games", "player-games", "int"),
         Column("player_rounds", "player-rounds", "int")) + _RATE_COLS,
        "Rates with 95% Wilson intervals; means ± 1.96 standard errors. Position 0 is the "
        "dealer's left (who plays first); game figures by position use the first round's.")
    over_table = ReportTable(
        "carousel_overview", "Carousel: how rounds end", over,
        (Column("run", "run"), Column("games", "games", "int"), Column("rounds", "rounds", "int"),
         Column("rounds_per_game", "rounds per game", "num", se="rounds_per_game_se"),
         Column("knock_rate", "by a knock", "pct", lo="knock_lo", hi="knock_hi"),
         Column("out_rate", "by going out", "pct", lo="out_lo", hi="out_hi"),
         Column("stock_rate", "stock ran out", "pct", lo="stock_lo", hi="stock_hi"),
         Column("undercut_rate", "undercut (per knock or out)", "pct", lo="undercut_lo",
                hi="undercut_hi"),
         Column("mean_round_length", "round length (turns)", "num", se="mean_round_length_se",
                digits=1),
         Column("median_round_length", "median", "num", digits=0),
         Column("p90_round_length", "90th pct", "num", digits=0)))
    kp_table = ReportTable(
        "carousel_knock_possible", "Carousel: P(knock possible by own turn t)", kp,
        (Column("run", "run"), Column("position", "position", "int"), Column("t", "t", "int"),
         Column("n", "player-rounds", "int"), Column("p", "P", "pct", lo="p_lo", hi="p_hi")),
        "The share of player-rounds whose hand counted the knock limit or fewer at the end of "
        "one of the player's first t turns, as the rounds went (a round that ended sooner "
        "counts as not by t).")
    score_table = ReportTable("carousel_scores", "Carousel: round scores of the rounds won",
                              rounds_hist, (Column("run", "run"), Column("bot", "bot"),
                                            Column("score", "score", "int"),
                                            Column("count", "rounds", "int"),
                                            Column("share", "share", "pct")))
    items: list[Union[ReportTable, ReportFigure]] = [
        over_table, win_table,
        ReportFigure("carousel_win_rates_fig", "Game win rate by seat",
                     _fig_win_rates(rates, names), data=rates[rates.group == "seat"]),
        kp_table,
        ReportFigure("carousel_knock_possible_fig", "P(knock possible by turn t)",
                     _fig_knock_possible(kp, names), data=kp),
        ReportFigure("carousel_final_scores_fig", "Final scores by bot",
                     _fig_scores(finals, names), data=finals),
        score_table]
    return [Section("Carousel games", "carousel",
                    "Whole games of Carousel (docs/rules-carousel.md) between bots, rounds to "
                    "the target score; one record per player and round.", tuple(items))]


def carousel_headlines(run: Run) -> list[Headline]:
    """The first-screen numbers of one carousel run."""
    st = run.study
    o = st.overview().iloc[0]
    heads = [Headline("rounds", int(o.rounds), "int"),
             Headline("rounds ended by a knock", float(o.knock_rate), "pct", float(o.knock_lo),
                      float(o.knock_hi)),
             Headline("knocks undercut", float(o.undercut_rate), "pct", float(o.undercut_lo),
                      float(o.undercut_hi)),
             Headline("round length (turns)", float(o.mean_round_length), "num", digits=1)]
    s = st.summary("seat")
    for _, r in s.iterrows():
        heads.append(Headline(f"game wins, seat {int(r.seat)} ({r.bot})", float(r.game_win_rate),
                              "pct", float(r.game_win_lo), float(r.game_win_hi)))
    return heads
