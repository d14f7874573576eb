"""The neutral room both games stand on (``rummy51.common``): the error base, the
copies and their deprecated names, the history view, seat arrangements, bot names."""
import copy
import pickle
import warnings

import numpy as np
import pytest

import rummy51
from rummy51 import RuleSet
from rummy51.carousel import CarouselRules
from rummy51.carousel import engine as car_engine
from rummy51.carousel.actions import IllegalMove as CarouselIllegalMove
from rummy51.carousel.agent import CarouselAgentState, fast_copy
from rummy51.carousel.chance import CarouselChanceState
from rummy51.common import HistoryView, IllegalMove, arrangements
from rummy51.common.bots import registry_key, spelling
from rummy51.r51.actions import IllegalMove as R51IllegalMove
from rummy51.r51.agent import AgentState
from rummy51.r51.engine import GameState


def test_every_games_refusal_is_one_illegal_move_and_the_games_are_siblings():
    assert rummy51.IllegalMove is IllegalMove
    r51 = R51IllegalMove("5.4", "no")
    car = CarouselIllegalMove("3.3", "no")
    assert isinstance(r51, IllegalMove) and isinstance(car, IllegalMove)
    assert not isinstance(car, R51IllegalMove) and not isinstance(r51, CarouselIllegalMove)
    assert str(r51) == "no (docs/rules.md 5.4)" and str(car) == "no (docs/rules-carousel.md 3.3)"
    assert str(R51IllegalMove("engine", "not a move")) == "not a move"
    for e in (r51, car):   # it crosses from worker processes whole
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is type(e) and (back.rule, back.reason, str(back)) == (
            e.rule, e.reason, str(e))
    s = GameState.new(RuleSet(), players=2, seed=1)
    with pytest.raises(IllegalMove, match="docs/rules.md"):
        s.draw()        # the first player plays 15 cards without drawing
    c = car_engine.GameState.new(CarouselRules.for_players(2), seed=1)
    with pytest.raises(IllegalMove, match="rules-carousel.md"):
        c.knock()


def _states():
    r51 = AgentState.new(RuleSet(), players=3, seed=4)
    rng = np.random.default_rng(0)
    for _ in range(30):
        r51.apply_action(int(rng.choice(r51.legal_actions())))
    car = CarouselAgentState.new(CarouselRules.for_players(3), seed=4)
    for _ in range(12):
        car.apply_action(int(rng.choice(car.legal_actions())))
    chance = CarouselChanceState.new_chance(CarouselRules.for_players(2))
    return [r51, r51.game, car, car.game, chance]


@pytest.mark.parametrize("i", range(5))
def test_copy_is_the_one_name_and_clone_is_deprecated(i):
    s = _states()[i]
    c = s.copy()
    assert type(c) is type(s) and c is not s
    with pytest.warns(DeprecationWarning, match=r"clone\(\) is deprecated: use copy\(\)"):
        d = s.clone()
    assert type(d) is type(s)
    game = getattr(s, "game", s)
    if game is not None:
        g1, g2 = getattr(c, "game", c), getattr(d, "game", d)
        for g in (g1, g2):
            assert g.to_dict() == game.to_dict() and g.hands == game.hands
            assert g.hands is not game.hands and g.hands[0] is not game.hands[0]


def test_fast_copy_is_deprecated():
    s = _states()[3]
    with pytest.warns(DeprecationWarning, match=r"fast_copy\(game\) is deprecated"):
        c = fast_copy(s)
    assert c.to_dict() == s.to_dict()


@pytest.mark.parametrize("game", ["r51", "carousel"])
def test_a_copy_shuffles_on_as_the_original_does(game):
    """The copy takes the RNG's state (lazily): the next shuffles are the same, and the
    original's RNG does not move when the copy draws."""
    if game == "r51":
        s = GameState.new(RuleSet(), players=2, seed=9)
    else:
        s = car_engine.GameState.new(CarouselRules.for_players(2), seed=9)
    c = s.copy()
    assert c._rng is None
    a, b = s.rng_copy().permutation(20), c.rng_copy().permutation(20)
    assert (a == b).all()
    assert (c._generator().permutation(20) == s._generator().permutation(20)).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert copy.deepcopy(s).to_dict() == s.to_dict()


def test_replace_stock_and_reseed():
    s = GameState.new(RuleSet(), players=2, seed=3)
    stock = list(s.stock)
    s.replace_stock(stock[::-1])
    assert list(s.stock) == stock[::-1] and s.stock_size == len(stock)
    s.reseed(np.random.default_rng(1))
    assert s.seed is None and s._forced == []


def test_history_view_is_a_window():
    items = [1, 2]
    h = HistoryView(items, 2)
    items.append(3)
    assert list(h) == [1, 2] and h[-1] == 2 and h[0:5] == (1, 2) and repr(h) == \
        "<history of 2 records>"
    with pytest.raises(IndexError):
        h[2]


def test_arrangements_and_bot_names():
    assert arrangements(2, "fixed") == [(0, 1)]
    assert len(arrangements(4, "permute")) == 24
    with pytest.raises(ValueError, match="at most 5 players"):
        arrangements(6, "permute")
    with pytest.raises(ValueError, match="seats must be one of fixed, rotate, permute"):
        arrangements(3, "shuffle")
    assert spelling(" Hand_Hunter ") == "handhunter"
    assert registry_key("HAND hunter", ["greedy", "hand-hunter"]) == "hand-hunter"
    assert registry_key("nobody", ["greedy"]) is None
