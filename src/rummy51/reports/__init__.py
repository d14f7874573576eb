"""Statistical reports: run directories in, tables, figures, HTML and Markdown out.

Pure functions: they compute and never print (the command line ``rummy51 report``
writes the files). The pieces:

* ``load_run(path) -> Run``: a run directory read by the ``kind`` in its
  ``manifest.json`` ("openings": ``OpeningStudy.load``; "games": ``GameStudy.load``).
  A missing directory, a missing or damaged manifest, a kind this module does not
  know or a damaged run raise ``ReportError`` (a ``ValueError``) naming the path
  and what is wrong.
* ``build_report(runs, title=None) -> Report``: every table (``ReportTable``: the
  numbers as a pandas DataFrame plus how to show its columns) and every figure
  (``ReportFigure``: a ``matplotlib.figure.Figure`` drawn by the Agg canvas, never
  pyplot, with the plotted numbers as a DataFrame), grouped in ``Section`` s, with
  ``Headline`` numbers for the first screen. Several runs are shown side by side:
  one row (or one column) per run in the tables, and figures whose panels share
  their axes.
* ``opening_sections(runs)``, ``game_sections(runs)``: the sections of each kind.
* The ratings of the games sections are ``rummy51.ratings.bradley_terry`` (and
  ``plackett_luce``) of the run's records.
* ``render_html(report) -> str``: one self-contained page (PNG figures as base64
  data URIs, inline CSS, no script, no external file or font) that opens offline;
  ``render_markdown(report, assets_dir) -> str`` writes the figures as PNG files
  into ``assets_dir`` and returns Markdown that links them; ``write_tables(report,
  directory)`` writes every table and every figure's data as CSV.

Every number shown comes from the run directories: the openings tables are
``OpeningStudy.summary()``, ``value_distribution()``, ``by_turn()`` and
``overview()`` of the loaded runs; the games tables are computed from the
per-player-deal records. Probabilities carry 95 % Wilson intervals
(``rummy51.stats``), means ± 1.96 standard errors, ratings 95 % bootstrap intervals.
"""
from __future__ import annotations

from ._figures import figure_png
from ._model import Column, GAME_COLUMNS, Headline, Report, ReportError, ReportFigure, ReportTable, Run, Section, cell_text, fmt_interval, fmt_pct, game_records, load_run, load_runs
from .build import build_report, write_tables
from .games import game_sections
from .html import render_html
from .markdown import render_markdown
from .openings import opening_sections

__all__ = [
    "ReportError",
    "Run",
    "Column",
    "ReportTable",
    "ReportFigure",
    "Section",
    "Headline",
    "Report",
    "GAME_COLUMNS",
    "load_run",
    "load_runs",
    "build_report",
    "opening_sections",
    "game_sections",
    "game_records",
    "figure_png",
    "render_html",
    "render_markdown",
    "write_tables",
    "fmt_pct",
    "fmt_interval",
    "cell_text",
]
