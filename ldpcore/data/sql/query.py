"""The Ibis expression of ldpcore.data.sql's readers and its SQL in a dialect (see the package docstring)."""

from __future__ import annotations

import functools
import math
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ldpcore.data.images import MAX_PIXELS
from ldpcore.data.ingest import MAX_DOMAIN, check_domain, parse_bbox, parse_range, user_rule
from ldpcore.data.ingest.binning import edges
from ldpcore.errors import InputError, check_whole, require

if TYPE_CHECKING:
    import ibis.expr.types as ir

KEPT, NULL, EMPTY, OUT, NO_USER = "kept", "null", "empty", "out_of_domain", "missing_user"
STATUSES = (KEPT, NULL, EMPTY, OUT, NO_USER)
EXAMPLES = 5  # out-of-domain values named in the report
_LARGEST = sys.float_info.max  # x BETWEEN -_LARGEST AND _LARGEST: finite (NaN compares false or above all)


def _ibis():
    try:
        import ibis
    except ImportError:
        raise InputError('reading a database table needs Ibis: pip install "ldpcore[sql]".') from None
    return ibis


@functools.cache
def _trim_udf():
    """SQL's TRIM(x, ' '): surrounding spaces only, in every dialect (sqlglot writes Spark's TRIM(' ' FROM x))."""
    ibis = _ibis()

    @ibis.udf.scalar.builtin(name="trim")
    def trim(value: str, characters: str) -> str:  # type: ignore[empty-body]
        """The builtin TRIM with its characters."""

    return trim


def _trim(value: ir.StringValue) -> ir.StringValue:
    return _trim_udf()(value, " ")


@functools.cache
def _has_nan(dialect: str) -> bool:
    """Whether the dialect has NaN (SQLite stores a NaN as NULL and has no isnan)."""
    ibis = _ibis()
    from ibis.common.exceptions import OperationNotDefinedError

    try:
        _to_sql(ibis.table({"x": "float64"}, name="t").select(n=ibis._.x.isnan()), dialect)
    except OperationNotDefinedError:
        return False
    return True


def _dialect(table, dialect: str | None) -> str:
    """The dialect the query is for: as given, else the table's backend's (an unbound table: DuckDB's)."""
    if dialect is not None:
        return dialect.strip().lower()
    try:
        return str(table.get_backend().name)
    except Exception:  # an unbound table (ibis.table(schema, name=...)), compiled with to_sql
        return "duckdb"


# --- the query --------------------------------------------------------------------------


def _table(source, con) -> tuple[Any, str]:
    """(Ibis table, its name) from an Ibis table, or a table name in con."""
    ibis = _ibis()
    if isinstance(source, str):
        require(con is not None, f"to read the table {source!r}, give its connection as con.")
        try:
            return con.table(source), source
        except Exception as exc:
            raise InputError(f"no table {source!r} in the connection ({type(exc).__name__}).") from None
    require(
        isinstance(source, ibis.Table), f"source must be an Ibis table or a table name (got {type(source).__name__})."
    )
    return source, str(getattr(source.op(), "name", None) or "table")


def _column(table, name: str, column, what: str = "column"):
    require(isinstance(column, str) and column != "", f"the {what} must be a column name (got {column!r}).")
    require(column in table.columns, f"{name} has no {what} {column!r}; its columns are {', '.join(table.columns)}.")
    return table[column]


def _text(table, name: str, column: str) -> tuple[Any, Any]:
    """(a column as text without surrounding spaces, its status if missing: null or empty)."""
    ibis = _ibis()
    ref = _column(table, name, column)
    dtype = ref.type()
    require(not dtype.is_nested(), f"{name}: column {column!r} holds {dtype} values, not single values.")
    if dtype.is_string():
        text = _trim(ref)
        return text, ibis.cases((ref.isnull(), NULL), (text == "", EMPTY), else_=ibis.null("string"))
    return _trim(ref.cast("string")), ibis.cases((ref.isnull(), NULL), else_=ibis.null("string"))


def _number(table, name: str, column: str, dialect: str, what: str = "column") -> tuple[Any, Any]:
    """(a numeric column as float64, its status if missing: null for NULL and NaN)."""
    ibis = _ibis()
    ref = _column(table, name, column, what)
    dtype = ref.type()
    require(
        dtype.is_numeric() and not dtype.is_boolean(),
        f"{name}: column {column!r} holds {dtype} values, not numbers; cast it in the database "
        f"(e.g. table.mutate({column}=table[{column!r}].cast('float64'))).",
    )
    x = ref.cast("float64")
    missing = x.isnull() | x.isnan() if _has_nan(dialect) else x.isnull()
    return x, ibis.cases((missing, NULL), else_=ibis.null("string"))


def _rows(table, name: str, user_column: str | None, order_by: str | None, **columns) -> Any:
    """The table's columns that the query reads: columns, and under a per-user rule u (the user id
    as trimmed text) and o (the column that orders a user's rows)."""
    if user_column is not None:
        require(
            order_by is not None,
            "a per-user rule needs order_by, the column that orders each user's rows (e.g. the event time): "
            "a table has no row order.",
        )
        columns["u"] = _trim(_column(table, name, user_column, "user column").cast("string"))
        columns["o"] = _column(table, name, order_by, "order_by column")
    return table.select(**columns)


def _rank(group, keys) -> Any:
    """1-based rank within each group (Ibis's row_number() counts from 0)."""
    return _ibis().row_number().over(group_by=group, order_by=keys) + 1


def _query(rows, rule, domain) -> ir.Table:
    """value, status, rows, count, users (the module docstring) from rows with value, status (NULL:
    kept so far) and, under a per-user rule, u and o."""
    ibis = _ibis()
    vtype = rows.value.type()
    if rule is not None:
        no_user = ibis.cases((rows.u.isnull() | (rows.u == ""), NO_USER), else_=ibis.null("string"))
        rows = rows.mutate(status=rows.status.coalesce(no_user))
    rows = rows.mutate(status=rows.status.fill_null(KEPT))
    if domain is not None:
        rows = rows.mutate(
            status=ibis.cases(((rows.status == KEPT) & ~rows.value.isin(domain), OUT), else_=rows.status)
        )
    named = rows.status.isin([KEPT, OUT])  # values are kept for these only (out of domain: as examples)
    rows = rows.mutate(value=ibis.cases((named, rows.value), else_=ibis.null(vtype)))

    by_value = rows.group_by(["value", "status"]).aggregate(rows=ibis._.count())
    if domain is not None:  # name only the most frequent out-of-domain values
        rank = _rank(by_value.status, [ibis.desc(by_value.rows), by_value.value])
        unnamed = (by_value.status == OUT) & (rank > EXAMPLES)
        by_value = (
            by_value.mutate(value=ibis.cases((unnamed, ibis.null(vtype)), else_=by_value.value))
            .group_by(["value", "status"])
            .aggregate(rows=ibis._.rows.sum())
        )
    if rule is None:
        return by_value.mutate(
            count=ibis.cases((by_value.status == KEPT, by_value.rows), else_=ibis.null("int64")),
            users=ibis.null("int64"),
        )

    kind, k = rule
    kept = rows.filter(rows.status == KEPT)
    if kind == "first":
        chosen = kept.select("value", k=_rank(kept.u, [kept.o.isnull(), kept.o, kept.value]))
        chosen = chosen.filter(chosen.k == 1)
    else:  # per user and value: its rows and its first row in order_by (NULL if every order is NULL)
        per_value = kept.group_by(["u", "value"]).aggregate(c=ibis._.count(), f=ibis._.o.min())
        keys = [per_value.f.isnull(), per_value.f, per_value.value]
        if kind == "mode":
            keys.insert(0, ibis.desc(per_value.c))
        ranked = per_value.select("value", k=_rank(per_value.u, keys))
        chosen = ranked.filter(ranked.k <= (k if kind == "distinct" else 1))
    counts = chosen.group_by("value").aggregate(count=ibis._.count(), users=(ibis._.k == 1).cast("int64").sum())
    joined = by_value.left_join(counts, [by_value.value == counts.value, by_value.status == KEPT])
    kept_only = by_value.status == KEPT
    return joined.select(
        value=by_value.value,
        status=by_value.status,
        rows=by_value.rows,
        count=ibis.cases((kept_only, counts["count"].fill_null(0)), else_=ibis.null("int64")),
        users=ibis.cases((kept_only, counts.users.fill_null(0)), else_=ibis.null("int64")),
    )


def _binned(rows, axes) -> Any:
    """rows with b0, b1, ...: each axis's numpy.histogram bin of its x column where the row is kept.

    axes: (x column, lo, hi, bins) per axis. numpy's way (numpy/lib/_histograms_impl.py): the scaled
    guess, then one down if x is below its bin's left edge, one up if at or past its right edge
    (never past the last bin), against the edges of numpy.linspace(lo, hi, bins + 1), which are
    i * step + lo (checked by _linspace_edges). One stage per step."""
    ibis = _ibis()
    kept = rows.status.isnull()

    def edge(i, lo, step):
        return i.cast("float64") * step + lo

    rows = rows.mutate(
        **{
            f"g{j}": ibis.cases(
                (kept, ibis.least(((rows[x] - lo) / (hi - lo) * n).floor(), n - 1)), else_=ibis.null("int64")
            )
            for j, (x, lo, hi, n) in enumerate(axes)
        }
    )
    rows = rows.mutate(
        **{
            f"d{j}": rows[f"g{j}"] - (rows[x] < edge(rows[f"g{j}"], lo, (hi - lo) / n)).cast("int64")
            for j, (x, lo, hi, n) in enumerate(axes)
        }
    )
    return rows.mutate(
        **{
            f"b{j}": rows[f"d{j}"]
            + ((rows[x] >= edge(rows[f"d{j}"] + 1, lo, (hi - lo) / n)) & (rows[f"d{j}"] != n - 1)).cast("int64")
            for j, (x, lo, hi, n) in enumerate(axes)
        }
    )


def _linspace_edges(lo: float, hi: float, nbins: int, what: str) -> np.ndarray:
    """numpy.linspace's edges (as ingest checks them), and a check that they are the i * step + lo
    that the query computes."""
    cuts = edges(lo, hi, nbins, what)
    require(
        bool(np.array_equal(np.arange(nbins) * ((hi - lo) / nbins) + lo, cuts[:-1])),
        f"{nbins:,} bins are too many for the range [{lo:g}, {hi:g}] of {what}.",
    )
    return cuts


def _keep(rows) -> Any:
    """rows with value and status, and u and o if present."""
    return rows.select("value", "status", *[c for c in ("u", "o") if c in rows.columns])


def categorical_query(
    source,
    column: str,
    *,
    user_column: str | None = None,
    per_user: str | None = None,
    order_by: str | None = None,
    domain=None,
    max_domain: int = MAX_DOMAIN,
    con=None,
) -> ir.Table:
    """The query of read_categorical (value, status, rows, count, users), to run or to print with
    to_sql."""
    rule, _ = user_rule(user_column, per_user)
    domain = check_domain(domain, check_whole(max_domain, 1, "max_domain"))
    t, name = _table(source, con)
    value, missing = _text(t, name, column)
    return _query(_rows(t, name, user_column, order_by, value=value, status=missing), rule, domain)


def numeric_query(
    source,
    column: str,
    *,
    bins: int,
    value_range,
    user_column: str | None = None,
    per_user: str | None = None,
    order_by: str | None = None,
    max_domain: int = MAX_DOMAIN,
    con=None,
    dialect: str | None = None,
) -> ir.Table:
    """The query of read_numeric for a fixed range (lo, hi) and number of bins (value = the bin,
    from 0). dialect: the SQL it is for (default: the table's backend's)."""
    ibis = _ibis()
    rule, _ = user_rule(user_column, per_user)
    nbins = check_whole(bins, 1, "bins")
    cap = check_whole(max_domain, 1, "max_domain")
    require(nbins <= cap, f"{nbins:,} bins exceed the limit of {cap:,} (max_domain).")
    lo, hi = parse_range(value_range, f"column {column!r}")
    _linspace_edges(lo, hi, nbins, f"column {column!r}")
    t, name = _table(source, con)
    x, missing = _number(t, name, column, _dialect(t, dialect))
    rows = _rows(t, name, user_column, order_by, x=x, status=missing)
    rows = rows.mutate(status=rows.status.coalesce(ibis.cases((~rows.x.between(lo, hi), OUT))))
    rows = _binned(rows, [("x", lo, hi, nbins)])
    return _query(_keep(rows.mutate(value=rows.b0)), rule, None)


def points_query(
    source,
    lat: str,
    lon: str,
    *,
    bbox,
    width: int = 256,
    height: int | None = None,
    user_column: str | None = None,
    per_user: str | None = None,
    order_by: str | None = None,
    con=None,
    dialect: str | None = None,
) -> ir.Table:
    """The query of read_points for a fixed box (value = the cell, row-major from the north-west
    corner, as read_points' image). dialect as in numeric_query."""
    ibis = _ibis()
    rule, _ = user_rule(user_column, per_user)
    west, south, east, north = parse_bbox(bbox)
    width, height = _grid(width, height, (west, south, east, north))
    _linspace_edges(south, north, height, "latitude")
    _linspace_edges(west, east, width, "longitude")
    t, name = _table(source, con)
    y, missing_y = _number(t, name, lat, _dialect(t, dialect), "latitude column")
    x, missing_x = _number(t, name, lon, _dialect(t, dialect), "longitude column")
    rows = _rows(t, name, user_column, order_by, y=y, x=x, status=missing_y.coalesce(missing_x))
    outside = ~(rows.y.between(south, north) & rows.x.between(west, east))
    rows = rows.mutate(status=rows.status.coalesce(ibis.cases((outside, OUT))))
    rows = _binned(rows, [("y", south, north, height), ("x", west, east, width)])
    return _query(_keep(rows.mutate(value=(height - 1 - rows.b0) * width + rows.b1)), rule, None)


def _grid(width, height, box) -> tuple[int, int]:
    """(width, height) of the grid; height by default so that cells are about square on the ground."""
    west, south, east, north = box
    width = check_whole(width, 1, "width (grid cells)")
    if height is None:
        ground = (east - west) * math.cos(math.radians((south + north) / 2))
        height = max(1, round(width * (north - south) / ground)) if ground > 0 else width
    height = check_whole(height, 1, "height (grid cells)")
    require(
        width * height <= MAX_PIXELS,
        f"a {width} x {height} grid has more than {MAX_PIXELS:,} cells; choose a smaller width.",
    )
    return width, height


@contextmanager
def _spark_options(dialect: str):
    """Ibis's Spark compiler reads options.pyspark, which only its backend (that is, pyspark) sets:
    set its default (NaN is not NULL) while compiling without pyspark."""
    ibis = _ibis()
    if dialect not in ("pyspark", "databricks") or ibis.options.pyspark is not None:
        yield
        return
    from ibis.config import Config

    class Spark(Config):
        treat_nan_as_null: bool = False

    ibis.options.pyspark = Spark()
    try:
        yield
    finally:
        ibis.options.pyspark = None


def _to_sql(expr, dialect: str) -> str:
    ibis = _ibis()
    with _spark_options(dialect):
        return str(ibis.to_sql(expr, dialect=dialect))


def to_sql(query: ir.Table, dialect: str) -> str:
    """The query in a dialect's SQL (bigquery, snowflake, pyspark, databricks, duckdb, sqlite, postgres, ...),
    to paste where the data lives; its rows with status 'kept' are the value,count table."""
    require(isinstance(dialect, str) and dialect.strip() != "", f"the dialect must be a name (got {dialect!r}).")
    try:
        return _to_sql(query, dialect.strip().lower())
    except InputError:
        raise
    except Exception as exc:
        raise InputError(
            f"the query cannot be written in the dialect {dialect!r} ({type(exc).__name__}: {exc})."
        ) from None


def file_table(path, *, name: str | None = None, delimiter: str | None = None) -> ir.Table:
    """An unbound Ibis table named name (default: the file's stem) with the columns and types that DuckDB
    finds in a CSV, TSV or Parquet file (a CSV's header names its columns): the warehouse table of the same
    records, for the queries above and to_sql (``ldpcore histogram --sql DIALECT``)."""
    ibis = _ibis()
    path = Path(path)
    require(path.is_file(), f"no such file: {path}.")
    with open(path, "rb") as fh:
        parquet = fh.read(4) == b"PAR1"
    tab = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    con = ibis.duckdb.connect()
    try:
        found = con.read_parquet(path) if parquet else con.read_csv(path, delim=delimiter or tab, header=True)
        schema = found.schema()
    except Exception as exc:
        raise InputError(f"{path.name}: its columns could not be read ({type(exc).__name__}).") from None
    finally:
        con.disconnect()
    return ibis.table(schema, name=name or path.stem)


def _finite(x):
    """x is a finite number (NaN compares false, or above every number in DuckDB and Spark)."""
    return x.between(-_LARGEST, _LARGEST)
