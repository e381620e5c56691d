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

The per-user rules (``user_column`` with ``per_user``) and their privacy meaning:
    no user column  every row is one respondent: the guarantee is per row, so a person
                    with several rows is protected only by group privacy over them.
    "first"         each user contributes the value of their first row (file order).
    "mode"          each user contributes their most frequent value (ties: the value
                    that appears first).
        Both keep one value per user, a function of that user's own rows only, so an
        eps-LDP report of it is eps-LDP for the user's whole record (any randomizer
        composed with a per-user preprocessing stays eps-LDP), and the shuffled
        protocol's central (eps_c, delta) holds per user, as the paper assumes.
    "distinct:K"    each user contributes up to K distinct values (the first K to appear):
                    the histogram counts contributions, not users. The one-value-per-
                    respondent guarantee holds per contributed value; for a user, group
                    privacy over K values applies (Dwork and Roth, The Algorithmic
                    Foundations of Differential Privacy, 2014, Theorem 2.2 and its
                    (eps, delta) form): eps_l grows to K * eps_l and the central guarantee
                    to (K * eps_c, K * e^((K - 1) eps_c) * delta).
A deployment computes the rule on the user's device before randomizing; here it is
computed on the pooled file only to simulate that.

Values are compared after removing surrounding spaces; a CSV has no NULL, so an empty
CSV field counts as empty. Category labels keep their text and are sorted as numbers when
every label is a number, else by text (code-point order).
"""

from __future__ import annotations

import csv
import importlib.resources
import math
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ldpcore.data.datasets import BUNDLED
from ldpcore.data.histogram import Histogram
from ldpcore.data.images import MAX_PIXELS
from ldpcore.data.numeric_table import MAX_CATEGORIES, MAX_ROWS, NumericTable
from ldpcore.data.scaling import to_unit
from ldpcore.errors import InputError, check_whole, require

if TYPE_CHECKING:
    import duckdb

MEMORY_LIMIT = "1GB"  # DuckDB's working memory per call; larger aggregates spill to disk
MAX_DOMAIN = 2_000_000  # the most distinct values (or bins) a histogram may have
BIN_RULES = ("sturges", "rice", "sqrt")  # numpy's bin-count rules that need only n, min and max
_HEAD_BYTES = 65536  # bytes sniffed to tell Parquet, text and binary apart
_TAB_SUFFIXES = (".tsv", ".tab")
_LAT_NAMES = ("lat", "latitude")
_LON_NAMES = ("lon", "lng", "long", "longitude")
_NUMERIC_TYPES = re.compile(
    r"^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|"
    r"UHUGEINT|FLOAT|DOUBLE|DECIMAL(\(\d+,\s*\d+\))?)$"
)
# status of a row: kept, or why it was left out
_KEPT, _NULL, _EMPTY, _OUT, _NO_USER, _NOT_NUMBER = range(6)


@dataclass(frozen=True)
class IngestReport:
    """What a reader read and kept; every row of the file is in exactly one of kept,
    nulls, empty, out_of_domain and missing_user.

    kind: "categorical", "numeric", "points", "counts" or "table". columns: the columns read.
    rows: rows of the file (data lines of a CSV, without the header). kept: rows whose value entered the aggregate.
    nulls: NULL values
    (Parquet NULL, NaN). empty: empty or blank values (an empty CSV field). out_of_domain:
    values outside the declared domain, range or bounding box (for a table: clipped into
    its range, and kept). missing_user: rows without a user id (per-user rules only).
    distinct: distinct kept values (bins or cells for numeric data and points).
    users: users with a kept value (None without a user column). respondents: n of the
    result (users for first / mode; contributions for distinct:K; the counts' sum for a
    value,count table). rule: the per-user rule ("one row per respondent", "first",
    "mode", "distinct:K", or "aggregated" for a value,count table). examples: up to five
    out-of-domain categories, most frequent first. extent: numeric data's (lo, hi) range, or
    points' (west, south, east, north) bounding box; None otherwise.
    """

    file: str
    kind: str
    columns: tuple[str, ...]
    rows: int
    kept: int
    nulls: int
    empty: int
    out_of_domain: int
    missing_user: int
    distinct: int
    users: int | None
    respondents: int
    rule: str
    examples: tuple[str, ...] = ()
    extent: tuple[float, ...] | None = None


# --- the input file ---------------------------------------------------------------------


def parse_rule(per_user: str) -> tuple[str, int]:
    """("first" | "mode" | "distinct", K) from "first", "mode" or "distinct:K" (K >= 1)."""
    text = str(per_user).strip().lower()
    if text in ("first", "mode"):
        return text, 1
    if text.startswith("distinct:"):
        return "distinct", check_whole(text.split(":", 1)[1], 1, "K in per_user distinct:K")
    raise InputError(f"per_user must be first, mode or distinct:K with K >= 1 (got {per_user!r}).")


def parse_bbox(bbox) -> tuple[float, float, float, float]:
    """(west, south, east, north) in degrees, from a 4-tuple or the text "W,S,E,N" (the order
    of RFC 7946, GeoJSON, Sec. 5); south < north within [-90, 90], west < east within
    [-180, 180] (a box across the antimeridian is not supported)."""
    parts = bbox.split(",") if isinstance(bbox, str) else list(bbox)
    require(len(parts) == 4, f"bbox needs four numbers west,south,east,north (got {bbox!r}).")
    try:
        west, south, east, north = (float(p) for p in parts)
    except (TypeError, ValueError):
        raise InputError(f"bbox needs four numbers west,south,east,north (got {bbox!r}).") from None
    require(
        -90 <= south < north <= 90 and -180 <= west < east <= 180,
        f"bbox needs -180 <= west < east <= 180 and -90 <= south < north <= 90 (got {bbox!r}).",
    )
    return west, south, east, north


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class _Input:
    """One input file opened in a private DuckDB database with a memory limit; the file is
    reached through a link in a private folder (so its name is never read as a glob pattern)
    that also holds the database and its spill files, all removed on exit."""

    def __init__(self, source, name, delimiter, memory_limit, threads):
        self.source, self.delimiter = source, delimiter
        self.memory_limit, self.threads = memory_limit, threads
        self.bound: dict = {}
        self.con: duckdb.DuckDBPyConnection | None = None
        if isinstance(source, (bytes, bytearray)):
            self.name = name or "upload"
        else:
            self.name = name or Path(source).name

    def __enter__(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="ldpcore-ingest-")
        try:
            return self._open(Path(self._tmp.name))
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *exc):
        if self.con is not None:
            self.con.close()
        self._tmp.cleanup()

    def _open(self, tmp: Path):
        suffix = Path(self.name).suffix.lower()
        self.path = tmp / f"input{suffix}"
        if isinstance(self.source, (bytes, bytearray)):
            self.path.write_bytes(self.source)
        else:
            real = Path(self.source)
            require(real.is_file(), f"no such file: {real}.")
            os.symlink(real.resolve(), self.path)
        with open(self.path, "rb") as fh:
            head = fh.read(_HEAD_BYTES)
        require(len(head) > 0, f"{self.name} is empty.")
        if head[:4] == b"PAR1":
            self.format = "parquet"
        else:
            require(suffix not in (".parquet", ".pq"), f"{self.name} is not a Parquet file (it lacks the PAR1 header).")
            self._check_text(head)
            self.format = (
                "tsv" if self.delimiter == "\t" or (self.delimiter is None and suffix in _TAB_SUFFIXES) else "csv"
            )
            self.delimiter = self.delimiter or ("\t" if self.format == "tsv" else ",")
            require(
                len(self.delimiter) == 1 and self.delimiter not in '"\r\n',
                f"the delimiter must be one character other than a quote or a line break (got {self.delimiter!r}).",
            )
        import duckdb  # imported on first use, as in _run: it costs a few tenths of a second

        self.con = duckdb.connect(str(tmp / "work.duckdb"))
        for setting, value in (
            ("memory_limit", self.memory_limit),
            ("temp_directory", str(tmp / "spill")),
            ("autoinstall_known_extensions", False),
            ("autoload_known_extensions", False),
            # type_pushdown moves a cast of a CSV column into the reader, where
            # TRY_CAST's NULL becomes an error; top_n_window_elimination turns
            # distinct:K's row_number() <= K into list aggregates that cannot
            # spill (out of memory at 1 GB on 30 M events of 3 M users)
            ("disabled_optimizers", "type_pushdown,top_n_window_elimination"),
        ):
            self.con.execute(f"SET {setting} = $v", {"v": value})
        if self.threads is not None:
            self.con.execute("SET threads = $v", {"v": check_whole(self.threads, 1, "threads")})
        described = self.query(f"DESCRIBE SELECT * FROM {self.scan()}")
        self.types = {row[0]: row[1] for row in described}
        return self

    def _check_text(self, head: bytes):
        require(b"\x00" not in head, f"{self.name} holds binary data, not CSV or TSV text or Parquet.")
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as exc:
            # a character cut in two by the end of the sniffed bytes is no error
            if not (len(head) == _HEAD_BYTES and exc.start >= len(head) - 3):
                raise InputError(f"{self.name} is not UTF-8 text (CSV or TSV) or Parquet.") from None

    def scan(self, row_order: bool = False) -> str:
        """The FROM clause reading every column (CSV as text); row_order adds _rn, the
        row's position in the file."""
        if self.format == "parquet":
            opts = ", file_row_number = true" if row_order else ""
            reader = f"read_parquet($path{opts})"
            return f"(SELECT *{', file_row_number AS _rn' if row_order else ''} FROM {reader})"
        reader = (
            "read_csv($path, all_varchar = true, header = true, delim = $delim, quote = '\"', "
            "escape = '\"', comment = '', skip = 0, store_rejects = true, ignore_errors = true)"
        )
        return f"(SELECT *{', row_number() OVER () AS _rn' if row_order else ''} FROM {reader})"

    def params(self, sql: str, extra: dict | None = None) -> dict:
        """The parameters a query uses ($name outside quotes), from the file's, the bound
        ones (bind) and extra: DuckDB refuses parameters a query does not use."""
        every = {"path": str(self.path), "delim": self.delimiter} | self.bound | (extra or {})
        used = set(re.findall(r"\$(\w+)", re.sub(r"\"(?:[^\"]|\"\")*\"|'(?:[^']|'')*'", "", sql)))
        return {k: v for k, v in every.items() if k in used}

    def bind(self, **params):
        """Parameters every later query may use (bin edges, ranges)."""
        self.bound.update(params)

    def fetch(self, sql: str, params: dict | None = None) -> dict:
        """A query's columns as numpy arrays."""
        return self._run(sql, params).fetchnumpy()

    def query(self, sql: str, params: dict | None = None) -> list:
        """A query's rows."""
        return self._run(sql, params).fetchall()

    def execute(self, sql: str, params: dict | None = None):
        self._run(sql, params)

    def _run(self, sql: str, params: dict | None):
        """Run a query on the file; DuckDB's errors become one InputError naming the file."""
        import duckdb

        if self.con is None:
            raise InputError(f"{self.name} is not open for queries.")
        try:
            return self.con.execute(sql, self.params(sql, params))
        except duckdb.OutOfMemoryException:
            raise InputError(
                f"aggregating {self.name} needs more than the memory limit {self.memory_limit}; raise memory_limit."
            ) from None
        except duckdb.Error as exc:
            first = str(exc).strip().splitlines()[0].replace(str(self.path), self.name)
            raise InputError(f"{self.name} could not be read as {self.format.upper()} ({first}).") from None

    def check_rows(self):
        """InputError for the first malformed CSV line DuckDB set aside, if any."""
        if self.format == "parquet":
            return
        bad = self.query("SELECT line, error_type, error_message FROM reject_errors ORDER BY line LIMIT 1")
        if bad:
            line, kind, message = bad[0]
            found = re.search(r"Found: (\d+)", message)
            if kind in ("MISSING COLUMNS", "TOO MANY COLUMNS") and found:
                raise InputError(
                    f"{self.name}, line {line}: {found.group(1)} fields where the header has "
                    f"{len(self.types)} (delimiter {self.delimiter!r})."
                )
            raise InputError(f"{self.name}, line {line}: {message.rstrip('.')}.")

    def column(self, column: str, what: str = "column") -> str:
        """The SQL name of a column, or an InputError naming the file's columns (and the
        delimiter it seems to use when the whole header came out as one column)."""
        require(isinstance(column, str) and column != "", f"the {what} must be a column name (got {column!r}).")
        if column in self.types:
            return _ident(column)
        names = list(self.types)
        if self.format != "parquet" and len(names) == 1:
            for other in (";", "\t", "|", ","):
                if other != self.delimiter and other in names[0]:
                    raise InputError(
                        f"{self.name} has one column {names[0]!r}, which looks separated by "
                        f"{other!r} rather than {self.delimiter!r}; give the delimiter {other!r}."
                    )
        raise InputError(f"{self.name} has no {what} {column!r}; its columns are {', '.join(names)}.")

    def text(self, column: str) -> str:
        """A column as trimmed text."""
        ref = self.column(column)
        require(
            not re.search(r"[\[\]]|STRUCT|MAP|UNION", self.types[column]),
            f"{self.name}: column {column!r} holds {self.types[column]} values, not single values.",
        )
        return f"trim(CAST({ref} AS VARCHAR))"

    def number(self, column: str, what: str = "column") -> str:
        """A column as DOUBLE (NULL where the text is not a number: see _NOT_NUMBER)."""
        ref, kind = self.column(column, what), self.types[column]
        if kind == "VARCHAR":
            return f"TRY_CAST(trim({ref}) AS DOUBLE)"
        require(
            _NUMERIC_TYPES.match(kind) is not None, f"{self.name}: column {column!r} holds {kind} values, not numbers."
        )
        return f"CAST({ref} AS DOUBLE)"

    def missing(self, column: str) -> str:
        """SQL: the status of a missing value of a column (_NULL / _EMPTY), else NULL."""
        ref = self.column(column)
        if self.format != "parquet":
            return f"CASE WHEN {ref} IS NULL OR trim({ref}) = '' THEN {_EMPTY} END"
        if self.types[column] == "VARCHAR":
            return f"CASE WHEN {ref} IS NULL THEN {_NULL} WHEN trim({ref}) = '' THEN {_EMPTY} END"
        return f"CASE WHEN {ref} IS NULL THEN {_NULL} END"


# --- aggregation ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tally:
    values: np.ndarray  # kept values (text, or bin / cell indices) ...
    counts: np.ndarray  # ... and their counts under the rule
    status_rows: dict  # status -> rows
    distinct: int
    users: int | None
    examples: tuple[str, ...]


def _tally(
    inp: _Input,
    value: str,
    status: str,
    user: str | None,
    rule: tuple[str, int] | None,
    domain: list | None,
    cap: int,
    weight: str | None = None,
    source: str | None = None,
) -> _Tally:
    """Aggregate the file in DuckDB: value and status are SQL over the columns of source
    (default: the file; status NULL = kept); user a column for a per-user rule; domain the
    allowed values (others are out of domain); weight a count column for a value,count
    table. Only counts come back.

    One pass counts the rows per (value, status): a table of about d rows, which gives
    the report, the domain check and, without a rule, the histogram. A per-user rule
    takes a second pass over the kept rows, grouped by user (first) or by user and value
    (mode, distinct:K); DuckDB spills those groups to disk beyond its memory limit."""
    base = source or inp.scan(row_order=user is not None)
    if user is not None:
        uref = inp.column(user, "user column")
        src = (
            f"SELECT v, coalesce(st, CASE WHEN u IS NULL OR u = '' THEN {_NO_USER} END) AS st, u, _rn "
            f"FROM (SELECT {value} AS v, {status} AS st, trim(CAST({uref} AS VARCHAR)) AS u, _rn FROM {base})"
        )
    else:
        src = f"SELECT {value} AS v, {status} AS st{f', {weight} AS w' if weight else ''} FROM {base}"
    inp.execute(
        f"CREATE TABLE agg AS SELECT v, coalesce(st, 0) AS st, count(*) AS r, "
        f"{'sum(w)' if weight else 'count(*)'} AS c FROM ({src}) GROUP BY ALL"
    )
    inp.check_rows()
    kept = f"SELECT v, u, _rn FROM ({src}) WHERE st IS NULL"
    if domain is not None:
        inp.execute("CREATE TABLE dom AS SELECT unnest($labels) AS label", {"labels": domain})
        inp.execute(f"UPDATE agg SET st = {_OUT} WHERE st = 0 AND v NOT IN (SELECT label FROM dom)")
        kept += " AND v IN (SELECT label FROM dom)"
    status_rows = dict(inp.query("SELECT st, sum(r)::BIGINT FROM agg GROUP BY st"))
    require(sum(status_rows.values()) > 0, f"{inp.name} holds no rows.")
    (distinct,) = inp.query("SELECT count(*) FROM agg WHERE st = 0")[0]
    require(
        distinct <= cap,
        f"{inp.name}: the data has {distinct:,} distinct values; the limit is {cap:,} "
        "(declare a domain, or bin a numeric column).",
    )
    examples = tuple(
        str(v)
        for (v,) in inp.query(f"SELECT v FROM agg WHERE st = {_OUT} AND v IS NOT NULL ORDER BY r DESC, v LIMIT 5")
    )
    kind, k = rule if rule is not None else (None, 1)
    if kind is None:
        got = inp.fetch("SELECT v, c::BIGINT AS n FROM agg WHERE st = 0")
        return _Tally(
            values=np.asarray(got["v"]),
            counts=np.asarray(got["n"], dtype=np.int64),
            status_rows=status_rows,
            distinct=int(distinct),
            users=None,
            examples=examples,
        )
    if kind == "first":
        chosen = f"SELECT arg_min(v, _rn) AS v, 1 AS k FROM ({kept}) GROUP BY u"
    else:
        per_value = f"SELECT u, v, count(*) AS c, min(_rn) AS f FROM ({kept}) GROUP BY u, v"
        order = "c DESC, f" if kind == "mode" else "f"
        chosen = (
            f"SELECT v, row_number() OVER (PARTITION BY u ORDER BY {order}) AS k FROM ({per_value}) "
            f"QUALIFY k <= {k if kind == 'distinct' else 1}"
        )
    got = inp.fetch(f"SELECT v, count(*) AS n, count(*) FILTER (WHERE k = 1) AS users FROM ({chosen}) GROUP BY v")
    return _Tally(
        values=np.asarray(got["v"]),
        counts=np.asarray(got["n"], dtype=np.int64),
        status_rows=status_rows,
        distinct=int(distinct),
        users=int(np.sum(got["users"])),
        examples=examples,
    )


def _rule_name(user_column, per_user) -> tuple[tuple[str, int] | None, str]:
    if user_column is None:
        require(per_user is None, "per_user needs a user_column naming who each row belongs to.")
        return None, "one row per respondent"
    rule = parse_rule(per_user or "first")
    return rule, rule[0] if rule[0] != "distinct" else f"distinct:{rule[1]}"


def _domain(domain, cap: int) -> list[str] | None:
    """A declared domain as text without surrounding spaces (as SQL's TRIM): 1 to cap
    distinct, non-empty values."""
    if domain is None:
        return None
    values = [str(v).strip(" ") for v in domain]
    require(0 < len(values) <= cap, f"the domain needs 1 to {cap:,} values (got {len(values):,}).")
    require("" not in values, "the domain cannot hold an empty value.")
    seen: set[str] = set()
    dup = None
    for v in values:
        if v in seen:
            dup = v
            break
        seen.add(v)
    require(dup is None, f"the domain lists the value {dup!r} twice.")
    return values


def _natural_order(labels: list[str]) -> list[str]:
    """Sorted as numbers when every label is a finite number, else by text."""
    try:
        keys = [float(v) for v in labels]
    except ValueError:
        return sorted(labels)
    if not all(math.isfinite(k) for k in keys):
        return sorted(labels)
    return [v for _, v in sorted(zip(keys, labels))]


def _report(inp: _Input, tally: _Tally, kind: str, columns, rule: str, respondents: int, extent=None) -> IngestReport:
    rows = tally.status_rows
    return IngestReport(
        file=inp.name,
        kind=kind,
        columns=tuple(c for c in columns if c is not None),
        rows=int(sum(rows.values())),
        kept=int(rows.get(_KEPT, 0)),
        nulls=int(rows.get(_NULL, 0)),
        empty=int(rows.get(_EMPTY, 0)),
        out_of_domain=int(rows.get(_OUT, 0)),
        missing_user=int(rows.get(_NO_USER, 0)),
        distinct=tally.distinct,
        users=tally.users,
        respondents=respondents,
        rule=rule,
        examples=tally.examples,
        extent=None if extent is None else tuple(float(e) for e in extent),
    )


def _rows(n: int) -> str:
    return f"{n:,} row{'' if n == 1 else 's'}"


def _missing_note(report: IngestReport) -> tuple[str, ...]:
    if not (report.nulls or report.empty):
        return ()
    return (
        f"{_rows(report.nulls + report.empty)} of {report.rows:,} had no value "
        f"({report.nulls:,} NULL, {report.empty:,} empty) and were left out.",
    )


def _notes(report: IngestReport, domain_word: str) -> tuple[str, ...]:
    """The sentences a user should read: what was left out and what the rule did."""
    notes = list(_missing_note(report))
    if report.out_of_domain:
        eg = f" (e.g. {', '.join(repr(e) for e in report.examples)})" if report.examples else ""
        notes.append(f"{_rows(report.out_of_domain)} held values outside the {domain_word}{eg} and were left out.")
    if report.missing_user:
        notes.append(f"{_rows(report.missing_user)} had no user id and were left out.")
    if report.users is not None:
        notes.append(f"per-user rule {report.rule}: {report.users:,} users contribute {report.respondents:,} values.")
    return tuple(notes)


def _no_value(inp: _Input, report_rows: dict, what: str):
    rows = report_rows
    raise InputError(
        f"{inp.name}: {what} has no usable value ({rows.get(_NULL, 0):,} NULL, "
        f"{rows.get(_EMPTY, 0):,} empty, {rows.get(_OUT, 0):,} out of the domain, "
        f"{rows.get(_NO_USER, 0):,} without a user id)."
    )


def _check_numbers(inp: _Input, tally: _Tally, columns):
    """InputError naming a value that is not a number, if the scan found one."""
    bad = tally.status_rows.get(_NOT_NUMBER, 0)
    if not bad:
        return
    for column in columns:
        ref = inp.column(column)
        found = inp.query(
            f"SELECT {ref} FROM {inp.scan()} WHERE trim({ref}) <> '' AND "
            f"TRY_CAST(trim({ref}) AS DOUBLE) IS NULL LIMIT 1"
        )
        if found:
            raise InputError(
                f"{inp.name}: column {column!r} holds {found[0][0]!r}, which is not a number "
                f"({_rows(bad)} without a number)."
            )


# --- readers ----------------------------------------------------------------------------


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
    per event, reduced per user as the module docstring states with its privacy meaning;
    without them each row is one respondent. domain: the allowed values in the order
    wanted (others are counted as out of domain and left out), else the values seen.
    max_domain caps the number of distinct values. memory_limit, threads: DuckDB's.
    The report counts rows read, NULL, empty and out-of-domain values and users.
    """
    rule, rule_name = _rule_name(user_column, per_user)
    cap = check_whole(max_domain, 1, "max_domain")
    domain = _domain(domain, cap)
    with _Input(source, name, delimiter, memory_limit, threads) as inp:
        value = inp.text(column)
        tally = _tally(inp, value, inp.missing(column), user_column, rule, domain, cap)
        labels = domain if domain is not None else _natural_order([str(v) for v in tally.values])
        where = {label: i for i, label in enumerate(labels)}
        counts = np.zeros(len(labels), dtype=np.int64)
        counts[[where[str(v)] for v in tally.values]] = tally.counts
        if counts.sum() == 0:
            _no_value(inp, tally.status_rows, f"column {column!r}")
        report = _report(inp, tally, "categorical", (column, user_column), rule_name, int(counts.sum()))
        return Histogram(
            counts=counts, name=inp.name, labels=tuple(labels), notes=_notes(report, "declared domain")
        ), report


def _range(value_range, what: str) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in value_range)
    except (TypeError, ValueError):
        raise InputError(f"the range of {what} needs two numbers lo, hi (got {value_range!r}).") from None
    require(
        math.isfinite(lo) and math.isfinite(hi) and lo < hi,
        f"the range of {what} needs finite lo < hi (got {value_range!r}).",
    )
    return lo, hi


def _numeric_range(inp: _Input, x: str, value_range, want_stats: bool, what: str):
    """(lo, hi, n, data min, data max, taken from the data): the outer edges as
    numpy.histogram takes them (the finite data's min and max, v +- 0.5 for a single value
    v, (0, 1) for none) and, when asked or needed, the count and span of the values in them."""
    given = value_range is not None
    lo, hi = _range(value_range, what) if given else (0.0, 1.0)
    n, dmin, dmax = 0, 0.0, 0.0
    if want_stats or not given:
        where = f"{x} BETWEEN $lo AND $hi" if given else f"isfinite({x})"
        n, dmin, dmax = inp.query(
            f"SELECT count(*), min({x}), max({x}) FROM {inp.scan()} WHERE {where}",
            {"lo": lo, "hi": hi} if given else {},
        )[0]
        n, dmin, dmax = int(n), float(dmin or 0.0), float(dmax or 0.0)
    if not given and n > 0:
        lo, hi = (dmin - 0.5, dmax + 0.5) if dmin == dmax else (dmin, dmax)
    return lo, hi, n, dmin, dmax, not given


def _bin_count(bins, n: int, data_min: float, data_max: float, lo: float, hi: float) -> int:
    """bins as given, or numpy.histogram_bin_edges' rule of that name (Sturges, Rice or
    square root: each needs only n and the data's span, so one streaming pass finds it)."""
    if not isinstance(bins, str):
        return check_whole(bins, 1, "bins")
    require(bins in BIN_RULES, f"bins must be a whole number >= 1 or one of {', '.join(BIN_RULES)} (got {bins!r}).")
    ptp = data_max - data_min
    width = (
        {
            "sturges": lambda: ptp / (np.log2(n) + 1.0),
            "rice": lambda: ptp / (2.0 * n ** (1.0 / 3)),
            "sqrt": lambda: ptp / np.sqrt(n),
        }[bins]()
        if n > 0
        else 0.0
    )
    return int(np.ceil((hi - lo) / width)) if width else 1


def _binned(inp: _Input, row_order: bool, missing: str, axes) -> str:
    """SQL: the file with _st (the row's status, NULL = kept) and _b0, _b1, ... (each axis's
    bin, NULL unless kept). axes: (x, nbins) per axis, x SQL for a DOUBLE, binned over
    [$lo_j, $hi_j] with edges $e_j = numpy.linspace(lo, hi, nbins + 1) as numpy.histogram's
    equal-bin path does (numpy/lib/_histograms_impl.py): scale and truncate, then correct
    by one against the edges; the last bin includes its right edge. One stage per step, so
    that DuckDB computes each once."""
    xs = ", ".join(f"{x} AS _x{j}" for j, (x, _) in enumerate(axes))
    any_of = lambda test: " OR ".join(test.format(j=j) for j in range(len(axes)))  # noqa: E731
    inside = " AND ".join(f"_x{j} BETWEEN $lo_{j} AND $hi_{j}" for j in range(len(axes)))
    status = (
        f"CASE WHEN _miss IS NOT NULL THEN _miss WHEN {any_of('_x{j} IS NULL')} THEN {_NOT_NUMBER} "
        f"WHEN {any_of('isnan(_x{j})')} THEN {_NULL} WHEN NOT ({inside}) THEN {_OUT} END"
    )
    i0 = ", ".join(
        f"CASE WHEN _st IS NULL THEN least(floor((_x{j} - $lo_{j}) / ($hi_{j} - $lo_{j}) * {n}), {n - 1})"
        f"::BIGINT END AS _i{j}"
        for j, (_, n) in enumerate(axes)
    )
    i1 = ", ".join(f"_i{j} - (_x{j} < $e_{j}[_i{j} + 1])::BIGINT AS _k{j}" for j in range(len(axes)))
    i2 = ", ".join(
        f"_k{j} + (_x{j} >= $e_{j}[_k{j} + 2] AND _k{j} <> {n - 1})::BIGINT AS _b{j}" for j, (_, n) in enumerate(axes)
    )
    sql = f"SELECT *, {xs}, {missing} AS _miss FROM {inp.scan(row_order)}"
    for stage in (f"{status} AS _st", i0, i1, i2):
        sql = f"SELECT *, {stage} FROM ({sql})"
    return f"({sql})"


def _edges(lo: float, hi: float, nbins: int, what: str) -> np.ndarray:
    edges = np.linspace(lo, hi, nbins + 1)
    require(
        bool(np.all(edges[:-1] < edges[1:])), f"{nbins:,} bins are too many for the range [{lo:g}, {hi:g}] of {what}."
    )
    return edges


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
    rule, rule_name = _rule_name(user_column, per_user)
    cap = check_whole(max_domain, 1, "max_domain")
    with _Input(source, name, delimiter, memory_limit, threads) as inp:
        x = inp.number(column)
        lo, hi, n, dmin, dmax, from_data = _numeric_range(
            inp, x, value_range, isinstance(bins, str), f"column {column!r}"
        )
        nbins = _bin_count(bins, n, dmin, dmax, lo, hi)
        require(nbins <= cap, f"{nbins:,} bins exceed the limit of {cap:,} (max_domain).")
        edges = _edges(lo, hi, nbins, f"column {column!r}")
        inp.bind(lo_0=lo, hi_0=hi, e_0=edges.tolist())
        source = _binned(inp, user_column is not None, inp.missing(column), [(x, nbins)])
        tally = _tally(inp, "_b0", "_st", user_column, rule, None, cap, source=source)
        _check_numbers(inp, tally, [column])
        counts = np.zeros(nbins, dtype=np.int64)
        counts[tally.values.astype(np.int64)] = tally.counts
        if counts.sum() == 0:
            _no_value(inp, tally.status_rows, f"column {column!r}")
        report = _report(inp, tally, "numeric", (column, user_column), rule_name, int(counts.sum()), (lo, hi))
        labels = tuple(
            f"[{a:.6g}, {b:.6g}{']' if i == nbins - 1 else ')'}" for i, (a, b) in enumerate(zip(edges[:-1], edges[1:]))
        )
        notes = _notes(report, f"range [{lo:g}, {hi:g}]")
        if from_data:
            notes += (
                f"the range [{lo:g}, {hi:g}] was taken from the data (min, max); a deployment fixes it in advance.",
            )
        return Histogram(counts=counts, name=inp.name, labels=labels, notes=notes), report


def _detect(inp: _Input, given: str | None, names: tuple[str, ...], what: str) -> str:
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
    are counted as out of domain and left out. Without it the box is the points' extent,
    stated in a note (it leaks the extremes). Counts equal numpy.histogram2d(lat, lon,
    [height, width], [[south, north], [west, east]]) flipped north-up. The per-user rules
    (e.g. one location per user) are read_categorical's; the report's extent is the box.
    """
    rule, rule_name = _rule_name(user_column, per_user)
    width = check_whole(width, 1, "width (grid cells)")
    with _Input(source, name, delimiter, memory_limit, threads) as inp:
        lat = _detect(inp, lat, _LAT_NAMES, "latitude")
        lon = _detect(inp, lon, _LON_NAMES, "longitude")
        y, x = inp.number(lat, "latitude column"), inp.number(lon, "longitude column")
        if bbox is None:
            found = inp.query(
                f"SELECT count(*), min({x}), min({y}), max({x}), max({y}) FROM {inp.scan()} "
                f"WHERE isfinite({x}) AND isfinite({y})"
            )[0]
            require(found[0] > 0, f"{inp.name}: no row holds a finite latitude and longitude.")
            west, south, east, north = (float(v) for v in found[1:])
            require(
                -90 <= south and north <= 90 and -180 <= west and east <= 180,
                f"{inp.name}: latitudes must lie in [-90, 90] and longitudes in [-180, 180] "
                f"(found {south:g} to {north:g} and {west:g} to {east:g}; are they swapped?).",
            )
            west, east = (west - 0.5, east + 0.5) if west == east else (west, east)
            south, north = (south - 0.5, north + 0.5) if south == north else (south, north)
        else:
            west, south, east, north = parse_bbox(bbox)
        if height is None:
            ground = (east - west) * math.cos(math.radians((south + north) / 2))
            height = max(1, round(width * (north - south) / ground)) if ground > 0 else width
        height = check_whole(height, 1, "height (grid cells)")
        require(
            width * height <= MAX_PIXELS,
            f"a {width} x {height} grid has more than {MAX_PIXELS:,} cells; choose a smaller width.",
        )
        ex, ey = _edges(west, east, width, "longitude"), _edges(south, north, height, "latitude")
        inp.bind(lo_0=south, hi_0=north, e_0=ey.tolist(), lo_1=west, hi_1=east, e_1=ex.tolist())
        source = _binned(
            inp, user_column is not None, f"coalesce({inp.missing(lat)}, {inp.missing(lon)})", [(y, height), (x, width)]
        )
        cell = f"({height - 1} - _b0) * {width} + _b1"  # row 0 is the north edge
        tally = _tally(inp, cell, "_st", user_column, rule, None, MAX_PIXELS, source=source)
        _check_numbers(inp, tally, [lat, lon])
        counts = np.zeros(width * height, dtype=np.int64)
        counts[tally.values.astype(np.int64)] = tally.counts
        if counts.sum() == 0:
            _no_value(inp, tally.status_rows, f"columns {lat!r}, {lon!r}")
        box = (west, south, east, north)
        report = _report(inp, tally, "points", (lat, lon, user_column), rule_name, int(counts.sum()), box)
        notes = _notes(report, f"box {west:g},{south:g},{east:g},{north:g}")
        if bbox is None:
            notes += (
                f"the box {west:g},{south:g},{east:g},{north:g} (W,S,E,N) was taken from the points' extent; "
                "a deployment fixes it in advance.",
            )
        return Histogram(counts=counts, name=inp.name, shape=(height, width), notes=notes), report


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
    with _Input(source, name, delimiter, memory_limit, threads) as inp:
        if value_column is None and count_column is None:
            require(len(inp.types) == 2, f"{inp.name} has {len(inp.types)} columns; name the value and count columns.")
            value_column, count_column = list(inp.types)
        require(value_column is not None and count_column is not None, "name both the value and the count column.")
        c = inp.number(count_column, "count column")
        status = (
            f"coalesce({inp.missing(value_column)}, {inp.missing(count_column)}, "
            f"CASE WHEN {c} IS NULL THEN {_NOT_NUMBER} END)"
        )
        bad = inp.query(
            f"SELECT {inp.column(count_column)} FROM {inp.scan()} WHERE {status} IS NULL AND "
            f"NOT ({c} >= 0 AND {c} = floor({c}) AND isfinite({c})) LIMIT 1"
        )
        require(not bad, f"{inp.name}: count {bad[0][0] if bad else ''!r} is not a whole number >= 0.")
        domain = _domain(domain, cap)
        tally = _tally(inp, inp.text(value_column), status, None, None, domain, cap, weight=f"CAST({c} AS HUGEINT)")
        _check_numbers(inp, tally, [count_column])
        dup = inp.query(f"SELECT v, sum(r) FROM agg WHERE st = {_KEPT} GROUP BY v HAVING sum(r) > 1 LIMIT 1")
        require(not dup, f"{inp.name}: the value {dup[0][0] if dup else ''!r} appears on more than one row.")
        labels = domain if domain is not None else _natural_order([str(v) for v in tally.values])
        where = {label: i for i, label in enumerate(labels)}
        counts = np.zeros(len(labels), dtype=np.int64)
        counts[[where[str(v)] for v in tally.values]] = tally.counts
        require(counts.sum() > 0, f"{inp.name} has no respondents: every count is 0.")
        report = _report(inp, tally, "counts", (value_column, count_column), "aggregated", int(counts.sum()))
        return Histogram(
            counts=counts, name=inp.name, labels=tuple(labels), notes=_notes(report, "declared domain")
        ), report


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
    with _Input(source, name, delimiter, memory_limit, threads) as inp:
        numeric = [c for c in columns if c not in categorical]
        nums = {c: inp.number(c) for c in numeric}
        texts = {c: inp.text(c) for c in categorical}
        not_number = " OR ".join(f"{x} IS NULL" for x in nums.values()) or "false"
        not_finite = " OR ".join(f"NOT isfinite({x})" for x in nums.values()) or "false"
        status = (
            f"coalesce({', '.join(inp.missing(c) for c in columns)}, CASE WHEN {not_number} THEN {_NOT_NUMBER} "
            f"WHEN {not_finite} THEN {_NULL} END)"
        )
        tally = _tally(inp, "NULL", status, None, None, None, 1)  # rows per status (one value, NULL)
        _check_numbers(inp, tally, numeric)
        kept = tally.status_rows.get(_KEPT, 0)
        require(kept > 0, f"{inp.name}: no row has a value in every column of {', '.join(columns)}.")
        require(kept <= MAX_ROWS, f"{inp.name} has {kept:,} complete rows; a table holds at most {MAX_ROWS:,}.")
        rows = f"(SELECT * FROM {inp.scan()} WHERE {status} IS NULL)"
        labels = []
        for j, col in enumerate(categorical):
            levels = [v for (v,) in inp.query(f"SELECT DISTINCT {texts[col]} FROM {rows} LIMIT {MAX_CATEGORIES + 1}")]
            require(
                len(levels) <= MAX_CATEGORIES,
                f"{inp.name}: column {col!r} has more than "
                f"{MAX_CATEGORIES:,} categories; the limit is {MAX_CATEGORIES:,}.",
            )
            labels.append(tuple(_natural_order(levels)))
            inp.execute(
                f"CREATE TABLE levels_{j} AS SELECT unnest($l) AS v, generate_subscripts($l, 1) - 1 AS code",
                {"l": list(labels[-1])},
            )
        bounds, inferred = [], []
        for col in numeric:
            if col in ranges:
                lo, hi = _range(ranges[col], f"column {col!r}")
            else:
                lo, hi = (float(v) for v in inp.query(f"SELECT min({nums[col]}), max({nums[col]}) FROM {rows}")[0])
                require(
                    lo < hi, f"{inp.name}: column {col!r} holds the single value {lo:g}; give it a range or drop it."
                )
                inferred.append(col)
            bounds.append((lo, hi))
        outside = [
            f"count(*) FILTER (WHERE NOT ({nums[c]} BETWEEN {lo!r} AND {hi!r}))" for c, (lo, hi) in zip(numeric, bounds)
        ]
        any_outside = " OR ".join(f"NOT ({nums[c]} BETWEEN {lo!r} AND {hi!r})" for c, (lo, hi) in zip(numeric, bounds))
        per_column = inp.query(
            f"SELECT count(*) FILTER (WHERE {any_outside or 'false'}) {''.join(', ' + o for o in outside)} FROM {rows}"
        )[0]
        notes = [
            f"{c}: {k:,} value(s) outside [{lo:g}, {hi:g}] were clipped."
            for c, (lo, hi), k in zip(numeric, bounds, per_column[1:])
            if k
        ]
        if inferred:
            notes.append(
                f"the range of {', '.join(inferred)} was taken from the data (min, max); "
                "a deployment fixes ranges in advance."
            )
        select = [f"{x} AS {_ident(c)}" for c, x in nums.items()]
        select += [
            f"(SELECT code FROM levels_{j} WHERE v = {texts[c]}) AS {_ident(c)}" for j, c in enumerate(categorical)
        ]
        got = inp.fetch(f"SELECT {', '.join(select)} FROM {rows}")
        report = IngestReport(
            file=inp.name,
            kind="table",
            columns=tuple(columns),
            rows=int(sum(tally.status_rows.values())),
            kept=int(kept),
            nulls=int(tally.status_rows.get(_NULL, 0)),
            empty=int(tally.status_rows.get(_EMPTY, 0)),
            out_of_domain=int(per_column[0]),
            missing_user=0,
            distinct=0,
            users=None,
            respondents=int(kept),
            rule="one row per respondent",
        )
        table = NumericTable(
            numeric=np.column_stack(
                [to_unit(np.asarray(got[c], dtype=np.float64), lo, hi) for c, (lo, hi) in zip(numeric, bounds)]
            )
            if numeric
            else None,
            categorical=np.column_stack([np.asarray(got[c], dtype=np.int64) for c in categorical])
            if categorical
            else None,
            domains=tuple(len(lab) for lab in labels),
            ranges=tuple(bounds),
            numeric_names=tuple(numeric),
            categorical_names=tuple(categorical),
            labels=tuple(labels),
            name=inp.name,
            notes=_missing_note(report) + tuple(notes),
        )
        return table, report


def columns(
    source, *, name: str | None = None, delimiter: str | None = None, memory_limit: str = MEMORY_LIMIT
) -> dict[str, str]:
    """The file's columns in order, each with its type (DuckDB's name: every column of a CSV or
    TSV is VARCHAR, read as text), without reading its rows: what a user chooses the column(s)
    from. Malformed files give the readers' one-sentence InputError."""
    with _Input(source, name, delimiter, memory_limit, None) as inp:
        return dict(inp.types)


def point_columns(names) -> tuple[str | None, str | None]:
    """(latitude, longitude) columns found by name among names, as read_points finds them
    (lat/latitude and lon/lng/long/longitude, any case); None where not exactly one matches."""
    names = list(names)
    found = [[c for c in names if c.strip().lower() in wanted] for wanted in (_LAT_NAMES, _LON_NAMES)]
    lat, lon = (f[0] if len(f) == 1 else None for f in found)
    return lat, lon


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


@dataclass(frozen=True)
class Sample:
    """A bundled raw-records file (assets/make_samples.py generates them with a seed) and the
    reader arguments that make a histogram of it; load(**options) overrides them."""

    name: str
    description: str
    file: str
    reader: Callable[..., tuple[Histogram, IngestReport]]
    options: tuple[tuple[str, object], ...]

    def load(self, **options) -> tuple[Histogram, IngestReport]:
        with importlib.resources.as_file(BUNDLED / self.file) as path:
            return self.reader(path, **(dict(self.options) | options))


SAMPLES = {
    s.name: s
    for s in (
        Sample(
            "app-events",
            "app-category events of 6,000 users over a week, one category per user (first event)",
            "app_events.csv",
            read_categorical,
            (("column", "app_category"), ("user_column", "user_id"), ("per_user", "first")),
        ),
        Sample(
            "city-points",
            "100,000 synthetic location points over a fictional city, on a 256-cell-wide grid",
            "city_points.csv",
            read_points,
            (("width", 256),),
        ),
    )
}


def load_sample(name: str, **options) -> tuple[Histogram, IngestReport]:
    """A bundled raw-records sample by name (see SAMPLES), with reader options overridden."""
    require(name in SAMPLES, f"unknown sample {name!r}; choose one of {', '.join(SAMPLES)}.")
    return SAMPLES[name].load(**options)
