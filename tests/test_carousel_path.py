"""``_carousel.play_counts``: the best play read off the dynamic program's own path.

``best_play`` and the game kernel take the table after the play from the program's
path (the hand cards it placed and the card each joker stands for), not from a meld
by meld reconstruction that asks the program again for every meld. Checked here on
the hypothesis positions of test_carousel_properties: the value is the core's
(``solve_counts``), the counts are a play of the position (every table card kept,
hand cards and jokers from the hand, the value made of exactly those cards), and
``best_play``'s melds (``solver._rebuild_path``) hold exactly those counts. Their
legality is checked in test_carousel_rebuild.py (``check_play``)."""
from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, note, settings

from carousel_helpers import describe
from rummy51 import _carousel
from rummy51.cards import JOKER
from rummy51.carousel import solver
from test_carousel_properties import SETTINGS, seeded_batch, table_joker_batch

VALMUL = 256


def _check(rules, positions) -> int:
    played = 0
    for table, hand in positions:
        where = describe(table, hand, rules)
        melds, codes = solver._position(table, hand, rules)
        st = solver._counts(melds, codes)
        core = solver._core_rules(rules)
        value = st.value(core)
        got, nT, nD, nJT = _carousel.play_counts(core, bytes(st.T), bytes(st.H), bytes(st.D),
                                                 st.JT, st.JH)
        assert got == value, where
        if value <= 0:
            assert nT is None and nD is None and nJT is None, where
            continue
        played += 1
        nT, nD = list(nT), list(nD)
        extra = [nT[c] - st.T[c] for c in range(52)]
        assert all(0 <= extra[c] <= st.H[c] for c in range(52)), where
        hand_jokers = nJT - st.JT
        assert 0 <= hand_jokers <= st.JH, where
        assert sum(nD) == nJT, where
        # every demand of the old table met by the new slots of its card
        assert all(nT[c] + nD[c] >= st.D[c] for c in range(52)), where
        worth = sum(e * (rules.card_value(c) * VALMUL + 1) for c, e in enumerate(extra))
        worth += hand_jokers * (rules.card_value(JOKER) * VALMUL + 1)
        assert worth == value, where
        # best_play's melds are these counts, jokers standing for the same cards
        new_melds, hj = solver._rebuild_path(st, value, rules, core)
        assert hj == hand_jokers, where
        nat = Counter(c for m in new_melds for c in m.cards if c != JOKER)
        jk = Counter(r for m in new_melds for c, r in zip(m.cards, m.represents, strict=True) if c == JOKER)
        assert all(nat[c] == nT[c] and jk[c] == nD[c] for c in range(52)), where
    return played


def _run(strategy, examples: int) -> int:
    seen = []

    @settings(max_examples=examples, **SETTINGS)
    @given(strategy)
    def check(batch):
        rules, positions = batch
        for table, hand in positions:
            note(describe(table, hand, rules))
        seen.append(_check(rules, positions))

    check()
    return sum(seen)


def test_path_play_on_random_positions():
    assert _run(seeded_batch(dense=False, max_melds=5), 60) >= 100


def test_path_play_on_dense_positions():
    assert _run(seeded_batch(dense=True, max_melds=6, max_fit=7), 60) >= 100


def test_path_play_with_table_jokers():
    assert _run(table_joker_batch(), 60) >= 100


def test_no_play_and_too_many_jokers():
    from rummy51.carousel import CarouselRules
    core = solver._core_rules(CarouselRules())
    z = np.zeros(52, np.uint8)
    H = z.copy()
    H[5] = 1
    assert _carousel.play_counts(core, z.tobytes(), H.tobytes(), z.tobytes(), 0, 0) == (0, None, None, None)
    # more jokers than the path packs: no path (best_play then rebuilds meld by meld)
    T = z.copy()
    T[0:3] = 1
    assert _carousel.play_counts(core, T.tobytes(), z.tobytes(), z.tobytes(), 0, 8)[0] == -3
