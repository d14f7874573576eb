"""Carousel's single calls on uniformly random positions of every size (0..60 table cards).

Run:  python -m pytest bench/test_bench_carousel_random.py --benchmark-only -s

Positions: ``RUMMY51_RANDOM_N`` (default 2,000) positions of
``bench/carousel_positions.random_positions`` (seed ``RUMMY51_RANDOM_SEED``, default
39): a table of 0..60 cards (uniform) in random valid melds, a random hand of 1..15
cards, the default rules; given as text (meld texts, hand card text), as a person or a
bot passes them. Beside bench/test_bench_carousel_single.py, which times the same calls
on game positions (tables of at most 30 cards).

Measured, one thread, CPU time, each from cold caches (the core's option cache and the
solver's memos of parsed and rebuilt melds):

* ``best_play`` (text in, ``Play`` out: its melds arranged only when read);
* ``best_play+melds``: the same calls with ``.melds`` read; and the ratio of the two
  (what reading the melds costs);
* ``can_meld`` and ``max_cards_played`` (text in);
* the batch ``best_play_values`` on packed arrays, whose answers the single calls must
  equal.

Also the time of each call by table size (tens of cards), and the slowest call. The
targets (>= 20,000 positions per CPU-second each, ``.melds`` at most 2x the call
without it) are reported, not asserted.
"""
from __future__ import annotations

import os
import time

import pytest

from carousel_positions import DEFAULT, as_text, random_positions
from rummy51 import _carousel, carousel
from rummy51.carousel import solver

N = int(os.environ.get("RUMMY51_RANDOM_N", "2000"))
SEED = int(os.environ.get("RUMMY51_RANDOM_SEED", "39"))


@pytest.fixture(scope="module")
def positions():
    made = random_positions(N, SEED)
    return [(as_text(t, h), sum(len(m) for m in t)) for t, h in made]


def _cold():
    _carousel._drop_kept_cache()
    solver._meld_of_text.cache_clear()
    solver._hand_of_text.cache_clear()
    solver._rebuilt_meld.cache_clear()
    solver._meld_ok.cache_clear()


def _timed(fn, positions):
    """The answers, the total CPU time and each call's CPU time."""
    _cold()
    out, each = [], []
    t0 = time.process_time()
    for (table, hand), _ in positions:
        a = time.process_time()
        out.append(fn(table, hand))
        each.append(time.process_time() - a)
    return out, time.process_time() - t0, each


@pytest.mark.benchmark(group="carousel-random")
def test_single_calls_on_random_positions(benchmark, positions):
    n = len(positions)
    calls = {
        "best_play": lambda t, h: carousel.best_play(t, h, DEFAULT),
        "best_play+melds": lambda t, h: carousel.best_play(t, h, DEFAULT).melds,
        "can_meld": lambda t, h: carousel.can_meld(t, h, DEFAULT),
        "max_cards_played": lambda t, h: carousel.max_cards_played(t, h, DEFAULT),
    }
    got = {}

    def run():
        for k, fn in calls.items():
            got[k] = _timed(fn, positions)
        _cold()
        packed = carousel.pack_positions([p[0] for p, _ in positions], [p[1] for p, _ in positions],
                                         DEFAULT)
        t0 = time.process_time()
        values = carousel.best_play_values(*packed, DEFAULT, workers=1)
        got["batch"] = (values, time.process_time() - t0, [])

    benchmark.pedantic(run, rounds=1, iterations=1)
    left, cards = got["batch"][0]
    plays = got["best_play"][0]
    for k, p in enumerate(plays):
        assert (p.points_left, p.cards_played) == (int(left[k]), int(cards[k]))
        assert got["can_meld"][0][k] == p.can_meld
        assert got["best_play+melds"][0][k] == p.melds
    rate = {k: n / v[1] for k, v in got.items()}
    benchmark.extra_info.update({f"{k}_per_cpu_s": round(v) for k, v in rate.items()})
    melds_ratio = got["best_play+melds"][1] / got["best_play"][1]
    benchmark.extra_info["melds_over_call"] = round(melds_ratio, 3)
    print(f"\n{n} random positions (0-60 table cards), per CPU-second, one thread:")
    for k, v in rate.items():
        print(f"  {k:18s} {v:12,.0f}   (target >= 20,000)" if k != "batch" else
              f"  {k:18s} {v:12,.0f}")
    print(f"  best_play+melds / best_play: {melds_ratio:.2f}x the time (target <= 2x)")
    print("  mean microseconds a call by table cards:")
    print("  table cards " + "".join(f"{k:>17s}" for k in calls))
    sizes = [s for _, s in positions]
    for lo in range(0, 61, 10):
        idx = [i for i, s in enumerate(sizes) if lo <= s < lo + 10]
        if idx:
            print(f"  {lo:2d}-{lo + 9:<2d} ({len(idx):4d})"
                  + "".join(f"{sum(got[k][2][i] for i in idx) / len(idx) * 1e6:17.0f}" for k in calls))
    for k in calls:
        worst = max(range(n), key=lambda i: got[k][2][i])
        print(f"  slowest {k}: {got[k][2][worst] * 1e3:.1f} ms (position {worst}, "
              f"{sizes[worst]} table cards)")
