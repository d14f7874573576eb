"""Carousel game benchmarks (pytest-benchmark). Not in the default test run.

Run:  python -m pytest bench/test_bench_carousel_game.py --benchmark-only -s

What is measured (figures in bench/README.md, section "Carousel games"):

* greedy rounds per CPU-second through ``simulate_carousel`` (seeding, records,
  chunking included) on 1 worker in this process, for 2 to 5 players, with the C game
  kernel (``engine="c"``, what ``"auto"`` picks for all-greedy tables) and with the
  Python engine (``engine="python"``) in the same run, and their ratio;
* the solver's grouped layers against the same kernel without them
  (``_carousel._set_grouping``), alternately in one run, 4 and 5 players;
* the engine's own cost per turn: a bot that never melds (draw, draw, draw, pass) plays
  whole games through ``play_game``, so the solver is never asked and the time per
  turn is what the engine adds around any bot (``state.view``, the checks, records).

* whole 2-player games per CPU-second of the search bot (``--bots search,greedy``, its
  default budget, the C kernel) beside all-greedy games in the same run, and their
  ratio (section "Carousel search bot").

Target of issue 16: >= 2,000 greedy rounds/s per core; of issue 29: >= 1 whole 2-player
search game per CPU-second at the default budget. Measured, not asserted.
"""
import dataclasses
import time

import pytest

from rummy51 import _carousel
from rummy51.carousel import CarouselRules
from rummy51.carousel.actions import Draw, Pass, Phase
from rummy51.carousel.bots import play_game
from rummy51.studies.carousel import simulate_carousel

pytest.importorskip("pandas")


class NoMeldBot:
    """Never melds: draws while it may, then passes (no solver question)."""

    def choose(self, view):
        return Draw() if view.phase in (Phase.DRAW, Phase.MELD) else Pass()


def _rate(players: int, games: int, engine: str) -> tuple[int, float]:
    """(rounds, rounds per CPU-second) of ``games`` greedy games, seed 1, 1 worker."""
    t = time.process_time()
    st = simulate_carousel(players=players, bots="greedy", games=games, seed=1, workers=1,
                           chunk_size=50, progress=False, engine=engine)
    return st.rounds, st.rounds / (time.process_time() - t)


@pytest.mark.parametrize("players, games, py_games", [(2, 200, 10), (3, 200, 10), (4, 200, 10),
                                                     (5, 200, 6)])
def test_greedy_rounds_per_second(benchmark, players, games, py_games):
    out = {}
    simulate_carousel(players=players, games=1, seed=2, workers=1, progress=False)  # warm up

    def run():
        out["c"] = _rate(players, games, "c")
        out["python"] = _rate(players, py_games, "python")

    benchmark.pedantic(run, rounds=1, iterations=1)
    (cr, crate), (pr, prate) = out["c"], out["python"]
    benchmark.extra_info.update(kernel_rounds=cr, kernel_rounds_per_cpu_s=round(crate, 1),
                                python_rounds=pr, python_rounds_per_cpu_s=round(prate, 2),
                                ratio=round(crate / prate, 1))
    print(f"\n{players} players: C kernel {cr} greedy rounds, {crate:.0f} rounds per CPU-second; "
          f"Python engine {pr} rounds, {prate:.1f} per CPU-second; ratio {crate / prate:.1f}")


@pytest.mark.parametrize("players", [4, 5])
def test_grouped_layers_ratio(benchmark, players):
    """The kernel with the solver's grouped layers (the default) and without them
    (``_carousel._set_grouping(False)``: every state expanded on its own, as before
    issue 16's second speed pass), alternately in the same run: the same games, so
    the same rounds."""
    out = {"on": [], "off": []}
    simulate_carousel(players=players, games=1, seed=2, workers=1, progress=False)  # warm up

    def run():
        try:
            for _ in range(2):
                for mode in ("off", "on"):
                    _carousel._set_grouping(mode == "on")
                    out[mode].append(_rate(players, 100, "c"))
        finally:
            _carousel._set_grouping(True)

    benchmark.pedantic(run, rounds=1, iterations=1)
    on = max(r for _, r in out["on"])
    off = max(r for _, r in out["off"])
    assert {n for n, _ in out["on"]} == {n for n, _ in out["off"]}   # the same games
    benchmark.extra_info.update(grouped_rounds_per_cpu_s=round(on, 1),
                                plain_rounds_per_cpu_s=round(off, 1), ratio=round(on / off, 2))
    print(f"\n{players} players: grouped layers {on:.0f} greedy rounds per CPU-second, "
          f"without {off:.0f}; ratio {on / off:.2f} (best of 2 each, alternating)")


def test_engine_cost_per_turn(benchmark):
    rules = dataclasses.replace(CarouselRules.for_players(4), target_score=60)
    out = {}

    def run():
        turns = moves = 0
        t = time.perf_counter()
        for seed in range(3):
            s = play_game([NoMeldBot() for _ in range(4)], rules, seed=seed)
            turns += sum(r.turns for r in s.rounds)
            moves += len(s.actions)
        out.update(turns=turns, moves=moves, s=time.perf_counter() - t)

    benchmark.pedantic(run, rounds=1, iterations=1)
    us = 1e6 * out["s"] / out["turns"]
    benchmark.extra_info.update(turns=out["turns"], us_per_turn=round(us, 1))
    print(f"\nengine: {out['turns']} turns ({out['moves']} moves), {us:.1f} us per turn")


def _games_rate(bots: str, games: int) -> tuple[int, float]:
    """(rounds, games per CPU-second) of ``games`` 2-player games, seed 1, 1 worker."""
    t = time.process_time()
    st = simulate_carousel(players=2, bots=bots, games=games, seed=1, workers=1,
                           chunk_size=50, progress=False, engine="c")
    return st.rounds, games / (time.process_time() - t)


def test_search_games_per_second(benchmark):
    """Search (default budget) against greedy, both seat orders, and greedy against
    greedy, in the same run."""
    out = {}
    simulate_carousel(players=2, bots="search:8,greedy", games=1, seed=2, workers=1,
                      progress=False)  # warm up

    def run():
        a = _games_rate("search,greedy", 20)
        b = _games_rate("greedy,search", 20)
        out["search"] = (a[0] + b[0], 2 / (1 / a[1] + 1 / b[1]))   # 40 games over their time
        out["greedy"] = _games_rate("greedy", 200)

    benchmark.pedantic(run, rounds=1, iterations=1)
    (sr, srate), (gr, grate) = out["search"], out["greedy"]
    benchmark.extra_info.update(search_rounds=sr, search_games_per_cpu_s=round(srate, 2),
                                greedy_rounds=gr, greedy_games_per_cpu_s=round(grate, 1),
                                ratio=round(grate / srate, 1))
    print(f"\n2 players: search,greedy {srate:.2f} games per CPU-second ({sr} rounds in 40 "
          f"games); greedy {grate:.1f} games per CPU-second ({gr} rounds in 200 games); "
          f"greedy / search {grate / srate:.1f}")


def _plays_rate(games: int, seats: str) -> tuple[int, int, float]:
    """(plays, rounds, rounds per CPU-second) of ``games`` 2-player greedy-against-careful
    games under ``seats``, seed 1, 1 worker (the C kernel plays both arrangements)."""
    t = time.process_time()
    st = simulate_carousel(players=2, bots="greedy,careful", games=games, seed=1, workers=1,
                           chunk_size=50, progress=False, engine="c", seats=seats)
    return st.plays, st.rounds, st.rounds / (time.process_time() - t)


def test_seat_permuted_tournament_rate(benchmark):
    """Issue 27: a seat-permuted 2-player tournament (every game from both seats) runs at
    the kernel's rate: its rounds per CPU-second against a plain (fixed-seat) run of the
    same table, alternately in one run, best of three each. Target >= 0.9."""
    out = {"fixed": [], "permute": []}
    simulate_carousel(players=2, games=1, seed=2, workers=1, progress=False)  # warm up

    def run():
        for _ in range(3):
            for seats, games in (("fixed", 400), ("permute", 200)):  # 400 plays each
                out[seats].append(_plays_rate(games, seats))

    benchmark.pedantic(run, rounds=1, iterations=1)
    best = {k: max(v, key=lambda x: x[2]) for k, v in out.items()}
    ratio = best["permute"][2] / best["fixed"][2]
    benchmark.extra_info.update(fixed_rounds_per_cpu_s=round(best["fixed"][2], 1),
                                permute_rounds_per_cpu_s=round(best["permute"][2], 1),
                                ratio=round(ratio, 3))
    print(f"\n2 players, greedy vs careful: fixed seats {best['fixed'][0]} plays, "
          f"{best['fixed'][1]} rounds, {best['fixed'][2]:.0f} rounds per CPU-second; "
          f"--seats permute {best['permute'][0]} plays, {best['permute'][1]} rounds, "
          f"{best['permute'][2]:.0f} per CPU-second; ratio {ratio:.3f}")
