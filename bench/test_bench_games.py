"""Batch-simulation benchmarks (pytest-benchmark). Not in the default test run.

Run:  python -m pytest bench/test_bench_games.py --benchmark-only
      (add --benchmark-autosave to track over time)

What is measured (figures in bench/README.md, section "Games"):

* complete 4-player deals of four greedy bots per second through ``simulate_games``
  (seeding, records, chunking included): with the C game kernel (``engine="auto"``) on
  1 worker (in this process) and on all cores (worker processes, their start-up
  included), and with the Python engine and ``GreedyBot`` (``engine="python"``, the
  slow reference: the very same deals) on 1 worker, for the ratio;
* the kernel alone: ``_game.play_greedy`` in a loop (no seeding, no records);
* the mixed table of the must-show tournament (greedy, greedy, random, hand-hunter:
  the Python engine);
* the engine's own cost per turn: a trivial Python bot (draw from the stock, discard
  the first card; it never opens, so every deal runs to the ``max_turns`` cap) plays
  through ``play_deal``; the time per turn is what the engine adds around any bot
  (``state.view``, legality checks, records).

Targets of issue 4: >= 1,000 greedy deals/s on one core, near 2x on two; about 20 us
of engine time per turn for a Python bot. Measured, not asserted.
Throughput goes to ``extra_info`` (``deals_per_s``, ``us_per_turn``).
"""
import os
import resource
import time

import pytest

from rummy51 import RuleSet
from rummy51.r51.bots import play_deal
from rummy51.r51.engine import Discard, Draw, Phase
from rummy51.studies.games import simulate_games

CORES = os.cpu_count() or 1
pytest.importorskip("pandas")  # imported here, not inside the first timed run


class PassBot:
    """The least a bot can do: draw from the stock, discard the first card."""

    def choose(self, view):
        if view.phase is Phase.DRAW:
            return Draw("stock")
        return Discard(view.hand[0])


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the worker processes are
    joined when a run ends), to read throughput per busy core when other jobs share the
    machine."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _games(benchmark, bots, games, workers, chunk_size, engine="auto", rounds=1):
    cpu = []

    def run():
        c0 = _cpu()
        study = simulate_games(bots=bots, games=games, workers=workers, chunk_size=chunk_size,
                               seed=2026, progress=False, engine=engine)
        cpu.append(_cpu() - c0)
        return study

    study = benchmark.pedantic(run, rounds=rounds, iterations=1, warmup_rounds=0)
    best = benchmark.stats.stats.min
    benchmark.extra_info.update(
        games=games, workers=workers, chunk_size=chunk_size, bots=",".join(study.bots),
        deals_per_s=games / best, wall_s=best, cpu_s=min(cpu), deals_per_cpu_s=games / min(cpu),
        deals_per_s_per_worker=games / study.compute_seconds,
        turns_per_deal=study.turns / games, load_avg_1min=os.getloadavg()[0])
    assert study.deals_done == games
    assert study.summary("bot").wins.sum() + study.overview().draws[0] == games
    return study


@pytest.mark.benchmark(group="games-greedy")
@pytest.mark.parametrize("workers", [1, CORES], ids=["1-worker", "all-cores"])
def test_greedy_deals_per_second(benchmark, workers):
    """4 greedy bots, C game kernel, 40,000 deals per worker (chunks of 250): long enough
    that starting the worker processes (about 1 s) does not hide the scaling."""
    _games(benchmark, "greedy", 40_000 * workers, workers, 250)


@pytest.mark.benchmark(group="games-greedy")
def test_greedy_deals_per_second_python_engine(benchmark):
    """The same deals through the Python engine and GreedyBot (the reference), 1 worker."""
    _games(benchmark, "greedy", 200, 1, 25, engine="python")


@pytest.mark.benchmark(group="games-kernel")
def test_kernel_alone(benchmark):
    """``_game.play_greedy`` in a loop: 5,000 deals from one Generator."""
    import numpy as np

    from rummy51 import _game
    from rummy51.r51.fastgame import greedy_kernel

    k = greedy_kernel(RuleSet())
    deals = 5000

    def run():
        rng = np.random.default_rng(2026)
        turns = 0
        for d in range(deals):
            turns += _game.play_greedy(k, rng, 4, d % 4)[2]
        return turns

    turns = benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    best = benchmark.stats.stats.min
    benchmark.extra_info.update(deals=deals, deals_per_s=deals / best, turns_per_deal=turns / deals,
                                us_per_turn=1e6 * best / turns, load_avg_1min=os.getloadavg()[0])


@pytest.mark.benchmark(group="games-mixed")
@pytest.mark.parametrize("workers", [1, CORES], ids=["1-worker", "all-cores"])
def test_mixed_table_deals_per_second(benchmark, workers):
    """greedy, greedy, random, hand-hunter (the must-show table), 100 deals per worker."""
    _games(benchmark, "greedy,greedy,random,hand-hunter", 100 * workers, workers, 25)


@pytest.mark.benchmark(group="games-engine")
def test_engine_overhead_per_turn(benchmark):
    """Four PassBots, deals capped at 400 turns: the engine's cost per turn."""
    rules = RuleSet(max_turns=400)
    deals = 10

    def run():
        turns = 0
        for seed in range(deals):
            state = play_deal([PassBot() for _ in range(4)], rules, seed=seed, first=seed % 4)
            turns += state.turn + 1
        return turns

    turns = benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    best = benchmark.stats.stats.min
    benchmark.extra_info.update(turns=turns, us_per_turn=1e6 * best / turns,
                                turns_per_s=turns / best, load_avg_1min=os.getloadavg()[0])
    assert turns == deals * 400


# --------------------------------------------------------------------------- issue 13
@pytest.mark.benchmark(group="games-kernel-bots")
@pytest.mark.parametrize("bots", ["greedy", "tactician", "tactician,hand-hunter,random,greedy"],
                         ids=["greedy", "tactician", "mixed"])
def test_kernel_tables_deals_per_cpu_second(benchmark, bots):
    """Issue 13: every built-in bot in the kernel. 12,000 deals through ``simulate_games``
    (engine auto, 1 worker, chunks of 250), the least CPU time of 3 rounds, for
    greedy-only, tactician-only and the mixed table (tactician, hand-hunter, random,
    greedy); compare ``deals_per_cpu_s`` within one run (target: tactician and mixed >=
    0.5x greedy). A single 4,000-deal round moved the ratios by +-0.07 from run to run."""
    from rummy51.studies.games import uses_kernel

    names = tuple(bots.split(",")) if "," in bots else (bots,) * 4
    assert uses_kernel(names, RuleSet())
    _games(benchmark, bots, 12_000, 1, 250, rounds=3)
