"""The report of a Carousel run (issue 27): titled for it, laid out as Rummy 51's games
sections (who wins, ratings, scores, rounds), the numbers on the page equal the run's
own tables, a score histogram rather than a row per score, no table wider than the
page, and the page renders in headless Chromium (as tests/test_reports.py checks the
Rummy 51 report) without console errors; ``--format md`` too."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason="reports need matplotlib: pip install \".[report]\" from a clone")

from rummy51.carousel import CarouselRules  # noqa: E402
from rummy51.cli import main  # noqa: E402
from rummy51.reports import build_report, render_html, render_markdown  # noqa: E402
from rummy51.reports.carousel import T_MAX, _bins  # noqa: E402
from rummy51.studies.carousel import CarouselStudy, simulate_carousel  # noqa: E402
from rummy51.studies.games import simulate_games  # noqa: E402
from test_reports import CHROMIUM, _chromium, _console, parse, png_size, rows  # noqa: E402

RULES3 = dataclasses.replace(CarouselRules.for_players(3), target_score=80)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """A 3-bot Carousel run with rotating seats, a one-bot run, a Rummy 51 games run."""
    d = tmp_path_factory.mktemp("carousel-runs")
    simulate_carousel(players=3, bots="greedy,careful,random", games=24, rules=RULES3,
                      seats="rotate", seed=4, workers=1, chunk_size=8, progress=False,
                      out=d / "car3")
    simulate_carousel(players=2, bots="greedy", games=12, seed=5, workers=1, progress=False,
                      out=d / "car-greedy")
    simulate_games(games=20, seed=1, workers=1, progress=False, out=d / "games")
    return {p.name: p for p in d.iterdir()}


@pytest.fixture(scope="module")
def report(runs):
    return build_report([runs["car3"]])


@pytest.fixture(scope="module")
def page(report, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("carousel-page") / "report.html"
    path.write_text(render_html(report, tables_href="report_tables"), encoding="utf-8")
    return path


def test_titled_and_laid_out_like_the_games_report(report):
    assert report.title == "Carousel games: car3"
    assert [s.title for s in report.sections] == ["Who wins", "Ratings", "Scores", "Rounds"]
    names = [i.name for s in report.sections for i in s.items]
    for want in ("carousel_win_rates_fig", "carousel_win_rates", "carousel_by_seat",
                 "carousel_by_position", "carousel_ratings_fig", "carousel_ratings",
                 "carousel_paired", "carousel_final_scores_fig", "carousel_scores",
                 "carousel_overview", "carousel_round_length_fig",
                 "carousel_knock_possible_fig", "carousel_knock_possible"):
        assert want in names
    labels = [h.label for h in report.headlines]
    assert labels[0] == "Games played" and labels[1].startswith("Top rated: ")
    assert report.runs_table.data.contents[0].startswith("Carousel: 24 games, 3 players")


def test_scores_are_a_histogram_not_a_row_per_score(report, runs):
    st = CarouselStudy.load(runs["car3"])
    (fig,) = [i for s in report.sections for i in s.items if i.name == "carousel_final_scores_fig"]
    h = fig.data
    finals = st.games()
    for bot, e in h.groupby("bot"):
        assert len(e) <= 60
        assert int(e["count"].sum()) == int((finals.bot == bot).sum())
        assert e["share"].sum() == pytest.approx(1.0)
        widths = (e.hi - e.lo).unique()
        assert len(widths) == 1
    (table,) = [i for s in report.sections for i in s.items if i.name == "carousel_scores"]
    assert sorted(table.data.bot) == ["careful", "greedy", "random"]   # one row a bot
    g = finals[finals.bot == "greedy"]["final"]
    row = table.data.set_index("bot").loc["greedy"]
    assert row["median"] == pytest.approx(g.median()) and row.mean_final == pytest.approx(g.mean())


def test_bins_are_round_and_cover_the_values():
    rng = np.random.default_rng(1)
    for v in (rng.integers(0, 400, 500), rng.integers(-5, 5, 50), np.array([7, 7, 7]),
              rng.integers(0, 100_000, 300)):
        e = _bins(v.astype(float))
        w = e[1] - e[0]
        assert np.allclose(np.diff(e), w) and len(e) - 1 <= 45
        assert e[0] <= np.quantile(v, 0.001) and e[-1] > np.quantile(v, 0.999)


def test_page_numbers_equal_the_run_tables(runs, page):
    p = parse(page)
    st = CarouselStudy.load(runs["car3"])
    by_bot = st.summary("bot").set_index("bot")
    shown = rows(p, "carousel_win_rates")
    assert {r["bot"]["v"] for r in shown} == set(by_bot.index)
    for r in shown:
        want = by_bot.loc[r["bot"]["v"]]
        assert float(r["game_win_rate"]["value"]) == pytest.approx(want.game_win_rate, rel=1e-12)
        assert float(r["mean_final"]["value"]) == pytest.approx(want.mean_final, rel=1e-12)
        assert r["player_games"]["v"] == f"{int(want.player_games):,}"
    seats = st.summary("seat")
    assert [r["bot"]["v"] for r in rows(p, "carousel_by_seat")] == ["(all)"] * 3
    assert [float(r["game_win_rate"]["value"]) for r in rows(p, "carousel_by_seat")] == \
        pytest.approx(list(seats.game_win_rate), rel=1e-12)
    ov = st.overview().iloc[0]
    shown_ov = rows(p, "carousel_overview")[0]
    assert shown_ov["games"]["v"] == "24"
    for c in ("knock_rate", "out_rate", "stock_rate", "undercut_rate", "rounds_per_game"):
        assert float(shown_ov[c]["value"]) == pytest.approx(ov[c], rel=1e-12)
    # ratings: the study's (rummy51.ratings.bradley_terry of its games' winners)
    bt = st.ratings(bootstrap=200, seed=2026).set_index("bot")
    for r in rows(p, "carousel_ratings"):
        assert float(r["rating"]["value"]) == pytest.approx(bt.loc[r["bot"]["v"]].rating)
    paired = rows(p, "carousel_paired")
    assert len(paired) == 3
    pc = st.paired("greedy", "careful").set_index("metric")
    r0 = next(r for r in paired if r["pair"]["v"] == "greedy − careful")
    assert float(r0["score_diff"]["value"]) == pytest.approx(pc.loc["score", "diff"])
    assert float(r0["win_diff"]["value"]) == pytest.approx(pc.loc["win", "diff"])
    # P(may knock by turn t): one row per t, one column per seat
    kp = st.knock_possible(T_MAX, by="seat")
    shown_kp = rows(p, "carousel_knock_possible")
    assert [int(r["t"]["v"]) for r in shown_kp] == list(range(1, T_MAX + 1))
    for r in shown_kp:
        for s in range(3):
            want = kp[(kp.seat == s) & (kp.t == int(r["t"]["v"]))].p.iloc[0]
            assert float(r[f"p@{s}"]["value"]) == pytest.approx(want, abs=1e-12)


def test_knock_possible_by_seat_bot_and_position(runs):
    st = CarouselStudy.load(runs["car3"])
    r = st.records
    for by in ("seat", "position", "bot"):
        kp = st.knock_possible(4, by=by)
        assert set(kp.t) == {1, 2, 3, 4}
        # by hand for the first group at t = 3
        q = kp[by].iloc[0]
        sel = r[r[by].astype(str) == str(q)]
        kt = sel.knock_turn.astype("Int64").fillna(0).to_numpy()
        row = kp[(kp[by] == q) & (kp.t == 3)].iloc[0]
        assert row.n == len(sel) and row.k == int(((kt >= 1) & (kt <= 3)).sum())
    with pytest.raises(ValueError, match="by must be"):
        st.knock_possible(by="dealer")


def test_a_one_bot_run_has_no_ratings_and_headlines_by_seat(runs):
    rep = build_report([runs["car-greedy"]])
    assert [s.title for s in rep.sections] == ["Who wins", "Scores", "Rounds"]
    assert [h.label for h in rep.headlines][1:3] == ["Game wins, seat 0 (greedy)",
                                                     "Game wins, seat 1 (greedy)"]


def test_mixed_with_a_games_run_and_two_carousel_runs(runs, tmp_path):
    rep = build_report([runs["games"], runs["car3"], runs["car-greedy"]])
    anchors = [s.anchor for s in rep.sections]
    assert len(anchors) == len(set(anchors))
    assert "carousel" in anchors and "games" in anchors
    (t,) = [i for s in rep.sections for i in s.items if i.name == "carousel_win_rates"]
    assert set(t.data.run) == {"car3", "car-greedy"} and t.columns[0].key == "run"
    html = render_html(rep)
    assert html.count("<h2>Who wins</h2>") == 2
    md = render_markdown(rep, tmp_path / "assets")
    assert "## Rounds" in md


def test_markdown_format_from_the_command_line(runs, tmp_path, capsys):
    out = tmp_path / "car.md"
    assert main(["report", str(runs["car3"]), "-o", str(out), "--format", "md"]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Carousel games: car3")
    for h in ("## Who wins", "## Ratings", "## Scores", "## Rounds",
              "### P(may knock by own turn t), by seat"):
        assert h in text
    pngs = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", text)
    assert len(pngs) == 5
    for href in pngs:
        png_size((out.parent / href).read_bytes())
    # one Markdown row per score is gone: the scores table has one row a bot
    scores = text.split("### Scores by bot")[1].split("\n\n")[1]
    assert len(scores.splitlines()) == 2 + 3


# --------------------------------------------------------------------------- Chromium
_MEASURE = """<script>
var wide = [];
document.querySelectorAll("div.tablewrap").forEach(function (w) {
  var t = w.querySelector("table");
  if (t.scrollWidth > w.clientWidth + 1) wide.push(t.id + ":" + t.scrollWidth + "px in " + w.clientWidth);
});
var page = document.documentElement.scrollWidth + "/" + window.innerWidth;
document.body.setAttribute("data-wide", wide.join(","));
document.body.setAttribute("data-page", page);
</script>"""


def _measured(page: Path, tmp_path: Path, width: int) -> tuple[list[str], int, int]:
    """Chromium's layout of ``page`` at ``width`` px: the tables wider than their box
    and (page scroll width, window width)."""
    probe = tmp_path / f"probe-{width}.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", _MEASURE + "</body>"),
                     encoding="utf-8")
    dom = _chromium(tmp_path, probe, f"--window-size={width},900", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    wide = re.search(r'data-wide="([^"]*)"', dom.stdout)
    size = re.search(r'data-page="(\d+)/(\d+)"', dom.stdout)
    assert wide and size, "the measuring script did not run"
    return [w for w in wide.group(1).split(",") if w], int(size.group(1)), int(size.group(2))


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install "
                                             "chromium; .ci/run installs it)")
def test_page_renders_in_headless_chromium_and_no_table_is_wider_than_the_page(page, tmp_path):
    shot = tmp_path / "carousel.png"
    res = _chromium(tmp_path, page, f"--screenshot={shot}")
    assert res.returncode == 0, res.stderr[-2000:]
    assert _console(res.stderr) == []
    assert png_size(shot.read_bytes()) == (1280, 900)
    dom = _chromium(tmp_path, page, "--dump-dom")
    assert dom.returncode == 0 and _console(dom.stderr) == []
    assert "Carousel games: car3" in dom.stdout and "P(may knock by own turn t)" in dom.stdout
    assert dom.stdout.count("data:image/png;base64,") == len(parse(page).imgs) == 5
    # at the page's width every table fits its column; narrower, they scroll in their box
    # and the page itself never gets wider than the window
    wide, scroll, window = _measured(page, tmp_path, 1280)
    assert wide == [] and scroll <= window
    wide, scroll, window = _measured(page, tmp_path, 700)
    assert scroll <= window, f"the page is {scroll} px wide in a {window} px window"
    # the check can fail: a table forced wider than its box is reported
    forced = tmp_path / "forced.html"
    forced.write_text(page.read_text(encoding="utf-8").replace(
        "</style>", "table{min-width:3000px}</style>"), encoding="utf-8")
    wide, _, _ = _measured(forced, tmp_path, 1280)
    assert wide and all("px in 10" in w for w in wide)
