"""Carousel meld plays as text: one text, one play.

A meld play is written as the hand cards it places, naturals first (in code order),
then the hand's jokers, each with the card it stands for, then any table joker a
natural copy frees and that stands for another card afterwards::

    meld 7S 9H               two naturals; every table joker keeps its card
    meld 7S JK(KC)           7S and a joker from the hand standing for KC
    meld 7D JK(7D->KC)       7D replaces the table joker that stood for 7D, which now
                             stands for KC (it stays on the table: not a hand card)

The arrangement of the new table that matters (to the rules, the game and the analysis)
is which cards its jokers stand for; the rest (which meld holds which card) changes
nothing. The **canonical** text of a play (``meld_text``) names every joker whose card
is chosen, so reading it back (``parse_meld_play``) makes exactly that play: the same
cards on the table, each joker standing for the same card. Text that names no joker's
card reads as before: the hand's jokers wherever the solver puts them, and the table's
jokers keeping their cards where some play allows it. ``->`` may be written ``>`` or
``→``.

>>> from rummy51.carousel.rules import CarouselRules
>>> rules = CarouselRules.for_players(4)
>>> p = parse_meld_play("9S JK(10S)", ["6S 7S 8S"], "9S JK 2C", rules)
>>> [m.text() for m in p.melds]
['6S 7S 8S 9S JK(10S)']
>>> meld_text(["6S 7S 8S"], p.melds)
'meld 9S JK(10S)'
>>> p = parse_meld_play("8S JK(8S->9S)", ["6S 7S JK(8S)"], "8S 2C", rules)
>>> [m.text() for m in p.melds]
['6S 7S 8S JK(9S)']
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from ..cards import JOKER, card_text, check_text, parse_card, shown
from .actions import IllegalMove
from .rules import CarouselRules
from .solver import Play, TableLike, play_cards, play_declared
from .table import TableMeld, parse_hand, parse_table

__all__ = ["meld_text", "counts_meld_text", "parse_meld_play", "split_meld_text"]

#: More table jokers than any deck holds (a bound for refusing a long text unread).
_MAX_TABLE_JOKERS = 64
_JOKER_WORDS = ("JK", "*", "JOKER")
_MOVED = re.compile(r"^(.+?)\s*(?:->|→|>)\s*(.+)$")


def counts_meld_text(T: Sequence[int], D: Sequence[int], JT: int, nT: Sequence[int],
                     nD: Sequence[int], njt: int, unicode: bool = False) -> str:
    """The canonical text of the play taking a table of counts (``T`` naturals, ``D``
    the cards its ``JT`` jokers stand for, 52 entries each) to ``nT``, ``nD``, ``njt``."""
    played = [c for c in range(52) for _ in range(nT[c] - T[c])]
    kept = [min(D[c], nD[c]) for c in range(52)]
    moved = [c for c in range(52) for _ in range(D[c] - kept[c])]
    new = [c for c in range(52) for _ in range(nD[c] - kept[c])]
    hand_jokers = njt - JT
    if hand_jokers < 0 or len(new) != hand_jokers + len(moved):
        raise ValueError("not a meld play: the jokers on the table do not add up")

    def t(c: int) -> str:
        return card_text(c, unicode)

    words = [t(c) for c in played]
    words += [f"JK({t(d)})" for d in new[:hand_jokers]]
    words += [f"JK({t(old)}->{t(d)})" for old, d in zip(moved, new[hand_jokers:], strict=True)]
    return "meld " + " ".join(words)


def _counts(melds: Iterable[TableMeld]) -> tuple[list[int], list[int], int]:
    T, D, J = [0] * 52, [0] * 52, 0
    for m in melds:
        for c, r in zip(m.cards, m.represents, strict=True):
            if c == JOKER:
                D[r] += 1
                J += 1
            else:
                T[c] += 1
    return T, D, J


def meld_text(before: TableLike, after: Iterable[TableMeld | Any], unicode: bool = False,
              rules: CarouselRules | None = None) -> str:
    """The canonical text of the meld play that turns the table ``before`` into
    ``after`` (see the module docstring): ``parse_meld_play`` reads it back to a play
    with the same cards and the same card for every joker."""
    T, D, J = _counts(parse_table(before, rules))
    nT, nD, nJ = _counts(parse_table(list(after), rules))
    return counts_meld_text(T, D, J, nT, nD, nJ, unicode)


def split_meld_text(text: str, name: str = "meld") -> tuple[list[int], list[int] | None,
                                                            list[tuple[int, int]]]:
    """``(cards, declared, moved)`` of a meld text (without ``meld``): the hand cards
    (a joker is 52), the cards the hand's jokers stand for (None: none named), and each
    table joker named with its old and new card. A ``ValueError`` naming ``name`` and
    the text (cut to a readable length) when it is no meld text."""
    check_text(name, text)
    cards: list[int] = []
    declared: list[int] = []
    free = 0
    moved: list[tuple[int, int]] = []

    def card(tok: str) -> int:
        try:
            c = parse_card(tok.strip())
        except ValueError as e:
            raise ValueError(f"{name} {shown(text)}: {e}") from None
        if c == JOKER:
            raise ValueError(f"{name} {shown(text)}: a joker stands for a natural card, not "
                             f"{shown(tok)}")
        return c

    for tok in text.replace(",", " ").split():
        if tok[-1] == ")" and "(" in tok:              # JK(X) or JK(X->Y)
            head, _, inner = tok[:-1].partition("(")
            if head.upper() not in _JOKER_WORDS:
                raise ValueError(f"{name} {shown(text)}: {shown(tok, 30)} is not a card: "
                                 "a joker's card is written JK(9S)")
            mv = _MOVED.match(inner) if (">" in inner or "→" in inner) else None
            if mv:
                moved.append((card(mv.group(1)), card(mv.group(2))))
            else:
                declared.append(card(inner))
                cards.append(JOKER)
            continue
        try:
            c = parse_card(tok)
        except ValueError as e:
            raise ValueError(f"{name} {shown(text)}: {e}") from None
        if c == JOKER:
            free += 1
        cards.append(c)
    if free and (declared or moved):
        raise ValueError(f"{name} {shown(text)}: name the card of every joker you play, like "
                         "JK(9S), or of none")
    return cards, (declared if declared or moved or not free else None), moved


def parse_meld_play(text: str, table: TableLike, hand: Any,
                    rules: CarouselRules | None = None, name: str = "meld") -> Play:
    """The play a meld text (without ``meld``) names, from the position ``table`` and
    ``hand`` (see the module docstring): with every joker's card named, exactly that
    play (``solver.play_declared``); with none, ``solver.play_cards``' play, the table's
    jokers keeping their cards where that is possible. ``IllegalMove`` (rule "4") when
    no play places these cards so; ``ValueError`` naming ``name`` for bad text."""
    if isinstance(text, str) and isinstance(hand, (str, list, tuple)):
        words = len(check_text(name, text).replace(",", " ").split())
        held = len(parse_hand(hand))
        if words > held + _MAX_TABLE_JOKERS:    # more words than the hand and the table's
            raise IllegalMove("4", f"{name} {shown(text)} names {words} cards; the hand "   # jokers
                                   f"holds {held}")
    cards, declared, moved = split_meld_text(text, name)
    if not cards:
        raise IllegalMove("4", "name the hand cards to add, like meld 7S 9H JK")
    if declared is None:                      # free jokers from the hand: the solver's choice
        return play_cards(table, cards, hand, rules)
    melds = parse_table(table, rules)
    old = Counter(r for m in melds for r in m.jokers)
    away = Counter(o for o, _ in moved)
    for o, k in away.items():
        if k > old.get(o, 0):
            raise IllegalMove("4", f"no joker on the table stands for {card_text(o)} "
                                   f"({'one' if old.get(o, 0) == 1 else old.get(o, 0) or 'none'} "
                                   f"does, {k} named)")
    jokers = list((old - away).elements()) + declared + [n for _, n in moved]
    if moved or JOKER in cards:
        return play_declared(melds, cards, jokers, hand, rules)
    try:                                      # no joker named: the table's keep their cards
        return play_declared(melds, cards, jokers, hand, rules)
    except IllegalMove:
        return play_cards(melds, cards, hand, rules)
