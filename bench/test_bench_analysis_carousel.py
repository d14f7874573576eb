"""Carousel analysis benchmark (pytest-benchmark). Not in the default test run.

Run:  python -m pytest bench/test_bench_analysis_carousel.py --benchmark-only -s

What is measured (figures in bench/README.md, section "Carousel analysis"): decisions
analysed per CPU-second at the default budget (``analysis.carousel.DEFAULT_ROLLOUTS``,
200 rollouts a candidate, one thread), on every 4th decision of a 2-player game between
greedy and search (seed 7: 33 decisions, meld and knock ones), and the search bot's own
decisions (``search_decide``, its default budget of 64 rollouts, early stops) on the
same views in the same run, with the ratio: what an analysed decision costs in search
bot decisions. The number of candidates and rollouts is printed beside it.
"""
import time

import numpy as np

from rummy51 import _carousel
from rummy51.analysis.carousel import DEFAULT_ROLLOUTS, _analyse_spot, game_decisions
from rummy51.carousel import CarouselRules
from rummy51.carousel.bots import (
    DEFAULT_ROLLOUTS as SEARCH_ROLLOUTS,
)
from rummy51.carousel.bots import (
    DEFAULT_Z_PLAY,
    DEFAULT_Z_STOP,
    GreedyBot,
    SearchBot,
    _core_rules,
    game_rules,
    play_game,
)


def _spots():
    s = play_game([GreedyBot(), SearchBot(seed=7)], CarouselRules.for_players(2), seed=7)
    return game_decisions(s.to_dict())[::4]


def _search(spots):
    for sp in spots:
        _carousel.search_decide(
            _core_rules(sp.rules), game_rules(sp.rules), np.random.default_rng(sp.index),
            sp.decision, sp.H, sp.JH, sp.T, sp.D, sp.JT, sp.sizes, sp.player, sp.stock,
            sp.draws, sp.stock_out, SEARCH_ROLLOUTS, DEFAULT_Z_STOP, DEFAULT_Z_PLAY)


def test_decisions_analysed_per_second(benchmark):
    spots = _spots()
    out = {}

    def run():
        t = time.process_time()
        ds = [_analyse_spot(sp, 1, 0, DEFAULT_ROLLOUTS, 0.0) for sp in spots]
        out["analyse"] = time.process_time() - t
        out["rollouts"] = sum(c.rollouts for d in ds for c in d.candidates)
        t = time.process_time()
        _search(spots)
        out["search"] = time.process_time() - t

    benchmark.pedantic(run, rounds=3, iterations=1)
    n = len(spots)
    rate = n / out["analyse"]
    srate = n / out["search"]
    print(f"\ncarousel analysis: {n} decisions, {out['rollouts']} rollouts "
          f"({out['rollouts'] / n / DEFAULT_ROLLOUTS:.2f} candidates a decision): "
          f"{rate:.2f} decisions/CPU-s at {DEFAULT_ROLLOUTS} rollouts a candidate, "
          f"{out['rollouts'] / out['analyse']:,.0f} rollouts/CPU-s; search bot decisions "
          f"{srate:.1f}/CPU-s; one analysed decision = {srate / rate:.1f} search decisions")
    benchmark.extra_info.update({"decisions_per_cpu_s": rate, "search_decisions_per_cpu_s": srate})
