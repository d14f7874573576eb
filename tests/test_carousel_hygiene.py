"""Information hygiene, proven on random Carousel states: nothing the bots (search,
search-plain, search-learned, learned, greedy, careful) or the learned model read depends on cards the
player cannot see.

Each example plays a game of random and greedy seats to a random decision of the player
on turn (a meld decision after a draw, a meld decision with the stock found empty, or a
knock decision), then deals the cards that player has not seen (the other hands and the
stock) again at random, keeping every hand's size: the player's view is the same, the
hidden cards are not. Every bot, made with the same seed, must then take the same
decision and leave its generator in the same state, through the Python engine (the
bot's ``choose(view)``) and through the C game kernel's own seat (which reads the whole
game and must take from it only the seat's view); the model's features must be equal.
A control bot that peeks at the other hands is caught by the same comparison, so the
test can fail.
"""
from __future__ import annotations

import copy
import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rummy51 import _carousel
from rummy51.carousel import CarouselRules
from rummy51.carousel.actions import Draw, Pass, Phase
from rummy51.carousel.bots import (
    CarefulBot,
    GreedyBot,
    LearnedBot,
    LearnedSearchBot,
    PlainSearchBot,
    RandomBot,
    SearchBot,
    core_rules,
    game_rules,
    hand_counts,
    kernel_bots,
    table_counts,
)
from rummy51.carousel.engine import GameState
from rummy51.carousel.learned import features
from rummy51.carousel.solver import can_meld
from rummy51.learned import load_model

ROLLOUTS = 12


def _bots(seed: int) -> dict:
    """A fresh bot of each kind, seeded with ``seed``."""
    return {"greedy": GreedyBot(), "careful": CarefulBot(seed=seed),
            "search": SearchBot(seed=seed, rollouts=ROLLOUTS),
            "search-plain": PlainSearchBot(seed=seed, rollouts=ROLLOUTS),
            "search-learned": LearnedSearchBot(seed=seed, rollouts=ROLLOUTS),
            "learned": LearnedBot(seed=seed)}


def _can_meld(v) -> bool:
    return can_meld(list(v.table), list(v.hand), v.rules)


@functools.lru_cache(maxsize=64)
def _decision_state(seed: int, players: int) -> GameState | None:
    """A game of random and greedy seats played to a random decision of the player on
    turn (not a last turn): a meld decision with a legal play, or a knock decision.
    (Cached: callers copy it before they change it.)"""
    rng = np.random.default_rng(seed)
    rules = CarouselRules.for_players(players)
    s = GameState.new(rules, seed=int(rng.integers(2**31)))
    seats = [RandomBot(seed=int(rng.integers(2**31)), p_meld=0.3) if rng.random() < 0.5
             else GreedyBot() for _ in range(players)]
    stop = int(rng.integers(1, 400))
    found = None
    for _ in range(stop):
        if s.phase is Phase.OVER:
            break
        v = s.view()
        if not v.turn_info.last and (
                (v.phase in (Phase.MELD, Phase.NO_DRAW) and _can_meld(v))
                or (v.phase in (Phase.END, Phase.NO_DRAW) and v.can_knock())):
            found = copy.deepcopy(s)
        s.apply(seats[s.current].choose(v))
    return found


def _redeal(s: GameState, seed: int) -> GameState:
    """``s`` with the cards its player on turn has not seen dealt again at random (each
    other hand keeps its size, the stock its size): the same view, other hidden cards."""
    alt = copy.deepcopy(s)
    p = s.current
    pool = [c for o in range(s.n_players) if o != p for c in s.hands[o]] + list(s._stock)
    order = np.random.default_rng(seed).permutation(len(pool))
    pool = [pool[i] for i in order]
    k = 0
    for o in range(s.n_players):
        if o == p:
            continue
        n = len(s.hands[o])
        alt.hands[o] = sorted(pool[k:k + n])
        k += n
    alt._stock = pool[k:]
    alt.check()
    return alt


def _same_view(a, b) -> None:
    assert (a.hand, a.table, a.hand_sizes, a.stock_count, a.turn_info, a.stock_out,
            a.phase, a.totals) == (b.hand, b.table, b.hand_sizes, b.stock_count, b.turn_info,
                                   b.stock_out, b.phase, b.totals)
    assert list(a.history) == list(b.history)


def _decision(v) -> tuple[int, int]:
    if v.phase is Phase.MELD:
        return _carousel.SEARCH_MELD, v.turn_info.draws
    if v.phase is Phase.NO_DRAW and _can_meld(v):
        return _carousel.SEARCH_NODRAW, v.turn_info.draws
    return _carousel.SEARCH_KNOCK, 1 if v.stock_out else 0


def _kernel(s: GameState, bot, decision: int, draws: int) -> tuple:
    """The kernel seat's decision on the whole game ``s`` (every hand): its answer,
    the table and hand after it, and the bot's generator state after it."""
    rules = s.rules
    p = s.current
    specs = [None] * s.n_players
    specs[p] = kernel_bots([bot], 1)[0]
    hands, jokers = zip(*(hand_counts(h) for h in s.hands), strict=True)
    T, D, jt = table_counts(s.table)
    out = _carousel.kernel_seat_decision(core_rules(rules), game_rules(rules), specs, p,
                                         list(hands), list(jokers), T, D, jt,
                                         len(s._stock), draws, decision)
    rng = getattr(bot, "rng", None)
    return out, None if rng is None else rng.bit_generator.state


def _choices(s: GameState, seed: int) -> dict:
    """Every bot's choice on ``s``'s view (the Python engine) and in the kernel seat."""
    v = s.view()
    decision, draws = _decision(v)
    out = {}
    for name, bot in _bots(seed).items():
        a = bot.choose(v)
        rng = getattr(bot, "rng", None)
        out[name] = (a, None if rng is None else rng.bit_generator.state)
    for name, bot in _bots(seed).items():
        out[f"kernel {name}"] = _kernel(s, bot, decision, draws)
    out["features"] = features(v).tolist()
    out["features of the other seats"] = [features(s.view(o)).tolist()
                                          for o in range(s.n_players)]
    return out


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), players=st.sampled_from([2, 2, 3, 4]))
def test_decisions_do_not_depend_on_hidden_cards(seed, players):
    s = _decision_state(seed, players)
    if s is None:
        return
    alt = _redeal(s, seed + 1)
    p = s.current
    _same_view(s.view(), alt.view())
    a, b = _choices(s, seed), _choices(alt, seed)
    for k in a:
        if k == "features of the other seats":
            # another seat's features differ only as its own hand does (its view)
            for o in range(s.n_players):
                if s.hands[o] == alt.hands[o]:
                    assert a[k][o] == b[k][o]
            assert a[k][p] == b[k][p]
            continue
        assert a[k] == b[k], f"{k} depends on hidden cards (seed {seed}, {players} players)"


def test_the_redeal_hides_other_cards():
    """The examples do change hidden cards (else the test above could not fail), and
    they reach every kind of decision."""
    changed, kinds = 0, set()
    for seed in range(12):
        s = _decision_state(seed, 2)
        if s is None:
            continue
        alt = _redeal(s, seed + 1)
        changed += alt.hands[1 - s.current] != s.hands[1 - s.current]
        kinds.add(_decision(s.view())[0])
    assert changed >= 6
    assert kinds >= {_carousel.SEARCH_MELD, _carousel.SEARCH_KNOCK}


class _Peeker:
    """A control bot that reads the hidden cards: the greedy move when the other hands'
    points add up to an even number, else no play (and no knock)."""

    def __init__(self, state: GameState) -> None:
        self.state = state

    def choose(self, view) -> object:
        s = self.state
        hidden = sum(s.rules.hand_points(h) for o, h in enumerate(s.hands) if o != view.player)
        if hidden % 2 == 0:
            return GreedyBot().choose(view)
        return Draw() if view.phase is Phase.MELD else Pass()


def test_a_bot_that_peeks_is_caught():
    """The comparison above flags a bot whose decision reads the other hands."""
    caught = 0
    for seed in range(10):
        s = _decision_state(seed, 2)
        if s is None:
            continue
        alt = _redeal(s, seed + 1)
        caught += _Peeker(s).choose(s.view()) != _Peeker(alt).choose(alt.view())
    assert caught


def test_the_model_reads_the_features_of_the_view():
    """The model's value of a state is its player's view's (the features say nothing
    else), and a state's features for another seat are that seat's view's."""
    model = load_model("carousel")
    s = _decision_state(3, 3)
    assert s is not None
    for o in range(3):
        assert features(s, o).tolist() == features(s.view(o)).tolist()
        assert model.value(s, o) == model.value(s.view(o))
    with pytest.raises(ValueError, match="a view of seat 0 gives that seat's features"):
        features(s.view(0), 1)
