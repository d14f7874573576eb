"""Big Carousel positions (issue 31): tables of 50-100 cards, 0-4 jokers, hands of 8-20.

A position is made the way a long game makes one: the two decks (and 0-4 jokers) are
shuffled, melds are laid from them until the table holds the cards asked for, and the
hand is dealt from what is left. With ``goes_out`` the hand is itself made of melds
(each one valid, any joker in it a hand joker), so the whole hand can be placed; else
the hand is drawn from the rest at random (near the table's ranks half the time), so
most hands cannot go out. Used by tests/test_carousel_big.py and
bench/test_bench_carousel_big.py (both import it by path).

Tables are meld code lists (a table joker ``[52, declared]``), hands code lists."""
from __future__ import annotations

import random

from rummy51.cards import JOKER
from rummy51.carousel import CarouselRules


def big_rules(jokers: int, one_per_meld: bool) -> CarouselRules:
    return CarouselRules(decks=2, jokers=jokers, max_jokers_per_meld=1 if one_per_meld else None)


def _run(suit: int, start: int, length: int) -> list[int]:
    return [suit * 13 + (p - 1 if p <= 13 else 0) for p in range(start, start + length)]


def _meld_from(rng: random.Random, left: dict, top: int, near: list[int] | None = None):
    """A random valid meld (natural cards) all of whose cards are in ``left``, or None."""
    for _ in range(40):
        if rng.random() < 0.5:
            length = rng.choice((3, 3, 4, 5, 6, 7))
            start = rng.randrange(1, top - length + 2)
            cards = _run(rng.randrange(4), start, length)
        else:
            rank = rng.randrange(13) if not near else rng.choice(near) % 13
            cards = [s * 13 + rank for s in sorted(rng.sample(range(4), rng.choice((3, 4))))]
        if all(left[c] >= cards.count(c) for c in cards):
            for c in cards:
                left[c] -= 1
            return cards
    return None


def _add_jokers(rng, melds, n, limit, as_table: bool):
    """Put up to ``n`` jokers into ``melds`` in place of naturals (the natural goes back
    to no one: it is simply not in the position). Returns how many were placed."""
    placed = 0
    slots = [(i, k) for i, m in enumerate(melds) for k in range(len(m))]
    rng.shuffle(slots)
    for i, k in slots:
        if placed == n:
            break
        m = melds[i]
        jokers = sum(1 for x in m if isinstance(x, list) or x == JOKER)
        if isinstance(m[k], list) or m[k] == JOKER:
            continue
        if jokers + 1 >= len(m) or (limit is not None and jokers + 1 > limit):
            continue
        m[k] = [JOKER, m[k]] if as_table else JOKER
        placed += 1
    return placed


def big_position(rng: random.Random, rules: CarouselRules, table_cards: int, hand_cards: int,
                 goes_out: bool):
    """``(table, hand)``: a table of about ``table_cards`` cards in valid melds (table
    jokers declared), a hand of ``hand_cards`` cards (fewer only if the deck runs out)."""
    top = 14 if rules.ace_high else 13
    left = {c: rules.decks for c in range(52)}
    jokers = rules.jokers
    table: list[list] = []
    size = 0
    tries = 0
    while size < table_cards and tries < 500:
        tries += 1
        m = _meld_from(rng, left, top)
        if m is None:
            continue
        if size + len(m) > table_cards + 3:
            for c in m:
                left[c] += 1
            continue
        table.append(m)
        size += len(m)
    table_jokers = rng.randint(0, jokers)
    table_jokers = _add_jokers(rng, table, table_jokers, rules.max_jokers_per_meld, True)
    hand_jokers = rng.randint(0, jokers - table_jokers)
    hand: list[int] = []
    if goes_out:
        # the hand: melds of the cards left (near the table's ranks when a set)
        melds: list[list] = []
        near = [c for m in table for c in m if not isinstance(c, list)]
        while len(hand) < hand_cards:
            m = _meld_from(rng, left, top, near)
            if m is None:
                break
            melds.append(m)
            hand.extend(m)
        placed = _add_jokers(rng, melds, hand_jokers, rules.max_jokers_per_meld, False)
        hand = [c for m in melds for c in m]
        if len(hand) > hand_cards + 2:
            hand = [c for m in melds[:-1] for c in m] or hand
        del placed
    if not hand:
        goes_out = False
    if not goes_out:
        pool = [c for c in range(52) for _ in range(left[c])]
        rng.shuffle(pool)
        if rng.random() < 0.5:
            ranks = {c % 13 for m in table for c in m if not isinstance(c, list)}
            pool.sort(key=lambda c: c % 13 not in ranks)
            pool = pool[:3 * hand_cards]
            rng.shuffle(pool)
        hand = pool[:max(0, hand_cards - hand_jokers)] + [JOKER] * hand_jokers
    return table, sorted(hand)


def big_positions(n: int, seed: int):
    """``n`` ``(table, hand, rules)`` big positions: 50-100 table cards, 0-4 jokers,
    hands of 8-20, with and without one joker per meld, going out and not (cycled)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        rules = big_rules(rng.randint(0, 4), bool(i % 2))
        table, hand = big_position(rng, rules, rng.randint(50, 100), rng.randint(8, 20),
                                   goes_out=bool((i // 2) % 2))
        out.append((table, hand, rules))
    return out


def full_naturals_positions():
    """Positions holding the whole two-deck set of naturals (104 cards), default rules
    (2 decks, 2 jokers): all of them on the table as the eight runs A..K, the hand one
    or two jokers; the same table with two of its cards replaced by declared jokers,
    the hand those two cards; and the table less a few cards, the hand those cards.
    ``best_play`` gave up on the ones with two jokers before issue 31."""
    rules = CarouselRules(decks=2, jokers=2)
    full = [_run(s, 1, 13) for s in range(4)] * 2
    out = [(full, [JOKER], rules), (full, [JOKER, JOKER], rules)]
    t = [list(m) for m in full]
    t[0][0] = [JOKER, 0]
    t[1][5] = [JOKER, 18]
    out.append((t, [0, 18], rules))
    t = [list(m) for m in full]
    t[4] = _run(0, 4, 10)          # A, 2, 3 of spades (second copy) in the hand
    out.append((t, [0, 1, 2], rules))
    out.append((t, [0, 1, 2, JOKER], rules))
    return out
