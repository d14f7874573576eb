"""The Carousel analysis (``rummy51.analysis.carousel``, ``_carousel.search_analyse``).

The equities are checked against an independent estimate: the same position in the
Python engine, the unseen cards dealt at random to the other hands and the stock with
numpy, the candidate move made, then ``GreedyBot`` in every seat to the end of the
round; its mean margin (the player's round score less the mean of the others') and its
share of rounds won must agree with the kernel's numbers within 4 standard errors.
"""
from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rummy51 import _carousel
from rummy51.analysis import Decision
from rummy51.analysis.carousel import (
    _play_text,
    analyse_game,
    analyse_position,
    game_decisions,
    position_view,
)
from rummy51.carousel import CarouselRules
from rummy51.carousel.actions import Draw, Knock, Meld, Pass, Phase
from rummy51.carousel.bots import (
    GreedyBot,
    SearchBot,
    _core_rules,
    _counts,
    _table_counts,
    game_rules,
    play_game,
)
from rummy51.carousel.engine import GameState
from rummy51.carousel.notation import meld_text, parse_meld_play
from rummy51.carousel.solver import best_play, can_meld

R2 = CarouselRules.for_players(2)
GREEDY = GreedyBot()


def _game(seed: int, players: int = 2) -> GameState:
    rules = CarouselRules.for_players(players)
    return play_game([GreedyBot()] + [SearchBot(seed=seed, rollouts=8)] * (players - 1), rules,
                     seed=seed)


def _spot(seed: int, want) -> GameState:
    """A state of a greedy game (seed) at the first point where ``want(state)`` holds."""
    s = GameState.new(R2, seed=seed)
    for _ in range(2000):
        if s.over:
            break
        if want(s):
            return s
        s.apply(GREEDY.choose(s.view()))
    pytest.skip(f"no such position in game {seed}")


def _late_meld(s: GameState) -> bool:
    v = s.view()
    return (v.phase is Phase.MELD and not v.turn_info.last and v.stock_count <= 14
            and can_meld(list(v.table), list(v.hand), s.rules))


def _may_knock(s: GameState) -> bool:
    v = s.view()
    return v.phase is Phase.END and not v.turn_info.last and v.can_knock()


def _independent(s: GameState, move, samples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Margins and wins of ``move`` from ``s`` (the player on turn), the hidden cards
    dealt anew each time, greedy play after it, in the Python engine."""
    rng = np.random.default_rng(seed)
    me = s.current
    n = s.n_players
    margins, wins = [], []
    for _ in range(samples):
        t = s.copy()
        hidden = [c for o in range(n) if o != me for c in t.hands[o]] + list(t._stock)
        rng.shuffle(hidden)
        k = 0
        for o in range(n):
            if o != me:
                size = len(t.hands[o])
                t.hands[o] = sorted(hidden[k:k + size])
                k += size
        t._stock = hidden[k:]
        rounds = len(t.rounds)
        t.apply(move)
        while len(t.rounds) == rounds:
            t.apply(GREEDY.choose(t.view()))
        res = t.rounds[-1]
        others = [res.scores[o] for o in range(n) if o != me]
        margins.append(res.scores[me] - sum(others) / (n - 1))
        wins.append(me in res.winners)
    return np.array(margins, float), np.array(wins, float)


def _agree(c, margins: np.ndarray, wins: np.ndarray) -> None:
    se_ind = margins.std(ddof=1) / math.sqrt(len(margins))
    z = (c.equity - margins.mean()) / math.sqrt(c.se ** 2 + se_ind ** 2)
    assert abs(z) < 4, (c.move, c.equity, c.se, margins.mean(), se_ind)
    p = wins.mean()
    se_w = math.sqrt(max(p * (1 - p), 1e-4) / len(wins) + max(c.win * (1 - c.win), 1e-4) / c.rollouts)
    assert abs(c.win - p) < 4 * se_w, (c.move, c.win, p)


@pytest.mark.parametrize("seed", [1, 2])
def test_meld_equities_agree_with_the_python_engine(seed):
    s = _spot(seed, _late_meld)
    v = s.view()
    d = analyse_position(v, rollouts=1500, seed=seed)
    greedy = GREEDY.choose(v)
    assert isinstance(greedy, Meld)
    greedy_text = meld_text(v.table, best_play(list(v.table), list(v.hand), R2).melds)
    by_move = {c.move: c for c in d.candidates}
    assert greedy_text in by_move and "draw" in by_move
    for move, action in ((greedy_text, greedy), ("draw", Draw())):
        m, w = _independent(s, action, 250, seed)
        _agree(by_move[move], m, w)


def test_knock_equities_agree_with_the_python_engine():
    s = _spot(3, _may_knock)
    d = analyse_position(s.view(), rollouts=1500, seed=3)
    assert d.kind == "knock" and {c.move for c in d.candidates} == {"knock", "pass"}
    by_move = {c.move: c for c in d.candidates}
    for move, action in (("knock", Knock()), ("pass", Pass())):
        m, w = _independent(s, action, 250, 3)
        _agree(by_move[move], m, w)


def test_a_knock_scores_the_hands_dealt():
    # knocking ends the round at once: its margin is the score of the hands as dealt,
    # so the kernel's mean over many deals is the exact mean within its SE
    s = _spot(3, _may_knock)
    d = analyse_position(s.view(), rollouts=3000, seed=11)
    m, w = _independent(s, Knock(), 400, 12)
    _agree(next(c for c in d.candidates if c.move == "knock"), m, w)


def test_the_played_move_is_always_a_candidate_written_alike():
    for seed in (4, 5):
        s = _game(seed)
        h = s.to_dict()
        spots = game_decisions(h)
        assert spots, "a whole game has decisions"
        a = analyse_game(h, rollouts=2, seed=seed)
        assert len(a.decisions) == len(spots)
        for spot, d in zip(spots, a.decisions, strict=True):
            assert isinstance(d, Decision)
            assert d.played == spot.played
            assert d.played in {c.move for c in d.candidates}
            assert d.loss is not None and d.loss >= 0
            assert len({c.move for c in d.candidates}) == len(d.candidates)
            assert all(c.rollouts == 2 for c in d.candidates)
            assert len(d.candidates) >= 2
        kinds = {d.kind for d in a.decisions}
        assert "meld" in kinds and "knock" in kinds


def test_played_moves_are_the_actions_of_the_history():
    s = _game(6)
    h = s.to_dict()
    spots = game_decisions(h)
    for spot in spots:
        a = s.actions[spot.info["action"]]
        if isinstance(a, Draw):
            assert spot.played == "draw"
        elif isinstance(a, Knock):
            assert spot.played == "knock"
        elif isinstance(a, Pass):
            assert spot.played == "pass"
        else:
            assert spot.played.startswith("meld ") and spot.played_table is not None


def test_a_played_meld_outside_the_candidates_is_added():
    # the best play of two hand cards is often no search candidate: the played move
    # then makes a candidate of its own
    for seed in range(1, 6):
        s = _spot(seed, _late_meld)
        v = s.view()
        base = {c.move for c in analyse_position(v, rollouts=2, seed=1).candidates}
        for sub in itertools.combinations(sorted(v.hand), 2):
            play = best_play(list(v.table), list(sub), R2)
            text = meld_text(v.table, play.melds)   # the canonical text: one play
            if not play.can_meld or text in base:
                continue
            d = analyse_position(v, rollouts=2, seed=1, played=text)
            assert d.played == text
            assert {c.move for c in d.candidates} == base | {text}
            # given as an action (the whole new table) it is the same candidate
            e = analyse_position(v, rollouts=2, seed=1, played=Meld(play.melds))
            assert e.played == text and e.to_dict() == d.to_dict()
            return
    pytest.fail("no position with a two-card play outside the candidates")


def test_the_search_bots_choice_is_a_candidate():
    for seed in range(3):
        s = _spot(seed, _late_meld)
        v = s.view()
        H, jh = _counts(v.hand)
        T, D, jt = _table_counts(v.table)
        d = analyse_position(v, rollouts=2, seed=0)
        moves = {c.move for c in d.candidates}
        for k in range(4):
            choice, part, jokers, _ = _carousel.search_decide(
                _core_rules(R2), game_rules(R2), np.random.default_rng(k), _carousel.SEARCH_MELD,
                H, jh, T, D, jt, v.hand_sizes, v.player, v.stock_count, v.turn_info.draws,
                v.stock_out, 64, 2.0, 1.0)
            if part is None:
                assert "draw" in moves
            else:
                sub = [c for c in range(52) for _ in range(part[c])] + [52] * jokers
                nT, nD, njt = _table_counts(best_play(list(v.table), sub, R2).melds)
                assert _play_text(T, D, jt, nT, nD, njt) in moves


def test_seeds_reproduce_and_workers_change_nothing():
    h = _game(7).to_json()
    a = analyse_game(h, rollouts=6, seed=3, workers=1)
    b = analyse_game(h, rollouts=6, seed=3, workers=2)
    assert a.to_dict() == b.to_dict()
    one = analyse_game(h, rollouts=6, seed=3, decision=5)
    assert one.decisions[0].to_dict() == a.decisions[5].to_dict()
    c = analyse_game(h, rollouts=6, seed=4, decision=5)
    assert c.decisions[0].to_dict() != a.decisions[5].to_dict()


def test_every_candidate_gets_every_rollout_and_time_stops_in_batches():
    s = _spot(2, _late_meld)
    d = analyse_position(s.view(), rollouts=37, seed=1)
    assert {c.rollouts for c in d.candidates} == {37}
    t = analyse_position(s.view(), rollouts=100_000, time=0.05, seed=1)
    n = {c.rollouts for c in t.candidates}
    assert len(n) == 1 and 4 <= n.pop() < 100_000


def test_no_draw_offers_knock_and_pass():
    v = position_view(R2, "AS 2H 2D", "5C 6C 7C", sizes=[3, 47], stock=0,
                      phase="no draw")
    d = analyse_position(v, rollouts=20, seed=1, played="pass")
    moves = {c.move for c in d.candidates}
    assert {"knock", "pass"} <= moves and d.kind == "no draw"
    assert d.played == "pass"


def test_a_position_given_directly_is_the_views():
    table = "5C 6C 7C"
    a = analyse_position(rules=R2, hand="AS 2H 8C", table=table, sizes=[3, 10], rollouts=8, seed=2)
    b = analyse_position(position_view(R2, "AS 2H 8C", table, sizes=[3, 10]), rollouts=8, seed=2)
    assert a.to_dict() == b.to_dict()
    assert {c.move for c in a.candidates} == {"meld 8C", "draw"}
    with pytest.raises(TypeError, match="not both"):
        analyse_position(position_view(R2, "AS 2H 8C", table), hand="AS")
    with pytest.raises(TypeError, match="needs a view"):
        analyse_position()


def test_position_view_refuses_impossible_counts():
    with pytest.raises(ValueError, match="impossible card counts"):
        position_view(R2, "AS AS 2H", None)            # one deck: one AS
    with pytest.raises(ValueError, match="impossible card counts"):
        position_view(R2, "AS 2H", None, stock=50)
    with pytest.raises(ValueError, match="sizes"):
        position_view(R2, "AS 2H", None, sizes=[3, 10])
    with pytest.raises(ValueError, match="sizes must give 2"):
        position_view(R2, "AS 2H", None, sizes=[2, 10, 10])
    with pytest.raises(ValueError, match="phase"):
        position_view(R2, "AS 2H", None, phase="draw")
    with pytest.raises(ValueError, match="may not knock"):
        analyse_position(position_view(R2, "KS 2H", None, phase="end"), rollouts=2)
    d = analyse_position(position_view(R2, "AS 2H", None, phase="end"), rollouts=2, seed=1)
    assert {c.move for c in d.candidates} == {"knock", "pass"}


def test_bad_budgets_and_indices_are_one_line_errors():
    s = _spot(2, _late_meld)
    v = s.view()
    for kw, match in (({"rollouts": 0}, "rollouts must be 1"), ({"rollouts": -3}, "rollouts"),
                      ({"time": 0}, "time must be a positive"), ({"time": -1.0}, "time")):
        with pytest.raises(ValueError, match=match):
            analyse_position(v, seed=1, **kw)
    with pytest.raises(TypeError, match="rollouts must be an int"):
        analyse_position(v, rollouts=np.float64(3), seed=1)
    g = _game(4)
    h = g.to_json()
    with pytest.raises(ValueError, match="out of range"):
        analyse_game(h, rollouts=2, seed=1, decision=10_000)
    # a knock with points in hand does not replay with a knock limit of 0
    assert any(r.how == "knock" and r.points[r.knocker] > 0 for r in g.rounds)
    with pytest.raises(ValueError, match="does not replay under the given rules"):
        analyse_game(h, dataclasses.replace(R2, knock_limit=0), rollouts=2)
    with pytest.raises(ValueError, match="played pass"):
        analyse_position(v, rollouts=2, seed=1, played="pass")
    with pytest.raises(ValueError, match="not a move"):
        analyse_position(v, rollouts=2, seed=1, played="jump")


def test_a_corrupt_history_does_not_replay():
    d = _game(4).to_dict()
    d["actions"] = d["actions"][:3] + [{"knock": True}] + d["actions"][3:]
    with pytest.raises(ValueError, match="does not replay under its rules"):
        analyse_game(d, rollouts=2)


def test_the_kernel_refuses_a_view_that_is_no_position():
    s = _spot(2, _late_meld)
    v = s.view()
    H, jh = _counts(v.hand)
    T, D, jt = _table_counts(v.table)
    with pytest.raises(ValueError, match="impossible card counts"):
        _carousel.search_analyse(_core_rules(R2), game_rules(R2), np.random.default_rng(1),
                                 _carousel.SEARCH_MELD, H, jh, T, D, jt,
                                 [x + 1 for x in v.hand_sizes], v.player, v.stock_count,
                                 v.turn_info.draws, v.stock_out, None, 4)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(2, 4))
def test_every_candidate_is_a_move_the_play_command_takes(seed, players):
    """Each candidate of each decision, written as ``carousel play`` reads it, is a legal
    move of that position: ``meld CARDS`` gives a play placing exactly those cards, each
    joker standing for the card the text names (the text of that play is the same)."""
    s = _game(seed, players)
    spots = game_decisions(s.to_dict())
    a = analyse_game(s.to_dict(), rollouts=1, seed=seed)
    t = GameState.from_dict(dict(s.to_dict(), actions=[], rounds=[], final=None))
    at = 0
    for spot, d in zip(spots, a.decisions, strict=True):
        while at < spot.info["action"]:
            t.apply(s.actions[at])
            at += 1
        v = t.view()
        for c in d.candidates:
            word, _, cards = c.move.partition(" ")
            if word == "meld":
                play = parse_meld_play(cards, list(v.table), list(v.hand), v.rules)
                assert meld_text(v.table, play.melds) == c.move
                v.verify_meld(play.melds)
            elif word == "draw":
                v.verify_draw()
            elif word == "knock":
                v.verify_knock()
            else:
                assert word == "pass"
                v.verify_pass()
