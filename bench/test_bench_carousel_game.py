"""Carousel game benchmarks (pytest-benchmark). Not in the default test run.

Run:  python -m pytest bench/test_bench_carousel_game.py --benchmark-only -s

What is measured (figures in bench/README.md, section "Carousel games"):

* greedy rounds per second per core through ``simulate_carousel`` (seeding, records,
  chunking included) on 1 worker in this process, for 2 and 4 players;
* the engine's own cost per turn: a bot that never melds (draw, draw, draw, pass) plays
  whole games through ``play_game``, so the solver is never asked and the time per
  turn is what the engine adds around any bot (``state.view``, the checks, records).

Target of issue 16: >= 2,000 greedy rounds/s per core. Measured, not asserted.
"""
import dataclasses
import time

import pytest

from rummy51.carousel import CarouselRules
from rummy51.carousel.actions import Draw, Pass, Phase
from rummy51.carousel.bots import play_game
from rummy51.studies.carousel import simulate_carousel

pytest.importorskip("pandas")


class NoMeldBot:
    """Never melds: draws while it may, then passes (no solver question)."""

    def choose(self, view):
        return Draw() if view.phase in (Phase.DRAW, Phase.MELD) else Pass()


@pytest.mark.parametrize("players, games", [(2, 6), (4, 3)])
def test_greedy_rounds_per_second(benchmark, players, games):
    out = {}

    def run():
        t = time.process_time()
        st = simulate_carousel(players=players, bots="greedy", games=games, seed=1, workers=1,
                               chunk_size=games, progress=False)
        out["rounds"] = st.rounds
        out["cpu"] = time.process_time() - t

    benchmark.pedantic(run, rounds=1, iterations=1)
    rate = out["rounds"] / out["cpu"]
    benchmark.extra_info.update(rounds=out["rounds"], rounds_per_cpu_s=round(rate, 2))
    print(f"\n{players} players: {out['rounds']} greedy rounds, {rate:.2f} rounds per CPU-second")


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
