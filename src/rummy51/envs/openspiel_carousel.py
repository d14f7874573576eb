"""OpenSpiel's ``python_carousel``: Carousel's names of the OpenSpiel door
(``rummy51.envs.openspiel``, whose one generic adapter serves both games; importing
either module registers both games).

>>> import pyspiel
>>> import rummy51.envs.openspiel_carousel
>>> game = pyspiel.load_game("python_carousel", {"players": 3, "returns": "round"})
>>> game.num_distinct_actions(), game.new_initial_state().is_chance_node()
(57, True)
"""
from __future__ import annotations

from .openspiel import CAROUSEL_GAME_NAME as GAME_NAME
from .openspiel import CAROUSEL_PARAMETERS as PARAMETERS
from .openspiel import CarouselGame, CarouselObserver, CarouselState, carousel_rules_of

__all__ = ["CarouselGame", "CarouselState", "CarouselObserver", "GAME_NAME", "PARAMETERS",
           "carousel_rules_of"]
