"""RuleSet: every **(option)** of docs/rules.md as one frozen dataclass.

``RuleSet()`` is default Rummy 51 (two decks, four jokers, opening at 51, ace worth
10 low or high, one joker per meld). Variants are data::

    >>> import dataclasses
    >>> r = dataclasses.replace(RuleSet(), jokers=2)
    >>> r.deck_size
    106
    >>> RuleSet.gin().ace_high
    False
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import range_text

__all__ = ["RuleSet", "PRESETS", "PRESET_NOTES", "PresetNote", "rules_label", "rules_to_dict",
           "rules_from_dict"]

#: ``RuleSet.opening_run``: what the opening must hold.
OPENING_RUNS = ("any", "run", "pure_run")
#: ``RuleSet.doubles_on``: which wins by hand double the others' points.
DOUBLES_ON = ("hand", "bottom")


#: Most turns a deal may be capped at (the C kernels count turns in 32-bit ints; a cap
#: of ten million turns is already hours of play for one deal).
MAX_TURNS = 10_000_000
#: Most deals or points a match may be set to (a match is played in Python; the bound
#: only keeps the numbers sane).
MAX_MATCH = 1_000_000


def _check_int(rules: RuleSet, name: str, lo: int, hi: int | None = None) -> None:
    """Check field ``name`` is a whole number in range, and store it as a plain Python
    int: a numpy integer would make every computation downstream run in its dtype
    (``np.int8(100) * 3`` wraps), and would hash like the plain int, poisoning the
    compiled-rules cache for equal rule sets."""
    value = getattr(rules, name)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"rules.{name} must be an int, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        raise ValueError(f"rules.{name} must be {range_text(value, lo, hi)}, got {value}")
    object.__setattr__(rules, name, int(value))


@dataclass(frozen=True, kw_only=True)
class RuleSet:
    """The rules of one game of rummy (docs/rules.md), every option a field.

    Cards and melds (the solver's part):

    * ``decks`` (2): standard 52-card decks shuffled together; 1 or 2.
    * ``jokers`` (4): jokers in the deck (2 is also common: 106 cards).
    * ``threshold`` (51): the least total meld value that opens.
    * ``ace_low_value`` (10): value of an ace at the low end of a run (A-2-3);
      some tables count it 1.
    * ``ace_value`` (10): value of an ace anywhere else: high in a run (Q-K-A), in a
      set, left in hand.
    * ``ace_high`` (True): the ace may follow the king (Q-K-A); runs never turn the
      corner either way.
    * ``max_jokers_per_meld`` (1): jokers one meld may hold when laid down (0..2); a
      meld always holds at least one natural card.
    * ``joker_penalty`` (20): a joker left in hand at the end (or 50).
    * ``hand_size`` (14): cards dealt to each player; the first player gets one more.

    The game (docs/rules.md sections 5-6, used by the engine and the simulations):

    * ``bottom_card`` (True): a card is turned face up under the stock; it can only
      be taken to win by hand.
    * ``discard_card_must_meld`` (False): a player who has not opened and takes the
      discard after their first round must use that card in the opening melds.
    * ``reshuffle_stock`` (True): when the stock runs out, the discard pile but its
      top card is shuffled into a new stock; if False the deal ends as a draw.
    * ``max_turns`` (1000): deal-length cap in turns; a capped deal is a draw.
    * ``score_out`` (-40), ``score_hand`` (-80), ``score_hand_bottom`` (-120, or
      -140): the winner's points for going out, by hand, by hand with the bottom card.
    * ``score_unopened`` (100): a player who never opened.
    * ``hand_doubles`` (True): after a win by hand every other player's points are
      doubled; ``doubles_on`` ("hand") says after which wins: "hand" every win by hand
      (with the bottom card or not), "bottom" only the win by hand with the bottom card.
    * ``match_deals`` (None) and ``match_points`` (None): a match ends after this
      many deals, or when a player's total reaches this many points; with both None
      a match is a single deal.
    * ``match_elimination`` (None): an elimination match: after each deal a player
      whose total is above this (251, 501) drops out; the last one left wins.

    Readings on which tables differ (docs/rules.md; the presets of ``PRESETS``):

    * ``joker_limit_on_table`` (True): ``max_jokers_per_meld`` binds every meld on the
      table, so a joker may be laid off only while the meld keeps within it; False: the
      limit binds melds as they are laid down only, and jokers may be laid off beyond it.
    * ``opening_run`` ("any"): the opening must hold a run ("run", as MLEO-M) or a run
      without a joker ("pure_run", as Polish Remik and French 51); "any" asks nothing.
    * ``first_player_free_take`` (False): the first player's first drawing turn (turn n)
      counts as their first round, so they too may take the discard freely once.
    * ``first_player_draws`` (False): equal hands: every player is dealt ``hand_size``
      cards and the first player draws in turn 0 like everybody else.

    Options docs/rules.md leaves open, chosen as a Rummy 51 table would (docs/engine.md):

    * ``free_discard_rounds`` (1): rounds in which a player who has not opened may
      take the discard freely (docs/rules.md 5.4: "the player's first round").
    * ``discard_taken_card`` (False): whether the card taken from the discard pile
      may be discarded again in the same turn.
    * ``draw_scoring`` ("zero"): a deal capped or ended by an empty stock scores 0 for
      everyone ("zero"), or each player's hand as if another had gone out ("hands").
    """

    decks: int = 2
    jokers: int = 4
    threshold: int = 51
    ace_low_value: int = 10
    ace_value: int = 10
    ace_high: bool = True
    max_jokers_per_meld: int = 1
    joker_penalty: int = 20
    hand_size: int = 14
    # game options
    bottom_card: bool = True
    discard_card_must_meld: bool = False
    reshuffle_stock: bool = True
    max_turns: int = 1000
    score_out: int = -40
    score_hand: int = -80
    score_hand_bottom: int = -120
    score_unopened: int = 100
    hand_doubles: bool = True
    match_deals: int | None = None
    match_points: int | None = None
    free_discard_rounds: int = 1
    discard_taken_card: bool = False
    draw_scoring: str = "zero"
    # readings on which tables differ (tests/test_variants.py works a scenario for each)
    joker_limit_on_table: bool = True
    opening_run: str = "any"
    first_player_free_take: bool = False
    first_player_draws: bool = False
    doubles_on: str = "hand"
    match_elimination: int | None = None

    def __hash__(self) -> int:
        # computed once: rule sets key the compiled-core caches on every solver call
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash(tuple(getattr(self, f.name) for f in dataclasses.fields(self)))
            object.__setattr__(self, "_hash", h)
        return h

    def __getstate__(self) -> dict:
        # the cached hash may hold a str hash of this process: never ship it
        state = dict(self.__dict__)
        state.pop("_hash", None)
        return state

    def __post_init__(self) -> None:
        _check_int(self, "decks", 1, 2)
        _check_int(self, "jokers", 0, 16)
        _check_int(self, "threshold", 1, 10_000)
        _check_int(self, "ace_low_value", 0, 100)
        _check_int(self, "ace_value", 0, 100)
        _check_int(self, "max_jokers_per_meld", 0, 2)
        _check_int(self, "joker_penalty", 0, 1000)
        _check_int(self, "hand_size", 1, 50)
        _check_int(self, "max_turns", 1, MAX_TURNS)
        for name in ("score_out", "score_hand", "score_hand_bottom", "score_unopened"):
            _check_int(self, name, -100_000, 100_000)
        _check_int(self, "free_discard_rounds", 0, 1000)
        if isinstance(self.draw_scoring, str):
            object.__setattr__(self, "draw_scoring", str(self.draw_scoring))
        if self.draw_scoring not in ("zero", "hands"):
            raise ValueError(f"rules.draw_scoring must be 'zero' or 'hands', got {self.draw_scoring!r}")
        for name, choices in (("opening_run", OPENING_RUNS), ("doubles_on", DOUBLES_ON)):
            if isinstance(getattr(self, name), str):
                object.__setattr__(self, name, str(getattr(self, name)))
            if getattr(self, name) not in choices:
                raise ValueError(f"rules.{name} must be one of {', '.join(map(repr, choices))}, "
                                 f"got {getattr(self, name)!r}")
        for name in ("ace_high", "bottom_card", "discard_card_must_meld", "reshuffle_stock",
                     "hand_doubles", "discard_taken_card", "joker_limit_on_table",
                     "first_player_free_take", "first_player_draws"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise TypeError(f"rules.{name} must be True or False, got {getattr(self, name)!r}")
            object.__setattr__(self, name, bool(getattr(self, name)))
        for name in ("match_deals", "match_points", "match_elimination"):
            if getattr(self, name) is not None:
                _check_int(self, name, 1, MAX_MATCH)
        # the first player's hand plus the others' must fit the deck with one card to spare
        if self.first_hand_size + 1 > self.deck_size:
            raise ValueError(
                f"rules.hand_size {self.hand_size} does not fit a deck of {self.deck_size} cards"
            )

    # ------------------------------------------------------------------ deck
    @property
    def first_hand_size(self) -> int:
        """Cards dealt to the first player: ``hand_size + 1``, or ``hand_size`` with
        ``first_player_draws`` (equal hands)."""
        return self.hand_size + (0 if self.first_player_draws else 1)

    @property
    def deck_size(self) -> int:
        """Cards in the deck: ``52 * decks + jokers``."""
        return 52 * self.decks + self.jokers

    def deck(self) -> np.ndarray:
        """The deck as sorted uint8 card codes (docs/rules.md section 1)."""
        return np.array(sorted(list(range(52)) * self.decks) + [52] * self.jokers, dtype=np.uint8)

    def max_players(self) -> int:
        """Most players the deck can deal to (one card left for the stock)."""
        return (self.deck_size - 1 - (self.first_hand_size - self.hand_size)) // self.hand_size

    # --------------------------------------------------------------- presets
    @classmethod
    def gin(cls, **changes: Any) -> RuleSet:
        """Gin rummy's meld rules: one deck, no jokers, ace worth 1 and low only, J/Q/K 10,
        10-card hands."""
        base: dict[str, Any] = dict(decks=1, jokers=0, ace_low_value=1, ace_value=1,
                                    ace_high=False, max_jokers_per_meld=0, hand_size=10)
        base.update(changes)
        return cls(**base)

    @classmethod
    def preset(cls, name: str) -> RuleSet:
        """A named rule set: one of ``PRESETS``."""
        try:
            return PRESETS[name]
        except KeyError:
            raise ValueError(
                f"{name!r} is not a rule preset: choose one of {', '.join(sorted(PRESETS))}"
            ) from None

    def replace(self, **changes: Any) -> RuleSet:
        """A copy with some fields changed (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class PresetNote:
    """What a preset is and the rule text it follows (``rummy51 rules``)."""

    description: str  # one line; says which of the source's rules rummy51 does not have
    source: str       # the page or document followed


PRESETS: dict[str, RuleSet] = {
    "default": RuleSet(),
    "two-jokers": RuleSet(jokers=2),
    "ace-low-1": RuleSet(ace_low_value=1),
    "gin": RuleSet.gin(),
    # Balkan Remi as askarte.com states it: the defaults already are its deal, values and melds
    "serbian-remi": RuleSet(),
    "remik": RuleSet(hand_size=13, ace_value=11, ace_low_value=1, joker_penalty=50,
                     opening_run="pure_run", bottom_card=False, score_out=-10, score_hand=-20,
                     free_discard_rounds=0, discard_card_must_meld=True,
                     match_elimination=501),
    "kaluki": RuleSet(hand_size=15, first_player_draws=True, ace_value=15, ace_low_value=15,
                      joker_penalty=25, bottom_card=False),
    "romanian-remi": RuleSet(jokers=2, ace_value=11, ace_low_value=11, max_jokers_per_meld=2),
    "mleo-run": RuleSet(opening_run="run"),
    "open-jokers": RuleSet(joker_limit_on_table=False),
}

#: A one-line description and the source of every preset (``rummy51 rules``).
PRESET_NOTES: dict[str, PresetNote] = {
    "default": PresetNote(
        "Balkan Rummy 51: 2x52+4 jokers, 14 cards (first player 15), open at 51, aces and "
        "court cards 10, the bottom card taken only to win by hand",
        "docs/rules.md, after www.remi51.rs/uputstvo_sr, igresakartama.com/remi and "
        "www.forestrummy.com/uputstvo_sr"),
    "two-jokers": PresetNote(
        "the default with 2 jokers (106 cards), the other common Balkan deck",
        "docs/rules.md section 1"),
    "ace-low-1": PresetNote(
        "the default with the low ace of A-2-3 worth 1, as some tables count it",
        "docs/rules.md section 2"),
    "gin": PresetNote(
        "gin rummy's meld rules (one deck, no jokers, ace 1 and low only, 10 cards); for the "
        "solver and studies, not a Rummy 51 table",
        "gin rummy's standard rules (OpenSpiel gin_rummy)"),
    "serbian-remi": PresetNote(
        "Serbian Remi: 2x52+4 jokers, 14 cards (first player 15), open at 51, runs up to the "
        "14-card A..A, the bottom card; the same fields as the default, since its rule that "
        "nobody opens or goes out in the first 2 rounds is not a rummy51 option",
        "www.askarte.com/pravila/pravila_za_remi.html"),
    "remik": PresetNote(
        "Polish Remik: starting player 14 cards, others 13, no bottom card, ace 11 (1 as low "
        "ace), joker 50 in hand, open at 51 with a run without a joker, the discard taken only "
        "to meld it, out -10, out at once -20 (others doubled), out at 501 (elimination); "
        "not in rummy51: a joker run whose naturals hold 3 in a row also qualifies there, "
        "two jokers side by side are banned rather than capped at one a meld, an opened "
        "player's discard take is not checked, the deal ends when the stock runs out twice",
        "github.com/CammyCodes/Remik REMIK.md"),
    "kaluki": PresetNote(
        "Kaluki: 15 cards to everyone, the first player draws too, no bottom card, aces 15, "
        "joker 25 in hand, first meld 51; not in rummy51: sets with two cards of a suit, a "
        "turned-up card starting the discard pile, the game to 250 points",
        "www.bicyclecards.com/card-games/rule/kaluki (also gamerules.com/rules/bicycles-kaluki)"),
    "romanian-remi": PresetNote(
        "Romanian Remi 51: 2x52+2 jokers, aces 11 always, joker 20 in hand, two jokers in a "
        "meld (the source allows them in runs; rummy51's limit binds sets too); the C game "
        "kernel cannot play it",
        "rummy-party.com/remi-51"),
    "mleo-run": PresetNote(
        "the default with an opening that must hold a run (a set-only opening is refused)",
        "the MLEO-M engine's Rummy 51 (github.com/GLA7479/MLEO-M)"),
    "open-jokers": PresetNote(
        "the default with the joker limit binding melds as laid down only: jokers may be laid "
        "off beyond it (\"at the beginning a group can only have one joker\")",
        "the Balkan rule pages' wording"),
}


# --------------------------------------------------------------------------- as data
_FIELDS = tuple(f.name for f in dataclasses.fields(RuleSet))


def rules_label(rules: RuleSet) -> str:
    """A short name for a rule set: its preset name, or the fields that differ from
    the defaults (``'jokers=2 threshold=40'``)."""
    for name, preset in PRESETS.items():
        if preset == rules:
            return name
    default = PRESETS["default"]
    diff = [f"{f}={getattr(rules, f)}" for f in _FIELDS if getattr(rules, f) != getattr(default, f)]
    return " ".join(diff) or "default"


def rules_to_dict(rules: RuleSet, full: bool = False) -> dict:
    """The rule set as JSON-able data: every field (``full``), or only those that
    differ from ``RuleSet()`` (what run directories keep, so that they keep loading,
    and their settings hash stays the same, when later versions add fields)."""
    if full:
        return dataclasses.asdict(rules)
    default = PRESETS["default"]
    return {f: getattr(rules, f) for f in _FIELDS if getattr(rules, f) != getattr(default, f)}


def rules_from_dict(d: Any, strict: bool = False) -> RuleSet:
    """A RuleSet from ``rules_to_dict``'s data. Unknown fields are ignored, or refused
    with ``strict`` (a ValueError naming them)."""
    if not isinstance(d, dict):
        raise ValueError(f"rules must be a JSON object, got {type(d).__name__}")
    unknown = sorted(set(d) - set(_FIELDS))
    if strict and unknown:
        raise ValueError(f"unknown rule fields: {', '.join(map(str, unknown))}")
    return RuleSet(**{k: v for k, v in d.items() if k in _FIELDS})
