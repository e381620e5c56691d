"""Raw records -> a ``Histogram``, aggregated by DuckDB, an embedded analytical database.

A practitioner's data is a log of records (CSV, TSV or Parquet, one row per respondent
or per event), often larger than memory. The simulation needs only the histogram, so
DuckDB scans the file in a private database with a memory limit (larger aggregates spill
to a temporary folder) and only the counts come back to Python: the file is never loaded
into Python's memory. Every row is accounted for in an ``IngestReport``: NULLs, empty
values and values outside a declared domain are counted and reported, never dropped
silently (rows = kept + nulls + empty + out_of_domain + missing_user).

Readers (each returns ``(Histogram, IngestReport)``, except read_table):
    read_categorical  a column of categories -> counts per category, labels kept
    read_numeric      a numeric column -> a binned histogram over a stated range
    read_points       latitude/longitude columns -> a 2-D density grid (an image-shaped
                      Histogram that flows through the image path)
    read_counts       an already-aggregated value,count table (what write_counts writes
                      and a cluster's GROUP BY produces, docs/your_data.md)
    read_table        numeric and categorical columns -> the Numeric page's NumericTable
and write_counts writes a Histogram as value,count (the ``histogram --out`` file); columns
lists a file's columns (what a user chooses from) and point_columns finds latitude/longitude;
load_sample reads the bundled samples (SAMPLES) with their reader.

Values are compared after removing surrounding spaces; a CSV has no NULL, so an empty
CSV field counts as empty.

rules       the per-user rules with their privacy meaning, a declared domain, range and box,
            the order of labels, the latitude/longitude column names (no DuckDB)
report      the status of a row, IngestReport, and the notes and messages a user reads
input_file  one file opened in a private DuckDB database: format, columns, SQL per column
tally       the aggregation per (value, status), reduced per user
binning     numeric columns in bins as numpy.histogram makes them
readers     read_categorical, read_numeric, read_points, read_counts, read_table, columns, write_counts
samples     the bundled samples (SAMPLES, load_sample)
rules and report hold what any other reader of records reuses to give the same rules, reports and
notes (the row statuses KEPT, NULL, ... that IngestReport.from_status counts are report's); the readers,
the report, the rules and the note builders are importable from ldpcore.data.ingest.
"""

from ldpcore.data.ingest.binning import BIN_RULES
from ldpcore.data.ingest.input_file import MEMORY_LIMIT
from ldpcore.data.ingest.readers import (
    ROBUST_MARGIN,
    ROBUST_QUANTILE,
    columns,
    read_categorical,
    read_counts,
    read_numeric,
    read_points,
    read_table,
    robust_box,
    write_counts,
)
from ldpcore.data.ingest.report import (
    IngestReport,
    inferred_box_note,
    inferred_range_note,
    missing_note,
    no_value_error,
    report_notes,
    rows_text,
)
from ldpcore.data.ingest.rules import (
    LAT_NAMES,
    LON_NAMES,
    MAX_DOMAIN,
    ONE_ROW,
    Rule,
    check_domain,
    natural_order,
    parse_bbox,
    parse_range,
    parse_rule,
    point_columns,
    user_rule,
)
from ldpcore.data.ingest.samples import SAMPLES, Sample, load_sample

__all__ = [
    "ROBUST_MARGIN",
    "ROBUST_QUANTILE",
    "robust_box",
    "BIN_RULES",
    "LAT_NAMES",
    "LON_NAMES",
    "MAX_DOMAIN",
    "MEMORY_LIMIT",
    "ONE_ROW",
    "SAMPLES",
    "IngestReport",
    "Rule",
    "Sample",
    "check_domain",
    "columns",
    "inferred_box_note",
    "inferred_range_note",
    "load_sample",
    "missing_note",
    "natural_order",
    "no_value_error",
    "parse_bbox",
    "parse_range",
    "parse_rule",
    "point_columns",
    "read_categorical",
    "read_counts",
    "read_numeric",
    "read_points",
    "read_table",
    "report_notes",
    "rows_text",
    "user_rule",
    "write_counts",
]
