"""A language model's answer, as both games' JSON doors read it (a private module made
for sharing): an id applied at once, or the text for the game to read."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..cards import check_text, shown

__all__ = ["apply_id_or_text"]


def apply_id_or_text(state: Any, reply: object, legal: Sequence[int]) -> list[int] | str:
    """``[id]`` when ``reply`` is the id of a legal move (an int, its digits, or a dict's
    ``"id"``), the move made on ``state``; else the reply's text (a dict's ``"text"``)
    for the game to read. Anything else is a one-line ``TypeError``; an id that is not
    legal, or a text longer than ``cards.MAX_TEXT``, a ``ValueError``, and nothing
    changes."""
    if isinstance(reply, dict):
        reply = reply.get("text", reply.get("id"))
    if isinstance(reply, str):
        check_text("reply", reply)      # a pasted essay is refused before it is read
    if isinstance(reply, str) and reply.strip().isdigit():
        if len(reply.strip()) > 18:
            raise ValueError(f"{shown(reply.strip())} is not the id of a legal move now; "
                             "choose one of legal_actions")
        reply = int(reply.strip())
    if isinstance(reply, bool) or not isinstance(reply, (int, str)):
        raise TypeError(f"a reply is a move's text or id, got {type(reply).__name__}")
    if isinstance(reply, int):
        if reply not in legal:
            raise ValueError(f"{reply} is not the id of a legal move now; choose one of "
                             "legal_actions")
        state.apply_action(reply)
        return [reply]
    return reply
