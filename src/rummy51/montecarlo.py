"""Old import path of the opening study and the hand odds, now ``rummy51.studies.openings``
and ``rummy51.studies.odds`` (seeding and chunk files: ``rummy51.runs``). The public
names are re-exported here so that code written before the move runs unchanged."""
from .runs import ChunkWarning, chunk_seed
from .studies.odds import OddsResult, opening_odds
from .studies.openings import (
    DEFAULTS,
    HANDS,
    JOKER_CLASSES,
    OpeningStudy,
    rule_sweep,
    rules_label,
    simulate_openings,
)

__all__ = ["OpeningStudy", "OddsResult", "ChunkWarning", "simulate_openings", "opening_odds",
           "rule_sweep", "rules_label", "HANDS", "JOKER_CLASSES", "DEFAULTS", "chunk_seed"]
