"""Carousel solver: ``memory_limit`` (bytes the solver may hold in one call).

Every allocation of the Carousel extension is counted (``_carousel_memory.pxi``); a limit
makes the allocations past it fail as an exhausted memory does. What must hold, for any
position and any limit: the call answers exactly what it answers without the limit (a
legal play reaching the same figures), or raises ``GaveUp`` naming ``memory_limit``; a
batch row holds the exact figures or -2 / -6. Nothing in between: never a wrong answer,
never a crash. And the limit is real: the process's resident set does not grow past it
(checked in a fresh interpreter, its peak reset first, on a position whose call holds
69 MB, 56 MB of it resident, without a limit).
"""
from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

from carousel_big import big_position
from carousel_helpers import check_play
from rummy51 import _carousel, carousel
from rummy51.carousel import CarouselRules, GaveUp
from rummy51.carousel.table import parse_hand, parse_table

LIMITS = (1 << 12, 1 << 15, 1 << 17, 1 << 19, 1 << 21)


def _positions(seed: int, n: int):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        rules = CarouselRules(decks=2, jokers=rng.randint(0, 4),
                              max_jokers_per_meld=rng.choice((None, 1, 2)))
        table, hand = big_position(rng, rules, rng.randint(0, 70), rng.randint(1, 16),
                                   goes_out=rng.random() < 0.3)
        out.append((table, hand, rules))
    return out


def _figures(play):
    return play.points_left, play.cards_played, play.can_meld


@pytest.mark.parametrize("seed", [0, 1])
def test_a_limited_call_answers_exactly_or_names_the_limit(seed):
    gave_up = answered = 0
    for table, hand, rules in _positions(seed, 40):
        exact = carousel.best_play(table, hand, rules)
        most = carousel.max_cards_played(table, hand, rules)
        some = carousel.can_meld(table, hand, rules)
        for limit in LIMITS:
            try:
                play = carousel.best_play(table, hand, rules, memory_limit=limit)
            except GaveUp as e:
                assert f"memory_limit={limit} bytes" in str(e)
                gave_up += 1
            else:
                assert _figures(play) == _figures(exact)
                check_play(parse_table(table, rules), parse_hand(hand), play, rules)
                answered += 1
            for call, want in ((carousel.max_cards_played, most), (carousel.can_meld, some)):
                try:
                    got = call(table, hand, rules, memory_limit=limit)
                except GaveUp as e:
                    assert f"memory_limit={limit} bytes" in str(e)
                else:
                    assert got == want, call.__name__
    # the limits above reach both ends: some calls give up, most answer
    assert gave_up > 0 and answered > 0


def test_batch_rows_are_exact_or_name_the_limit():
    made = _positions(7, 60)
    rules = CarouselRules(decks=2, jokers=4)
    made = [(t, h) for t, h, r in made if r.max_jokers_per_meld is None]
    tables, hands = carousel.pack_positions([t for t, _ in made], [h for _, h in made], rules)
    left, cards = carousel.best_play_values(tables, hands, rules, workers=1)
    for limit in LIMITS:
        got_left, got_cards = carousel.best_play_values(tables, hands, rules, workers=1,
                                                        memory_limit=limit)
        gave = got_left == -2
        assert np.all(got_cards[gave] == -6)
        assert np.array_equal(got_left[~gave], left[~gave])
        assert np.array_equal(got_cards[~gave], cards[~gave])
    got = carousel.max_cards_played_counts(tables, hands, rules, workers=1, memory_limit=1 << 12)
    assert np.all((got == -6) | (got >= 0))
    pts = carousel.best_play_points(tables, hands, rules, workers=1, memory_limit=1 << 30)
    assert np.array_equal(pts, left)


def test_the_count_of_held_bytes_stays_within_the_limit():
    # the module's own count: what a call held at its most beyond its start
    for table, hand, rules in _positions(3, 20):
        for limit in LIMITS:
            saved = _carousel.memory_limit_begin(limit)
            try:
                _ = carousel.best_play(table, hand, rules).melds
            except (GaveUp, MemoryError):
                pass
            finally:
                peak, _hit = _carousel.memory_limit_end(saved)
            assert 0 <= peak <= limit
    # and every block given back: a call leaves the held bytes where they were (the
    # thread's kept caches aside, which the first call of a kind makes)
    table, hand, rules = _positions(3, 1)[0]
    _ = carousel.best_play(table, hand, rules).melds
    before = _carousel.memory_held()
    for _ in range(3):
        _ = carousel.best_play(table, hand, rules).melds
    assert _carousel.memory_held() == before


@pytest.mark.parametrize("bad, kind, words", [
    (0, ValueError, "memory_limit must be positive (bytes the search may hold), got 0"),
    (-5, ValueError, "got -5"),
    (True, TypeError, "memory_limit must be an int (bytes) or None, got bool"),
    (1.5, TypeError, "got float"),
    ("64MB", TypeError, "got str"),
])
def test_bad_limits_are_refused_in_one_line(bad, kind, words):
    for call in (lambda: carousel.best_play(["6S 7S 8S"], "9S", memory_limit=bad),
                 lambda: carousel.max_cards_played(["6S 7S 8S"], "9S", memory_limit=bad),
                 lambda: carousel.can_meld(["6S 7S 8S"], "9S", memory_limit=bad),
                 lambda: carousel.best_play_values([["6S 7S 8S"]], ["9S"], memory_limit=bad)):
        with pytest.raises(kind) as e:
            call()
        assert words in str(e.value) and "\n" not in str(e.value)


def test_numpy_integer_limit_is_taken():
    play = carousel.best_play(["6S 7S 8S"], "9S", memory_limit=np.int64(1 << 20))
    assert play.cards_played == 1


# --------------------------------------------------------------------------- resident set
# bench/carousel_positions.hard_positions(40, 39)[37]: 63 table cards, 18 in hand, two decks
# and two jokers; 69 MB of the solver's memory without a limit (about 56 MB of it resident)
BIG_TABLE = ("9S 9H 9D 9C | 2S 3S 4S 5S 6S 7S 8S | 4S 5S 6S 7S | 9S 9D 9C | 3S 3H 3C | "
             "6D 7D 8D | 8S 8D 8C | 4H 5H 6H 7H 8H | 2H 3H 4H 5H 6H 7H 8H | 2S 2H 2D 2C | "
             "AD 2D 3D 4D 5D 6D 7D | 2C 3C 4C 5C 6C 7C | AS AH AD AC | 6C 7C 8C")
BIG_HAND = "AS QS KS AH 9H QH 3D 4D 5D QD QD AC 4C 5C 10C JC KC JK"
BIG_RULES = CarouselRules(decks=2, jokers=2)

# run in a fresh interpreter (a forked child would reuse the parent's freed heap, and its
# resident set would not show what the call took): how far the resident set's peak rose
# over the call (MB; the peak reset first through /proc/self/clear_refs, so an earlier
# peak of the interpreter's own cannot hide it), then what it answered
_CHILD = """
from rummy51 import carousel
from rummy51.carousel import CarouselRules, GaveUp

def status(key):   # kB
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))

_ = carousel.best_play(["6S 7S 8S"], "9S").melds        # the kept caches made
try:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")                                    # the peak (VmHWM) from now on
except OSError:
    raise SystemExit(3)                                 # no way to reset it here
base = status("VmRSS")
try:
    p = carousel.best_play({table!r}, {hand!r}, CarouselRules(decks=2, jokers=2),
                           memory_limit={limit!r})
    got = repr((p.points_left, p.cards_played, p.can_meld))
except GaveUp as e:
    got = str(e)
print((status("VmHWM") - base) / 1024.0)
print(got)
"""


def _in_child(limit):
    code = _CHILD.format(table=BIG_TABLE, hand=BIG_HAND, limit=limit)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    if done.returncode == 3:
        pytest.skip("this system does not let a process reset its peak resident set")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    return float(out[0]), out[1]


@pytest.mark.skipif(sys.platform != "linux", reason="reads Linux's /proc/self/status")
def test_the_resident_set_does_not_grow_past_the_limit():
    free_mb, exact = _in_child(None)
    assert free_mb > 40, "the position no longer needs much memory: pick a bigger one"
    limit = 16 << 20
    grown, got = _in_child(limit)
    assert got == f"gave up: the search needed more than memory_limit={limit} bytes (16 MiB)"
    assert grown <= 16 + 4        # the limit, and a little of Python's own
    grown, got = _in_child(256 << 20)
    assert got == exact


def test_can_meld_takes_the_node_and_time_limits_too():
    table, hand, rules = BIG_TABLE, BIG_HAND, BIG_RULES
    assert carousel.can_meld(table, hand, rules, node_limit=10**9, time_limit=60)
    # a play seen on the table as laid needs no state at all: it answers within any limit
    assert carousel.can_meld(table, hand, rules, node_limit=1)
    # one that only a rearrangement makes (3-4-5 and 4-5-6) is the program's
    assert carousel.can_meld(["3H 4H 5H 6H"], "4H 5H", rules, node_limit=10**9)
    with pytest.raises(GaveUp, match=r"node_limit=1 states"):
        carousel.can_meld(["3H 4H 5H 6H"], "4H 5H", rules, node_limit=1)
    with pytest.raises(ValueError, match="time_limit must be a positive finite number"):
        carousel.can_meld(table, hand, rules, time_limit=-1)
