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
Every public name of the modules above the last two is importable from ldpcore.export.
"""

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
