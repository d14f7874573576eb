"""Carousel: manipulation rummy with knocking (RULES-carousel.md).

The table belongs to everyone: a meld play rearranges the whole table plus at least
one hand card into valid melds. This package holds the game's rules
(``CarouselRules``), its table melds with declared jokers, and the exact solver:

>>> from rummy51 import carousel
>>> p = carousel.best_play(["4S 5S 6S JK(7S)"], "7S 9H 10H")
>>> p.points_left, p.cards_played
(0, 3)
"""
from .rules import CarouselRules
from .solver import (
    GaveUp,
    Play,
    best_play,
    best_play_points,
    best_play_values,
    can_knock,
    can_knock_flags,
    can_meld,
    can_meld_flags,
    can_play_cards,
    max_cards_played,
    max_cards_played_counts,
    pack_positions,
    play_cards,
    play_declared,
    playable_cards,
)
from .table import TableMeld, parse_hand, parse_meld, parse_table, table_codes, table_text

__all__ = [
    "CarouselRules",
    "GaveUp",
    "Play",
    "TableMeld",
    "best_play",
    "best_play_points",
    "best_play_values",
    "can_knock",
    "can_knock_flags",
    "can_meld",
    "can_meld_flags",
    "can_play_cards",
    "max_cards_played",
    "max_cards_played_counts",
    "pack_positions",
    "parse_hand",
    "parse_meld",
    "parse_table",
    "play_cards",
    "play_declared",
    "playable_cards",
    "table_codes",
    "table_text",
]
