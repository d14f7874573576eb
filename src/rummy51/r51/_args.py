"""Argument converters shared by the Rummy 51 actions, move checks and state (a private module
made to be shared)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..cards import JOKER, parse_card, to_codes
from ..rules import RuleSet
from .melds import (
    TableMeld,
)


def rule_option(rules: RuleSet, name: str, default: Any) -> Any:
    """A RuleSet option for a choice docs/rules.md leaves open (docs/engine.md); the
    default for a rules object that predates the field."""
    return getattr(rules, name, default)

def as_card(x: Any) -> int:
    if isinstance(x, str):
        return parse_card(x)
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer, float, np.floating)):
        raise ValueError(f"{x!r} is not a card: give a text like '7S' or a code 0..52")
    c = int(x)
    if c != x or not 0 <= c <= JOKER:
        raise ValueError(f"{x!r} is not a card code: codes are 0..51 or 52 (joker)")
    return c


def as_meld_id(x: Any) -> int:
    """A table meld id: a whole number >= 0 (never 0.5, "0" or True)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or x < 0:
        raise ValueError(f"{x!r} is not a meld id: ids are whole numbers 0, 1, 2, ...")
    return int(x)


def meld_codes(m: Any) -> tuple[int, ...]:
    if isinstance(m, TableMeld):
        return m.cards
    return tuple(to_codes(m))
