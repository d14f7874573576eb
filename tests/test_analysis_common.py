"""The game-independent analysis results: ordering, loss, JSON, tables, blunder rows."""
import json
import math

import numpy as np
import pytest

from rummy51.analysis import Decision, GameAnalysis, blunder_table, format_analysis
from rummy51.analysis._common import candidate_from_sums


def _cand(move, xs, wins):
    xs = np.asarray(xs, dtype=float)
    return candidate_from_sums(move, len(xs), float(xs.sum()), float((xs ** 2).sum()), wins)


def test_candidate_from_sums_matches_numpy():
    xs = [3.0, -1.0, 4.0, 1.5, -5.0, 9.0]
    c = _cand("a", xs, 4)
    assert c.equity == pytest.approx(np.mean(xs))
    assert c.se == pytest.approx(np.std(xs, ddof=1) / math.sqrt(len(xs)))
    assert c.win == pytest.approx(4 / 6) and c.win_lo < c.win < c.win_hi
    assert math.isnan(_cand("b", [1.0], 1).se)
    with pytest.raises(ValueError, match="no rollouts"):
        candidate_from_sums("c", 0, 0.0, 0.0, 0)


def test_decision_orders_best_first_and_measures_the_loss():
    d = Decision(3, 1, "draw", (_cand("draw", [1, 2], 1), _cand("meld best", [5, 6], 2)))
    assert [c.move for c in d.candidates] == ["meld best", "draw"]
    assert d.loss == pytest.approx(4.0)
    assert Decision(0, 0, "meld best", d.candidates).loss == 0.0
    assert Decision(0, 0, None, d.candidates).loss is None
    with pytest.raises(ValueError, match="not among the candidates"):
        Decision(0, 0, "knock", d.candidates)
    js = json.loads(json.dumps(GameAnalysis({"game": "carousel"}, (d,)).to_dict()))
    assert js["decisions"][0]["played"] == "draw" and js["decisions"][0]["loss"] == pytest.approx(4.0)
    assert set(js["decisions"][0]["candidates"][0]) >= {"move", "equity", "se", "win", "win_lo", "win_hi"}
    text = format_analysis(GameAnalysis({}, (d,)), ["greedy", "search"])
    assert "*  2 draw" in text and "search" in text


def test_blunder_table_ranks_players_by_mean_loss():
    good = _cand("x", [5, 5], 2)
    bad = _cand("y", [0, 1], 0)
    a = GameAnalysis({}, (Decision(0, 0, "x", (good, bad)), Decision(1, 1, "y", (good, bad)),
                          Decision(2, 1, "x", (good, bad))))
    rows = blunder_table([(a, ["greedy", "search"]), (a, ["greedy", "search"])], worst=2)
    assert [r.name for r in rows] == ["search", "greedy"]
    assert rows[0].decisions == 4 and rows[0].mean_loss == pytest.approx(2.25)
    assert rows[0].worst[0][1].loss == pytest.approx(4.5) and len(rows[0].worst) == 2
    assert rows[1].mean_loss == 0.0 and rows[1].share_over == 0.0
