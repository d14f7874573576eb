"""Carousel's JSON door (re-exported by ``rummy51.envs.llm``): a turn as plain JSON, the
answer back from text.

>>> from rummy51.envs.llm import new_carousel_game, carousel_turn_prompt, carousel_apply_reply
>>> state = new_carousel_game(players=3, seed=5)
>>> prompt = carousel_turn_prompt(state)
>>> [m["text"] for m in prompt["legal_actions"]]
['draw']
>>> carousel_apply_reply(state, "draw")
[0]

``carousel_turn_prompt(state)`` holds the view of the player on turn (hand, table,
hand sizes, stock, totals, the turn so far, the cards chosen for a play being built)
and ``legal_actions``: every legal id as ``{"id", "text"}`` (``draw``, ``pass``,
``knock``, ``add 9S``, ``commit 9S JK: meld JK(5S) 6S 7S 8S 9S``), plus
``meld_plays_possible`` (whether any meld play is legal now).
``carousel_apply_reply(state, reply)`` takes the answer: an id, one of those texts, or
a whole meld play written as the hand cards to add (``meld 9S JK`` or ``play 9S JK``:
the solver arranges the table, as the codec's adds then commit do), or the whole new
table (``meld JK(5S) 6S 7S 8S 9S | 10H 10D 10C``: that table is laid as written). It
returns the ids applied (for a whole table, the adds of the cards it places and the
commit, their equivalent). A bad answer is a one-line ``ValueError`` / ``TypeError`` and
changes nothing.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from ..cards import JOKER, card_text, parse_cards, shown
from ..carousel.actions import IllegalMove, Meld, Phase
from ..carousel.agent import CarouselAgentState
from ..carousel.codec import ADD0, COMMIT, DRAW, KNOCK, PASS, chosen_text
from ..carousel.notation import parse_meld_play, split_meld_text
from ..carousel.rules import CarouselRules
from ._reply import apply_id_or_text

if TYPE_CHECKING:
    from ..runs.seeding import SeedLike

__all__ = ["new_carousel_game", "carousel_turn_prompt", "carousel_apply_reply",
           "CAROUSEL_INSTRUCTIONS"]

#: How to answer, for the prompt.
CAROUSEL_INSTRUCTIONS = (
    "You are playing Carousel (rules: docs/rules-carousel.md). Answer with exactly one move: "
    "the 'text' (or the 'id') of one entry of legal_actions. A meld play may also be written "
    "whole as the hand cards it places, e.g. 'meld 9S JK' (the table is rearranged for you), "
    "or as the whole new table, e.g. 'meld JK(5S) 6S 7S 8S 9S | 10H 10D 10C'.")

_WORDS = {"draw": DRAW, "pass": PASS, "knock": KNOCK, "commit": COMMIT}


def new_carousel_game(rules: CarouselRules | None = None, players: int | None = None,
                      seed: SeedLike = None, round_only: bool = False,
                      **rule_fields: Any) -> CarouselAgentState:
    """A new Carousel game for the JSON door (``rules``, or CarouselRules fields)."""
    if rules is None:
        base = CarouselRules.for_players(4 if players is None else players)
        rules = CarouselRules(**{**base.__dict__, **rule_fields}) if rule_fields else base
    elif rule_fields:
        rules = CarouselRules(**{**rules.__dict__, **rule_fields})
    return CarouselAgentState.new(rules, players=players, seed=seed, round_only=round_only)


def _check(state: object) -> CarouselAgentState:
    if not isinstance(state, CarouselAgentState):
        raise TypeError(f"state must be a CarouselAgentState (rummy51.envs.llm."
                        f"new_carousel_game), got {type(state).__name__}")
    if state.is_terminal():
        raise ValueError("no player is on turn: the game is over")
    return state


def carousel_turn_prompt(state: CarouselAgentState) -> dict[str, Any]:
    """The turn of the player on turn as plain JSON data (see the module docstring)."""
    s = _check(state)
    g = s.game
    p = g.current
    ti = g.turn_info
    view = {
        "player": p, "round": g.round, "turn": g.turn, "phase": g.phase.value,
        "hand": [card_text(c) for c in g.hands[p]],
        "hand_points": s.rules.hand_points(g.hands[p]),
        "table": [m.text() for m in g.table],
        "hand_sizes": [len(h) for h in g.hands], "stock": g.stock_size,
        "totals": list(g.totals), "target_score": s.rules.target_score,
        "draws_this_turn": ti.draws, "melded_this_turn": ti.melded, "last_turn": ti.last,
        "chosen": chosen_text(s.chosen).split() if s.chosen else [],
    }
    legal = [{"id": a, "text": s.action_text(a)} for a in s.legal_actions()]
    may_meld = g.phase in (Phase.MELD, Phase.NO_DRAW) and any(a >= ADD0 for a in s.legal_actions())
    return {"instructions": CAROUSEL_INSTRUCTIONS, "player": p, "view": view,
            "legal_actions": legal, "meld_plays_possible": bool(may_meld or s.chosen)}


def carousel_apply_reply(state: CarouselAgentState, reply: object) -> list[int]:
    """Make the move the answer ``reply`` names and return the ids applied (see the module
    docstring). Nothing changes when the answer is not a legal move."""
    s = _check(state)
    legal = s.legal_actions()
    got = apply_id_or_text(s, reply, legal)
    if isinstance(got, list):
        return got
    text = " ".join(got.strip().strip("'\"`").split())
    low = text.lower()
    for a in legal:  # an entry's own text (commit's text names its table)
        if s.action_text(a).lower() == low:
            s.apply_action(a)
            return [a]
    head, _, rest = low.partition(" ")
    if head == "commit":
        head, rest = low, ""
    if head in _WORDS and not rest:
        a = _WORDS[head]
        if a not in legal:
            raise ValueError(f"{shown(text)} is not a legal move now: {s.why_illegal(a)}")
        s.apply_action(a)
        return [a]
    if head == "add" and rest:
        cards = _cards(text.split(None, 1)[1], text)
        if len(cards) != 1:
            raise ValueError(f"{shown(text)}: 'add' takes one card (write 'meld ...' for several)")
        a = ADD0 + cards[0]
        if a not in legal:
            raise ValueError(f"{shown(text)} is not a legal move now: {s.why_illegal(a)}")
        s.apply_action(a)
        return [a]
    if head in ("meld", "play") and rest:
        body = text.split(None, 1)[1]
        if "|" in body or ("(" in body and _names_the_table(s, body)):
            return _whole_table(s, text, body)
        if "(" in body:       # hand cards with their jokers' cards: exactly that play
            return _declared(s, text, body)
        return _hand_cards(s, text, _cards(body, text))
    raise ValueError(f"{shown(text)} is no move: answer with a legal action's text or id, "
                     "'meld <hand cards>' or 'meld <the whole new table>'")


def _cards(body: str, text: str) -> list[int]:
    try:
        return parse_cards(body)
    except (ValueError, TypeError) as e:
        raise ValueError(f"{shown(text)}: {e}") from None


def _names_the_table(s: CarouselAgentState, body: str) -> bool:
    """Whether a meld text with a declared joker is a whole new table (it holds every
    natural of the table) rather than hand cards (``meld 9S JK(10S)``)."""
    table = Counter(c for m in s.game.table for c in m.cards if c != JOKER)
    if not table or len(body.split()) < sum(table.values()):
        return False
    try:
        cards, _, _ = split_meld_text(body)
    except ValueError:
        return True             # the whole-table reading says what is wrong
    return not (table - Counter(cards))


def _declared(s: CarouselAgentState, text: str, body: str) -> list[int]:
    """A meld play of hand cards naming each joker's card (``carousel.notation``):
    exactly that play, as the adds of the cards it places and a commit."""
    if s.chosen:
        raise ValueError(f"{shown(text)}: cards are already chosen ({chosen_text(s.chosen)}); "
                         "add more or commit")
    g = s.game
    try:
        play = parse_meld_play(body, list(g.table), list(g.hands[g.current]), s.rules,
                               name="meld")
        meld = Meld(play.melds)
        _, played = g.verify_meld(meld)
    except (IllegalMove, ValueError, TypeError) as e:
        raise ValueError(f"{shown(text)} is not a legal move now: {e}") from None
    s.apply_engine_action(meld)
    return [ADD0 + c for c in sorted(played)] + [COMMIT]


def _hand_cards(s: CarouselAgentState, text: str, cards: list[int]) -> list[int]:
    """The hand cards of a meld play: adds then commit, tried on a copy first."""
    if not cards:
        raise ValueError(f"{shown(text)}: name the hand cards the play places")
    hand = s.game.hands[s.game.current]
    if len(cards) > len(hand):
        raise ValueError(f"{shown(text)} is not a legal move now: it names {len(cards)} cards, "
                         f"the hand holds {len(hand)}")
    trial = s.copy()
    ids = []
    for c in cards:
        a = ADD0 + c
        if a not in trial.legal_actions():
            raise ValueError(f"{shown(text)} is not a legal move now: {trial.why_illegal(a)}")
        trial.apply_action(a)
        ids.append(a)
    if COMMIT not in trial.legal_actions():
        raise ValueError(f"{shown(text)} is not a legal move now: {trial.why_illegal(COMMIT)}")
    ids.append(COMMIT)
    for a in ids:
        s.apply_action(a)
    return ids


def _whole_table(s: CarouselAgentState, text: str, body: str) -> list[int]:
    """A meld play given as the whole new table: made as the adds of the cards it places
    and a commit when the solver's arrangement is that table's, else directly."""
    if s.chosen:
        raise ValueError(f"{shown(text)}: cards are already chosen ({chosen_text(s.chosen)}); "
                         "add more or commit")
    try:
        meld = Meld(tuple(body.split("|")))
        _, played = s.game.verify_meld(meld)
    except (IllegalMove, ValueError, TypeError) as e:
        raise ValueError(f"{shown(text)} is not a legal move now: {e}") from None
    s.apply_engine_action(meld)
    return [ADD0 + c for c in sorted(played)] + [COMMIT]
