"""Rummy 51 analysis (issue 30): rollout equities of a decision's candidates.

The equities are checked against an independent estimate: the unseen cards dealt at
random into a copy of the real state (Python, from the true hands and stock, not from
the view code), the move made by the Python engine, the rest of the deal played by the
kernel's whole-deal player with tacticians in every seat."""
import json
import math
from collections import Counter

import numpy as np
import pytest

from rummy51 import RuleSet
from rummy51.analysis import Decision, analyse_game, analyse_position
from rummy51.cli import main
from rummy51.r51.bots import GreedyBot, RandomBot, TacticianBot
from rummy51.r51.engine import GameState
from rummy51.r51.fastgame import known_cards, play_position
from rummy51.r51.notation import parse_action
from rummy51.r51.search import view_position


def _deal(seed, bots=None, players=2):
    s = GameState.new(RuleSet(), players=players, seed=seed)
    bots = bots or [TacticianBot(), GreedyBot()][:players]
    while not s.over:
        s.apply(bots[s.current].choose(s.view(s.current)))
    return s


def _state_at(final, i):
    s = GameState.new(final.rules, players=final.n_players, seed=final.seed, first=final.first)
    for a in final.actions[:i]:
        s.apply(a)
    return s


def _independent(state, move, n, rng):
    """Mean margin and its standard error of ``move`` by the player on turn, from ``n``
    determinizations made here: the unseen cards (the other hands less their known cards,
    and the stock) shuffled into the other hands and the stock of a copy of ``state``."""
    me = state.current
    known = known_cards(state.view(me))
    unseen = Counter(state._stock)
    hidden = {}
    for q in range(state.n_players):
        if q != me:
            rest = Counter(state.hands[q]) - known[q]
            unseen += rest
            hidden[q] = sum(rest.values())
    pool = sorted(unseen.elements())
    xs = []
    for _ in range(n):
        s = state.copy()
        deal = list(rng.permutation(pool))
        for q, h in hidden.items():
            s.hands[q] = sorted(list(known[q].elements()) + [int(c) for c in deal[:h]])
            deal = deal[h:]
        s._stock = [int(c) for c in deal]
        s.apply(move)
        if s.over:
            scores = s.result.scores
        else:
            scores = play_position(s, ["tactician"] * s.n_players, rng=rng).scores
        others = sum(x for q, x in enumerate(scores) if q != me) / (s.n_players - 1)
        xs.append(others - scores[me])
    xs = np.asarray(xs, float)
    return xs.mean(), xs.std(ddof=1) / math.sqrt(n), pool


@pytest.mark.parametrize("seed, index", [(5, 49), (5, 48), (11, 8), (11, 30), (11, 31)])
def test_equities_agree_with_an_independent_estimate(seed, index):
    final = _deal(seed)
    if index >= len(final.actions):
        pytest.skip("the deal is shorter")
    state = _state_at(final, index)
    view = state.view(state.current)
    d = analyse_position(view, rollouts=1500, seed=seed * 100 + index)
    _, pool, _ = view_position(view)
    rng = np.random.default_rng([seed, index, 7])
    for c in d.candidates:
        move = parse_action(c.move.split(" [")[0])
        mean, se, indep_pool = _independent(state, move, 1500, rng)
        assert list(pool) == indep_pool        # the view's unseen cards are the true ones
        tol = 4 * math.sqrt(c.se ** 2 + se ** 2) + 1e-9
        assert abs(c.equity - mean) <= tol, (c.move, c.equity, c.se, mean, se)


def test_a_clear_decision_ranks_the_winning_move_first():
    # seed 5, decision 49: laying QH off leaves one card to discard and go out
    final = _deal(5)
    state = _state_at(final, 49)
    d = analyse_position(state.view(state.current), rollouts=50, seed=1,
                         played=final.actions[49])
    assert d.best.move.startswith("lay off QH") and d.loss == 0.0
    assert d.best.win == 1.0 and d.best.equity > 40
    worst = d.candidates[-1]
    assert worst.move == "discard QH" and worst.win == 0.0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_played_move_is_always_a_candidate(seed):
    # random bots make moves the search never lists (odd lay-downs, lay-offs, swaps)
    bots = [RandomBot(seed=seed), GreedyBot(), RandomBot(seed=seed + 10)]
    final = _deal(seed, bots, players=3)
    a = analyse_game(final, rollouts=2, seed=seed)
    assert [d.index for d in a.decisions] == list(range(len(final.actions)))
    for d, act in zip(a.decisions, final.actions, strict=True):
        moves = [c.move for c in d.candidates]
        assert d.played in moves and len(set(moves)) == len(moves)
        assert d.loss is not None and d.loss >= 0
        # the played move's text reads back to a move making the same position
        state = _state_at(final, d.index)
        s1, s2 = state.copy(), state.copy()
        s1.apply(act)
        s2.apply(parse_action(d.played.split(" [")[0]))
        assert s1.hands == s2.hands and [m.cards for m in s1.table] == [m.cards for m in s2.table]


def test_seeds_reproduce_and_workers_change_nothing():
    final = _deal(7)
    a = analyse_game(final, rollouts=4, seed=3).to_dict()
    b = analyse_game(final.to_json(), rollouts=4, seed=3, workers=2).to_dict()
    assert a == b
    c = analyse_game(final, rollouts=4, seed=4).to_dict()
    assert a["decisions"] != c["decisions"]
    # one decision alone gets the numbers it gets in the whole deal
    one = analyse_game(final, rollouts=4, seed=3, decision=5)
    assert one.decisions[0].to_dict() == a["decisions"][5]


def test_bad_input_is_named():
    final = _deal(7)
    with pytest.raises(ValueError, match="out of range"):
        analyse_game(final, rollouts=2, decision=len(final.actions))
    # the budget is checked as Carousel's is (one helper, the same bounds and words)
    with pytest.raises(ValueError, match=r"rollouts must be 1\.\.100000 \(per candidate\), got 0"):
        analyse_game(final, rollouts=0)
    with pytest.raises(ValueError, match="time must be a positive number of seconds"):
        analyse_game(final, time=0)
    with pytest.raises(ValueError, match="does not replay under the given rules"):
        analyse_game(final, rules=RuleSet(jokers=0), rollouts=2)
    d = final.to_dict()
    d["actions"][3] = {"type": "discard", "card": "JK"}
    with pytest.raises(ValueError, match="does not replay"):
        analyse_game(d, rollouts=2)
    state = _state_at(final, 1)
    with pytest.raises(ValueError, match="illegal here"):
        analyse_position(state.view(state.current), rollouts=2, played="draw bottom")
    with pytest.raises(ValueError, match="on turn"):
        analyse_position(state.view(1 - state.current), rollouts=2)


# --------------------------------------------------------------------------- the CLI
def _cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_json_shape(tmp_path, capsys):
    final = _deal(5)
    path = tmp_path / "deal.json"
    path.write_text(final.to_json())
    code, out, err = _cli(capsys, "analyse", str(path), "--decision", "49", "--rollouts", "20",
                          "--seed", "1", "--json")
    assert code == 0, err
    js = json.loads(out)
    assert js["game"]["game"] == "rummy51" and js["game"]["seed"] == 1
    (d,) = js["decisions"]
    assert d["index"] == 49 and d["player"] == 0 and d["loss"] == 0.0
    assert d["played"] in [c["move"] for c in d["candidates"]]
    for c in d["candidates"]:
        assert set(c) == {"move", "equity", "se", "win", "win_lo", "win_hi", "rollouts"}
        assert c["win_lo"] <= c["win"] <= c["win_hi"] and c["rollouts"] == 20
    eq = [c["equity"] for c in d["candidates"]]
    assert eq == sorted(eq, reverse=True)
    code, text, _ = _cli(capsys, "analyse", str(path), "--decision", "49", "--rollouts", "20",
                         "--seed", "1")
    assert code == 0 and "*  1 lay off QH on meld 0" in text


def test_cli_jsonl_and_position(tmp_path, capsys):
    path = tmp_path / "deals.jsonl"
    path.write_text(_deal(5).to_json() + "\n" + _deal(7).to_json() + "\n")
    code, out, err = _cli(capsys, "analyse", str(path), "--game", "1", "--decision", "0",
                          "--rollouts", "4", "--seed", "2", "--json")
    assert code == 0, err and len(out.splitlines()) == 1
    code, out, err = _cli(capsys, "analyse", "--hand", "7S 8S 9S QH QD 2C 5D 9H JC KS 3H 4D 6C",
                          "--discard", "QC", "--rollouts", "10", "--seed", "3", "--json")
    assert code == 0, err
    (d,) = json.loads(out)["decisions"]
    assert d["played"] is None and d["loss"] is None
    assert {c["move"] for c in d["candidates"]} == {"draw stock", "draw discard"}


@pytest.mark.parametrize("argv, words", [
    (["--decision", "999"], "--decision 999 is out of range"),
    (["--rollouts", "0"], "--rollouts"),
    (["--rollouts", "-3"], "--rollouts"),
    (["--time", "0"], "--time"),
    (["--jokers", "0"], "does not replay under the given rules"),
    (["--game", "3"], "--game 3 is out of range"),
])
def test_cli_bad_history_input(tmp_path, capsys, argv, words):
    path = tmp_path / "deal.json"
    path.write_text(_deal(5).to_json())
    code, out, err = _cli(capsys, "analyse", str(path), *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


@pytest.mark.parametrize("argv, words", [
    (["--hand", "7S 7S 7S 8S"], "impossible card counts: 3 x 7S"),
    (["--hand", "7S 8S", "--hand-sizes", "2,20,20,20,20,20,20", "--players", "7"],
     "impossible card counts"),
    (["--hand", "7S 8S", "--hand-sizes", "3,13"], "--hand-sizes"),
    (["--hand", "7S 8Q"], "--hand"),
    (["--hand", "7S 8S", "--table", "4H 5H 9C"], "--table"),
    (["--hand", "7S 8S", "--turn", "3"], "--turn"),
    ([], "give a HISTORY"),
])
def test_cli_bad_position_input(capsys, argv, words):
    code, out, err = _cli(capsys, "analyse", *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err, err


def test_a_decision_is_frozen_data():
    final = _deal(5)
    state = _state_at(final, 0)
    d = analyse_position(state.view(state.current), rollouts=3, seed=9)
    assert isinstance(d, Decision) and d.info["tactician"] in [c.move for c in d.candidates]
    assert all(c.rollouts == 3 for c in d.candidates)


def test_hint_in_play_ranks_the_moves_and_a_hinted_move_can_be_typed(capsys, monkeypatch):
    import io

    # seat 0 starts with a full hand: its first decision is a discard
    monkeypatch.setattr("sys.stdin", io.StringIO("hint\nhint\nq\n"))
    assert main(["play", "--bots", "tactician", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    hints = [block for block in out.split("hint (play")[1:]]
    assert len(hints) == 2
    assert hints[0].split("\n> ")[0] == hints[1].split("\n> ")[0]  # seeded (the next answer echoed)
    best = hints[0].splitlines()[2].split()[1:3]          # e.g. ['discard', 'AS']
    assert best[0] == "discard"
    monkeypatch.setattr("sys.stdin", io.StringIO(f"hint\n{' '.join(best)}\nq\n"))
    assert main(["play", "--bots", "tactician", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "left the deal" in out and "seat 1:" in out     # the typed move was played


def test_report_blunder_table_of_a_run_with_histories(tmp_path, capsys):
    from rummy51.reports._model import load_run
    from rummy51.reports.games import game_sections

    out = tmp_path / "run"
    assert main(["simulate", "games", "--games", "3", "--bots", "tactician,greedy",
                 "--histories", "--out", str(out), "--seed", "1", "--workers", "1",
                 "--no-progress"]) == 0
    capsys.readouterr()
    run = load_run(out)
    secs = game_sections([run], bootstrap=10, blunder_games=2, blunder_rollouts=4)
    (blunders,) = [s for s in secs if s.anchor == "blunders"]
    bt, wt = blunders.items[0].data, blunders.items[1].data
    assert set(bt.bot) == {"tactician", "greedy"} and "2 of 3 deals" in blunders.intro
    assert (bt.mean_loss >= 0).all() and bt.decisions.sum() > 10
    assert (wt.loss >= 0).all() and wt.command.str.startswith("rummy51 analyse ").all()
    # the same sample again gives the same table (seeded)
    again = game_sections([run], bootstrap=10, blunder_games=2, blunder_rollouts=4)
    assert again[-1].items[0].data.equals(bt)
    # a run without histories has no blunder section
    plain = tmp_path / "plain"
    assert main(["simulate", "games", "--games", "2", "--bots", "tactician,greedy",
                 "--out", str(plain), "--seed", "1", "--workers", "1", "--no-progress"]) == 0
    assert all(s.anchor != "blunders" for s in game_sections([load_run(plain)], bootstrap=10))
