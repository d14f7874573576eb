"""Generated Carousel positions for the benchmarks, seeded (the same seed, the same list).

* ``random_positions``: uniformly random positions of every size: a table of 0..60
  cards (uniform) laid as random valid melds from the shuffled decks, and a hand of
  1..15 cards dealt at random from what is left (near the table's ranks half the
  time), under the default rules (two decks, two jokers, any number a meld); each
  joker of the deck is on the table, in the hand or elsewhere at random. What
  bench/test_bench_carousel_random.py times the single calls on.
* ``hard_positions``: hard big positions: 50..100 table cards, 0..4 jokers, a
  per-meld joker limit of 1 or 2 or none, hands of 8..20, in four families (tables as a
  long game lays them; dense tables packed into a window of ranks; every joker on the
  table and hand cards that need one; tables of three-card melds). What
  bench/big_tables.py times the core against the integer program on.

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

from carousel_big import _add_jokers, big_position  # noqa: E402
from rummy51.cards import JOKER  # noqa: E402
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


def _meld(rng: random.Random, left: dict, top: int, window: tuple[int, int] | None,
          lengths=(3, 3, 4, 5, 6, 7)):
    """A random natural meld of cards in ``left`` (taken from it), inside the positions
    ``window`` when given; None after 40 tries."""
    lo, hi = window or (1, top)
    for _ in range(40):
        if rng.random() < 0.5:
            length = min(rng.choice(lengths), hi - lo + 1)
            if length < 3:
                continue
            start = rng.randint(lo, hi - length + 1)
            suit = rng.randrange(4)
            cards = [suit * 13 + (p - 1 if p <= 13 else 0) for p in range(start, start + length)]
        else:
            rank = (rng.randint(lo, hi) - 1) % 13
            size = rng.choice((3, 4) if lengths[-1] > 3 else (3,))
            cards = [s * 13 + rank for s in sorted(rng.sample(range(4), size))]
        if all(left[c] >= cards.count(c) for c in cards):
            for c in cards:
                left[c] -= 1
            return cards
    return None


def _fits(c: int, have: list[int], jokers: int, top: int) -> bool:
    """Whether card ``c`` fits some meld with the cards ``have`` and ``jokers`` jokers:
    a set of its rank, or three consecutive positions of its suit (the core's cut)."""
    s, r = c // 13, c % 13
    if sum(1 for s2 in range(4) if s2 != s and have[s2 * 13 + r] > 0) + jokers >= 2:
        return True
    for q in [r + 1] + ([14] if r == 0 and top == 14 else []):
        for a in range(q - 2, q + 1):
            if 1 <= a and a + 2 <= top and sum(
                    1 for x in range(a, a + 3)
                    if x != q and have[s * 13 + (x - 1 if x <= 13 else 0)] == 0) <= jokers:
                return True
    return False


def hard_position(rng: random.Random, family: int):
    """``(table, hand, rules)``: one hard big position of a family (see ``hard_positions``)."""
    rules = hard_rules(rng)
    if family == 0:
        table, hand = big_position(rng, rules, rng.randint(50, 100), rng.randint(8, 20),
                                   goes_out=rng.random() < 0.5)
        return table, hand, rules
    if family == 2 and rules.jokers < 2:
        rules = CarouselRules(decks=2, jokers=rng.randint(2, 4), max_jokers_per_meld=rng.choice((1, 2)))
    top = 14 if rules.ace_high else 13
    left = {c: rules.decks for c in range(52)}
    target = rng.randint(50, 100)
    window = None
    if family == 1:
        width = min(top, max(7, -(-target // 7)))
        low = rng.randint(1, top - width + 1)
        window = (low, low + width - 1)
    lengths = (3,) if family == 3 else (3, 3, 4, 5, 6, 7)
    table: list[list] = []
    size = tries = 0
    while size < target and tries < 600:
        tries += 1
        m = _meld(rng, left, top, window, lengths)
        if m is None:
            continue
        if size + len(m) > target + 3:
            for c in m:
                left[c] += 1
            continue
        table.append(m)
        size += len(m)
    on_table = rules.jokers if family == 2 else rng.randint(0, rules.jokers)
    placed = _add_jokers(rng, table, on_table, rules.max_jokers_per_meld, True)
    in_hand = rules.jokers - placed if family != 2 else 0
    in_hand = rng.randint(0, in_hand)
    have = [0] * 52
    for m in table:
        for c in m:
            if not isinstance(c, list):
                have[c] += 1
    pool = [c for c in range(52) for _ in range(left[c])]
    rng.shuffle(pool)
    n = rng.randint(8, 20) - in_hand
    limit = rules.jokers if rules.max_jokers_per_meld is None else min(rules.jokers,
                                                                       rules.max_jokers_per_meld)
    if family == 2:
        # cards that fit a meld only with a joker's help (the table holds every joker)
        needy = [c for c in pool if not _fits(c, have, 0, top) and _fits(c, have, limit, top)]
        k = min(len(needy), rng.randint(1, 4))
        rest = [c for c in pool if c not in needy[:k]]
        hand = needy[:k] + rest[:max(0, n - k)]
    elif family == 1:
        near = [c for c in pool if window[0] <= c % 13 + 1 <= window[1] or (c % 13 == 0 and window[1] == 14)]
        far = [c for c in pool if c not in near]
        hand = (near + far)[:max(0, n)]
    else:
        hand = pool[:max(0, n)]
    return table, sorted(hand + [JOKER] * in_hand), rules


def hard_positions(n: int, seed: int):
    """``n`` ``(table, hand, rules)`` hard big positions, four families cycled: (0) tables
    laid as a long game lays them, hands that go out or not (tests/carousel_big.py);
    (1) dense: the table packed into a window of consecutive ranks, the hand from those
    ranks first; (2) every joker on the table, at most 1 or 2 a meld, and hand cards that
    fit only with a joker's help; (3) tables of three-card melds only (no card to spare).
    50..100 table cards, 0..4 jokers, hands of 8..20 (fewer only if the deck runs out)."""
    rng = random.Random(seed)
    return [hard_position(rng, i % 4) for i in range(n)]


def as_text(table, hand, rules: CarouselRules = DEFAULT) -> tuple[list[str], str]:
    """The position as meld texts and a hand text (``6S 7S JK(8S)``, ``5S 9S JK``)."""
    from rummy51.cards import cards_text
    from rummy51.carousel.table import parse_table, table_text
    return (table_text(parse_table(table, rules)).split(" | ") if table else [], cards_text(hand))
