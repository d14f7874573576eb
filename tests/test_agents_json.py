"""The JSON door for language models and GUIs (rummy51.envs.llm, PlayerView.to_dict,
parse_action): plain JSON in, text back.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from rummy51 import RuleSet
from rummy51.r51.engine import Discard, Draw, GameState, LayDown, LayOff, SwapJoker, stacked_deck
from rummy51.envs.llm import apply_reply, legal_action_dicts, new_deal, turn_prompt
from rummy51.r51 import engine as r51_engine
from rummy51.r51.agent import AgentState
from rummy51.r51.codec import OPEN, Cancel, Stage
from rummy51.r51.notation import action_text, parse_action

DEFAULT = RuleSet()


def test_parse_action_is_exported():
    assert r51_engine.parse_action is parse_action
    assert "parse_action" in r51_engine.__all__


@pytest.mark.parametrize("text, move", [
    ("draw stock", Draw("stock")),
    ("Draw Discard", Draw("discard")),
    ("draw from the bottom", Draw("bottom")),
    ("draw", Draw("stock")),
    ("discard 7S", Discard("7S")),
    ("discard jk", Discard("JK")),
    ("lay down 6S 7S 8S | 10D 10C 10H", LayDown(("6S 7S 8S", "10D 10C 10H"))),
    ("lay down 8S 9S JK(7S)", LayDown(("8S 9S JK",), (("7S",),))),
    ("lay off 9S on meld 3", LayOff("9S", 3)),
    ("lay off JK on meld 0 (low)", LayOff("JK", 0, "low")),
    ("swap 10S for the joker of meld 2", SwapJoker("10S", 2)),
    ("stage 8S 9S JK(10S)", Stage("8S 9S JK", ("10S",))),
    ("cancel", Cancel()),
])
def test_parse_action_forms(text, move):
    assert parse_action(text) == move
    assert parse_action(action_text(move)) == move
    assert parse_action(f"  {text.upper()}. ") == move


@pytest.mark.parametrize("bad", [
    "", "jump", "discard 11H", "lay off 9S on meld x", "lay down 7S 8S | ", "draw sideways",
    "lay down 8S JK(9S) JK", "stage 7S 8S 9S | QH QD QC", "x" * 5000,
])
def test_parse_action_errors_are_one_line(bad):
    with pytest.raises(ValueError) as e:
        parse_action(bad)
    assert "\n" not in str(e.value) and len(str(e.value)) < 500


def test_parse_action_wants_text():
    with pytest.raises(TypeError, match="a move as text is a str"):
        parse_action(7)


def test_view_to_dict_is_plain_json():
    rng = np.random.default_rng(0)
    s = AgentState.new(DEFAULT, players=4, seed=2)
    while not s.is_terminal():
        for p in range(4):
            d = s.view(p).to_dict()
            text = json.dumps(d)
            assert json.loads(text) == d
            assert d["hand"] == [x for x in d["hand"]] and d["player"] == p
        acts = s.legal_actions()
        s.apply_action(int(rng.choice(acts)))
    d = s.view(0).to_dict()
    assert d["phase"] == "over" and json.loads(s.view(0).to_json()) == d
    assert all(r.get("card") is None for r in d["history"]
               if r.get("draw") == "stock" and r["player"] != 0)


def test_legal_actions_parse_back_to_their_ids():
    rng = np.random.default_rng(1)
    s = new_deal(players=3, seed=4)
    turns = 0
    while not s.is_terminal() and turns < 300:
        prompt = turn_prompt(s, history=False)
        json.dumps(prompt)
        entries = prompt["legal_actions"]
        assert [e["id"] for e in entries] == s.legal_actions()
        for e in entries:
            assert s.encode(parse_action(e["text"])) == e["id"]
        pick = entries[int(rng.integers(len(entries)))]
        reply = pick["text"] if turns % 2 else str(pick["id"])
        assert apply_reply(s, reply) == [pick["id"]]
        turns += 1


def test_a_whole_opening_as_one_reply():
    deck = stacked_deck(DEFAULT, ["6S 7S 8S 10D 10C 10H 2C 5H 9C QD KH 3D 4C 2H 7D"], players=2)
    s = AgentState.new(DEFAULT, players=2, deck=deck)
    texts = [e["text"] for e in legal_action_dicts(s)]
    assert "stage 6S 7S 8S" in texts and not any(t.startswith("lay down") for t in texts)
    ids = apply_reply(s, "lay down 6S 7S 8S | 10D 10C 10H")
    assert ids[-1] == OPEN and len(ids) == 3 and s.game.opened[0]
    assert apply_reply(s, "discard 2C") == [3 + 40]


def test_bad_replies_change_nothing():
    deck = stacked_deck(DEFAULT, ["6S 7S 8S 10D 10C 10H 2C 5H 9C QD KH 3D 4C 2H 7D"], players=2)
    s = AgentState.new(DEFAULT, players=2, deck=deck)
    before = str(s)
    for bad in ["lay down 6S 7S 8S", "discard AS", "draw stock", "9999", "lay off 2C on meld 0",
                "what a nice hand", "lay down 6S 7S 8S | 10D 10C 10H 2C"]:
        with pytest.raises(ValueError) as e:
            apply_reply(s, bad)
        assert "\n" not in str(e.value)
        assert str(s) == before
    with pytest.raises(TypeError):
        apply_reply(s, 2.5)
    with pytest.raises(TypeError):
        turn_prompt(GameState.new(DEFAULT, 2, seed=1))
