"""Exports: PNG renderings of histograms, the estimate as CSV, the run record as JSON, and the paper-style
report table (Erlingsson et al. 2020, Table IV) as CSV, Markdown, LaTeX, a ZIP for a paper and one PNG.

images     an image on the original's grey scale, a histogram's column plot and thumbnail, the error map, PNG
estimates  the estimate CSV with every bin's standard error and 95% interval, and their summary
records    the run record as strict JSON; a run's files written into an output folder
table      the report table's rows and captions, as CSV and Markdown
latex      the report table as a LaTeX table environment
paper      the report table as a ZIP that compiles with pdflatex, and as one PNG
spreadsheet  CSV rows by the csv module, text that a spreadsheet would run as a formula made inert
view_records  the JSON record of every dashboard view (what its page downloads and its script prints)
reproduce  every view as a Python script and a Jupyter notebook (ldpcore.export.reproduce)
Every public name of the modules above the last two is importable from ldpcore.export, on first use (PEP 562):
importing one module of the package (records' to_json, say) does not import the others.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# public name -> the module that defines it
_API = {
    "CSV_ROWS_PER_CHUNK": "ldpcore.export.estimates",
    "INTERVAL_NOTE": "ldpcore.export.estimates",
    "estimate_csv": "ldpcore.export.estimates",
    "estimate_csv_chunks": "ldpcore.export.estimates",
    "std_errors": "ldpcore.export.estimates",
    "uncertainty": "ldpcore.export.estimates",
    "error_map": "ldpcore.export.images",
    "histogram_plot": "ldpcore.export.images",
    "png_bytes": "ldpcore.export.images",
    "render": "ldpcore.export.images",
    "thumbnail": "ldpcore.export.images",
    "to_gray": "ldpcore.export.images",
    "LATEX_DOCUMENT": "ldpcore.export.latex",
    "latex_text": "ldpcore.export.latex",
    "table_latex": "ldpcore.export.latex",
    "table_png": "ldpcore.export.paper",
    "table_zip": "ldpcore.export.paper",
    "output_folder": "ldpcore.export.records",
    "to_json": "ldpcore.export.records",
    "write_run": "ldpcore.export.records",
    "csv_text": "ldpcore.export.spreadsheet",
    "inert": "ldpcore.export.spreadsheet",
    "TableInfo": "ldpcore.export.table",
    "cell_caption": "ldpcore.export.table",
    "fmt": "ldpcore.export.table",
    "table_csv": "ldpcore.export.table",
    "table_markdown": "ldpcore.export.table",
    "table_rows": "ldpcore.export.table",
}
__all__ = [
    "CSV_ROWS_PER_CHUNK",
    "INTERVAL_NOTE",
    "LATEX_DOCUMENT",
    "TableInfo",
    "cell_caption",
    "csv_text",
    "error_map",
    "estimate_csv",
    "estimate_csv_chunks",
    "fmt",
    "histogram_plot",
    "inert",
    "latex_text",
    "output_folder",
    "png_bytes",
    "render",
    "std_errors",
    "table_csv",
    "table_latex",
    "table_markdown",
    "table_png",
    "table_rows",
    "table_zip",
    "thumbnail",
    "to_gray",
    "to_json",
    "uncertainty",
    "write_run",
]

if TYPE_CHECKING:
    from ldpcore.export.estimates import (
        CSV_ROWS_PER_CHUNK,
        INTERVAL_NOTE,
        estimate_csv,
        estimate_csv_chunks,
        std_errors,
        uncertainty,
    )
    from ldpcore.export.images import error_map, histogram_plot, png_bytes, render, thumbnail, to_gray
    from ldpcore.export.latex import LATEX_DOCUMENT, latex_text, table_latex
    from ldpcore.export.paper import table_png, table_zip
    from ldpcore.export.records import output_folder, to_json, write_run
    from ldpcore.export.spreadsheet import csv_text, inert
    from ldpcore.export.table import TableInfo, cell_caption, fmt, table_csv, table_markdown, table_rows


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use (PEP 562)."""
    if name not in _API:
        raise AttributeError(f"module 'ldpcore.export' has no attribute {name!r}")
    value = getattr(importlib.import_module(_API[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
