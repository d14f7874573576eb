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
* ``bradley_terry(records)``: Bradley-Terry ratings of the bots of a game run on the
  Elo scale, fitted by the MM algorithm, with bootstrap intervals over deals.
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

>>> import pandas as pd
>>> rec = pd.DataFrame({"deal": [0, 0, 1, 1, 2, 2], "bot": ["a", "b"] * 3,
...                     "went_out": [True, False, True, False, False, True],
...                     "draw": [False] * 6})
>>> bt = bradley_terry(rec, bootstrap=50, seed=1)
>>> list(bt.bot), bool(bt.rating.iloc[0] > 1500 > bt.rating.iloc[1])
(['a', 'b'], True)
"""
from __future__ import annotations

from ._figures import figure_png
from ._model import Column, GAME_COLUMNS, Headline, Report, ReportError, ReportFigure, ReportTable, Run, Section, cell_text, fmt_interval, fmt_pct, game_records, load_run, load_runs
from .build import build_report, write_tables
from .games import game_sections
from .html import render_html
from .markdown import render_markdown
from .openings import opening_sections
from .ratings import bradley_terry, pairwise_wins

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
    "pairwise_wins",
    "bradley_terry",
    "figure_png",
    "render_html",
    "render_markdown",
    "write_tables",
    "fmt_pct",
    "fmt_interval",
    "cell_text",
]
