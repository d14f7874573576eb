"""Carousel bots: legal moves only, their strategies, and the knock decisions."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rummy51.carousel import CarouselRules
from rummy51.carousel.actions import Draw, Knock, Meld, Pass, Phase
from rummy51.carousel.bots import BOTS, CarefulBot, GreedyBot, RandomBot, make_bot, play_game, undercut_risk
from rummy51.carousel.engine import GameState
from test_carousel_engine import HAND0, HAND1, stacked

SHORT2 = dataclasses.replace(CarouselRules.for_players(2), target_score=60)
SHORT3 = dataclasses.replace(CarouselRules.for_players(3), target_score=40)


def test_every_bot_has_its_strategy_in_its_docstring():
    assert set(BOTS) == {"random", "greedy", "careful", "search", "ppo"}
    for cls in BOTS.values():
        doc = cls.__doc__ or ""
        assert "Draw" in doc or "draw" in doc
        assert "knock" in doc.lower()


@pytest.mark.parametrize("name", sorted(BOTS))
def test_each_bot_plays_whole_games_with_legal_moves(name):
    bots = [make_bot(name, seed=k) for k in range(2)]
    s = play_game(bots, dataclasses.replace(SHORT2, target_score=40), seed=5, check=True)
    assert s.over and max(s.totals) >= 40


def test_bots_are_reproducible_from_their_seeds():
    a = play_game([RandomBot(seed=1), CarefulBot(seed=2)], SHORT2, seed=3)
    b = play_game([RandomBot(seed=1), CarefulBot(seed=2)], SHORT2, seed=3)
    assert a.to_dict() == b.to_dict()


def _at_end_of_turn(hands, stock):
    rules = CarouselRules.for_players(2)
    s = GameState.new(rules, seed=1, dealer=1, decks=[stacked(rules, hands, stock)])
    s.draw()
    s.meld(["4S 5S 6S", "7H 8H 9H 10H JH"])
    assert s.phase is Phase.END and s.hand_points() == 4
    return s


def test_greedy_melds_its_best_play_and_knocks_as_soon_as_it_may():
    rules = CarouselRules.for_players(2)
    s = GameState.new(rules, seed=1, dealer=1, decks=[stacked(rules, (HAND0, HAND1), "JH")])
    g = GreedyBot()
    assert g.choose(s.view()) == Draw()
    s.draw()
    a = g.choose(s.view())
    assert isinstance(a, Meld)
    s.apply(a)
    assert s.hand_points() == 4
    assert g.choose(s.view()) == Knock()


def test_careful_knocks_only_when_an_undercut_is_unlikely():
    s = _at_end_of_turn((HAND0, HAND1), "JH")
    v = s.view()
    rng = np.random.default_rng(0)
    # the other hand holds 10 cards: 4 points or fewer is unlikely
    assert undercut_risk(v, 4, rng) < 0.05
    assert CarefulBot(seed=1).choose(v) == Knock()
    assert undercut_risk(v, 0, rng) == 0.0 and undercut_risk(v, 1000, rng) == 1.0
    # the other player holds one card: a knock with 4 points would often be undercut
    v2 = dataclasses.replace(v, hand_sizes=(v.hand_sizes[0], 1))
    assert undercut_risk(v2, 4, rng) > 0.2
    assert CarefulBot(seed=1).choose(v2) == Pass()
    # greedy knocks regardless
    assert GreedyBot().choose(v2) == Knock()
