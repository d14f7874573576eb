"""``rummy51 carousel analyse``: the JSON form, the table, the position form, bad input."""
from __future__ import annotations

import gzip
import json

import pytest

import rummy51.cli as top
from rummy51.carousel import CarouselRules
from rummy51.carousel.bots import GreedyBot, PlainSearchBot, play_game


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    s = play_game([GreedyBot(), PlainSearchBot(seed=2, rollouts=8)], CarouselRules.for_players(2), seed=2)
    p = tmp_path_factory.mktemp("h") / "game.json"
    p.write_text(s.to_json())
    return p


def _run(capsys, *argv):
    code = top.main(["carousel", "analyse", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_shape_of_one_decision(capsys, history):
    code, out, err = _run(capsys, history, "--decision", 2, "--rollouts", 8, "--seed", 1, "--json")
    assert code == 0, err
    js = json.loads(out)
    assert js["game"]["game"] == "carousel" and js["game"]["seed"] == 1
    assert js["game"]["rollouts"] == 8
    (d,) = js["decisions"]
    assert d["index"] == 2 and d["player"] in (0, 1)
    moves = [c["move"] for c in d["candidates"]]
    assert d["played"] in moves
    for c in d["candidates"]:
        assert set(c) >= {"move", "equity", "se", "win", "win_lo", "win_hi", "rollouts"}
        assert c["win_lo"] <= c["win"] <= c["win_hi"] and c["rollouts"] == 8
    eq = [c["equity"] for c in d["candidates"]]
    assert eq == sorted(eq, reverse=True)
    best = eq[0]
    played = next(c for c in d["candidates"] if c["move"] == d["played"])
    assert d["loss"] == pytest.approx(best - played["equity"])
    # the same seed, the same numbers, through the CLI too (and --workers)
    code, again, _ = _run(capsys, history, "--decision", 2, "--rollouts", 8, "--seed", 1, "--json",
                          "--workers", 2)
    assert json.loads(again) == js


def test_the_table_marks_the_played_move(capsys, history):
    code, out, err = _run(capsys, history, "--decision", 0, "--rollouts", 4, "--seed", 1)
    assert code == 0, err
    assert out.startswith("decision 0 (seat ")
    assert "played " in out and "\n*" in out and "round 1, turn" in out


def test_json_lines_of_games_and_gzip(capsys, history, tmp_path):
    line = history.read_text().strip()
    p = tmp_path / "games.jsonl.gz"
    p.write_bytes(gzip.compress((line + "\n" + line + "\n").encode()))
    code, out, err = _run(capsys, p, "--game", 1, "--decision", 0, "--rollouts", 4, "--seed", 1,
                          "--json")
    assert code == 0, err
    assert json.loads(out)["game"]["index"] == 1
    code, out, err = _run(capsys, p, "--decision", 0, "--rollouts", 4, "--seed", 1)
    assert code == 2 and "--game" in err


def test_a_run_directory_with_histories(capsys, tmp_path):
    from rummy51.studies.carousel import read_histories, simulate_carousel

    rules = CarouselRules.for_players(2)
    simulate_carousel(players=2, bots="greedy", games=3, rules=rules, seed=1, workers=1,
                      chunk_size=2, progress=False, out=tmp_path / "run", histories=True)
    hs = list(read_histories(tmp_path / "run"))
    code, out, err = _run(capsys, tmp_path / "run", "--game", 2, "--decision", 0, "--rollouts", 2,
                          "--seed", 1, "--json")
    assert code == 0, err
    from rummy51.analysis.carousel import analyse_game

    want = analyse_game(hs[2], rollouts=2, seed=1, decision=0, game=2)
    assert json.loads(out) == json.loads(json.dumps(want.to_dict()))
    code, _, err = _run(capsys, tmp_path, "--rollouts", 2)
    assert code == 2 and "no hand histories" in err


def test_position_form(capsys):
    code, out, err = _run(capsys, "--players", 2, "--hand", "5S 6S 7S 9H KD", "--table", "2C 3C 4C",
                          "--rollouts", 16, "--seed", 1, "--played", "draw", "--json")
    assert code == 0, err
    (d,) = json.loads(out)["decisions"]
    assert {c["move"] for c in d["candidates"]} == {"draw", "meld 5S 6S 7S"}
    assert d["played"] == "draw" and d["loss"] is not None
    code, out, err = _run(capsys, "--players", 2, "--hand", "5S 6S 7S 9H KD", "--rollouts", 8,
                          "--seed", 1)
    assert code == 0 and "loss" not in out.splitlines()[0]


@pytest.mark.parametrize("argv, words", [
    (["--decision", 100000], "--decision 100000 is out of range"),
    (["--rollouts", 0], "--rollouts must be 1 or more"),
    (["--rollouts", -5], "--rollouts must be 1 or more"),
    (["--time", 0], "--time must be a positive"),
    (["--time", -2], "--time must be a positive"),
    (["--workers", 0], "--workers must be 1 or more"),
    (["--knock-limit", 0], "does not replay under the given rules"),
    (["--game", 3], "--game 3 is out of range"),
    (["--hand", "AS"], "not both"),
])
def test_bad_history_input_is_one_line(capsys, history, argv, words):
    code, out, err = _run(capsys, history, *argv)
    assert code == 2 and out == ""
    assert words in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("argv, words", [
    (["--hand", "AS AS 2H"], "impossible card counts"),
    (["--hand", "AS 2H", "--stock", 3], "impossible card counts"),
    (["--hand", "AS 2H", "--sizes", "2,x"], "--sizes"),
    (["--hand", "AS 2H", "--sizes", "3,10"], "sizes"),
    (["--hand", "AS ZZ"], "--hand"),
    (["--hand", "AS 2H", "--played", "meld 9D"], "9D"),
    (["--hand", "AS 2H", "--rollouts", 0], "--rollouts"),
    (["--hand", "AS 2H", "--decision", 1], "--decision picks from a HISTORY"),
    ([], "give a HISTORY file"),
])
def test_bad_position_input_is_one_line(capsys, argv, words):
    code, out, err = _run(capsys, "--players", 2, "--seed", 1, *argv)
    assert code == 2 and out == ""
    assert words in err and len(err.strip().splitlines()) == 1, err


def test_a_file_that_is_no_history(capsys, tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"format": "something else"}')
    code, _, err = _run(capsys, p, "--rollouts", 2)
    assert code == 2 and "Carousel" in err and len(err.strip().splitlines()) == 1
    code, _, err = _run(capsys, tmp_path / "missing.json", "--rollouts", 2)
    assert code == 2 and "cannot read" in err
