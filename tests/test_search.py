"""The search bot (issue 13) and the kernel positions it rolls out from: a position loaded
from a state plays on as the Python engine does, the bot sees its view only, plays legal
moves, is seeded, and refuses bad parameters."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import rummy51
from rummy51 import RuleSet, _game
from rummy51.r51.actions import Discard, DrawRecord, Phase
from rummy51.r51.bots import BOTS, GreedyBot, HandHunterBot, TacticianBot, play_deal
from rummy51.r51.engine import GameState
from rummy51.r51.fastgame import greedy_kernel, play_kernel_deal, play_position, position, supported
from rummy51.r51.search import (
    DEFAULT_HORIZON,
    DEFAULT_ROLLOUTS,
    LearnedSearchBot,
    SearchBot,
    known_cards,
    view_position,
)

R = RuleSet()


def advance(state: GameState, bots, moves: int) -> GameState:
    """``moves`` moves of ``bots`` (or until the deal ends)."""
    for _ in range(moves):
        if state.over:
            break
        state.apply(bots[state.current].choose(state.view()))
    return state


# =========================================================================== positions
@pytest.mark.parametrize("seed", range(12))
def test_a_loaded_position_plays_on_as_the_python_engine(seed):
    players = 2 + seed % 3
    rules = [R, R.replace(jokers=2), R.replace(discard_card_must_meld=True),
             R.replace(bottom_card=False, threshold=40)][seed % 4]

    def make():
        return [[TacticianBot(), GreedyBot(), HandHunterBot(p_hold=0.05)][i % 3]
                for i in range(players)]

    state = advance(GameState.new(rules, players=players, seed=seed, first=seed % players),
                    make(), 3 + (7 * seed) % 25)
    if state.over:
        pytest.skip("the deal ended early")
    before = state.copy()
    cont = play_position(state, make(), record=True)
    py = play_deal(make(), state=state.copy())
    assert (cont.winner, cont.how, cont.scores) == (py.result.winner, py.result.how,
                                                    py.result.scores)
    assert list(cont.actions) == list(py.actions[len(state.actions):])
    assert list(state.actions) == list(before.actions) and state.hands == before.hands


def test_a_position_with_reshuffles_meets_the_same_ones():
    # a 2-player deal on a small deck with a long cap: the stock runs out and is refilled
    rules = R.replace(decks=1, jokers=0, max_turns=400)
    hits = 0
    for seed in range(30):
        state = advance(GameState.new(rules, players=2, seed=seed), [GreedyBot(), GreedyBot()], 6)
        if state.over:
            continue
        py = play_deal([GreedyBot(), GreedyBot()], state=state.copy())
        cont = play_position(state, ["greedy", "greedy"], record=True)
        assert list(cont.actions) == list(py.actions[len(state.actions):])
        assert cont.scores == py.result.scores
        hits += any(getattr(r, "kind", None) == "reshuffle" for r in py.history)
    assert hits > 0


def test_position_refuses_what_it_cannot_play():
    state = play_deal([GreedyBot(), GreedyBot()], R, seed=1)
    with pytest.raises(ValueError, match="over"):
        position(state)
    two = R.replace(max_jokers_per_meld=2)
    assert supported(two) is not None
    with pytest.raises(ValueError, match="max_jokers_per_meld"):
        position(GameState.new(two, players=2, seed=1))
    with pytest.raises(ValueError, match="bots for"):
        play_position(GameState.new(R, players=2, seed=1), ["greedy"])
    class Mine(TacticianBot):
        pass

    with pytest.raises(ValueError, match="built-in bots"):
        play_position(GameState.new(R, players=2, seed=1), ["greedy", Mine()])


def test_rollouts_refuse_a_move_that_is_not_there():
    state = GameState.new(R, players=2, seed=3)
    pos, pool, hidden = view_position(state.view())
    missing = next(c for c in range(52) if c not in state.hands[0])
    out = np.empty((1, 2, 2), np.int32)
    with pytest.raises(ValueError, match="not a move here"):
        pos.rollouts(pool, hidden, np.array([[4, missing, 0]], np.int32),
                     np.random.default_rng(0), [3, 3], [None, None], out)
    with pytest.raises(ValueError, match="random"):
        pos.rollouts(pool, hidden, np.array([[4, state.hands[0][0], 0]], np.int32),
                     np.random.default_rng(0), [0, 3], [None, None], out)


# =========================================================================== what it sees
def test_known_cards_follow_the_public_history():
    for seed in range(40):
        state = GameState.new(R, players=2, seed=seed)
        bots = [TacticianBot(), TacticianBot()]
        while not state.over and state.turn < 30:
            state.apply(bots[state.current].choose(state.view()))
            if state.over:
                break
            view = state.view(0)
            known = known_cards(view)
            assert not known[0]
            assert not (known[1] - Counter(state.hands[1])), "known cards are in the hand"
            _pos, pool, hidden = view_position(view)
            assert len(pool) == int(hidden.sum()) + view.stock_count
            truth = Counter(state.hands[1]) - known[1] + Counter(state.stock)
            assert Counter(pool.tolist()) == truth
        if any(type(r) is DrawRecord and r.card is not None and r.player == 1
               for r in state.view(0).history):
            return
    pytest.fail("no deal had a discard taken")  # pragma: no cover


def _decision_state(seed: int):
    """A 2-player state at a discard the search bot (seat 0) searches, no card of seat 1's
    hand known to seat 0 (seat 1 never drew from the discard pile)."""
    state = GameState.new(R, players=2, seed=seed)
    tact = [TacticianBot(), TacticianBot()]
    while not state.over:
        view = state.view()
        a = tact[state.current].choose(view)
        if (state.current == 0 and isinstance(a, Discard) and state.turn >= 2
                and not known_cards(state.view(0))[1]):
            return state
        state.apply(a)
    return None


@pytest.mark.parametrize("seed", range(4))
def test_the_decision_does_not_depend_on_hidden_cards(seed):
    """Deal seat 1's hand and the stock again at random (same sizes): the view of seat 0 is
    the same, and so is the search bot's move with the same seed."""
    state = next(s for s in (_decision_state(seed * 50 + k) for k in range(50)) if s is not None)
    other = state.copy()
    hidden = other.hands[1] + other._stock
    rng = np.random.default_rng(seed)
    while True:
        perm = [int(c) for c in rng.permutation(hidden)]
        if sorted(perm[:len(other.hands[1])]) != sorted(other.hands[1]):
            break
    other.hands[1] = sorted(perm[:len(other.hands[1])])
    other._stock = perm[len(other.hands[1]):]
    other.check()
    assert other.hands[1] != state.hands[1] or other._stock != state._stock
    a, b = SearchBot(seed=seed, rollouts=60), SearchBot(seed=seed, rollouts=60)
    move = a.choose(state.view(0))
    assert b.choose(other.view(0)) == move
    assert a.searches == b.searches == 1 and a.rollouts_played == b.rollouts_played > 0


# =========================================================================== play
@pytest.mark.parametrize("players", [2, 3, 4])
def test_search_bot_plays_legal_moves(players):
    bots = [SearchBot(seed=players, rollouts=24)] + [TacticianBot() for _ in range(players - 1)]
    state = GameState.new(R, players=players, seed=players + 10)
    while not state.over:
        p = state.current
        view = state.view(p)
        action = bots[p].choose(view)
        assert view.is_legal(action)
        state.apply(action)
        state.check()
    assert bots[0].searches > 0 and bots[0].rollouts_played > 0


def test_search_bot_is_seeded():
    def deal(seed):
        return play_deal([SearchBot(seed=seed, rollouts=30), TacticianBot()], R, seed=4).actions

    assert deal(7) == deal(7)
    assert any(deal(s) != deal(7) for s in (1, 2, 3))  # the seed matters somewhere


def test_time_budget():
    bot = SearchBot(seed=1, rollouts=None, time_ms=3)
    state = play_deal([bot, TacticianBot()], R, seed=2)
    assert state.over and bot.searches > 0 and bot.rollouts_played > 0
    # the budget caps a decision's rollouts: at most the first 16 determinizations of
    # every candidate, a fresh test's 16, and one batch of 8 past the cap
    capped = SearchBot(seed=1, rollouts=4, time_ms=1000)
    play_deal([capped, TacticianBot()], R, seed=2)
    assert 0 < capped.rollouts_played <= capped.searches * (16 * 24 + 2 * 16 + 8 * 2)
    big = SearchBot(seed=1, rollouts=400)
    play_deal([big, TacticianBot()], R, seed=2)
    assert big.rollouts_played / big.searches > capped.rollouts_played / capped.searches


def test_search_bot_needs_kernel_rules():
    rules = R.replace(max_jokers_per_meld=2)
    with pytest.raises(ValueError, match="max_jokers_per_meld"):
        play_deal([SearchBot(seed=1, rollouts=10), TacticianBot()], rules, seed=1)


@pytest.mark.parametrize("kw, err, msg", [
    ({"rollouts": 0}, ValueError, "rollouts must be"),
    ({"rollouts": 1}, ValueError, "rollouts must be"),
    ({"rollouts": -5}, ValueError, "rollouts must be"),
    ({"rollouts": 2.5}, TypeError, "rollouts must be a whole number"),
    ({"rollouts": True}, TypeError, "rollouts must be a whole number"),
    ({"rollouts": None}, ValueError, "give a budget"),
    ({"time_ms": 0}, ValueError, "time_ms must be > 0"),
    ({"time_ms": -1.5}, ValueError, "time_ms must be > 0"),
    ({"time_ms": float("nan")}, ValueError, "time_ms must be > 0"),
    ({"time_ms": "5"}, TypeError, "time_ms must be a number"),
    ({"candidates": 0}, ValueError, "candidates must be"),
    ({"candidates": 17}, ValueError, "candidates must be"),
    ({"z": -1}, ValueError, "z must be"),
    ({"horizon": -1}, ValueError, "horizon must be"),
    ({"horizon": 2.5}, TypeError, "horizon must be a whole number"),
    ({"horizon": True}, TypeError, "horizon must be a whole number"),
    ({"rollout_bot": "greedy"}, TypeError, "rollout_bot"),
])
def test_bad_parameters(kw, err, msg):
    with pytest.raises(err, match=msg):
        SearchBot(**kw)


def test_numpy_numbers_are_accepted():
    bot = SearchBot(seed=np.int64(3), rollouts=np.int64(40), time_ms=np.float64(50.0),
                    candidates=np.int32(3), z=np.float32(0.5))
    assert type(bot.rollouts) is int and bot.rollouts == 40 and type(bot.candidates) is int
    assert type(bot.time_ms) is float and bot.z == 0.5


# =========================================================================== tournaments
def test_registered_and_played_by_both_engines_alike():
    assert BOTS["search"] is SearchBot and rummy51.SearchBot is SearchBot
    kw = dict(games=2, chunk_size=2, seed=1, workers=1, bots="search,tactician",
              seats="permute", progress=False)
    c = rummy51.simulate_games(engine="c", **kw)
    py = rummy51.simulate_games(engine="python", **kw)
    assert c.deals_done == py.deals_done == 2 and len(c.records) == 8
    assert c.records.equals(py.records)


# =========================================================================== the kernel seat
@pytest.mark.parametrize("seed", range(6))
def test_the_kernel_seat_plays_the_python_bots_moves(seed):
    """A ``"search"`` seat of the kernel and ``SearchBot`` in the Python engine: the same
    view, generator and code, so the same deal move for move (the kernel tracks the known
    cards as ``known_cards`` reads them from the history)."""
    players = 2 + seed % 2
    rules = [R, R.replace(discard_card_must_meld=True), R.replace(threshold=40, jokers=2)][seed % 3]

    horizon = (0, 2, DEFAULT_HORIZON)[seed // 2]

    def bots():
        return [SearchBot(seed=seed, rollouts=40, horizon=horizon)] + \
            [TacticianBot()] * (players - 1)

    py = play_deal(bots(), rules, seed=seed, first=seed % players)
    k = play_kernel_deal(bots(), rules, seed=seed, first=seed % players, record=True)
    assert list(k.actions) == list(py.actions)
    assert k.scores == py.result.scores
    k.replay()


def test_the_horizon_cuts_rollouts_off():
    """A horizon no deal reaches plays the moves of rollouts to the end (0); a short one
    plays others (the static margin decides); the kernel seat's default is the bot's."""
    def deal(**kw):
        return play_deal([SearchBot(seed=5, rollouts=40, **kw), TacticianBot()], R,
                         seed=5).actions
    assert deal(horizon=10**6) == deal(horizon=0)
    assert deal(horizon=1) != deal(horizon=0)
    assert _game.search_params((40, 3, 1.0, 0.0)) == (40, 3, 1.0, 0.0, DEFAULT_HORIZON)
    assert SearchBot().params()[:5] == (DEFAULT_ROLLOUTS, 3, 1.0, 0.0, DEFAULT_HORIZON)
    assert SearchBot().params() == (DEFAULT_ROLLOUTS, 3, 1.0, 0.0, DEFAULT_HORIZON)
    assert LearnedSearchBot().params()[5].game == "r51"    # the learned model, last
    k = play_kernel_deal([SearchBot(seed=5, rollouts=40), TacticianBot()], R, seed=5,
                         record=True)
    assert list(k.actions) == list(deal())
    with pytest.raises(ValueError, match="horizon"):
        _game.search_params((40, 3, 1.0, 0.0, -1))
    with pytest.raises(ValueError, match="budget, candidates"):
        _game.search_params((40, 3, 1.0))


def test_a_position_plays_on_with_a_search_seat():
    state = advance(GameState.new(R, players=2, seed=5), [TacticianBot(), TacticianBot()], 9)
    cont = play_position(state, [SearchBot(seed=2, rollouts=30), TacticianBot()], record=True)
    py = play_deal([SearchBot(seed=2, rollouts=30), TacticianBot()], state=state.copy())
    assert list(cont.actions) == list(py.actions[len(state.actions):])


@pytest.mark.parametrize("par, msg", [
    ((0, 3, 1.0, 0.0), "budget 0"),
    ((-5, 3, 1.0, 0.0), "budget -5"),
    ((50, 0, 1.0, 0.0), "candidates 0"),
    ((50, 3, -1.0, 0.0), "z -1.0"),
])
def test_a_kernel_search_seat_refuses_bad_parameters_before_the_deal(par, msg):
    rng = np.random.default_rng(1)
    with pytest.raises(ValueError, match=msg):
        _game.play_table(greedy_kernel(R), rng, 2, 0, [5, 3], [np.random.default_rng(1), None],
                         [par, None])
    with pytest.raises(ValueError, match=msg):      # the same with the learned model last
        _game.play_table(greedy_kernel(R), rng, 2, 0, [4, 3], [np.random.default_rng(1), None],
                         [(*par, LearnedSearchBot().model), None])
    assert rng.bit_generator.state == np.random.default_rng(1).bit_generator.state
    with pytest.raises(ValueError, match="search bot: give its Generator"):
        _game.play_table(greedy_kernel(R), rng, 2, 0, [5, 3], None, None)


def test_an_unknown_bot_is_named_before_any_deal(capsys):
    from rummy51.cli import main

    code = main(["simulate", "games", "--players", "2", "--bots", "search,nosuch",
                 "--games", "2", "--seed", "1"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "'nosuch' is not a bot" in err


def test_phase_after_search_draw():
    # a draw decision with both sources open is searched; the move is a legal draw
    for seed in range(60):
        state = GameState.new(R, players=2, seed=seed)
        advance(state, [TacticianBot(), TacticianBot()], 1)
        view = state.view()
        if view.phase is Phase.DRAW and view.can_draw("discard"):
            bot = SearchBot(seed=1, rollouts=20)
            assert view.is_legal(bot.choose(view)) and bot.searches == 1
            return
    pytest.fail("no free take found")  # pragma: no cover


def test_module_doctest():
    import doctest

    from rummy51.r51 import search

    assert doctest.testmod(search).failed == 0
