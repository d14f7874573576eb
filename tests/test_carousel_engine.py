"""The Carousel engine (docs/rules-carousel.md sections 3, 5, 6): dealing, turns, meld
plays checked exactly, knocking, going out, the stock running out, scoring by hand,
replays, histories, views, and illegal plays refused with the rule named."""
from __future__ import annotations

import dataclasses
import json
from collections import Counter

import numpy as np
import pytest

from carousel_helpers import stock_outs
from rummy51 import IllegalMove as AnyIllegalMove
from rummy51.cards import JOKER, parse_cards
from rummy51.carousel import CarouselRules
from rummy51.carousel.actions import Draw, DrawRecord, IllegalMove, Knock, Meld, Phase
from rummy51.carousel.bots import GreedyBot, RandomBot, play_game
from rummy51.carousel.engine import GameState, replay, rules_from_dict
from rummy51.carousel.moves import final_scores, score_round
from rummy51.r51.actions import IllegalMove as R51IllegalMove

R2 = CarouselRules.for_players(2)
R3 = CarouselRules.for_players(3)
R4 = CarouselRules.for_players(4)


def stacked(rules, hands, stock=()):
    """A deck order dealing ``hands`` (from the dealer's left on) with ``stock`` on top of
    the stock; the rest of the deck fills the hands up and goes under the stock."""
    rest = list(rules.deck())
    hs = [parse_cards(h) if isinstance(h, str) else list(h) for h in hands]
    st = parse_cards(stock) if isinstance(stock, str) else list(stock)
    for c in [c for h in hs for c in h] + st:
        rest.remove(c)
    order = []
    for h in hs + [[]] * (rules.players - len(hs)):
        h = list(h)
        while len(h) < rules.hand_size:
            h.append(rest.pop())
        order += h
    return order + st + rest


def snapshot(s: GameState):
    return (json.dumps(s.to_dict(), sort_keys=True), [list(h) for h in s.hands],
            list(s.table), s.phase, s.turn_info, s.current, s.stock)


def refused(s: GameState, rule: str, fn, *args):
    before = snapshot(s)
    with pytest.raises(IllegalMove) as e:
        fn(*args)
    assert e.value.rule == rule, e.value
    assert f"rules-carousel.md {rule}" in str(e.value) or not rule[0].isdigit()
    # every game's refusal is a rummy51.IllegalMove; the games' own are siblings
    assert isinstance(e.value, AnyIllegalMove) and not isinstance(e.value, R51IllegalMove)
    assert snapshot(s) == before, "a refused move changed the state"
    return e.value


HAND0 = "AS AH 2D 4S 5S 6S 7H 8H 9H 10H"
HAND1 = "KS KH QD QC JD JC 10S 10D 9S 9D"


def two_player(stock="JH 3C 8C", hands=(HAND0, HAND1)):
    """Seat 0 starts (dealer 1); seat 0 holds HAND0 and draws the stock's cards."""
    return GameState.new(R2, seed=1, dealer=1, decks=[stacked(R2, hands, stock)])


# --------------------------------------------------------------------------- dealing
def test_deal_seeded_dealer_and_passing_left():
    dealers = {GameState.new(R4, seed=k).dealer for k in range(40)}
    assert dealers == {0, 1, 2, 3}   # random first dealer, from the seed
    s = GameState.new(R4, seed=5)
    assert s.dealer == GameState.new(R4, seed=5).dealer
    assert [len(h) for h in s.hands] == [10] * 4 and s.stock_size == 106 - 40
    assert s.current == (s.dealer + 1) % 4 and s.phase is Phase.DRAW
    s.check()


def test_two_player_deck():
    s = GameState.new(R2, seed=3)
    assert s.stock_size == 53 - 20 and sum(c == JOKER for h in s.hands for c in h) + \
        sum(c == JOKER for c in s.stock) == 1


# --------------------------------------------------------------------------- a turn
def test_draw_up_to_three_then_end():
    s = two_player(stock="KC QS JS")
    assert s.legal_actions() == [Draw()]
    s.draw()
    assert s.phase is Phase.MELD
    s.draw()
    assert s.phase is Phase.MELD
    s.draw()
    assert s.phase is Phase.END and len(s.hands[0]) == 13
    e = refused(s, "3.3", s.meld, ["4S 5S 6S"])
    assert "third card" in e.reason
    refused(s, "3.3", s.draw)
    refused(s, "3.4", s.knock)     # 4 + 10*3 points: above the limit
    s.pass_()
    assert s.current == 1 and s.phase is Phase.DRAW and s.turn == 1


def test_meld_before_drawing_and_twice_refused():
    s = two_player()
    refused(s, "3.3", s.meld, ["4S 5S 6S"])
    refused(s, "3.3", s.pass_)
    refused(s, "3.4", s.knock)
    s.draw()
    refused(s, "3.3", s.pass_)        # who has not melded draws again
    s.meld(["4S 5S 6S"])
    assert s.phase is Phase.END
    refused(s, "3.3", s.meld, ["4S 5S 6S", "7H 8H 9H"])


def test_meld_then_knock_scores_the_round_and_deals_the_next():
    s = two_player(stock="JH")
    s.draw()
    rec = s.meld(["4S 5S 6S", "7H 8H 9H 10H JH"])
    assert rec.played == tuple(sorted(parse_cards("4S 5S 6S 7H 8H 9H 10H JH")))
    assert s.hand_points() == 4 and s.can_knock()
    assert Knock() in s.legal_actions()
    s.knock()
    r = s.rounds[0]
    assert (r.how, r.knocker, r.points, r.winners, r.undercut) == ("knock", 0, (4, 98), (0,), False)
    assert r.scores == (94, 0) and s.totals == [94, 0] and s.rounds_won == [1, 0]
    # the next round: the deal passes to the left, the dealer's left starts
    assert s.round == 1 and s.dealer == 0 and s.current == 1 and s.table == []
    s.check()


def test_going_out_ends_the_round_with_the_bonus():
    hand = "4S 5S 6S 7H 8H 9H 10H KD KC KS"
    s = two_player(stock="JH", hands=(hand, HAND1.replace("KS", "2C")))
    s.draw()
    s.meld(["4S 5S 6S", "7H 8H 9H 10H JH", "KS KD KC"])
    r = s.rounds[0]
    assert r.how == "out" and r.knocker == 0 and r.points[0] == 0
    assert r.scores[0] == r.points[1] + 25 and r.winners == (0,)


# --------------------------------------------------------------------------- meld plays
def test_table_card_missing_invalid_meld_and_foreign_cards_refused():
    s = two_player(stock="JH 7S 8S")
    s.draw()
    s.meld(["4S 5S 6S"])
    s.pass_()
    s.draw()                 # seat 1 draws 7S
    e = refused(s, "4", s.meld, ["9S 10S JS"])
    assert "leaves out 4S 5S 6S" in e.reason
    refused(s, "2", s.meld, ["4S 5S 6S 7S", "9S 9D"])
    refused(s, "2", s.meld, ["4S 5S 6S 7S 9S"])
    e = refused(s, "4", s.meld, ["4S 5S 6S", "7H 8H 9H"])
    assert "does not hold" in e.reason
    refused(s, "4", s.meld, ["4S 5S 6S"])     # no hand card
    s.meld(["4S 5S 6S 7S"])                    # a lay-off is a meld play too
    assert s.phase is Phase.END and s.table[0].text() == "4S 5S 6S 7S"
    s.check()


def test_table_jokers_keep_their_card_unless_replaced():
    h0 = "JK 4S 5S 7D 7C AH 2D 3C 8H QC"
    h1 = "6S 7H 9S 9D 10C JC KH KD QS QD"
    s = two_player(stock="2S 9C", hands=(h0, h1))
    s.draw()
    s.meld(["4S 5S JK(6S)"])
    s.pass_()
    s.draw()                 # seat 1 draws 9C
    # the joker changes its card with no natural to replace it
    e = refused(s, "4", s.meld, ["JK(3S) 4S 5S", "9S 9D 9C"])
    assert "keeps its card" in e.reason
    # replaced, but the freed joker is not used again (it would go to the hand)
    e = refused(s, "4", s.meld, ["4S 5S 6S", "9S 9D 9C"])
    assert "jokers" in e.reason
    # replaced by 6S, then used again as 7S
    s.meld(["4S 5S 6S JK(7S)", "9S 9D 9C"])
    assert [m.text() for m in s.table] == ["4S 5S 6S JK(7S)", "9S 9D 9C"]
    s.check()


def test_the_solvers_best_play_is_legal():
    s = two_player(stock="JH")
    s.draw()
    play = s.best_play()
    assert play.can_meld and s.can_meld(Meld(play.melds))
    s.apply(Meld(play.melds))
    assert s.hand_points() == play.points_left


# --------------------------------------------------------------------------- stock out
def test_stock_out_gives_one_last_turn_each_then_no_knocker():
    s = GameState.new(R3, seed=11)
    finder = None
    while s.rounds == []:
        if s.phase in (Phase.DRAW, Phase.MELD):
            rec = s.draw()
            if rec.empty:
                finder = s.current
                assert s.phase is Phase.NO_DRAW      # the drawing stopped, meld allowed
                refused(s, "3.5", s.draw)
                s.pass_()
                order = []
                while s.rounds == []:
                    assert s.phase is Phase.NO_DRAW and s.turn_info.last
                    refused(s, "3.5", s.draw)
                    refused(s, "3.5", s.knock)
                    order.append(s.current)
                    s.pass_()
                assert order == [(finder + 1) % 3, (finder + 2) % 3, finder]
        else:
            s.pass_()
    r = s.rounds[0]
    assert finder is not None and r.how == "stock" and r.knocker is None and not r.undercut
    low = min(r.points)
    assert r.winners == tuple(p for p in range(3) if r.points[p] == low)


# --------------------------------------------------------------------------- scoring by hand
@pytest.mark.parametrize("points, knocker, how, winners, scores, undercut", [
    # the knocker has the lowest count alone: the differences, 7 + 9
    ((3, 10, 12), 0, "knock", (0,), (16, 0, 0), False),
    # undercut: seat 1 beats the knocker: 2 + 9 + 10
    ((5, 3, 12), 0, "knock", (1,), (0, 21, 0), True),
    # the knocker ties with one other: the other wins, with the undercut bonus: 0 + 5 + 10
    ((4, 4, 9), 0, "knock", (1,), (0, 15, 0), True),
    # the knocker ties with two others: both win, each 0 + 0 + 6 + 10
    ((2, 2, 2, 8), 0, "knock", (1, 2), (0, 16, 16, 0), True),
    # two others tie below the knocker: both win, each 4 + 0 + 6 + 10
    ((5, 1, 1, 7), 0, "knock", (1, 2), (0, 20, 20, 0), True),
    # going out: the others' counts and the bonus of 25
    ((0, 7, 12), 0, "out", (0,), (44, 0, 0), False),
    # the stock ran out: no knocker, tied winners both score, no undercut bonus
    ((3, 3, 9), None, "stock", (0, 1), (6, 6, 0), False),
    ((4, 9), None, "stock", (0,), (5, 0), False),
])
def test_round_scoring_by_hand(points, knocker, how, winners, scores, undercut):
    assert score_round(points, knocker, how, R4) == (winners, scores, undercut)


def test_game_end_bonuses_by_hand():
    # 150 reached by seat 0: +100; the others 25 per round won
    assert final_scores((150, 90, 40), (3, 2, 1), R3) == ((250, 140, 65), (0,))
    every = dataclasses.replace(R3, round_bonus_for_all=True)
    assert final_scores((150, 90, 40), (3, 2, 1), every) == ((325, 140, 65), (0,))
    # two players reach it; a tie on the highest total: both win
    assert final_scores((160, 155, 0), (2, 3, 0), R3) == ((260, 255, 0), (0,))
    assert final_scores((150, 125, 0), (1, 1, 0), R3) == ((250, 150, 0), (0,))
    assert final_scores((150, 225, 0), (0, 1, 0), R3)[1] == (1,)
    assert final_scores((155, 130, 0), (0, 5, 0), R3) == ((255, 255, 0), (0, 1))


def test_a_game_runs_to_the_target():
    s = play_game([GreedyBot(), GreedyBot(), GreedyBot()], R3, seed=4)
    assert s.over and max(s.totals) >= 150 and s.final is not None
    assert sum(s.totals) == sum(sum(r.scores) for r in s.rounds)
    assert [r.dealer for r in s.rounds] == [(s.first_dealer + k) % 3 for k in range(len(s.rounds))]
    refused(s, "6", s.draw)
    assert s.legal_actions() == []


# --------------------------------------------------------------------------- replay, JSON, views
def test_replay_and_history_round_trip():
    s = play_game([RandomBot(seed=1), GreedyBot(), RandomBot(seed=2)], R3, seed=9)
    r = replay(R3, s.seed, s.actions)
    assert r.to_dict() == s.to_dict()
    t = GameState.from_json(s.to_json())
    assert t.to_dict() == s.to_dict() and t.final == s.final
    d = s.to_dict()
    d["final"] = [0, 0, 0]
    with pytest.raises(ValueError, match="final"):
        GameState.from_dict(d)


def test_view_shows_only_what_the_player_may_see():
    s = GameState.new(R4, seed=2)
    p = s.current
    s.draw()
    other = (p + 1) % 4
    v = s.view(other)
    assert v.hand == tuple(s.hands[other])
    assert v.hand_sizes == tuple(11 if q == p else 10 for q in range(4))
    assert not hasattr(v, "hands") and not hasattr(v, "stock")
    assert all(getattr(r, "card", None) is None for r in v.history)
    assert all(getattr(r, "deck", ()) == () for r in v.history)
    with pytest.raises(IllegalMove):
        v.verify_meld(["4S 5S 6S"])          # not this player's turn
    mine = s.view(p)
    assert mine.can_draw() == s.can_draw() and mine.legal_actions() == s.legal_actions()


# --------------------------------------------------------------------------- soak
def _soak(games: int, seed: int):
    rng = np.random.default_rng(seed)
    moves = 0
    for _ in range(games):
        n = int(rng.integers(2, 6))
        rules = CarouselRules.for_players(n)
        bots = [RandomBot(seed=int(rng.integers(1 << 30))) for _ in range(n)]
        s = play_game(bots, rules, seed=int(rng.integers(1 << 30)), check=True)
        moves += len(s.actions)
        assert replay(rules, s.seed, s.actions).to_dict() == s.to_dict()
    return moves


def test_soak_random_bots_conservation_after_every_move():
    assert _soak(6, seed=1) > 100


@pytest.mark.slow
def test_soak_random_bots_long():
    _soak(80, seed=2)


# --------------------------------------------------------------------------- rule options
def test_last_turn_knock_option():
    """rules.last_turn_knock: in a last turn after the stock ran out the knock is refused
    (3.5) by default and allowed with the option; the round then ends as a knock."""
    for allowed in (False, True):
        rules = dataclasses.replace(R3, knock_limit=1000, last_turn_knock=allowed)
        s = GameState.new(rules, seed=11)
        while s.rounds == []:
            if s.phase in (Phase.DRAW, Phase.MELD):
                s.draw()
            elif s.turn_info.last:
                p = s.current
                if not allowed:
                    refused(s, "3.5", s.knock)
                    assert Knock() not in s.legal_actions()
                    s.pass_()
                    continue
                assert Knock() in s.legal_actions()
                s.knock()
                r = s.rounds[0]
                assert r.how == "knock" and r.knocker == p
            else:
                s.pass_()
        if not allowed:
            assert s.rounds[0].how == "stock"


def test_last_turn_knock_after_a_meld_waits_for_the_end_of_the_turn():
    """With the option a meld in a last turn leads to the end of the turn (knock or
    pass), not straight to the next player; random bots keep every card in place."""
    rules = dataclasses.replace(R3, knock_limit=40, last_turn_knock=True, target_score=60)
    seen = 0
    for seed in range(12):
        s = GameState.new(rules, seed=seed)
        bots = [RandomBot(seed=seed * 3 + i) for i in range(3)]
        while s.phase is not Phase.OVER:
            last, p = s.turn_info.last, s.current
            a = bots[p].choose(s.view(p))
            s.apply(a)
            s.check()
            if last and isinstance(a, Meld) and s.phase is not Phase.OVER and s.current == p:
                assert s.phase is Phase.END
                seen += 1
    assert seen > 0


def test_game_tie_option(monkeypatch):
    """rules.game_tie: a shared highest final total ends the game with every such player
    a winner ("share"), or deals another round ("play_on") until one leads alone."""
    import rummy51.carousel.engine as engine

    real = engine.final_scores
    calls = []

    def tie_once(totals, rounds_won, rules):
        final, winners = real(totals, rounds_won, rules)
        calls.append(1)
        if len(calls) == 1:
            return (final[0],) * len(final), tuple(range(len(final)))
        return final, winners

    rules = dataclasses.replace(R3, target_score=20)
    monkeypatch.setattr(engine, "final_scores", tie_once)
    shared = play_game([GreedyBot()] * 3, rules, seed=4)
    assert shared.winners == (0, 1, 2) and len(calls) == 1
    calls.clear()
    on = play_game([GreedyBot()] * 3, dataclasses.replace(rules, game_tie="play_on"), seed=4)
    assert len(on.rounds) > len(shared.rounds) and len(calls) >= 2
    assert on.rounds[:len(shared.rounds)] == shared.rounds
    assert len(on.winners) == 1 or len(calls) > 2


@pytest.mark.parametrize("field, value, msg", [
    ("game_tie", "coin", "game_tie must be one of 'share', 'play_on'"),
    ("game_tie", 1, "game_tie must be one of"),
    ("last_turn_knock", 1, "last_turn_knock must be a bool"),
])
def test_rule_option_errors(field, value, msg):
    with pytest.raises((TypeError, ValueError), match=msg):
        CarouselRules(**{field: value})


# --------------------------------------------------------------------------- stock_out
# Tables where the stock runs out most rounds (rules 3.5): small decks, big hands.
STOCK_TABLES = [
    dict(players=5, decks=1, jokers=1, hand_size=9),    # every kind of last card
    dict(players=3, decks=1, jokers=1, hand_size=15),
    dict(players=4, decks=1, jokers=1, hand_size=11),
    dict(players=4, decks=1, jokers=0, hand_size=13),   # the deal takes the last card
]


def _check_stock_out_order(s) -> Counter:
    """Every round of ``s`` in which the stock ran out plays 3.5 as ``rules.stock_out``
    says, read from the history: the turns after the exhauster's ("exhauster") or the
    finder's ("finder") turn are one each, from that player's left round to that player,
    with no draw; a round that reaches their end is scored without a knocker. Returns
    the kinds of last card seen."""
    n = s.rules.players
    kinds: Counter = Counter()
    for so in stock_outs(s):
        kinds[so["kind"]] += 1
        if s.rules.stock_out == "exhauster":
            start, start_turn = so["exhauster"], so["ex_turn"]
        else:
            start, start_turn = so["finder"], so["f_turn"]
            if start is None:   # the round ended before a draw found the stock empty
                assert so["end"] in ("knock", "out", None)
                continue
        later = [t for t in so["turns"] if t[0] > start_turn]
        want = [(start + k) % n for k in range(1, n + 1)]
        assert [t[1] for t in later] == want[:len(later)], (so["round"], later, want)
        assert not any(isinstance(x, DrawRecord) for t in later for x in t[2])
        if so["end"] == "stock":   # 3.5 and 5: scored with no knocker, no undercut bonus
            assert len(later) == n
            res = s.rounds[so["round"]]
            assert res.knocker is None and not res.undercut
            assert res.turns == len(so["turns"])
            low = min(res.points)
            assert res.winners == tuple(p for p in range(n) if res.points[p] == low)
        elif so["end"] is not None and len(later) < n:
            assert so["end"] == "out" or s.rules.last_turn_knock or not later
    return kinds


@pytest.mark.parametrize("stock_out", ["exhauster", "finder"])
def test_stock_out_order_of_the_last_turns(stock_out):
    """rules.stock_out: the last turns start after the turn of the player who took the
    last card ("exhauster", the source) or whose draw found the stock empty ("finder"),
    whichever way the last card went: a third draw, a draw then a meld, a draw then an
    empty draw, the deal. Random bots (who may decline to meld) on small decks."""
    kinds: Counter = Counter()
    for table in STOCK_TABLES:
        rules = CarouselRules(target_score=60, stock_out=stock_out, **table)
        for seed in range(8):
            bots = [RandomBot(seed=10 * seed + i) for i in range(rules.players)]
            kinds += _check_stock_out_order(play_game(bots, rules, seed=seed))
    assert set(kinds) == {"deal", "third", "meld", "same"}, kinds


def test_stock_out_readings_differ_only_when_the_finder_is_not_the_exhauster():
    """The two readings play the same round until the exhauster's turn ends; then the
    exhauster's left has one last turn ("exhauster") or a turn that finds the stock
    empty and then a last turn ("finder"): n + 1 turns after the exhauster's, not n."""
    rules = CarouselRules(players=4, decks=1, jokers=1, hand_size=11, target_score=60)
    seen = Counter()
    for seed in range(12):
        games = {}
        for mode in ("exhauster", "finder"):
            bots = [RandomBot(seed=10 * seed + i) for i in range(4)]
            games[mode] = play_game(bots, dataclasses.replace(rules, stock_out=mode), seed=seed)
        a, b = (stock_outs(games[m])[0] for m in ("exhauster", "finder"))
        assert a["round"] == b["round"] == 0 and a["kind"] == b["kind"]
        assert a["exhauster"] == b["exhauster"] and a["ex_turn"] == b["ex_turn"]
        same = [t[:2] for t in a["turns"] if t[0] <= a["ex_turn"]]
        assert same == [t[:2] for t in b["turns"] if t[0] <= b["ex_turn"]]
        if a["kind"] in ("third", "meld") and a["end"] == b["end"] == "stock":
            assert len(a["turns"]) == a["ex_turn"] + 1 + 4
            assert len(b["turns"]) == b["ex_turn"] + 2 + 4
            assert b["finder"] == (b["exhauster"] + 1) % 4
            seen[a["kind"]] += 1
        elif a["kind"] == "same":
            assert a["finder"] == a["exhauster"] == b["finder"]
            seen["same"] += 1
    assert seen["third"] and seen["same"], seen


def test_the_deal_exhausts_the_stock():
    """A deal that leaves no stock: "exhauster" reads the dealer as the exhauster, so
    every player has one last turn (meld, no draw) from the dealer's left; "finder":
    the dealer's left finds the stock empty, may meld, then the last turns."""
    rules = CarouselRules(players=4, decks=1, jokers=0, hand_size=13, target_score=60)
    s = GameState.new(rules, seed=3)
    assert s.stock_size == 0 and s.phase is Phase.NO_DRAW and s.turn_info.last
    assert s.current == (s.dealer + 1) % 4 and s.view().stock_out
    refused(s, "3.5", s.draw)
    order = []
    while not s.rounds:
        order.append(s.current)
        s.pass_()
    assert order == [(s.rounds[0].dealer + k) % 4 for k in range(1, 5)]
    assert s.rounds[0].how == "stock" and s.rounds[0].turns == 4
    f = GameState.new(dataclasses.replace(rules, stock_out="finder"), seed=3)
    assert f.phase is Phase.DRAW and not f.view().stock_out
    assert f.draw().empty and f.phase is Phase.NO_DRAW and not f.turn_info.last
    while not f.rounds:
        f.pass_()
    assert f.rounds[0].turns == 5


def test_old_histories_replay_as_finder():
    """A history or run written before rules.stock_out existed (no such field in its
    rules) was played with the finder's order, and replays so."""
    rules = CarouselRules(players=4, decks=1, jokers=1, hand_size=11, target_score=60,
                          stock_out="finder")
    s = play_game([RandomBot(seed=i) for i in range(4)], rules, seed=5)
    d = s.to_dict()
    assert d["rules"]["stock_out"] == "finder"
    del d["rules"]["stock_out"]
    again = GameState.from_dict(d)
    assert again.rules.stock_out == "finder" and again.to_dict()["actions"] == d["actions"]
    assert GameState.from_json(s.to_json()).rules == rules
    assert rules_from_dict({"players": 3}).stock_out == "exhauster"


@pytest.mark.parametrize("value, exc", [("source", ValueError), ("Finder", ValueError),
                                        (1, ValueError), (None, ValueError)])
def test_stock_out_errors(value, exc):
    with pytest.raises(exc, match=r"^CarouselRules.stock_out must be one of 'exhauster', "
                                  r"'finder', got "):
        CarouselRules(stock_out=value)
