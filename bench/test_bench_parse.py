"""Parse time against input length: every reader of card text is linear up to its cap
(``rummy51.cards.MAX_TEXT``, 1,000,000 characters), and a refusal quotes the input cut.

For 1,000, 10,000 and 100,000 random cards (fresh text each round), the CPU time of:

* ``cards.parse_cards`` (Rummy 51 hands, ``Hand``, ``to_codes``);
* ``carousel.table.parse_hand`` (a Carousel hand);
* ``carousel.table.parse_table`` of one meld of them (refused: not a meld);
* ``carousel.notation.split_meld_text`` (a meld move's text, every card a joker with
  its card: the slowest form);
* ``carousel play``'s ``meld`` command (``parse_meld_play`` on a dealt position:
  refused, too many cards) and the Carousel JSON door (``carousel_apply_reply``).

The rate per card is printed for each size: a linear parser keeps it flat, a quadratic
one (the audit's 69 s for ``meld`` + 40,000 cards) grows tenfold with each size.

    python -m pytest bench/test_bench_parse.py --benchmark-only -s
"""
from __future__ import annotations

import random
import time

import pytest

from rummy51.cards import card_text, parse_cards
from rummy51.carousel.notation import parse_meld_play, split_meld_text
from rummy51.carousel.rules import CarouselRules
from rummy51.carousel.table import parse_hand, parse_table
from rummy51.envs.llm import carousel_apply_reply, new_carousel_game

SIZES = (1_000, 10_000, 100_000)
RULES = CarouselRules.for_players(4)


def _text(n: int, seed: int, joker_cards: bool = False) -> str:
    rng = random.Random(seed)
    if joker_cards:
        return " ".join(f"JK({card_text(rng.randrange(52))})" for _ in range(n))
    return " ".join(card_text(rng.randrange(53)) for _ in range(n))


def _quiet(fn, text):
    try:
        fn(text)
    except ValueError as e:        # refusals are part of the work (and are one line)
        assert len(str(e)) < 400 and "\n" not in str(e)


def _door():
    s = new_carousel_game(players=4, seed=1)
    carousel_apply_reply(s, "draw")
    return s


READERS = {
    "parse_cards": (parse_cards, False),
    "parse_hand": (parse_hand, False),
    "parse_table": (lambda t: parse_table(t, RULES), False),
    "split_meld_text": (split_meld_text, True),
    "play meld": (lambda t: parse_meld_play(t, ["6S 7S 8S"], "9S JK 2C", RULES), False),
    "JSON door": (lambda t: carousel_apply_reply(_door(), "meld " + t), False),
}


@pytest.mark.parametrize("reader", list(READERS))
def test_parse_time_is_linear(benchmark, reader):
    fn, jokers = READERS[reader]
    rates = {}
    seed = [0]

    def fresh(n):
        seed[0] += 1
        return (_text(n, seed[0], jokers),), {}

    for n in SIZES:
        best = float("inf")
        for _ in range(3):
            (text,), _ = fresh(n)
            t0 = time.process_time()
            _quiet(fn, text)
            best = min(best, time.process_time() - t0)
        rates[n] = best
    benchmark.pedantic(lambda text: _quiet(fn, text), setup=lambda: fresh(SIZES[-1]), rounds=3)
    per = {n: 1e9 * s / n for n, s in rates.items()}
    benchmark.extra_info.update({f"s_{n}": round(s, 4) for n, s in rates.items()})
    benchmark.extra_info.update({f"ns_per_card_{n}": round(p) for n, p in per.items()})
    print(f"\n{reader}: " + ", ".join(f"{n:,} cards {1e3 * s:.1f} ms ({per[n]:.0f} ns/card)"
                                      for n, s in rates.items()))
    # linear: 100 times the cards take at most ~100 times the time (a loose bound: the
    # small size has fixed costs; a quadratic reader would take ~10,000 times)
    assert rates[SIZES[-1]] < 300 * max(rates[SIZES[0]], 1e-4)
