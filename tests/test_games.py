"""Batch simulations of complete deals (``rummy51.studies.games``): seeding, records, run
directories, Dask, and the ``simulate games`` command."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rummy51 import RuleSet
from rummy51.cli import main
from rummy51.r51.engine import Discard, Draw, LayDownRecord, Phase
from rummy51.studies.games import ChunkWarning, GameStudy, deal_seeds, simulate_games
from rummy51.runs import chunk_seed

# 40 deals in 4 chunks of 10 (the bots of the must-show tournament)
SMALL = dict(games=40, chunk_size=10, seed=7, bots="greedy,greedy,random,handhunter",
             progress=False)


def small(**kw):
    args = dict(SMALL)
    args.update(kw)
    return simulate_games(**args)


@pytest.fixture(scope="module")
def base() -> GameStudy:
    """The uninterrupted reference run, in this process."""
    return small(workers=1)


def assert_same(a: GameStudy, b: GameStudy):
    assert a.same_records(b), (a.records.compare(b.records) if a.records.shape == b.records.shape
                               else (a.records.shape, b.records.shape))


class Stop(Exception):
    pass


def stop_after(k):
    def hook(index, done, total):
        if done >= k:
            raise Stop(f"stopped after {done} of {total}")
    return hook


class PassBot:
    """Draws from the stock and discards its first card: never opens (a test bot)."""

    def choose(self, view):
        if view.phase is Phase.DRAW:
            return Draw("stock")
        return Discard(view.hand[0])


# --------------------------------------------------------------------------- seeds, records
def test_deal_seeds_are_children_of_the_chunk_seed():
    game, bots = deal_seeds(7, (), 3, 5, 4)
    child = chunk_seed(7, (), 3).spawn(6)[5]
    assert game.spawn_key == child.spawn(5)[0].spawn_key == (3, 5, 0)
    assert [b.spawn_key for b in bots] == [(3, 5, 1 + s) for s in range(4)]
    assert game.entropy == 7


def test_same_records_for_any_worker_count(base):
    two = small(workers=2)
    assert_same(two, base)
    assert two.workers == 2 and base.workers == 1


def test_records_shape_and_types(base):
    r = base.records
    assert len(r) == 160 and base.deals_done == 40 and base.complete
    assert list(r.columns) == ["deal", "seat", "bot", "position", "first_player", "score",
                               "opened", "turn_opened", "went_out", "hand_win",
                               "bottom_card_win", "deal_length", "draw", "end"]
    assert base.bots == ("greedy", "greedy", "random", "hand-hunter")
    assert r.deal.tolist() == np.repeat(np.arange(40), 4).tolist()
    assert r.seat.tolist() == [0, 1, 2, 3] * 40
    # the first player rotates: deal d starts at seat d % 4
    assert (r.first_player == r.deal % 4).all()
    assert (r.position == (r.seat - r.first_player) % 4).all()
    assert (r.bot.astype(str) == r.seat.map(dict(enumerate(base.bots)))).all()
    assert str(r.turn_opened.dtype) == "Int16"
    assert (r.turn_opened.isna() == ~r.opened).all()


def test_records_are_consistent(base):
    r = base.records
    rules = base.rules
    per_deal = r.groupby("deal")
    wins = per_deal.went_out.sum()
    assert wins.max() == 1
    assert ((wins == 0) == per_deal.draw.first()).all()
    assert (per_deal.deal_length.nunique() == 1).all() and (per_deal.end.nunique() == 1).all()
    won = r[r.went_out]
    assert set(won.score) <= {rules.score_out, rules.score_hand, rules.score_hand_bottom}
    assert ((won.score == rules.score_out) == ~won.hand_win).all()
    lost = r[~r.went_out & ~r.draw]
    doubled = lost.deal.map(per_deal.hand_win.any())
    unopened = lost[~lost.opened]
    assert (unopened.score == np.where(doubled[~lost.opened], 200, 100)).all()
    assert (lost[lost.opened].score >= 0).all()
    assert (r[r.draw].score == 0).all()
    # the players who went out opened, on a turn of the deal
    assert won.opened.all()
    assert (r.turn_opened.dropna() <= (r.deal_length[r.opened] - 1) // 4 + 1).all()


def test_summary_agrees_with_the_records(base):
    r = base.records
    by_bot = base.summary("bot").set_index("bot")
    for name, g in r.groupby("bot", observed=True):
        row = by_bot.loc[name]
        assert row.player_deals == len(g)
        assert row.wins == g.went_out.sum()
        assert row.hand_wins == g.hand_win.sum()
        assert row.mean_score == pytest.approx(g.score.mean())
        assert row.mean_score_se == pytest.approx(g.score.std() / np.sqrt(len(g)))
        assert row.win_lo <= row.win_rate <= row.win_hi
    assert by_bot.loc["greedy"].seats == "0,1" and by_bot.loc["greedy"].player_deals == 80
    ov = base.overview().iloc[0]
    seats = base.summary("seat")
    positions = base.summary("position")
    # every deal has one winner or is a draw, counted once by bot, by seat, by position
    assert by_bot.wins.sum() == seats.wins.sum() == positions.wins.sum() == 40 - ov.draws
    assert positions.player_deals.tolist() == [40] * 4  # rotation: each position 10 times per seat
    assert (r.groupby(["seat", "position"]).size() == 10).all()
    assert ov.deals == 40 and ov.turns == base.turns == r[r.seat == 0].deal_length.sum()
    assert ov.mean_deal_length == pytest.approx(r[r.seat == 0].deal_length.mean())
    assert ov.hand_wins == r.hand_win.sum()
    assert ov.mean_score == pytest.approx(r.score.mean())
    full = base.summary()
    assert full.group.tolist() == ["bot"] * 3 + ["seat"] * 4 + ["position"] * 4


def test_replay_gives_the_recorded_deal(base):
    r = base.records
    for deal in (0, 13, 39):
        state = base.replay(deal)
        rows = r[r.deal == deal]
        assert list(state.scores()) == rows.score.tolist()
        assert state.first == deal % 4
        opened = {rec.player: rec.turn // 4 + 1 for rec in state.history
                  if isinstance(rec, LayDownRecord) and rec.opening}
        assert {int(x.seat): int(x.turn_opened) for x in rows.itertuples() if x.opened} == opened
        if state.result.winner is not None:  # the winner's turn was the last one
            assert rows.deal_length.iloc[0] == state.turn + 1


def test_bots_are_named_and_seated():
    s = simulate_games(bots="greedy", players=3, games=3, seed=1, workers=1, progress=False)
    assert s.bots == ("greedy",) * 3 and s.players == 3
    s = simulate_games(bots=["Hand_Hunter", "RANDOM"], games=2, seed=1, workers=1, progress=False)
    assert s.bots == ("hand-hunter", "random") and s.players == 2
    # a custom bot class by its import name (deals capped: it never opens)
    s = simulate_games(bots=[PassBot, "greedy"], games=2, seed=1, workers=1, progress=False,
                       rules=RuleSet(max_turns=40))
    assert s.bots[0].endswith(":PassBot")
    assert not s.records[s.records.seat == 0].opened.any()


def test_capped_deals_are_draws():
    s = simulate_games(bots=f"{PassBot.__module__}:PassBot", players=2, games=3, seed=2,
                       workers=1, progress=False, rules=RuleSet(max_turns=12))
    r = s.records
    assert r.draw.all() and (r.end.astype(str) == "capped").all()
    assert (r.deal_length == 12).all() and (r.score == 0).all() and not r.went_out.any()
    ov = s.overview().iloc[0]
    assert ov.draws == 3 and ov.capped == 3 and ov.draw_rate == 1.0
    assert s.summary("bot").win_rate.tolist() == [0.0]


def test_fixed_first_player():
    s = simulate_games(bots="greedy,greedy", games=4, seed=1, workers=1, progress=False,
                       rotate_first=False)
    assert (s.records.first_player == 0).all()


@pytest.mark.parametrize("kwargs, match", [
    (dict(bots="greedy,nope"), "bots: 'nope' is not a bot: choose from random, greedy"),
    (dict(bots="greedy,greedy,random", players=4), "bots: 3 bots for 4 players"),
    (dict(bots="greedy", players=8), "players: 8 players need"),
    (dict(players=1), "players must be 2..64, got 1"),
    (dict(games=0), "games must be >= 1, got 0"),
    (dict(chunk_size=0), "chunk_size must be >= 1"),
    (dict(bots="nomodule_xyz:Bot"), "cannot import 'nomodule_xyz:Bot'"),
    (dict(backend="spark"), "backend must be 'local' or 'dask'"),
    (dict(scheduler="tcp://127.0.0.1:1"), "scheduler is only used with backend='dask'"),
    (dict(workers=2, threads=3), "give workers or threads"),
    (dict(out="a", resume="b"), "either out"),
    (dict(seed=-1), "seed must be >= 0"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        simulate_games(**{"games": 4, "progress": False, "workers": 1, **kwargs})


# --------------------------------------------------------------------------- run directories
@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_interrupted_run_resumes_to_the_same_records(tmp_path, base, fmt):
    d = tmp_path / "run"
    with pytest.raises(Stop):
        small(workers=1, out=d, chunk_format=fmt, on_chunk=stop_after(2))
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["kind"] == "games" and manifest["status"] == "interrupted"
    assert manifest["chunks"]["done_count"] == 2
    assert manifest["seed"]["entropy"] == 7
    assert len(list((d / "chunks").glob(f"chunk-*.{fmt}"))) == 2
    with pytest.raises(ValueError, match="not finished"):
        GameStudy.load(d)
    part = GameStudy.load(d, partial=True)
    assert part.chunks_done == 2 and not part.complete and part.deals_done == 20
    resumed = simulate_games(resume=d, workers=2, progress=False)
    assert_same(resumed, base)
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["status"] == "finished" and manifest["chunks"]["done"] == [[0, 3]]
    assert len(manifest["sessions"]) == 2
    for name in (f"records.{fmt}", "summary.csv", "overview.csv", "results.json"):
        assert (d / name).stat().st_size > 0
    loaded = GameStudy.load(d)
    assert_same(loaded, base)
    assert loaded.summary().equals(base.summary())
    # a finished run resumes to the same records again, playing nothing
    assert_same(simulate_games(resume=d, progress=False), base)


def test_ctrl_c_with_processes_keeps_finished_chunks(tmp_path, base):
    d = tmp_path / "run"

    def ctrl_c(index, done, total):
        if done == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        small(workers=2, out=d, on_chunk=ctrl_c)
    saved = len(list((d / "chunks").glob("chunk-*")))
    assert 1 <= saved < 4
    assert_same(simulate_games(resume=d, seed=7, games=40, workers=1, progress=False), base)


def test_resume_refuses_other_settings(tmp_path):
    d = tmp_path / "run"
    with pytest.raises(Stop):
        small(workers=1, out=d, on_chunk=stop_after(1))
    with pytest.raises(ValueError, match="it was run with games = 40, not 50"):
        simulate_games(resume=d, games=50, progress=False)
    with pytest.raises(ValueError, match="bots = greedy,greedy,random,hand-hunter, not "
                                         "greedy,greedy,greedy,greedy"):
        simulate_games(resume=d, bots="greedy", players=4, progress=False)
    with pytest.raises(ValueError, match="players = 4, not 3"):
        simulate_games(resume=d, players=3, progress=False)
    with pytest.raises(ValueError, match=r"rules.jokers = 4, not 2"):
        simulate_games(resume=d, rules=RuleSet(jokers=2), progress=False)
    with pytest.raises(ValueError, match="seed entropy 7, not 8"):
        simulate_games(resume=d, seed=8, progress=False)
    with pytest.raises(ValueError, match="chunk_size = 10, not 5"):
        simulate_games(resume=d, chunk_size=5, progress=False)
    with pytest.raises(ValueError, match="rotate_first = True, not False"):
        simulate_games(resume=d, rotate_first=False, progress=False)
    with pytest.raises(ValueError, match="already holds a run"):
        small(out=d)
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "x.txt").write_text("x")
    with pytest.raises(ValueError, match="not an empty directory"):
        small(out=junk)
    with pytest.raises(ValueError, match="has no manifest.json"):
        simulate_games(resume=junk, progress=False)
    # a run directory of another kind
    other = tmp_path / "openings"
    other.mkdir()
    (other / "manifest.json").write_text(json.dumps({"kind": "openings", "format_version": 1}))
    with pytest.raises(ValueError, match="holds an 'openings' run, not a 'games' run"):
        simulate_games(resume=other, progress=False)
    # an edited manifest is refused, not trusted
    m = json.loads((d / "manifest.json").read_text())
    m["settings"]["games"] = 99
    (d / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(ValueError, match="do not match their hash"):
        simulate_games(resume=d, progress=False)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_damaged_chunk_is_run_again(tmp_path, base, fmt):
    d = tmp_path / "run"
    small(workers=1, out=d, chunk_format=fmt)
    chunks = sorted((d / "chunks").glob(f"chunk-*.{fmt}"))
    data = chunks[1].read_bytes()
    chunks[1].write_bytes(data[: len(data) // 2])
    if fmt == "csv":  # change one score: the checksum catches it
        lines = chunks[3].read_text().splitlines()
        cells = lines[5].split(",")
        cells[3] = str(int(cells[3]) + 1)
        lines[5] = ",".join(cells)
        chunks[3].write_text("\n".join(lines) + "\n")
    else:
        chunks[3].write_bytes(b"PAR1 not really")
    (d / "chunks" / f".chunk-000002.{fmt}.tmp-1-2").write_text("partial")
    m = json.loads((d / "manifest.json").read_text())
    m["status"] = "interrupted"
    (d / "manifest.json").write_text(json.dumps(m))
    with pytest.warns(ChunkWarning) as rec:
        resumed = simulate_games(resume=d, workers=1, progress=False)
    assert_same(resumed, base)
    msgs = " ".join(str(w.message) for w in rec)
    assert "chunk 1" in msgs and "chunk 3" in msgs
    assert (d / "chunks" / (chunks[1].name + ".damaged")).exists()
    assert not list((d / "chunks").glob(".chunk-*"))
    assert len(list((d / "chunks").glob(f"chunk-*.{fmt}"))) == 4


def test_chunk_from_another_run_is_refused(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    small(workers=1, out=a, chunk_format="csv")
    with pytest.raises(Stop):
        small(seed=8, workers=1, out=b, chunk_format="csv", on_chunk=stop_after(1))
    (b / "chunks" / "chunk-000002.csv").write_bytes((a / "chunks" / "chunk-000002.csv").read_bytes())
    with pytest.warns(ChunkWarning, match="other settings"):
        res = simulate_games(resume=b, workers=1, progress=False)
    assert_same(res, small(seed=8, workers=1))


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_save_and_load_without_a_run(tmp_path, base, fmt):
    base.save(tmp_path / "saved", fmt=fmt)
    loaded = GameStudy.load(tmp_path / "saved")
    assert_same(loaded, base)
    data = json.loads((tmp_path / "saved" / "results.json").read_text())
    assert data["meta"]["seed"]["entropy"] == 7 and data["meta"]["kind"] == "games"
    assert {r["group"] for r in data["summary"]} == {"bot", "seat", "position"}
    assert data["overview"]["deals"] == 40
    # a finished run without its records file says how to rebuild it
    (tmp_path / "saved" / f"records.{fmt}").unlink()
    with pytest.raises(ValueError, match="has no records file: run resume"):
        GameStudy.load(tmp_path / "saved")


# --------------------------------------------------------------------------- dask
def test_dask_local_cluster_equals_local(tmp_path, base):
    distributed = pytest.importorskip("distributed")
    import logging

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                       silence_logs=logging.ERROR)
    try:
        with distributed.Client(cluster) as client:
            res = small(backend="dask", scheduler=client)
            assert_same(res, base)
            assert res.backend == "dask" and res.workers == 2
            res2 = small(backend="dask", scheduler=cluster.scheduler_address, out=tmp_path / "d")
            assert_same(GameStudy.load(tmp_path / "d"), base)
            assert_same(res2, base)
    finally:
        cluster.close()


# --------------------------------------------------------------------------- the command line
def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


CLI_SMALL = ["simulate", "games", "--games", "40", "--chunk-size", "10", "--seed", "7",
             "--workers", "1", "--no-progress"]


def test_cli_tables(capsys, base):
    code, out, err = run(capsys, *CLI_SMALL, "--bots", "greedy,greedy,random,handhunter")
    assert code == 0, err
    assert err == ""
    for text in ("40 deals, 4 players: greedy (seat 0), greedy (seat 1), random (seat 2), "
                 "hand-hunter (seat 3)", "seed entropy 7", "By bot", "By seat",
                 "By position in the turn order", "win rate", "mean score", "hand wins",
                 "deal length (turns)", "draws", "first player rotates"):
        assert text in out, text
    line = next(l for l in out.splitlines() if l.startswith("hand-hunter  3"))
    assert "%" in line and "[" in line and "±" in line


def test_cli_json_matches_the_api(capsys, base):
    code, out, err = run(capsys, *CLI_SMALL, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["meta"]["settings"]["bots"] == list(base.bots)
    assert data["meta"]["config_hash"] == base.meta()["config_hash"]
    api = base.summary()
    assert [r["wins"] for r in data["summary"]] == api.wins.tolist()
    assert data["overview"]["turns"] == base.turns


def test_cli_out_interrupt_and_resume(tmp_path, capsys, monkeypatch, base):
    from rummy51.studies import _games_plan as plan

    d = tmp_path / "run"
    real = plan.play_chunk
    calls = {"n": 0}

    def flaky(spec):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(spec)

    monkeypatch.setattr(plan, "play_chunk", flaky)
    code, out, err = run(capsys, *CLI_SMALL, "--out", str(d))
    assert code == 130 and out == ""
    assert "interrupted: 2 of 4 chunks are saved" in err and f"--resume {d}" in err
    monkeypatch.setattr(plan, "play_chunk", real)
    code, out, err = run(capsys, "simulate", "games", "--resume", str(d), "--no-progress",
                         "--workers", "1")
    assert code == 0, err
    assert "run directory" in out
    assert_same(GameStudy.load(d), base)
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["command"].startswith("rummy51 simulate games --games 40")
    code, out, err = run(capsys, "simulate", "games", "--resume", str(d), "--games", "5")
    assert code == 2 and err.count("\n") == 1
    assert "it was run with games = 40, not 5" in err
    code, out, err = run(capsys, "simulate", "games", "--resume", str(d), "--jokers", "2")
    assert code == 2 and "--jokers = 4, not 2" in err


@pytest.mark.parametrize("argv, message", [
    (["--bots", "greedy,nope"], "--bots: 'nope' is not a bot: choose from random, greedy, "
                                "hand-hunter, tactician"),
    (["--bots", "greedy,greedy,random", "--players", "4"], "--bots: 3 bots for 4 players"),
    (["--players", "9"], "--players: 9 players need"),
    (["--players", "1"], "--players must be 2..64, got 1"),
    (["--games", "0"], "'0' is not a whole number >= 1"),
    (["--games", "x"], "'x' is not a whole number"),
    (["--decks", "3"], "--decks must be 1..2, got 3"),
    (["--rules", "nope"], "'nope' is not a rule preset"),
    (["--workers", "0"], "'0' is not a whole number >= 1"),
    (["--backend", "spark"], "invalid choice: 'spark'"),
    (["--backend", "local", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler needs --backend dask"),
    (["--resume", "/nonexistent/run"], "is not a run directory"),
    (["--out", "a", "--resume", "b"], "either --out"),
])
def test_cli_bad_arguments_one_line_exit_2(capsys, argv, message):
    code, out, err = run(capsys, "simulate", "games", "--no-progress", "--games", "2", *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("rummy51: error: ") and err.count("\n") == 1, err
    assert message in err, err


def test_doctests():
    import doctest

    import rummy51.studies.games

    result = doctest.testmod(rummy51.studies.games)
    assert result.failed == 0 and result.attempted >= 2
