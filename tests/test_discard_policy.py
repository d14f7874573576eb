"""The keep-best discard policy of the by-turn study and the hand odds, checked against a
brute-force statement of it: drop the card whose removal leaves the highest best
opening (keep 0); among equals the card worth more in hand, then the higher code; a
joker only when its removal leaves strictly more than every other card's. The choice
depends on the cards, never on their order."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import rummy51
from rummy51 import RuleSet, _core
from rummy51._catalogue import hand_value
from rummy51.cards import JOKER, card_text, to_codes
from rummy51.solver import compiled_rules


def brute(hand, rules):
    def left(c):
        rest = list(hand)
        rest.remove(c)
        return rummy51.best_opening(rest, rules, keep=0).value

    naturals = [(left(c), hand_value(c, rules), c) for c in set(hand) if c != JOKER]
    best = max(naturals) if naturals else None
    if JOKER in hand and (best is None or left(JOKER) > best[0]):
        return JOKER
    return best[2]


def core(hand, rules):
    arr = np.array(hand, np.uint8)
    return hand[_core._py_choose_discard(compiled_rules(rules), arr)]


def test_the_audit_example():
    # 4C once left 44 where the policy drops 3S and keeps 48
    hand = to_codes("2S 3S 3S 4S 2H 4H AD 2D 2D 3D 3D 4D 2C 3C 4C")
    assert card_text(brute(hand, RuleSet())) == "3S"
    assert card_text(core(hand, RuleSet())) == "3S"


def test_a_joker_outside_the_melds_is_dropped_when_nothing_else_keeps_as_much():
    hand = to_codes("7S 8S 9S 10S JS QS KS JK")
    assert core(hand, RuleSet()) == brute(hand, RuleSet())


_rules = st.sampled_from([RuleSet(), RuleSet(jokers=2), RuleSet(ace_low_value=1),
                          RuleSet(max_jokers_per_meld=2)])


@st.composite
def _hands(draw):
    rules = draw(_rules)
    deck = list(rules.deck())
    # meld-rich hands: cards from a narrow band of ranks, where ties and choices abound
    lo = draw(st.integers(0, 9))
    pool = [c for c in deck if c == JOKER or lo <= c % 13 <= lo + 4]
    n = draw(st.integers(2, 14))
    idx = draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n, unique=True))
    return rules, [int(pool[i]) for i in idx]


@settings(max_examples=300, deadline=None)
@given(_hands(), st.randoms(use_true_random=False))
def test_core_policy_equals_brute_force_in_any_order(case, rnd):
    rules, hand = case
    want = brute(hand, rules)
    assert core(hand, rules) == want, (rummy51.cards_text(hand), card_text(want))
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    assert core(shuffled, rules) == want
