"""Records in a database -> a ``Histogram``, aggregated where the data lives, through Ibis.

A warehouse (BigQuery, Snowflake, Spark, DuckDB, SQLite, ...) holds the event log; the simulation
needs only its histogram. The readers here build the same aggregate as ``ldpcore.data.ingest``
(per-user rules, numeric bins, latitude/longitude grids, and the report of every row left out)
as one Ibis expression, run it on the table's own backend, and fetch only the counts. DuckDB
through ``ldpcore.data.ingest`` stays the way to read files.

The query's rows are ``value, status, rows, count, users``: per kept value (``status = 'kept'``)
the rows holding it, the respondents that contribute it under the per-user rule (``count``) and
how many of them are the users' first choice (``users``); per reason a row was left out
(``null``, ``empty``, ``out_of_domain``, ``missing_user``) the rows, with up to five
out-of-domain values named. ``to_sql`` prints it for a dialect, for users who must paste it
(``SELECT value, count FROM (...) WHERE status = 'kept'`` is the value,count table).

The semantics are those of the DuckDB path, written out in SQL so that every engine computes the
same thing:

- values are compared after removing surrounding spaces only (SQL's ``TRIM(x, ' ')``; Ibis's
  ``strip()`` would also remove tabs and line breaks, which the DuckDB path keeps);
- a table has NULLs: a NULL value counts as null, an empty or blank text as empty (as in a
  Parquet file; a CSV file has no NULL, so there its empty fields count as empty), a NaN as
  null, an infinite number as outside the range;
- a table has no row order, so a per-user rule needs ``order_by``, the column(s) that order a
  user's rows (e.g. the event time): "first" is the row first in that order, "mode" breaks a
  tie by the value seen first, "distinct:K" keeps the first K values to appear; rows tied in
  ``order_by`` (and rows whose order is NULL, which come last) are ordered by their value, so
  every engine picks the same rows; ranks are 1-based (Ibis's ``row_number()`` starts at 0);
- bins are numpy.histogram's: equal bins over [lo, hi] with the edges of numpy.linspace
  (edge i = i * step + lo, step = (hi - lo) / bins), a value's bin corrected by one against
  them, the last bin closed on the right.

Ibis is an optional dependency (``pip install "ldpcore[sql]"``), imported on first use.
"""

from ldpcore.data.sql.query import categorical_query, file_table, numeric_query, points_query, to_sql
from ldpcore.data.sql.read import read_categorical, read_numeric, read_points

__all__ = [
    "read_categorical",
    "read_numeric",
    "read_points",
    "categorical_query",
    "numeric_query",
    "points_query",
    "to_sql",
    "file_table",
]
