"""The "must play these cards" queries on realistic Carousel positions, against
``best_play`` in the same run (CPU time, one call at a time).

* ``play_cards(table, best.played, hand)``: the play of the best play's own cards (the
  table rebuilt around exactly them), on the positions with a play;
* ``can_play_cards`` of those cards (one solve, nothing rebuilt);
* ``playable_cards(table, hand)``: the hand cards that can start a legal play (one
  solve per distinct hand card: an action codec's legal mask), on every position.

Positions: ``RUMMY51_PLAY_CARDS_N`` (2,000) from ``test_bench_carousel.play_positions``
(4 players, random deals played by best plays; tables up to 30 cards, hands 3..15).

    python -m pytest bench/test_bench_carousel_play_cards.py --benchmark-only -s
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from rummy51 import carousel

sys.path.insert(0, str(Path(__file__).parent))
from test_bench_carousel import RULES, SEED, play_positions  # noqa: E402

N = int(os.environ.get("RUMMY51_PLAY_CARDS_N", "2000"))


def _cpu(fn, items) -> float:
    t0 = time.process_time()
    for x in items:
        fn(*x)
    return time.process_time() - t0


def test_play_cards_against_best_play(benchmark):
    positions = play_positions(N, SEED)
    best = [carousel.best_play(t, h, RULES) for t, h in positions]
    with_play = [(t, p.played, h) for (t, h), p in zip(positions, best, strict=True) if p.can_meld]

    def run():
        return [carousel.play_cards(t, c, h, RULES) for t, c, h in with_play]

    plays = benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    assert [p.points_left for p in plays] == [p.points_left for p in best if p.can_meld]
    best_s = _cpu(lambda t, h: carousel.best_play(t, h, RULES), positions)
    best_play_s = _cpu(lambda t, c, h: carousel.best_play(t, h, RULES), with_play)
    play_s = _cpu(lambda t, c, h: carousel.play_cards(t, c, h, RULES), with_play)
    can_s = _cpu(lambda t, c, h: carousel.can_play_cards(t, c, h, RULES), with_play)
    mask_s = _cpu(lambda t, h: carousel.playable_cards(t, h, (), RULES), positions)
    us = lambda s, n: 1e6 * s / n  # noqa: E731
    n, m = len(positions), len(with_play)
    benchmark.extra_info.update(
        positions=n, with_a_play=m,
        best_play_us=round(us(best_s, n)), best_play_with_a_play_us=round(us(best_play_s, m)),
        play_cards_us=round(us(play_s, m)), can_play_cards_us=round(us(can_s, m)),
        playable_cards_us=round(us(mask_s, n)))
    print(f"\n{n} positions ({m} with a play), CPU per call: best_play {us(best_s, n):.0f} us "
          f"(on those with a play {us(best_play_s, m):.0f} us); play_cards of its cards "
          f"{us(play_s, m):.0f} us ({play_s / best_play_s:.2f}x best_play); can_play_cards "
          f"{us(can_s, m):.0f} us ({can_s / best_play_s:.2f}x); playable_cards (the mask) "
          f"{us(mask_s, n):.0f} us ({mask_s / best_s:.2f}x best_play)")
