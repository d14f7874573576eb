"""What users run: each study is a plan of seeded chunks handed to ``rummy51.runs``.

* ``openings``: ``simulate_openings`` -> ``OpeningStudy`` (P(can open) from the deal and
  turn by turn, sweeps over rule sets);
* ``odds``: ``opening_odds`` -> ``OddsResult`` (one hand in play, within k draws);
* ``games``: ``simulate_games`` -> ``GameStudy`` (whole deals between bots);
* ``carousel``: ``simulate_carousel`` -> ``CarouselStudy`` (whole Carousel games between
  bots).

The games studies share one run loop (``_runner``): a study supplies its plan
(``_games_plan``, ``_carousel_plan``).
"""
from .carousel import CarouselStudy, simulate_carousel
from .games import GameStudy, simulate_games
from .odds import OddsResult, opening_odds
from .openings import OpeningStudy, rule_sweep, simulate_openings

__all__ = ["OpeningStudy", "simulate_openings", "rule_sweep", "OddsResult", "opening_odds",
           "GameStudy", "simulate_games", "CarouselStudy", "simulate_carousel"]
