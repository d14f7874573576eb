"""What users run: each study is a plan of seeded chunks handed to ``rummy51.runs``.

* ``openings``: ``simulate_openings`` -> ``OpeningStudy`` (P(can open) from the deal and
  turn by turn, sweeps over rule sets);
* ``odds``: ``opening_odds`` -> ``OddsResult`` (one hand in play, within k draws);
* ``games``: ``simulate_games`` -> ``GameStudy`` (whole deals between bots).
"""
from .games import GameStudy, simulate_games
from .odds import OddsResult, opening_odds
from .openings import OpeningStudy, rule_sweep, simulate_openings

__all__ = ["OpeningStudy", "simulate_openings", "rule_sweep", "OddsResult", "opening_odds",
           "GameStudy", "simulate_games"]
