"""Report sections of game runs: win rates by bot, seat and position, hand wins,
scores, deal lengths and ratings.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..ratings import bradley_terry, play_ids
from ..stats import Z95, proportion
from ._figures import _grouped_bars, _legend, _panels, _styled
from ._model import Column, Headline, ReportFigure, ReportTable, Run, Section, _finite, fmt_pct
from ._sections import (
    blunder_tables,
    fig_histograms,
    fig_lengths,
    fig_ratings,
    fig_win_rates,
    histogram,
    length_edges,
    ordered,
    rate_parts,
    run_cols,
    tagged,
)

if TYPE_CHECKING:  # pandas and matplotlib are imported where a report is built
    import pandas as pd
    from matplotlib.figure import Figure


#: deals of a run with hand histories analysed for its blunder table (a seeded sample)
BLUNDER_GAMES = 8
#: rollouts per candidate move in the blunder table's analysis
BLUNDER_ROLLOUTS = 16


def _bottom_wins(runs: Sequence[Run]) -> pd.DataFrame:
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


def _bot_order(ratings: Sequence[pd.DataFrame]) -> list[str]:
    """Bots best first by the first run's rating, then any others by name."""
    order: list[str] = []
    for df in ratings:
        for b in df.bot:
            if b not in order:
                order.append(b)
    return order


@_styled
def _fig_hand_wins(bots_t: pd.DataFrame, bottom_t: pd.DataFrame, runs: Sequence[str],
                   bot_order: Sequence[str]) -> Figure:
    from matplotlib.ticker import PercentFormatter

    fig, axes = _panels(2, ncols=2, sharex=True, sharey=False, height=3.4)
    for ax, t, prefix, title in ((axes[0], bots_t, "hand_win", "won by hand (going out at once)"),
                                 (axes[1], bottom_t, "bottom_card_win",
                                  "won by hand with the bottom card")):
        _grouped_bars(ax, bot_order, rate_parts(t, "bot", prefix, runs))
        ax.set_title(title)
        ax.set_ylim(0, None)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
    axes[0].set_ylabel("rate per player-deal")
    _legend(fig, axes, len(runs))
    return fig


def _score_hist(runs: Sequence[Run], bot_order: Sequence[str]) -> pd.DataFrame:
    """Per run and bot: player-deals per 10-point score bin (bins centred on multiples of
    10; the extreme 0.1 % of all scores at each end counted in the edge bins)."""
    scores = np.concatenate([r.records.score.to_numpy(float) for r in runs])
    lo, hi = np.quantile(scores, [0.001, 0.999])
    bins = np.arange(10 * math.floor(lo / 10) - 5, 10 * math.ceil(hi / 10) + 15, 10)
    return ordered(histogram(
        (({"run": r.name, "bot": bot}, g.score.to_numpy(float))
         for r in runs for bot, g in r.records.groupby("bot", sort=False)), bins),
        bot_order, [r.name for r in runs])


def _length_hist(runs: Sequence[Run]) -> pd.DataFrame:
    """Per run: deals per deal length (one-turn bins, or wider past 100 turns; the
    longest 0.5 % counted in the last bin)."""
    lengths = [r.records.groupby(play_ids(r.records)).deal_length.first().to_numpy(float)
               for r in runs]
    return histogram((({"run": r.name}, L) for r, L in zip(runs, lengths, strict=True)),
                     length_edges(lengths, 100))


def _plackett_luce_table(runs: Sequence[Run]) -> pd.DataFrame | None:
    """The runs' Plackett-Luce ratings (one table), or None without openskill."""
    import pandas as pd

    from ..ratings import plackett_luce

    out = []
    for r in runs:
        try:
            t = plackett_luce(r.records)
        except ValueError:
            return None     # openskill is optional
        t.insert(0, "run", r.name)
        out.append(t)
    return pd.concat(out, ignore_index=True)


def _score_table(runs: Sequence[Run]) -> pd.DataFrame:
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


def _mean(t: pd.DataFrame, run: str, bot: str, column: str) -> float:
    """``column`` of the row of ``run`` and ``bot`` in table ``t``."""
    return float(t[(t.run == run) & (t.bot == bot)][column].iloc[0])


def game_sections(runs: Sequence[Run], *, bootstrap: int = 200, seed: int = 2026,
                  blunder_games: int = BLUNDER_GAMES,
                  blunder_rollouts: int = BLUNDER_ROLLOUTS) -> list[Section]:
    """The report sections of games runs (side by side when several). The tables by
    bot, seat and position are the runs' ``GameStudy.summary(by)``, the deal table
    their ``overview()``; ratings come from ``bradley_terry`` of the records. A run made
    with ``--histories`` gets a blunder table: ``blunder_games`` of its deals (a sample
    seeded by ``seed``) analysed with ``blunder_rollouts`` rollouts per candidate."""
    runs = [r for r in runs if r.kind == "games"]
    if not runs:
        return []
    names = [r.name for r in runs]
    ratings = []
    for r in runs:
        t = bradley_terry(r.records, bootstrap=bootstrap, seed=seed)
        t.insert(0, "run", r.name)
        ratings.append(t)
    bot_order = _bot_order(ratings)
    bots_t = ordered(tagged(runs, "summary", "bot"), bot_order, names)
    bots_t["bot"] = bots_t.bot.astype(str)
    sections = [_who_wins_section(runs, bots_t, bot_order),
                _ratings_section(runs, ratings, bots_t, bot_order, bootstrap, seed),
                _scores_section(runs, bots_t, bot_order),
                _deals_section(runs, bots_t, bot_order)]
    blunders = _blunder_section(runs, blunder_games, blunder_rollouts, seed)
    if blunders is not None:
        sections.append(blunders)
    return sections


def _who_wins_section(runs: Sequence[Run], bots_t: pd.DataFrame,
                      bot_order: Sequence[str]) -> Section:
    """The "Who wins" section: win rates by bot (``bots_t``, the runs' summaries by bot),
    by seat and by place in the turn order (a figure and three tables)."""
    import pandas as pd

    names = [r.name for r in runs]
    rcol = run_cols(runs)
    seats_t = tagged(runs, "summary", "seat")
    seats_t["bot"] = seats_t.bot.astype(str)
    pos_t = tagged(runs, "summary", "position")
    players = [int(r.study.players) for r in runs]

    rate_cols = [Column("player_deals", "player-deals", "int"),
                 Column("win_rate", "win rate", "pct", "win_lo", "win_hi"),
                 Column("hand_win_rate", "won by hand", "pct", "hand_win_lo", "hand_win_hi"),
                 Column("open_rate", "opened", "pct", "open_lo", "open_hi"),
                 Column("mean_turn_opened", "mean turn opened", "num", se="mean_turn_opened_se",
                        digits=2),
                 Column("mean_score", "mean score", "num", se="mean_score_se", digits=2)]
    return Section(
        "Who wins", "games",
        "Bots playing full deals against each other. A player-deal is one seat in one deal; "
        "a win is going out, and the win rate is wins per player-deal (draws count as deals "
        "without a win). Intervals: 95 % Wilson; means ± 1.96 standard errors. Scores: "
        "lower is better.",
        (ReportFigure("games_win_rates", "Win rate by bot, by seat and by place in the turn order",
                      fig_win_rates(bots_t, seats_t, pos_t, names, bot_order, players,
                                    "win", "win rate (per player-deal)"),
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
                     "The first player holds 15 cards and does not draw on the first turn.")))


def _ratings_section(runs: Sequence[Run], ratings: Sequence[pd.DataFrame], bots_t: pd.DataFrame,
                     bot_order: Sequence[str], bootstrap: int, seed: int) -> Section:
    """The "Ratings" section: each run's Bradley-Terry ``ratings`` (a figure and a
    table), the Plackett-Luce ratings when OpenSkill is installed and, for several
    runs, the ratings and win rates side by side."""
    import pandas as pd

    names = [r.name for r in runs]
    multi = len(runs) > 1
    rcol = run_cols(runs)
    rt = pd.concat(ratings, ignore_index=True)
    rt_cols = rcol + [Column("bot", "bot"),
                      Column("rating", "rating", "num", "rating_lo", "rating_hi", digits=0),
                      Column("wins", "pairwise wins", "int"),
                      Column("comparisons", "comparisons", "int"),
                      Column("deals", "deals played", "int")]
    items: list = [ReportFigure("games_ratings", "Bradley–Terry ratings of the bots",
                                fig_ratings(rt, names, bot_order),
                                "Whiskers: 95 % bootstrap intervals over deals.", rt),
                   ReportTable("games_ratings", "Ratings", rt, tuple(rt_cols),
                               f"Fitted by the MM algorithm; intervals from {bootstrap} bootstrap "
                               f"resamples of the deals (seed {seed}).")]
    pl = _plackett_luce_table(runs)
    if pl is not None:
        items.append(ReportTable(
            "games_plackett_luce", "Plackett-Luce ratings (OpenSkill)", pl,
            tuple(rcol + [Column("bot", "bot"),
                          Column("mu", "mu", "num", "mu_lo", "mu_hi", digits=2),
                          Column("sigma", "sigma", "num", digits=2),
                          Column("ordinal", "mu - 3 sigma", "num", digits=2),
                          Column("plays", "plays", "int")]),
            "Every play ranked by score (lower is better); interval: mu ± 1.96 sigma, the "
            "model's posterior, not a sampling interval."))
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
    return Section(
        "Ratings", "ratings",
        "Each deal's winner beats every other seat's bot (seats of its own bot aside): a "
        "Bradley–Terry model of these pairwise results gives one rating per bot. On the Elo "
        "scale, 400 points more means odds of 10 to 1 in a comparison.", tuple(items))


def _scores_section(runs: Sequence[Run], bots_t: pd.DataFrame,
                    bot_order: Sequence[str]) -> Section:
    """The "Scores" section: the scores by bot (a histogram and a table of quantiles)."""
    names = [r.name for r in runs]
    rcol = run_cols(runs)
    score_t = ordered(_score_table(runs), bot_order, names)
    score_h = _score_hist(runs, bot_order)
    return Section(
        "Scores", "scores",
        "The score of each seat in each deal (docs/rules.md section 6): −40 for going out, −80 "
        "for a hand win, the cards left in hand for an opened loser, 100 for an unopened one, "
        "doubled after a hand win.",
        (ReportFigure("games_scores", "Score distributions by bot",
                      fig_histograms(score_h, names, bot_order, lambda run, bot: (
                          f"{bot} (mean {_mean(bots_t, run, bot, 'mean_score'):+.1f})"),
                          "score per player-deal", "score (points; lower is better)",
                          "share of player-deals"),
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
                                          "unopened_lo", "unopened_hi")]))))


def _deals_section(runs: Sequence[Run], bots_t: pd.DataFrame,
                   bot_order: Sequence[str]) -> Section:
    """The "Deal length and hand wins" section: how long deals last, how often they end
    in a draw, and hand wins by bot (with the bottom card too)."""
    names = [r.name for r in runs]
    rcol = run_cols(runs)
    bottom_t = _bottom_wins(runs)
    over = tagged(runs, "overview")
    length_h = _length_hist(runs)
    return Section(
        "Deal length and hand wins", "deals",
        "How long a deal lasts (turns played), how often it ends without a winner (turn cap "
        "reached or stock exhausted), and how often it is won by hand.",
        (ReportFigure("games_deal_length", "Deal length",
                      fig_lengths(length_h, over, names, "deal", "deal length (turns)",
                                  "share of deals"),
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
                     "Rates per deal.")))


# --------------------------------------------------------------------------- blunders
def _history_lines(run: Run) -> list[tuple[Any, int, int, int, tuple[str, ...]]]:
    """Every hand history of a games run: ``(file, line, deal, arrangement, names)``, the
    names of the bots in its seats (a chunk's lines are arrangement-major, as its
    records). Each file is verified against its chunk file (a missing or damaged one is
    refused, naming it)."""
    from ..common.seats import arrangements
    from ..runs import chunk_histories, histories_path

    settings = run.manifest.get("settings", {})
    bots = list(settings.get("bots", ()))
    players = int(settings.get("players", len(bots)))
    perms = arrangements(players, str(settings.get("seats", "fixed")))
    size = int(settings.get("chunk_size", 1))
    out = []
    for chunk, texts in chunk_histories(run.path, "games"):
        f = histories_path(run.path, chunk)
        k = len(texts)
        n = max(1, k // len(perms))
        for line in range(k):
            a, j = divmod(line, n)
            perm = perms[a] if a < len(perms) else perms[-1]
            out.append((f, line, chunk * size + j, a, tuple(bots[q] for q in perm)))
    return out


def _history_text(f: Any, line: int) -> str:
    """Line ``line`` of the (verified) history file ``f`` of its run."""
    from ..runs import chunk_histories

    chunk = int(f.name[len("chunk-"):].split(".")[0])
    for _, texts in chunk_histories(f.parent.parent, "games", [chunk]):
        return texts[line]
    raise ValueError(f"{f}: no line {line}")


def _blunder_section(runs: Sequence[Run], games: int, rollouts: int,
                     seed: int) -> Section | None:
    """Per bot, the mean loss per decision and its worst decisions, from a seeded sample
    of each run's hand histories analysed by ``rummy51.analysis`` (None: no run has
    histories)."""
    import pandas as pd

    from ..analysis import analyse_game, blunder_table

    rows, worst = [], []
    told = []
    for r in runs:
        if not r.manifest.get("histories"):
            continue
        lines = _history_lines(r)
        if not lines:
            continue
        rng = np.random.default_rng(seed)
        pick = sorted(rng.choice(len(lines), size=min(games, len(lines)), replace=False))
        analysed = []
        where = []
        for i in pick:
            f, line, deal, arr, names = lines[int(i)]
            text = _history_text(f, line)
            analysed.append((analyse_game(text, rollouts=rollouts, seed=seed), names))
            where.append((f, line, deal, arr))
        told.append(f"{r.name}: {len(pick)} of {len(lines)} deals")
        for row in blunder_table(analysed, worst=3):
            rows.append({"run": r.name, "bot": row.name, "decisions": row.decisions,
                         "mean_loss": row.mean_loss, "mean_loss_se": row.se,
                         "share_over": row.share_over})
            for gi, d in row.worst:
                f, line, deal, arr = where[gi]
                rel = f.relative_to(r.path.parent) if f.is_relative_to(r.path.parent) else f
                worst.append({"run": r.name, "bot": row.name, "deal": deal,
                              "decision": d.index, "played": d.played, "best": d.best.move,
                              "loss": d.loss,
                              "command": f"rummy51 analyse {rel} --game {line} "
                                         f"--decision {d.index}"})
    if not rows:
        return None
    multi = len(runs) > 1
    rcol = [Column("run", "run")] if multi else []
    bt = pd.DataFrame(rows)
    wt = pd.DataFrame(worst)
    return Section(
        "Blunders", "blunders",
        "Each decision of a sample of the deals (" + "; ".join(told) + ", seeded by "
        f"{seed}) analysed by rollouts (docs/analysis.md): every candidate move played "
        f"{rollouts} times to the end of the deal from what the player saw, the tactician "
        "in every seat; a decision's loss is the best candidate's equity less the played "
        "move's (points of margin, 0 when the played move was the best). A small budget: "
        "a loss is an estimate, biased upwards by picking the best of noisy equities.",
        blunder_tables("games", bt, wt, rcol, plays=None,
                       where=[Column("deal", "deal", "int"), Column("decision", "decision", "int")],
                       extra=[Column("command", "to see it")],
                       titles=("Mean loss per decision, by bot", "Worst decisions of each bot"),
                       notes=("", "The three worst decisions of each bot in the sample; the "
                                  "command analyses one again (run it beside the run "
                                  "directory).")))


def game_headlines(run: Run, ratings: pd.DataFrame) -> list[Headline]:
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
