"""`ldpcore histogram --sql DIALECT`: the query of ldpcore.data.sql for a table with --input's columns, printed
instead of reading the file; run where the data lives it gives the histogram the readers give."""

import duckdb
import pytest
from conftest import ROOT

ibis = pytest.importorskip("ibis")

from ldpcore.cli import main  # noqa: E402
from ldpcore.data import sql  # noqa: E402

EVENTS = "ldpcore/data/bundled/app_events.csv"
POINTS = "ldpcore/data/bundled/city_points.csv"
FIRST = ["--column", "app_category", "--user-column", "user_id", "--per-user", "first", "--order-by", "event_time"]


def printed(capsys, *args) -> str:
    assert main(["histogram", *args]) == 0
    return capsys.readouterr().out


@pytest.mark.slow
def test_the_printed_query_is_the_library_s(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    text = printed(capsys, "--input", EVENTS, *FIRST, "--sql", "bigquery")
    table = sql.file_table(EVENTS)
    query = sql.categorical_query(table, "app_category", user_column="user_id", per_user="first", order_by="event_time")
    assert text == sql.to_sql(query, "bigquery") + "\n"
    assert "FROM `app_events`" in text and "TRIM(" in text and "ROW_NUMBER()" in text


@pytest.mark.slow
def test_run_where_the_data_lives_it_gives_the_reader_s_histogram(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    text = printed(capsys, "--input", EVENTS, *FIRST, "--sql", "duckdb", "--table", "events")
    db = duckdb.connect()
    db.execute(f"CREATE TABLE events AS SELECT * FROM read_csv('{EVENTS}')")
    kept = dict(db.execute(f"SELECT value, count FROM ({text}) WHERE status = 'kept' AND count > 0").fetchall())
    con = ibis.duckdb.connect()
    con.raw_sql(f"CREATE TABLE events AS SELECT * FROM read_csv('{EVENTS}')")
    hist, _ = sql.read_categorical(
        "events", "app_category", con=con, user_column="user_id", per_user="first", order_by="event_time"
    )
    assert kept == dict(zip(hist.labels, hist.counts.tolist()))


def test_bins_and_grids_print_their_query(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    numeric = printed(
        capsys, "--input", POINTS, "--column", "latitude", "--bins", "8", "--range", "40.6,40.9", "--sql", "snowflake"
    )
    assert 'FROM "city_points"' in numeric and "FLOOR(" in numeric
    grid = printed(capsys, "--input", POINTS, "--grid", "16", "--bbox=-74.05,40.60,-73.85,40.85", "--sql", "pyspark")
    assert "FROM `city_points`" in grid and "`latitude`" in grid and "`longitude`" in grid


@pytest.mark.parametrize(
    "args, message",
    [
        ([*FIRST[:-2], "--sql", "bigquery"], "needs order_by"),
        (["--column", "latitude", "--bins", "8", "--sql", "bigquery"], "--sql needs --range"),
        (["--column", "latitude", "--bins", "sturges", "--range", "40,41", "--sql", "bigquery"], "a number of bins"),
        (["--grid", "16", "--sql", "bigquery"], "--sql needs --bbox"),
        (["--column", "app_category", "--sql", "bigquery", "--out", "x.csv"], "takes no --out"),
        (["--column", "app_category", "--sql", "nosuchsql"], "cannot be written in the dialect 'nosuchsql'"),
        (["--column", "app_category", "--order-by", "event_time", "--out", "x.csv"], "are for --sql"),
        (["--column", "app_category"], "give --out"),
    ],
)
def test_bad_options_are_one_line_with_status_2(capsys, monkeypatch, args, message):
    monkeypatch.chdir(ROOT)
    source = POINTS if "latitude" in args or "--grid" in args else EVENTS
    assert main(["histogram", "--input", source, *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
