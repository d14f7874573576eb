"""``render_markdown``: Markdown with the figures written as PNG files beside it.
"""
from __future__ import annotations

import os
from pathlib import Path

from ._figures import figure_png
from ._model import Report, ReportFigure, ReportTable, _headline_text, cell_text
from .html import row_dicts


# --------------------------------------------------------------------------- Markdown
def _md(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_table(t: ReportTable, tables_href: str | None) -> str:
    head = "| " + " | ".join(_md(c.header) for c in t.columns) + " |"
    align = "|" + "|".join(":--" if c.kind == "text" else "--:" for c in t.columns) + "|"
    rows = []
    for row in row_dicts(t.data):
        cells = []
        for c in t.columns:
            v, ci = cell_text(c, row)
            if c.key == "command" and v != "–":
                v = f"`{v}`"
            if ci:
                v += f" {ci}" if ci.startswith("±") else f" [{ci}]"
            cells.append(_md(v))
        rows.append("| " + " | ".join(cells) + " |")
    link = f" ([CSV]({tables_href.rstrip('/')}/{t.name}.csv))" if tables_href else ""
    out = [f"### {t.title}{link}", "", head, align, *rows]
    if t.caption:
        out += ["", f"*{t.caption}*"]
    return "\n".join(out)


def render_markdown(report: Report, assets_dir: str | os.PathLike[str], *, assets_href: str | None = None,
                    tables_href: str | None = None) -> str:
    """The report as Markdown: writes each figure as ``<assets_dir>/<name>.png`` and
    returns the text, which links them as ``<assets_href>/<name>.png`` (default: the
    name of ``assets_dir``, for a Markdown file written beside it)."""
    adir = Path(assets_dir)
    adir.mkdir(parents=True, exist_ok=True)
    href = (assets_href if assets_href is not None else adir.name).rstrip("/")
    out = [f"# {report.title}", "",
           f"rummy51 {report.version} report of {len(report.runs)} run "
           f"director{'y' if len(report.runs) == 1 else 'ies'}: "
           + ", ".join(f"`{r.name}` ({r.kind})" for r in report.runs)
           + ". Probabilities in percent with [95 % intervals]; means ± 1.96 standard errors.", ""]
    contents = dict(zip(report.runs_table.data.run, report.runs_table.data.contents, strict=True))
    for run in dict.fromkeys(h.run for h in report.headlines):
        out += [f"**{run}**: {contents.get(run, '')}", "", "| | | |", "|:--|--:|:--|"]
        for h in (h for h in report.headlines if h.run == run):
            v, ci = _headline_text(h)
            out.append(f"| {_md(h.label)} | **{_md(v)}**" + (f" [{_md(ci)}]" if ci else "")
                       + f" | {_md(h.note)} |")
        out.append("")
    for s in report.sections:
        out += [f"## {s.title}", "", s.intro, ""]
        for item in s.items:
            if isinstance(item, ReportFigure):
                (adir / f"{item.name}.png").write_bytes(figure_png(item.figure))
                out += [f"### {item.title}", "", f"![{item.title}]({href}/{item.name}.png)", "",
                        f"*{item.caption}*", ""]
            else:
                out += [_md_table(item, tables_href), ""]
    out += ["## Run directories", "", _md_table(report.runs_table, tables_href), ""]
    return "\n".join(out)
