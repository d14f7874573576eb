"""``render_html``: one self-contained page (PNG figures as base64 data URIs, inline CSS,
no script, no external file or font) that opens offline.
"""
from __future__ import annotations

import base64
import html
from typing import TYPE_CHECKING, Any

from ._figures import figure_png
from ._model import Report, ReportFigure, ReportTable, _finite, _headline_text, cell_text

if TYPE_CHECKING:
    import pandas as pd

# --------------------------------------------------------------------------- HTML
_CSS = """
:root{--fg:#1f2430;--muted:#5b6472;--line:#e3e6eb;--accent:#1f5fa8;--panel:#f5f7fa}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:var(--fg);
 font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans","Liberation Sans",
 Arial,sans-serif}
main{max-width:1120px;margin:0 auto;padding:22px 32px 60px}
header{border-bottom:3px solid var(--accent);padding-bottom:10px;margin-bottom:16px}
h1{font-size:26px;margin:0 0 2px;letter-spacing:-.2px}
h2{font-size:21px;margin:26px 0 4px;padding-top:8px;border-top:1px solid var(--line)}
h3{font-size:15.5px;margin:16px 0 6px}
.sub{color:var(--muted);font-size:13.5px;margin:0}
section.group{margin:12px 0 4px}
.gname{font-size:13.5px;color:var(--muted);margin-bottom:5px}
.gname b{color:var(--fg);font-size:14.5px;margin-right:6px}
.cards{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:10px}
.card{background:var(--panel);border:1px solid var(--line);border-left:4px solid var(--accent);
 border-radius:6px;padding:7px 12px}
.card .label{font-size:12.5px;color:var(--muted);font-weight:600;line-height:1.3}
.card .value.small{font-size:19px}
.card .value{font-size:24px;font-weight:700;line-height:1.3;font-variant-numeric:tabular-nums}
.card .ci{font-size:12.5px;color:var(--muted);margin-left:6px;font-weight:400}
.card .note{font-size:12px;color:var(--muted);line-height:1.3}
nav.toc{font-size:13.5px;margin:14px 0 4px;display:flex;flex-wrap:wrap;gap:2px 14px}
nav.toc span{color:var(--muted)}
nav.toc a{color:var(--accent);text-decoration:none;white-space:nowrap}
@media (max-width:900px){.cards{grid-template-columns:repeat(2,minmax(0,1fr))}}
.intro{color:#3b4350;margin:4px 0 10px;max-width:900px}
figure{margin:8px 0 18px}
figure img{display:block;max-width:100%;height:auto;border:1px solid var(--line);border-radius:4px}
figcaption{font-size:13px;color:var(--muted);margin-top:4px}
.tablewrap{overflow-x:auto;margin:6px 0 16px}
table{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
caption{caption-side:bottom;text-align:left;font-size:12.5px;color:var(--muted);padding-top:5px}
th{background:var(--panel);font-weight:600;text-align:right;padding:5px 10px;
 border-bottom:2px solid #cfd5dc;white-space:nowrap}
td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th.t,td.t{text-align:left}
td.wrap{white-space:normal;max-width:360px}
.tok{white-space:nowrap}
td .ci{color:var(--muted);font-size:11.5px;margin-left:5px}
tr:hover td{background:#fafbfc}
table.runs td{font-size:12.5px}
code{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
footer{margin-top:40px;color:var(--muted);font-size:12.5px;border-top:1px solid var(--line);
 padding-top:8px}
a.csv{font-size:12px;color:var(--accent);margin-left:8px;font-weight:400}
"""


def _e(x: object) -> str:
    return html.escape(str(x), quote=True)


def row_dicts(df: pd.DataFrame) -> list[dict[str, Any]]:
    return df.to_dict("records")


def _html_table(t: ReportTable, tables_href: str | None, cls: str = "",
                heading: bool = True) -> str:
    head = "".join(f'<th class="{"t" if c.kind == "text" else "n"}">{_e(c.header)}</th>'
                   for c in t.columns)
    body = []
    for row in row_dicts(t.data):
        cells = []
        for c in t.columns:
            v, ci = cell_text(c, row)
            klass = "t" if c.kind == "text" else "n"
            if c.key == "command" or c.key == "contents":
                klass += " wrap"
                if c.key == "command" and v != "–":  # wrap between words, never at a '-'
                    v_html = "<code>" + " ".join(f'<span class="tok">{_e(w)}</span>'
                                                 for w in v.split(" ")) + "</code>"
                else:
                    v_html = _e(v)
            else:
                v_html = f'<span class="v">{_e(v)}</span>' + (f' <span class="ci">{_e(ci)}</span>'
                                                             if ci else "")
            raw = row.get(c.key)
            dv = ""
            if c.kind != "text" and _finite(raw):
                dv = f' data-value="{float(raw)!r}"'
            cells.append(f'<td class="{klass}" data-col="{_e(c.key)}"{dv}>{v_html}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    link = (f' <a class="csv" href="{_e(tables_href.rstrip("/") + "/" + t.name + ".csv")}">CSV</a>'
            if tables_href else "")
    cap = f"<caption>{_e(t.caption)}</caption>" if t.caption else ""
    head_html = f'<h3 id="t-{_e(t.name)}">{_e(t.title)}{link}</h3>' if heading else link
    return (f'{head_html}<div class="tablewrap"><table id="table-{_e(t.name)}" class="{cls}">{cap}'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def _html_figure(f: ReportFigure, png: bytes) -> str:
    b64 = base64.b64encode(png).decode("ascii")
    w, h = _png_size(png)
    return (f'<figure id="f-{_e(f.name)}"><h3>{_e(f.title)}</h3>'
            f'<img src="data:image/png;base64,{b64}" width="{w}" height="{h}" alt="{_e(f.title)}">'
            f"<figcaption>{_e(f.caption)}</figcaption></figure>")


def _png_size(png: bytes) -> tuple[int, int]:
    import struct

    return struct.unpack(">II", png[16:24])


def render_html(report: Report, *, tables_href: str | None = None) -> str:
    """The report as one self-contained HTML page: figures as base64 PNG data URIs,
    inline CSS, no script and nothing fetched. ``tables_href``: where the CSV tables
    are, relative to the page (adds a CSV link to each table)."""
    parts = [f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
             f'<meta name="viewport" content="width=device-width, initial-scale=1">'
             f'<link rel="icon" href="data:,"><title>{_e(report.title)}</title>'
             f"<style>{_CSS}</style></head><body><main>"]
    kinds = ", ".join(f"{r.name} ({r.kind})" for r in report.runs)
    dirs = "directory" if len(report.runs) == 1 else "directories"
    parts.append(f"<header><h1>{_e(report.title)}</h1><p class=\"sub\">rummy51 "
                 f"{_e(report.version)} report of {len(report.runs)} run {dirs}: {_e(kinds)}. "
                 "Probabilities with 95 % intervals.</p></header>")
    contents = dict(zip(report.runs_table.data.run, report.runs_table.data.contents, strict=True))
    kind_of = {r.name: r.kind for r in report.runs}
    for run in dict.fromkeys(h.run for h in report.headlines):
        cards = []
        for h in (h for h in report.headlines if h.run == run):
            v, ci = _headline_text(h)
            cards.append(f'<div class="card"><div class="label">{_e(h.label)}</div>'
                         f'<div class="value{" small" if h.kind == "text" else ""}">{_e(v)}'
                         + (f'<span class="ci">[{_e(ci)}]</span>' if ci else "")
                         + f'</div><div class="note">{_e(h.note)}</div></div>')
        what = f"{kind_of.get(run, '')} run: {contents.get(run, '')}" if run in kind_of else ""
        parts.append(f'<section class="group"><div class="gname"><b>{_e(run)}</b> '
                     f'<span>{_e(what)}</span></div><div class="cards">{"".join(cards)}</div>'
                     f"</section>")
    toc = " ".join(f'<a href="#{_e(s.anchor)}">{_e(s.title)}</a>' for s in report.sections)
    parts.append(f'<nav class="toc"><span>Contents:</span> {toc} '
                 f'<a href="#runs">Runs</a></nav>')
    for s in report.sections:
        parts.append(f'<section id="{_e(s.anchor)}"><h2>{_e(s.title)}</h2>'
                     f'<p class="intro">{_e(s.intro)}</p>')
        for item in s.items:
            if isinstance(item, ReportFigure):
                parts.append(_html_figure(item, figure_png(item.figure)))
            else:
                parts.append(_html_table(item, tables_href))
        parts.append("</section>")
    parts.append('<section id="runs"><h2>Run directories</h2>'
                 + _html_table(report.runs_table, tables_href, "runs", heading=False)
                 + "</section>")
    parts.append("<footer>Built by <code>rummy51 report</code> from the run directories' files "
                 "(manifest.json and results); every number above is computed from them."
                 "</footer></main></body></html>")
    return "\n".join(parts) + "\n"
