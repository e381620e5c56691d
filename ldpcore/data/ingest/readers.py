"""The readers of raw records: categories, a binned numeric column, latitude/longitude points on a grid
and an already-aggregated value,count table (each returns ``(Histogram, IngestReport)``), and a table of
numeric and categorical columns for the numeric mechanisms (read_table: one respondent per complete
row, numeric columns mapped onto [-1, 1] over their ranges, values outside clipped as a client clips
before randomizing); with the file's columns and the writer of value,count files."""

from __future__ import annotations

import csv
import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from ldpcore.data.histogram import Histogram
from ldpcore.data.images import MAX_PIXELS
from ldpcore.data.ingest.binning import bin_count, binned, edges, numeric_range
from ldpcore.data.ingest.input_file import MEMORY_LIMIT, InputFile, ident
from ldpcore.data.ingest.report import (
    KEPT,
    NOT_NUMBER,
    NULL,
    IngestReport,
    box_text,
    inferred_box_note,
    inferred_range_note,
    missing_note,
    no_value_error,
    range_text,
    report_notes,
)
from ldpcore.data.ingest.rules import (
    LAT_NAMES,
    LON_NAMES,
    MAX_DOMAIN,
    ONE_ROW,
    check_domain,
    natural_order,
    parse_bbox,
    parse_range,
    user_rule,
)
from ldpcore.data.ingest.tally import Tally, check_numbers, tally
from ldpcore.data.numeric_table import (
    MAX_CATEGORIES,
    MAX_ROWS,
    NumericTable,
    clipped_note,
    inferred_ranges_note,
    table_of,
)
from ldpcore.data.scaling import to_unit
from ldpcore.errors import check_whole, require


def read_categorical(
    source,
    column: str,
    *,
    user_column: str | None = None,
    per_user: str | None = None,
    domain=None,
    max_domain: int = MAX_DOMAIN,
    name: str | None = None,
    delimiter: str | None = None,
    memory_limit: str = MEMORY_LIMIT,
    threads: int | None = None,
) -> tuple[Histogram, IngestReport]:
    """Raw categorical records -> counts per category, labels kept.

    source: a path, or the bytes of an upload with name giving its file name. CSV (","),
    TSV (a .tsv or .tab name, or delimiter="\\t") or Parquet (recognised by its PAR1 header);
    a CSV or TSV has a header line naming the columns. column: the categories. user_column
    and per_user ("first", the default with a user column, "mode" or "distinct:K"): one row
    per event, reduced per user as ldpcore.data.ingest.rules states with its privacy meaning;
    without them each row is one respondent. domain: the allowed values in the order
    wanted (others are counted as out of domain and left out), else the values seen.
    max_domain caps the number of distinct values. memory_limit, threads: DuckDB's.
    The report counts rows read, NULL, empty and out-of-domain values and users.
    """
    rule, rule_name = user_rule(user_column, per_user)
    cap = check_whole(max_domain, 1, "max_domain")
    domain = check_domain(domain, cap)
    with InputFile(source, name, delimiter, memory_limit, threads) as inp:
        value = inp.text(column)
        counted = tally(inp, value, inp.missing(column), user_column, rule, domain, cap)
        if counted.counts.sum() == 0:
            raise no_value_error(inp.name, counted.status_rows, f"column {column!r}")
        return _labelled(inp.name, counted, domain, "categorical", (column, user_column), rule_name)


def _labelled(
    file: str, counted: Tally, domain: list[str] | None, kind: str, columns, rule: str
) -> tuple[Histogram, IngestReport]:
    """The Histogram of text values with their labels (Tally.label_counts) and its report."""
    labels, counts = counted.label_counts(domain)
    report = counted.report(file, kind, columns, rule, int(counts.sum()))
    notes = report_notes(report, "declared domain")
    return Histogram(counts=counts, name=file, labels=tuple(labels), notes=notes, cell="category"), report


def read_numeric(
    source,
    column: str,
    *,
    bins=10,
    value_range=None,
    user_column: str | None = None,
    per_user: str | None = None,
    max_domain: int = MAX_DOMAIN,
    name: str | None = None,
    delimiter: str | None = None,
    memory_limit: str = MEMORY_LIMIT,
    threads: int | None = None,
) -> tuple[Histogram, IngestReport]:
    """Numeric records -> a histogram of equal bins over a stated range.

    bins: a whole number, or "sturges", "rice" or "sqrt" (numpy.histogram_bin_edges' rules).
    value_range: (lo, hi); values outside it are counted as out of domain and left out.
    Without it the range is the data's finite min and max (as numpy.histogram), stated in
    a note: fine for exploring, but it leaks the extremes, so a deployment fixes it in
    advance. Counts equal numpy.histogram(x, bins, value_range) on the same values; labels
    are the bins "[a, b)" (the last one closed). A value that is not a number is an error;
    NULL and NaN count as nulls, infinities as out of domain. The per-user rules and the
    other arguments are read_categorical's; the report's extent is (lo, hi).
    """
    rule, rule_name = user_rule(user_column, per_user)
    cap = check_whole(max_domain, 1, "max_domain")
    with InputFile(source, name, delimiter, memory_limit, threads) as inp:
        x = inp.number(column)
        lo, hi, n, dmin, dmax, from_data = numeric_range(
            inp, x, value_range, isinstance(bins, str), f"column {column!r}"
        )
        nbins = bin_count(bins, n, dmin, dmax, lo, hi)
        require(nbins <= cap, f"{nbins:,} bins exceed the limit of {cap:,} (max_domain).")
        cuts = edges(lo, hi, nbins, f"column {column!r}")
        inp.bind(lo_0=lo, hi_0=hi, e_0=cuts.tolist())
        rows = binned(inp, user_column is not None, inp.missing(column), [(x, nbins)])
        counted = tally(inp, "_b0", "_st", user_column, rule, None, cap, source=rows)
        check_numbers(inp, counted, [column])
        counts = counted.index_counts(nbins)
        if counts.sum() == 0:
            raise no_value_error(inp.name, counted.status_rows, f"column {column!r}")
        report = counted.report(inp.name, "numeric", (column, user_column), rule_name, int(counts.sum()), (lo, hi))
        labels = tuple(
            f"[{a:.6g}, {b:.6g}{']' if i == nbins - 1 else ')'}" for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:]))
        )
        notes = report_notes(report, f"range {range_text(lo, hi)}")
        if from_data:
            notes += (inferred_range_note(lo, hi),)
        return Histogram(counts=counts, name=inp.name, labels=labels, notes=notes, cell="bin"), report


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
    name: str | None = None,
    delimiter: str | None = None,
    memory_limit: str = MEMORY_LIMIT,
    threads: int | None = None,
) -> tuple[Histogram, IngestReport]:
    """Latitude/longitude points -> a 2-D density grid: an image-shaped Histogram (shape
    (height, width), row 0 at the north edge) that flows through the image path.

    lat, lon: the columns (found by the names lat/latitude and lon/lng/long/longitude,
    any case, when not given). width: cells from west to east; height: cells from south to
    north, by default so that cells are about square on the ground (width x the box's
    north-south extent / (its east-west extent x cos(middle latitude))). bbox: (west,
    south, east, north) in degrees or the text "W,S,E,N" (parse_bbox); points outside it
    are counted as out of domain and left out. Without it the box is the points' robust extent
    (_extent: far outliers left out), stated in a note (it leaks where the points lie). Counts
    equal numpy.histogram2d(lat, lon, [height, width], [[south, north], [west, east]]) flipped
    north-up. The per-user rules
    (e.g. one location per user) are read_categorical's; the report's extent is the box.
    """
    rule, rule_name = user_rule(user_column, per_user)
    width = check_whole(width, 1, "width (grid cells)")
    with InputFile(source, name, delimiter, memory_limit, threads) as inp:
        lat = _detect(inp, lat, LAT_NAMES, "latitude")
        lon = _detect(inp, lon, LON_NAMES, "longitude")
        require(lat != lon, f"{inp.name}: the latitude and longitude columns must differ (both are {lat!r}).")
        y, x = inp.number(lat, "latitude column"), inp.number(lon, "longitude column")
        box = _extent(inp, x, y) if bbox is None else parse_bbox(bbox)
        west, south, east, north = box
        height = _grid_height(width, height, box)
        require(
            width * height <= MAX_PIXELS,
            f"a {width} x {height} grid has more than {MAX_PIXELS:,} cells; choose a smaller width.",
        )
        ex, ey = edges(west, east, width, "longitude"), edges(south, north, height, "latitude")
        inp.bind(lo_0=south, hi_0=north, e_0=ey.tolist(), lo_1=west, hi_1=east, e_1=ex.tolist())
        rows = binned(
            inp, user_column is not None, f"coalesce({inp.missing(lat)}, {inp.missing(lon)})", [(y, height), (x, width)]
        )
        cell = f"({height - 1} - _b0) * {width} + _b1"  # row 0 is the north edge
        counted = tally(inp, cell, "_st", user_column, rule, None, MAX_PIXELS, source=rows)
        check_numbers(inp, counted, [lat, lon])
        counts = counted.index_counts(width * height)
        if counts.sum() == 0:
            raise no_value_error(inp.name, counted.status_rows, f"columns {lat!r}, {lon!r}")
        report = counted.report(inp.name, "points", (lat, lon, user_column), rule_name, int(counts.sum()), box)
        notes = report_notes(report, f"box {box_text(box)}")
        if bbox is None:
            notes += (inferred_box_note(box, ROBUST_QUANTILE, ROBUST_MARGIN),)
        return Histogram(counts=counts, name=inp.name, shape=(height, width), notes=notes, cell="cell"), report


def _detect(inp: InputFile, given: str | None, names: tuple[str, ...], what: str) -> str:
    """The column given (checked), else the one column named as names lists (any case)."""
    if given is not None:
        inp.column(given, f"{what} column")
        return given
    found = [c for c in inp.types if c.strip().lower() in names]
    require(
        len(found) == 1,
        f"{inp.name}: found {'no' if not found else 'more than one'} {what} column "
        f"(named {' or '.join(names)}); name it (its columns are {', '.join(inp.types)}).",
    )
    return found[0]


ROBUST_QUANTILE = 0.005  # the default box: latitudes and longitudes between these quantiles ...
ROBUST_MARGIN = 0.1  # ... widened by this share of their span each way, within the points' extent


def robust_box(
    name: str, n: int, mins: tuple[float, float], maxs: tuple[float, float], ordered: Callable[[int, int], list[float]]
) -> tuple[float, float, float, float]:
    """(west, south, east, north): n finite points' robust extent: on each axis (0: longitude, 1: latitude) the
    span between the ROBUST_QUANTILE and 1 - ROBUST_QUANTILE quantiles (interpolated between order statistics as
    numpy's default 'linear' method), widened by ROBUST_MARGIN of it each way and kept within the points' own
    extent (mins, maxs): a city's points keep every point, a normal cloud all but its farthest, while a few far
    points, an island across the ocean, do not stretch the grid (they count as out of domain); widened by 0.5
    degrees each way where it is a single value, and checked to lie on the globe. ordered(axis, k): the axis'
    values at sorted positions k and k + 1 (one value at the last position): the file reader and the database
    reader (ldpcore.data.sql) fetch them each where the data live and get the same box; name: the data's, in
    errors."""
    require(n > 0, f"{name}: no row holds a finite latitude and longitude.")
    west, south, east, north = mins[0], mins[1], maxs[0], maxs[1]
    require(
        -90 <= south and north <= 90 and -180 <= west and east <= 180,
        f"{name}: latitudes must lie in [-90, 90] and longitudes in [-180, 180] "
        f"(found {south:g} to {north:g} and {west:g} to {east:g}; are they swapped?).",
    )

    def quantile(axis: int, q: float) -> float:
        position = (n - 1) * q
        k = math.floor(position)
        pair = ordered(axis, k)
        below, above = float(pair[0]), float(pair[-1])
        return below + (above - below) * (position - k)

    box = []
    for axis, (lo, hi) in enumerate(zip(mins, maxs)):
        q_lo, q_hi = quantile(axis, ROBUST_QUANTILE), quantile(axis, 1 - ROBUST_QUANTILE)
        margin = ROBUST_MARGIN * (q_hi - q_lo)
        a, b = max(lo, q_lo - margin), min(hi, q_hi + margin)
        box.append((a - 0.5, b + 0.5) if a == b else (a, b))
    (west, east), (south, north) = box
    return west, south, east, north


def _extent(inp: InputFile, x: str, y: str) -> tuple[float, float, float, float]:
    """The finite points' robust extent (robust_box), their order statistics read by DuckDB."""
    finite = f"isfinite({x}) AND isfinite({y})"
    found = inp.query(f"SELECT count(*), min({x}), min({y}), max({x}), max({y}) FROM {inp.scan()} WHERE {finite}")[0]

    def ordered(axis: int, k: int) -> list[float]:
        v = (x, y)[axis]
        return [r[0] for r in inp.query(f"SELECT {v} FROM {inp.scan()} WHERE {finite} ORDER BY {v} LIMIT 2 OFFSET {k}")]

    return robust_box(inp.name, int(found[0]), (found[1], found[2]), (found[3], found[4]), ordered)


def _grid_height(width: int, height: int | None, box: tuple[float, float, float, float]) -> int:
    """height as given, else the rows that make cells about square on the ground (read_points)."""
    west, south, east, north = box
    if height is None:
        ground = (east - west) * math.cos(math.radians((south + north) / 2))
        height = max(1, round(width * (north - south) / ground)) if ground > 0 else width
    return check_whole(height, 1, "height (grid cells)")


def read_counts(
    source,
    value_column: str | None = None,
    count_column: str | None = None,
    *,
    domain=None,
    max_domain: int = MAX_DOMAIN,
    name: str | None = None,
    delimiter: str | None = None,
    memory_limit: str = MEMORY_LIMIT,
    threads: int | None = None,
) -> tuple[Histogram, IngestReport]:
    """An already-aggregated value,count table (CSV or TSV with a header line, or Parquet):
    what write_counts writes and the cluster GROUP BY of docs/your_data.md produces.

    value_column, count_column: by default the file's two columns in order. Counts must be
    whole numbers >= 0, and each value may appear once; a NULL or empty value (or count)
    and values outside a declared domain are counted in rows and left out. Labels keep the
    file's values (in the domain's order when one is given, else sorted as in read_categorical).
    """
    cap = check_whole(max_domain, 1, "max_domain")
    with InputFile(source, name, delimiter, memory_limit, threads) as inp:
        if value_column is None and count_column is None:
            require(len(inp.types) == 2, f"{inp.name} has {len(inp.types)} columns; name the value and count columns.")
            value_column, count_column = list(inp.types)
        require(value_column is not None and count_column is not None, "name both the value and the count column.")
        c = inp.number(count_column, "count column")
        status = (
            f"coalesce({inp.missing(value_column)}, {inp.missing(count_column)}, "
            f"CASE WHEN {c} IS NULL THEN {NOT_NUMBER} END)"
        )
        bad = inp.query(
            f"SELECT {inp.column(count_column)} FROM {inp.scan()} WHERE {status} IS NULL AND "
            f"NOT ({c} >= 0 AND {c} = floor({c}) AND isfinite({c})) LIMIT 1"
        )
        require(not bad, f"{inp.name}: count {bad[0][0] if bad else ''!r} is not a whole number >= 0.")
        domain = check_domain(domain, cap)
        counted = tally(inp, inp.text(value_column), status, None, None, domain, cap, weight=f"CAST({c} AS HUGEINT)")
        check_numbers(inp, counted, [count_column])
        dup = inp.query(f"SELECT v, sum(r) FROM agg WHERE st = {KEPT} GROUP BY v HAVING sum(r) > 1 LIMIT 1")
        require(not dup, f"{inp.name}: the value {dup[0][0] if dup else ''!r} appears on more than one row.")
        require(counted.counts.sum() > 0, f"{inp.name} has no respondents: every count is 0.")
        return _labelled(inp.name, counted, domain, "counts", (value_column, count_column), "aggregated")


def columns(
    source, *, name: str | None = None, delimiter: str | None = None, memory_limit: str = MEMORY_LIMIT
) -> dict[str, str]:
    """The file's columns in order, each with its type (DuckDB's name: every column of a CSV or
    TSV is VARCHAR, read as text), without reading its rows: what a user chooses the column(s)
    from. Malformed files give the readers' one-sentence InputError."""
    with InputFile(source, name, delimiter, memory_limit, None) as inp:
        return dict(inp.types)


def write_counts(hist: Histogram, path) -> Path:
    """Write a histogram as value,count rows under that header (its labels, else 0..d-1; an
    image's cells in row-major order), as the ``histogram --out`` command does, so that
    it can be produced once and explored many times; read_counts reads it back exactly."""
    path = Path(path)
    labels = hist.labels if hist.labels is not None else range(hist.d)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(("value", "count"))
        out.writerows(zip(labels, hist.counts.tolist()))
    return path


def read_table(
    source,
    columns,
    *,
    categorical=(),
    ranges: dict | None = None,
    name: str | None = None,
    delimiter: str | None = None,
    memory_limit: str = MEMORY_LIMIT,
    threads: int | None = None,
) -> tuple[NumericTable, IngestReport]:
    """Records -> the Numeric page's NumericTable: one respondent per row with the given
    columns, numeric unless named in categorical (their values become codes in the order
    of read_categorical's labels).

    Rows with a NULL, empty, NaN or infinite value in any of the columns are counted (as
    nulls or empty) and left out: a table has no missing values. Numeric columns map to [-1, 1] over ranges[column] =
    (lo, hi); values outside it are clipped into it, as a client clips before randomizing,
    so their rows stay in kept and out_of_domain counts them among the kept rows. A column
    without a range uses the data's min and max, stated in a note. The table itself is
    held in memory: at most numeric.table.MAX_ROWS rows and MAX_CATEGORIES categories.
    """
    columns, categorical, ranges = list(columns), list(categorical), dict(ranges or {})
    require(len(columns) > 0, "name at least one column for the table.")
    require(len(set(columns)) == len(columns), f"a column is named twice in {columns}.")
    for col in categorical + list(ranges):
        require(col in columns, f"{col!r} is named in categorical or ranges but not in columns.")
    with InputFile(source, name, delimiter, memory_limit, threads) as inp:
        numeric = [c for c in columns if c not in categorical]
        nums = {c: inp.number(c) for c in numeric}
        texts = {c: inp.text(c) for c in categorical}
        status = _status(inp, columns, nums)
        counted = tally(inp, "NULL", status, None, None, None, 1)  # rows per status (one value, NULL)
        check_numbers(inp, counted, numeric)
        kept = counted.status_rows.get(KEPT, 0)
        require(kept > 0, f"{inp.name}: no row has a value in every column of {', '.join(columns)}.")
        require(kept <= MAX_ROWS, f"{inp.name} has {kept:,} complete rows; a table holds at most {MAX_ROWS:,}.")
        rows = f"(SELECT * FROM {inp.scan()} WHERE {status} IS NULL)"
        labels = _levels(inp, rows, texts)
        bounds, inferred = _bounds(inp, rows, nums, ranges)
        clipped, notes = _clipped(inp, rows, nums, bounds)
        if inferred:
            notes.append(inferred_ranges_note(inferred))
        select = [f"{x} AS {ident(c)}" for c, x in nums.items()]
        select += [
            f"(SELECT code FROM levels_{j} WHERE v = {texts[c]}) AS {ident(c)}" for j, c in enumerate(categorical)
        ]
        got = inp.fetch(f"SELECT {', '.join(select)} FROM {rows}")
        report = IngestReport.from_status(
            inp.name, "table", columns, counted.status_rows, distinct=0, users=None, respondents=int(kept), rule=ONE_ROW
        )
        report = replace(report, out_of_domain=clipped)  # clipped values stay in their (kept) rows
        units = {c: to_unit(np.asarray(got[c], dtype=np.float64), lo, hi) for c, (lo, hi) in zip(nums, bounds)}
        codes = {c: np.asarray(got[c], dtype=np.int64) for c in texts}
        return table_of(units, bounds, codes, labels, inp.name, missing_note(report) + tuple(notes)), report


def _status(inp: InputFile, columns: list[str], nums: dict[str, str]) -> str:
    """SQL: a row's status (NULL = kept): a missing value in any column, else NOT_NUMBER for a numeric
    column's text that is not a number, else NULL for a NaN or an infinity."""
    not_number = " OR ".join(f"{x} IS NULL" for x in nums.values()) or "false"
    not_finite = " OR ".join(f"NOT isfinite({x})" for x in nums.values()) or "false"
    return (
        f"coalesce({', '.join(inp.missing(c) for c in columns)}, CASE WHEN {not_number} THEN {NOT_NUMBER} "
        f"WHEN {not_finite} THEN {NULL} END)"
    )


def _levels(inp: InputFile, rows: str, texts: dict[str, str]) -> list[tuple[str, ...]]:
    """Each categorical column's levels among the rows (natural_order), at most MAX_CATEGORIES, kept in
    the table levels_j (v, code) for the codes."""
    labels = []
    for j, (col, text) in enumerate(texts.items()):
        levels = [v for (v,) in inp.query(f"SELECT DISTINCT {text} FROM {rows} LIMIT {MAX_CATEGORIES + 1}")]
        require(
            len(levels) <= MAX_CATEGORIES,
            f"{inp.name}: column {col!r} has more than {MAX_CATEGORIES:,} categories; the limit is {MAX_CATEGORIES:,}.",
        )
        labels.append(tuple(natural_order(levels)))
        inp.execute(
            f"CREATE TABLE levels_{j} AS SELECT unnest($l) AS v, generate_subscripts($l, 1) - 1 AS code",
            {"l": list(labels[-1])},
        )
    return labels


def _bounds(
    inp: InputFile, rows: str, nums: dict[str, str], ranges: dict
) -> tuple[list[tuple[float, float]], list[str]]:
    """(each numeric column's (lo, hi): its declared range, else the data's min and max; the columns
    whose range was taken from the data)."""
    bounds, inferred = [], []
    for col, x in nums.items():
        if col in ranges:
            lo, hi = parse_range(ranges[col], f"column {col!r}")
        else:
            lo, hi = (float(v) for v in inp.query(f"SELECT min({x}), max({x}) FROM {rows}")[0])
            require(lo < hi, f"{inp.name}: column {col!r} holds the single value {lo:g}; give it a range or drop it.")
            inferred.append(col)
        bounds.append((lo, hi))
    return bounds, inferred


def _clipped(
    inp: InputFile, rows: str, nums: dict[str, str], bounds: list[tuple[float, float]]
) -> tuple[int, list[str]]:
    """(the rows with a value outside its column's range, a note per column with such values)."""
    ranged = list(zip(nums.items(), bounds))
    outside = [f"count(*) FILTER (WHERE NOT ({x} BETWEEN {lo!r} AND {hi!r}))" for (_, x), (lo, hi) in ranged]
    any_outside = " OR ".join(f"NOT ({x} BETWEEN {lo!r} AND {hi!r})" for (_, x), (lo, hi) in ranged)
    per_column = inp.query(
        f"SELECT count(*) FILTER (WHERE {any_outside or 'false'}) {''.join(', ' + o for o in outside)} FROM {rows}"
    )[0]
    notes = [clipped_note(c, k, lo, hi) for ((c, _), (lo, hi)), k in zip(ranged, per_column[1:]) if k]
    return int(per_column[0]), notes
