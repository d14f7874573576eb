"""Reports (``rummy51.reports`` and ``rummy51 report``): built from small real runs, every
figure present and decodable, the numbers on the page equal the runs' own tables, the
page renders in headless Chromium without console errors, bad run directories give a
clear error."""
from __future__ import annotations

import base64
import doctest
import json
import re
import shutil
import struct
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib", reason="reports need matplotlib: pip install \".[report]\" from a clone")

import rummy51.ratings
from rummy51.cli import main
from rummy51.ratings import bradley_terry
from rummy51.reports import (
    ReportError,
    build_report,
    load_run,
    render_html,
    render_markdown,
    write_tables,
)
from rummy51.studies.games import simulate_games
from rummy51.studies.openings import rule_sweep, simulate_openings

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# --------------------------------------------------------------------------- runs
@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Small real run directories: an opening study, a rule sweep, two tournaments."""
    d = tmp_path_factory.mktemp("runs")
    simulate_openings(deals=20_000, seed=7, turn_deals=400, turns=6, progress=False,
                      out=d / "openings")
    simulate_openings(rules=rule_sweep(jokers=[2, 4]), players=(2, 3), deals=5_000,
                      turn_deals=200, turns=4, seed=3, progress=False, out=d / "sweep")
    simulate_games(games=30, seed=1, workers=1, progress=False, out=d / "games")
    simulate_games(games=30, seed=2, bots="greedy,random,tactician", workers=1, progress=False,
                   out=d / "games-3")
    return {p.name: p for p in d.iterdir()}


@pytest.fixture(scope="module")
def report(runs):
    had_pyplot = "matplotlib.pyplot" in sys.modules
    rep = build_report([runs["openings"], runs["games"]])
    # figures are drawn on their own Agg canvas: pyplot's global state is never touched
    assert had_pyplot or "matplotlib.pyplot" not in sys.modules
    return rep


@pytest.fixture(scope="module")
def page(report, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("page") / "report.html"
    path.write_text(render_html(report, tables_href="report_tables"), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- HTML parsing
class _Page(HTMLParser):
    """The page's images and tables: ``tables[id]`` is a list of rows, each a dict
    ``data-col -> (text of span.v, text of span.ci, data-value)``."""

    def __init__(self):
        super().__init__()
        self.imgs: list[dict] = []
        self.tables: dict[str, list[dict]] = {}
        self.links: list[str] = []
        self.tags: set[str] = set()
        self._table = None
        self._cell = None
        self._span = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if tag == "img":
            self.imgs.append(a)
        elif tag in ("a", "link") and "href" in a:
            self.links.append(a["href"])
        elif tag == "table":
            self._table = self.tables.setdefault(a.get("id", ""), [])
        elif tag == "tr" and self._table is not None:
            self._table.append({})
        elif tag == "td" and self._table is not None:
            self._cell = {"col": a.get("data-col"), "value": a.get("data-value"), "v": "", "ci": ""}
            self._table[-1][self._cell["col"]] = self._cell
        elif tag == "span" and self._cell is not None:
            self._span = a.get("class")

    def handle_endtag(self, tag):
        if tag == "table":
            self._table = None
        elif tag == "td" and self._cell is not None:
            self._cell["v"] = self._cell["v"].strip()
            self._cell = None
        elif tag == "span":
            self._span = None

    def handle_data(self, data):
        if self._cell is not None:
            key = self._span if self._span in ("v", "ci") else "v"
            self._cell[key] += data


def parse(path: Path) -> _Page:
    p = _Page()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def rows(p: _Page, name: str) -> list[dict]:
    return [r for r in p.tables[f"table-{name}"] if r]


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG, after checking its signature and IHDR chunk."""
    assert data[:8] == PNG_SIGNATURE, "not a PNG file"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    w, h = struct.unpack(">II", data[16:24])
    try:
        from PIL import Image
    except ImportError:
        pass
    else:
        import io

        with Image.open(io.BytesIO(data)) as im:
            im.load()  # decodes every pixel
            assert im.size == (w, h)
    return w, h


def pct(p) -> str:
    """How the page shows a probability above 1 %: two decimals."""
    return f"{100 * p:.2f}%"


# --------------------------------------------------------------------------- the page
def test_every_figure_is_an_embedded_decodable_png(report, page):
    p = parse(page)
    names = [f.name for f in report.figures()]
    assert len(names) >= 9 and len(set(names)) == len(names)
    assert len(p.imgs) == len(names)
    for img in p.imgs:
        src = img["src"]
        assert src.startswith("data:image/png;base64,")
        w, h = png_size(base64.b64decode(src.split(",", 1)[1], validate=True))
        assert (w, h) == (int(img["width"]), int(img["height"]))
        assert w >= 600 and h >= 200
    expected = {"openings_by_jokers", "openings_value_distribution", "openings_p_at_least",
                "openings_by_turn", "games_win_rates", "games_ratings", "games_scores",
                "games_deal_length", "games_hand_wins"}
    assert expected <= set(names)


def test_page_is_self_contained(page):
    text = page.read_text(encoding="utf-8")
    p = parse(page)
    assert "script" not in p.tags and "iframe" not in p.tags
    assert not re.search(r"https?://", text), "the page must not fetch anything"
    assert "@import" not in text and "url(" not in text
    for href in p.links:  # in-page anchors, the empty favicon, the CSV files beside it
        assert href.startswith(("#", "data:", "report_tables/")), href


def test_opening_numbers_equal_the_run_tables(runs, page):
    p = parse(page)
    run = pd.read_csv(runs["openings"] / "summary.csv")
    alls = run[run.jokers == "all"].set_index("hand")
    shown = rows(p, "openings_summary")
    assert [r["hand_text"]["v"] for r in shown] == [
        "first player, 15 cards", "other player, 14 + 1 drawn", "raw 14-card hand"]
    for r, hand in zip(shown, ["first", "other", "raw"], strict=True):
        want = alls.loc[hand]
        cell = r["p_open"]
        assert float(cell["value"]) == pytest.approx(want.p_open, rel=1e-12)
        assert cell["v"] == pct(want.p_open)
        assert cell["ci"] == f"{100 * want.p_open_lo:.2f}–{100 * want.p_open_hi:.2f}"
        assert r["hands"]["v"] == f"{int(want.hands):,}"
        assert float(r["mean_best"]["value"]) == pytest.approx(want.mean_best, rel=1e-12)
    # P(best >= threshold) is P(can open) again
    at = {r["x"]["v"]: r for r in rows(p, "openings_p_at_least")}
    assert at["51 (threshold)"]["p_at_least_first"]["v"] == pct(alls.loc["first"].p_open)
    # by jokers: every row of summary.csv split by jokers
    byj = run[run.jokers != "all"]
    got = {(r["hand"]["v"], r["jokers"]["v"]): r for r in rows(p, "openings_by_jokers")}
    assert len(got) == len(byj)
    for want in byj.itertuples():
        cell = got[(want.hand, want.jokers)]["p_open"]
        if np.isfinite(want.p_open):
            assert float(cell["value"]) == pytest.approx(want.p_open, rel=1e-12)
    # by turn: the last turn of by_turn.csv
    bt = pd.read_csv(runs["openings"] / "by_turn.csv")
    last = bt[(bt.jokers == "all") & (bt.turn == 6)].set_index("seat")
    row = next(r for r in rows(p, "openings_by_turn") if r["turn"]["v"] == "6")
    for seat in range(1, 5):
        assert row[f"p_opened_{seat}"]["v"] == pct(last.loc[seat].p_opened)


def test_game_numbers_equal_the_run_tables(runs, page):
    p = parse(page)
    run = pd.read_csv(runs["games"] / "summary.csv")
    by_bot = run[run.group == "bot"].set_index("bot")
    shown = rows(p, "games_by_bot")
    assert {r["bot"]["v"] for r in shown} == set(by_bot.index)
    for r in shown:
        want = by_bot.loc[r["bot"]["v"]]
        assert float(r["win_rate"]["value"]) == pytest.approx(want.win_rate, rel=1e-12)
        if want.win_lo >= 0.01:  # else the page shows three decimals
            assert r["win_rate"]["v"] == pct(want.win_rate)
        assert r["player_deals"]["v"] == f"{int(want.player_deals):,}"
        assert float(r["mean_score"]["value"]) == pytest.approx(want.mean_score, rel=1e-12)
    seats = run[run.group == "seat"]
    assert [float(r["win_rate"]["value"]) for r in rows(p, "games_by_seat")] == pytest.approx(
        list(seats.win_rate), rel=1e-12)
    ov = pd.read_csv(runs["games"] / "overview.csv").iloc[0]
    deals = rows(p, "games_deals")[0]
    assert deals["deals"]["v"] == "30"
    assert float(deals["mean_deal_length"]["value"]) == pytest.approx(ov.mean_deal_length)
    # the ratings are bradley_terry of the run's records
    records = pd.read_parquet(runs["games"] / "records.parquet")
    bt = bradley_terry(records).set_index("bot")
    for r in rows(p, "games_ratings"):
        assert float(r["rating"]["value"]) == pytest.approx(bt.loc[r["bot"]["v"]].rating)
        assert r["rating"]["v"] == f"{bt.loc[r['bot']['v']].rating:.0f}"


def test_csv_tables_hold_the_numbers(report, runs, tmp_path):
    paths = write_tables(report, tmp_path / "tables")
    names = {p.name for p in paths}
    for t in report.tables():
        assert f"{t.name}.csv" in names
    for f in report.figures():
        assert f"fig_{f.name}.csv" in names
    got = pd.read_csv(tmp_path / "tables" / "openings_summary.csv")
    run = pd.read_csv(runs["openings"] / "summary.csv")
    run = run[run.jokers == "all"]
    assert got.p_open.to_numpy() == pytest.approx(run.p_open.to_numpy(), rel=1e-15)


def test_markdown_writes_decodable_pngs(report, tmp_path):
    md = render_markdown(report, tmp_path / "report_files", tables_href="report_tables")
    pngs = sorted((tmp_path / "report_files").glob("*.png"))
    assert [p.stem for p in pngs] == sorted(f.name for f in report.figures())
    for png in pngs:
        png_size(png.read_bytes())
        assert f"](report_files/{png.name})" in md
    first = report.sections[0].items[1].data.iloc[0]  # the openings summary, first hand
    assert f"| {pct(first.p_open)} [" in md
    assert "[CSV](report_tables/openings_summary.csv)" in md
    assert md.count("\n## ") >= 8


def test_ratings_doctests():
    result = doctest.testmod(rummy51.ratings)
    assert result.failed == 0 and result.attempted > 0


# --------------------------------------------------------------------------- several runs
def test_several_runs_side_by_side(runs):
    rep = build_report([runs["openings"], runs["sweep"], runs["games"], runs["games-3"]],
                       title="Variants")
    tables = {t.name: t for t in rep.tables()}
    side = tables["openings_side_by_side"].data
    assert list(side.series) == ["openings", "sweep: jokers=2", "sweep: jokers=4"]
    assert list(side.jokers) == [4, 2, 4]  # the rule field that differs gets a column
    games = tables["games_side_by_side"].data
    assert {"rating@games", "rating@games-3", "win_rate@games", "win_rate@games-3"} <= set(games)
    assert set(games.bot) == {"greedy", "random", "hand-hunter", "tactician"}
    figs = {f.name: f.figure for f in rep.figures()}
    assert {"openings_sweep", "openings_players", "openings_by_turn_seat",
            "openings_by_turn_jokers"} <= set(figs)
    # panels share their axes: one scale for every run
    for name in ("openings_value_distribution", "openings_by_turn_seat", "games_scores"):
        axes = [ax for ax in figs[name].axes if ax.get_visible()]
        assert len({ax.get_ylim() for ax in axes}) == 1, name
        assert len({ax.get_xlim() for ax in axes}) == 1, name
    # each run is one line or bar series: the sweep's configurations have their own colour
    assert len(figs["openings_by_jokers"].axes[0].containers) >= 3 * 2  # bars + error bars


def test_duplicate_directory_names_are_told_apart(runs, tmp_path):
    other = tmp_path / "x" / "openings"
    shutil.copytree(runs["openings"], other)
    rep = build_report([runs["openings"], other])
    names = [r.name for r in rep.runs]
    assert names == [f"{runs['openings'].parent.name}/openings", "x/openings"]


# --------------------------------------------------------------------------- ratings
def _two_player_records(n: int, p_a: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a_wins = rng.random(n) < p_a
    deal = np.repeat(np.arange(n), 2)
    return pd.DataFrame({"deal": deal, "bot": np.tile(["a", "b"], n),
                         "went_out": np.column_stack([a_wins, ~a_wins]).ravel(),
                         "draw": False})


def test_bradley_terry_recovers_a_known_rating_gap():
    rec = _two_player_records(4000, 0.75, seed=5)
    bt = bradley_terry(rec, bootstrap=300, seed=1).set_index("bot")
    gap = bt.loc["a"].rating - bt.loc["b"].rating
    assert gap == pytest.approx(400 * np.log10(3), abs=25)  # odds 3:1
    assert bt.rating.mean() == pytest.approx(1500)
    assert bt.loc["a"].rating_lo < bt.loc["a"].rating < bt.loc["a"].rating_hi
    # the fit is the MLE: the wins it predicts equal the wins seen (plus the prior)
    p = 1 / (1 + 10 ** (-gap / 400))
    wins = int(rec[(rec.bot == "a")].went_out.sum())
    assert p * (4000 + 1) == pytest.approx(wins + 0.5, rel=1e-6)
    # a fixed seed gives the same intervals
    again = bradley_terry(rec, bootstrap=300, seed=1).set_index("bot")
    assert again.loc["a"].rating_lo == bt.loc["a"].rating_lo


def test_bradley_terry_ranks_three_bots_and_keeps_a_bot_that_never_won_finite():
    rng = np.random.default_rng(2)
    strength = {"x": 4.0, "y": 2.0, "z": 0.0}
    rows = []
    for d in range(600):
        bots = ["x", "y", "z"]
        w = rng.choice(3, p=np.array([strength[b] for b in bots]) / 6)
        rows += [{"deal": d, "bot": b, "went_out": i == w, "draw": False}
                 for i, b in enumerate(bots)]
    bt = bradley_terry(pd.DataFrame(rows), bootstrap=50)
    assert list(bt.bot) == ["x", "y", "z"]
    assert np.isfinite(bt.rating).all() and bt.rating.iloc[2] < 1200


def test_bradley_terry_skips_same_bot_seats_and_draws():
    rec = pd.DataFrame({"deal": [0, 0, 0, 1, 1, 1], "bot": ["g", "g", "r"] * 2,
                        "went_out": [True, False, False, False, False, False],
                        "draw": [False] * 3 + [True] * 3})
    bt = bradley_terry(rec, bootstrap=0).set_index("bot")
    assert bt.loc["g"].wins == 1 and bt.loc["g"].comparisons == 1  # g beat r once, not itself
    assert bt.loc["g"].deals == 2
    # no decisive deal, or a single bot: nothing to rate
    assert bradley_terry(rec[rec.deal == 1]).rating.isna().all()
    assert bradley_terry(rec[rec.bot == "g"]).rating.isna().all()


# --------------------------------------------------------------------------- errors
def _damaged(tmp_path, runs, kind: str) -> Path:
    d = tmp_path / kind
    if kind == "missing":
        return d
    if kind == "file":
        d.write_text("not a directory")
        return d
    d.mkdir()
    if kind == "no-manifest":
        return d
    if kind == "bad-json":
        (d / "manifest.json").write_text('{"kind": "openings", "format_version": ')
    elif kind == "unknown-kind":
        (d / "manifest.json").write_text(json.dumps({"kind": "poker", "format_version": 1}))
    elif kind == "bad-results":
        shutil.rmtree(d)
        shutil.copytree(runs["openings"], d)
        (d / "results.json").write_text('{"meta": {')
    elif kind == "bad-records":
        shutil.rmtree(d)
        shutil.copytree(runs["games"], d)
        (d / "records.parquet").write_bytes(b"PAR1 truncated")
    return d


@pytest.mark.parametrize("kind, message", [
    ("missing", "no such run directory"),
    ("file", "is a file, not a run directory"),
    ("no-manifest", "has no manifest.json"),
    ("bad-json", "manifest.json is damaged"),
    ("unknown-kind", "run kind 'poker' has no report"),
    ("bad-results", "results.json is unreadable"),
    ("bad-records", "records.parquet is unreadable"),
])
def test_bad_run_directories_give_a_clear_error(tmp_path, runs, kind, message, capsys):
    d = _damaged(tmp_path, runs, kind)
    with pytest.raises(ReportError, match=re.escape(message)) as e:
        load_run(d)
    assert str(d) in str(e.value)
    assert isinstance(e.value, ValueError)
    out = tmp_path / "r.html"
    assert main(["report", str(runs["openings"]), str(d), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rummy51: error: ") and err.count("\n") == 1 and message in err
    assert not out.exists()


def test_an_unfinished_run_is_refused(tmp_path, runs):
    d = tmp_path / "running"
    shutil.copytree(runs["openings"], d)
    m = json.loads((d / "manifest.json").read_text())
    m["status"] = "running"
    (d / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(ReportError, match="not finished"):
        load_run(d)


# --------------------------------------------------------------------------- command line
def test_cli_writes_html_csv_and_markdown(runs, tmp_path, capsys):
    out = tmp_path / "out" / "report.html"
    assert main(["report", str(runs["openings"]), str(runs["games"]), "-o", str(out),
                 "--title", "Small runs"]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"wrote {out} (html, ") and "CSV tables in" in said
    text = out.read_text(encoding="utf-8")
    assert "<title>Small runs</title>" in text
    assert (tmp_path / "out" / "report_tables" / "openings_summary.csv").exists()
    assert (tmp_path / "out" / "report_tables" / "games_ratings.csv").exists()
    md = tmp_path / "out" / "report.md"
    assert main(["report", str(runs["openings"]), "-o", str(md)]) == 0  # .md: Markdown
    assert md.read_text(encoding="utf-8").startswith("# Opening study: openings")
    assert len(list((tmp_path / "out" / "report_files").glob("*.png"))) >= 4
    capsys.readouterr()
    assert main(["report", str(runs["openings"]), "-o", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


# --------------------------------------------------------------------------- Chromium
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _chromium(tmp_path: Path, page: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,900",
         "--enable-logging=stderr", "--v=0", *extra, page.resolve().as_uri()],
        capture_output=True, text=True, timeout=90)


def _console(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install "
                                             "chromium; .ci/run installs it)")
def test_page_renders_in_headless_chromium(page, tmp_path):
    # the check itself: a page with a script error is caught
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><link rel="icon" href="data:,"><p>x</p>'
                   "<script>notDefined();</script>")
    res = _chromium(tmp_path, bad, f"--screenshot={tmp_path / 'bad.png'}")
    assert any("notDefined" in line for line in _console(res.stderr)), res.stderr[-2000:]

    shot = tmp_path / "report.png"
    res = _chromium(tmp_path, page, f"--screenshot={shot}")
    assert res.returncode == 0, res.stderr[-2000:]
    assert _console(res.stderr) == []
    assert png_size(shot.read_bytes()) == (1280, 900)
    dom = _chromium(tmp_path, page, "--dump-dom")
    assert dom.returncode == 0 and _console(dom.stderr) == []
    assert "P(can open) by jokers in the hand" in dom.stdout
    assert dom.stdout.count("data:image/png;base64,") == len(parse(page).imgs)
