"""rummy51: an exact Rummy 51 engine (two decks, jokers, ace low and high).

>>> import rummy51
>>> rummy51.best_opening("6S 7S 8S 10D 10C 10H 2C").value
51
"""
from ._version import __version__ as __version__  # the one version source
from .cards import JOKER, PAD, Hand, card_text, cards_text, parse_card, parse_cards
from .common import IllegalMove
from .r51 import (
    BOTS,
    Bot,
    Discard,
    Draw,
    GameState,
    GreedyBot,
    HandHunterBot,
    LayDown,
    LayOff,
    LearnedBot,
    LearnedSearchBot,
    Match,
    Phase,
    PlainSearchBot,
    PlayerView,
    RandomBot,
    SearchBot,
    SwapJoker,
    TacticianBot,
    play_deal,
    play_match,
    replay,
)
from .rules import PRESETS, RuleSet
from .solver import (
    Meld,
    Opening,
    best_opening,
    best_opening_values,
    can_go_out,
    can_go_out_flags,
    can_open,
    can_open_flags,
    deal,
    min_deadwood,
    min_deadwood_values,
    pack_hands,
)
from .studies import (
    CarouselStudy,
    GameStudy,
    OddsResult,
    OpeningStudy,
    opening_odds,
    rule_sweep,
    simulate_carousel,
    simulate_games,
    simulate_openings,
)

__all__ = [
    "JOKER", "PAD", "Hand", "card_text", "cards_text", "parse_card", "parse_cards",
    "PRESETS", "RuleSet",
    "Meld", "Opening", "best_opening", "best_opening_values", "can_go_out", "can_go_out_flags",
    "can_open", "can_open_flags", "deal", "min_deadwood", "min_deadwood_values", "pack_hands",
    "OpeningStudy", "OddsResult", "simulate_openings", "opening_odds", "rule_sweep",
    "GameStudy", "simulate_games", "CarouselStudy", "simulate_carousel",
    "GameState", "Phase", "PlayerView", "IllegalMove", "Draw", "LayDown", "LayOff", "SwapJoker",
    "Discard", "Match", "replay",
    "Bot", "BOTS", "RandomBot", "GreedyBot", "HandHunterBot", "TacticianBot", "SearchBot",
    "PlainSearchBot", "LearnedSearchBot", "LearnedBot", "play_deal",
    "play_match",
]
