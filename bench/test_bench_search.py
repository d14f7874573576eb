"""The search bot's speed (issues 13 and 29; pytest-benchmark). Not in the default test run.

Run:  python -m pytest bench/test_bench_search.py --benchmark-only
      --benchmark-columns=min,median,rounds

What is measured (figures in bench/README.md, section "Rummy 51 search, issue 29"):

* whole 2-player deals of the search bot at its default budget against the tactician,
  played by the C kernel (its ``"search"`` seat), ``GAMES`` seeded deals a round, the
  bot in seat 0 and seat 1 in turn; ``extra_info["games_per_cpu_s"]`` divides the deals
  by the process's CPU time (``time.process_time``), the unit of issue 29's target;
* in the same run, deals of two kernel tacticians (the reference: the ratio between the
  two is what carries over between machines);
* the Python engine seating ``SearchBot`` (the same moves; the engine's own cost on top);
* the search bot's decisions per second on a fixed set of positions (every decision of
  seat 0 in seeded 2-player deals of two tacticians), as issue 13 measured it.
"""
import os
import time

import numpy as np
import pytest

from rummy51 import RuleSet, _game
from rummy51.r51.bots import TacticianBot, play_deal
from rummy51.r51.engine import GameState
from rummy51.r51.fastgame import greedy_kernel
from rummy51.r51.search import SearchBot

DEALS = 6
GAMES = 40
R = RuleSet()


def _kernel_games(codes_of, n):
    kernel = greedy_kernel(R)
    t0 = time.process_time()
    for s in range(n):
        codes = codes_of(s)
        rngs = [np.random.default_rng([s, 1]) if c == 4 else None for c in codes]
        _game.play_table(kernel, np.random.default_rng([s, 2]), 2, s % 2, codes, rngs, None)
    return time.process_time() - t0


def _games(benchmark, codes_of, n):
    cpu = []
    benchmark.pedantic(lambda: cpu.append(_kernel_games(codes_of, n)), rounds=3, iterations=1,
                       warmup_rounds=0)
    best = min(cpu)
    benchmark.extra_info.update(games=n, cpu_s=best, games_per_cpu_s=n / best,
                                load_avg_1min=os.getloadavg()[0])


@pytest.mark.benchmark(group="search-games")
def test_search_vs_tactician_games_kernel(benchmark):
    _games(benchmark, lambda s: [4, 3] if s % 2 == 0 else [3, 4], GAMES)


@pytest.mark.benchmark(group="search-games")
def test_tactician_games_reference(benchmark):
    _games(benchmark, lambda s: [3, 3], GAMES * 100)


@pytest.mark.benchmark(group="search-games")
def test_search_vs_tactician_games_python_engine(benchmark):
    def run():
        t0 = time.process_time()
        for s in range(GAMES // 4):
            bot = SearchBot(seed=s)
            bots = [bot, TacticianBot()] if s % 2 == 0 else [TacticianBot(), bot]
            play_deal(bots, R, seed=s, first=s % 2)
        cpu.append(time.process_time() - t0)

    cpu = []
    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
    benchmark.extra_info.update(games=GAMES // 4, games_per_cpu_s=(GAMES // 4) / min(cpu))


def _views():
    """Every view seat 0 decides on in ``DEALS`` seeded 2-player tactician deals."""
    out = []
    for seed in range(DEALS):
        state = GameState.new(R, players=2, seed=1000 + seed, first=seed % 2)
        bots = [TacticianBot(), TacticianBot()]
        while not state.over:
            view = state.view()
            if state.current == 0:
                out.append(view)
            state.apply(bots[state.current].choose(view))
    return out


VIEWS = _views()


def _decide(benchmark, make):
    stats = []

    def run():
        bot = make()
        t0 = time.perf_counter()
        for v in VIEWS:
            bot.choose(v)
        stats.append((time.perf_counter() - t0, bot))

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
    best = benchmark.stats.stats.min
    wall, bot = min(stats, key=lambda s: s[0])
    info = {"decisions": len(VIEWS), "decisions_per_s": len(VIEWS) / best,
            "ms_per_decision": 1000 * best / len(VIEWS), "load_avg_1min": os.getloadavg()[0]}
    if isinstance(bot, SearchBot):
        info.update(searched=bot.searches, rollouts=bot.rollouts_played,
                    searched_per_s=bot.searches / wall, rollouts_per_s=bot.rollouts_played / wall,
                    ms_per_searched=1000 * wall / max(1, bot.searches))
    benchmark.extra_info.update(info)


@pytest.mark.benchmark(group="search-decisions")
def test_search_bot_decisions(benchmark):
    _decide(benchmark, lambda: SearchBot(seed=1))


@pytest.mark.benchmark(group="search-decisions")
def test_tactician_decisions_reference(benchmark):
    _decide(benchmark, TacticianBot)
