"""A player's view as plain JSON data (``PlayerView.to_dict``), for GUIs and language models.

Everything is text or numbers: cards in text notation (docs/rules.md 1), table melds
with their ids (the ``meld`` of a lay-off or a swap), the public history move by move.
``json.dumps(view.to_dict())`` always works. docs/agents.md shows the shape.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..cards import card_text, cards_text
from ..rules import RuleSet, rules_to_dict
from .actions import (
    ChanceRecord,
    DiscardRecord,
    DrawRecord,
    LayDownRecord,
    action_to_json,
)
from .melds import TableMeld

if TYPE_CHECKING:
    from .actions import Record
    from .engine import PlayerView

__all__ = ["view_to_dict", "meld_to_dict", "record_to_dict", "VIEW_FORMAT"]

VIEW_FORMAT = "rummy51/view"


def _card(c: int | None) -> str | None:
    return None if c is None else card_text(c)


def meld_to_dict(i: int, m: TableMeld, rules: RuleSet) -> dict:
    """One table meld: its id, kind, cards, stand-ins, owner, text and value."""
    return {"id": i, "kind": m.kind, "cards": cards_text(m.cards).split(),
            "represents": cards_text(m.represents).split(), "owner": m.owner,
            "text": m.text(), "value": m.value(rules)}


def record_to_dict(r: Record) -> dict:
    """One public history record: who, when, the move (``action_to_json``) and its effect."""
    if isinstance(r, ChanceRecord):
        return {"turn": r.turn, "player": None, "chance": r.kind}
    d: dict[str, Any] = {"turn": r.turn, "player": r.player}
    d.update(action_to_json(r.action))
    if isinstance(r, DrawRecord):
        d["card"] = _card(r.card)  # None: a stock draw of another player
    elif isinstance(r, LayDownRecord):
        d.update(meld_ids=list(r.meld_ids), value=r.value, opening=r.opening)
    elif isinstance(r, DiscardRecord) and r.outcome is not None:
        d["outcome"] = r.outcome
    return d


def view_to_dict(view: PlayerView, history: bool = True) -> dict:
    """``view`` (a ``PlayerView``) as plain JSON data; ``history=False`` leaves the public
    history out (it grows with the deal)."""
    ti = view.turn_info
    d = {
        "format": VIEW_FORMAT,
        "version": 1,
        "player": view.player,
        "players": view.n_players,
        "first": view.first,
        "rules": rules_to_dict(view.rules, full=True),
        "phase": view.phase.value,
        "turn": view.turn,
        "round": view.turn // view.n_players,
        "current": view.current,
        "my_turn": view.my_turn,
        "hand": cards_text(view.hand).split(),
        "hand_sizes": list(view.hand_sizes),
        "opened": list(view.opened),
        "table": [meld_to_dict(i, m, view.rules) for i, m in enumerate(view.table)],
        "discard_pile": cards_text(view.discard_pile).split(),
        "discard_top": _card(view.discard_pile[-1]) if view.discard_pile else None,
        "bottom": _card(view.bottom),
        "stock_count": view.stock_count,
        "turn_info": {"source": ti.source, "drawn": _card(ti.drawn), "must_open": ti.must_open,
                      "bottom": ti.bottom, "freed_joker": ti.freed_joker,
                      "opened_at_start": ti.opened_at_start,
                      "touched_others": ti.touched_others},
    }
    if history:
        d["history"] = [record_to_dict(r) for r in view.history]
    return d
