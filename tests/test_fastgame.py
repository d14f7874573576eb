"""The C game kernel (``rummy51.r51.fastgame``): the same deals as the Python engine with
``GreedyBot``s, move for move, under many rule sets; every kernel move legal for the
Python engine with the invariants checked after each; the batch runner's records equal
either way; clear errors for what it cannot play."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rummy51 import RuleSet
from rummy51 import _game
from rummy51.r51.bots import GreedyBot, play_deal
from rummy51.r51.engine import ChanceRecord, GameState, LayDown, SwapJoker
from rummy51.r51.fastgame import FastDeal, play_greedy_deal, supported
from rummy51.studies.games import simulate_games, uses_kernel

# (rules, players): the defaults, and every option the kernel reads
CONFIGS = [
    (RuleSet(), 4),
    (RuleSet(), 2),
    (RuleSet(), 6),  # a short stock: reshuffles
    (RuleSet(jokers=2), 3),
    (RuleSet(max_jokers_per_meld=0), 4),
    (RuleSet(ace_high=False), 4),
    (RuleSet(bottom_card=False), 5),
    (RuleSet(discard_card_must_meld=True), 4),
    (RuleSet(discard_taken_card=True, free_discard_rounds=0), 4),
    (RuleSet(free_discard_rounds=3), 4),
    (RuleSet(max_turns=30), 4),
    (RuleSet(reshuffle_stock=False), 6),
    (RuleSet(draw_scoring="hands", max_turns=25, hand_doubles=False), 4),
    (RuleSet(decks=1, jokers=2, threshold=30), 3),
    (RuleSet(threshold=81), 4),
    (RuleSet(threshold=30, ace_low_value=1, ace_value=11, joker_penalty=25, score_out=-10,
             score_hand=-50, score_hand_bottom=-70, score_unopened=60), 4),
]


def python_deal(rules, players, seed, first):
    return play_deal([GreedyBot() for _ in range(players)], rules, seed=seed, first=first)


def assert_same_deal(state: GameState, d: FastDeal):
    py, c = list(state.actions), list(d.actions)
    if py != c:
        i = next((i for i, (a, b) in enumerate(zip(py, c)) if a != b), min(len(py), len(c)))
        raise AssertionError(f"move {i} differs: Python {py[i:i + 2]}, kernel {c[i:i + 2]}")
    res = state.result
    assert (res.winner, res.how, tuple(res.scores)) == (d.winner, d.how, d.scores)
    assert tuple(state.opened) == d.opened
    assert d.length == max(r.turn for r in state.history if r.player >= 0) + 1


@pytest.mark.parametrize("rules, players", CONFIGS,
                         ids=[f"cfg{i}-{p}p" for i, (_, p) in enumerate(CONFIGS)])
def test_kernel_plays_the_python_greedy_deal(rules, players):
    """Ten seeded deals per rule set: the kernel's moves are GreedyBot's, the result equal."""
    for seed in range(10):
        first = seed % players
        state = python_deal(rules, players, seed, first)
        d = play_greedy_deal(rules, players, seed=seed, first=first, record=True)
        assert_same_deal(state, d)


def test_kernel_matches_on_many_default_deals():
    """120 default deals (the tournament's rules), and they cover the rare moves: joker
    swaps, the freed joker's new meld, discards taken, hand wins, reshuffles."""
    seen = {"swap": 0, "hand": 0, "take": 0}
    for seed in range(100, 220):
        state = python_deal(RuleSet(), 4, seed, seed % 4)
        d = play_greedy_deal(RuleSet(), 4, seed=seed, first=seed % 4, record=True)
        assert_same_deal(state, d)
        seen["swap"] += any(isinstance(a, SwapJoker) for a in d.actions)
        seen["hand"] += d.how in ("hand", "hand_bottom")
        seen["take"] += any(getattr(a, "source", None) == "discard" for a in d.actions)
    assert seen["swap"] > 20 and seen["take"] > 20, seen


def test_kernel_reshuffles_like_the_engine():
    """Six players leave a short stock: the kernel's reshuffles draw the engine's order."""
    reshuffled = 0
    for seed in range(40):
        state = python_deal(RuleSet(), 6, seed, 0)
        if any(isinstance(r, ChanceRecord) and r.kind == "reshuffle" for r in state.history):
            reshuffled += 1
            assert_same_deal(state, play_greedy_deal(RuleSet(), 6, seed=seed, record=True))
    assert reshuffled >= 3


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 6),
       jokers=st.sampled_from([0, 2, 4]), mj=st.sampled_from([0, 1]),
       threshold=st.sampled_from([30, 51, 71]), ace_high=st.booleans(),
       must_meld=st.booleans(), taken_ok=st.booleans(), bottom=st.booleans())
def test_every_kernel_move_is_legal_with_invariants(seed, players, jokers, mj, threshold,
                                                    ace_high, must_meld, taken_ok, bottom):
    """Any seed and rule mix: each kernel move replays through the Python engine (which
    checks it) with ``GameState.check()`` after every move, to the kernel's result."""
    rules = RuleSet(jokers=jokers, max_jokers_per_meld=mj, threshold=threshold,
                    ace_high=ace_high, discard_card_must_meld=must_meld,
                    discard_taken_card=taken_ok, bottom_card=bottom, max_turns=400)
    d = play_greedy_deal(rules, players, seed=seed, first=seed % players, record=True)
    s = GameState.new(rules, players=players, seed=seed, first=seed % players)
    for a in d.actions:
        s.apply(a)
        s.check()
    assert s.over
    assert (s.result.winner, s.result.how, tuple(s.result.scores)) == (d.winner, d.how, d.scores)
    assert d.replay().result == s.result


def test_fast_deal_fields_and_replay():
    d = play_greedy_deal(seed=11, record=True)
    assert d.players == 4 and d.first == 0 and d.seed == 11
    assert len(d.scores) == len(d.opened) == len(d.turn_opened) == 4
    for o, t in zip(d.opened, d.turn_opened):
        assert (t >= 1) == o
    if d.winner is not None:
        assert d.scores[d.winner] < 0
    state = d.replay()
    assert state.to_json() == GameState.from_json(state.to_json()).to_json()
    assert any(isinstance(a, LayDown) for a in d.actions)
    quick = play_greedy_deal(seed=11)
    assert quick.actions is None and quick.scores == d.scores
    with pytest.raises(ValueError, match="record=True"):
        quick.replay()


def test_seed_forms_give_the_same_deal():
    a = play_greedy_deal(seed=5)
    b = play_greedy_deal(seed=np.random.SeedSequence(5))
    c = play_greedy_deal(seed={"entropy": 5})
    assert a.scores == b.scores == c.scores and a.length == b.length == c.length


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="RuleSet"):
        play_greedy_deal(rules={"threshold": 51})
    with pytest.raises(ValueError, match="players"):
        play_greedy_deal(players=1)
    with pytest.raises(ValueError, match="players"):
        play_greedy_deal(players=9)
    with pytest.raises(TypeError, match="players"):
        play_greedy_deal(players=4.0)
    with pytest.raises(ValueError, match="max_jokers_per_meld"):
        play_greedy_deal(RuleSet(max_jokers_per_meld=2))
    with pytest.raises(TypeError, match="Generator"):
        play_greedy_deal(seed=np.random.default_rng(1))
    with pytest.raises(ValueError, match="seed"):
        play_greedy_deal(seed=-3)
    with pytest.raises(ValueError, match="first"):
        play_greedy_deal(first=4)
    from rummy51.r51.fastgame import greedy_kernel

    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="first"):
        _game.play_greedy(greedy_kernel(RuleSet()), rng, 4, -1)
    with pytest.raises(ValueError, match="do not fit"):
        _game.play_greedy(greedy_kernel(RuleSet()), rng, 8, 0)
    with pytest.raises(TypeError):
        _game.GreedyKernel(RuleSet(), object(), None)


def test_supported_says_why():
    assert supported(RuleSet()) is None
    assert "max_jokers_per_meld" in supported(RuleSet(max_jokers_per_meld=2))
    assert "players" in supported(RuleSet(), 9)


# --------------------------------------------------------------------------- the batch runner
def test_simulate_games_records_equal_with_either_engine():
    kw = dict(bots="greedy", games=24, chunk_size=8, seed=3, workers=1, progress=False)
    c = simulate_games(**kw)
    py = simulate_games(**kw, engine="python")
    assert c.same_records(py)
    assert c.records.went_out.sum() + c.overview().draws[0] == 24


def test_engine_choice():
    rules = RuleSet()
    assert uses_kernel(("greedy",) * 4, rules)
    assert uses_kernel(("greedy", "random", "hand-hunter", "tactician"), rules)
    assert not uses_kernel(("greedy", "tests.bots:MyBot"), rules)
    assert not uses_kernel(("greedy",) * 4, rules, "python")
    assert not uses_kernel(("greedy",) * 4, RuleSet(max_jokers_per_meld=2))
    assert not uses_kernel(("tactician",) * 4, RuleSet(max_jokers_per_meld=2))
    with pytest.raises(ValueError, match="built-in bots"):
        uses_kernel(("greedy", "tests.bots:MyBot"), rules, "c")
    with pytest.raises(ValueError, match="max_jokers_per_meld"):
        uses_kernel(("greedy",) * 4, RuleSet(max_jokers_per_meld=2), "c")
    with pytest.raises(ValueError, match="engine"):
        uses_kernel(("greedy",) * 4, rules, "fortran")
    with pytest.raises(ValueError, match="engine"):
        simulate_games(bots="greedy", games=2, workers=1, progress=False, engine="gpu")
    # a table the kernel cannot play falls back to Python under "auto"
    s = simulate_games(bots="greedy", games=3, workers=1, progress=False, seed=1,
                       rules=RuleSet(max_jokers_per_meld=2))
    assert s.deals_done == 3


@pytest.mark.slow
def test_kernel_matches_on_2000_default_deals():
    """The long soak (``pytest -m slow``)."""
    for seed in range(2000):
        state = python_deal(RuleSet(), 4, seed, seed % 4)
        assert_same_deal(state, play_greedy_deal(RuleSet(), 4, seed=seed, first=seed % 4,
                                                 record=True))
