"""``carousel simulate --seats rotate|permute``, ``--histories`` and the ratings (issue 27):
what ``simulate games`` has, through the same code (``_games_plan.arrangements``,
``write_histories``, ``_runner.read_run_histories``, ``rummy51.ratings``)."""
from __future__ import annotations

import dataclasses
import gzip
import itertools
import json

import numpy as np
import pytest

import rummy51.cli
from rummy51.carousel import CarouselRules
from rummy51.carousel.engine import GameState
from rummy51.ratings import bradley_terry
from rummy51.studies import _carousel_plan
from rummy51.studies.carousel import CarouselStudy, read_histories, simulate_carousel

FAST = dataclasses.replace(CarouselRules.for_players(2), target_score=60)
FAST3 = dataclasses.replace(CarouselRules.for_players(3), target_score=60)


def _run(**kw):
    args = dict(players=2, bots="greedy,careful", games=6, rules=FAST, seed=5, workers=1,
                chunk_size=4, progress=False)
    args.update(kw)
    return simulate_carousel(**args)


@pytest.mark.parametrize("players, seats, k", [(2, "permute", 2), (3, "rotate", 3),
                                               (3, "permute", 6)])
def test_every_game_is_played_under_every_arrangement(players, seats, k):
    bots = "greedy,careful" if players == 2 else "greedy,careful,random"
    st = _run(players=players, bots=bots, rules=FAST if players == 2 else FAST3, seats=seats,
              games=5, chunk_size=3)
    assert len(st.arrangements) == k and st.games_done == 5 and st.plays == 5 * k
    r = st.records
    assert sorted(r["arrangement"].unique()) == list(range(k))
    last = r[r["last_round"]]
    assert len(last) == 5 * k * players
    # arrangement a seats listed bot perm[s] in seat s
    for (a, s), bot in last.groupby(["arrangement", "seat"])["bot"].unique().items():
        assert list(bot) == [st.bots[st.arrangements[a][s]]]
    # each bot sits in each seat equally often
    counts = last.groupby(["bot", "seat"], observed=True).size()
    assert counts.nunique() == 1
    # the same cards in every arrangement: the first round's deck is the game's
    for game in (0, 4):
        decks = {tuple(st.replay(game, a).decks[0]) for a in range(k)}
        assert len(decks) == 1


def test_an_arrangement_plays_as_the_bots_seated_by_hand():
    """Arrangement 1 of a permuted 2-player run is the run with the bots listed the other
    way round, each bot keeping its own seed: seat s of arrangement a is what a fixed
    run of the seated bots plays when the bot seeds are permuted the same way."""
    st = _run(seats="permute", games=3)
    for game in range(3):
        for a, perm in enumerate(st.arrangements):
            s = st.replay(game, a)
            rows = st.records[(st.records["game"] == game) & (st.records["arrangement"] == a)
                              & st.records["last_round"]]
            assert rows.sort_values("seat")["final"].tolist() == list(s.final)


@pytest.mark.parametrize("seats", ["permute", "rotate"])
def test_kernel_and_python_engine_give_the_same_records(seats):
    c = _run(seats=seats, engine="c")
    py = _run(seats=seats, engine="python")
    assert c.same_records(py)


def test_fixed_runs_keep_their_settings_and_hash():
    st = _run()
    assert "arrangement" not in st.records and st.plays == st.games_done == 6
    s = st._settings()
    assert "seats" not in s.to_json()
    assert "seats" in dataclasses.replace(s, seats="rotate").to_json()
    assert s.config_hash != dataclasses.replace(s, seats="rotate").config_hash


def test_resume_and_reload_of_a_permuted_run(tmp_path):
    whole = _run(seats="permute", out=tmp_path / "a")
    calls = []

    def stop(i, done, total):
        calls.append(i)
        if done == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _run(seats="permute", out=tmp_path / "b", on_chunk=stop)
    resumed = simulate_carousel(resume=tmp_path / "b", workers=1, progress=False)
    assert resumed.seats == "permute" and resumed.same_records(whole)
    loaded = CarouselStudy.load(tmp_path / "a")
    assert loaded.seats == "permute" and loaded.same_records(whole)
    with pytest.raises(ValueError, match="seats"):
        simulate_carousel(resume=tmp_path / "a", seats="rotate", progress=False)


def test_check_cols_refuses_shuffled_arrangements():
    st = _run(seats="permute", games=2, chunk_size=2)
    spec = dict(st._settings().plan()[0])
    res = _carousel_plan.play_chunk(spec)
    assert _carousel_plan.check_cols(spec, res["cols"]) is None
    cols = {c: v[::-1].copy() for c, v in res["cols"].items()}
    assert "out of order" in _carousel_plan.check_cols(spec, cols)
    cols = {c: v.copy() for c, v in res["cols"].items()}
    cols["arrangement"][:] = 0
    assert "arrangements are not 0..1" in _carousel_plan.check_cols(spec, cols)
    del cols["arrangement"]
    assert "columns" in _carousel_plan.check_cols(spec, cols)


def test_bad_seats_are_refused():
    with pytest.raises(ValueError, match="seats must be one of fixed, rotate, permute"):
        _run(seats="shuffle")
    with pytest.raises(ValueError, match="at most 5 players"):
        simulate_carousel(players=6, games=1, seats="permute", progress=False)
    with pytest.raises(ValueError, match="give out"):
        _run(histories=True)
    with pytest.raises(TypeError, match="histories must be True or False"):
        _run(histories=1.5)


# --------------------------------------------------------------------------- histories
def test_histories_are_written_one_a_play_and_replay(tmp_path):
    st = _run(seats="permute", games=5, chunk_size=3, out=tmp_path / "h", histories=True)
    files = sorted((tmp_path / "h" / "histories").iterdir())
    assert [f.name for f in files] == ["chunk-000000.jsonl.gz", "chunk-000001.jsonl.gz"]
    hs = list(read_histories(tmp_path / "h"))
    assert len(hs) == st.plays == 10
    # the records' order: chunk by chunk, arrangement by arrangement, game by game
    order = [(g, a) for c0, n in ((0, 3), (3, 2)) for a in range(2) for g in range(c0, c0 + n)]
    g = st.games().set_index(["game", "arrangement", "seat"])
    for (game, a), h in zip(order, hs):
        s = GameState.from_dict(h)          # replays every move on the recorded decks
        assert s.over and list(s.final) == [int(g.loc[(game, a, p), "final"]) for p in range(2)]
        assert json.loads(s.to_json()) == h
    # the same records as a run without histories (the kernel's)
    assert st.same_records(_run(seats="permute", games=5, chunk_size=3))
    # one chunk only; a damaged file is named
    assert len(list(read_histories(tmp_path / "h", chunks=[1]))) == 4
    (tmp_path / "h" / "histories" / "chunk-000001.jsonl.gz").write_bytes(b"nonsense")
    with pytest.raises(ValueError, match="chunk-000001.jsonl.gz is missing or damaged"):
        list(read_histories(tmp_path / "h"))


def test_a_run_without_histories_says_so(tmp_path):
    _run(out=tmp_path / "n", games=2)
    with pytest.raises(ValueError, match="without histories"):
        read_histories(tmp_path / "n")


def test_a_tampered_history_is_refused_on_replay(tmp_path):
    _run(games=2, out=tmp_path / "h", histories=True)
    h = next(iter(read_histories(tmp_path / "h")))
    h["final"] = [f + 1 for f in h["final"]]
    with pytest.raises(ValueError):
        GameState.from_dict(h)


def test_cli_histories_are_gzip_json_lines(tmp_path, capsys):
    out = tmp_path / "run"
    assert rummy51.cli.main(["carousel", "simulate", "--bots", "greedy,random", "--games", "3",
                             "--seed", "2", "--workers", "1", "--no-progress", "--histories",
                             "--out", str(out), "--target-score", "60"]) == 0
    lines = gzip.decompress((out / "histories" / "chunk-000000.jsonl.gz").read_bytes()).decode()
    assert len(lines.splitlines()) == 3
    assert all(GameState.from_json(x).over for x in lines.splitlines())
    assert "--histories" in json.loads((out / "manifest.json").read_text())["command"]


# --------------------------------------------------------------------------- ratings
def test_rating_records_and_paired_differences_by_hand():
    st = _run(seats="permute", games=8)
    rr = st.rating_records()
    g = st.games()
    assert len(rr) == len(g) and set(rr.columns) >= {"deal", "arrangement", "bot", "score",
                                                      "went_out", "draw"}
    # every play has one sole winner or is a draw
    per = rr.groupby(["deal", "arrangement"])
    assert ((per["went_out"].sum() == 1) | per["draw"].all()).all()
    pc = st.paired("greedy", "careful").set_index("metric")
    # by hand: per game, the mean final score of each bot over its plays, differenced
    fin = g.assign(bot=g.bot.astype(str)).groupby(["game", "bot"])["final"].mean().unstack()
    d = (fin["greedy"] - fin["careful"]).to_numpy(float)
    assert pc.loc["score", "deals"] == 8
    assert pc.loc["score", "diff"] == pytest.approx(d.mean())
    assert pc.loc["score", "diff_se"] == pytest.approx(d.std(ddof=1) / np.sqrt(len(d)))
    bt = st.ratings(bootstrap=10)
    assert bt.equals(bradley_terry(rr, bootstrap=10))
    assert set(bt.bot) == {"greedy", "careful"}


def test_ratings_find_the_random_bot_weakest():
    st = _run(players=3, bots="greedy,careful,random", rules=FAST3, seats="rotate", games=12)
    bt = st.ratings(bootstrap=20).set_index("bot")
    assert bt.loc["random", "rating"] < min(bt.loc["greedy", "rating"], bt.loc["careful", "rating"])
    for a, b in itertools.combinations(["greedy", "careful", "random"], 2):
        assert len(st.paired(a, b)) == 2
    d = st.to_dict()
    assert [r["bot"] for r in d["ratings"]] == list(bt.index)
    assert len(d["paired"]) == 6
    json.dumps(d)   # JSON-able
    with pytest.raises(ValueError, match="method must be"):
        st.ratings("elo")


def test_one_bot_has_no_ratings():
    st = _run(bots="greedy", games=3)
    assert "ratings" not in st.to_dict()


def test_cli_seats_permute_text(capsys):
    assert rummy51.cli.main(["carousel", "simulate", "--bots", "greedy,careful", "--seats",
                             "permute", "--games", "6", "--seed", "3", "--workers", "1",
                             "--no-progress", "--target-score", "60"]) == 0
    out = capsys.readouterr().out
    assert "seats permute: every game played 2 times" in out and "(12 plays)" in out
    assert "seat 0 (all)" in out
    assert "Bradley-Terry (Elo scale) [95%]" in out
    assert "greedy - careful" in out and "final score difference [95%]" in out


@pytest.mark.parametrize("argv, message", [
    (["--players", "6", "--seats", "permute"], "--seats permute plays every game 6! times; at "
                                               "most 5 players (use --seats rotate)"),
    (["--histories"], "give --out (or --resume)"),
    (["--seats", "mixed"], "argument --seats: invalid choice: 'mixed'"),
])
def test_cli_errors_name_flags(capsys, argv, message):
    assert rummy51.cli.main(["carousel", "simulate", "--games", "2", "--no-progress"] + argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
