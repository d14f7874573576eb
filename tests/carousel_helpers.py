"""Helpers of the Carousel tests: an independent legality check of a play, rules from
a case's ``rules`` field, and random positions dealt as tables of valid melds.

``check_play`` is written from RULES-carousel.md sections 2 and 4 alone (it does not
use the package's meld code)."""
from __future__ import annotations

import itertools
import random
from collections import Counter

from rummy51.cards import JOKER, card_text, cards_text
from rummy51.carousel import CarouselRules

RULE_KEYS = ("decks", "jokers", "ace_high", "max_jokers_per_meld")


def case_rules(case: dict) -> CarouselRules:
    r = case["rules"]
    return CarouselRules(players=2 if r["decks"] == 1 else 4, decks=r["decks"], jokers=r["jokers"],
                         ace_high=r["ace_high"], max_jokers_per_meld=r["max_jokers_per_meld"])


def is_meld(represents, ace_high: bool) -> bool:
    """3-4 cards of one rank in different suits, or 3+ of one suit on consecutive
    positions A=1 or 14 (14 only with ace_high), 2..K = 2..13."""
    reps = list(represents)
    if len(reps) < 3 or any(not 0 <= c < 52 for c in reps):
        return False
    if len({c % 13 for c in reps}) == 1:
        return len(reps) <= 4 and len({c // 13 for c in reps}) == len(reps)
    if len({c // 13 for c in reps}) != 1:
        return False
    choices = [((1, 14) if ace_high else (1,)) if c % 13 == 0 else (c % 13 + 1,) for c in reps]
    for pos in itertools.product(*choices):
        ordered = sorted(pos)
        if ordered == list(range(ordered[0], ordered[0] + len(ordered))):
            return True
    return False


def describe(table, hand, rules) -> str:
    t = " | ".join(table) if isinstance(table, list) and all(isinstance(m, str) for m in table) else str(table)
    h = hand if isinstance(hand, str) else cards_text(hand)
    diff = {k: getattr(rules, k) for k in RULE_KEYS}
    return f"table [{t}] hand [{h}] {diff}"


def check_play(table_melds, hand_codes, play, rules: CarouselRules, where: str = "") -> None:
    """Assert ``play`` is a legal play of the position reaching its own figures.

    ``table_melds``: the original table as ``TableMeld`` objects (cards, represents)."""
    hand = Counter(hand_codes)
    played = Counter(play.played)
    assert not played - hand, ("played cards not in the hand", play.played, where)
    assert play.cards_played == len(play.played), where
    total = sum(rules.card_value(c) for c in hand_codes)
    assert play.points_left == total - sum(rules.card_value(c) for c in play.played), where
    assert play.can_knock == (play.points_left <= rules.knock_limit), where
    assert play.can_meld == (play.cards_played > 0), where
    if not play.can_meld:
        return
    before = Counter(c for m in table_melds for c in m.cards)
    after = Counter(c for m in play.melds for c in m.cards)
    assert after == before + played, ("table cards lost or cards from nowhere", where)
    final_nat = Counter()
    joker_slots = Counter()
    for m in play.melds:
        assert len(m.cards) == len(m.represents), where
        nat = [c for c in m.cards if c != JOKER]
        jk = len(m.cards) - len(nat)
        assert nat, ("a meld with no natural", m.text(), where)
        if rules.max_jokers_per_meld is not None:
            assert jk <= rules.max_jokers_per_meld, (m.text(), where)
        for c, r in zip(m.cards, m.represents):
            if c != JOKER:
                assert c == r, (m.text(), where)
                final_nat[c] += 1
            else:
                assert 0 <= r < 52, (m.text(), where)
                assert f"JK({card_text(r)})" in m.text(), (m.text(), where)
                joker_slots[r] += 1
        assert is_meld(m.represents, rules.ace_high), ("not a meld", m.text(), where)
    declared = Counter(r for m in table_melds for c, r in zip(m.cards, m.represents) if c == JOKER)
    for d, t in declared.items():
        replaced = t - min(t, joker_slots[d])
        assert replaced <= final_nat[d], ("a table joker lost its card", card_text(d), where)


# --------------------------------------------------------------------------- random positions
def _run_cards(suit: int, start: int, length: int):
    return [suit * 13 + ((p - 1) if p <= 13 else 0) for p in range(start, start + length)]


def deal_position(rng: random.Random, rules: CarouselRules, n_melds: int, hand_size: int,
                  window: int | None = None, joker_rate: float = 0.3):
    """A random table of ``n_melds`` valid melds (some jokers, declared) and a hand,
    dealt from one deck of ``rules`` (so counts are always legal). With ``window`` the
    melds and hand come from a few ranks (melds overlap and compete)."""
    deck = Counter({c: rules.decks for c in range(52)})
    jokers = rules.jokers
    top = 14 if rules.ace_high else 13
    low = rng.randrange(1, 14)
    ranks_ok = None
    if window:
        ranks_ok = {((low - 1 + k) % 13) for k in range(window)}
    melds = []
    tries = 0
    limit = rules.max_jokers_per_meld
    while len(melds) < n_melds and tries < 60:
        tries += 1
        if rng.random() < 0.5:
            length = rng.choice((3, 3, 4, 5, 6))
            start = rng.randrange(1, top - length + 2)
            cards = _run_cards(rng.randrange(4), start, length)
        else:
            rank = rng.randrange(13) if ranks_ok is None else rng.choice(sorted(ranks_ok))
            suits = rng.sample(range(4), rng.choice((3, 3, 4)))
            cards = [s * 13 + rank for s in suits]
        if ranks_ok is not None and any(c % 13 not in ranks_ok for c in cards):
            continue
        slots = []
        nj = 0
        for c in cards:
            if jokers - nj > 0 and rng.random() < joker_rate and (limit is None or nj < limit) \
                    and nj < len(cards) - 1:
                slots.append((JOKER, c))
                nj += 1
            else:
                slots.append((c, c))
        need = Counter(c for c, _ in slots if c != JOKER)
        if any(deck[c] < k for c, k in need.items()):
            continue
        deck -= need
        jokers -= nj
        melds.append([card_text(c) if c != JOKER else f"JK({card_text(r)})" for c, r in slots])
    pool = list(deck.elements()) + [JOKER] * jokers
    if ranks_ok is not None:
        near = [c for c in pool if c == JOKER or c % 13 in ranks_ok]
        far = [c for c in pool if c != JOKER and c % 13 not in ranks_ok]
        k = min(hand_size, len(near))
        hand = rng.sample(near, k) + rng.sample(far, min(len(far), rng.randrange(0, 2)))
    else:
        hand = rng.sample(pool, min(hand_size, len(pool)))
    return [" ".join(m) for m in melds], sorted(hand)
