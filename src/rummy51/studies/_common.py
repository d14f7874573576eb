"""Helpers the studies share (a private module made for sharing)."""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

#: A run directory's path
PathLike = str | os.PathLike

__all__ = ["json_records", "compare_settings", "rules_difference", "RunFacts", "unfinished"]


@dataclass(frozen=True, eq=False, kw_only=True)
class RunFacts:
    """What every study's result knows of its run: the seed, the chunks of the plan and how
    many are in, the wall time, the workers and backend, the run directory. The study
    dataclasses derive from it (keyword-only fields, so they come after the study's own)."""

    entropy: Any
    spawn_key: tuple[int, ...] = ()
    chunks: int = 0
    chunks_done: int = 0
    elapsed: float = float("nan")
    workers: int = 1
    backend: str = "local"
    directory: str | None = None
    #: deals and chunks this session ran (a resumed run ran only some); None: all of them
    deals_run: int | None = None
    chunks_run: int | None = None

    def resumed_text(self) -> str | None:
        """``"resumed: this session ran 2 of 5 chunks (200 of 500 deals)"``, or None when
        the session ran every chunk."""
        if self.chunks_run is None or self.chunks_run >= self.chunks_done:
            return None
        deals = "" if self.deals_run is None else f" ({self.deals_run:,} deals)"
        return (f"resumed: this session ran {self.chunks_run} of {self.chunks_done} chunks"
                f"{deals}; the others were done before")

    @property
    def complete(self) -> bool:
        """Whether every chunk of the plan is in."""
        return self.chunks_done == self.chunks

    @property
    def seed(self) -> np.random.SeedSequence:
        """The root SeedSequence: passing ``seed=study.seed`` to the study's function
        repeats the run."""
        return np.random.SeedSequence(self.entropy, spawn_key=self.spawn_key)


def unfinished(path: PathLike) -> ValueError:
    """The error for loading an unfinished run directory without ``partial=True``."""
    return ValueError(f"the run in {path} is not finished: continue it with resume "
                      f"(--resume {path}), or load it with partial=True")


def rules_difference(have: Any, given: Any) -> str | None:
    """The first field two rule sets differ in, as ``"rules.f = a, not b"``, or None."""
    for f in dataclasses.fields(have):
        a, b = getattr(have, f.name), getattr(given, f.name)
        if a != b:
            return f"rules.{f.name} = {a!r}, not {b!r}"
    return None


def compare_settings(path: PathLike, old: Any, given: Mapping[str, Any]) -> None:
    """Refuse to resume ``path`` when a setting given for the resume differs from the
    directory's settings ``old`` (a study's settings dataclass). ``given`` maps setting
    names to values (``None``: not given); ``"seed"`` is ``(entropy, spawn_key)``;
    ``"rules"`` one rule set and ``"configs"`` ``(label, rules)`` pairs compare field by
    field so that the message names the field."""
    for key, value in given.items():
        if value is None:
            continue
        if key == "seed":
            ent, skey = value
            if ent != old.entropy or tuple(skey) != old.spawn_key:
                raise ValueError(f"cannot resume {path}: it was run with seed entropy "
                                 f"{old.entropy}, not {ent}")
            continue
        have = getattr(old, key)
        if key == "rules":
            why = rules_difference(have, value)
            if why:
                raise ValueError(f"cannot resume {path}: it was run with {why}")
            continue
        if key == "configs":
            if len(value) != len(have):
                raise ValueError(f"cannot resume {path}: it was run with {len(have)} rule "
                                 f"configuration(s), not {len(value)}")
            for (la, ra), (lb, rb) in zip(have, value, strict=True):
                why = rules_difference(ra, rb)
                if why:
                    raise ValueError(f"cannot resume {path}: it was run with {why} ({la})")
                if la != lb:
                    raise ValueError(f"cannot resume {path}: its configuration is labelled "
                                     f"{la!r}, not {lb!r}")
            continue
        if value != have:
            def show(x: object) -> object:
                return ",".join(map(str, x)) if isinstance(x, tuple) else x

            raise ValueError(f"cannot resume {path}: it was run with {key} = {show(have)}, "
                             f"not {show(value)}")


def json_records(df: pd.DataFrame) -> list[dict]:
    """A DataFrame as a list of JSON-able dicts (numpy scalars and NA made plain)."""
    import pandas as pd

    out = []
    for rec in df.to_dict("records"):
        clean = {}
        for k, v in rec.items():
            if v is None or (np.ndim(v) == 0 and pd.isna(v)):
                v = None
            elif isinstance(v, (np.integer,)):
                v = int(v)
            elif isinstance(v, (float, np.floating)):
                v = float(v)
            elif isinstance(v, np.bool_):
                v = bool(v)
            clean[k] = v
        out.append(clean)
    return out
