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
* :func:`analyse_position` (a ``PlayerView``'s decision, of either game),
  :func:`analyse_game` (every decision of a hand history, of either game),
  :func:`analyse_games` (every game of a source) and :func:`read_histories` (the one
  reader of hand histories: a dict, a state, JSON or JSON Lines text, a file, a run
  directory): each dispatches to its game's module.

Each game's module holds the same API, name for name and keyword for keyword:
``rummy51.analysis.rummy51`` and ``rummy51.analysis.carousel`` (``analyse_position``,
``analyse_game``, ``analyse_games``, ``read_histories``, ``DEFAULT_ROLLOUTS``,
``HINT_ROLLOUTS``, ``MAX_ROLLOUTS``, ``fresh_seed``): the candidates come from the same
generator as its search bot; see ``docs/analysis.md``. Carousel's adds
:func:`carousel_position_view` (a position from a hand and a table).
``analyse_carousel_position`` and ``analyse_carousel_game`` are the deprecated names of
Carousel's (for one release).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import carousel as _carousel_analysis
from . import rummy51 as _rummy51_analysis
from ._common import (
    MAX_ROLLOUTS,
    BlunderRow,
    Candidate,
    Decision,
    GameAnalysis,
    blunder_table,
    deprecated_alias,
    format_analysis,
    format_decision,
    fresh_seed,
    history_game,
    one_history,
)
from ._common import read_histories as _read_histories
from .carousel import position_view as carousel_position_view

__all__ = ["Candidate", "Decision", "GameAnalysis", "BlunderRow", "blunder_table",
           "format_analysis", "format_decision", "MAX_ROLLOUTS", "fresh_seed",
           "analyse_position", "analyse_game", "analyse_games", "read_histories",
           "carousel_position_view",
           # deprecated (Carousel's old names)
           "analyse_carousel_position", "analyse_carousel_game"]


def _module(game: Any) -> Any:
    if isinstance(game, _carousel_analysis.PlayerView | _carousel_analysis.GameState):
        return _carousel_analysis
    if isinstance(game, _rummy51_analysis.PlayerView | _rummy51_analysis.GameState):
        return _rummy51_analysis
    return _carousel_analysis if history_game(one_history(game)) == "carousel" \
        else _rummy51_analysis


def analyse_position(view: Any, *args: Any, **kw: Any) -> Decision:
    """The decision of the player on turn in ``view`` (a ``PlayerView`` of Rummy 51 or
    of Carousel) ranked by rollouts: the game's ``analyse_position(view, **kw)``."""
    if not isinstance(view, _carousel_analysis.PlayerView | _rummy51_analysis.PlayerView):
        raise TypeError(f"view must be a PlayerView of Rummy 51 or of Carousel, got "
                        f"{type(view).__name__}")
    return _module(view).analyse_position(view, *args, **kw)


def analyse_game(history: Any, rules: Any = None, *args: Any, **kw: Any) -> GameAnalysis:
    """Every decision of one hand history of either game (its ``format`` says which):
    the game's ``analyse_game(history, rules, **kw)``."""
    if not isinstance(history, _carousel_analysis.GameState | _rummy51_analysis.GameState):
        history = one_history(history)
    return _module(history).analyse_game(history, rules, *args, **kw)


def analyse_games(source: Any, rules: Any = None, **kw: Any) -> Iterable[GameAnalysis]:
    """:func:`analyse_game` of every game of ``source`` (``read_histories``' sources),
    game ``g`` as ``game=g``."""
    for g, h in enumerate(read_histories(source)):
        yield analyse_game(h, rules, game=g, **kw)


def read_histories(source: Any) -> list[dict]:
    """The hand histories of ``source``, of either game: a history dict, a state, JSON
    text of one or JSON Lines, a file of them (``.gz`` too), or a run directory made with
    histories (every chunk's file verified); as dicts in order."""
    return _read_histories(source)


analyse_carousel_position = deprecated_alias(
    _carousel_analysis.analyse_position, "rummy51.analysis.analyse_carousel_position",
    "rummy51.analysis.carousel.analyse_position (or rummy51.analysis.analyse_position)")
analyse_carousel_game = deprecated_alias(
    _carousel_analysis.analyse_game, "rummy51.analysis.analyse_carousel_game",
    "rummy51.analysis.carousel.analyse_game (or rummy51.analysis.analyse_game)")
