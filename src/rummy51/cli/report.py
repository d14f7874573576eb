"""``rummy51 report``: run directories in, one HTML page (or Markdown and PNGs) out.
"""
from __future__ import annotations

import argparse

from ._common import EXIT_OK


# --------------------------------------------------------------------------- report
def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "report",
        help="an HTML (or Markdown) report with plots of run directories",
        description="Turn run directories (rummy51 simulate openings/games --out DIR) into one "
                    "self-contained HTML page with the tables and plots (or Markdown plus a "
                    "folder of PNG files). Several directories are shown side by side. The "
                    "tables are also written as CSV files into OUT_tables/ beside OUT (OUT "
                    "without its suffix, plus _tables); Markdown figures go to OUT_files/.",
        epilog="example: rummy51 report runs/openings-10M runs/games-100k -o report.html",
    )
    p.add_argument("runs", nargs="+", metavar="RUN_DIR",
                   help="run directories (kind 'openings' or 'games', read from manifest.json)")
    p.add_argument("-o", "--out", required=True, metavar="OUT",
                   help="the report file to write (report.html, report.md)")
    p.add_argument("--format", choices=("html", "md"), default=None,
                   help="html (default) or md; default md when OUT ends in .md")
    p.add_argument("--title", default=None, help="the report's title (default: from the runs)")
    p.set_defaults(handler=_cmd_report)


def _cmd_report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..reports import build_report, render_html, render_markdown, write_tables

    out = Path(args.out)
    suffix = out.suffix.lower()
    if args.format is None and suffix not in ("", ".html", ".htm", ".md", ".markdown"):
        raise ValueError(f"-o {out}: a report is HTML (.html) or Markdown (.md), not {suffix}; "
                         "give a .html or .md name (or --format)")
    fmt = args.format or ("md" if suffix in (".md", ".markdown") else "html")
    if out.is_dir():
        raise ValueError(f"-o {out} is a directory: give a file name, like {out / ('report.' + fmt)}")
    report = build_report(args.runs, title=args.title)
    stem = out.with_suffix("") if out.suffix else out
    tables = stem.with_name(stem.name + "_tables")
    assets = stem.with_name(stem.name + "_files")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        written = write_tables(report, tables)
        if fmt == "html":
            text = render_html(report, tables_href=tables.name)
        else:
            text = render_markdown(report, assets, tables_href=tables.name)
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise ValueError(f"cannot write the report: {e.filename or out}: "
                         f"{e.strerror or e}") from None
    figures = sum(1 for _ in report.figures())
    where = f"; figures in {assets}/" if fmt == "md" else ""
    size = out.stat().st_size
    size_text = f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{max(1, round(size / 1e3))} kB"
    print(f"wrote {out} ({fmt}, {figures} figure{'s' if figures != 1 else ''}, {size_text}); "
          f"{len(written)} CSV tables in {tables}/{where}")
    return EXIT_OK
