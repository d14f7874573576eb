"""One analysis API for both games: the same names and keywords in
``rummy51.analysis.rummy51`` and ``rummy51.analysis.carousel``, one budget and seed
helper, one history reader, the package's functions dispatching to the game; the old
names and positional arguments deprecated (they warn, and still work, for one release)."""
from __future__ import annotations

import gzip
import inspect
import json

import numpy as np
import pytest

from rummy51 import RuleSet, analysis
from rummy51.analysis import carousel as car
from rummy51.analysis import rummy51 as r51
from rummy51.carousel import CarouselRules
from rummy51.carousel.bots import GreedyBot as CarouselGreedy
from rummy51.carousel.bots import play_game
from rummy51.carousel.engine import GameState as CarouselState
from rummy51.r51.bots import GreedyBot, TacticianBot
from rummy51.r51.engine import GameState

R2 = CarouselRules.for_players(2)
API = ("analyse_position", "analyse_game", "analyse_games", "read_histories",
       "DEFAULT_ROLLOUTS", "HINT_ROLLOUTS", "MAX_ROLLOUTS", "fresh_seed")


def _deal(seed=1):
    s = GameState.new(RuleSet(), players=2, seed=seed)
    bots = [TacticianBot(), GreedyBot()]
    while not s.over:
        s.apply(bots[s.current].choose(s.view(s.current)))
    return s


def _carousel_game(seed=1):
    return play_game([CarouselGreedy(), CarouselGreedy()], R2, seed=seed)


def _carousel_view():
    s = CarouselState.new(R2, seed=3)
    s.draw()
    return s.view()


def _keywords(fn, kinds=(inspect.Parameter.KEYWORD_ONLY,)):
    return {n: p.default for n, p in inspect.signature(fn).parameters.items() if p.kind in kinds}


def test_the_same_names_and_keywords_in_both_games():
    for name in API:
        assert hasattr(r51, name) and hasattr(car, name), name
    assert r51.MAX_ROLLOUTS == car.MAX_ROLLOUTS == analysis.MAX_ROLLOUTS == 100_000
    assert r51.DEFAULT_ROLLOUTS == car.DEFAULT_ROLLOUTS == 200
    assert r51.fresh_seed is car.fresh_seed is analysis.fresh_seed
    common_position = {"rollouts": None, "time": None, "seed": None, "played": None, "index": 0}
    common_game = {"rollouts": None, "time": None, "seed": None, "workers": 1,
                   "decision": None, "progress": None, "on_decision": None, "game": 0}
    for mod in (r51, car):
        pos = _keywords(inspect.unwrap(mod.analyse_position))
        game = _keywords(inspect.unwrap(mod.analyse_game))
        assert {k: pos[k] for k in common_position} == common_position, mod.__name__
        assert {k: game[k] for k in common_game} == common_game, mod.__name__
        assert list(inspect.signature(inspect.unwrap(mod.analyse_game)).parameters)[:2] == \
            ["history", "rules"]
    assert all(0 <= r51.fresh_seed() < 2**64 for _ in range(20))


@pytest.mark.parametrize("mod", [r51, car], ids=["rummy51", "carousel"])
def test_one_budget_with_the_same_bounds_and_words(mod):
    view = (GameState.new(RuleSet(), players=2, seed=4).view(0) if mod is r51
            else _carousel_view())
    for kw, err, words in (({"rollouts": 0}, ValueError, "rollouts must be 1..100000 (per "
                                                         "candidate), got 0"),
                           ({"rollouts": 100_001}, ValueError, "rollouts must be 1..100000"),
                           ({"rollouts": 2.5}, TypeError, "rollouts must be an int, got 2.5"),
                           ({"rollouts": True}, TypeError, "rollouts must be an int"),
                           ({"time": 0}, ValueError, "time must be a positive number of "
                                                     "seconds, got 0"),
                           ({"time": "1"}, TypeError, "time must be a number of seconds"),
                           ({"seed": -1}, ValueError, "seed must be >= 0"),
                           ({"seed": 1.5}, TypeError, "seed must be a whole number")):
        with pytest.raises(err) as e:
            mod.analyse_position(view, **kw)
        assert words in str(e.value) and "\n" not in str(e.value)
    d = mod.analyse_position(view, rollouts=1, seed=3)     # one rollout: no standard error
    assert all(c.rollouts == 1 for c in d.candidates)


def test_the_package_dispatches_to_the_game():
    deal = _deal(2)
    view = GameState.new(RuleSet(), players=2, seed=4).view(0)
    cview = _carousel_view()
    assert analysis.analyse_position(view, rollouts=4, seed=1) == \
        r51.analyse_position(view, rollouts=4, seed=1)
    assert analysis.analyse_position(cview, rollouts=4, seed=1) == \
        car.analyse_position(cview, rollouts=4, seed=1)
    a = analysis.analyse_game(deal.to_json(), rollouts=2, seed=1, decision=3)
    assert a.to_dict() == r51.analyse_game(deal, rollouts=2, seed=1, decision=3).to_dict()
    g = _carousel_game(5)
    b = analysis.analyse_game(g.to_dict(), rollouts=2, seed=1, decision=1)
    assert b.to_dict() == car.analyse_game(g, rollouts=2, seed=1, decision=1).to_dict()
    with pytest.raises(TypeError, match="PlayerView of Rummy 51 or of Carousel"):
        analysis.analyse_position("a view")


def test_one_history_reader_for_both_games(tmp_path):
    deal, game = _deal(3), _carousel_game(3)
    text = deal.to_json() + "\n" + game.to_json() + "\n"
    f = tmp_path / "both.jsonl.gz"
    f.write_bytes(gzip.compress(text.encode()))
    for source in (text, f, str(f)):
        got = analysis.read_histories(source)
        assert got == [deal.to_dict(), game.to_dict()]
        assert r51.read_histories(source) == got == car.read_histories(source)
    assert analysis.read_histories(deal) == [deal.to_dict()]
    assert analysis.read_histories(game.to_dict()) == [game.to_dict()]
    for bad, words in (("", "holds no hand history"), ("[1]\n", "is not a hand history"),
                       ("{\"a\": 1}\n[2]", "line 2 is not a hand history")):
        with pytest.raises(ValueError, match=words):
            analysis.read_histories(bad)
    with pytest.raises(TypeError, match="a hand history must be"):
        analysis.read_histories(3.5)
    # a game's analysis of a source: every game of it, game g seeded apart
    two = [_deal(4).to_json(), _deal(5).to_json()]
    runs = list(r51.analyse_games("\n".join(two), rollouts=2, seed=1, decision=0))
    assert [a.game.get("index", 0) for a in runs] == [0, 1]


def test_progress_is_a_bar_or_nothing_and_on_decision_a_callback():
    g = _carousel_game(6)
    seen = []
    a = car.analyse_game(g, rollouts=2, seed=1, progress=False, on_decision=seen.append)
    assert [d.index for d in sorted(seen, key=lambda d: d.index)] == \
        [d.index for d in a.decisions]
    seen = []
    b = r51.analyse_game(_deal(6), rollouts=2, seed=1, progress=False, decision=2,
                         on_decision=seen.append)
    assert seen == list(b.decisions)


def test_old_names_and_positional_arguments_are_deprecated_and_still_work(tmp_path):
    view = GameState.new(RuleSet(), players=2, seed=4).view(0)
    new = r51.analyse_position(view, rollouts=4, seed=2)
    with pytest.warns(DeprecationWarning, match="pass rollouts, seed by keyword"):
        old = r51.analyse_position(view, 4, 2)
    assert old == new
    deal = _deal(7)
    with pytest.warns(DeprecationWarning, match="by keyword"):
        old_game = r51.analyse_game(deal, None, 2, 1, 1, 3)
    assert old_game.to_dict() == r51.analyse_game(deal, rollouts=2, seed=1, decision=3).to_dict()
    with pytest.warns(DeprecationWarning, match="pass rules by keyword"):
        d = car.analyse_position(None, R2, hand="AS 2H", phase="end", rollouts=2, seed=1)
    assert {c.move for c in d.candidates} == {"knock", "pass"}
    g = _carousel_game(8)
    with pytest.warns(DeprecationWarning, match="read_carousel_histories is deprecated"):
        assert car.read_carousel_histories(g) == [g.to_dict()]
    with pytest.warns(DeprecationWarning, match="parse_histories is deprecated"):
        assert r51.parse_histories(deal.to_json()) == [deal.to_dict()]
    with pytest.warns(DeprecationWarning, match="analyse_carousel_position is deprecated"):
        analysis.analyse_carousel_position(_carousel_view(), rollouts=2, seed=1)
    with pytest.warns(DeprecationWarning, match="analyse_carousel_game is deprecated"):
        a = analysis.analyse_carousel_game(g, rollouts=2, seed=1, decision=0)
    calls = []
    with pytest.warns(DeprecationWarning, match="progress=callable"):
        b = car.analyse_game(g, rollouts=2, seed=1, decision=0,
                             progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 1)] and a.to_dict() == b.to_dict()
    with pytest.raises(TypeError, match="multiple values"), pytest.warns(DeprecationWarning):
        r51.analyse_position(view, 4, rollouts=4)


def test_the_analysis_result_json_is_unchanged_in_shape():
    a = r51.analyse_game(_deal(9), rollouts=2, seed=1, decision=1).to_dict()
    json.dumps(a)
    assert set(a["game"]) >= {"game", "rules", "rollouts", "seed", "time"}
    assert np.isfinite(a["decisions"][0]["candidates"][0]["equity"])
