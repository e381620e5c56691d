"""ldpcore.data.sql's readers: run the query on the table's backend, fetch only the counts, and build the
Histogram and IngestReport that ldpcore.data.ingest builds for the same rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ldpcore.data.histogram import Histogram
from ldpcore.data.images import MAX_PIXELS
from ldpcore.data.ingest import (
    LAT_NAMES,
    LON_NAMES,
    MAX_DOMAIN,
    ROBUST_MARGIN,
    ROBUST_QUANTILE,
    IngestReport,
    check_domain,
    inferred_box_note,
    inferred_range_note,
    natural_order,
    no_value_error,
    parse_bbox,
    parse_range,
    report,
    report_notes,
    robust_box,
    user_rule,
)
from ldpcore.data.ingest.binning import bin_count
from ldpcore.data.sql.query import (
    EMPTY,
    EXAMPLES,
    KEPT,
    NO_USER,
    NULL,
    OUT,
    STATUSES,
    _column,
    _dialect,
    _finite,
    _grid,
    _ibis,
    _linspace_edges,
    _number,
    _table,
    categorical_query,
    numeric_query,
    points_query,
)
from ldpcore.errors import check_whole, require

if TYPE_CHECKING:
    import ibis.expr.types as ir

# --- running the query ------------------------------------------------------------------


@dataclass(frozen=True)
class _Counts:
    status_rows: dict[str, int]  # status -> rows
    values: list  # kept values that some respondent contributes ...
    counts: list[int]  # ... and their counts under the rule
    distinct: int  # kept values (before the rule)
    users: int | None
    examples: tuple[str, ...]

    @property
    def coded(self) -> dict[int, int]:
        """Rows per status as ldpcore.data.ingest.report codes them."""
        return {_CODES[status]: rows for status, rows in self.status_rows.items()}


def _fetch(query: ir.Table, name: str, cap: int) -> _Counts:
    """Run the query; only the first cap + 1 kept values come back (after every left-out row)."""
    ibis = _ibis()
    limit = cap + 1 + len(STATUSES) + EXAMPLES
    got = query.order_by(ibis.desc(query.status != KEPT)).limit(limit).to_pyarrow().to_pylist()
    status_rows = {s: 0 for s in STATUSES}
    kept = [r for r in got if r["status"] == KEPT]
    for r in got:
        status_rows[r["status"]] += int(r["rows"])
    require(sum(status_rows.values()) > 0, f"{name} holds no rows.")
    require(
        len(kept) <= cap,
        f"{name}: the data has more than {cap:,} distinct values; the limit is {cap:,} "
        "(declare a domain, or bin a numeric column).",
    )
    chosen = [r for r in kept if r["count"]]
    named = sorted(
        (r for r in got if r["status"] == OUT and r["value"] is not None), key=lambda r: (-r["rows"], r["value"])
    )
    users = [r["users"] for r in kept]
    return _Counts(
        status_rows=status_rows,
        values=[r["value"] for r in chosen],
        counts=[int(r["count"]) for r in chosen],
        distinct=len(kept),
        users=None if any(u is None for u in users) else int(sum(users)),
        examples=tuple(str(r["value"]) for r in named),
    )


# the query's statuses as ldpcore.data.ingest counts them
_CODES = {
    KEPT: report.KEPT,
    NULL: report.NULL,
    EMPTY: report.EMPTY,
    OUT: report.OUT_OF_DOMAIN,
    NO_USER: report.NO_USER,
}


def _report(name, counts: _Counts, kind, columns, rule: str, respondents: int, extent=None) -> IngestReport:
    """The IngestReport of the rows counted, or the error that no row kept a value (columns: the columns
    read, the user column last)."""
    if respondents == 0:
        what = f"columns {columns[0]!r}, {columns[1]!r}" if kind == "points" else f"column {columns[0]!r}"
        raise no_value_error(name, counts.coded, what)
    return IngestReport.from_status(
        name,
        kind,
        columns,
        counts.coded,
        distinct=counts.distinct,
        users=counts.users,
        respondents=respondents,
        rule=rule,
        examples=counts.examples,
        extent=extent,
    )


def _finite_stats(table, where, *xs) -> tuple[int, list[float], list[float]]:
    """(rows where `where` holds, min and max of each x over them)."""
    parts = {"n": _ibis()._.count()}
    parts |= {f"min{i}": x.min() for i, x in enumerate(xs)} | {f"max{i}": x.max() for i, x in enumerate(xs)}
    (row,) = table.filter(where).aggregate(**parts).to_pyarrow().to_pylist()
    return int(row["n"]), [row[f"min{i}"] for i in range(len(xs))], [row[f"max{i}"] for i in range(len(xs))]


# --- readers ----------------------------------------------------------------------------


def read_categorical(
    source,
    column: str,
    *,
    user_column: str | None = None,
    per_user: str | None = None,
    order_by: str | None = None,
    domain=None,
    max_domain: int = MAX_DOMAIN,
    con=None,
) -> tuple[Histogram, IngestReport]:
    """A database table's categorical column -> counts per category, labels kept, and the report of
    the rows left out: ldpcore.data.ingest.read_categorical where the data lives.

    source: an Ibis table, or a table's name in the Ibis connection con. user_column, per_user
    ("first", the default with a user column, "mode" or "distinct:K") and order_by (the column that
    orders a user's rows): one row per event, reduced per user (the module docstring of
    ldpcore.data.ingest states each rule's privacy meaning). domain, max_domain: as read_categorical.
    """
    _, rule_name = user_rule(user_column, per_user)
    cap = check_whole(max_domain, 1, "max_domain")
    domain = check_domain(domain, cap)
    query = categorical_query(
        source, column, user_column=user_column, per_user=per_user, order_by=order_by, domain=domain, con=con
    )
    _, name = _table(source, con)
    got = _fetch(query, name, cap)
    labels = domain if domain is not None else natural_order([str(v) for v in got.values])
    where = {label: i for i, label in enumerate(labels)}
    counts = np.zeros(len(labels), dtype=np.int64)
    counts[[where[str(v)] for v in got.values]] = got.counts
    read = _report(name, got, "categorical", (column, user_column), rule_name, int(counts.sum()))
    return Histogram(counts=counts, name=name, labels=tuple(labels), notes=report_notes(read, "declared domain")), read


def read_numeric(
    source,
    column: str,
    *,
    bins=10,
    value_range=None,
    user_column: str | None = None,
    per_user: str | None = None,
    order_by: str | None = None,
    max_domain: int = MAX_DOMAIN,
    con=None,
) -> tuple[Histogram, IngestReport]:
    """A database table's numeric column -> equal bins over a range: ldpcore.data.ingest.read_numeric
    where the data lives (the same bins, labels, notes and report). The column must hold numbers
    (a text column is refused: cast it in the database). source, con and the per-user rule as in
    read_categorical."""
    _, rule_name = user_rule(user_column, per_user)
    cap = check_whole(max_domain, 1, "max_domain")
    t, name = _table(source, con)
    x, _ = _number(t, name, column, _dialect(t, None))
    given = value_range is not None
    lo, hi = parse_range(value_range, f"column {column!r}") if given else (0.0, 1.0)
    n, dmin, dmax = 0, 0.0, 0.0
    if isinstance(bins, str) or not given:  # the count and span that a bin rule or the data's range needs
        n, mins, maxs = _finite_stats(t, x.between(lo, hi) if given else _finite(x), x)
        dmin, dmax = float(mins[0] or 0.0), float(maxs[0] or 0.0)
    if not given and n > 0:
        lo, hi = (dmin - 0.5, dmax + 0.5) if dmin == dmax else (dmin, dmax)
    nbins = bin_count(bins, n, dmin, dmax, lo, hi)
    require(nbins <= cap, f"{nbins:,} bins exceed the limit of {cap:,} (max_domain).")
    edges = _linspace_edges(lo, hi, nbins, f"column {column!r}")
    query = numeric_query(
        t,
        column,
        bins=nbins,
        value_range=(lo, hi),
        user_column=user_column,
        per_user=per_user,
        order_by=order_by,
        max_domain=cap,
    )
    got = _fetch(query, name, cap)
    counts = np.zeros(nbins, dtype=np.int64)
    counts[np.asarray(got.values, dtype=np.int64)] = got.counts
    read = _report(name, got, "numeric", (column, user_column), rule_name, int(counts.sum()), (lo, hi))
    labels = tuple(
        f"[{a:.6g}, {b:.6g}{']' if i == nbins - 1 else ')'}" for i, (a, b) in enumerate(zip(edges[:-1], edges[1:]))
    )
    notes = report_notes(read, f"range {report.range_text(lo, hi)}")
    if not given:
        notes += (inferred_range_note(lo, hi),)
    return Histogram(counts=counts, name=name, labels=labels, notes=notes), read


def _detect(table, name: str, given: str | None, names: tuple[str, ...], what: str) -> str:
    if given is not None:
        _column(table, name, given, f"{what} column")
        return given
    found = [c for c in table.columns if c.strip().lower() in names]
    require(
        len(found) == 1,
        f"{name}: found {'no' if not found else 'more than one'} {what} column "
        f"(named {' or '.join(names)}); name it (its columns are {', '.join(table.columns)}).",
    )
    return found[0]


def read_points(
    source,
    lat: str | None = None,
    lon: str | None = None,
    *,
    width: int = 256,
    height: int | None = None,
    bbox=None,
    user_column: str | None = None,
    per_user: str | None = None,
    order_by: str | None = None,
    con=None,
) -> tuple[Histogram, IngestReport]:
    """A database table's latitude/longitude columns -> a north-up density grid:
    ldpcore.data.ingest.read_points where the data lives (the same cells, box, notes and report).
    source, con and the per-user rule as in read_categorical."""
    _, rule_name = user_rule(user_column, per_user)
    check_whole(width, 1, "width (grid cells)")
    t, name = _table(source, con)
    lat = _detect(t, name, lat, LAT_NAMES, "latitude")
    lon = _detect(t, name, lon, LON_NAMES, "longitude")
    if bbox is None:
        y, _ = _number(t, name, lat, _dialect(t, None), "latitude column")
        x, _ = _number(t, name, lon, _dialect(t, None), "longitude column")
        finite = t.filter(_finite(x) & _finite(y))
        n, mins, maxs = _finite_stats(t, _finite(x) & _finite(y), x, y)

        def ordered(axis: int, k: int) -> list[float]:
            column = finite.select(v=(x, y)[axis]).order_by("v").limit(2, offset=k)
            return column.to_pyarrow().column("v").to_pylist()

        west, south, east, north = robust_box(name, n, (mins[0], mins[1]), (maxs[0], maxs[1]), ordered)
    else:
        west, south, east, north = parse_bbox(bbox)
    box = (west, south, east, north)
    width, height = _grid(width, height, box)
    query = points_query(
        t, lat, lon, bbox=box, width=width, height=height, user_column=user_column, per_user=per_user, order_by=order_by
    )
    got = _fetch(query, name, MAX_PIXELS)
    counts = np.zeros(width * height, dtype=np.int64)
    counts[np.asarray(got.values, dtype=np.int64)] = got.counts
    read = _report(name, got, "points", (lat, lon, user_column), rule_name, int(counts.sum()), box)
    notes = report_notes(read, f"box {report.box_text(box)}")
    if bbox is None:
        notes += (inferred_box_note(box, ROBUST_QUANTILE, ROBUST_MARGIN),)
    return Histogram(counts=counts, name=name, shape=(height, width), notes=notes), read
