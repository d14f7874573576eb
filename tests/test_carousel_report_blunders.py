"""The blunder table of a Carousel run made with hand histories: a bounded sample of
its games analysed (``rummy51.analysis.carousel``), per bot the mean loss per decision
and the worst decisions; the numbers on the page are the analysis' own."""
from __future__ import annotations

import dataclasses
import math

import pytest

pytest.importorskip("matplotlib", reason="reports need matplotlib: pip install \".[report]\" from a clone")

from rummy51.analysis import blunder_table  # noqa: E402
from rummy51.analysis.carousel import analyse_game  # noqa: E402
from rummy51.carousel import CarouselRules  # noqa: E402
from rummy51.reports import build_report  # noqa: E402
from rummy51.reports.carousel import blunder_sample, carousel_sections, load_carousel_run  # noqa: E402
from rummy51.studies.carousel import read_histories, simulate_carousel  # noqa: E402

RULES = dataclasses.replace(CarouselRules.for_players(2), target_score=40)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("blunders")
    simulate_carousel(players=2, bots="greedy,search:8", games=2, rules=RULES, seats="rotate",
                      seed=3, workers=1, chunk_size=1, progress=False, out=d / "h", histories=True)
    simulate_carousel(players=2, bots="greedy", games=2, rules=RULES, seed=3, workers=1,
                      progress=False, out=d / "plain")
    return d


def test_the_sample_follows_the_records_seats(run):
    r = load_carousel_run(run / "h")
    sample = blunder_sample(r, 3)
    assert [p for p, _, _ in sample] == [0, 1, 2]
    # chunk 0: game 0 in both arrangements (rotate), then chunk 1
    assert [names for _, _, names in sample] == [["greedy", "search:8"], ["search:8", "greedy"],
                                                 ["greedy", "search:8"]]
    hs = list(read_histories(run / "h"))
    assert [h for _, h, _ in sample] == hs[:3]
    assert blunder_sample(load_carousel_run(run / "plain")) == []


def test_the_section_holds_the_analysis_numbers(run):
    rep = build_report([run / "h"])
    assert rep.sections[-1].title == "Blunders"
    items = {i.name: i for i in rep.sections[-1].items}
    t = items["carousel_blunders"].data
    assert sorted(t.bot) == ["greedy", "search:8"] and set(t.games) == {4}
    sample = blunder_sample(load_carousel_run(run / "h"), 4)
    done = [(analyse_game(h, rollouts=16, seed=2026, game=p), names) for p, h, names in sample]
    want = {row.name: row for row in blunder_table(done, worst=3)}
    for rec in t.itertuples():
        w = want[rec.bot]
        assert rec.decisions == w.decisions
        assert rec.mean_loss == pytest.approx(w.mean_loss)
        assert math.isclose(rec.mean_loss_se, w.se, rel_tol=1e-9)
    worst = items["carousel_worst_decisions"].data
    assert len(worst) == 6
    for rec in worst.itertuples():
        a = done[rec.play][0]
        d = next(x for x in a.decisions if x.index == rec.decision)
        assert d.played == rec.played and d.best.move == rec.best
        assert d.loss == pytest.approx(rec.loss) and rec.loss > 0
    assert rep.sections[-1].intro.startswith("The decisions of 4 games")


def test_no_histories_no_section_and_the_sample_can_be_turned_off(run):
    assert "Blunders" not in [s.title for s in build_report([run / "plain"]).sections]
    secs = carousel_sections([load_carousel_run(run / "h")], blunder_games=0)
    assert "Blunders" not in [s.title for s in secs]
