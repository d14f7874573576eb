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


# --------------------------------------------------------------------------- generated positions
class RandomChoices:
    """Choices from a ``random.Random`` (fast: thousands of positions a second)."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def int(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def subset(self, n: int, lo: int, hi: int) -> list[int]:
        """``lo..hi`` distinct indices of ``range(n)``."""
        hi = min(hi, n)
        return self.rng.sample(range(n), self.rng.randint(min(lo, hi), hi))


class DrawChoices:
    """The same choices drawn by hypothesis (slower, but failures shrink)."""

    def __init__(self, draw):
        from hypothesis import strategies as st
        self.draw, self.st = draw, st

    def int(self, lo: int, hi: int) -> int:
        return self.draw(self.st.integers(lo, hi))

    def subset(self, n: int, lo: int, hi: int) -> list[int]:
        hi = min(hi, n)
        if n == 0 or hi == 0:
            return []
        return self.draw(self.st.lists(self.st.integers(0, n - 1), min_size=min(lo, hi),
                                       max_size=hi, unique=True))


def random_rules(pick) -> CarouselRules:
    """A CarouselRules with every option that changes the solver's answer picked."""
    decks = pick.int(1, 2)
    return CarouselRules(
        players=2 if decks == 1 else 4,
        decks=decks,
        jokers=pick.int(0, 4),
        max_jokers_per_meld=(None, None, 0, 1, 2, 3)[pick.int(0, 5)],
        ace_high=bool(pick.int(0, 1)),
        ace_value=(1, 1, 11)[pick.int(0, 2)],
        face_value=(10, 10, 12)[pick.int(0, 2)],
        joker_value=(25, 25, 4)[pick.int(0, 2)],
    )


def random_meld(pick, rules: CarouselRules, window=None):
    """The slots (``(card, stands_for)`` pairs) of one valid meld, some of them jokers;
    ``window``: the positions (lo, hi), A=1 .. K=13, A=14, the meld lies in."""
    top = 14 if rules.ace_high else 13
    lo, hi = window or (1, top)
    if pick.int(0, 1):
        length = pick.int(3, min(7, hi - lo + 1))
        start = pick.int(lo, hi - length + 1)
        cards = _run_cards(pick.int(0, 3), start, length)
    else:
        ranks = sorted({(p - 1) % 13 for p in range(lo, hi + 1)})
        rank = ranks[pick.int(0, len(ranks) - 1)]
        suits = pick.subset(4, 3, 4)
        cards = [s * 13 + rank for s in sorted(suits)]
    limit = len(cards) - 1 if rules.max_jokers_per_meld is None else \
        min(len(cards) - 1, rules.max_jokers_per_meld)
    jokers = set(pick.subset(len(cards), 0, pick.int(0, limit))) if limit > 0 else set()
    return [(JOKER, c) if i in jokers else (c, c) for i, c in enumerate(cards)]


def fitting_cards(melds) -> list[int]:
    """Cards that fit a table: a run's neighbours (one and two away) and copies of
    its cards, every card of a set's rank, every joker's declared card."""
    out = []
    for m in melds:
        reps = [r for _, r in m]
        if len({r % 13 for r in reps}) == 1:
            out += [s * 13 + reps[0] % 13 for s in range(4)]
            continue
        suit = reps[0] // 13
        pos = sorted((r % 13) + 1 for r in reps)
        if pos[0] == 1 and pos[-1] == 13:   # Q K A: the ace stands high
            pos = sorted(14 if p == 1 else p for p in pos)
        for p in (pos[0] - 2, pos[0] - 1, pos[-1] + 1, pos[-1] + 2):
            if 1 <= p <= 14:
                out.append(suit * 13 + (p - 1 if p <= 13 else 0))
        out += reps
    return out


def random_position(pick, rules: CarouselRules, dense: bool = False, max_melds: int | None = None,
                    max_fit: int = 9):
    """``(table, hand)``: a table of valid melds (meld texts) and a hand (codes),
    dealt from one deck of ``rules`` (so the counts are always legal).

    Random: 0..5 melds anywhere, 0..9 hand cards from the rest of the deck.
    Dense: 3..``max_melds`` (8) melds from a window of 3..6 consecutive ranks (the
    melds overlap and compete), jokers among them, and 1..``max_fit`` hand cards that
    fit the table (neighbours, copies, a set's missing suits, jokers' cards) plus
    0..2 others."""
    deck = Counter({c: rules.decks for c in range(52)})
    jokers = rules.jokers
    window = None
    top = 14 if rules.ace_high else 13
    if dense:
        width = pick.int(3, 6)
        low = pick.int(1, top - width + 1)
        window = (low, low + width - 1)
        n_melds = pick.int(3, max_melds or 8)
    else:
        n_melds = pick.int(0, max_melds or 5)
    melds = []
    for _ in range(n_melds):
        m = random_meld(pick, rules, window)
        need = Counter(c for c, _ in m if c != JOKER)
        nj = sum(1 for c, _ in m if c == JOKER)
        if nj > jokers or any(deck[c] < k for c, k in need.items()):
            continue
        deck -= need
        jokers -= nj
        melds.append(m)
    hand = []
    if dense:
        fit = sorted({c for c in fitting_cards(melds) if deck[c] > 0})
        fit += [JOKER] * jokers
        for i in pick.subset(len(fit), 1, max_fit):
            c = fit[i]
            if c == JOKER or hand.count(c) < deck[c]:
                hand.append(c)
        extra = pick.int(0 if hand else 1, 2)
    else:
        extra = pick.int(0, 9)
    left = Counter(sorted(deck.elements()) + [JOKER] * jokers) - Counter(hand)
    rest = sorted(left.elements())
    hand += [rest[i] for i in pick.subset(len(rest), extra, extra)]
    table = [" ".join(f"JK({card_text(r)})" if c == JOKER else card_text(c) for c, r in m)
             for m in melds]
    return table, sorted(hand)


def stock_outs(state) -> list[dict]:
    """Every round of a played ``state`` in which the stock ran out, read from its
    history alone (not from the engine's own bookkeeping): ``exhauster`` (who took the
    last card; the dealer when the deal left no stock) and ``ex_turn`` (its turn, -1
    for the deal), ``finder``/``f_turn`` (the first draw that found the stock empty, or
    None), ``kind``: how the last card went: ``"deal"``, ``"third"`` (a third draw),
    ``"meld"`` (a first or second draw, then a meld in that turn), ``"same"`` (a first
    or second draw, then the same turn's next draw found the stock empty); ``turns``:
    the players of the round's turns in order, each with its records; ``end``: how the
    round ended."""
    from collections import defaultdict

    from rummy51.carousel.actions import DealRecord, DrawRecord, MeldRecord, RoundRecord

    r = state.rules
    n = r.players
    by_round: dict = defaultdict(list)
    for x in state.history:
        by_round[x.round].append(x)
    out = []
    for rd, xs in sorted(by_round.items()):
        left = r.deck_size - n * r.hand_size
        deal = xs[0]
        assert isinstance(deal, DealRecord)
        ex, ex_turn = (deal.dealer, -1) if left == 0 else (None, None)
        finder = f_turn = None
        draws: dict = defaultdict(list)
        turns: list = []
        for x in xs[1:]:
            if isinstance(x, RoundRecord):
                continue
            if not turns or turns[-1][0] != x.turn:
                turns.append((x.turn, x.player, []))
            turns[-1][2].append(x)
            if isinstance(x, DrawRecord):
                draws[x.turn].append(x)
                if x.empty:
                    if finder is None:
                        finder, f_turn = x.player, x.turn
                else:
                    left -= 1
                    if left == 0:
                        ex, ex_turn = x.player, x.turn
        if ex is None:
            continue
        if ex_turn == -1:
            kind = "deal"
        else:
            mine = draws[ex_turn]
            k = max(i for i, d in enumerate(mine) if not d.empty)   # the last card's draw
            if k == 2:
                kind = "third"
            elif any(isinstance(x, MeldRecord) and x.turn == ex_turn for x in xs):
                kind = "meld"
            else:
                kind = "same"
        end = xs[-1].result.how if isinstance(xs[-1], RoundRecord) else None
        assert isinstance(xs[-1], RoundRecord) or rd == state.round
        out.append(dict(round=rd, kind=kind, exhauster=ex, ex_turn=ex_turn, finder=finder,
                        f_turn=f_turn, turns=turns, end=end))
    return out
