"""Solver benchmarks (pytest-benchmark). Not in the default test run.

Run:  python -m pytest bench/test_bench_solver.py --benchmark-only
      (add --benchmark-autosave / --benchmark-compare to track changes)

Inputs are dealt once from fixed seeds outside the timed calls; each result is
checked after timing. Throughput goes to ``extra_info["hands_per_s"]``; the
pure-Python reference runs on 1,000 of the same hands in the same session so the
speed-up ratio can be read off whatever the machine's load.
"""
import os

import numpy as np
import pytest

import rummy51
from rummy51 import RuleSet, reference

N_BIG = 1_000_000
CORES = os.cpu_count() or 1
FUNCS = {
    "best": rummy51.best_opening_values,
    "can_open": rummy51.can_open_flags,
    "can_go_out": rummy51.can_go_out_flags,
    "min_deadwood": rummy51.min_deadwood_values,
}


@pytest.fixture(scope="module")
def hands15():
    return rummy51.deal(N_BIG, 15, seed=20261130)


@pytest.fixture(scope="module")
def hands14():
    return rummy51.deal(N_BIG, 14, seed=20261131)


def _run(benchmark, fn, hands, rules=None, workers=1, rounds=3):
    out = benchmark.pedantic(fn, args=(hands,), kwargs=dict(rules=rules, workers=workers),
                             rounds=rounds, iterations=1, warmup_rounds=0)
    benchmark.extra_info["hands"] = len(hands)
    benchmark.extra_info["threads"] = workers
    benchmark.extra_info["hands_per_s"] = len(hands) / benchmark.stats.stats.min
    assert len(out) == len(hands)
    return out


@pytest.mark.benchmark(group="solver-15-cards")
@pytest.mark.parametrize("threads", [1, CORES], ids=["1-thread", "all-threads"])
@pytest.mark.parametrize("question", list(FUNCS))
def test_dealt_15(benchmark, hands15, question, threads):
    out = _run(benchmark, FUNCS[question], hands15, workers=threads)
    if question == "best":
        assert 35 < out.mean() < 46  # about 40.5 for the default deck


@pytest.mark.benchmark(group="solver-14-cards")
@pytest.mark.parametrize("threads", [1, CORES], ids=["1-thread", "all-threads"])
@pytest.mark.parametrize("question", list(FUNCS))
def test_dealt_14(benchmark, hands14, question, threads):
    _run(benchmark, FUNCS[question], hands14, workers=threads)


@pytest.mark.benchmark(group="solver-gin")
def test_gin_10_cards(benchmark):
    gin = RuleSet.gin()
    hands = rummy51.deal(N_BIG, 10, rules=gin, seed=7)
    out = _run(benchmark, rummy51.best_opening_values, hands, rules=gin)
    assert out.max() <= 100


@pytest.mark.benchmark(group="solver-batch-1000")
@pytest.mark.parametrize("threads", [1, None], ids=["1-thread", "default-threads"])
def test_batch_1000(benchmark, hands15, threads):
    hands = np.ascontiguousarray(hands15[:1000])
    out = benchmark.pedantic(rummy51.best_opening_values, args=(hands,),
                             kwargs=dict(workers=threads), rounds=200, iterations=1)
    benchmark.extra_info["hands_per_s"] = 1000 / benchmark.stats.stats.min
    assert len(out) == 1000


@pytest.mark.benchmark(group="solver-single-call")
def test_single_text_call(benchmark):
    text = "6S 7S 8S 10D 10C 10H 2C KS KH 5D 9C JK 3S 4H QD"
    opening = benchmark(rummy51.best_opening, text)
    assert opening.value >= 51 and opening.can_open


@pytest.mark.benchmark(group="reference-1000")
def test_reference_1000(benchmark, hands15):
    rules = RuleSet()
    rows = [[int(c) for c in row] for row in hands15[:1000]]

    def run():
        return [reference.best_opening(r, rules) for r in rows]

    out = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info["hands_per_s"] = 1000 / benchmark.stats.stats.min
    fast = rummy51.best_opening_values(hands15[:1000])
    assert np.array_equal(np.array(out), fast)
