"""The report's data model, the run loader and the number formats (a private module the
report modules share): ``Run``, ``load_run``, ``Column``, ``ReportTable``, ``ReportFigure``,
``Section``, ``Headline``, ``Report``, ``fmt_pct``, ``fmt_interval``, ``cell_text``.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, TypeGuard, Union

import numpy as np

from ..stats import Z95



#: Columns a games run's records must have (one row per player and deal).
GAME_COLUMNS = ("deal", "seat", "bot", "first_player", "score", "opened", "turn_opened",
                "went_out", "hand_win", "bottom_card_win", "deal_length", "draw")
#: The kinds of run directory a report reads.
KINDS = ("openings", "games", "carousel")


class ReportError(ValueError):
    """A run directory cannot be reported on: missing, damaged, or of an unknown kind."""


# --------------------------------------------------------------------------- runs
@dataclass(frozen=True, eq=False)
class Run:
    """A loaded run directory: ``study`` is an ``OpeningStudy`` or a ``GameStudy``;
    ``name`` is the short name the report shows (the directory's name, made unique)."""

    path: Path
    kind: str
    name: str
    study: Any
    manifest: dict
    records: Any = None  # games: the per-player-deal records (a DataFrame)


def _load_openings(path: Path):
    from ..studies.openings import OpeningStudy

    return OpeningStudy.load(path)


def _load_games(path: Path):
    try:
        from ..studies.games import GameStudy
    except ImportError as e:
        raise ReportError(f"{path} holds a games run, but this rummy51 cannot read games runs "
                          f"(rummy51.studies.games: {e})") from None
    return GameStudy.load(path)


def _load_carousel(path: Path):
    from ..studies.carousel import CarouselStudy

    return CarouselStudy.load(path)


_LOADERS = {"openings": _load_openings, "games": _load_games, "carousel": _load_carousel}


def load_run(path, name: Optional[str] = None) -> Run:
    """Read the run directory ``path`` by the ``kind`` of its ``manifest.json``.

    Raises ``ReportError`` naming the path and the problem when the directory is
    missing, has no readable manifest, is of a kind the report does not know, or its
    results cannot be read (an unfinished or damaged run)."""
    p = Path(path)
    if not p.exists():
        raise ReportError(f"{p}: no such run directory")
    if not p.is_dir():
        raise ReportError(f"{p} is a file, not a run directory")
    mf = p / "manifest.json"
    if not mf.is_file():
        raise ReportError(f"{p} is not a run directory: it has no manifest.json")
    try:
        manifest = json.loads(mf.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise ReportError(f"{mf} is damaged: it is not readable JSON ({e})") from None
    if not isinstance(manifest, dict):
        raise ReportError(f"{mf} is damaged: it holds no JSON object")
    kind = manifest.get("kind")
    if kind not in _LOADERS:
        raise ReportError(f"{mf}: run kind {kind!r} has no report (a report reads "
                          f"{' and '.join(repr(k) for k in KINDS)} runs)")
    try:
        study = _LOADERS[kind](p)
        records = (game_records(study, p) if kind == "games"
                   else study.records if kind == "carousel" else None)
    except ReportError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, OSError) as e:
        raise ReportError(f"cannot read the {kind} run in {p}: {e}") from None
    return Run(path=p, kind=kind, name=name or p.name or str(p), study=study,
               manifest=manifest, records=records)


def load_runs(paths: Iterable) -> tuple[Run, ...]:
    """``load_run`` of each path (a ``Run`` is kept as it is), names made unique:
    two directories of the same name are told apart by their parents."""
    runs = [p if isinstance(p, Run) else load_run(p) for p in paths]
    if not runs:
        raise ReportError("no run directories: give at least one")
    given = [r.name for r in runs]
    names = list(given)
    for i, r in enumerate(runs):
        if given.count(r.name) > 1:
            parts = r.path.resolve().parts
            names[i] = "/".join(parts[-2:]) if len(parts) >= 2 else r.name
    seen: dict[str, int] = {}
    out = []
    for r, n in zip(runs, names):
        k = seen.get(n, 0)
        seen[n] = k + 1
        out.append(dataclasses.replace(r, name=n if not k else f"{n} ({k + 1})"))
    return tuple(out)


def game_records(study, path=None):
    """The records of a ``GameStudy`` (one row per player and deal, ``GAME_COLUMNS``),
    bot names as plain strings; ``ReportError`` when a column is missing or there are
    no deals."""
    where = f" in {path}" if path is not None else ""
    df = study.records
    missing = [c for c in GAME_COLUMNS if c not in df.columns]
    if missing:
        raise ReportError(f"the games records{where} lack the column(s) {', '.join(missing)}")
    if df.empty:
        raise ReportError(f"the games run{where} holds no deals")
    return df.assign(bot=df["bot"].astype(str))


# --------------------------------------------------------------------------- report data
@dataclass(frozen=True)
class Column:
    """How one column of a table is shown.

    ``kind``: "text", "int" (thousands separators), "pct" (a probability in percent;
    ``lo``/``hi`` name its interval's columns), "num" (``digits`` decimals; ``se``
    names a standard-error column shown as ± 1.96 SE, or ``lo``/``hi`` an interval)."""

    key: str
    header: str
    kind: str = "text"
    lo: Optional[str] = None
    hi: Optional[str] = None
    se: Optional[str] = None
    digits: int = 2


@dataclass(frozen=True, eq=False)
class ReportTable:
    """A table: ``data`` holds the numbers (written as ``<name>.csv``), ``columns`` say
    which are shown and how."""

    name: str
    title: str
    data: Any
    columns: tuple[Column, ...]
    caption: str = ""


@dataclass(frozen=True, eq=False)
class ReportFigure:
    """A figure: a ``matplotlib.figure.Figure`` (Agg canvas) and the numbers it plots
    (``data``, written as ``<name>.csv``)."""

    name: str
    title: str
    figure: Any
    caption: str = ""
    data: Any = None


@dataclass(frozen=True, eq=False)
class Section:
    title: str
    anchor: str
    intro: str
    items: tuple[Union[ReportTable, ReportFigure], ...]


@dataclass(frozen=True)
class Headline:
    """A number for the first screen: ``value`` (with an interval ``lo``..``hi``)
    shown as ``kind`` ("pct", "int", "num", "text")."""

    label: str
    value: Any
    kind: str = "pct"
    lo: Optional[float] = None
    hi: Optional[float] = None
    note: str = ""
    digits: int = 0
    run: str = ""  # the run it belongs to (the page groups the headlines by run)


@dataclass(frozen=True, eq=False)
class Report:
    title: str
    runs: tuple[Run, ...]
    runs_table: ReportTable
    headlines: tuple[Headline, ...]
    sections: tuple[Section, ...]
    version: str = ""

    def tables(self) -> Iterator[ReportTable]:
        yield self.runs_table
        for s in self.sections:
            yield from (i for i in s.items if isinstance(i, ReportTable))

    def figures(self) -> Iterator[ReportFigure]:
        for s in self.sections:
            yield from (i for i in s.items if isinstance(i, ReportFigure))


# --------------------------------------------------------------------------- formatting
def _finite(x: Any) -> "TypeGuard[float]":
    try:
        return x is not None and np.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def _pct_digits(*ps) -> int:
    vals = [abs(100 * float(p)) for p in ps if _finite(p) and float(p) != 0]
    low = min(vals) if vals else 1.0
    return 2 if low >= 1 else 3 if low >= 0.01 else 4


def fmt_pct(p, digits: Optional[int] = None) -> str:
    """A probability in percent: ``fmt_pct(0.36414) == '36.41%'``; 3 decimals below 1 %
    (4 below 0.01 %), '–' for NaN."""
    if not _finite(p):
        return "–"
    d = _pct_digits(p) if digits is None else digits
    return f"{100 * float(p):.{d}f}%"


def fmt_interval(lo, hi, digits: int = 2, pct: bool = True) -> str:
    """``'36.32–36.51'``: an interval's ends (in percent when ``pct``)."""
    if not (_finite(lo) and _finite(hi)):
        return ""
    k = 100.0 if pct else 1.0
    return f"{k * float(lo):.{digits}f}–{k * float(hi):.{digits}f}"


def cell_text(col: Column, row: dict) -> tuple[str, str]:
    """``(value, interval)`` texts of ``col`` in ``row`` (a dict of the table's data)."""
    v = row.get(col.key)
    if col.kind == "text":
        return ("–" if v is None or (isinstance(v, float) and v != v) else str(v)), ""
    if not _finite(v):
        return "–", ""
    if col.kind == "int":
        return f"{int(round(float(v))):,}", ""
    if col.kind == "pct":
        lo, hi = row.get(col.lo) if col.lo else None, row.get(col.hi) if col.hi else None
        d = _pct_digits(v, lo, hi)
        return fmt_pct(v, d), fmt_interval(lo, hi, d) if col.lo else ""
    if col.kind == "num":
        text = f"{float(v):.{col.digits}f}"
        if col.se and _finite(row.get(col.se)):
            return text, f"± {Z95 * float(row[col.se]):.{col.digits}f}"
        if col.lo and _finite(row.get(col.lo)) and _finite(row.get(col.hi)):
            return text, fmt_interval(row[col.lo], row[col.hi], col.digits, pct=False)
        return text, ""
    raise ValueError(f"column {col.key!r}: unknown kind {col.kind!r}")


def _headline_text(h: Headline) -> tuple[str, str]:
    if h.kind == "pct":
        d = _pct_digits(h.value, h.lo, h.hi)
        return fmt_pct(h.value, d), (fmt_interval(h.lo, h.hi, d) if h.lo is not None else "")
    if h.kind == "int":
        return f"{int(h.value):,}", ""
    if h.kind == "num":
        ci = (fmt_interval(h.lo, h.hi, h.digits, pct=False)
              if h.lo is not None and _finite(h.lo) else "")
        return f"{float(h.value):.{h.digits}f}", ci
    return str(h.value), ""
