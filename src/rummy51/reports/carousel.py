"""Report sections of Carousel runs (kind ``"carousel"``, ``simulate_carousel``), laid
out as Rummy 51's games sections: who wins (game win rates by bot, seat and position
with Wilson intervals), ratings (Bradley-Terry from ``rummy51.ratings`` and, when the
seats move, every pair of bots compared game by game), scores (a histogram of the final
scores by bot and their quantiles), and rounds (how they end: knock, going out, the
stock; undercuts; round length; P(may knock by own turn t) per seat), and for a run
made with ``--histories`` a blunder table (``rummy51.analysis``: a bounded sample of
its games analysed by rollouts, each bot's mean loss per decision and its worst ones).

``load_carousel_run(path)`` reads a run directory into the report's ``Run``;
``carousel_sections(runs)`` builds the sections of every Carousel run among ``runs``
(the others are skipped); ``carousel_headlines(run)`` the first-screen numbers.
Every table is narrow enough for the page (the HTML page scrolls a table sideways
rather than cut it, and the report's test checks in Chromium that none overflows).
"""
from __future__ import annotations

import itertools
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..stats import Z95
from ._figures import _color, _panels, _percent_axis, _styled
from ._model import Column, Headline, ReportError, ReportFigure, ReportTable, Run, Section, _finite, fmt_pct
from ._sections import (
    blunder_tables,
    fig_histograms,
    fig_lengths,
    fig_ratings,
    fig_win_rates,
    histogram,
    length_edges,
    ordered,
    run_cols,
    tagged,
)

if TYPE_CHECKING:  # pandas and matplotlib are imported where a report is built
    import pandas as pd
    from matplotlib.figure import Figure

    from ..studies._runner import ChunkStudy
    from ..studies.carousel import CarouselStudy

__all__ = ["KIND", "load_carousel", "load_carousel_run", "carousel_sections",
           "carousel_headlines", "carousel_contents", "T_MAX", "BLUNDER_GAMES",
           "BLUNDER_ROLLOUTS", "blunder_sample"]

KIND = "carousel"
#: The last own turn of the P(may knock by turn t) figure and table.
T_MAX = 12
#: The blunder table of a run with histories: the plays analysed (the first ones of the
#: run), the rollouts per candidate of each decision, the worst decisions shown per bot
BLUNDER_GAMES = 4
BLUNDER_ROLLOUTS = 16
BLUNDER_WORST = 3


def load_carousel(path: Path) -> ChunkStudy:  # a CarouselStudy (ChunkStudy.load's type)
    """The loader of a carousel run (the study), as ``reports._model``'s loader of kind "carousel" does."""
    from ..studies.carousel import CarouselStudy

    return CarouselStudy.load(path)


def load_carousel_run(path: str | os.PathLike[str], name: str | None = None) -> Run:
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


def carousel_contents(st: CarouselStudy) -> str:
    """One line saying what a Carousel run holds (the report's table of runs)."""
    seats = "" if st.seats == "fixed" else (
        f"; seats {st.seats} ({len(st.arrangements)} plays of every game)")
    return (f"Carousel: {st.games_done:,} games, {st.players} players: {', '.join(st.bots)}"
            f"{seats}; to {st.rules.target_score} points, knock at {st.rules.knock_limit}")


# --------------------------------------------------------------------------- tables
def _ratings(runs: Sequence[Run], bootstrap: int, seed: int) -> pd.DataFrame | None:
    """Bradley-Terry ratings of every run with two bots or more (``None`` if none has)."""
    import pandas as pd

    out = []
    for r in runs:
        if len(set(r.study.bots)) < 2 or r.study.games_done < 2:
            continue
        t = r.study.ratings(bootstrap=bootstrap, seed=seed)
        t.insert(0, "run", r.name)
        out.append(t)
    return pd.concat(out, ignore_index=True) if out else None


def _paired(runs: Sequence[Run]) -> pd.DataFrame | None:
    """Every pair of bots game by game, in the runs whose seats move (``None`` if none)."""
    import pandas as pd

    rows = []
    for r in runs:
        st = r.study
        names = list(dict.fromkeys(st.bots))
        if st.seats == "fixed" or len(names) < 2 or st.games_done < 2:
            continue
        for a, b in itertools.combinations(names, 2):
            pc = st.paired(a, b).set_index("metric")
            s, w = pc.loc["score"], pc.loc["win"]
            rows.append({"run": r.name, "pair": f"{a} − {b}", "a": a, "b": b,
                         "games": int(s.deals), "score_diff": float(s["diff"]),
                         "score_lo": float(s.diff_lo), "score_hi": float(s.diff_hi),
                         "win_diff": float(w["diff"]), "win_lo": float(w.diff_lo),
                         "win_hi": float(w.diff_hi)})
    return pd.DataFrame(rows) if rows else None


def _score_table(runs: Sequence[Run]) -> pd.DataFrame:
    """Per run and bot: the final scores' mean, quantiles, and the rounds won with the
    mean score of a round won."""
    import pandas as pd

    rows = []
    for r in runs:
        g = r.study.games()
        rec = r.records
        for bot in dict.fromkeys(r.study.bots):
            s = g[g.bot == bot]["final"].to_numpy(float)
            won = rec[(rec.bot == bot) & rec.won]["score"].to_numpy(float)
            n = len(s)
            rows.append({"run": r.name, "bot": bot, "player_games": n,
                         "mean_final": s.mean() if n else np.nan,
                         "mean_final_se": s.std(ddof=1) / math.sqrt(n) if n > 1 else np.nan,
                         "q10": np.quantile(s, 0.1) if n else np.nan,
                         "median": np.median(s) if n else np.nan,
                         "q90": np.quantile(s, 0.9) if n else np.nan,
                         "rounds_won": len(won),
                         "mean_round_won": won.mean() if len(won) else np.nan,
                         "mean_round_won_se": (won.std(ddof=1) / math.sqrt(len(won))
                                               if len(won) > 1 else np.nan)})
    return pd.DataFrame(rows)


def _bins(values: np.ndarray, target: int = 40) -> np.ndarray:
    """Histogram bin edges over ``values``: a round width (1, 2, 5, 10, 20, 25, 50, ...
    points) giving about ``target`` bins between the 0.1 % and 99.9 % quantiles."""
    lo, hi = np.quantile(values, [0.001, 0.999])
    span = max(hi - lo, 1.0)
    width = next((w for w in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)
                  if span / w <= target), 10 ** math.ceil(math.log10(span / target)))
    return np.arange(width * math.floor(lo / width), width * math.floor(hi / width) + 2 * width,
                     width, dtype=float)


def _score_hist(runs: Sequence[Run], bot_order: Sequence[str]) -> pd.DataFrame:
    """Per run and bot: player-games per final-score bin (the extreme 0.1 % at each end
    counted in the edge bins). Columns ``run``, ``bot``, ``lo``, ``hi``, ``count``,
    ``share``."""
    finals = {r.name: r.study.games() for r in runs}
    edges = _bins(np.concatenate([g["final"].to_numpy(float) for g in finals.values()]))
    return histogram((({"run": r.name, "bot": bot},
                       finals[r.name][finals[r.name].bot == bot]["final"].to_numpy(float))
                      for r in runs for bot in bot_order), edges)


def _length_hist(runs: Sequence[Run]) -> pd.DataFrame:
    """Per run: rounds per round length (turns), one-turn bins up to 60 bins, wider past
    that (the longest 0.5 % counted in the last bin)."""
    lengths = {r.name: r.records[r.records.seat == 0].round_length.to_numpy(float) for r in runs}
    return histogram((({"run": name}, v) for name, v in lengths.items()),
                     length_edges(lengths.values(), 60))


def _knock_wide(kp: pd.DataFrame, runs: Sequence[Run]) -> pd.DataFrame:
    """P(may knock by own turn t) with one row per (run, t) and one column per seat
    (``p@s``, ``lo@s``, ``hi@s``) and the player-rounds of each seat (``n@s``)."""
    import pandas as pd

    rows = []
    for r in runs:
        d = kp[kp.run == r.name]
        for t, e in d.groupby("t", sort=True):
            row = {"run": r.name, "t": int(t)}
            for q in e.itertuples():
                s = int(q.seat)
                row.update({f"p@{s}": q.p, f"lo@{s}": q.p_lo, f"hi@{s}": q.p_hi, f"n@{s}": q.n})
            rows.append(row)
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- figures
@_styled
def _fig_knock_possible(kp: pd.DataFrame, runs: Sequence[str]) -> Figure:
    fig, axes = _panels(len(runs), ncols=min(2, len(runs)), height=3.4)
    for ax, run in zip(axes, runs, strict=True):
        d = kp[kp.run == run]
        for q in sorted(d.seat.unique()):
            e = d[d.seat == q]
            ax.plot(e.t, e.p, marker="o", ms=3, color=_color(int(q)), label=f"seat {q}")
            ax.fill_between(e.t, e.p_lo, e.p_hi, color=_color(int(q)), alpha=0.18, lw=0)
        ax.set_xlabel("the player's own turn t in the round")
        ax.set_xticks(range(1, T_MAX + 1))
        ax.set_title(run if len(runs) > 1 else "P(may knock by own turn t), by seat")
        ax.legend(fontsize=8, loc="lower right")
        _percent_axis(ax, None)
        ax.set_ylim(0, None)
    axes[0].set_ylabel("share of player-rounds")
    return fig


# --------------------------------------------------------------------------- blunders
def blunder_sample(run: Run, games: int = BLUNDER_GAMES) -> list[tuple[int, dict, list[str]]]:
    """The first ``games`` plays of a run made with histories, in the records' order:
    ``(play, history, the bot of each seat)`` (empty without histories)."""
    from ..common.seats import arrangements
    from ..studies._carousel_plan import Settings
    from ..studies.carousel import read_histories

    if not run.manifest.get("histories") or games < 1:
        return []
    specs = Settings.from_json(run.manifest["settings"]).plan()
    seats: list[list[str]] = []
    for spec in specs:
        for perm in arrangements(spec["players"], spec.get("seats", "fixed")):
            seats += [[spec["bots"][k] for k in perm]] * int(spec["n"])
            if len(seats) >= games:
                break
        if len(seats) >= games:
            break
    chunks = range(len(specs))
    out = []
    for play, h in enumerate(read_histories(run.path, chunks)):
        if play >= min(games, len(seats)):
            break
        out.append((play, h, seats[play]))
    return out


def _blunders(runs: Sequence[Run], seed: int, games: int, rollouts: int
              ) -> tuple[pd.DataFrame, pd.DataFrame, int] | None:
    """Per run and bot the analysed decisions' mean loss, and the worst decisions, from
    the first ``games`` plays of every run with histories (None: no such run)."""
    import pandas as pd

    from ..analysis import blunder_table
    from ..analysis.carousel import analyse_game

    rows, worst = [], []
    analysed = 0
    for r in runs:
        sample = blunder_sample(r, games)
        if not sample:
            continue
        done = [(analyse_game(h, rollouts=rollouts, seed=seed, game=play), names)
                for play, h, names in sample]
        analysed += len(done)
        for row in blunder_table(done, worst=BLUNDER_WORST):
            rows.append({"run": r.name, "bot": row.name, "games": len(done),
                         "decisions": row.decisions, "mean_loss": row.mean_loss,
                         "mean_loss_se": row.se, "share_over": row.share_over})
            for gi, d in row.worst:
                worst.append({"run": r.name, "bot": row.name, "play": sample[gi][0],
                              "decision": d.index, "round": int(d.info.get("round", 0)) + 1,
                              "turn": int(d.info.get("turn", 0)) + 1, "kind": d.kind,
                              "played": d.played, "best": d.best.move, "loss": d.loss})
    if not rows:
        return None
    return pd.DataFrame(rows), pd.DataFrame(worst), analysed


# --------------------------------------------------------------------------- sections
def _mean_final(score_t: pd.DataFrame, run: str, bot: str) -> float:
    return float(score_t[(score_t.run == run) & (score_t.bot == bot)].mean_final.iloc[0])


def carousel_sections(runs: Sequence[Run], *, bootstrap: int = 200,
                      seed: int = 2026, blunder_games: int = BLUNDER_GAMES,
                      blunder_rollouts: int = BLUNDER_ROLLOUTS) -> list[Section]:
    """The report sections of the Carousel runs among ``runs`` (none: ``[]``), side by
    side when several. The tables by bot, seat and position are the runs'
    ``CarouselStudy.summary(by)``, the rounds table their ``overview()``; ratings are
    ``CarouselStudy.ratings`` (``rummy51.ratings.bradley_terry`` of the games'
    winners) with ``bootstrap`` resamples drawn from ``seed``. Runs made with histories
    get a blunder table: their first ``blunder_games`` plays analysed
    (``rummy51.analysis.carousel.analyse_game``, ``blunder_rollouts`` rollouts per
    candidate, ``seed``)."""
    runs = [r for r in runs if r.kind == KIND]
    if not runs:
        return []
    rt = _ratings(runs, bootstrap, seed)
    bot_order: list[str] = [] if rt is None else list(dict.fromkeys(rt.bot))
    for r in runs:
        bot_order += [b for b in dict.fromkeys(r.study.bots) if b not in bot_order]
    sections = [_who_wins_section(runs, bot_order)]
    if rt is not None:
        sections.append(_ratings_section(runs, rt, bot_order, bootstrap, seed))
    sections.append(_scores_section(runs, bot_order))
    sections.append(_rounds_section(runs))
    blunders = _blunder_section(runs, seed, blunder_games, blunder_rollouts)
    if blunders is not None:
        sections.append(blunders)
    return sections


def _who_wins_section(runs: Sequence[Run], bot_order: Sequence[str]) -> Section:
    """The "Who wins" section: game win rates by bot, seat and place in the turn order (a
    figure and three tables), and how each bot ends its rounds."""
    import pandas as pd

    names = [r.name for r in runs]
    multi = len(runs) > 1
    rcol = run_cols(runs)
    bots_t = ordered(tagged(runs, "summary", "bot"), bot_order, names)
    bots_t["bot"] = bots_t.bot.astype(str)
    seats_t = tagged(runs, "summary", "seat")
    seats_t["bot"] = seats_t.bot.astype(str)
    pos_t = tagged(runs, "summary", "position")
    players = [int(r.study.players) for r in runs]
    moving = [r.name for r in runs if r.study.seats != "fixed"]
    game_cols = [Column("player_games", "player-games", "int"),
                 Column("game_win_rate", "game wins", "pct", "game_win_lo", "game_win_hi"),
                 Column("mean_final", "final score", "num", se="mean_final_se", digits=1),
                 Column("round_win_rate", "round wins", "pct", "round_win_lo", "round_win_hi")]
    play_cols = [Column("player_rounds", "player-rounds", "int"),
                 Column("knock_rate", "knocked", "pct", "knock_lo", "knock_hi"),
                 Column("out_rate", "went out", "pct", "out_lo", "out_hi"),
                 Column("undercut_rate", "undercut (per knock or out)", "pct", "undercut_lo",
                        "undercut_hi"),
                 Column("mean_points", "points left", "num", se="mean_points_se", digits=1)]
    seat_note = ("" if not moving else
                 f" In {'the run' if not multi else ', '.join(moving)} with seats that move every "
                 "seat holds every bot in turn (bot '(all)').")
    return Section(
        "Who wins", "carousel",
        "Whole games of Carousel (docs/rules-carousel.md) between bots, rounds to the target "
        "score. A player-game is one seat in one game (one play of it, when every game is "
        "played under several seat arrangements); tied winners all count. Intervals: 95 % "
        "Wilson; means ± 1.96 standard errors. Scores: higher is better." + seat_note,
        (ReportFigure("carousel_win_rates_fig",
                      "Game win rate by bot, by seat and by place in the turn order",
                      fig_win_rates(bots_t, seats_t, pos_t, names, bot_order, players,
                                    "game_win", "game win rate (per player-game)"),
                      "Whiskers: 95 % Wilson intervals; the dashed line is the fair share "
                      "1/players. Place 0 is the dealer's left, who plays first, in the "
                      "game's first round.",
                      pd.concat([bots_t.assign(group="bot"), seats_t.assign(group="seat"),
                                 pos_t.assign(group="position")], ignore_index=True)),
         ReportTable("carousel_win_rates", "Results by bot", bots_t,
                     tuple(rcol + [Column("bot", "bot")] + game_cols)),
         ReportTable("carousel_by_seat", "Results by seat", seats_t,
                     tuple(rcol + [Column("seat", "seat", "int"), Column("bot", "bot")]
                           + game_cols)),
         ReportTable("carousel_by_position", "Results by place in the turn order", pos_t,
                     tuple(rcol + [Column("position", "place (0 = first)", "int")] + game_cols),
                     "The place in the first round of the game (the deal moves left every "
                     "round)."),
         ReportTable("carousel_play_by_bot", "How each bot ends rounds", bots_t,
                     tuple(rcol + [Column("bot", "bot")] + play_cols),
                     "Per player-round: knocked (a voluntary knock), went out (every card "
                     "melded); undercut: the knocker or the player who went out did not win "
                     "the round; points left: the count of the hand at the round's end.")))


def _ratings_section(runs: Sequence[Run], rt: pd.DataFrame, bot_order: Sequence[str],
                     bootstrap: int, seed: int) -> Section:
    """The "Ratings" section: the Bradley-Terry ratings ``rt`` (a figure and a table)
    and, in runs whose seats move, every pair of bots compared on the same games."""
    names = [r.name for r in runs]
    rcol = run_cols(runs)
    rt_cols = rcol + [Column("bot", "bot"),
                      Column("rating", "rating", "num", "rating_lo", "rating_hi", digits=0),
                      Column("wins", "pairwise wins", "int"),
                      Column("comparisons", "comparisons", "int"),
                      Column("deals", "games played", "int")]
    items: list = [ReportFigure("carousel_ratings_fig", "Bradley–Terry ratings of the bots",
                                fig_ratings(rt, [n for n in names if n in set(rt.run)],
                                            [b for b in bot_order if b in set(rt.bot)]),
                                "Whiskers: 95 % bootstrap intervals over games.", rt),
                   ReportTable("carousel_ratings", "Ratings", rt, tuple(rt_cols),
                               f"Fitted by the MM algorithm; intervals from {bootstrap} "
                               f"bootstrap resamples of the games (seed {seed}).")]
    pt = _paired(runs)
    if pt is not None:
        items.append(ReportTable(
            "carousel_paired", "Paired on the same games", pt,
            tuple(rcol + [Column("pair", "bots (a − b)"), Column("games", "games", "int"),
                          Column("score_diff", "final score a − b", "num", "score_lo",
                                 "score_hi", digits=1),
                          Column("win_diff", "game wins a − b", "pct", "win_lo", "win_hi")]),
            "With seats that move every bot played every game from every seat: per game, "
            "the difference of the two bots' mean final score and of their sole-win rate "
            "over the game's plays, then the mean over games with its 95 % interval (the "
            "games are the independent units)."))
    return Section(
        "Ratings", "carousel-ratings",
        "Each game's sole winner beats every other seat's bot (seats of its own bot aside; a "
        "shared win is no comparison): a Bradley–Terry model of these pairwise results "
        "gives one rating per bot (rummy51.ratings, as for Rummy 51). On the Elo scale, "
        "400 points more means odds of 10 to 1 in a comparison.", tuple(items))


def _scores_section(runs: Sequence[Run], bot_order: Sequence[str]) -> Section:
    """The "Scores" section: the final scores by bot (a histogram, a table of quantiles)."""
    names = [r.name for r in runs]
    rcol = run_cols(runs)
    score_t = ordered(_score_table(runs), bot_order, names)
    score_h = _score_hist(runs, bot_order)
    return Section(
        "Scores", "carousel-scores",
        "The final score of each seat in each game (docs/rules-carousel.md sections 5 and 6): "
        "the rounds' scores (a round's winner scores the difference to every other hand, "
        "plus the undercut and going-out bonuses), then the game bonus for reaching the "
        "target and the bonus per round won.",
        (ReportFigure("carousel_final_scores_fig", "Final scores by bot",
                      fig_histograms(score_h, names, bot_order, lambda run, bot: (
                          f"{bot} (mean {_mean_final(score_t, run, bot):.0f})"),
                          "final score per player-game",
                          "final score (points, bonuses included; higher is better)",
                          "share of player-games", lw=1.6),
                      "Share of player-games per score bin (the extreme 0.1 % at each end "
                      "counted in the edge bins).", score_h),
         ReportTable("carousel_scores", "Scores by bot", score_t,
                     tuple(rcol + [Column("bot", "bot"),
                                   Column("player_games", "player-games", "int"),
                                   Column("mean_final", "mean final", "num", se="mean_final_se",
                                          digits=1),
                                   Column("q10", "10 %", "num", digits=0),
                                   Column("median", "median", "num", digits=0),
                                   Column("q90", "90 %", "num", digits=0),
                                   Column("rounds_won", "rounds won", "int"),
                                   Column("mean_round_won", "score of a round won", "num",
                                          se="mean_round_won_se", digits=1)]))))


def _rounds_section(runs: Sequence[Run]) -> Section:
    """The "Rounds" section: how rounds end, how long they last, and P(may knock by own
    turn t) per seat."""
    names = [r.name for r in runs]
    rcol = run_cols(runs)
    over = tagged(runs, "overview")
    players = [int(r.study.players) for r in runs]
    kp = tagged(runs, "knock_possible", T_MAX, by="seat")
    wide = _knock_wide(kp, runs)
    most = max(players)
    kp_cols = rcol + [Column("t", "own turn t", "int")] + [
        Column(f"p@{s}", f"seat {s}", "pct", f"lo@{s}", f"hi@{s}") for s in range(most)]
    length_h = _length_hist(runs)
    return Section(
        "Rounds", "carousel-rounds",
        "How a round ends: a knock (at the end of a turn, the hand at the knock limit or "
        "below), going out (every card melded) or the stock running out; how often the "
        "player who ended it was undercut; how long it lasts; and how soon a hand may knock.",
        (ReportTable("carousel_overview", "How rounds end", over,
                     tuple(rcol + [Column("games", "games", "int"),
                                   Column("rounds", "rounds", "int"),
                                   Column("rounds_per_game", "rounds per game", "num",
                                          se="rounds_per_game_se"),
                                   Column("knock_rate", "by a knock", "pct", "knock_lo",
                                          "knock_hi"),
                                   Column("out_rate", "by going out", "pct", "out_lo", "out_hi"),
                                   Column("stock_rate", "stock ran out", "pct", "stock_lo",
                                          "stock_hi"),
                                   Column("undercut_rate", "undercut", "pct", "undercut_lo",
                                          "undercut_hi")]),
                     "Rates per round (every play of a game counted); undercut: per round "
                     "ended by a knock or by going out."),
         ReportFigure("carousel_round_length_fig", "Round length",
                      fig_lengths(length_h, over, names, "round",
                                  "round length (turns, all players)", "share of rounds"),
                      "Share of rounds by length in turns of all players (the longest 0.5 % "
                      "counted in the last bin); dashed: the mean.", length_h),
         ReportTable("carousel_round_length", "Round length (turns)", over,
                     tuple(rcol + [Column("rounds", "rounds", "int"),
                                   Column("mean_round_length", "mean", "num",
                                          se="mean_round_length_se", digits=1),
                                   Column("median_round_length", "median", "num", digits=0),
                                   Column("p90_round_length", "90 %", "num", digits=0),
                                   Column("turns", "turns in all", "int")])),
         ReportFigure("carousel_knock_possible_fig", "P(may knock by own turn t), by seat",
                      _fig_knock_possible(kp, names),
                      "The share of player-rounds whose hand counted the knock limit or fewer "
                      "at the end of one of the player's first t turns, as the rounds went (a "
                      "round that ended sooner counts as not by t). Bands: 95 % Wilson "
                      "intervals.", kp),
         ReportTable("carousel_knock_possible", "P(may knock by own turn t), by seat", wide,
                     tuple(kp_cols), "Per player-round of the seat; 95 % Wilson intervals.")))


def _blunder_section(runs: Sequence[Run], seed: int, blunder_games: int,
                     blunder_rollouts: int) -> Section | None:
    """The "Blunders" section: each bot's mean loss per decision and its worst decisions,
    from the first ``blunder_games`` plays of every run with histories (None: no such run)."""
    multi = len(runs) > 1
    rcol = run_cols(runs)
    bl = _blunders(runs, seed, blunder_games, blunder_rollouts)
    if bl is None:
        return None
    bl_t, worst_t, analysed = bl
    many = "" if analysed == 1 else "s"
    return Section(
        "Blunders", "carousel-blunders",
        f"The decisions of {analysed} game{many} (the first play{many} of "
        f"{'each run' if multi else 'the run'} with hand histories) analysed as `rummy51 "
        "carousel analyse` does (docs/analysis.md): at each decision the search bot's "
        "candidate moves and the move played, each rolled out to the end of the round "
        f"{blunder_rollouts} times on the same deals of the unseen cards (greedy play "
        f"after the move, seed {seed}); the loss of a decision is the best candidate's "
        "mean margin less the played move's (0 when the played move was the best). With "
        "so few rollouts a loss is biased upward (the best of several noisy means): "
        "compare the bots with each other rather than with 0.",
        blunder_tables(
            "carousel", bl_t, worst_t, rcol, plays=Column("games", "games", "int"),
            where=[Column("play", "game", "int"), Column("decision", "decision", "int"),
                   Column("round", "round", "int"), Column("turn", "turn", "int")],
            titles=("Mean loss per decision, by bot", "Each bot's worst decisions"),
            notes=("", "Game: the play's place in the run's histories (0-based); "
                       "decision: its index in the game. `rummy51 carousel analyse RUN "
                       f"--game G --decision N --rollouts {blunder_rollouts} --seed {seed}` "
                       "shows it with the same numbers (more rollouts: surer ones).")))


def carousel_headlines(run: Run, ratings: pd.DataFrame | None = None) -> list[Headline]:
    """The first-screen numbers of one carousel run (``ratings``: its Bradley-Terry
    table, computed when None and the run has two bots or more)."""
    st = run.study
    o = st.overview().iloc[0]
    seats = "" if st.seats == "fixed" else f"; seats {st.seats}"
    heads = [Headline("Games played", int(o.games), "int",
                      note=f"{st.players} players: {', '.join(st.bots)}{seats}")]
    if ratings is None and len(set(st.bots)) > 1 and st.games_done > 1:
        ratings = st.ratings(bootstrap=200)
    if ratings is not None and len(ratings) > 1 and _finite(ratings.rating.iloc[0]):
        top = ratings.iloc[0]
        heads.append(Headline(f"Top rated: {top.bot}", float(top.rating), "num",
                              float(top.rating_lo), float(top.rating_hi),
                              "Bradley–Terry, Elo scale (mean 1500)"))
        s = st.summary("bot")
        w = s[s.bot.astype(str) == top.bot].iloc[0]
        heads.append(Headline(f"Game wins of {top.bot}", float(w.game_win_rate), "pct",
                              float(w.game_win_lo), float(w.game_win_hi),
                              f"per player-game; fair share {fmt_pct(1 / st.players, 1)}"))
    else:
        s = st.summary("seat")
        for _, r in s.iterrows():
            heads.append(Headline(f"Game wins, seat {int(r.seat)} ({r.bot})",
                                  float(r.game_win_rate), "pct", float(r.game_win_lo),
                                  float(r.game_win_hi)))
    se = o.rounds_per_game_se
    heads.append(Headline("Rounds per game", float(o.rounds_per_game), "num",
                          o.rounds_per_game - Z95 * se if _finite(se) else None,
                          o.rounds_per_game + Z95 * se if _finite(se) else None,
                          f"{o.mean_round_length:.1f} turns a round; ended by a knock "
                          f"{fmt_pct(o.knock_rate)}, going out {fmt_pct(o.out_rate)}, the stock "
                          f"{fmt_pct(o.stock_rate)}", digits=2))
    return heads
