"""The audit's bad inputs, each a one-line error naming the file or flag (exit status 2
on the command line), never a traceback; and text of any length read in linear time
with its refusal cut to a readable length."""
from __future__ import annotations

import gzip
import io
import json
import os
import sys

import pytest

import rummy51.cli as top
from rummy51.cards import MAX_TEXT, card_text, check_text, parse_cards
from rummy51.carousel.bots import make_bot, play_game
from rummy51.carousel.rules import CarouselRules
from rummy51.carousel.table import parse_hand, parse_table
from rummy51.envs.llm import apply_reply, carousel_apply_reply, new_carousel_game, new_deal
from rummy51.r51.bots import GreedyBot, play_deal
from rummy51.rules import RuleSet


def _cli(capsys, *argv):
    code = top.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _one_line(code, err, *words):
    assert code == 2, err
    assert err.startswith("rummy51: error: ") and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and len(err) < 500, err
    for w in words:
        assert w in err, err


@pytest.fixture(scope="module")
def histories(tmp_path_factory):
    d = tmp_path_factory.mktemp("h")
    car = play_game([make_bot("greedy"), make_bot("greedy")], CarouselRules.for_players(2),
                    seed=3).to_json()
    r51 = play_deal([GreedyBot(), GreedyBot()], RuleSet(), seed=3).to_json()
    (d / "car.jsonl.gz").write_bytes(gzip.compress(car.encode() + b"\n"))
    (d / "r51.jsonl.gz").write_bytes(gzip.compress(r51.encode() + b"\n"))
    return d, car, r51


@pytest.mark.parametrize("cmd", [["analyse"], ["carousel", "analyse"]])
def test_a_corrupt_or_truncated_gz_history(tmp_path, capsys, histories, cmd):
    d, _, _ = histories
    name = "car.jsonl.gz" if "carousel" in cmd else "r51.jsonl.gz"
    data = (d / name).read_bytes()
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[:len(data) // 2])
    _one_line(*_cli(capsys, *cmd, cut)[::2], str(cut), "damaged")
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(data[:12] + bytes(b ^ 0x5A for b in data[12:40]) + data[40:])
    _one_line(*_cli(capsys, *cmd, bad)[::2], str(bad))


@pytest.mark.parametrize("cmd", [["analyse"], ["carousel", "analyse"]])
def test_deeply_nested_json(tmp_path, capsys, cmd):
    f = tmp_path / "deep.json"
    f.write_text("[" * 200_000 + "]" * 200_000)
    _one_line(*_cli(capsys, *cmd, f)[::2], str(f))
    g = tmp_path / "deep.jsonl"
    g.write_text('{"a": 1}\n' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "\n")
    _one_line(*_cli(capsys, *cmd, g)[::2], str(g))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("cmd", [["analyse"], ["carousel", "analyse"]])
def test_dev_zero_is_refused_at_once(capsys, cmd):
    _one_line(*_cli(capsys, *cmd, "/dev/zero")[::2], "/dev/zero", "not a history")


def test_a_sixteen_card_hand_at_the_draw(capsys):
    hand = "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH 2H 3H 4H"
    _one_line(*_cli(capsys, "analyse", "--hand", hand, "--phase", "draw", "--rollouts", 2)[::2],
              "--hand holds 16 cards", "--phase draw")
    _one_line(*_cli(capsys, "analyse", "--hand", hand, "--phase", "play", "--rollouts", 2)[::2],
              "--hand holds 16 cards")


def test_edited_winners_in_a_history(tmp_path, capsys, histories):
    _, car, _ = histories
    h = json.loads(car)
    h["winners"] = [p for p in range(2) if p not in h["winners"]] or [0, 1]
    f = tmp_path / "edited.json"
    f.write_text(json.dumps(h))
    _one_line(*_cli(capsys, "carousel", "analyse", f, "--rollouts", 2)[::2], "winners")


def test_a_history_from_stdin_is_capped(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("[" * 100_000))
    _one_line(*_cli(capsys, "carousel", "analyse", "-")[::2])


# --------------------------------------------------------------------------- text
def _cards(n: int) -> str:
    return " ".join(card_text(i % 53) for i in range(n))


def test_every_reader_takes_100000_cards_and_quotes_them_cut():
    text = _cards(100_000) + " 5Z"
    for fn in (parse_cards, parse_hand, lambda t: parse_table(t, CarouselRules())):
        with pytest.raises(ValueError, match="'5Z' is not a card") as e:
            fn(text)
        assert len(str(e.value)) < 300
    assert len(parse_cards(_cards(100_000))) == 100_000


def test_text_past_the_cap_is_refused_unread():
    with pytest.raises(ValueError, match="at most 1,000,000 are read"):
        check_text("hand", "x" * (MAX_TEXT + 1))
    with pytest.raises(ValueError, match="at most 1,000,000 are read"):
        parse_hand("7S " * 400_000)


def test_the_json_doors_refuse_long_replies_in_one_short_line():
    s = new_carousel_game(players=2, seed=1)
    carousel_apply_reply(s, "draw")
    d = new_deal(players=2, seed=1)
    for reply in ("meld " + _cards(40_000), "9" * 100_000, "x" * (MAX_TEXT + 5),
                  "meld " + "JK(5S) " * 50_000, "frobnicate " * 50_000):
        for door, state in ((carousel_apply_reply, s), (apply_reply, d)):
            with pytest.raises(ValueError) as e:
                door(state, reply)
            assert len(str(e.value)) < 400 and "\n" not in str(e.value)


def test_carousel_play_refuses_long_lines_in_one_short_line(monkeypatch, capsys):
    lines = ["draw", "meld " + _cards(40_000), "x" * (MAX_TEXT + 10), "y" * 500_000,
             "pass " + "junk " * 100_000, "quit"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    code = top.main(["carousel", "play", "--seed", "1", "--bots", "greedy"])
    out, err = capsys.readouterr()
    assert code == 0
    refusals = err.splitlines()
    assert len(refusals) == 4 and all(r.startswith("refused: ") and len(r) < 300
                                      for r in refusals), refusals
    assert "more than 1,000,000 characters is not read" in err
    assert max(len(x) for x in out.splitlines()) < 400      # the echo is cut too
