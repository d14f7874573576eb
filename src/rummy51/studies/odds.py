"""Hand odds: for one hand in play, how likely is it to open within k draws?

``opening_odds(hand, seen, draws) -> OddsResult``: the chance to open (or go out at
once) within 1..K draws from the cards not yet seen, by Monte Carlo in the core
(``study_odds``), seeded like the opening study (chunk i draws from child i of the
root SeedSequence), so results do not depend on ``workers``.
"""
from __future__ import annotations

import json
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core, runs
from .._checks import MAX_CHUNK, MAX_COUNT, int_arg, workers_arg, workers_or_threads
from ..cards import JOKER, CardsLike, card_text, cards_text, check_counts, to_codes
from ..rules import PRESETS, RuleSet, rules_from_dict, rules_to_dict
from ..runs.seeding import SeedLike
from ..solver import compiled_rules
from ..stats import Z95, proportion
from ._common import PathLike, json_records

if TYPE_CHECKING:
    import pandas as pd
from ._openings_plan import DEFAULTS, MAX_HAND

__all__ = ["OddsResult", "opening_odds", "KIND"]

KIND = "odds"
_DEFAULT_RULES = PRESETS["default"]

@dataclass(frozen=True, eq=False)
class OddsResult:
    """Monte Carlo odds of one hand: P(can open) and P(can go out at once) within
    0..``draws`` draws from the unseen cards, discarding by the keep-best policy.

    ``first_open[k]`` counts the samples in which the hand could first open after
    its k-th draw (0 = as it is, before drawing); ``first_open[draws + 1]`` those that
    never could; ``first_out`` likewise for going out at once. ``p_open[k]`` is the
    cumulative P(can open within k draws), never decreasing in k. ``gave_up``: the
    samples the search gave up on (past its node limit); they are in no count, and the
    probabilities are over the ``answered`` samples."""

    hand: tuple[int, ...]
    seen: tuple[int, ...]
    unseen: int
    draws: int
    samples: int
    rules: RuleSet
    first_open: np.ndarray
    first_out: np.ndarray
    entropy: Any
    spawn_key: tuple[int, ...] = ()
    chunk_size: int = DEFAULTS["odds_chunk_size"]
    elapsed: float = float("nan")
    gave_up: int = 0

    @property
    def answered(self) -> int:
        """Samples with an answer (``samples - gave_up``)."""
        return self.samples - self.gave_up

    def _cum(self, first: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        k = np.cumsum(first[: self.draws + 1])
        return proportion(k, np.full(k.shape, self.answered))

    @property
    def p_open(self) -> np.ndarray:
        """P(can open within k draws), k = 0..draws."""
        return self._cum(self.first_open)[0]

    @property
    def p_go_out(self) -> np.ndarray:
        """P(can go out at once within k draws), k = 0..draws."""
        return self._cum(self.first_out)[0]

    def table(self) -> pd.DataFrame:
        """One row per k = 0..draws: P(can open within k draws) and P(can go out at once
        within k draws) with Wilson intervals, and the samples counted."""
        import pandas as pd

        po, plo, phi = self._cum(self.first_open)
        go, glo, ghi = self._cum(self.first_out)
        return pd.DataFrame({
            "draws": np.arange(self.draws + 1), "samples": self.answered,
            "opened": np.cumsum(self.first_open[: self.draws + 1]),
            "p_open": po, "p_open_lo": plo, "p_open_hi": phi,
            "out": np.cumsum(self.first_out[: self.draws + 1]),
            "p_go_out": go, "p_go_out_lo": glo, "p_go_out_hi": ghi, "gave_up": self.gave_up})

    def meta(self) -> dict:
        return {"kind": "odds", "hand": cards_text(self.hand), "seen": cards_text(self.seen),
                "unseen": self.unseen, "draws": self.draws, "samples": self.samples,
                "rules": rules_to_dict(self.rules),
                "seed": {"entropy": self.entropy, "spawn_key": list(self.spawn_key)},
                "chunk_size": self.chunk_size, "discard_policy": "keep-best", "z": Z95,
                "gave_up": self.gave_up,
                "elapsed_s": None if not np.isfinite(self.elapsed) else round(self.elapsed, 3)}

    def to_dict(self) -> dict:
        return {"meta": self.meta(), "table": json_records(self.table()),
                "counts": {"first_open": self.first_open.tolist(),
                           "first_out": self.first_out.tolist()}}

    def save(self, path: PathLike) -> Path:
        """Write ``manifest.json`` (kind "odds"), ``odds.csv`` and ``results.json`` to ``path``."""
        path = Path(path)
        if (path / "manifest.json").exists():
            raise ValueError(f"{path} already holds a run (manifest.json): choose another directory")
        runs.make_dirs(path)
        manifest = dict(self.meta(), format_version=runs.FORMAT_VERSION, versions=runs.versions(),
                        created=runs.now(), status="finished")
        runs.atomic_write_text(path / "odds.csv", self.table().to_csv(index=False))
        runs.atomic_write_text(path / "results.json", json.dumps(self.to_dict()) + "\n")
        runs.atomic_write_text(path / "manifest.json", json.dumps(manifest, indent=1) + "\n")
        return path

    @classmethod
    def load(cls, path: PathLike) -> OddsResult:
        path = Path(path)
        runs.RunDir.read_manifest(path, KIND)
        try:
            with open(path / "results.json", encoding="utf-8") as f:
                data = json.load(f)
            m = data["meta"]
            return cls(hand=tuple(to_codes(m["hand"])), seen=tuple(to_codes(m["seen"])),
                       unseen=m["unseen"], draws=m["draws"], samples=m["samples"],
                       rules=rules_from_dict(m["rules"]),
                       first_open=np.array(data["counts"]["first_open"], np.int64),
                       first_out=np.array(data["counts"]["first_out"], np.int64),
                       entropy=m["seed"]["entropy"], spawn_key=tuple(m["seed"]["spawn_key"]),
                       chunk_size=m["chunk_size"], elapsed=m.get("elapsed_s") or float("nan"),
                       gave_up=int(m.get("gave_up", 0)))
        except (OSError, ValueError, KeyError) as e:
            raise ValueError(f"{path / 'results.json'} is unreadable ({e})") from None


def _unseen_pool(hand: list[int], seen: list[int], rules: RuleSet) -> np.ndarray:
    from collections import Counter

    check_counts(hand, rules)
    try:
        check_counts(seen, rules)
    except ValueError as e:
        raise ValueError(f"seen: {str(e).replace('hand holds', 'the seen cards hold')}") from None
    both = Counter(hand) + Counter(seen)
    for c, n in sorted(both.items()):
        cap = rules.jokers if c == JOKER else rules.decks
        if n > cap:
            what = "jokers" if c == JOKER else f"copies of {card_text(c)}"
            raise ValueError(
                f"seen cards overlap the hand: hand and seen together hold {n} {what}, but the "
                f"deck has {cap}")
    left = Counter(int(c) for c in rules.deck()) - both
    return np.array(sorted(left.elements()), dtype=np.uint8)


def opening_odds(hand: CardsLike, seen: CardsLike = (), draws: int | None = None,
                 samples: int | None = None, rules: RuleSet | None = None, seed: SeedLike = None,
                 workers: int | None = None, chunk_size: int | None = None, *,
                 threads: int | None = None) -> OddsResult:
    """P(can open) and P(can go out at once) for ``hand`` within 0..``draws`` draws.

    ``seen`` are the cards known to be out of the stock (table melds, discards, the
    bottom card); the stock is modelled as a uniform shuffle of every other card of
    the deck (the unseen cards, which include the other players' hands). Each of
    ``samples`` (100,000) samples draws ``draws`` (5) cards one by one; after each
    draw the hand is checked (can open with one card kept; can go out at once) and,
    if the hand has grown, it discards by the keep-best policy (the card whose removal
    keeps the best opening value highest; ties drop the card worth more in hand).
    Seeded like ``simulate_openings``: chunk i of ``chunk_size`` (25,000) samples uses
    ``SeedSequence(entropy).spawn(n)[i]``, so results do not depend on ``workers`` (the
    threads the chunks run on; all cores by default; ``threads`` is its deprecated
    name)."""
    t0 = time.perf_counter()
    if rules is None:
        rules = _DEFAULT_RULES
    if not isinstance(rules, RuleSet):
        raise TypeError(f"rules must be a RuleSet, got {type(rules).__name__}")
    codes = to_codes(hand)
    if not codes:
        raise ValueError("hand is empty: give cards like \"7S 8S 9S JK\"")
    seen_codes = to_codes(seen)
    pool = _unseen_pool(codes, seen_codes, rules)
    draws = DEFAULTS["odds_draws"] if draws is None else int_arg("draws", draws, 0)
    samples = DEFAULTS["odds_samples"] if samples is None else int_arg("samples", samples, 1, MAX_COUNT)
    chunk_size = (DEFAULTS["odds_chunk_size"] if chunk_size is None
                  else int_arg("chunk_size", chunk_size, 1, MAX_CHUNK))
    if draws > pool.size:
        raise ValueError(f"draws must be at most {pool.size}, the unseen cards, got {draws}")
    if len(codes) + draws + 1 > MAX_HAND:
        raise ValueError(f"draws must be at most {MAX_HAND - 1 - len(codes)} for a hand of "
                         f"{len(codes)} cards, got {draws}")
    count, name = workers_or_threads(workers, threads)
    nthreads = workers_arg(count, name)  # type: ignore[arg-type]
    entropy, spawn_key = runs.seed_root(seed)
    full, rest = divmod(samples, chunk_size)
    sizes = [chunk_size] * full + ([rest] if rest else [])
    cr = compiled_rules(rules)
    hand_arr = np.array(codes, dtype=np.uint8)
    # validate the hand in the core once (card codes, counts) before the threads start
    _core.study_odds(cr, np.random.default_rng(0), hand_arr, pool, draws, 0,
                     np.zeros(draws + 3, np.int64), np.zeros(draws + 3, np.int64))
    results: dict[int, tuple] = {}

    def work(spec: dict) -> tuple[np.ndarray, np.ndarray]:
        # index draws + 2 of both: the samples the search gave up on
        fo = np.zeros(draws + 3, np.int64)
        fx = np.zeros(draws + 3, np.int64)
        rng = runs.chunk_rng(entropy, spawn_key, spec["index"])
        _core.study_odds(cr, rng, hand_arr, pool, draws, spec["n"], fo, fx)
        return fo, fx

    def done_cb(spec: dict, res: tuple[np.ndarray, np.ndarray]) -> None:
        results[spec["index"]] = res

    runs.run_threads([{"index": i, "n": n} for i, n in enumerate(sizes)], nthreads, work, done_cb)
    first_open = sum((results[i][0] for i in range(len(sizes))), np.zeros(draws + 3, np.int64))
    first_out = sum((results[i][1] for i in range(len(sizes))), np.zeros(draws + 3, np.int64))
    gave_up = int(first_open[-1])
    if gave_up:
        warnings.warn(f"the search gave up on {gave_up:,} of {samples:,} samples (past its node "
                      "limit): they are left out of the probabilities (gave_up)",
                      RuntimeWarning, stacklevel=2)
    return OddsResult(hand=tuple(sorted(codes)), seen=tuple(sorted(seen_codes)), unseen=int(pool.size),
                      draws=draws, samples=samples, rules=rules, first_open=first_open[:-1],
                      first_out=first_out[:-1], entropy=entropy, spawn_key=spawn_key,
                      chunk_size=chunk_size, elapsed=time.perf_counter() - t0, gave_up=gave_up)
