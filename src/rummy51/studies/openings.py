"""The opening study: how likely is a hand to open?

``simulate_openings(...) -> OpeningStudy``: millions of fresh deals, evaluated in the
Cython core chunk by chunk (no Python per deal), on threads or on a Dask cluster,
optionally saved to (and resumed from) a run directory (``rummy51.runs``). For one
hand in play, see ``rummy51.studies.odds``.

What is measured (the core's ``study_deals`` / ``study_turns``):

* **From the deal**, three hands per deal (``hands``): ``"first"``, the first
  player's ``hand_size + 1`` cards (15 by default; they do not draw on their first
  turn); ``"other"``, another player's ``hand_size`` cards plus one card drawn from
  the stock (their first turn); ``"raw"``, that player's ``hand_size`` cards alone.
  For each: the best opening value (melds from the hand, keeping one card for the
  discard; docs/rules.md section 4), whether it reaches ``rules.threshold`` (can open),
  and for "first" and "other" whether it can go out at once (the hand win). All of
  it split by the jokers in the hand (0, 1, 2, 3+). Values are counted in a
  histogram of bins 0..255 (255 = 255 or more: a 15-card hand of the default deck
  reaches about 150), so P(best >= x) can be read for every x.
* **By turn** (``players``, ``turns``, ``turn_deals``): a full table of 1..6 players
  is dealt from one deck (the other hands are out of the stock); each seat in turn
  order draws from the stock (the first player not on turn 1), checks whether it
  can open, and if not discards by the *keep-best* policy: drop the card whose
  removal leaves the highest best opening value; among equal choices the card worth
  more in hand (then the higher card code); a joker only when nothing else ties. A
  seat that can open leaves the study (it still draws and throws the card back so the
  stock runs as at a table). Nobody takes from the discard pile. An empty stock is
  refilled from the discard pile but its top card (``rules.reshuffle_stock``). The
  result is P(opened by turn t) for t = 1..turns, per seat, by jokers dealt.

Seeding and chunks. A run is cut into chunks (``chunk_size`` deals of the deal study,
``turn_chunk_size`` deals of the by-turn study); the plan lists them config by config
(for each rule set: its deal chunks, then its by-turn chunks for each player count).
Chunk ``i`` draws from ``numpy.random.Generator(PCG64(SeedSequence(entropy).spawn(n)[i]))``
and nothing else, and counts are integers summed exactly, so the same seed gives the
same numbers for any number of threads, processes or machines, in any order, and a
resumed run equals an uninterrupted one. ``seed=None`` draws fresh entropy; it is
recorded (``OpeningStudy.entropy``) so any run can be repeated with ``seed=entropy``.

Run directories (``out=`` / ``resume=``)::

    DIR/manifest.json              settings, seed entropy, versions, command, chunks done
    DIR/chunks/chunk-000123.parquet    one per finished chunk (or .csv), written atomically
    DIR/summary.csv  value_distribution.csv  by_turn.csv  results.json   at the end

Each chunk file carries its own row count and SHA-256 checksum; ``resume`` verifies
every file, re-runs a damaged one (the damaged file is kept, renamed ``*.damaged``)
and refuses a directory whose settings differ. ``OpeningStudy.load(DIR)`` reads a
finished run back.

>>> study = simulate_openings(deals=20_000, seed=1, players=(), progress=False)
>>> row = study.summary(by_jokers=False).iloc[0]
>>> row.hand, int(row.hands), bool(0.33 < row.p_open < 0.40)
('first', 20000, True)
>>> bool(row.p_open_lo < row.p_open < row.p_open_hi)
True
"""

from __future__ import annotations

import dataclasses
import json
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import runs
from .._checks import MAX_CHUNK, MAX_COUNT, int_arg, workers_arg, workers_or_threads
from ..rules import RuleSet, rules_label
from ..runs.seeding import SeedLike
from ..stats import Z95, at_least, hist_mean, proportion
from ._common import PathLike, RunFacts, json_records, unfinished

if TYPE_CHECKING:
    import pandas as pd
from . import _openings_plan
from ._openings_plan import (
    DEFAULTS,
    HANDS,
    JOKER_CLASSES,
    KIND,
    _check_settings,
    _chunk_reader,
    _configs,
    _parse_hands,
    _parse_players,
    _Settings,
    _Totals,
    rule_sweep,
)
from ._runner import execute, run_args, start

__all__ = [
    "OpeningStudy",
    "simulate_openings",
    "rule_sweep",
    "rules_label",
    "kind_text",
    "HANDS",
    "JOKER_CLASSES",
    "DEFAULTS",
    "KIND",
]

# --------------------------------------------------------------------------- tables
def kind_text(hand: str, rules: RuleSet) -> str:
    hs = rules.hand_size
    return {"first": f"first player, {hs + 1} cards",
            "other": f"other player, {hs} + 1 drawn",
            "raw": f"raw {hs}-card hand"}[hand]


@dataclass(frozen=True, eq=False)
class OpeningStudy(RunFacts):
    """The counts of an opening study and the tables computed from them.

    Counts (int64 numpy arrays; ``C`` configurations, ``P`` player counts):

    * ``hist[c, k, j, v]``: hands of kind ``HANDS[k]`` with ``JOKER_CLASSES[j]`` jokers
      whose best opening value is ``v`` (bin 255 = 255 or more);
    * ``goout[c, k, j]``: of those, the hands that can go out at once (kinds "first"
      and "other"; "raw" is not evaluated);
    * ``first_open[c, q, s, j, t]``: at a table of ``players[q]`` players, deals where
      seat ``s`` (0 = first player), dealt ``j`` jokers, could first open on turn ``t``
      (1..turns; index 0 is unused);
    * ``dealt[c, q, s, j]``: the by-turn deals, by the jokers seat ``s`` was dealt.

    Seats beyond ``players[q]`` hold zeros. ``deals`` and ``turn_deals`` are the
    deals asked for per configuration (per player count); a study loaded with
    ``partial=True`` may hold fewer (``complete`` is False).

    Tables (pandas DataFrames, computed on demand, never printed): ``summary()``,
    ``overview()``, ``value_distribution()``, ``by_turn()``. Probabilities come with
    95 % Wilson intervals (``_lo``/``_hi`` columns), means with their standard error.
    """

    labels: tuple[str, ...]
    rules: tuple[RuleSet, ...]
    hands: tuple[str, ...]
    deals: int
    hist: np.ndarray
    goout: np.ndarray
    players: tuple[int, ...]
    turns: int
    turn_deals: int
    first_open: np.ndarray
    dealt: np.ndarray
    chunk_size: int = DEFAULTS["chunk_size"]
    turn_chunk_size: int = DEFAULTS["turn_chunk_size"]
    kernel_seconds: float = float("nan")

    # ------------------------------------------------------------------ basics
    @property
    def configs(self) -> tuple[tuple[str, RuleSet], ...]:
        """``(label, RuleSet)`` of each configuration."""
        return tuple(zip(self.labels, self.rules, strict=True))

    @property
    def deals_done(self) -> np.ndarray:
        """Deals counted per configuration (``(C,)`` int64)."""
        if not self.hands:
            return np.zeros(len(self.labels), np.int64)
        k = HANDS.index(self.hands[0])
        return self.hist[:, k].sum((1, 2))

    def same_counts(self, other: OpeningStudy) -> bool:
        """Whether ``other`` holds exactly the same counts (and settings)."""
        return (self.labels == other.labels and self.rules == other.rules
                and self.hands == other.hands and self.players == other.players
                and self.turns == other.turns
                and all(np.array_equal(getattr(self, a), getattr(other, a))
                        for a in ("hist", "goout", "first_open", "dealt")))

    def _settings(self) -> _Settings:
        return _Settings(tuple(self.configs), self.deals, self.hands, self.players, self.turns,
                         self.turn_deals, self.chunk_size, self.turn_chunk_size, self.entropy,
                         tuple(self.spawn_key))

    # ------------------------------------------------------------------ tables
    def summary(self, by_jokers: bool = True) -> pd.DataFrame:
        """One row per (configuration, hand, jokers): the hands counted (``hands``), their
        share of the configuration's hands of that kind, P(can open) (``p_open``),
        P(can go out at once) (``p_go_out``, NaN for "raw") with Wilson intervals, and the
        mean best opening value with its standard error. ``jokers`` is ``"all"`` and,
        with ``by_jokers``, each of ``JOKER_CLASSES``. ``gave_up``: hands the search gave
        up on (past its node limit; only huge meld-rich hands); they are in no count,
        probability or mean (``hands`` are the answered ones)."""
        import pandas as pd

        rows = []
        for c, (label, rules) in enumerate(self.configs):
            for hand in self.hands:
                k = HANDS.index(hand)
                h = self.hist[c, k]
                total = int(h.sum())
                classes = [("all", h.sum(0), self.goout[c, k].sum())]
                if by_jokers:
                    classes += [(JOKER_CLASSES[j], h[j], self.goout[c, k, j]) for j in range(4)]
                for jname, counts, go in classes:
                    # the last bin: hands the search gave up on, never counted as answers
                    gave_up = int(counts[-1])
                    counts = counts[:-1]
                    n = int(counts.sum())
                    opens = int(counts[rules.threshold:].sum())
                    p, lo, hi = proportion(opens, n)
                    mean, se = hist_mean(counts)
                    row = {"config": label, "hand": hand, "jokers": jname,
                           "threshold": rules.threshold, "hands": n,
                           "share": (n + gave_up) / total if total else float("nan"),
                           "can_open": opens, "p_open": float(p), "p_open_lo": float(lo),
                           "p_open_hi": float(hi)}
                    if hand == "raw":
                        row.update(go_out=None, p_go_out=float("nan"), p_go_out_lo=float("nan"),
                                   p_go_out_hi=float("nan"))
                    else:
                        gp, glo, ghi = proportion(int(go), n)
                        row.update(go_out=int(go), p_go_out=float(gp), p_go_out_lo=float(glo),
                                   p_go_out_hi=float(ghi))
                    row.update(mean_best=mean, mean_best_se=se, gave_up=gave_up)
                    rows.append(row)
        df = pd.DataFrame(rows)
        if not rows:
            return df
        df["go_out"] = df["go_out"].astype("Int64")
        return df

    def overview(self) -> pd.DataFrame:
        """One row per configuration: P(can open) for each hand, P(can go out at once)
        for "first" and "other" (with intervals), mean best value (with standard error)
        of each hand, and the deals counted."""
        import pandas as pd

        s = self.summary(by_jokers=False)
        rows = []
        for c, (label, rules) in enumerate(self.configs):
            row: dict[str, Any] = {"config": label, "threshold": rules.threshold,
                                   "jokers_in_deck": rules.jokers,
                                   "deals": int(self.deals_done[c])}
            mine = s[s["config"] == label] if "config" in s.columns else s.iloc[0:0]
            for _, r in mine.iterrows():
                h = r["hand"]
                for col in ("p_open", "p_open_lo", "p_open_hi"):
                    row[f"{col}_{h}"] = r[col]
                if h != "raw":
                    for col in ("p_go_out", "p_go_out_lo", "p_go_out_hi"):
                        row[f"{col}_{h}"] = r[col]
                row[f"mean_best_{h}"] = r["mean_best"]
                row[f"mean_best_se_{h}"] = r["mean_best_se"]
            rows.append(row)
        return pd.DataFrame(rows)

    def value_distribution(self) -> pd.DataFrame:
        """One row per (configuration, hand, jokers, value v) for v = 0 .. the largest
        value seen (or the threshold, if larger): ``count`` (hands whose best opening
        value is v), ``p`` (their share) and ``p_at_least`` = P(best >= v) with its
        Wilson interval, so any threshold can be read off. ``jokers`` is "all" or one
        of ``JOKER_CLASSES``."""
        import pandas as pd

        nz = np.flatnonzero(self.hist.sum((0, 1, 2))[:-1])
        vmax = int(nz.max()) if nz.size else 0
        vmax = min(self.hist.shape[-1] - 2, max([vmax] + [r.threshold for r in self.rules]))
        v = np.arange(vmax + 1)
        frames = []
        for c, label in enumerate(self.labels):
            for hand in self.hands:
                k = HANDS.index(hand)
                h = self.hist[c, k]
                for jname, counts in [("all", h.sum(0))] + [(JOKER_CLASSES[j], h[j]) for j in range(4)]:
                    counts = counts[:-1]    # the last bin: the search gave up
                    n = int(counts.sum())
                    ge = at_least(counts)[: vmax + 1]
                    p, lo, hi = proportion(ge, np.full(ge.shape, n))
                    with np.errstate(invalid="ignore", divide="ignore"):
                        share = counts[: vmax + 1] / n if n else np.full(vmax + 1, np.nan)
                    frames.append(pd.DataFrame({
                        "config": label, "hand": hand, "jokers": jname, "value": v,
                        "count": counts[: vmax + 1], "hands": n, "p": share,
                        "at_least": ge, "p_at_least": p, "p_at_least_lo": lo,
                        "p_at_least_hi": hi}))
        if not frames:
            return pd.DataFrame()
        return pd.concat(frames, ignore_index=True)

    def p_at_least(self, x: int, hand: str = "first",
                   config: int | str = 0) -> tuple[float, float, float]:
        """``(p, lo, hi)``: P(best opening value >= x) for one hand kind and configuration."""
        c = self.labels.index(config) if isinstance(config, str) else int(config)
        if hand not in self.hands:
            raise ValueError(f"hand {hand!r} was not studied: the study has {', '.join(self.hands)}")
        counts = self.hist[c, HANDS.index(hand)].sum(0)[:-1]   # not the give-ups
        x = min(int_arg("x", x, 0, 1_000_000), counts.size)
        k = int(counts[x:].sum())
        p, lo, hi = proportion(k, int(counts.sum()))
        return float(p), float(lo), float(hi)

    def by_turn(self, by_jokers: bool = False) -> pd.DataFrame:
        """One row per (configuration, players, seat, jokers, turn): ``deals`` at that
        seat (with that many jokers dealt), ``opened`` = deals in which the seat could
        open by turn t (cumulative), ``p_opened`` with its Wilson interval. Seats count
        from 1 (the first player, 15 cards, no draw on turn 1). ``gave_up``: the deals
        in which the search gave up on that seat's hand; they are not in ``deals``."""
        import pandas as pd

        t = np.arange(1, self.turns + 1)
        frames = []
        for c, label in enumerate(self.labels):
            for q, players in enumerate(self.players):
                for s in range(players):
                    fo = self.first_open[c, q, s]       # (4, turns + 1)
                    dl = self.dealt[c, q, s]            # (4,)
                    classes = [("all", fo.sum(0), dl.sum())]
                    if by_jokers:
                        classes += [(JOKER_CLASSES[j], fo[j], dl[j]) for j in range(4)]
                    for jname, f, n in classes:
                        gave_up = int(f[0])     # index 0: the search gave up
                        n = int(n) - gave_up
                        opened = np.cumsum(f[1:])
                        p, lo, hi = proportion(opened, np.full(opened.shape, n))
                        frames.append(pd.DataFrame({
                            "config": label, "players": players, "seat": s + 1, "jokers": jname,
                            "turn": t, "deals": n, "opened": opened, "p_opened": p,
                            "p_opened_lo": lo, "p_opened_hi": hi, "gave_up": gave_up}))
        if not frames:
            return pd.DataFrame(columns=["config", "players", "seat", "jokers", "turn", "deals",
                                         "opened", "p_opened", "p_opened_lo", "p_opened_hi",
                                         "gave_up"])
        return pd.concat(frames, ignore_index=True)

    def gave_up(self) -> int:
        """Hands (deal study) and seats (by-turn study) the search gave up on, in all:
        none are counted as answers."""
        return int(self.hist[..., -1].sum() + self.first_open[..., 0].sum())

    def warn_gave_up(self) -> None:
        """Warn (``RuntimeWarning``) when the search gave up on any hand."""
        n = self.gave_up()
        if n:
            warnings.warn(f"the search gave up on {n:,} hands (past its node limit): they are "
                          "left out of every probability and mean (see the gave_up columns)",
                          RuntimeWarning, stacklevel=3)

    # ------------------------------------------------------------------ persistence
    def meta(self) -> dict:
        """The study's settings and run facts as plain JSON-able data."""
        return {
            "kind": "openings",
            "settings": self._settings().to_json(),
            "config_hash": self._settings().config_hash,
            "seed": {"entropy": self.entropy, "spawn_key": list(self.spawn_key)},
            "chunks": {"total": self.chunks, "done_count": self.chunks_done},
            "complete": self.complete,
            "deals_done": [int(x) for x in self.deals_done],
            "elapsed_s": None if not np.isfinite(self.elapsed) else round(self.elapsed, 3),
            "kernel_s": None if not np.isfinite(self.kernel_seconds) else round(self.kernel_seconds, 3),
            "workers": self.workers,
            "backend": self.backend,
            "z": Z95,
            "discard_policy": "keep-best",
        }

    def counts(self) -> dict[str, list]:
        return {"hist": self.hist.tolist(), "goout": self.goout.tolist(),
                "first_open": self.first_open.tolist(), "dealt": self.dealt.tolist()}

    def to_dict(self, distribution: bool = True) -> dict:
        """Everything as JSON-able data: ``meta``, ``summary`` and ``by_turn`` records
        (by jokers too), ``value_distribution`` records (``distribution=True``) and the
        raw ``counts``."""
        out = {"meta": self.meta(),
               "summary": json_records(self.summary(by_jokers=True)),
               "by_turn": json_records(self.by_turn(by_jokers=True))}
        if distribution:
            out["value_distribution"] = json_records(self.value_distribution())
        out["counts"] = self.counts()
        return out

    def save(self, path: PathLike, fmt: str | None = None) -> Path:
        """Write the final tables into ``path`` (created if needed): ``summary.csv``,
        ``value_distribution.csv``, ``by_turn.csv`` and ``results.json``; and a
        ``manifest.json`` if there is none (a study computed without ``out``). (``fmt``:
        the chunk files' format; the tables are CSV and JSON whatever it is.)"""
        path = Path(path)
        runs.make_dirs(path)
        if not (path / "manifest.json").exists():
            settings = self._settings()
            manifest = runs.new_manifest(
                KIND, settings.to_json(), settings.config_hash,
                {"entropy": self.entropy, "spawn_key": list(self.spawn_key)}, None, None,
                self.chunks, status="finished" if self.complete else "partial")
            runs.atomic_write_text(path / "manifest.json", json.dumps(manifest, indent=1) + "\n")
        runs.atomic_write_text(path / "summary.csv", self.summary(by_jokers=True).to_csv(index=False))
        runs.atomic_write_text(path / "value_distribution.csv",
                           self.value_distribution().to_csv(index=False))
        runs.atomic_write_text(path / "by_turn.csv", self.by_turn(by_jokers=True).to_csv(index=False))
        runs.atomic_write_text(path / "results.json",
                           json.dumps(self.to_dict(distribution=False), separators=(",", ":")) + "\n")
        return path

    @classmethod
    def load(cls, path: PathLike, partial: bool = False) -> OpeningStudy:
        """Read a run directory back. A finished run is read from ``results.json``; an
        unfinished one is refused unless ``partial=True``, which sums the verified
        chunk files found (``complete`` is then False)."""
        path = Path(path)
        manifest = runs.RunDir.read_manifest(path, KIND)
        settings = _Settings.from_json(manifest["settings"])
        res = path / "results.json"
        if res.exists() and manifest.get("status") == "finished":
            try:
                with open(res, encoding="utf-8") as f:
                    data = json.load(f)
                c = data["counts"]
                meta = data["meta"]
                # the shapes come from the settings: an empty array (no by-turn study)
                # loses its shape in JSON
                shapes = {k: v.shape for k, v in _Totals(settings).arrays().items()}
                arrays = {k: np.array(c[k], dtype=np.int64).reshape(shapes[k]) for k in
                          ("hist", "goout", "first_open", "dealt")}
            except (OSError, ValueError, KeyError, TypeError) as e:
                raise ValueError(f"{res} is unreadable ({e}): run 'resume' on {path} to "
                                 "rebuild it from the chunk files") from None
            if meta.get("config_hash") != settings.config_hash:
                raise ValueError(f"{res} does not belong to the settings in {path / 'manifest.json'}")
            return cls._from_arrays(settings, arrays, chunks=meta["chunks"]["total"],
                                    chunks_done=meta["chunks"]["done_count"],
                                    elapsed=meta.get("elapsed_s") or float("nan"),
                                    kernel_seconds=meta.get("kernel_s") or float("nan"),
                                    workers=meta.get("workers", 1),
                                    backend=meta.get("backend", "local"), directory=str(path))
        if not partial:
            raise unfinished(path)
        run = runs.RunDir.open(path, KIND)
        specs = settings.plan()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", runs.ChunkWarning)
            found = run.scan(specs, _chunk_reader(run), rename=False)
        totals = _Totals(settings)
        for spec in specs:
            if spec["index"] in found:
                totals.add(spec, found[spec["index"]])
        return cls._from_arrays(settings, totals.arrays(), chunks=len(specs),
                                chunks_done=len(found), directory=str(path))

    @classmethod
    def _from_results(cls, settings: _Settings, found: Mapping[int, dict],
                      **kw: Any) -> OpeningStudy:
        """The study from its chunks' results (``_runner.execute``): their counts summed,
        the kernel's seconds of the chunks run now."""
        totals = _Totals(settings)
        for spec in settings.plan():
            if spec["index"] in found:
                totals.add(spec, found[spec["index"]]["cols"])
        kernel = float(sum(r.get("seconds", 0.0) for r in found.values()))
        return cls._from_arrays(settings, totals.arrays(), kernel_seconds=kernel, **kw)

    @classmethod
    def _from_arrays(cls, settings: _Settings, arrays: Mapping[str, np.ndarray], **kw: Any) -> OpeningStudy:
        return cls(labels=tuple(label for label, _ in settings.configs),
                   rules=tuple(r for _, r in settings.configs), hands=settings.hands,
                   deals=settings.deals, hist=arrays["hist"], goout=arrays["goout"],
                   players=settings.players, turns=settings.turns, turn_deals=settings.turn_deals,
                   first_open=arrays["first_open"], dealt=arrays["dealt"],
                   entropy=settings.entropy, spawn_key=settings.spawn_key,
                   chunk_size=settings.chunk_size, turn_chunk_size=settings.turn_chunk_size, **kw)

# --------------------------------------------------------------------------- the study
def simulate_openings(
    rules: Any = None,
    deals: int | None = None,
    seed: SeedLike = None,
    players: int | Sequence[int] | None = None,
    turns: int | None = None,
    turn_deals: int | None = None,
    workers: int | None = None,
    chunk_size: int | None = None,
    backend: str = "local",
    scheduler: Any = None,
    out: PathLike | None = None,
    resume: PathLike | None = None,
    progress: bool | None = None,
    *,
    hands: str | Sequence[str] | None = None,
    turn_chunk_size: int | None = None,
    chunk_format: str | None = None,
    on_chunk: Callable[[int, int, int], None] | None = None,
    command: str | None = None,
    threads: int | None = None,
) -> OpeningStudy:
    """Estimate how likely a hand is to open: from the deal and turn by turn.

    Parameters (``None`` means the default, or the run directory's value on resume):

    * ``rules``: a RuleSet (default rules), a preset name, or a sweep: a list of
      RuleSets / preset names or a dict ``{label: RuleSet}`` (see ``rule_sweep``).
      Every configuration gets its own ``deals`` and by-turn deals, and one row in
      each table.
    * ``deals`` (1,000,000 per configuration): deals of the study from the deal.
    * ``seed``: int, SeedSequence, Generator or None (fresh entropy, recorded in
      ``OpeningStudy.entropy``).
    * ``players`` ((4,)): player counts (1..6) of the by-turn study; a sweep gives
      each its own table. ``()`` skips the by-turn study.
    * ``turns`` (15): turns followed in the by-turn study.
    * ``turn_deals`` (25,000, or ``deals`` when that is smaller): deals of the by-turn
      study per configuration and player count (each deal follows every seat: 4
      players give 100,000 player-games). 0 skips it.
    * ``workers`` (all cores): threads running chunks locally, or the workers of the
      local Dask cluster (``threads`` is its deprecated name, as in ``simulate_games``).
    * ``chunk_size`` (250,000) and ``turn_chunk_size`` (2,500): deals per chunk. They
      fix the seeds, so they are part of the settings.
    * ``hands`` (all): which hands of each deal to evaluate: any of "first", "other",
      "raw" (``("first",)`` is the fastest study).
    * ``backend``: "local" (threads) or "dask" (``scheduler``: an address
      ``tcp://HOST:PORT``, a ``distributed.Client``, or None to start a local cluster
      of ``workers`` worker processes on 127.0.0.1).
    * ``out``: a new run directory to write; ``resume``: an existing one to continue
      (settings not given are read from it; settings given must match).
    * ``progress``: a progress bar on stderr (None: only when stderr is a terminal).
    * ``chunk_format``: "parquet" (default when pyarrow is installed) or "csv".
    * ``on_chunk(index, done, total)``: called after each finished chunk; an exception
      it raises stops the run like Ctrl-C (finished chunks are kept).

    Ctrl-C stops the run; with a run directory every finished chunk stays on disk and
    ``resume`` continues to the same totals as an uninterrupted run.
    """
    t_start = time.perf_counter()
    count, name = workers_or_threads(workers, threads)
    args = run_args(seed=seed, workers=workers_arg(count, name),  # type: ignore[arg-type]
                    out=out, resume=resume, chunk_format=chunk_format, progress=progress,
                    backend=backend, scheduler=scheduler, on_chunk=on_chunk, t_start=t_start)

    given: dict[str, Any] = {
        "configs": None if rules is None else tuple(_configs(rules)),
        "deals": None if deals is None else int_arg("deals", deals, 0, MAX_COUNT),
        "hands": None if hands is None else _parse_hands(hands),
        "players": None if players is None else _parse_players(players),
        "turns": None if turns is None else int_arg("turns", turns, 1, 10_000),
        "turn_deals": None if turn_deals is None else int_arg("turn_deals", turn_deals, 0, MAX_COUNT),
        "chunk_size": None if chunk_size is None else int_arg("chunk_size", chunk_size, 1, MAX_CHUNK),
        "turn_chunk_size": None if turn_chunk_size is None else
        int_arg("turn_chunk_size", turn_chunk_size, 1, MAX_CHUNK),
    }

    def new_settings(entropy: Any, spawn_key: tuple[int, ...]) -> _Settings:
        d = DEFAULTS
        settings = _Settings(
            configs=given["configs"] or tuple(_configs(None)),
            deals=d["deals"] if given["deals"] is None else given["deals"],
            hands=given["hands"] if given["hands"] is not None else d["hands"],
            players=given["players"] if given["players"] is not None else d["players"],
            turns=given["turns"] or d["turns"],
            # a small deal study asks for a quick run: the by-turn study is no larger
            turn_deals=(min(d["turn_deals"], given["deals"]) if given["deals"] is not None
                        else d["turn_deals"]) if given["turn_deals"] is None
            else given["turn_deals"],
            chunk_size=given["chunk_size"] or d["chunk_size"],
            turn_chunk_size=given["turn_chunk_size"] or d["turn_chunk_size"],
            entropy=entropy, spawn_key=spawn_key)
        if settings.deals and not settings.hands:
            raise ValueError("hands: choose at least one of first, other, raw")
        # nothing of a study that is skipped may change its settings
        if settings.turn_deals == 0 or not settings.players:
            settings = dataclasses.replace(settings, players=(), turn_deals=0)
        if settings.deals == 0:
            settings = dataclasses.replace(settings, hands=())
        return settings

    run, settings = start(_openings_plan, args, given, new_settings)
    _check_settings(settings.configs, settings.deals, settings.hands, settings.players,
                    settings.turns, settings.turn_deals, settings.chunk_size,
                    settings.turn_chunk_size)
    if command is None:
        command = "rummy51.simulate_openings(" + ", ".join(
            f"{k}={v!r}" for k, v in (("deals", deals), ("seed", seed), ("players", players),
                                      ("turns", turns), ("turn_deals", turn_deals),
                                      ("hands", hands)) if v is not None) + ")"
    study: OpeningStudy = execute(_openings_plan, OpeningStudy, settings, run, args,
                                  command=command, in_c=None, spec_extra={})
    study.warn_gave_up()
    return study
