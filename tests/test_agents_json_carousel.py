"""Carousel's JSON door (rummy51.envs.llm: new_carousel_game, carousel_turn_prompt,
carousel_apply_reply): prompts are JSON, every legal entry's text and id is read back,
a meld play written as hand cards or as the whole table, bad replies one line and
nothing changed."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rummy51.cards import card_text
from rummy51.carousel.actions import MeldRecord
from rummy51.carousel.codec import ADD0, COMMIT
from rummy51.envs.llm import carousel_apply_reply, carousel_turn_prompt, new_carousel_game


def _key(s):
    g = s.game
    return (s.chosen, [list(h) for h in g.hands], [m.text() for m in g.table], g.phase,
            g.turn, g.current, len(g.history))


def _to_meld_turn(s, rng):
    """Random moves (no meld) until the player on turn has a meld play."""
    while True:
        p = carousel_turn_prompt(s)
        if any(e["id"] >= ADD0 for e in p["legal_actions"]):
            return p
        s.apply_action(int(rng.choice([e["id"] for e in p["legal_actions"]])))


def test_every_entry_reads_back_by_text_and_id():
    s = new_carousel_game(players=3, seed=2)
    rng = np.random.default_rng(2)
    for _ in range(300):
        if s.is_terminal():
            break
        p = carousel_turn_prompt(s)
        json.dumps(p)
        assert p["view"]["hand"] and p["legal_actions"]
        for e in p["legal_actions"]:
            by_text, by_id = s.copy(), s.copy()
            assert carousel_apply_reply(by_text, e["text"]) == [e["id"]]
            assert carousel_apply_reply(by_id, str(e["id"])) == [e["id"]]
            assert _key(by_text) == _key(by_id)
        s.apply_action(int(rng.choice([e["id"] for e in p["legal_actions"]])))


def test_meld_written_as_hand_cards_and_as_a_table():
    s = new_carousel_game(players=3, seed=3)
    rng = np.random.default_rng(3)
    _to_meld_turn(s, rng)
    k = s.oracle().playable(())
    # a play: add playable cards until a commit is legal
    chosen: tuple = ()
    o = s.oracle()
    while not o.can_commit(chosen):
        chosen = chosen + (o.playable(chosen)[0],)
    names = " ".join(card_text(c) for c in chosen)
    t = s.copy()
    ids = carousel_apply_reply(t, f"meld {names}")
    assert ids == [ADD0 + c for c in sorted(chosen)] + [COMMIT] and k
    rec = [r for r in t.game.history if isinstance(r, MeldRecord)][-1]
    assert sorted(rec.played) == sorted(chosen)
    table = " | ".join(m.text() for m in rec.table)
    u = s.copy()
    carousel_apply_reply(u, f"meld {table}")
    assert [m.text() for m in u.game.table] == [m.text() for m in t.game.table]
    assert u.game.hands == t.game.hands


def test_bad_replies_are_one_line_and_change_nothing():
    s = new_carousel_game(players=3, seed=4)
    rng = np.random.default_rng(4)
    p = _to_meld_turn(s, rng)
    hand = s.game.hands[s.game.current]
    absent = next(c for c in range(52) if c not in hand)
    key = _key(s)
    for bad, exc in [("knock", ValueError), ("99", ValueError), (99, ValueError),
                     (f"add {card_text(absent)}", ValueError), (f"meld {card_text(absent)}", ValueError),
                     ("meld 5Z", ValueError), ("hello", ValueError), ("meld", ValueError),
                     ("meld 2S 3S 4S | 2S 3S 4S | 2S 3S 4S", ValueError),
                     (1.5, TypeError), (None, TypeError), (True, TypeError)]:
        with pytest.raises(exc) as e:
            carousel_apply_reply(s, bad)
        assert "\n" not in str(e.value)
        assert _key(s) == key
    assert p["meld_plays_possible"]


def test_after_the_end():
    s = new_carousel_game(players=2, seed=1, round_only=True)
    rng = np.random.default_rng(1)
    while not s.is_terminal():
        s.apply_action(int(rng.choice(s.legal_actions())))
    with pytest.raises(ValueError, match="over"):
        carousel_turn_prompt(s)
    with pytest.raises(ValueError, match="over"):
        carousel_apply_reply(s, "draw")
    with pytest.raises(TypeError, match="CarouselAgentState"):
        carousel_turn_prompt("x")
