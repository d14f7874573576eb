"""Carousel's action codec and agent state (rummy51.carousel.codec, .agent).

* the legal mask of a play being built: "add k" exactly where some legal play holds the
  chosen cards and k (checked against a brute force over every sub-multiset of the hand,
  and against the solver's public ``playable_cards``), "commit" exactly where the chosen
  cards are a legal play (``can_play_cards``);
* random games through the ids: every commit places exactly the chosen cards and the
  engine's invariants hold; the worked example of docs/agents.md;
* bad input: a one-line error naming it, the state unchanged.
"""
from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from rummy51.carousel import CarouselRules
from rummy51.carousel.actions import IllegalMove, MeldRecord, Phase
from rummy51.carousel.agent import CarouselAgentState, carousel_layout_for
from rummy51.carousel.codec import ADD0, COMMIT, DRAW, KNOCK, NUM_ACTIONS, PASS, MaskOracle, add_action
from rummy51.carousel.solver import can_play_cards, playable_cards
from rummy51.carousel.table import parse_table
from rummy51.cards import parse_card

R3 = CarouselRules.for_players(3)


def _brute(table, hand, chosen, rules):
    """(add-card kinds, commit) by brute force: every sub-multiset of the hand."""
    rest = Counter(hand) - Counter(chosen)
    kinds = sorted(rest)
    legal_sets = []
    for counts in itertools.product(*[range(rest[k] + 1) for k in kinds]):
        extra = [k for k, n in zip(kinds, counts) for _ in range(n)]
        cards = list(chosen) + extra
        if cards and can_play_cards(table, cards, hand, rules):
            legal_sets.append(Counter(extra))
    adds = tuple(sorted({k for s in legal_sets for k in s}))
    commit = bool(chosen) and can_play_cards(table, list(chosen), hand, rules)
    return adds, commit


def _positions(seed: int, rules, count: int):
    """Meld positions met in a random game (table, hand), with the game's rng."""
    rng = np.random.default_rng(seed)
    s = CarouselAgentState.new(rules, seed=seed)
    out = []
    while not s.is_terminal() and len(out) < count:
        g = s.game
        if g.phase in (Phase.MELD, Phase.NO_DRAW) and not s.chosen:
            out.append((list(g.table), list(g.hands[g.current])))
        s.apply_action(int(rng.choice(s.legal_actions())))
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_mask_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    checked = 0
    for table, hand in _positions(seed, R3, 40):
        if len(hand) > 11:
            continue
        o = MaskOracle(table, hand, R3)
        chosen: tuple = ()
        for _ in range(4):  # a random walk of adds, checked at every step
            adds, commit = _brute(table, hand, chosen, R3)
            assert o.playable(chosen) == adds
            assert o.can_commit(chosen) == commit
            checked += 1
            if not adds:
                break
            chosen = tuple(sorted(chosen + (int(rng.choice(adds)),)))
        if checked > 30:
            break
    assert checked > 10


def test_mask_matches_public_playable_cards():
    for seed in (3, 4, 5):
        for table, hand in _positions(seed, CarouselRules(), 60):
            o = MaskOracle(table, hand, CarouselRules())
            assert o.playable(()) == playable_cards(table, hand, (), CarouselRules())
            got = o.playable(())
            if got:
                k = got[0]
                assert o.playable((k,)) == playable_cards(table, hand, (k,), CarouselRules())


def test_worked_example():
    """docs/agents.md's example: 6S 7S 8S on the table, JK 9S 2C in hand."""
    table = parse_table(["6S 7S 8S"], R3)
    hand = [parse_card(c) for c in ("9S", "2C")] + [52]
    o = MaskOracle(table, hand, R3)
    assert o.playable(()) == (parse_card("9S"), 52)
    assert o.can_commit((52,)) and o.can_commit((parse_card("9S"),))
    assert not o.can_commit(()) and not o.can_commit((parse_card("2C"),))
    play = o.play((parse_card("9S"), 52))
    assert [m.text() for m in play.melds] == ["JK(5S) 6S 7S 8S 9S"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_games_through_ids(seed):
    rng = np.random.default_rng(seed)
    s = CarouselAgentState.new(R3, seed=seed)
    lay = carousel_layout_for(R3)
    commits = 0
    steps = 0
    while not s.is_terminal():
        legal = s.legal_actions()
        assert legal == sorted(legal) and legal and all(0 <= a < NUM_ACTIONS for a in legal)
        assert s.legal_actions_mask().sum() == len(legal)
        a = int(rng.choice(legal))
        if a == COMMIT:
            chosen = s.chosen
            before = len(s.game.history)
            s.apply_action(a)
            rec = next(r for r in s.game.history[before:] if isinstance(r, MeldRecord))
            assert tuple(sorted(rec.played)) == chosen
            s.game.check()
            commits += 1
        else:
            s.apply_action(a)
        if steps % 25 == 0:
            for p in range(3):
                t = s.observation(p)
                assert t.shape == (lay.size,) and t.dtype == np.float32
                assert 0.0 <= t.min() and t.max() <= 1.0
        steps += 1
    assert commits > 0 and s.game.phase is Phase.OVER
    assert sorted(s.returns()) == sorted(float(x) for x in s.game.final)


def test_round_only_ends_with_the_round():
    rng = np.random.default_rng(0)
    s = CarouselAgentState.new(R3, seed=5, round_only=True)
    while not s.is_terminal():
        s.apply_action(int(rng.choice(s.legal_actions())))
    assert len(s.game.rounds) == 1 and s.returns() == [float(x) for x in s.game.rounds[0].scores]
    assert s.legal_actions() == []


def _state_key(s):
    g = s.game
    return (s.chosen, [list(h) for h in g.hands], [m.text() for m in g.table], g.phase, g.turn,
            g.current, tuple(g.totals), len(g.history))


def test_bad_input_is_one_line_and_changes_nothing():
    s = CarouselAgentState.new(R3, seed=2)
    key = _state_key(s)
    for bad, exc, words in [(COMMIT, IllegalMove, "no card is chosen"),
                            (KNOCK, IllegalMove, "cannot knock"),
                            (add_action(0), IllegalMove, "no meld can be made"),
                            (NUM_ACTIONS, ValueError, "out of range"),
                            (-1, ValueError, "out of range"),
                            (1.0, TypeError, "int"), ("3", TypeError, "int"),
                            (True, TypeError, "int"), (None, TypeError, "int")]:
        with pytest.raises(exc, match=words) as e:
            s.apply_action(bad)
        assert "\n" not in str(e.value)
        assert _state_key(s) == key
    s.apply_action(np.int64(DRAW))  # numpy integers are whole numbers
    # a card the hand does not hold, and a commit of cards that cannot be placed
    rng = np.random.default_rng(0)
    while not (s.game.phase in (Phase.MELD, Phase.NO_DRAW) and s.oracle().playable(())):
        s.apply_action(int(rng.choice([a for a in s.legal_actions() if a < ADD0])))
    hand = s.game.hands[s.game.current]
    absent = next(k for k in range(53) if k not in hand)
    key = _state_key(s)
    with pytest.raises(IllegalMove, match="holds no"):
        s.apply_action(add_action(absent))
    no_place = [k for k in set(hand) if k not in s.oracle().playable(())]
    if no_place:
        with pytest.raises(IllegalMove, match="no legal play places"):
            s.apply_action(add_action(no_place[0]))
    assert _state_key(s) == key
    k = s.oracle().playable(())[0]
    s.apply_action(add_action(k))
    if COMMIT not in s.legal_actions():
        key = _state_key(s)
        with pytest.raises(IllegalMove, match="cannot be placed"):
            s.apply_action(COMMIT)
        assert _state_key(s) == key
    with pytest.raises(IllegalMove, match="cards are chosen"):
        s.apply_action(DRAW if s.game.phase is Phase.MELD else PASS)


def test_action_after_the_end():
    rng = np.random.default_rng(1)
    s = CarouselAgentState.new(R3, seed=1, round_only=True)
    while not s.is_terminal():
        s.apply_action(int(rng.choice(s.legal_actions())))
    with pytest.raises(IllegalMove, match="round is over"):
        s.apply_action(DRAW)


def test_commit_of_cards_that_cannot_be_placed():
    """A position where one playable card does not make a play alone: commit is refused
    in one line, naming the cards, and nothing changes."""
    for seed in range(30):
        rng = np.random.default_rng(seed)
        s = CarouselAgentState.new(R3, seed=seed)
        while not s.is_terminal():
            g = s.game
            if g.phase in (Phase.MELD, Phase.NO_DRAW) and not s.chosen:
                lone = [k for k in s.oracle().playable(()) if not s.oracle().can_commit((k,))]
                if lone:
                    s.apply_action(add_action(lone[0]))
                    key = _state_key(s)
                    assert COMMIT not in s.legal_actions()
                    with pytest.raises(IllegalMove, match="cannot be placed") as e:
                        s.apply_action(COMMIT)
                    assert "\n" not in str(e.value) and _state_key(s) == key
                    return
            s.apply_action(int(rng.choice([a for a in s.legal_actions() if a < ADD0])))
    raise AssertionError("no position with a card that needs company was met")
