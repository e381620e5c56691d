"""Warehouses through Ibis (ldpcore.data.sql): on Ibis-DuckDB and Ibis-SQLite, the per-user rules, numeric
bins and latitude/longitude grids give the histograms and drop reports of the native DuckDB path on the same
files; the compiled SQL for BigQuery, Snowflake and PySpark is pinned in golden files."""

import dataclasses
import functools
import importlib.resources
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ibis = pytest.importorskip("ibis")
pa = pytest.importorskip("pyarrow")
import pyarrow.csv as pacsv  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from conftest import ROOT  # noqa: E402

from ldpcore.data import ingest, sql  # noqa: E402
from ldpcore.errors import InputError  # noqa: E402

BUNDLED = importlib.resources.files("ldpcore.data") / "bundled"
GOLDEN = Path(__file__).resolve().parent / "golden" / "sql"
BACKENDS = ("duckdb", "sqlite")
RULES = (None, "first", "mode", "distinct:2", "distinct:3")
APP_EVENTS = Path(str(BUNDLED / "app_events.csv"))
CITY_POINTS = Path(str(BUNDLED / "city_points.csv"))


def load(con, path: Path, name: str):
    """The file as a table of the backend with its 1-based line numbers in `line`: a CSV as text (an empty
    field stays '': a CSV has no NULL), a Parquet file with its types and NULLs."""
    if path.suffix == ".parquet":
        table = pq.read_table(path)
    else:
        header = path.read_text(encoding="utf-8").splitlines()[0].split(",")
        options = pacsv.ConvertOptions(column_types={c: pa.string() for c in header}, strings_can_be_null=False)
        table = pacsv.read_csv(path, convert_options=options)
    table = table.append_column("line", pa.array(range(1, table.num_rows + 1), pa.int64()))
    return con.create_table(name, table, overwrite=True)


def same(native, through_ibis):
    """Histogram (counts, labels, shape, notes) and report equal; the report's file names the table."""
    (h1, r1), (h2, r2) = native, through_ibis
    assert np.array_equal(h1.counts, h2.counts)
    assert (None if h1.labels is None else tuple(h1.labels)) == (None if h2.labels is None else tuple(h2.labels))
    assert h1.shape == h2.shape
    assert h1.notes == h2.notes
    assert dataclasses.replace(r2, file=r1.file) == r1


@pytest.fixture(scope="module", params=BACKENDS)
def con(request):
    """One database per backend for the module, holding the bundled samples."""
    connection = getattr(ibis, request.param).connect()
    load(connection, APP_EVENTS, "app_events")
    connection.create_table("city_points", pacsv.read_csv(CITY_POINTS))
    yield connection
    connection.disconnect()


@functools.cache
def native(reader: str, path: Path, *args, **options):
    """The DuckDB path's answer (each asked once for both backends)."""
    return getattr(ingest, reader)(path, *args, **options)


def per_user(rule):
    return {} if rule is None else {"user_column": "user_id", "per_user": rule}


@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES)
def test_bundled_app_events_per_user_rules(con, rule):
    got = sql.read_categorical(
        con.table("app_events"), "app_category", order_by="line" if rule else None, **per_user(rule)
    )
    same(native("read_categorical", APP_EVENTS, "app_category", **per_user(rule)), got)
    assert got[1].rows == 48266 and got[1].kept > 48000


@pytest.mark.parametrize(
    "options",
    [{}, {"width": 64}, {"width": 100, "bbox": "-74.05,40.60,-73.85,40.85"}, {"width": 50, "height": 7}],
)
@pytest.mark.slow
def test_bundled_city_points_grid(con, options):
    same(native("read_points", CITY_POINTS, **options), sql.read_points(con.table("city_points"), **options))


@pytest.mark.parametrize(
    "options",
    [
        {"bins": 10},
        {"bins": "sturges"},
        {"bins": 37, "value_range": (40.7, 40.8)},
        {"bins": "rice", "value_range": (40.7, 40.8)},
    ],
)
@pytest.mark.slow
def test_bundled_city_points_numeric_bins(con, options):
    got = sql.read_numeric(con.table("city_points"), "latitude", **options)
    same(native("read_numeric", CITY_POINTS, "latitude", **options), got)


# events with blanks, tabs, surrounding spaces, missing users, and ties for mode (user, category)
CRAFTED = [
    ("u1", "a"),
    ("u1", " b "),  # the same value as "b": surrounding spaces are removed
    ("u1", "b"),
    ("u1", "a"),  # u1's mode: a and b twice each; a is seen first
    ("u2", "\tb"),  # a tab is part of the value (SQL TRIM removes spaces only)
    ("u2", ""),  # empty
    ("u2", "   "),  # blank: empty
    ("u2", "c"),
    ("u2", "c"),
    ("", "a"),  # no user id
    ("  ", "c"),  # a blank user id
    ("u3", "z1"),  # out of the domain below (six values, so only five are named)
    ("u3", "z2"),
    ("u3", "z2"),
    ("u3", "z3"),
    ("u3", "z4"),
    ("u3", "z5"),
    ("u3", "z6"),
    ("u3", "b"),
    (" u4 ", "c"),  # the same user as "u4"
    ("u4", "a"),
    ("u4", "\tb"),
]


@pytest.fixture
def crafted_csv(tmp_path):
    path = tmp_path / "crafted.csv"
    lines = ["user_id,category"] + [f"{u},{c}" for u, c in CRAFTED]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("domain", [None, ["a", "b", "c", "\tb"]])
def test_crafted_csv_blanks_tabs_ties_and_domain(con, crafted_csv, rule, domain):
    table = load(con, crafted_csv, "crafted")
    native = ingest.read_categorical(crafted_csv, "category", domain=domain, **per_user(rule))
    got = sql.read_categorical(table, "category", domain=domain, order_by="line" if rule else None, **per_user(rule))
    same(native, got)
    report = got[1]
    assert report.empty == 2 and (rule is None or report.missing_user == 2)
    assert report.distinct == (4 if domain else 10)  # "\tb" is not "b" (Ibis's strip() would have merged them)
    if domain is not None:
        assert report.out_of_domain == 7 and report.examples == ("z2", "z1", "z3", "z4", "z5")


def test_crafted_rules_give_the_worked_out_counts(con, crafted_csv):
    """The rules by hand on CRAFTED (users u1..u4; mode ties go to the value seen first)."""
    table = load(con, crafted_csv, "crafted")

    def counts(rule):
        hist, _ = sql.read_categorical(table, "category", user_column="user_id", per_user=rule, order_by="line")
        return dict(zip(hist.labels, hist.counts.tolist()))

    assert counts("first") == {"a": 1, "\tb": 1, "z1": 1, "c": 1}
    assert counts("mode") == {"a": 1, "c": 2, "z2": 1}  # u1: a and b twice, a first; u2 c; u3 z2; u4: c first
    assert counts("distinct:2") == {"a": 2, "b": 1, "\tb": 1, "c": 2, "z1": 1, "z2": 1}


@pytest.fixture
def crafted_parquet(tmp_path):
    """Typed columns with NULLs, NaN and infinities; an integer category; ties in `time`."""
    path = tmp_path / "typed.parquet"
    nan, inf = float("nan"), float("inf")
    table = pa.table(
        {
            "user_id": ["u1", "u1", None, "u2", "u2", "u2", "u3", "u3", "", "u4", "u4", "u5"],
            "category": ["a", None, "b", " ", "c", "c", "a", "b", "a", None, "d", "d"],
            "code": pa.array([1, 2, None, 3, 3, 1, 2, 2, 1, None, 10, 10], pa.int64()),
            "x": [0.0, 2.5, nan, None, 10.0, -inf, inf, 7.5, 5.0, 12.0, 1e-9, 9.999999999],
            "lat": [40.0, 40.5, None, 41.0, nan, 40.25, 40.75, 42.0, 40.1, 40.9, 40.3, 40.6],
            "lon": [-74.0, -73.5, -73.0, None, -73.2, -73.9, -73.1, -73.5, -73.3, inf, -73.6, -73.7],
            "time": pa.array([1, 1, 2, 3, 3, 3, 5, 4, 1, 2, 7, 7], pa.int64()),
        }
    )
    pq.write_table(table, path)
    return path


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("column", ["category", "code"])
def test_crafted_parquet_categories_with_nulls(con, crafted_parquet, rule, column):
    table = load(con, crafted_parquet, "typed")
    native = ingest.read_categorical(crafted_parquet, column, **per_user(rule))
    same(native, sql.read_categorical(table, column, order_by="line" if rule else None, **per_user(rule)))


@pytest.mark.parametrize("rule", [None, "first", "mode", "distinct:2"])
@pytest.mark.parametrize(
    "options", [{"bins": 4, "value_range": (0, 10)}, {"bins": 3}, {"bins": "sqrt", "value_range": (0, 10)}]
)
def test_crafted_parquet_numeric_bins_with_nan_and_infinities(con, crafted_parquet, rule, options):
    table = load(con, crafted_parquet, "typed")
    native = ingest.read_numeric(crafted_parquet, "x", **options, **per_user(rule))
    same(native, sql.read_numeric(table, "x", order_by="line" if rule else None, **options, **per_user(rule)))


@pytest.mark.slow
@pytest.mark.parametrize("rule", [None, "first"])
@pytest.mark.parametrize("options", [{"width": 4}, {"width": 3, "height": 2, "bbox": (-74, 40, -73, 41)}])
def test_crafted_parquet_points_with_nulls_and_out_of_box(con, crafted_parquet, rule, options):
    table = load(con, crafted_parquet, "typed")
    native = ingest.read_points(crafted_parquet, "lat", "lon", **options, **per_user(rule))
    got = sql.read_points(table, "lat", "lon", order_by="line" if rule else None, **options, **per_user(rule))
    same(native, got)


def test_edge_values_fall_in_numpy_bins(con):
    """Values on every edge of numpy.linspace(0, 1, 8) (0.1 * k is not exact) land in numpy.histogram's bins."""
    edges = np.linspace(0.0, 1.0, 8)
    x = np.concatenate([edges, np.nextafter(edges, -1), np.nextafter(edges, 2)])
    table = con.create_table("edges", pa.table({"x": x}), overwrite=True)
    hist, report = sql.read_numeric(table, "x", bins=7, value_range=(0, 1))
    assert hist.counts.tolist() == np.histogram(x, bins=7, range=(0, 1))[0].tolist()
    assert report.out_of_domain == 2  # just below 0 and just above 1


@pytest.mark.slow
def test_ties_in_order_by_are_broken_by_the_value_on_every_backend():
    """Rows tied in order_by (and NULL orders, last) are ordered by their value, the same on DuckDB and SQLite."""
    data = pa.table(
        {
            "user_id": ["u1", "u1", "u2", "u2", "u2", "u3", "u3"],
            "category": ["b", "a", "c", "a", "c", "z", "y"],
            "time": pa.array([5, 5, None, 2, 2, None, None], pa.int64()),
        }
    )
    results = []
    for backend in BACKENDS:
        table = getattr(ibis, backend).connect().create_table("events", data)
        for rule in ("first", "mode", "distinct:1"):
            hist, _ = sql.read_categorical(table, "category", user_column="user_id", per_user=rule, order_by="time")
            results.append((rule, dict(zip(hist.labels, hist.counts.tolist()))))
    first, mode, distinct = results[:3]
    assert first[1] == {"a": 2, "y": 1}  # u1: a before b at time 5; u2: a at 2; u3: y before z (both NULL)
    assert mode[1] == {"a": 1, "c": 1, "y": 1}  # u2: c twice; u1 a (tie at 5, a first); u3: y
    assert distinct[1] == first[1]
    assert results[3:] == results[:3]


@pytest.mark.slow
def test_the_bundled_events_by_event_time_agree_across_backends():
    """order_by a timestamp text with ties (two events of a user in the same second): one answer everywhere."""
    answers = []
    for backend in BACKENDS:
        table = load(getattr(ibis, backend).connect(), APP_EVENTS, "app_events")
        for rule in ("first", "mode", "distinct:2"):
            hist, report = sql.read_categorical(
                table, "app_category", user_column="user_id", per_user=rule, order_by="event_time"
            )
            answers.append((hist.labels, hist.counts.tolist(), report))
    assert answers[:3] == answers[3:]


def test_a_connection_and_a_table_name(crafted_csv):
    con = ibis.duckdb.connect()
    load(con, crafted_csv, "crafted")
    hist, report = sql.read_categorical("crafted", "category", con=con)
    assert report.file == "crafted" and hist.n == report.kept
    with pytest.raises(InputError, match="give its connection as con"):
        sql.read_categorical("crafted", "category")
    with pytest.raises(InputError, match="no table 'missing'"):
        sql.read_categorical("missing", "category", con=con)


def test_bad_input_gives_one_clear_message(crafted_parquet):
    table = load(ibis.duckdb.connect(), crafted_parquet, "typed")
    with pytest.raises(InputError, match="needs order_by"):
        sql.read_categorical(table, "category", user_column="user_id")
    with pytest.raises(InputError, match="has no column 'nope'; its columns are user_id, category"):
        sql.read_categorical(table, "nope")
    with pytest.raises(InputError, match="holds string values, not numbers; cast it"):
        sql.read_numeric(table, "category", bins=3)
    with pytest.raises(InputError, match="per_user must be first, mode or distinct:K"):
        sql.read_categorical(table, "category", user_column="user_id", per_user="last", order_by="time")
    with pytest.raises(InputError, match="more than 2 distinct values"):
        sql.read_categorical(table, "category", max_domain=2)
    with pytest.raises(InputError, match="has no usable value"):
        sql.read_categorical(table, "category", domain=["nothing"])
    with pytest.raises(InputError, match="an Ibis table or a table name"):
        sql.read_categorical(42, "category")


# --- compiled SQL -------------------------------------------------------------------------

EVENTS = {"user_id": "string", "category": "string", "event_time": "timestamp", "amount": "float64"}
POINTS = {"user_id": "string", "lat": "float64", "lon": "float64", "event_time": "timestamp"}
QUERIES = {
    "categorical, one row per respondent": lambda: sql.categorical_query(ibis.table(EVENTS, name="events"), "category"),
    "categorical, first per user": lambda: sql.categorical_query(
        ibis.table(EVENTS, name="events"), "category", user_column="user_id", per_user="first", order_by="event_time"
    ),
    "categorical, mode per user, a declared domain": lambda: sql.categorical_query(
        ibis.table(EVENTS, name="events"),
        "category",
        user_column="user_id",
        per_user="mode",
        order_by="event_time",
        domain=["news", "social", "video"],
    ),
    "categorical, distinct:3 per user": lambda: sql.categorical_query(
        ibis.table(EVENTS, name="events"),
        "category",
        user_column="user_id",
        per_user="distinct:3",
        order_by="event_time",
    ),
    "numeric, 20 bins over [0, 100]": lambda: sql.numeric_query(
        ibis.table(EVENTS, name="events"), "amount", bins=20, value_range=(0, 100)
    ),
    "points, a 256-cell-wide grid, first per user": lambda: sql.points_query(
        ibis.table(POINTS, name="points"),
        "lat",
        "lon",
        bbox="-74.05,40.60,-73.85,40.85",
        width=256,
        user_column="user_id",
        per_user="first",
        order_by="event_time",
    ),
}


def golden_text(dialect: str) -> str:
    return "".join(f"-- query: {name}\n{sql.to_sql(make(), dialect)};\n\n" for name, make in QUERIES.items())


@pytest.mark.slow
@pytest.mark.parametrize("dialect", ["bigquery", "snowflake", "pyspark"])
def test_compiled_sql_is_pinned_in_golden_files(dialect):
    """Set LDPCORE_UPDATE_GOLDEN=1 to rewrite them after a deliberate change (and read the diff)."""
    path = GOLDEN / f"{dialect}.sql"
    text = golden_text(dialect)
    if os.environ.get("LDPCORE_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
    assert "TRIM(" in text and "ROW_NUMBER()" in text
    assert ibis.options.pyspark is None  # the Spark compiler's option is set while compiling only


def test_the_compiled_query_runs_and_its_kept_rows_are_the_histogram(crafted_csv):
    """The printed SQL, pasted into another engine (SQLite here), gives the reader's counts."""
    import sqlite3

    table = load(ibis.duckdb.connect(), crafted_csv, "crafted")
    unbound = ibis.table(table.schema(), name="crafted")
    query = sql.categorical_query(unbound, "category", user_column="user_id", per_user="first", order_by="line")
    text = sql.to_sql(query, "sqlite")
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE crafted (user_id TEXT, category TEXT, line INTEGER)")
    db.executemany("INSERT INTO crafted VALUES (?, ?, ?)", [(u, c, i + 1) for i, (u, c) in enumerate(CRAFTED)])
    rows = db.execute(f"SELECT value, count FROM ({text}) WHERE status = 'kept' AND count > 0").fetchall()
    hist, _ = sql.read_categorical(table, "category", user_column="user_id", per_user="first", order_by="line")
    assert dict(rows) == dict(zip(hist.labels, hist.counts.tolist()))


def test_an_unknown_dialect_is_one_message():
    with pytest.raises(InputError, match="cannot be written in the dialect 'nosuchsql'"):
        sql.to_sql(QUERIES["numeric, 20 bins over [0, 100]"](), "nosuchsql")


@pytest.mark.slow
def test_ibis_is_imported_on_first_use_only():
    code = "import sys, ldpcore.data.sql; print('ibis' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "False"


@pytest.mark.slow
def test_a_file_gives_the_table_to_compile_against():
    """file_table: the columns and types DuckDB finds in a file, as an unbound table for to_sql."""
    events = sql.file_table(APP_EVENTS, name="events")
    types = events.schema()
    assert list(types) == ["user_id", "app_category", "event_time"]
    assert types["user_id"].is_string() and types["app_category"].is_string() and types["event_time"].is_timestamp()
    query = sql.categorical_query(events, "app_category", user_column="user_id", order_by="event_time")
    assert "FROM `events`" in sql.to_sql(query, "bigquery")
    points = sql.file_table(CITY_POINTS)
    assert points.get_name() == "city_points" and points.schema()["latitude"].is_floating()
    with pytest.raises(InputError, match="no such file"):
        sql.file_table(CITY_POINTS.with_name("missing.csv"))
