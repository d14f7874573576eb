"""The Carousel search bot (``carousel.bots.SearchBot``, ``_carousel_search.pxi``): the
kernel and the Python engine play the same games move for move; it sees only its view;
its budget, early stop and errors."""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from rummy51 import _carousel
from rummy51.carousel import CarouselRules
from rummy51.carousel import bots as cbots
from rummy51.carousel.actions import Draw, Knock, Phase
from rummy51.carousel.bots import (
    CarefulBot,
    GreedyBot,
    PlainSearchBot,
    SearchBot,
    check_search_rules,
    game_rules,
    make_bot,
    parse_bot,
    play_game,
)
from rummy51.carousel.engine import GameState
from rummy51.cli.carousel_simulate import add_simulate_parser, run_simulate
from rummy51.studies._carousel_plan import CHUNK_COLUMNS, parse_bots, play_kernel_game, uses_kernel
from rummy51.studies.carousel import simulate_carousel
from test_carousel_engine import HAND0, HAND1, stacked
from test_carousel_kernel import _same_game


def _table(players: int, search_seats, rollouts: int = 16, careful=()):
    def make():
        return [SearchBot(seed=100 + i, rollouts=rollouts) if i in search_seats
                else CarefulBot(seed=200 + i) if i in careful else GreedyBot()
                for i in range(players)]
    return make


# --------------------------------------------------------------------------- kernel == engine
@pytest.mark.parametrize("players, kw, seats, careful, seeds", [
    (2, {}, (0,), (), 4),
    (2, {}, (0, 1), (), 2),
    (3, {}, (1,), (2,), 2),
    (4, {}, (0, 2), (), 2),
    (2, {"last_turn_knock": True}, (0,), (), 2),
    (3, {"knock_limit": 10}, (0, 1, 2), (), 1),
    (2, {"max_jokers_per_meld": 1, "target_score": 80}, (1,), (0,), 2),
    (2, {"game_tie": "play_on", "target_score": 60}, (0,), (), 2),
])
def test_kernel_plays_the_search_bot_move_for_move(players, kw, seats, careful, seeds):
    """A search seat in the kernel plays the Python SearchBot's games: every draw, meld,
    knock and pass, and the records (the same C decision on the same generator)."""
    rules = CarouselRules.for_players(players, **kw)
    for seed in range(seeds):
        _same_game(rules, seed, _table(players, seats, careful=careful))


# (table, search seats, seeds) where the stock runs out with search seats at the table
_STOCK = dict(decks=1, jokers=1, target_score=60)
STOCK_TABLES = [
    (dict(players=2, hand_size=26, knock_limit=0, target_score=100, decks=1, jokers=1),
     (0, 1), (0, 1, 2)),
    (dict(players=5, hand_size=9, **_STOCK), (0, 3), (0, 1, 4)),
    (dict(players=4, hand_size=12, **_STOCK), (1,), (17, 21)),
    (dict(players=4, hand_size=13, decks=1, jokers=0, target_score=60), (0,), (0,)),
]


@pytest.mark.parametrize("stock_out", ["exhauster", "finder"])
@pytest.mark.parametrize("table, seats, seeds", STOCK_TABLES)
def test_search_seats_run_the_stock_out_move_for_move(table, seats, seeds, stock_out):
    """Tables where the stock runs out (one deck, big hands; the last one deals it all),
    under both ``rules.stock_out`` orders: the kernel plays the engine's games with
    search seats move for move, and the seeds do run the stock out."""
    from carousel_helpers import stock_outs

    rules = CarouselRules(stock_out=stock_out, **table)
    outs = 0
    for seed in seeds:
        _same_game(rules, seed, _table(rules.players, seats))
        s = play_game(_table(rules.players, seats)(), rules, seed=seed)
        outs += len(stock_outs(s))
    assert outs > 0


def test_search_seats_take_and_find_the_last_card():
    """Over the tables above, a search seat is the exhauster of some round, and (under
    "finder") the finder of some round: its decisions with an empty stock are played."""
    from carousel_helpers import stock_outs

    seen = set()
    for table, seats, seeds in STOCK_TABLES[:3]:
        for stock_out in ("exhauster", "finder"):
            rules = CarouselRules(stock_out=stock_out, **table)
            for seed in seeds:
                s = play_game(_table(rules.players, seats)(), rules, seed=seed)
                for so in stock_outs(s):
                    if so["exhauster"] in seats:
                        seen.add("exhauster")
                    if stock_out == "finder" and so["finder"] in seats:
                        seen.add("finder")
    assert seen == {"exhauster", "finder"}


def _rollout_against_kernel(rules: CarouselRules, seed: int):
    """The search's rollout of a game's first round (every seat greedy) and the kernel's
    greedy first round of the same game: ``(rollout, kernel)``, each ``(points,
    margins)``."""
    from rummy51.r51.engine import normalize_seed

    rng, _ = normalize_seed(seed)
    dealer = int(rng.integers(rules.players))     # as GameState.new and the kernel
    deck = rng.permutation(np.asarray(rules.deck(), np.int64)).astype(np.uint8)
    got = _carousel.search_rollout_round(cbots._core_rules(rules), game_rules(rules), deck,
                                         dealer)
    rows, _ = play_kernel_game(rules, seed)
    cols = {c: k for k, c in enumerate(CHUNK_COLUMNS)}
    r0 = rows[rows[:, cols["round"]] == 0]
    r0 = r0[np.argsort(r0[:, cols["seat"]])]
    score = r0[:, cols["score"]].astype(float)
    n = rules.players
    margins = [score[p] - (score.sum() - score[p]) / (n - 1) for p in range(n)]
    return got, ([int(x) for x in r0[:, cols["points"]]], margins)


# (table, whether the two orders give another first round on some of the seeds)
_ROLLOUT_TABLES = [(dict(players=5, hand_size=9, decks=1, jokers=1), True),
                   (dict(players=4, hand_size=12, decks=1, jokers=1), True),
                   (dict(players=2, hand_size=26, decks=1, jokers=1, knock_limit=0), False),
                   (dict(players=4, hand_size=13, decks=1, jokers=0), True)]


@pytest.mark.parametrize("table, differs", _ROLLOUT_TABLES)
def test_rollouts_follow_the_stock_out_order(table, differs):
    """The rollout plays a round as the kernel's greedy seats do under both
    ``rules.stock_out`` orders, on tables whose stock runs out (the last one deals the
    whole deck); and the orders give other rounds on some seeds, so a rollout that
    followed one order for both would fail."""
    differ = 0
    for seed in range(12):
        ends = []
        for stock_out in ("exhauster", "finder"):
            got, want = _rollout_against_kernel(CarouselRules(stock_out=stock_out, **table),
                                                seed)
            assert got[0] == want[0], (stock_out, seed)
            assert got[1] == pytest.approx(want[1]), (stock_out, seed)
            ends.append(got)
        differ += ends[0] != ends[1]
    assert differ > 0 or not differs


def test_rollout_hook_input():
    rules = CarouselRules.for_players(2)
    with pytest.raises(ValueError, match="deck must hold 53 cards"):
        _carousel.search_rollout_round(cbots._core_rules(rules), game_rules(rules),
                                       np.zeros(10, np.uint8), 0)


@pytest.mark.parametrize("stock_out", ["exhauster", "finder"])
def test_search_seats_with_permuted_seats_and_histories(tmp_path, stock_out):
    """``seats="permute"`` with ``histories`` (the Python engine plays every game) gives
    the records of the kernel's permuted run, on a table that runs the stock out; the
    histories replay."""
    from rummy51.carousel.engine import GameState as GS
    from rummy51.studies.carousel import read_histories

    rules = CarouselRules(players=2, hand_size=26, knock_limit=0, target_score=60, decks=1,
                          jokers=1, stock_out=stock_out)
    kw = dict(players=2, bots="search:8,greedy", games=3, rules=rules, seed=7, workers=1,
              chunk_size=2, progress=False, seats="permute")
    st = simulate_carousel(out=tmp_path / "h", histories=True, **kw)
    assert st.plays == 6
    assert st.same_records(simulate_carousel(**kw))
    hs = list(read_histories(tmp_path / "h"))
    assert len(hs) == 6 and all(GS.from_dict(h).over for h in hs)
    # the search seat sits in both seats
    last = st.records[st.records["last_round"]]
    assert set(last[last["bot"] == "search:8"]["seat"]) == {0, 1}


def test_search_moves_are_its_own():
    """The test above can fail: the search seat's games are not the greedy ones."""
    rules = CarouselRules.for_players(2)
    differ = 0
    for seed in range(3):
        a = play_kernel_game(rules, seed, trace=True, bots=_table(2, (0,))())[2]
        b = play_kernel_game(rules, seed, trace=True)[2]
        differ += a.shape != b.shape or not (a == b).all()
    assert differ > 0


def test_search_games_are_reproducible_from_the_seeds():
    rules = dataclasses.replace(CarouselRules.for_players(2), target_score=80)
    a = play_game(_table(2, (0,))(), rules, seed=4)
    b = play_game(_table(2, (0,))(), rules, seed=4)
    assert a.to_dict() == b.to_dict()


def test_simulate_search_table_uses_the_kernel():
    kw = dict(players=2, bots="search:12,greedy", games=3, seed=5, workers=1, chunk_size=2,
              progress=False)
    assert uses_kernel(("search:12", "greedy"), CarouselRules.for_players(2), "c")
    c = simulate_carousel(**kw)
    py = simulate_carousel(engine="python", **kw)
    assert c.same_records(py) and c.turns == py.turns
    assert c.bots == ("search:12", "greedy")


# --------------------------------------------------------------------------- what it sees
def _after_first_draw(other_hand, stock="JH"):
    rules = CarouselRules.for_players(2)
    s = GameState.new(rules, seed=1, dealer=1, decks=[stacked(rules, (HAND0, other_hand), stock)])
    s.draw()
    assert s.phase is Phase.MELD and s.current == 0
    return s


def test_the_search_sees_only_its_view():
    """Two games that differ only in cards player 0 has not seen (the other hand and the
    stock): the same view, so the same move and the same random numbers used."""
    s1 = _after_first_draw(HAND1)
    s2 = _after_first_draw("2C 3D 4C 5D 6C 7D 8C 9C JC KD")
    v1, v2 = s1.view(0), s2.view(0)
    assert v1.hand == v2.hand and v1.table == v2.table and v1.stock_count == v2.stock_count
    assert s1.hands[1] != s2.hands[1] and s1.stock != s2.stock
    b1, b2 = SearchBot(seed=3, rollouts=40), SearchBot(seed=3, rollouts=40)
    a1, a2 = b1.choose(v1), b2.choose(v2)
    assert a1 == a2
    assert b1.used == b2.used > 0      # it searched: a play exists
    assert b1.rng.bit_generator.state == b2.rng.bit_generator.state


def test_no_legal_play_draws_on_without_a_random_number():
    rules = CarouselRules.for_players(2)
    s2 = GameState.new(rules, seed=1, dealer=1, decks=[stacked(
        rules, ("AS 3H 5C 7D 8S JH KC 2D 4H 6C", HAND1), "QS")])
    s2.draw()
    b = SearchBot(seed=1)
    before = b.rng.bit_generator.state
    assert b.choose(s2.view()) == Draw()
    assert b.rng.bit_generator.state == before and b.used == 0


def test_a_melding_position_is_searched_and_its_play_is_legal():
    s = _after_first_draw(HAND1)
    b = SearchBot(seed=2, rollouts=64)
    a = b.choose(s.view())
    assert b.decisions == 1 and 0 < b.used <= 64
    s.apply(a)                          # the engine accepts it (Draw or a legal Meld)
    s.check()


def _decide(s: GameState, decision, rollouts=400, seed=0, **kw):
    v = s.view()
    args = dict(H=[0] * 52, JH=0)
    for c in v.hand:
        if c == 52:
            args["JH"] += 1
        else:
            args["H"][c] += 1
    T, D, jt = cbots._table_counts(v.table)
    sizes = kw.pop("sizes", v.hand_sizes)
    return _carousel.search_decide(
        _carousel.CoreRules(v.rules), game_rules(v.rules), np.random.default_rng(seed), decision,
        bytes(args["H"]), args["JH"], T, D, jt, sizes, v.player, v.stock_count,
        v.turn_info.draws, v.stock_out, rollouts, kw.get("z_stop", 2.0), kw.get("z_play", 1.0))


def _at_end_of_turn():
    rules = CarouselRules.for_players(2)
    s = GameState.new(rules, seed=1, dealer=1, decks=[stacked(rules, (HAND0, HAND1), "JH")])
    s.draw()
    s.meld(["4S 5S 6S", "7H 8H 9H 10H JH"])
    assert s.phase is Phase.END and s.hand_points() == 4
    return s


def test_a_clear_knock_is_decided_early():
    """Knocking with 4 points against a 10-card hand: every determinization says so,
    the paired test stops after the first batch, far inside the budget."""
    s = _at_end_of_turn()
    choice, part, jokers, used = _decide(s, _carousel.SEARCH_KNOCK, rollouts=400)
    assert choice == 0 and part is None
    assert 0 < used < 400
    assert SearchBot(seed=1).choose(s.view()) == Knock()


def test_the_budget_bounds_the_rollouts():
    s = _after_first_draw(HAND1)
    for budget in (1, 7, 30, 90):
        choice, part, jokers, used = _decide(s, _carousel.SEARCH_MELD, rollouts=budget)
        assert used <= budget
        assert choice >= 0


def test_the_chosen_part_makes_the_play_the_kernel_makes():
    """The part of the hand returned is what best_play is given: its play is legal."""
    s = _after_first_draw(HAND1)
    for seed in range(4):
        choice, part, jokers, used = _decide(s, _carousel.SEARCH_MELD, rollouts=60, seed=seed)
        if part is not None:
            hand = list(s.view().hand)
            sub = [c for c in range(52) for _ in range(part[c])] + [52] * jokers
            assert all(sub.count(c) <= hand.count(c) for c in set(sub))


def test_a_view_that_is_no_position_is_refused():
    s = _after_first_draw(HAND1)
    with pytest.raises(ValueError, match="the view is not a position of the game"):
        _decide(s, _carousel.SEARCH_MELD, sizes=(11, 30))


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kw, exc, msg", [
    ({"rollouts": 0}, ValueError, "rollouts must be 1..100000, got 0"),
    ({"rollouts": -5}, ValueError, "rollouts must be 1..100000, got -5"),
    ({"rollouts": 2.5}, TypeError, "rollouts must be an int, got 2.5"),
    ({"rollouts": True}, TypeError, "rollouts must be an int"),
    ({"z_stop": 0}, ValueError, "z_stop must be > 0"),
    ({"z_play": -1}, ValueError, "z_play must be >= 0"),
    ({"z_play": "1"}, TypeError, "z_play must be a number"),
])
def test_bad_search_bot_arguments(kw, exc, msg):
    with pytest.raises(exc, match=msg):
        SearchBot(**kw)


def test_numpy_ints_are_budgets():
    assert SearchBot(rollouts=np.int64(8)).rollouts == 8


def test_bot_names():
    assert parse_bot("search") == ("search", {})
    assert parse_bot("Search:32") == ("search", {"rollouts": 32})
    assert make_bot("search:5", seed=1).rollouts == 5
    assert parse_bots("search:5,greedy", None) == (("search:5", "greedy"), 2)
    for bad, msg in (("search:0", "at least 1 rollout, got 0"), ("search:-2", "got -2"),
                     ("search:x", "must be an int"), ("greedy:4", "only the search bot"),
                     ("serch", "is not a Carousel bot")):
        with pytest.raises(ValueError, match=msg):
            parse_bots(f"{bad},greedy", None)


def test_rules_the_search_does_not_play_are_refused_before_a_game(monkeypatch, tmp_path):
    """A rules field the rollouts do not know (here one made unknown) is named, and no
    run directory is made."""
    monkeypatch.setattr(cbots, "_SEARCH_FIELDS", cbots._SEARCH_FIELDS - {"last_turn_knock"})
    rules = CarouselRules.for_players(2, last_turn_knock=True)
    with pytest.raises(ValueError, match=r"does not play rules.last_turn_knock = True"):
        simulate_carousel(players=2, bots="search,greedy", rules=rules, games=2, seed=1,
                          workers=1, progress=False, out=tmp_path / "run")
    assert not (tmp_path / "run").exists()
    check_search_rules(CarouselRules.for_players(2))   # the default rules are played


def _cli(argv):
    p = argparse.ArgumentParser(prog="rummy51")
    add_simulate_parser(p.add_subparsers())
    return p.parse_args(["simulate"] + argv)


@pytest.mark.parametrize("bots, msg", [
    ("search:0,greedy", "the search bot's budget must be at least 1 rollout, got 0"),
    ("search:-1,greedy", "got -1"),
    ("searchy,greedy", "'searchy' is not a Carousel bot"),
])
def test_cli_bad_search_input_is_one_line(bots, msg, capsys):
    from rummy51.cli import main

    assert main(["carousel", "simulate", "--players", "2", "--bots", bots, "--games", "2",
                 "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and msg in err


def test_cli_plays_a_search_table(capsys):
    assert run_simulate(_cli(["--players", "2", "--bots", "search:8,greedy", "--games", "2",
                              "--seed", "3", "--workers", "1", "--no-progress"])) == 0
    assert "search:8" in capsys.readouterr().out


# --------------------------------------------------------------------------- search-plain
_PLAIN = json.loads((Path(__file__).parent / "data" / "carousel_search_plain.json").read_text())
_PLAIN_TABLES = [
    (2, {}, (0,), (), 3, 64),
    (2, {}, (0, 1), (), 2, 64),
    (3, {}, (1,), (2,), 1, 32),
    (4, {}, (0, 2), (), 1, 16),
    (2, {"last_turn_knock": True}, (0,), (), 2, 32),
    (2, {"game_tie": "play_on", "target_score": 60, "knock_limit": 10}, (0, 1), (), 2, 32),
]


def _plain_game(cls, players, kw, seats, careful, seed, rollouts):
    """The digest of one kernel game (records and move trace) with ``cls`` search seats."""
    rules = CarouselRules.for_players(players, **kw)
    bots = [cls(seed=100 + i, rollouts=rollouts) if i in seats else CarefulBot(seed=200 + i)
            if i in careful else GreedyBot() for i in range(players)]
    rows, _, ev = play_kernel_game(rules, seed, trace=True, bots=bots)
    ev = ev.copy()
    ev[ev[:, 2] == 3, 4] = 0     # a pass's b (a knock held back) was 0 in every pass then
    return [hashlib.sha256(rows.tobytes() + ev.tobytes()).hexdigest()[:16], len(ev), len(rows)]


@pytest.mark.parametrize("players, kw, seats, careful, seeds, rollouts", _PLAIN_TABLES)
def test_search_plain_plays_the_old_search_games(players, kw, seats, careful, seeds, rollouts):
    """``search-plain`` plays, for the same seeds, the games the search bot played before
    knocks could be held back (digests made with that bot: tests/data), and the new
    default search plays other games where search seats meet (a knock decision's passes
    differ); against greedy seats the knocks are clear, the games mostly the same."""
    differ = 0
    for seed in range(seeds):
        key = f"{players}-{sorted(kw.items())}-{seats}-{careful}-{seed}-{rollouts}"
        assert _plain_game(PlainSearchBot, players, kw, seats, careful, seed,
                           rollouts) == _PLAIN["games"][key], key
        if len(seats) > 1 and players == 2 and not kw and seed == 0:
            differ += _plain_game(SearchBot, players, kw, seats, careful, seed,
                                  rollouts) != _PLAIN["games"][key]
    assert differ > 0 or not (len(seats) > 1 and players == 2 and not kw)


def test_search_plain_in_a_study_keeps_its_records():
    """A permuted study of ``search-plain:24`` against greedy gives the records the
    search bot's gave before (its name aside)."""
    st = simulate_carousel(players=2, bots="search-plain:24,greedy", games=2, seed=9, workers=1,
                           chunk_size=2, progress=False, seats="permute")
    got = hashlib.sha256(st.records.drop(columns=["bot"]).to_csv().encode()).hexdigest()[:16]
    assert got == _PLAIN["simulate_permuted_search24_greedy_seed9_games2"]
    assert set(st.records["bot"]) == {"search-plain:24", "greedy"}


def test_search_plain_names():
    assert parse_bot("search-plain") == ("search-plain", {})
    assert parse_bot("Search_Plain:16") == ("search-plain", {"rollouts": 16})
    assert parse_bot("searchplain") == ("search-plain", {})
    b = make_bot("search-plain:5", seed=1)
    assert type(b) is PlainSearchBot and b.rollouts == 5
    assert b.kernel_spec()[0] == "search-plain" and make_bot("search").kernel_spec()[0] == "search"
    assert parse_bots("search-plain:5,search", None) == (("search-plain:5", "search"), 2)
    assert uses_kernel(("search-plain", "search"), CarouselRules.for_players(2), "c")
