"""The Carousel study (``simulate_carousel``), its run directories, resume, tables, the
``carousel simulate`` command and the report sections."""
from __future__ import annotations

import argparse
import dataclasses
import json

import pytest

from rummy51.carousel import CarouselRules
from rummy51.cli.carousel_simulate import add_simulate_parser
from rummy51.studies.carousel import CarouselStudy, simulate_carousel

FAST = dataclasses.replace(CarouselRules.for_players(2), target_score=40)


def _run(tmp_path, name="run", **kw):
    args = dict(players=2, bots="greedy,careful", games=4, rules=FAST, seed=7, workers=1,
                chunk_size=2, progress=False, out=tmp_path / name)
    args.update(kw)
    return simulate_carousel(**args)


def test_records_tables_and_reload(tmp_path):
    st = _run(tmp_path)
    r = st.records
    assert st.games_done == 4 and len(r) == 2 * st.rounds
    for c in ("game", "round", "seat", "bot", "position", "score", "knocked", "undercut",
              "went_out", "round_length", "points", "knock_turn", "won_game"):
        assert c in r.columns
    # every round has a winner, every game a final and a winner
    assert (r.groupby(["game", "round"])["won"].sum() >= 1).all()
    g = st.games()
    assert len(g) == 8 and (g.groupby("game")["won_game"].sum() >= 1).all()
    assert (g["final"] >= g["total"]).all()
    # a round score is the sum of the differences (and bonuses) for its winners only
    assert (r.loc[~r["won"], "score"] == 0).all()
    s = st.summary("bot")
    assert set(s.bot) == {"greedy", "careful"}
    assert ((s.round_win_lo <= s.round_win_rate) & (s.round_win_rate <= s.round_win_hi)).all()
    assert len(st.summary()) == 2 + 2 + 2
    kp = st.knock_possible(5)
    assert len(kp) == 10 and (kp.groupby("position")["p"].apply(lambda x: x.is_monotonic_increasing)).all()
    assert st.score_distribution("final")["count"].sum() == 8
    ov = st.overview().iloc[0]
    assert ov.knock_rounds + ov.out_rounds + ov.stock_rounds == st.rounds
    back = CarouselStudy.load(tmp_path / "run")
    assert back.same_records(st)
    meta = json.loads((tmp_path / "run" / "results.json").read_text())["meta"]
    assert meta["kind"] == "carousel" and meta["rounds"] == st.rounds
    # a game replays from its seeds to its records
    state = st.replay(3)
    assert [x.scores for x in state.rounds] == [
        tuple(r[(r.game == 3) & (r["round"] == k)].sort_values("seat")["score"])
        for k in range(len(state.rounds))]


def test_resume_gives_the_same_records(tmp_path):
    whole = _run(tmp_path, "whole")

    def stop(index, done, total):
        if done == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path, "cut", on_chunk=stop)
    man = json.loads((tmp_path / "cut" / "manifest.json").read_text())
    assert man["status"] == "interrupted" and man["kind"] == "carousel"
    with pytest.raises(ValueError, match="not finished"):
        CarouselStudy.load(tmp_path / "cut")
    assert CarouselStudy.load(tmp_path / "cut", partial=True).chunks_done == 1
    res = simulate_carousel(resume=tmp_path / "cut", workers=1, progress=False)
    assert res.same_records(whole) and res.chunks_run == 1
    with pytest.raises(ValueError, match="seed"):
        simulate_carousel(resume=tmp_path / "cut", seed=8, workers=1, progress=False)


def test_the_records_do_not_depend_on_the_workers(tmp_path):
    one = _run(tmp_path, "one", out=None)
    two = _run(tmp_path, "two", out=None, workers=2)
    assert one.same_records(two)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="not a Carousel bot"):
        simulate_carousel(bots="greedy,nobody", games=1, progress=False, workers=1)
    with pytest.raises(ValueError, match="3 bots for 2 players"):
        simulate_carousel(players=2, bots="greedy,greedy,greedy", games=1, workers=1)


def _parser():
    parser = argparse.ArgumentParser(prog="rummy51")
    sub = parser.add_subparsers(dest="command", required=True)
    car = sub.add_parser("carousel")
    carsub = car.add_subparsers(dest="carousel_command", required=True)
    add_simulate_parser(carsub)
    return parser


def test_cli_simulate(tmp_path, capsys):
    out = tmp_path / "cli"
    args = _parser().parse_args(["carousel", "simulate", "--players", "2", "--bots", "greedy",
                                 "--games", "2", "--seed", "3", "--target", "40", "--workers",
                                 "1", "--out", str(out), "--no-progress", "--json"])
    assert args._carousel_run(args) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["meta"]["kind"] == "carousel" and d["meta"]["games_done"] == 2
    man = json.loads((out / "manifest.json").read_text())
    assert man["command"].startswith("rummy51 carousel simulate --players 2")
    args = _parser().parse_args(["carousel", "simulate", "--resume", str(out), "--no-progress",
                                 "--workers", "1"])
    assert args._carousel_run(args) == 0
    text = capsys.readouterr().out
    assert "2 games" in text and "seat 0" in text


def test_report_sections(tmp_path):
    pytest.importorskip("matplotlib")
    from rummy51.reports.carousel import carousel_headlines, carousel_sections, load_carousel_run

    _run(tmp_path, "rep")
    run = load_carousel_run(tmp_path / "rep")
    secs = carousel_sections([run])
    names = {i.name for s in secs for i in s.items}
    assert {"carousel_win_rates", "carousel_overview", "carousel_knock_possible",
            "carousel_scores"} <= names
    assert carousel_headlines(run)


def test_carousel_commands_and_report_through_the_main_cli(tmp_path, capsys):
    from rummy51.cli import main

    out = tmp_path / "run"
    code = main(["carousel", "simulate", "--games", "6", "--players", "2", "--seed", "3",
                 "--workers", "1", "--no-progress", "--out", str(out)])
    assert code == 0 and "6 games" in capsys.readouterr().out
    html = tmp_path / "r.html"
    assert main(["report", str(out), "-o", str(html)]) == 0
    assert "Carousel" in html.read_text(encoding="utf-8")
    code = main(["carousel", "best", "--table", "6S 7S 8S", "--hand", "XX"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("rummy51: error: ") and err.count("\n") == 1
