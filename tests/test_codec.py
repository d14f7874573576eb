"""The integer action codec (rummy51.r51.codec): layout, completeness, round trips, soaks.

The soak plays kind-random deals (a kind of move, then a move of that kind) and at every
position decodes, encodes back, parses back and applies EVERY legal id, and makes every
move of the engine's own ``legal_actions()`` through the codec. The default run soaks
36 deals under 8 rule sets (the engine's moves in every other deal); ``-m slow`` soaks
2,000 default deals (the engine's moves in every fourth).
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from agents_helpers import kind_random, soak_deal
from rummy51 import RuleSet, solver
from rummy51.r51.actions import Discard, Draw, LayDown, LayOff, SwapJoker
from rummy51.r51.agent import CHANCE, TERMINAL, AgentState
from rummy51.r51.codec import (
    CANCEL,
    DISCARD0,
    MELD0,
    OPEN,
    SLOT_ACTIONS,
    ActionCodec,
    Cancel,
    Stage,
    _meld_table,
    codec_for,
)
from rummy51.r51.engine import GameState, IllegalMove, stacked_deck
from rummy51.r51.melds import JOKER, make_meld

DEFAULT = RuleSet()

#: (rules, deals) of the default soak: 36 deals, every legal action of every position
SOAK_RULES = {
    "default": (DEFAULT, 24),
    "two-jokers-per-meld": (RuleSet(max_jokers_per_meld=2), 2),
    "must-meld-no-free-round": (RuleSet(discard_card_must_meld=True, free_discard_rounds=0), 2),
    "no-high-ace-low-1": (RuleSet(ace_high=False, ace_low_value=1), 2),
    "one-deck": (RuleSet(decks=1, jokers=2, hand_size=10, max_turns=60), 2),
    "taken-card-no-bottom-30": (RuleSet(discard_taken_card=True, bottom_card=False,
                                        threshold=30), 2),
    "gin-capped": (RuleSet.gin(max_turns=60), 1),
    "no-jokers": (RuleSet(jokers=0, max_jokers_per_meld=0), 1),
}


# --------------------------------------------------------------------------- layout
def test_default_layout():
    c = codec_for(DEFAULT)
    assert (c.n_melds, c.n_slots, c.size) == (2527, 36, 3125)
    assert c.slot0 == MELD0 + c.n_melds and c.size == c.slot0 + SLOT_ACTIONS * 36
    assert [c.kind(a) for a in (0, 1, 2, 3, 55, OPEN, CANCEL, MELD0)] == \
        ["draw"] * 3 + ["discard"] * 2 + ["open", "cancel", "meld"]
    assert c.kind(c.slot0) == "lay_off" and c.kind(c.slot0 + 4) == "swap"
    assert c.kind(c.slot0 + 11) == "swap" and c.kind(c.size - 1) == "swap"
    # runs first (spades from the low ace), then sets
    first = c.meld(MELD0)
    assert first.text() == "AS 2S 3S" and first.value == 10 + 2 + 3
    assert c.meld(MELD0 + 1).text() == "JK(AS) 2S 3S"
    last = c.melds[-1]
    assert last.kind == "set" and last.text() == "KH KD KC JK(KS)"
    assert codec_for(DEFAULT) is c and ActionCodec(DEFAULT).size == c.size


def test_sizes_follow_the_rules():
    gin = codec_for(RuleSet.gin())
    assert gin.n_slots == 52 // 3 and gin.n_melds == 329
    two = codec_for(RuleSet(max_jokers_per_meld=2))
    assert two.n_melds > 3 * codec_for(DEFAULT).n_melds
    assert codec_for(RuleSet(jokers=16)).n_slots == 120 // 3


@pytest.mark.parametrize("rules", [DEFAULT, RuleSet.gin(), RuleSet(ace_high=False),
                                   RuleSet(ace_low_value=1)],
                         ids=["default", "gin", "no-high-ace", "ace-low-1"])
def test_every_meld_is_what_the_engine_lays(rules):
    """The table checks only the 13- and 14-card runs against make_meld (the rest cannot
    read two ways); checking every meld gives the same table."""
    assert _meld_table(rules) == _meld_table(rules, True)
    for m in _meld_table(rules)[0]:
        t = make_meld(m.cards, rules, stand_ins=m.stand_ins)
        assert (t.kind, t.cards, t.represents) == (m.kind, m.cards, m.represents)


@pytest.mark.slow
def test_every_meld_is_what_the_engine_lays_two_jokers():
    rules = RuleSet(max_jokers_per_meld=2)
    assert _meld_table(rules) == _meld_table(rules, True)


def test_a_run_joker_stand_in_is_its_own_meld():
    c = codec_for(DEFAULT)
    low = c.meld_id(make_meld("8S 9S JK", DEFAULT, stand_ins=["7S"]))
    high = c.meld_id(make_meld("8S 9S JK", DEFAULT))
    assert low != high
    # a named stand-in is what the meld is worth (docs/rules.md 4): JK(7S) 8S 9S is 24, 8S 9S JK(10S) 27
    assert (c.meld(low).value, c.meld(high).value) == (24, 27)
    # a set's joker floats: any stand-in is the same meld
    assert c.meld_id(make_meld("7S 7H JK", DEFAULT, stand_ins=["7C"])) == \
        c.meld_id(make_meld("7S 7H JK", DEFAULT))
    # long runs are melds too: 2..K and A..A
    assert c.meld_id(make_meld("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", DEFAULT))
    assert c.meld_id(make_meld("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", DEFAULT))


def test_describe_every_id():
    c = codec_for(DEFAULT)
    texts = {c.describe(a) for a in range(0, c.size, 7)}
    assert "draw stock" in {c.describe(0)} and c.describe(OPEN).startswith("open")
    assert c.describe(DISCARD0 + JOKER) == "discard JK"
    assert all("\n" not in t for t in texts)


# --------------------------------------------------------------------------- scripted
def _state(hands, stock=(), bottom=None, players=2, rules=DEFAULT, seed=0):
    deck = stacked_deck(rules, hands, stock=stock, bottom=bottom, players=players, seed=seed)
    return AgentState.new(rules, players=players, deck=deck)


def test_an_opening_is_staged_meld_by_meld():
    # 6S 7S 8S (21) + 10D 10C 10H (30) = 51 opens; neither alone does
    s = _state(["6S 7S 8S 10D 10C 10H 2C 5H 9C QD KH 3D 4C 2H 7D"])
    c = s.codec
    run = c.meld_id(make_meld("6S 7S 8S", DEFAULT))
    tens = c.meld_id(make_meld("10D 10C 10H", DEFAULT))
    acts = s.legal_actions()
    assert run in acts and tens in acts and OPEN not in acts and CANCEL not in acts
    assert s.decode(run) == Stage("6S 7S 8S")
    s.apply_action(run)
    assert s.staged == (run,) and s.game.table == [] and len(s.game.hands[0]) == 15
    acts = s.legal_actions()
    assert tens in acts and CANCEL in acts and OPEN not in acts
    assert all(not (DISCARD0 <= a < OPEN) for a in acts)  # no discard while staging
    s.apply_action(CANCEL)
    assert s.staged == () and CANCEL not in s.legal_actions()
    s.apply_action(tens)
    assert CANCEL not in s.legal_actions()  # one cancel a turn
    s.apply_action(run)
    assert OPEN in s.legal_actions()
    opening = s.decode(OPEN)
    assert isinstance(opening, LayDown) and len(opening.melds) == 2
    assert s.encode(opening) == OPEN
    s.apply_action(OPEN)
    assert s.game.opened[0] and len(s.game.table) == 2 and s.staged == ()
    # opened: a meld id lays the meld down at once
    assert isinstance(s.decode(MELD0), LayDown)


def test_staging_only_towards_a_legal_opening():
    # 6S 7S 8S (21) + 10D 10C 10H (30) = 51: 2C 3C 4C (9) can be staged only if the
    # rest still reaches 51 with it (it does not: 9 + 30 + 21 = 60 uses 9 cards of 15,
    # fine), but 2H 3H JK leads nowhere when the rest cannot open
    s = _state(["6S 7S 8S 10D 10C 10H 2C 3C 4C 5H 9C QD KH AD 7D"])
    c = s.codec
    small = c.meld_id(make_meld("2C 3C 4C", DEFAULT))
    assert small in s.legal_actions()
    weak = _state(["2S 3S 4S 9C 9D KH QD 5H 7C JD AH 2C 6D 8H 10C"])
    m = weak.codec.meld_id(make_meld("2S 3S 4S", DEFAULT))
    assert solver.best_opening(weak.game.hands[0], DEFAULT).value < 51
    assert m not in weak.legal_actions()
    with pytest.raises(IllegalMove, match="no legal opening holds"):
        weak.apply_action(m)


def test_lay_offs_and_swaps_by_slot():
    # player 0 opens with a run holding a joker and a set; then lays off, swaps
    s = _state(["7S 8S JK 10D 10C 10H JS 6S 10S 2C 3C 9D QD 5H 4C"])
    c = s.codec
    for meld in ("7S 8S JK", "10D 10C 10H"):
        s.apply_action(c.meld_id(make_meld(meld, DEFAULT)))
    s.apply_action(OPEN)
    table = s.game.table
    assert table[0].text() == "7S 8S JK(9S)" and table[1].kind == "set"
    acts = s.legal_actions()
    low = c.slot_id(0, 0)   # 6S below the run
    assert s.decode(low) == LayOff(5, 0, "low")
    assert low in acts
    high = c.slot_id(0, 1)  # 10S above the run
    assert s.decode(high) == LayOff(9, 0, "high") and high in acts
    spade_ten = c.slot_id(1, 6)  # 10S on the set of tens
    assert s.decode(spade_ten) == LayOff(9, 1, None) and spade_ten in acts
    with pytest.raises(IllegalMove, match="is a set move"):
        s.decode(c.slot_id(0, 6))
    with pytest.raises(IllegalMove, match="table holds 2 melds"):
        s.decode(c.slot_id(5, 0))
    assert s.encode(LayOff("6S", 0)) == low
    with pytest.raises(IllegalMove, match="does not fit"):
        s.encode(LayOff("2C", 0))
    # no 9S in hand: no swap of the run's joker
    assert c.slot_id(0, 4) not in acts
    assert s.decode(c.slot_id(0, 4)) == SwapJoker(8, 0)


def test_engine_moves_and_encode_sequence():
    s = _state(["6S 7S 8S 10D 10C 10H 2C 5H 9C QD KH 3D 4C 2H 7D"])
    lay = LayDown(("6S 7S 8S", "10D 10C 10H"))
    ids = s.encode_sequence(lay)
    assert ids[-1] == OPEN and len(ids) == 3
    with pytest.raises(ValueError, match="3 integer actions"):
        s.encode(lay)
    assert s.encode_sequence(Discard("2C")) == [DISCARD0 + 40]
    for a in ids:
        s.apply_action(a)
    assert s.game.opened[0]


# --------------------------------------------------------------------------- bad input
def test_bad_ids_are_one_line_errors():
    s = AgentState.new(DEFAULT, players=4, seed=3)
    legal = s.legal_actions()
    for bad, err in [("3", TypeError), (3.0, TypeError), (True, TypeError), (None, TypeError),
                     (-1, ValueError), (s.codec.size, ValueError), (10**30, ValueError)]:
        with pytest.raises(err) as e:
            s.apply_action(bad)
        assert "\n" not in str(e.value)
    illegal = next(a for a in range(s.codec.size) if a not in legal)
    with pytest.raises(IllegalMove, match=f"action {illegal} is not legal now") as e:
        s.apply_action(np.int64(illegal))
    assert "\n" not in str(e.value)
    before = str(s)
    s.apply_action(np.int32(legal[0]))  # numpy integers are whole numbers too
    assert str(s) != before
    with pytest.raises(TypeError, match="not an action"):
        s.encode("discard 7S")


def test_errors_leave_the_state_unchanged():
    s = AgentState.new(DEFAULT, players=2, seed=4)
    before = (str(s), s.legal_actions()[:])
    for bad in (OPEN, CANCEL, 0, s.codec.size - 1):
        with pytest.raises(ValueError):
            s.apply_action(bad)
    assert (str(s), s.legal_actions()) == before


# --------------------------------------------------------------------------- completeness
def _brute_force_check(s: AgentState) -> int:
    """Every id that is not listed is refused: by decode, by the engine's verify, or (a
    meld staged before opening) because no legal opening holds the staged melds and it."""
    legal = set(s.legal_actions())
    g = s.game
    refused = 0
    for a in range(s.codec.size):
        if a in legal:
            continue
        try:
            move = s.decode(a)
        except ValueError:
            refused += 1
            continue
        if isinstance(move, Cancel):
            assert not s.staged or not s.may_cancel
        elif a == OPEN:
            assert not g.can_lay_down(move)
        elif isinstance(move, Stage):
            assert g.phase.value != "play" or not _opening_reachable(s, a), (a, str(s))
        elif s.staged:
            pass  # while staging only stage, open and cancel are moves
        else:
            assert not g.is_legal(move), (a, move, str(s))
        refused += 1
    return refused


def _opening_reachable(s: AgentState, a: int) -> bool:
    """Reference: with meld ``a`` staged too, can some legal opening hold all staged melds?
    (The solver's best opening of the rest, tried through the engine's own check.)"""
    g = s.game
    ids = list(s.staged) + [a]
    cards = [c for i in ids for c in s.codec.meld(i).cards]
    rest = list(g.hands[g.current])
    for c in cards:
        if c not in rest:
            return False
        rest.remove(c)
    if not rest:
        return False
    base = [s.codec.meld(i) for i in ids]
    if g.turn_info.bottom:
        return False  # not reached in these deals (kind-random rarely takes the bottom)
    ti = g.turn_info
    must = ti.taken if (ti.must_open and g.rules.discard_card_must_meld
                        and ti.taken not in cards) else None
    if must is not None and must not in rest:
        return False
    best = solver.best_opening(rest, g.rules, keep=1, must_use=must)
    melds = [m.cards for m in base] + [m.cards for m in best.melds]
    si = [m.stand_ins for m in base] + [tuple(r for c, r in zip(m.cards, m.represents, strict=True)
                                              if c == JOKER) or None for m in best.melds]
    for k in range(len(base), len(melds) + 1):
        if g.can_lay_down(LayDown(tuple(melds[:k]), tuple(si[:k]))):
            return True
    return False


@pytest.mark.parametrize("seed", [0, 1])
def test_unlisted_ids_are_illegal(seed):
    rng = np.random.default_rng(seed)
    s = AgentState.new(DEFAULT, players=4, seed=100 + seed)
    checked = 0
    step = 0
    while not s.is_terminal() and checked < 10:
        if step % 5 == 0 or s.staged:
            _brute_force_check(s)
            checked += 1
        s.apply_action(kind_random(s, rng))
        step += 1
    assert checked


# --------------------------------------------------------------------------- soaks
@pytest.mark.parametrize("name", list(SOAK_RULES))
def test_soak_every_legal_action(name):
    rules, deals = SOAK_RULES[name]
    for seed in range(deals):
        soak_deal(rules, seed, players=4 if rules.decks == 2 else 3,
                  engine_moves=seed % 2 == 0, check_all=False)


@pytest.mark.slow
def test_soak_2000_deals():
    """Every legal action of 2,000 kind-random default deals: encoded, decoded, applied."""
    totals = {"positions": 0, "actions": 0, "engine": 0}
    for seed in range(2000):
        r = soak_deal(DEFAULT, 10_000 + seed, engine_moves=seed % 4 == 0)
        for k in totals:
            totals[k] += r[k]
    print(json.dumps(totals))


# --------------------------------------------------------------------------- chance mode
def test_chance_mode_deals_and_draws():
    s = AgentState.new(DEFAULT, players=2, chance=True)
    assert s.current_player() == CHANCE and s.dealing
    out = s.chance_outcomes()
    assert len(out) == 53 and abs(sum(p for _, p in out) - 1) < 1e-12
    assert dict(out)[52] == pytest.approx(4 / 108)
    rng = np.random.default_rng(1)
    while s.dealing:
        cards, probs = zip(*s.chance_outcomes(), strict=True)
        s.apply_action(int(rng.choice(cards, p=probs)))
    assert s.current_player() == 0 and len(s.game.hands[0]) == 15
    with pytest.raises(ValueError, match="not a card in the stock"):
        s2 = s.copy()
        s2.apply_action(s2.legal_actions()[0])
        while not s2.is_chance_node():
            s2.apply_action(kind_random(s2, rng))
        missing = next(c for c in range(53) if c not in dict(s2.chance_outcomes()))
        s2.apply_action(missing)
    # play on: every stock draw is a chance node; the hand history replays
    while not s.is_terminal():
        if s.is_chance_node():
            out = s.chance_outcomes()
            stock = s.game.stock
            for c, p in out:
                assert p == pytest.approx(stock.count(c) / len(stock))
            cards, probs = zip(*out, strict=True)
            s.apply_action(int(rng.choice(cards, p=probs)))
        else:
            s.apply_action(kind_random(s, rng))
    assert s.current_player() == TERMINAL and s.legal_actions() == []
    again = GameState.from_json(s.game.to_json())
    assert again.history == s.game.history and again.result == s.game.result


def test_draw_stock_is_a_decision_then_a_chance_node():
    s = AgentState.new(DEFAULT, players=2, chance=True)
    rng = np.random.default_rng(0)
    while s.dealing:
        cards, probs = zip(*s.chance_outcomes(), strict=True)
        s.apply_action(int(rng.choice(cards, p=probs)))
    s.apply_action(next(a for a in s.legal_actions() if DISCARD0 <= a < OPEN))
    assert s.current_player() == 1 and s.legal_actions()[0] == 0
    s.apply_action(0)
    assert s.is_chance_node() and s.game.phase.value == "draw"
    c = s.chance_outcomes()[0][0]
    s.apply_action(c)
    assert s.current_player() == 1 and s.game.turn_info.drawn == c
    assert s.decode(0) == Draw("stock")
