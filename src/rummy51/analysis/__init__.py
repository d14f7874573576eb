"""Rollout analysis of positions and whole games, for both games.

Give it a decision (a position a player saw and the move they made) and it ranks every
candidate move by its **equity**, the mean margin of determinized rollouts played to the
end of the deal (Rummy 51) or round (Carousel), with a standard error and a win
probability with its interval, and says what the played move lost against the best.

* :class:`Candidate`, :class:`Decision`, :class:`GameAnalysis`: the results (frozen
  dataclasses; ``to_dict()`` gives the ``--json`` form of ``rummy51 analyse``).
* :func:`format_decision`, :func:`format_analysis`: the terminal tables.
* :func:`blunder_table`: per player (bot), the mean loss per decision and the worst
  decisions, from many analysed games (the report's "blunder table").
* Rummy 51: :func:`analyse_position` (a ``PlayerView``'s decision), :func:`analyse_game`
  (every decision of a hand history), :func:`read_histories` (a history file, JSON or
  JSON Lines).

Each game's room adds the functions that make these (the candidates come from the
same generator as its search bot): see ``docs/analysis.md``.

* Carousel (``rummy51.analysis.carousel``): :func:`analyse_carousel_position` (one
  decision of a ``PlayerView``; :func:`carousel_position_view` builds one from a hand
  and a table) and :func:`analyse_carousel_game` (every decision of a hand history).
"""
from __future__ import annotations

from ._common import (
    BlunderRow,
    Candidate,
    Decision,
    GameAnalysis,
    blunder_table,
    format_analysis,
    format_decision,
)
from .carousel import analyse_game as analyse_carousel_game
from .carousel import analyse_position as analyse_carousel_position
from .carousel import position_view as carousel_position_view
from .rummy51 import analyse_game, analyse_position, read_histories

__all__ = ["Candidate", "Decision", "GameAnalysis", "BlunderRow", "blunder_table",
           "format_analysis", "format_decision",
           # Rummy 51 (rummy51.analysis.rummy51)
           "analyse_position", "analyse_game", "read_histories",
           # Carousel (rummy51.analysis.carousel)
           "analyse_carousel_position", "analyse_carousel_game", "carousel_position_view"]
