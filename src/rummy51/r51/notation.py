"""Moves as plain text, both ways: ``action_text(action)`` and ``parse_action(text)``.

A language model, a GUI or a person types a move; ``parse_action`` reads it back into
the action object (docs/agents.md, "Moves as text"). The forms, case-insensitive:

=======================================  ==============================================
``draw stock``, ``draw discard``,        ``Draw``
``draw bottom``
``discard 7S``                           ``Discard``
``lay down 6S 7S 8S | 10D 10C JK``       ``LayDown``: melds separated by ``|``; a joker
                                         may name its stand-in, ``JK(9S)`` (all of a
                                         meld's jokers, or none: the reading worth most)
``lay off 9S on meld 3``,                ``LayOff`` (the side in brackets, for a run)
``lay off JK on meld 3 (low)``
``swap 10S for the joker of meld 3``     ``SwapJoker``
``stage 8S 9S JK(7S)``                   ``Stage`` (an opening built meld by meld,
                                         ``rummy51.r51.codec``)
``cancel``                               ``Cancel`` (take the staged melds back)
=======================================  ==============================================

``parse_action(action_text(a)) == a`` for every action; the texts of the engine's own
``a.text()`` parse too (a ``LayDown``'s stand-ins are then the reading worth most).
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..cards import JOKER, card_text, parse_card
from .actions import Action, Discard, Draw, LayDown, LayOff, SwapJoker

if TYPE_CHECKING:
    from .codec import Cancel, Stage

__all__ = ["parse_action", "action_text"]

_FORMS = ("'draw stock', 'draw discard', 'draw bottom', 'discard 7S', "
          "'lay down 7S 8S 9S | QH QD QC', 'lay off 9S on meld 0 (high)', "
          "'swap 10S for the joker of meld 3', 'stage 7S 8S JK(9S)' or 'cancel'")
_WS = re.compile(r"\s+")
_JOKER_STAND_IN = re.compile(r"^(JK|\*|JOKER)\((.+)\)$", re.IGNORECASE)
_LAY_OFF = re.compile(r"^lay off (\S+) (?:on|to) (?:meld )?(\S+?)(?: \(?(low|high)\)?)?$")
_SWAP = re.compile(r"^swap (\S+) (?:for the joker of|for the joker on|for joker of|with|on|for)"
                   r" (?:meld )?(\S+)$")


def _show(text: str, limit: int = 60) -> str:
    """``repr(text)``, cut when long (an error never echoes a whole essay)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit // 2]!r}... ({len(text):,} characters)"


def _meld_text(cards: Sequence[int], stand_ins: Sequence[int] | None) -> str:
    if stand_ins is None:
        return " ".join(card_text(c) for c in cards)
    reps = iter(stand_ins)
    return " ".join(f"JK({card_text(next(reps))})" if c == JOKER else card_text(c)
                    for c in cards)


def action_text(action: Any) -> str:
    """The text of a move that ``parse_action`` reads back to the same action."""
    from .codec import Cancel, Stage  # the codec's staging moves

    if isinstance(action, LayDown):
        si = action.stand_ins or (None,) * len(action.melds)
        return "lay down " + " | ".join(_meld_text(m, s) for m, s in zip(action.melds, si, strict=True))
    if isinstance(action, Stage):
        return "stage " + _meld_text(action.cards, action.stand_ins)
    if isinstance(action, Cancel):
        return "cancel"
    if isinstance(action, (Draw, Discard, LayOff, SwapJoker)):
        return action.text()
    raise TypeError(f"not an action: {action!r:.60}")


def _parse_meld(text: str, whole: str) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """(cards, stand-ins or None) of one meld's text."""
    cards, reps = [], []
    for tok in text.replace(",", " ").split():
        m = _JOKER_STAND_IN.match(tok)
        if m:
            cards.append(JOKER)
            reps.append(_card(m.group(2), whole))
        else:
            cards.append(_card(tok, whole))
    if not cards:
        raise ValueError(f"{_show(whole)}: a meld between '|' holds no cards")
    nj = cards.count(JOKER)
    if reps and len(reps) != nj:
        raise ValueError(f"{_show(whole)}: name the stand-in of every joker of a meld, like "
                         "JK(9S), or of none")
    if any(r == JOKER for r in reps):
        raise ValueError(f"{_show(whole)}: a joker stands for a natural card, not a joker")
    return tuple(cards), (tuple(reps) if reps else None)


def _card(tok: str, whole: str) -> int:
    try:
        return parse_card(tok)
    except ValueError as e:
        raise ValueError(f"{_show(whole)} is not an action: {e}") from None


def _meld_id(tok: str, whole: str) -> int:
    if not tok.isdigit():
        raise ValueError(f"{_show(whole)} is not an action: meld {_show(tok)} is not a meld id "
                         "(ids are whole numbers 0, 1, 2, ...)")
    return int(tok)


def parse_action(text: str) -> Action | Stage | Cancel:
    """Read a move written as text (see the module docstring) into its action object;
    a one-line ``ValueError`` says what is wrong and lists the forms."""
    if not isinstance(text, str):
        raise TypeError(f"a move as text is a str, got {type(text).__name__}")
    if len(text) > 2000:
        raise ValueError(f"{_show(text)} is not an action: a move is a short line of text")
    t = _WS.sub(" ", text.strip()).rstrip(".")
    low = t.lower()
    if low.startswith("draw"):
        rest = low[4:].strip()
        for w in ("from the ", "from ", "the "):
            if rest.startswith(w):
                rest = rest[len(w):]
        rest = {"": "stock", "pile": "discard", "discard pile": "discard",
                "bottom card": "bottom"}.get(rest, rest)
        if rest not in ("stock", "discard", "bottom"):
            raise ValueError(f"{_show(text)} is not an action: draw from 'stock', 'discard' or "
                             "'bottom'")
        return Draw(rest)
    if low.startswith("discard "):
        return Discard(_card(t[8:].strip(), text))
    if low.startswith("lay down ") or low.startswith("laydown "):
        body = t.split(" ", 2)[2] if low.startswith("lay down ") else t.split(" ", 1)[1]
        parsed = [_parse_meld(part, text) for part in body.split("|")]
        melds = tuple(c for c, _ in parsed)
        stand_ins = tuple(s for _, s in parsed)
        si: tuple | None = None if all(s is None for s in stand_ins) else stand_ins
        return LayDown(melds, si)
    if low.startswith("stage "):
        from .codec import Stage

        body = t[6:].strip()
        if "|" in body:
            raise ValueError(f"{_show(text)}: stage one meld at a time")
        cards, stage_si = _parse_meld(body, text)
        return Stage(cards, stage_si)
    if low in ("cancel", "cancel staging", "cancel the opening"):
        from .codec import Cancel

        return Cancel()
    m = _LAY_OFF.match(low)
    if m:
        return LayOff(_card(m.group(1), text), _meld_id(m.group(2), text), m.group(3))
    m = _SWAP.match(low)
    if m:
        return SwapJoker(_card(m.group(1), text), _meld_id(m.group(2), text))
    raise ValueError(f"{_show(text)} is not an action: write {_FORMS}")
