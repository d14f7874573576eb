"""Tournaments you can trust: seat arrangements (rotate, permute), paired comparisons on
the same deals, Bradley-Terry and Plackett-Luce ratings."""
import numpy as np
import pytest

import rummy51
from rummy51.cli import main
from rummy51.studies.games import GameStudy

BOTS = ("greedy", "random", "tactician")


def _run(seats, games=24, **kw):
    return rummy51.simulate_games(games=games, chunk_size=8, seed=5, workers=1, bots=BOTS,
                                  seats=seats, progress=False, **kw)


def test_rotate_puts_every_bot_in_every_seat_on_the_same_deals():
    s = _run("rotate")
    r = s.records
    assert len(s.arrangements) == 3 and s.deals_done == 24 and len(r) == 24 * 3 * 3
    counts = r.groupby(["bot", "seat"], observed=True).size()
    assert (counts == 24).all() and len(counts) == 9
    # the same cards under every arrangement: the deck of deal 7 is one deck
    decks = {tuple(s.replay(7, a).deck) for a in range(3)}
    assert len(decks) == 1
    # a replay gives the recorded rows of its arrangement
    st = s.replay(7, 2)
    rows = r[(r.deal == 7) & (r.arrangement == 2)].sort_values("seat")
    assert list(rows.score) == list(st.result.scores)
    assert list(rows.bot.astype(str)) == [BOTS[k] for k in s.arrangements[2]]


def test_permute_plays_every_order():
    s = _run("permute", games=6)
    assert len(s.arrangements) == 6
    assert s.records.groupby(["deal", "arrangement"]).ngroups == 36


def test_permute_refuses_too_many_players():
    with pytest.raises(ValueError, match="at most 5 players"):
        rummy51.simulate_games(games=2, bots=("greedy",) * 6, seats="permute", progress=False)
    with pytest.raises(ValueError, match="seats must be one of fixed, rotate, permute"):
        rummy51.simulate_games(games=2, seats="shuffle", progress=False)


def test_arranged_runs_resume_to_the_same_records(tmp_path):
    out = tmp_path / "run"
    calls = []

    def stop(index, done, total):
        calls.append(index)
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _run("rotate", out=out, on_chunk=stop)
    with pytest.raises(ValueError, match="seats"):
        rummy51.simulate_games(resume=out, seats="permute", progress=False)
    got = rummy51.simulate_games(resume=out, workers=1, progress=False)
    assert got.same_records(_run("rotate"))
    assert GameStudy.load(out).same_records(got)


def test_paired_comparison_is_antisymmetric_and_honest():
    s = _run("rotate", games=40)
    ab = s.paired("greedy", "random").set_index("metric")
    ba = s.paired("random", "greedy").set_index("metric")
    assert ab.loc["score", "deals"] == 40
    assert ab.loc["score", "diff"] == pytest.approx(-ba.loc["score", "diff"])
    assert ab.loc["score", "diff_lo"] < ab.loc["score", "diff"] < ab.loc["score", "diff_hi"]
    # by hand: per deal, mean score of greedy over its 3 plays minus random's
    r = s.records.assign(bot=s.records.bot.astype(str))
    per = r.groupby(["deal", "bot"]).score.mean().unstack()
    assert ab.loc["score", "diff"] == pytest.approx((per.greedy - per.random).mean())
    with pytest.raises(ValueError, match="did not play"):
        s.paired("greedy", "hand-hunter")


def test_ratings_count_plays_and_rank_the_random_bot_last():
    s = _run("rotate", games=60)
    bt = s.ratings()
    assert list(bt.bot)[-1] == "random"
    assert set(bt.deals) == {180}          # every bot in every play of every deal
    pytest.importorskip("openskill")
    pl = s.ratings("plackett-luce")
    assert list(pl.bot)[-1] == "random" and (pl.plays == 180).all()
    assert (pl.mu_lo < pl.mu).all() and (pl.mu < pl.mu_hi).all()


def test_cli_seats_rotate_prints_ratings_and_pairs(capsys):
    code = main(["simulate", "games", "--games", "12", "--chunk-size", "6", "--seed", "1",
                 "--bots", ",".join(BOTS), "--seats", "rotate", "--workers", "1",
                 "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0 and "Ratings (best first)" in out and "Paired on the same deals" in out
    assert "greedy - random" in out


def test_fixed_runs_have_no_arrangement_column():
    s = _run("fixed", games=8)
    assert "arrangement" not in s.records and len(s.records) == 24
    assert np.array_equal(s.records.seat.to_numpy()[:3], [0, 1, 2])


def test_arranged_tables_in_the_kernel_equal_the_python_engine():
    kw = dict(games=16, chunk_size=8, seed=9, workers=1, bots=("random", "tactician", "greedy"),
              seats="rotate", progress=False)
    c = rummy51.simulate_games(engine="c", **kw)
    py = rummy51.simulate_games(engine="python", **kw)
    assert c.same_records(py)
