"""The search bot's speed (issue 13; pytest-benchmark). Not in the default test run.

Run:  python -m pytest bench/test_bench_search.py --benchmark-only
      --benchmark-columns=min,median,rounds

What is measured (figures in bench/README.md, section "Search bot"): the decisions per
second of ``SearchBot`` at its default budget (200 rollouts a searched decision) on a
fixed set of positions, every decision of seat 0 in seeded 2-player deals of two
tacticians (draws, lay-downs, lay-offs and discards: each a ``choose(view)`` call); and,
in the same run on the same positions, ``TacticianBot``'s decisions per second (the
reference; the search bot asks it for its own move first). ``extra_info`` holds
``decisions_per_s``, the searched decisions (those with two or more candidates) and
their rate, and the rollouts per second.
"""
import os
import time

import pytest

from rummy51 import RuleSet
from rummy51.r51.bots import TacticianBot
from rummy51.r51.engine import GameState
from rummy51.r51.search import SearchBot

DEALS = 6


def _views():
    """Every view seat 0 decides on in ``DEALS`` seeded 2-player tactician deals."""
    out = []
    for seed in range(DEALS):
        state = GameState.new(RuleSet(), players=2, seed=1000 + seed, first=seed % 2)
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
