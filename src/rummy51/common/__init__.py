"""What every game takes from one place (the neutral room below the games): the base of
the games' ``IllegalMove``, seeds (``normalize_seed``, ``seed_from``), the public history
a view shows (``HistoryView``), the prologue of a state and of a view (``StateBase``,
``ViewBase``), seat arrangements (``arrangements``) and bots by name (``bots``).

A game's room (``rummy51.r51``, ``rummy51.carousel``, a third game's) builds on these and
imports no other game (docs/architecture.md)."""
from .errors import IllegalMove
from .history import HistoryView
from .seats import MAX_PERMUTE, SEATS, arrangements
from .seeds import normalize_seed, seed_from
from .state import StateBase, ViewBase, deprecated_clone

__all__ = ["IllegalMove", "HistoryView", "SEATS", "MAX_PERMUTE", "arrangements",
           "normalize_seed", "seed_from", "StateBase", "ViewBase", "deprecated_clone"]
