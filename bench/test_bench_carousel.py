"""Carousel solver benchmarks (pytest-benchmark). Not in the default test run.

Run:  python -m pytest bench/test_bench_carousel.py --benchmark-only -s
      (``-s`` shows the growth table of the dense positions; add --benchmark-autosave
      to track over time)

What is measured (figures in bench/README.md, section "Carousel solver"):

* realistic positions: 20,000 positions made by playing random 4-player deals of the
  default deck (2 decks, 2 jokers) in this run: ten cards each, every turn one to three
  draws, and after each draw the mover makes the best play (``carousel.best_play``)
  if there is one; every player's position (the table and their hand) is kept
  whenever the table has at most 30 cards and the hand 3 to 15. The batch
  ``best_play_values`` on them, on 1 thread and on all cores (``positions_per_s``);
* the pure-Python reference (``rummy51.carousel.reference``) on the first 1,000 of
  the same positions (``RUMMY51_REFERENCE_N`` picks another count, up to 20,000), and
  the core on those same 1,000 in the same test: the ratio;
  and the core on all 20,000 in one pass, its per-position rate against the
  reference's: ``ratio_batch``. The core keeps a thread's option cache between calls,
  so every core run starts from an empty one (``_carousel._drop_kept_cache``): no
  run is flattered by an earlier run of the same rows;
* ``carousel.best_play`` (single calls, melds rebuilt) on the first 2,000 of the same
  positions (``RUMMY51_REBUILD_N`` picks another count), with the C meld
  reconstruction (``solver._rebuild``, the default) and with the Python reference
  (``solver._rebuild_python``) in the same test: positions/s of each and the ratio;
  the two must return equal Plays;
* dense positions: the worst tables the 106 cards can make. Tables of 12 to 96 cards,
  all in melds packed into as few ranks as the cards allow (two decks give 8 cards a
  rank), both jokers on the table with declared cards, and a hand of 12 cards that
  fit (the same ranks). Every one is answered exactly (the core has no node limit;
  the test checks each answer is in range) and the time and states per position are
  reported by table size (``-s`` prints the table). The largest take a minute or
  more each, so by default 3 of each size (about 5 minutes);
  ``RUMMY51_DENSE_SIZES=12,24,36`` and ``RUMMY51_DENSE_N=10`` choose others.

Throughput goes to ``extra_info``; sanity of the results is asserted after timing,
the targets of issue 11 (>= 100,000 realistic positions/s per core, >= 1,000x the
reference) are reported, not asserted.
"""
from __future__ import annotations

import os
import time

import numpy as np
import pytest

from rummy51 import _carousel, carousel
from rummy51.cards import JOKER
from rummy51.carousel import CarouselRules, reference

CORES = os.cpu_count() or 1
RULES = CarouselRules()
N_REALISTIC = 20_000
N_REFERENCE = int(os.environ.get("RUMMY51_REFERENCE_N", "1000"))
SEED = 20261201


# --------------------------------------------------------------------------- realistic positions
def play_positions(n: int, seed: int, rules: CarouselRules = RULES):
    """``n`` positions (table as meld code lists, hand as codes) from random deals.

    4 players, 10 cards each, no discard. A turn draws a card and the mover makes the
    best play if there is one; without a play a second card, the same; then a third
    card. Kept: every player's position each time the table changes or the mover
    draws, while the table has at most 30 cards and the hand 3..15. A deal ends on a
    knock (5 points or fewer after a play), an empty stock, or past 30 table cards."""
    rng = np.random.default_rng(seed)
    out = []

    def keep(table, hand):
        size = sum(len(m) for m in table)
        if size <= 30 and 3 <= len(hand) <= 15:
            out.append(([list(m) for m in table], list(hand)))

    while len(out) < n:
        deck = [int(c) for c in rng.permutation(np.array(rules.deck()))]
        hands = [[deck.pop() for _ in range(rules.hand_size)] for _ in range(rules.players)]
        table: list = []
        player = int(rng.integers(rules.players))
        over = False
        while deck and not over:
            hand = hands[player]
            for draw in range(3):
                if not deck:
                    break
                hand.append(deck.pop())
                keep(table, hand)
                if draw == 2:
                    break
                play = carousel.best_play(table, hand, rules)
                if play.can_meld:
                    table = [m.codes() for m in play.melds]
                    for c in play.played:
                        hand.remove(c)
                    for other in hands:
                        if other is not hand:
                            keep(table, other)
                    over = play.can_knock or sum(len(m) for m in table) > 30
                    break
            player = (player + 1) % rules.players
    return out[:n]


@pytest.fixture(scope="module")
def realistic():
    t0 = time.perf_counter()
    positions = play_positions(N_REALISTIC, SEED)
    tables, hands = carousel.pack_positions([t for t, _ in positions], [h for _, h in positions])
    print(f"\n{len(positions)} realistic positions dealt and played in "
          f"{time.perf_counter() - t0:.1f} s")
    return positions, tables, hands


def _describe(tables, hands) -> dict:
    tc = (tables != 255).sum(1)
    hc = (hands != 255).sum(1)
    jokers = ((tables >= 53) & (tables < 105)).sum(1) + (hands == 52).sum(1)
    return {"table_cards_mean": round(float(tc.mean()), 1), "hand_cards_mean": round(float(hc.mean()), 1),
            "jokers_in_play": {int(j): int((jokers == j).sum()) for j in np.unique(jokers)}}


@pytest.mark.benchmark(group="carousel-realistic")
@pytest.mark.parametrize("threads", [1, CORES], ids=["1-thread", "all-threads"])
def test_realistic_batch(benchmark, realistic, threads):
    _, tables, hands = realistic
    # every round from an empty kept cache (_carousel keeps a thread's option cache
    # between calls, and making the positions filled it with these very positions): one
    # pass over 20,000 distinct positions, the cache warming only across them
    left, cards = benchmark.pedantic(carousel.best_play_values, args=(tables, hands, RULES),
                                     kwargs=dict(workers=threads), rounds=3, iterations=1,
                                     warmup_rounds=0, setup=_carousel._drop_kept_cache)
    rate = len(tables) / benchmark.stats.stats.min
    benchmark.extra_info.update(positions=len(tables), workers=threads,
                                positions_per_s=round(rate),
                                positions_per_s_per_core=round(rate / threads),
                                **_describe(tables, hands))
    points = np.array([RULES.hand_points([c for c in row if c != 255]) for row in hands])
    assert ((0 <= left) & (left <= points)).all()
    assert ((cards > 0) == (left < points)).all()  # every card is worth a point or more


@pytest.mark.benchmark(group="carousel-reference")
def test_reference_ratio(benchmark, realistic):
    """The reference and the core on the same first 1,000 realistic positions."""
    positions, tables, hands = realistic
    sub = positions[:N_REFERENCE]
    t_sub = np.ascontiguousarray(tables[:N_REFERENCE])
    h_sub = np.ascontiguousarray(hands[:N_REFERENCE])

    def run_reference():
        return [reference.best_play(t, h, RULES) for t, h in sub]

    plays = benchmark.pedantic(run_reference, rounds=1, iterations=1, warmup_rounds=0)
    ref_s = benchmark.stats.stats.min

    def cold(t, h):
        _carousel._drop_kept_cache()    # no answer kept from an earlier run of the same rows
        return _timed(carousel.best_play_values, t, h, RULES, workers=1)

    # the core on the same positions, each run from an empty cache (ratio), and on all
    # 20,000 distinct positions in one pass from an empty cache (ratio_batch: the
    # per-position rates compared; the reference's 1,000 are a sample of the same deals;
    # RUMMY51_REFERENCE_N=20000 runs the reference on all of them, about 100 s, and then
    # the two ratios are of the very same positions)
    core_s = min(cold(t_sub, h_sub) for _ in range(5))
    batch_s = min(cold(tables, hands) for _ in range(3))
    left, cards = carousel.best_play_values(t_sub, h_sub, RULES, workers=1)
    assert [(p.points_left, p.cards_played) for p in plays] == list(
        zip(left.tolist(), cards.tolist(), strict=True))
    benchmark.extra_info.update(positions=len(sub), reference_positions_per_s=round(len(sub) / ref_s, 1),
                                core_positions_per_s=round(len(sub) / core_s),
                                ratio=round(ref_s / core_s),
                                core_batch_positions_per_s=round(len(tables) / batch_s),
                                ratio_batch=round((len(tables) / batch_s) / (len(sub) / ref_s)))


N_REBUILD = int(os.environ.get("RUMMY51_REBUILD_N", "2000"))


@pytest.mark.benchmark(group="carousel-best-play")
def test_best_play_rebuild_ratio(benchmark, realistic):
    """``best_play`` one position at a time with melds: C rebuild against Python rebuild."""
    from rummy51.carousel import solver

    positions = realistic[0][:N_REBUILD]

    def run_c():
        return [carousel.best_play(t, h, RULES) for t, h in positions]

    def run_python():
        return [solver._best_play(t, h, RULES, solver._rebuild_python) for t, h in positions]

    fast = benchmark.pedantic(run_c, rounds=3, iterations=1, warmup_rounds=1)
    c_s = benchmark.stats.stats.min
    t0 = time.process_time()
    slow = run_python()
    py_s = time.process_time() - t0
    t0 = time.process_time()
    run_c()
    c_cpu = time.process_time() - t0
    assert fast == slow
    # the reconstruction alone (no parsing, no first kernel call), on the positions
    # with a play, both ways
    work = []
    core = solver._core_rules(RULES)
    for t, h in positions:
        counts = solver._counts(*solver._position(t, h, RULES))
        value = counts.value(core)
        if value > 0:
            work.append((counts, value))
    rebuild_s = {}
    for name, fn in (("c", solver._rebuild), ("python", solver._rebuild_python)):
        t0 = time.process_time()
        for counts, value in work:
            fn(counts, value, RULES, core)
        rebuild_s[name] = time.process_time() - t0
    melded = sum(p.can_meld for p in fast)
    benchmark.extra_info.update(rebuild_c_per_cpu_s=round(len(work) / rebuild_s["c"]),
                                rebuild_python_per_cpu_s=round(len(work) / rebuild_s["python"]),
                                rebuild_ratio_cpu=round(rebuild_s["python"] / rebuild_s["c"], 1))
    print(f"\nthe reconstruction alone on the {len(work)} with a play: C {len(work) / rebuild_s['c']:,.0f}"
          f"/CPU-s, Python {len(work) / rebuild_s['python']:,.0f}/CPU-s, ratio "
          f"{rebuild_s['python'] / rebuild_s['c']:.1f}")
    benchmark.extra_info.update(positions=len(positions), with_a_play=melded,
                                c_positions_per_s=round(len(positions) / c_s),
                                c_positions_per_cpu_s=round(len(positions) / c_cpu),
                                python_positions_per_cpu_s=round(len(positions) / py_s),
                                ratio_cpu=round(py_s / c_cpu, 1))
    print(f"\nbest_play on {len(positions)} realistic positions ({melded} with a play): "
          f"C rebuild {len(positions) / c_cpu:,.0f}/CPU-s, Python rebuild "
          f"{len(positions) / py_s:,.0f}/CPU-s, ratio {py_s / c_cpu:.1f}")


def _timed(fn, *args, **kwargs) -> float:
    t0 = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - t0


# --------------------------------------------------------------------------- dense positions
def _run(suit, start, length):
    return [suit * 13 + (p - 1 if p <= 13 else 0) for p in range(start, start + length)]


def dense_position(rng, table_cards: int, hand_cards: int = 12):
    """A table of about ``table_cards`` cards, all in melds packed into as few
    consecutive ranks as two decks allow (8 cards a rank), both jokers on it with
    declared cards, and a hand of cards of the same ranks (then any)."""
    width = min(13, max(3, -(-table_cards // 7)))
    low = int(rng.integers(1, 15 - width))  # positions low .. low + width - 1 (<= 14)
    ranks = sorted({(p - 1) % 13 for p in range(low, low + width)})
    left = {c: 2 for c in range(52)}
    melds = []
    size = 0
    tries = 0
    while size < table_cards and tries < 400:
        tries += 1
        if rng.random() < 0.5:
            length = int(rng.integers(3, min(6, width) + 1))
            start = int(rng.integers(low, low + width - length + 1))
            cards = _run(int(rng.integers(4)), start, length)
        else:
            rank = ranks[int(rng.integers(len(ranks)))]
            suits = sorted(rng.choice(4, size=int(rng.integers(3, 5)), replace=False).tolist())
            cards = [s * 13 + rank for s in suits]
        if any(left[c] == 0 for c in cards) or size + len(cards) > table_cards + 2:
            continue
        for c in cards:
            left[c] -= 1
        melds.append(cards)
        size += len(cards)
    # both jokers on the table, each replacing a natural (which goes back to the pool)
    slots = [(i, k) for i, m in enumerate(melds) for k in range(len(m))]
    table = [list(m) for m in melds]
    for j in rng.choice(len(slots), size=min(2, len(slots)), replace=False):
        i, k = slots[int(j)]
        if isinstance(table[i][k], list) or sum(isinstance(x, list) for x in table[i]) + 1 >= len(table[i]):
            continue
        left[table[i][k]] += 1
        table[i][k] = [JOKER, table[i][k]]
    jokers_left = 2 - sum(isinstance(x, list) for m in table for x in m)
    near = [c for c in range(52) if c % 13 in ranks for _ in range(left[c])]
    far = [c for c in range(52) if c % 13 not in ranks for _ in range(left[c])]
    rng.shuffle(near)
    rng.shuffle(far)
    hand = ([JOKER] * jokers_left + near + far)[:hand_cards]
    return table, hand


#: Table sizes of the dense positions and how many of each (the time per position
#: grows steeply: see bench/README.md); RUMMY51_DENSE_SIZES="12,24,72" picks others.
SIZES = tuple(int(x) for x in os.environ.get("RUMMY51_DENSE_SIZES",
                                             "12,24,36,48,60,72,84,96").split(","))
N_DENSE = int(os.environ.get("RUMMY51_DENSE_N", "3"))


@pytest.fixture(scope="module")
def dense():
    rng = np.random.default_rng(SEED + 1)
    out = {}
    for size in SIZES:
        positions = [dense_position(rng, size) for _ in range(N_DENSE)]
        out[size] = carousel.pack_positions([t for t, _ in positions], [h for _, h in positions])
    return out


@pytest.mark.benchmark(group="carousel-dense")
def test_dense_by_size(benchmark, dense):
    """Every dense position answered exactly (in range, none given up); time and states
    expanded per position, by table size."""
    record = []

    def solve_each():
        record.clear()
        for size in SIZES:
            t, h = dense[size]
            for i in range(len(t)):
                s0 = _carousel._py_counters()[1]
                t0 = time.perf_counter()
                left, cards = carousel.best_play_values(t[i:i + 1], h[i:i + 1], RULES, workers=1)
                record.append((size, int((t[i] != 255).sum()), time.perf_counter() - t0,
                               _carousel._py_counters()[1] - s0, int(left[0]), int(cards[0]),
                               RULES.hand_points([c for c in h[i] if c != 255])))

    benchmark.pedantic(solve_each, rounds=1, iterations=1, warmup_rounds=0)
    assert len(record) == sum(len(dense[s][0]) for s in SIZES)
    for _size, _, _, _, left, cards, points in record:
        assert 0 <= left <= points and (cards > 0) == (left < points)
    print("\ndense positions: size | table cards (mean) | ms mean | ms max | states mean | states max")
    for size in SIZES:
        rows = [r for r in record if r[0] == size]
        ms = np.array([r[2] for r in rows]) * 1e3
        states = np.array([r[3] for r in rows])
        info = {"positions": len(rows), "table_cards_mean": round(float(np.mean([r[1] for r in rows])), 1),
                "ms_mean": round(float(ms.mean()), 1), "ms_max": round(float(ms.max()), 1),
                "states_mean": round(float(states.mean())), "states_max": int(states.max())}
        benchmark.extra_info[f"table_{size}"] = info
        print(f"  {size:3d} | {info['table_cards_mean']:5.1f} | {info['ms_mean']:9.1f} | "
              f"{info['ms_max']:9.1f} | {info['states_mean']:9d} | {info['states_max']:9d}")
