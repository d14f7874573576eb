"""The Carousel core's grouped layers (issue 16's speed work) against the reference and
against the same core without them.

Where some suit's ace may stand high, the program carries each state's aces from
position 1 to position 14, so the layers between hold many states that differ only
in those fields; their successors are the same. The core then makes them once a
group (a group's first state records them, every state of the group puts them in
the next layer, in the layer's order) and looks for dominating states once a group.
Neither changes an answer or a play:

* ``test_ace_positions_match``: positions whose melds crowd both ends of the ace
  (ranks A-4 and J-A) in several suits, so aces are contested between low runs, high
  runs and sets: the core against the reference (``compare``: the same figures, both
  plays legal), under rules drawn as in the other property tests but with the ace
  high;
* ``test_grouped_equals_plain_on_game_positions``: every meld question of four whole
  greedy games (to 150; tables up to 70 cards: the positions that made the grouped
  layers worth having), under five rule sets, solved with the grouped layers and without
  (``_carousel._set_grouping``): the same value and the very same play (the table
  after it, as counts).
"""
from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from carousel_helpers import DrawChoices, RandomChoices, random_meld, random_rules
from rummy51 import _carousel
from rummy51.cards import JOKER, card_text
from rummy51.carousel import CarouselRules
from rummy51.carousel.actions import Phase
from rummy51.carousel.bots import GreedyBot
from rummy51.carousel.engine import GameState
from rummy51.carousel.solver import _core_rules, _counts, _position
from test_carousel_properties import PER_EXAMPLE, SETTINGS, run


@pytest.fixture(autouse=True)
def grouping_on():
    """Every test starts and ends with the grouped layers on (the default)."""
    _carousel._set_grouping(True)
    yield
    _carousel._set_grouping(True)


# --------------------------------------------------------------------------- against the reference
def ace_position(pick, rules: CarouselRules):
    """``(table, hand)`` dealt from one deck of ``rules``: 2..6 melds from the low end
    (A-4) or the high end (J-A), any suits, jokers among them, and 1..7 hand cards of
    those ranks, aces first among the candidates."""
    deck = {c: rules.decks for c in range(52)}
    jokers = rules.jokers
    melds = []
    for _ in range(pick.int(2, 6)):
        m = random_meld(pick, rules, (1, 4) if pick.int(0, 1) else (11, 14))
        need: dict[int, int] = {}
        for c, _ in m:
            if c != JOKER:
                need[c] = need.get(c, 0) + 1
        nj = sum(1 for c, _ in m if c == JOKER)
        if nj > jokers or any(deck[c] < k for c, k in need.items()):
            continue
        for c, k in need.items():
            deck[c] -= k
        jokers -= nj
        melds.append(m)
    ranks = (0, 1, 2, 3, 10, 11, 12)     # A 2 3 4 J Q K
    cands = [s * 13 + r for r in ranks for s in range(4) for _ in range(deck[s * 13 + r])]
    cands += [JOKER] * jokers
    hand = [cands[i] for i in pick.subset(len(cands), 1, min(7, len(cands)))] if cands else []
    table = [" ".join(f"JK({card_text(r)})" if c == JOKER else card_text(c) for c, r in m)
             for m in melds]
    return table, sorted(hand)


@st.composite
def ace_batch(draw):
    rules = dataclasses.replace(random_rules(DrawChoices(draw)), ace_high=True)
    rng = random.Random(draw(st.integers(0, 2**64 - 1)))
    pick = RandomChoices(rng)
    return rules, [ace_position(pick, rules) for _ in range(PER_EXAMPLE)]


def test_ace_positions_match():
    assert run(ace_batch(), 150) >= 1500


# --------------------------------------------------------------------------- grouped or not
RULE_SETS = {
    "4 players": CarouselRules.for_players(4),
    "3 players": CarouselRules.for_players(3),
    "2 players (one deck)": CarouselRules.for_players(2),
    "4 jokers (runs carry a natural)": dataclasses.replace(CarouselRules.for_players(4), jokers=4),
    "one joker a meld (runs carry jokers)": dataclasses.replace(CarouselRules.for_players(4),
                                                                max_jokers_per_meld=1),
}


def game_positions(rules: CarouselRules, seed: int) -> list[tuple]:
    """The counts of every meld question of one greedy game (Python engine)."""
    s = GameState.new(rules, players=rules.players, seed=seed)
    bot = GreedyBot()
    out = []
    while s.phase is not Phase.OVER:
        view = s.view(s.current)
        if view.phase in (Phase.MELD, Phase.NO_DRAW):
            melds, codes = _position(list(view.table), list(view.hand), rules)
            st_ = _counts(melds, codes)
            out.append((bytes(st_.T), bytes(st_.H), bytes(st_.D), st_.JT, st_.JH))
        s.apply(bot.choose(view))
    return out


def solve_both(core, pos) -> tuple:
    return _carousel.play_counts(core, *pos), _carousel.solve_counts(core, *pos)


def compare_grouped(rules: CarouselRules, seed: int) -> tuple[int, int]:
    """Solve every meld question of the game ``seed`` with and without the grouped
    layers; ``(positions, largest table)``."""
    core = _core_rules(rules)
    positions = game_positions(rules, seed)
    _carousel._set_grouping(True)
    grouped = [solve_both(core, p) for p in positions]
    _carousel._set_grouping(False)
    plain = [solve_both(core, p) for p in positions]
    _carousel._set_grouping(True)
    for p, g, q in zip(positions, grouped, plain, strict=True):
        assert g == q, (rules, seed, p)
    return len(positions), max(sum(t) + sum(d) + jt for t, _, d, jt, _ in positions)


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_grouped_equals_plain_on_game_positions(name):
    """Two fixed games (checked to reach large tables) and two drawn by hypothesis."""
    rules = RULE_SETS[name]
    sizes = [compare_grouped(rules, seed) for seed in (1, 2)]
    assert sum(n for n, _ in sizes) >= 100
    assert max(b for _, b in sizes) >= 40

    @settings(max_examples=2, **SETTINGS)
    @given(st.integers(0, 2**32 - 1))
    def check(seed):
        note(f"{name}, seed {seed}")
        compare_grouped(rules, seed)

    check()
