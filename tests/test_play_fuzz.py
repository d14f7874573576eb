"""A fuzz of ``rummy51 carousel play``: sessions of random command lines (commands,
cards, jokers with and without their cards, table jokers moved, garbage, control
characters, lines of a million characters) played against the bots. Not one traceback:
every bad line is one short ``refused:`` line on stderr, the game goes on, and the
session ends with exit status 0. (``hint`` runs rollouts for about a second: it is left
out here; tests/test_carousel_play_hint.py covers it.)"""
from __future__ import annotations

import io
import random
import sys

import pytest

import rummy51.cli as top
from rummy51.cards import card_text

COMMANDS = ["meld", "m", "draw", "d", "knock", "k", "pass", "p", "best", "help", "h", "?",
            "meld best", "MELD", "Draw", "frobnicate", "", "   ", "quit-not", "meld,", "|"]
JUNK = ["5Z", "11S", "JK(JK)", "JK(", "JK()", "JK(5S", "JK(5S->)", "JK(->5S)", "JK(5S->6S->7S)",
        "*", "JOKER", "🃏", "7♠", "10♥", "\x00", "\x1b[2J", "é", "ſ", "∞", "-1", "99999999999",
        "1e9", "None", "[52, 3]", "{", "}", "(", ")", "->", ">", "→", ",", ";", "|", "\t"]


def _token(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.55:
        return card_text(rng.randrange(53))
    if r < 0.7:
        return f"JK({card_text(rng.randrange(52))})"
    if r < 0.78:
        return f"JK({card_text(rng.randrange(52))}->{card_text(rng.randrange(52))})"
    return rng.choice(JUNK)


def _line(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.01:
        return "meld " + " ".join(card_text(rng.randrange(53)) for _ in range(20_000))
    if r < 0.015:
        return rng.choice(["x", "meld 7S ", "JK(5S) "]) * 200_000     # about a megabyte
    cmd = rng.choice(COMMANDS)
    words = [_token(rng) for _ in range(rng.choice([0, 0, 1, 2, 3, 5, 12]))]
    return " ".join([cmd] + words)


def _session(monkeypatch, capsys, k: int) -> None:
    rng = random.Random(k)
    lines = [_line(rng) for _ in range(rng.randint(10, 40))]
    # the game must move on too: the best play, draws and passes between the noise
    script = []
    for line in lines:
        script.append(line)
        script += rng.choice([[], ["draw"], ["meld best"], ["pass"], ["knock"]])
    bots = ["greedy", "careful", "random,greedy", "greedy,careful,random"][k % 4]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(script) + "\n"))
    code = top.main(["carousel", "play", "--seed", str(k), "--bots", bots])
    out, err = capsys.readouterr()
    assert code == 0, (k, err[-500:])
    assert "Traceback" not in err and "Traceback" not in out
    for line in err.splitlines():
        assert line.startswith("refused: "), (k, line[:300])
        assert len(line) <= 400, (k, line[:300])


@pytest.mark.parametrize("k", range(60))
def test_carousel_play_fuzz(monkeypatch, capsys, k):
    _session(monkeypatch, capsys, k)


@pytest.mark.slow
@pytest.mark.parametrize("k", range(60, 460))
def test_carousel_play_fuzz_long(monkeypatch, capsys, k):
    _session(monkeypatch, capsys, k)
