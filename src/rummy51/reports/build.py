"""``build_report``: every section of every run, and the headline numbers; ``write_tables``:
every table and every figure's data as CSV.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterable, Optional, Sequence


from ._model import Column, Headline, Report, ReportTable, Run, load_runs
from .carousel import carousel_contents, carousel_headlines, carousel_sections
from .games import game_headlines, game_sections
from .openings import opening_headlines, opening_sections


# --------------------------------------------------------------------------- the report
def _runs_table(runs: Sequence[Run]) -> ReportTable:
    import pandas as pd

    rows = []
    for r in runs:
        m = r.manifest
        seed = m.get("seed")
        seed = seed.get("entropy") if isinstance(seed, dict) else seed
        if r.kind == "openings":
            st = r.study
            parts = []
            if st.hands:
                parts.append(f"{int(st.deals_done.sum()):,} deals")
            if st.players and st.turn_deals:
                parts.append(f"by turn: {st.turn_deals:,} deals × "
                             f"{'/'.join(map(str, st.players))} players")
            if len(st.labels) > 1:
                parts.append(f"{len(st.labels)} configurations: {', '.join(st.labels)}")
            else:
                parts.append(f"rules: {st.labels[0]}")
            what = "; ".join(parts)
        elif r.kind == "carousel":
            what = carousel_contents(r.study)
        else:
            from ..rules import rules_label

            st = r.study
            what = (f"{st.deals_done:,} deals, {st.players} players: {', '.join(st.bots)}; "
                    f"rules: {rules_label(st.rules)}")
        rows.append({"run": r.name, "kind": r.kind, "path": str(r.path), "contents": what,
                     "seed": "" if seed is None else str(seed),
                     "created": str(m.get("created", ""))[:19].replace("T", " "),
                     "command": m.get("command") or ""})
    cols = (Column("run", "run"), Column("kind", "kind"), Column("contents", "contents"),
            Column("seed", "seed"), Column("created", "created (UTC)"),
            Column("command", "command"))
    return ReportTable("runs", "Run directories", pd.DataFrame(rows), cols)


def build_report(runs: Iterable, title: Optional[str] = None, *, bootstrap: int = 200,
                 seed: int = 2026) -> Report:
    """The report of ``runs`` (run directories, or ``Run`` s from ``load_run``):
    headlines, the table of runs, the openings sections, then the games sections.
    ``bootstrap`` and ``seed`` set the rating intervals (``bradley_terry``)."""
    from .._version import __version__

    runs = load_runs(runs)
    sections = opening_sections(runs)
    gsec = game_sections(runs, bootstrap=bootstrap, seed=seed)
    sections += gsec
    csec = carousel_sections(runs, bootstrap=bootstrap, seed=seed)
    sections += csec
    heads: list[Headline] = []
    for r in runs:
        if r.kind == "openings":
            hs = opening_headlines(r)
        elif r.kind == "carousel":
            crt = next((i.data for s in csec for i in s.items
                        if isinstance(i, ReportTable) and i.name == "carousel_ratings"), None)
            crt = None if crt is None else crt[crt.run == r.name].reset_index(drop=True)
            hs = carousel_headlines(r, crt if crt is not None and len(crt) else None)
        else:
            rt = next(i for s in gsec for i in s.items
                      if isinstance(i, ReportTable) and i.name == "games_ratings").data
            hs = game_headlines(r, rt[rt.run == r.name].reset_index(drop=True))
        heads += [dataclasses.replace(h, run=r.name) for h in hs]
    if title is None:
        kinds = {r.kind for r in runs}
        title = ("Opening study" if kinds == {"openings"} else "Game study" if kinds == {"games"}
                 else "Carousel games" if kinds == {"carousel"}
                 else "Opening and game studies") + f": {', '.join(r.name for r in runs)}"
    return Report(title=title, runs=runs, runs_table=_runs_table(runs), headlines=tuple(heads),
                  sections=tuple(sections), version=__version__)


# --------------------------------------------------------------------------- CSV
def write_tables(report: Report, directory) -> list[Path]:
    """Write every table (``<name>.csv``) and every figure's data (``fig_<name>.csv``)
    into ``directory`` (created if needed); returns the paths written."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for t in report.tables():
        p = d / f"{t.name}.csv"
        t.data.to_csv(p, index=False)
        out.append(p)
    for f in report.figures():
        if f.data is not None:
            p = d / f"fig_{f.name}.csv"
            f.data.to_csv(p, index=False)
            out.append(p)
    return out
