"""Generated Carousel positions for the benchmarks, seeded (the same seed, the same list).

* ``random_positions``: uniformly random positions of every size: a table of 0..60
  cards (uniform) laid as random valid melds from the shuffled decks, and a hand of
  1..15 cards dealt at random from what is left (near the table's ranks half the
  time), under the default rules (two decks, two jokers, any number a meld); each
  joker of the deck is on the table, in the hand or elsewhere at random. What
  bench/test_bench_carousel_random.py times the single calls on.
* ``hard_positions``: hard big positions: 50..100 table cards, 0..4 jokers, a
  per-meld joker limit of 1 or 2 or none, hands of 8..20 that go out half the time
  (the hand made of melds) and otherwise are dealt near the table's ranks or at random.
  What bench/big_tables.py times the core against the integer program on.

Both build on tests/carousel_big.py's ``big_position`` (the way a long game lays a
table), imported by path. Tables are meld code lists (a table joker ``[52, declared]``),
hands code lists; ``as_text`` turns a position into the meld texts and hand text a
person or a bot passes.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from carousel_big import big_position  # noqa: E402
from rummy51.carousel import CarouselRules  # noqa: E402

DEFAULT = CarouselRules()


def random_positions(n: int, seed: int, rules: CarouselRules = DEFAULT,
                     table_cards: tuple[int, int] = (0, 60), hand_cards: tuple[int, int] = (1, 15)):
    """``n`` ``(table, hand)`` positions: table size uniform in ``table_cards``, hand size
    uniform in ``hand_cards`` (fewer only if the deck runs out), a random hand."""
    rng = random.Random(seed)
    return [big_position(rng, rules, rng.randint(*table_cards), rng.randint(*hand_cards), goes_out=False)
            for _ in range(n)]


def hard_rules(rng: random.Random) -> CarouselRules:
    """Two decks, 0..4 jokers, at most 1 or 2 jokers a meld or any number (uniform)."""
    return CarouselRules(decks=2, jokers=rng.randint(0, 4), max_jokers_per_meld=rng.choice((None, 1, 2)))


def hard_positions(n: int, seed: int):
    """``n`` ``(table, hand, rules)`` hard big positions (see the module docstring)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        rules = hard_rules(rng)
        table, hand = big_position(rng, rules, rng.randint(50, 100), rng.randint(8, 20),
                                   goes_out=rng.random() < 0.5)
        out.append((table, hand, rules))
    return out


def as_text(table, hand, rules: CarouselRules = DEFAULT) -> tuple[list[str], str]:
    """The position as meld texts and a hand text (``6S 7S JK(8S)``, ``5S 9S JK``)."""
    from rummy51.cards import cards_text
    from rummy51.carousel.table import parse_table, table_text
    return (table_text(parse_table(table, rules)).split(" | ") if table else [], cards_text(hand))
