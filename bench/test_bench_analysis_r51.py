"""Rummy 51 analysis speed (issue 30; pytest-benchmark). Not in the default test run.

Run:  python -m pytest bench/test_bench_analysis_r51.py --benchmark-only
      --benchmark-columns=min,median,rounds

What is measured (figures in bench/README.md, section "Rummy 51 analysis"):

* ``analyse_position`` at the default budget (200 rollouts per candidate) on a fixed
  set of positions: every decision of ``DEALS`` seeded 2-player deals of two
  tacticians (their views rebuilt once, outside the timing);
  ``extra_info["decisions_per_cpu_s"]`` divides the decisions by the process's CPU time
  and ``rollouts_per_decision`` says what a decision cost;
* the same at ``HINT_ROLLOUTS`` (``hint`` in ``rummy51 play``): the slowest decision's
  CPU time (the hint's "about a second");
* in the same run, the tactician choosing its move on the same views (the reference).
"""
import os
import time

import pytest

from rummy51 import RuleSet
from rummy51.analysis import analyse_position
from rummy51.analysis.rummy51 import DEFAULT_ROLLOUTS, HINT_ROLLOUTS
from rummy51.r51.bots import TacticianBot, play_deal
from rummy51.r51.engine import GameState

DEALS = 3
R = RuleSet()


def _views():
    out = []
    for s in range(DEALS):
        final = play_deal([TacticianBot(), TacticianBot()], R, seed=100 + s)
        state = GameState.new(R, players=2, seed=final.seed, first=final.first)
        for a in final.actions:
            out.append(state.view(state.current))
            state.apply(a)
    return out


VIEWS = _views()


def _run(benchmark, rollouts):
    cpu, worst, played = [], [], []

    def once():
        t0 = time.process_time()
        w = 0.0
        n = 0
        for i, v in enumerate(VIEWS):
            t = time.process_time()
            d = analyse_position(v, rollouts=rollouts, seed=1, index=i)
            w = max(w, time.process_time() - t)
            n += sum(c.rollouts for c in d.candidates)
        cpu.append(time.process_time() - t0)
        worst.append(w)
        played.append(n)

    benchmark.pedantic(once, rounds=3, iterations=1, warmup_rounds=0)
    best = min(cpu)
    benchmark.extra_info.update(decisions=len(VIEWS), cpu_s=best,
                                decisions_per_cpu_s=len(VIEWS) / best,
                                rollouts_per_decision=played[0] / len(VIEWS),
                                worst_decision_cpu_s=min(worst),
                                load_avg_1min=os.getloadavg()[0])


@pytest.mark.benchmark(group="analysis-r51")
def test_analyse_default_budget(benchmark):
    _run(benchmark, DEFAULT_ROLLOUTS)


@pytest.mark.benchmark(group="analysis-r51")
def test_analyse_hint_budget(benchmark):
    _run(benchmark, HINT_ROLLOUTS)


@pytest.mark.benchmark(group="analysis-r51")
def test_tactician_reference(benchmark):
    bot = TacticianBot()
    cpu = []

    def once():
        t0 = time.process_time()
        for v in VIEWS:
            bot.choose(v)
        cpu.append(time.process_time() - t0)

    benchmark.pedantic(once, rounds=3, iterations=1, warmup_rounds=0)
    benchmark.extra_info.update(decisions=len(VIEWS), decisions_per_cpu_s=len(VIEWS) / min(cpu))
