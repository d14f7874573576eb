"""``rummy51 carousel play``: whole games scripted from stdin, and bad input.

The scripted games feed the same four commands over and over (``meld best``, ``knock``,
``draw``, ``pass``): at each point of a turn one of them is legal, the others are
refused with one line, so the script plays the solver's best play, knocks when it may
and otherwise draws or ends the turn, until the game is over. The bad-input cases run
on a dealt position (a forced deck) so the hand is known.
"""
from __future__ import annotations

import io
import re
import subprocess
import sys

import pytest

import rummy51.cli as top
from rummy51.cards import to_codes
from rummy51.carousel import CarouselRules
from rummy51.carousel.bots import GreedyBot
from rummy51.carousel.engine import GameState
from rummy51.cli.carousel_play import _Game

CYCLE = "meld best\nknock\ndraw\npass\n"


def _run(monkeypatch, capsys, argv, stdin: str):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = top.main(["carousel", "play", *argv])
    out, err = capsys.readouterr()
    return code, out, err


GAMES = [(seed, bots) for seed, bots in zip(
    range(20), ["greedy", "careful", "greedy,careful", "random,greedy", "careful,careful,greedy"] * 4,
    strict=True)]


@pytest.mark.parametrize("seed, bots", GAMES, ids=[f"{s}-{b}" for s, b in GAMES])
def test_a_scripted_game_finishes(monkeypatch, capsys, seed, bots):
    code, out, err = _run(monkeypatch, capsys, ["--seed", str(seed), "--bots", bots],
                          CYCLE * 2500)
    assert code == 0, err[-2000:]
    m = re.search(r"^game over after (\d+) rounds: final totals \(with the bonuses\) (.*); "
                  r"(.*) won$", out, re.M)
    assert m, out[-3000:]
    rounds = int(m.group(1))
    assert len(re.findall(r"^round \d+ over: ", out, re.M)) == rounds
    assert len(re.findall(r"^round \d+: .* dealt; ", out, re.M)) == rounds
    totals = [int(x) for x in re.findall(r"(?:you|seat \d) (\d+)", m.group(2))]
    assert len(totals) == 1 + len(bots.split(","))
    # every refusal is one line naming the rule, never a traceback
    assert "Traceback" not in err
    for line in err.splitlines():
        assert line.startswith("refused: ") and "docs/rules-carousel.md" in line, line
    # the player's own moves and the bots' are shown
    assert "your hand (" in out and "table:" in out and re.search(r"^  seat 1 \(", out, re.M)
    assert "your move" not in out      # no prompt when stdin is not a terminal


@pytest.mark.parametrize("stock_out", ["exhauster", "finder"])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_scripted_game_through_stock_outs(monkeypatch, capsys, seed, stock_out):
    """Five players on one deck leave 3 cards in the stock: the last turns come at once.
    Under the source's order (exhauster) they start after the player who took the last
    card; under the older one (finder) after a draw that finds the stock empty."""
    code, out, err = _run(monkeypatch, capsys, ["--seed", str(seed), "--bots", "greedy",
                                                "--players", "5", "--rules", "one-deck",
                                                "--stock-out", stock_out],
                          CYCLE * 2500)
    assert code == 0 and re.search(r"^game over after \d+ rounds", out, re.M), err[-2000:]
    found_empty = "draws (the stock is empty)" in out or "you draw: the stock is empty" in out
    assert found_empty == (stock_out == "finder")
    assert "no draw left" in out
    assert all(line.startswith("refused: ") for line in err.splitlines())


def test_rounds_stops_early_and_eof_ends_cleanly(monkeypatch, capsys):
    code, out, _ = _run(monkeypatch, capsys, ["--seed", "3", "--rounds", "1"], CYCLE * 2500)
    assert code == 0 and "stopped after 1 round (--rounds): totals you " in out
    assert len(re.findall(r"^round \d+ over: ", out, re.M)) == 1
    code, out, _ = _run(monkeypatch, capsys, ["--seed", "3"], "help\nbest\n")
    assert code == 0 and out.rstrip().endswith("left the game")
    assert "meld 7S 9H JK" in out and re.search(r"^hint: ", out, re.M)
    code, out, _ = _run(monkeypatch, capsys, ["--seed", "3"], "quit\ndraw\n")
    assert code == 0 and out.rstrip().endswith("left the game") and "> draw" not in out


def test_through_a_pipe():
    """The command as a script runs it: stdin a pipe, end of input leaves the game."""
    p = subprocess.run([sys.executable, "-m", "rummy51", "carousel", "play", "--seed", "5",
                        "--bots", "greedy", "--unicode", "--rounds", "1"],
                       input=CYCLE * 500, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "stopped after 1 round" in p.stdout and "your move" not in p.stdout
    assert re.search("[♠♥♦♣]", p.stdout) and "Traceback" not in p.stderr


# --------------------------------------------------------------------------- bad input
HAND0 = "JK 2C 3C 4C 7H 9S KD QD 5S 8D"
HAND1 = "AH 3H 5H 8H 10H KS 3S 6D 10D JC"   # nothing melds


def _forced_game(rules=None, hand0=HAND0):
    """Two players, seat 0 first, seat 0 holding ``hand0`` and drawing AS first."""
    rules = rules or CarouselRules.for_players(2)
    first = to_codes(hand0) + to_codes(HAND1) + to_codes("AS")
    rest = [c for c in rules.deck() if c not in first]
    return GameState.new(rules, seed=1, dealer=1, decks=[first + rest])


def _play_forced(monkeypatch, capsys, commands, rules=None, hand0=HAND0):
    state = _forced_game(rules, hand0)
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(c + "\n" for c in commands)))
    code = _Game(state, [GreedyBot()], ["greedy"], False, None).run()
    out, err = capsys.readouterr()
    return code, state, out, err.splitlines()


def test_bad_input_is_one_line_and_the_game_goes_on(monkeypatch, capsys):
    code, state, out, err = _play_forced(monkeypatch, capsys, [
        "meld 7S",             # not in the hand
        "meld 2C 2C",          # a card twice
        "meld JK",             # a joker without a place (empty table)
        "meld 9S KD",          # a card that fits nowhere
        "meld 9Q",             # not a card
        "meld",                # no cards
        "knock",               # not yet
        "frobnicate",          # unknown
        "pass",                # not before three draws or a meld
        "meld 2C 3C 4C",       # legal: the turn is at its end
        "knock",               # above the limit
        "draw",                # after a meld
        "meld 5S",             # a second meld
        "draw now",            # no arguments
        "pass",
    ])
    assert code == 0
    want = [
        "refused: 7S is not in the hand: a play places only cards of the hand "
        "(docs/rules-carousel.md 4)",
        "refused: 2C is named twice, but the hand holds one: a play places only cards of "
        "the hand (docs/rules-carousel.md 4)",
        "refused: JK has no place: no arrangement of the table and the other cards named has "
        "room for a joker (docs/rules-carousel.md 4)",
        "refused: 9S has no place: no arrangement of the table and the other cards named puts "
        "it in a meld (docs/rules-carousel.md 4)",
        "refused: '9Q' is not a card",
        "refused: name the hand cards to add, like meld 7S 9H JK (best shows a play) "
        "(docs/rules-carousel.md 4)",
        "refused: cannot knock yet",
        "refused: unknown command 'frobnicate': type help for the commands",
        "refused: cannot end the turn",
        "refused: cannot knock: the hand is worth 75 points, more than the limit of 5 "
        "(docs/rules-carousel.md 3.4)",
        "refused: cannot draw: the player melded",
        "refused: cannot meld: a player melds no more than once in a turn",
        "refused: draw takes no cards",
    ]
    assert len(err) == len(want), err
    for line, w in zip(err, want, strict=True):
        assert line.startswith(w) or (w.endswith("card") and w[9:] in line), (line, w)
    after = out[out.index("you meld 2C 3C 4C"):]
    assert re.match(r"you meld 2C 3C 4C\n\nround 1, turn 1; .*\ntable:\n  \[1\] 2C 3C 4C\n"
                    r"your hand \(8 cards, 75 points\)", after), after[:500]
    assert out.rstrip().endswith("left the game")
    # the bot played its turn after the pass, and the game was still on
    assert re.search(r"^  seat 1 \(greedy\): draws", out, re.M) and not state.over
    assert state.round == 0 and "2C 3C 4C" in [m.text() for m in state.table]


def test_a_joker_is_declared_and_shown(monkeypatch, capsys):
    code, state, out, err = _play_forced(monkeypatch, capsys, ["meld QD KD JK", "pass"])
    assert code == 0 and err == []
    said, shown = re.search(r"you meld QD KD JK\((..)\)\n\n.*\ntable:\n  \[1\] (.*)\n",
                            out).groups()
    assert shown in ("JK(JD) QD KD", "QD KD JK(AD)") and f"JK({said})" in shown
    assert state.round == 0 and any("QD KD" in m.text() for m in state.table)
    # the joker's card named: exactly that play, either way
    for card, table in (("AD", "QD KD JK(AD)"), ("JD", "JK(JD) QD KD")):
        code, state, out, err = _play_forced(monkeypatch, capsys, [f"meld QD KD JK({card})",
                                                                   "pass"])
        assert code == 0 and err == [] and f"you meld QD KD JK({card})" in out
        assert re.search(r"table:\n  \[1\] (.*)\n", out).group(1) == table


def test_the_hint_and_meld_best(monkeypatch, capsys):
    code, state, out, err = _play_forced(monkeypatch, capsys, ["best", "meld best", "pass"])
    assert code == 0 and err == []
    m = re.search(r"^hint: meld (.*) \(leaves (\d+) points in hand", out, re.M)
    assert m, out
    after = out[out.index(f"you meld {m.group(1)}"):]
    assert re.search(r"your hand \(\d+ cards, (\d+) points\)", after).group(1) == m.group(2)


def test_knock_and_the_round_result(monkeypatch, capsys):
    """A hand melded down to 5 points or fewer knocks; the round's result is shown."""
    code, state, out, err = _play_forced(monkeypatch, capsys, [
        "meld 2C 3C 4C 5C 6C 7S 8S 9S", "knock"], hand0="2C 3C 4C 5C 6C 7S 8S 9S AD 2D")
    assert code == 0 and err == []
    assert "knock (4 points, limit 5) or pass" in out and "you knock with 4 points" in out
    points1 = CarouselRules().hand_points(to_codes(HAND1))
    assert (f"round 1 over: you knocked. Hands: you 4, seat 1 {points1} points. Won by you "
            f"(+{points1 - 4})") in out
    assert state.totals == [points1 - 4, 0] and state.round == 1


@pytest.mark.parametrize("argv, message", [
    (["--bots", "foo"], "--bots: 'foo' is not a Carousel bot"),
    (["--bots", "greedy,greedy,greedy,greedy,greedy,greedy"], "Carousel takes 2..6"),
    (["--bots", "greedy,", "--seed", "1"], "is not a comma list"),
    (["--rounds", "0"], "--rounds must be 1 or more"),
    (["--players", "1"], "--players must be 2..6"),
    (["--bots", "greedy", "--players", "7"], "--players must be 2..6"),
    (["--bots", "greedy,careful", "--players", "4"], "--bots names 2 bots, but --players 4 needs 3"),
    (["--seed", "-1"], "--seed must be 0 or more"),
    (["--knock-limit", "x"], "'x' is not a whole number"),
    (["--rules", "nope"], "--rules 'nope' is not a Carousel rule preset"),
])
def test_bad_options(monkeypatch, capsys, argv, message):
    code, out, err = _run(monkeypatch, capsys, argv, "")
    assert code == 2 and err.count("\n") == 1 and message in err, err


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_a_terminal_gets_a_prompt():
    import os
    import pty
    import select
    import time

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "rummy51", "carousel", "play", "--seed", "2",
                             "--bots", "greedy"], stdin=slave, stdout=slave, stderr=slave,
                            close_fds=True)
    os.close(slave)
    out = b""
    said = []
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < 120 and proc.poll() is None:
            r, _, _ = select.select([master], [], [], 1.0)
            if not r:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            out += chunk
            if out.rstrip().endswith(b"your move:"):
                say = ["frobnicate", "best", "quit"][len(said)]
                said.append(say)
                os.write(master, (say + "\n").encode())
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = out.decode("utf-8", "replace")
    assert proc.returncode == 0 and said == ["frobnicate", "best", "quit"], text[-2000:]
    assert "refused: unknown command 'frobnicate'" in text and "hint: " in text
    assert "> best" not in text and text.rstrip().endswith("left the game")
