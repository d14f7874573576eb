"""Named Carousel rule presets (``--rules NAME``, ``rummy51 carousel rules``), each with
the rule text it follows.

A preset is a set of ``CarouselRules`` fields on top of the source's deck for the
number of players (``CarouselRules.for_players``): a preset that names ``decks`` and
``jokers`` fixes the deck at any table, the others take the deck of the table size.

>>> preset("source", 2).decks, preset("source", 4).decks
(1, 2)
>>> r = preset("one-deck", 4)
>>> r.decks, r.jokers, r.deck_size
(1, 1, 53)
"""
from __future__ import annotations

from typing import Any

from ..rules import PresetNote
from .rules import CarouselRules

__all__ = ["PRESETS", "PRESET_NOTES", "preset"]

#: The fields each preset sets (on top of ``CarouselRules.for_players(players)``).
PRESETS: dict[str, dict[str, Any]] = {
    "source": {},
    "one-deck": {"decks": 1, "jokers": 1},
    "one-joker-per-meld": {"max_jokers_per_meld": 1},
    "ace-low": {"ace_high": False},
    "last-turn-knock": {"last_turn_knock": True},
}

_SOURCE = ("docs/rules-carousel.md, from the general rummy text among the project's sources "
           "(the same deck table: rummyrulebook.com/pages/carousel, denexa.com/blog/carousel)")

#: What each preset is and where it comes from (``rummy51 carousel rules``).
PRESET_NOTES: dict[str, PresetNote] = {
    "source": PresetNote(
        "the source's table: 2 players one 52-card deck and 1 joker (53 cards), 3 to 5 "
        "players two decks and 2 jokers (106 cards); 10 cards each, knock at 5 points or "
        "fewer, the game to 150 (the default)",
        _SOURCE + " section 1"),
    "one-deck": PresetNote(
        "one deck and 1 joker (53 cards) at any table of 2 to 5 players, as some tables "
        "play with the one pack they have; with 5 players only 3 cards are left in the stock",
        "gathertogethergames.com/carousel-rummy (one 53-card deck, a second one for 3 to 5 "
        "players, played here without it)"),
    "one-joker-per-meld": PresetNote(
        "the source's deck with at most one joker in a meld",
        "docs/rules-carousel.md section 2 (option)"),
    "ace-low": PresetNote(
        "the source's deck with the ace low only (A 2 3, never Q K A)",
        "docs/rules-carousel.md section 2 (option)"),
    "last-turn-knock": PresetNote(
        "the source's deck; after the stock ran out a player may knock at the end of their "
        "last turn (the source says the round is then scored with no knocker)",
        "docs/rules-carousel.md section 3.5 (option)"),
}


def preset(name: str, players: int = 4, **overrides) -> CarouselRules:
    """The rules of preset ``name`` for ``players`` players; ``overrides`` replace fields.
    An unknown name is a ValueError naming the presets."""
    if not isinstance(name, str) or name not in PRESETS:
        raise ValueError(f"{name!r} is not a Carousel rule preset: choose one of "
                         f"{', '.join(PRESETS)}")
    fields = dict(PRESETS[name])
    fields.update(overrides)
    return CarouselRules.for_players(players, **fields)
