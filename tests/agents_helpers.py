"""Helpers of the agent-door tests: random play over integer actions and the codec soak.

``kind_random(state, rng)`` picks a kind of move uniformly, then a move of that kind (as
``RandomBot`` does, so that deals end in tens of turns, not at the cap);
``soak_deal(rules, seed)`` plays one such deal and, at every position, checks every legal
id: decoded, encoded back, its text parsed back, applied to a clone (``GameState.check``
after), and every move of the engine's own ``legal_actions()`` made through the codec.
"""
from __future__ import annotations

import numpy as np

from rummy51.r51.actions import LayDown
from rummy51.r51.agent import AgentState
from rummy51.r51.codec import MELD0, OPEN
from rummy51.r51.notation import action_text, parse_action


def kind_random(state: AgentState, rng: np.random.Generator) -> int:
    acts = state.legal_actions()
    kinds: dict = {}
    for a in acts:
        kinds.setdefault(state.codec.kind(a), []).append(a)
    names = sorted(kinds)
    k = names[int(rng.integers(len(names)))]
    return kinds[k][int(rng.integers(len(kinds[k])))]


def chance_step(state: AgentState, rng: np.random.Generator) -> int:
    cards, probs = zip(*state.chance_outcomes(), strict=True)
    return int(rng.choice(cards, p=probs))


def _table_key(table) -> list:
    # a set's joker floats (docs/engine.md 8): its named stand-in is no part of the state
    return [(m.kind, m.cards, m.represents if m.kind == "run" else None, m.owner) for m in table]


def _same_deal(a, b) -> bool:
    return (a.hands == b.hands and _table_key(a.table) == _table_key(b.table)
            and a.opened == b.opened
            and a.discard_pile == b.discard_pile and a.phase == b.phase and a.turn == b.turn
            and a.current == b.current and a.result == b.result)


def soak_deal(rules, seed: int, players: int = 4, engine_moves: bool = True,
              check_all: bool = True) -> dict:
    """Play one kind-random deal and check every legal action of every position; returns
    counts (positions, actions, engine moves) for the caller's report. ``check_all``:
    ``GameState.check()`` after every action applied (else after the table moves only:
    melds, lay-offs, swaps; draws and discards are checked on the main line)."""
    rng = np.random.default_rng(seed)
    s = AgentState.new(rules, players=players, seed=seed)
    codec = s.codec
    positions = actions = engine = 0
    while not s.is_terminal():
        acts = s.legal_actions()
        assert acts, f"seed {seed}: no legal action at\n{s}"
        assert acts == sorted(set(acts)), f"seed {seed}: legal ids not ascending and unique"
        positions += 1
        if s.staged:
            # staging never leads to a dead end
            assert OPEN in acts or any(MELD0 <= a < codec.slot0 for a in acts), f"seed {seed}"
        for a in acts:
            move = s.decode(a)
            assert s.encode(move) == a, (seed, a, move)
            text = action_text(move)
            assert parse_action(text) == move, (seed, text)
            c = s.copy()
            c.apply_action(a)
            if check_all or a >= MELD0:
                c.game.check()
            actions += 1
        if engine_moves and not s.staged:
            # every move of the engine's legal_actions() is reachable through the codec
            g = s.game
            for move in g.legal_actions():
                ids = s.encode_sequence(move)
                assert ids[0] in acts, (seed, move, ids)
                c = s.copy()
                for a in ids:
                    c.apply_action(a)
                ref = g.copy()
                ref.apply(move)
                assert _same_deal(c.game, ref), (seed, move)
                if isinstance(move, LayDown):
                    assert [m.cards for m in c.game.table[len(g.table):]] == \
                        [m.cards for m in ref.table[len(g.table):]]
                engine += 1
        s.apply_action(kind_random(s, rng))
        s.game.check()
    return {"positions": positions, "actions": actions, "engine": engine,
            "turns": s.game.turn, "how": s.game.result.how}
