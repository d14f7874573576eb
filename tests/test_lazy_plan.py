"""Runs plan lazily: a run of a trillion games holds its plan in no memory, starts at
once, and resumes from its directory's listing; a plan beyond what the seeding can index
is refused in one line. (Speed is measured in bench/, not here: these tests compare the
memory of a small and a huge plan.)"""
import tracemalloc

import pytest

from rummy51 import runs, simulate_games
from rummy51.cli import main
from rummy51.studies._carousel_plan import Settings as CarouselSettings
from rummy51.studies._games_plan import Settings as GameSettings
from rummy51.studies.carousel import simulate_carousel


def _games_settings(games, chunk_size=250):
    from rummy51.rules import RuleSet

    return GameSettings(players=2, bots=("greedy", "greedy"), games=games, chunk_size=chunk_size,
                        rules=RuleSet(), entropy=1, spawn_key=(), rotate_first=True)


def test_a_plan_of_a_trillion_games_is_lazy_and_the_same_as_a_small_one():
    big = _games_settings(10**12).plan()
    small = _games_settings(1000).plan()
    assert len(big) == 4 * 10**9 and big.units == 10**12
    assert big[0] == small[0] and big[3] == small[3]
    last = big[-1]
    assert last["index"] == 4 * 10**9 - 1 and last["deal0"] == 10**12 - 250 and last["n"] == 250
    assert [s["index"] for s in small] == [0, 1, 2, 3] and small[1:3] == [small[1], small[2]]
    # chunk n's spec is the same in any plan: a run's seeds never depend on its size
    odd = _games_settings(1001).plan()
    assert len(odd) == 5 and odd[4]["n"] == 1 and odd[2] == small[2]
    with pytest.raises(IndexError):
        small[4]
    extra = small.with_extra({"engine": "c"})
    assert extra[0] == dict(small[0], engine="c")


def test_a_plan_beyond_the_seeding_is_refused():
    with pytest.raises(ValueError, match=r"make 10000000000 chunks; .* give chunk_size >= 233"):
        _games_settings(10**12, chunk_size=100).plan()
    s = CarouselSettings(players=2, bots=("greedy", "greedy"), games=2**32 + 1, chunk_size=1,
                         rules=None, entropy=1, spawn_key=())
    with pytest.raises(ValueError, match="2\\*\\*32"):
        s.chunk_specs("game0")


def test_todo_is_lazy():
    plan = _games_settings(10**12).plan()
    todo = runs.Todo(plan, {0, 2, 10**10})
    assert len(todo) == 4 * 10**9 - 2
    it = iter(todo)
    assert [next(it)["index"] for _ in range(3)] == [1, 3, 4]
    assert todo.units() == 10**12 - 500


def _peak(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class _Stop(Exception):
    pass


def _first_chunk(games, out, **kw):
    def stop(i, done, total):
        raise _Stop

    def run():
        with pytest.raises(_Stop):
            simulate_games(games=games, chunk_size=250, seed=1, workers=1, bots="greedy",
                           players=2, out=out, progress=False, on_chunk=stop, **kw)
    return run


def test_a_trillion_game_run_starts_and_resumes_in_the_memory_of_a_small_one(tmp_path):
    small = _peak(_first_chunk(1000, tmp_path / "s"))
    big = _peak(_first_chunk(10**12, tmp_path / "b"))
    assert big < small + 2**20, (small, big)      # no memory for the plan
    assert len(list((tmp_path / "b" / "chunks").iterdir())) == 1
    # resume: the directory's listing, not a look-up of every planned chunk
    resumed = _peak(_first_chunk(None, None, resume=tmp_path / "b"))
    assert resumed < small + 2**20, (small, resumed)
    assert len(list((tmp_path / "b" / "chunks").iterdir())) == 2


def test_the_cli_refuses_a_size_it_cannot_index(tmp_path, capsys):
    code = main(["carousel", "simulate", "--games", str(10**12), "--out", str(tmp_path / "c"),
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "give --chunk-size >= 233" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "c").exists()
    code = main(["simulate", "games", "--games", str(10**12), "--chunk-size", "100", "--out",
                 str(tmp_path / "g"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "give --chunk-size >= 233" in err and not (tmp_path / "g").exists()
    # one more game than a study may ask for: the existing bound
    code = main(["simulate", "games", "--games", str(10**12 + 1), "--no-progress"])
    assert code == 2 and "--games must be at most 1000000000000" in capsys.readouterr().err


def test_a_carousel_run_of_a_billion_games_starts(tmp_path):
    seen = []

    def stop(i, done, total):
        seen.append(total)
        raise _Stop

    with pytest.raises(_Stop):
        simulate_carousel(players=2, bots="greedy", games=10**9, chunk_size=1, seed=1,
                          workers=1, out=tmp_path / "c", progress=False, on_chunk=stop)
    assert seen == [10**9]


def test_the_progress_bar_shows_before_the_first_chunk(tmp_path, capsys):
    pytest.importorskip("tqdm")
    seen = []

    def stop(i, done, total):
        seen.append(capsys.readouterr().err)
        raise _Stop

    with pytest.raises(_Stop):
        simulate_games(games=10**12, chunk_size=250, seed=1, workers=1, bots="greedy", players=2,
                       out=tmp_path / "p", progress=True, on_chunk=stop)
    # the bar was drawn (at 0 of a trillion deals) before the first chunk came back
    assert seen and "games" in seen[0] and "1.00T" in seen[0], seen
