"""Carousel's single calls against the batch on the same positions (issue 31).

Run:  python -m pytest bench/test_bench_carousel_single.py --benchmark-only -s

Positions: ``RUMMY51_SINGLE_N`` (default 5,000) realistic positions made in this run by
``play_positions`` (bench/test_bench_carousel.py: random 4-player deals played with the
best play), given as text (meld texts, hand card text), as a person or a bot passes
them. Measured, one thread, each from cold caches (``_cold``: the core's option cache
and the solver's memos of parsed and rebuilt melds):

* ``best_play`` (text in, ``Play`` out), positions per CPU-second; the Play's melds
  are arranged lazily (only when asked for), so also ``best_play+melds``: the same
  calls with ``.melds`` read (what a bot that makes the play pays);
* ``can_meld`` (text in), positions per CPU-second;
* ``max_cards_played`` (text in);
* the batch ``best_play_values`` including ``pack_positions`` (text in), and the batch
  alone on packed arrays;
* the ratios single / batch (issue 31's targets: best_play >= 20,000/s and >= 0.5x
  the batch rate; can_meld >= 50,000/s; batch with packing >= 100,000/s), reported,
  not asserted. The single answers must equal the batch's.
"""
from __future__ import annotations

import os
import time

import pytest

from rummy51 import _carousel, carousel
from rummy51.cards import cards_text
from rummy51.carousel import solver
from rummy51.carousel.table import parse_table, table_text
from test_bench_carousel import RULES, SEED, play_positions

N = int(os.environ.get("RUMMY51_SINGLE_N", "5000"))


@pytest.fixture(scope="module")
def text_positions():
    positions = play_positions(N, SEED + 7)
    return [(table_text(parse_table(t, RULES)).split(" | ") if t else [], cards_text(h))
            for t, h in positions]


def _cold():
    """Every cache a call may keep emptied: the core's option cache and the solver's
    memos of parsed meld and hand texts and of rebuilt melds (no run is flattered by
    an earlier run of the same positions)."""
    _carousel._drop_kept_cache()
    solver._meld_of_text.cache_clear()
    solver._hand_of_text.cache_clear()
    solver._rebuilt_meld.cache_clear()
    solver._meld_ok.cache_clear()


def _cpu(fn):
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


@pytest.mark.benchmark(group="carousel-single")
def test_single_against_batch(benchmark, text_positions):
    tables = [t for t, _ in text_positions]
    hands = [h for _, h in text_positions]
    n = len(text_positions)
    figures = {}

    def run():
        _cold()
        figures["best_play"], plays = _cpu(lambda: [carousel.best_play(t, h, RULES)
                                                    for t, h in text_positions])
        _cold()
        figures["best_play+melds"], tables_after = _cpu(
            lambda: [carousel.best_play(t, h, RULES).melds for t, h in text_positions])
        _cold()
        figures["can_meld"], melds = _cpu(lambda: [carousel.can_meld(t, h, RULES)
                                                   for t, h in text_positions])
        _cold()
        figures["max_cards_played"], _ = _cpu(lambda: [carousel.max_cards_played(t, h, RULES)
                                                       for t, h in text_positions])
        _cold()
        figures["pack_positions"], packed = _cpu(lambda: carousel.pack_positions(tables, hands,
                                                                                  RULES))
        _cold()
        figures["batch"], values = _cpu(lambda: carousel.best_play_values(*packed, RULES,
                                                                          workers=1))
        return plays, tables_after, melds, values

    plays, tables_after, melds, (left, cards) = benchmark.pedantic(run, rounds=1, iterations=1)
    for k, p in enumerate(plays):
        assert (p.points_left, p.cards_played) == (int(left[k]), int(cards[k]))
        assert melds[k] == p.can_meld
        assert tables_after[k] == p.melds
    rate = {k: n / v for k, v in figures.items()}
    rate["batch+pack"] = n / (figures["batch"] + figures["pack_positions"])
    benchmark.extra_info.update({f"{k}_per_cpu_s": round(v) for k, v in rate.items()})
    benchmark.extra_info["best_play_over_batch"] = round(rate["best_play"] / rate["batch"], 3)
    benchmark.extra_info["best_play_over_batch_pack"] = round(
        rate["best_play"] / rate["batch+pack"], 3)
    benchmark.extra_info["best_play_melds_over_batch_pack"] = round(
        rate["best_play+melds"] / rate["batch+pack"], 3)
    print(f"\n{n} realistic positions, positions per CPU-second (one thread):")
    for k, v in rate.items():
        print(f"  {k:18s} {v:12,.0f}")
    for k in ("best_play", "best_play+melds"):
        for b in ("batch", "batch+pack"):
            print(f"  {k + ' / ' + b:30s} {rate[k] / rate[b]:.3f}x")
