"""A turn as plain JSON, and the answer back from text: the door for language models and GUIs.

>>> import json
>>> from rummy51.envs.llm import new_deal, turn_prompt, apply_reply
>>> state = new_deal(players=2, seed=5)
>>> prompt = turn_prompt(state)          # plain JSON data: json.dumps works
>>> first = prompt["legal_actions"][0]
>>> sorted(first)
['action', 'id', 'text']
>>> apply_reply(state, first["text"]) == [first["id"]]
True

``turn_prompt(state)`` holds the view of the player on turn (``PlayerView.to_dict``),
what they have staged for an opening, and ``legal_actions``: every legal move as
``{"id", "text", "action"}`` (the integer id, the move as text, the move as JSON).
``apply_reply(state, reply)`` takes the model's answer: one of those texts or ids, or
any legal move written out (``rummy51.r51.engine.parse_action``); an opening may be
given whole (``lay down 6S 7S 8S | 10D 10C 10H``) and is made as its staged melds
then ``open``. A bad answer raises a one-line ``ValueError`` and changes nothing, so a
harness can show the model the message and ask again.

Carousel's door is ``new_carousel_game``, ``carousel_turn_prompt`` and
``carousel_apply_reply`` (``rummy51.envs.llm_carousel``): the same shape, its moves the
Carousel codec's ids, a meld play also written whole as the hand cards it places.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..cards import shown
from ..r51.actions import Action, action_to_json
from ..r51.agent import AgentState
from ..r51.codec import Cancel, Stage
from ..r51.notation import action_text, parse_action
from ..r51.views import view_to_dict
from ..rules import RuleSet
from ._reply import apply_id_or_text
from .llm_carousel import (  # noqa: F401  (Carousel's door, re-exported)
    CAROUSEL_INSTRUCTIONS,
    carousel_apply_reply,
    carousel_turn_prompt,
    new_carousel_game,
)

if TYPE_CHECKING:
    from ..runs.seeding import SeedLike

__all__ = ["new_deal", "turn_prompt", "legal_action_dicts", "apply_reply", "move_to_json",
           "INSTRUCTIONS", "new_carousel_game", "carousel_turn_prompt", "carousel_apply_reply",
           "CAROUSEL_INSTRUCTIONS"]

#: How to answer, for the prompt.
INSTRUCTIONS = (
    "You are playing Rummy 51 (rules: docs/rules.md). Answer with exactly one move: the "
    "'text' (or the 'id') of one entry of legal_actions. You may also write any legal move "
    "in the same notation; an opening may be written whole, e.g. "
    "'lay down 6S 7S 8S | 10D 10C 10H'. Before you have opened, melds are staged one at a "
    "time ('stage ...') and 'lay down ...' of the staged melds opens.")


def new_deal(rules: RuleSet | None = None, players: int = 4, seed: SeedLike = None,
             first: int = 0, **rule_fields: Any) -> AgentState:
    """A new deal for the JSON door (``rules``, or RuleSet fields as keywords)."""
    if rules is None:
        rules = RuleSet(**rule_fields)
    elif rule_fields:
        rules = rules.replace(**rule_fields)
    return AgentState.new(rules, players, seed=seed, first=first)


def move_to_json(move: Action | Stage | Cancel) -> dict[str, Any]:
    """A move (an engine action, ``Stage`` or ``Cancel``) as JSON data."""
    if isinstance(move, Stage):
        d = {"stage": action_text(move)[len("stage "):].split()}
        return d
    if isinstance(move, Cancel):
        return {"cancel": True}
    return action_to_json(move)


def legal_action_dicts(state: AgentState) -> list[dict[str, Any]]:
    """Every legal move now as ``{"id", "text", "action"}``."""
    out = []
    for a in state.legal_actions():
        move = state.decode(a)
        out.append({"id": a, "text": action_text(move), "action": move_to_json(move)})
    return out


def turn_prompt(state: AgentState, history: bool = True) -> dict[str, Any]:
    """The turn of the player on turn as plain JSON data: ``instructions``, the ``view``
    (``history=False`` leaves the public history out), ``staged`` and ``legal_actions``."""
    if not isinstance(state, AgentState):
        raise TypeError(f"state must be an AgentState (rummy51.envs.llm.new_deal), got "
                        f"{type(state).__name__}")
    p = state.current_player()
    if p < 0:
        raise ValueError("no player is on turn: the deal is over" if state.is_terminal()
                         else "no player is on turn: this is a chance node")
    view = view_to_dict(state.view(p), history=history)
    view["staged"] = [state.codec.meld(i).text() for i in state.staged]
    view["may_cancel"] = bool(state.staged) and state.may_cancel
    return {"instructions": INSTRUCTIONS, "player": p, "view": view,
            "legal_actions": legal_action_dicts(state)}


def apply_reply(state: AgentState, reply: object) -> list[int]:
    """Make the move the answer ``reply`` names and return the ids applied (see the module
    docstring). Nothing changes when the answer is not a legal move."""
    if not isinstance(state, AgentState):
        raise TypeError(f"state must be an AgentState, got {type(state).__name__}")
    if state.current_player() < 0:
        raise ValueError("no player is on turn (the deal is over, or this is a chance node)")
    legal = state.legal_actions()
    got = apply_id_or_text(state, reply, legal)
    if isinstance(got, list):
        return got
    text = got.strip().strip("'\"`").strip()
    move = parse_action(text)  # a one-line ValueError if it is no move
    for a in legal:
        if state.decode(a) == move:
            state.apply_action(a)
            return [a]
    try:
        ids = state.encode_sequence(move)
    except ValueError as e:
        raise ValueError(f"{shown(text)} is not a legal move now: {e}") from None
    trial = state.copy()
    for a in ids:
        if a not in trial.legal_actions():
            raise ValueError(f"{shown(text)} is not a legal move now ({trial.why_illegal(a)})")
        trial.apply_action(a)
    for a in ids:
        state.apply_action(a)
    return ids


def dumps(prompt: dict[str, Any], indent: int | None = None) -> str:
    """``json.dumps`` of a prompt (cards are ASCII text, so ``ensure_ascii`` does not matter)."""
    return json.dumps(prompt, indent=indent)
