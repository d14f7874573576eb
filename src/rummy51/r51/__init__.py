"""The Rummy 51 game: the engine (one deal, matches, hand histories), table melds,
the built-in bots and the C game kernel that plays whole deals of greedy bots.

The rules are ``docs/rules.md``; the choices where they are silent, ``docs/engine.md``.
The solver this game asks (best opening, can open, go out) is ``rummy51.solver``.
"""
from .bots import (
    BOTS,
    Bot,
    GreedyBot,
    HandHunterBot,
    RandomBot,
    TacticianBot,
    play_deal,
    play_match,
)
from .engine import (
    Discard,
    Draw,
    GameState,
    IllegalMove,
    LayDown,
    LayOff,
    Phase,
    PlayerView,
    SwapJoker,
    replay,
)
from .learned import LearnedBot
from .match import Match
from .policy import PolicyBot
from .search import LearnedSearchBot, PlainSearchBot, SearchBot

# the search bot plays tactician moves and asks the C kernel (rummy51.r51.search, which
# imports the bots): it joins the registry here, once both modules are loaded; so do the
# search bot without its learned model and the learned bot (rummy51.r51.learned)
BOTS["search"] = SearchBot
BOTS["search-plain"] = PlainSearchBot
BOTS["search-learned"] = LearnedSearchBot
BOTS["learned"] = LearnedBot
# the trained policy network (numpy; rummy51.r51.policy), 2-player deals
BOTS["ppo"] = PolicyBot

__all__ = [
    "GameState", "Phase", "PlayerView", "IllegalMove", "Draw", "LayDown", "LayOff", "SwapJoker",
    "Discard", "Match", "replay",
    "Bot", "BOTS", "RandomBot", "GreedyBot", "HandHunterBot", "TacticianBot", "SearchBot",
    "PlainSearchBot", "LearnedSearchBot", "LearnedBot", "PolicyBot", "play_deal", "play_match",
]
