"""Raw records through DuckDB: formats agree, per-user rules count as documented, every row
is accounted for, grids and bins equal numpy's, plain SQL gives the same counts, and bad
files give one clear InputError."""

import csv
import re
import sqlite3
from pathlib import Path

import duckdb
import numpy as np
import pytest

from ldpcore.data.histogram_csv import load_csv
from ldpcore.data.ingest import (
    IngestReport,
    load_sample,
    parse_bbox,
    parse_rule,
    read_categorical,
    read_counts,
    read_numeric,
    read_points,
    read_table,
    write_counts,
)
from ldpcore.data.numeric_table import load_table_csv
from ldpcore.errors import InputError
from ldpcore.experiment.protocol.run import run
from ldpcore.experiment.protocol.spec import ProtocolSpec
from ldpcore.export import render

DOCS = Path(__file__).resolve().parent.parent / "docs" / "your_data.md"


def write_csv(path, header, rows, delimiter=","):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh, delimiter=delimiter, lineterminator="\n")
        out.writerow(header)
        out.writerows(rows)
    return path


def write_parquet(path, columns: dict):
    """A Parquet file with DuckDB's own writer (no pyarrow): columns maps names to lists."""
    con = duckdb.connect()
    names = list(columns)
    select = ", ".join(f'unnest($c{j}) AS "{n}"' for j, n in enumerate(names))
    con.execute(f"CREATE TABLE t AS SELECT {select}", {f"c{j}": columns[n] for j, n in enumerate(names)})
    con.execute(f"COPY t TO '{path}' (FORMAT PARQUET)")
    con.close()
    return path


def accounted(r: IngestReport) -> bool:
    return r.rows == r.kept + r.nulls + r.empty + r.out_of_domain + r.missing_user


# one user's events: user, app (hand-made; the expected counts are worked out in the comments)
EVENTS = [
    ("u1", "mail"),
    ("u1", "maps"),
    ("u1", "maps"),  # first mail, mode maps, distinct:2 mail+maps
    ("u2", "chat"),
    ("u2", ""),  # an empty value: left out before the rule
    ("u3", "mail"),
    ("u3", "chat"),
    ("u3", "chat"),
    ("u3", "mail"),  # mode tie 2-2: mail (first seen)
    ("", "mail"),  # no user id: left out
    ("u4", " chat "),  # surrounding spaces removed
    ("u5", "10"),
    ("u5", "2"),
    ("u5", "maps"),  # distinct:2 keeps 10 and 2
]


@pytest.fixture
def events(tmp_path):
    return write_csv(tmp_path / "events.csv", ("user", "app"), EVENTS)


@pytest.mark.parametrize(
    "rule, expected",
    [
        (None, {"10": 1, "2": 1, "chat": 4, "mail": 4, "maps": 3}),
        ("first", {"10": 1, "chat": 2, "mail": 2}),
        ("mode", {"10": 1, "chat": 2, "mail": 1, "maps": 1}),
        ("distinct:2", {"10": 1, "2": 1, "chat": 3, "mail": 2, "maps": 1}),
        ("distinct:1", {"10": 1, "chat": 2, "mail": 2}),
    ],
)
def test_per_user_rules_give_the_documented_counts(events, rule, expected):
    hist, rep = read_categorical(events, "app", user_column=None if rule is None else "user", per_user=rule)
    assert dict(zip(hist.labels, hist.counts.tolist())) == {k: expected.get(k, 0) for k in hist.labels}
    assert set(expected) <= set(hist.labels) and hist.n == sum(expected.values()) == rep.respondents
    assert rep.rows == len(EVENTS) and rep.empty == 1 and accounted(rep)
    if rule is None:
        assert rep.users is None and rep.missing_user == 0 and rep.rule == "one row per respondent"
    else:
        assert rep.users == 5 and rep.missing_user == 1 and rep.rule == rule
        assert f"per-user rule {rule}: 5 users contribute {hist.n} values." in hist.notes


def test_labels_sort_as_numbers_when_all_are_numbers(tmp_path):
    path = write_csv(tmp_path / "r.csv", ("rating",), [("10",), ("2",), ("1",), ("2",)])
    hist, _ = read_categorical(path, "rating")
    assert hist.labels == ("1", "2", "10") and list(hist.counts) == [1, 2, 1]


def test_csv_tsv_parquet_and_bytes_give_identical_histograms(tmp_path):
    rng = np.random.default_rng(7)
    names = np.array(["mail", "maps", "chat, video", 'say "hi"', "café", "#tag", "007", "x y"])
    values = names[rng.integers(0, len(names), 3000)].tolist()
    users = [f"user{u}" for u in rng.integers(0, 400, 3000)]
    paths = [
        write_csv(tmp_path / "a.csv", ("user", "app"), zip(users, values)),
        write_csv(tmp_path / "a.tsv", ("user", "app"), zip(users, values), delimiter="\t"),
        write_parquet(tmp_path / "a.parquet", {"user": users, "app": values}),
    ]
    for rule in (None, "first", "mode", "distinct:3"):
        kw = {} if rule is None else {"user_column": "user", "per_user": rule}
        results = [read_categorical(p, "app", **kw) for p in paths]
        results.append(read_categorical(paths[2].read_bytes(), "app", name="upload.parquet", **kw))
        results.append(read_categorical(paths[0], "app", threads=1, memory_limit="64MB", **kw))
        hist0 = results[0][0]
        assert set(hist0.labels) == set(names.tolist())
        for hist, rep in results:
            assert hist.labels == hist0.labels and np.array_equal(hist.counts, hist0.counts)
            assert rep.rows == 3000 and rep.kept == 3000 and accounted(rep)
    assert results[-2][1].file == "upload.parquet"


def test_nulls_empty_and_out_of_domain_are_counted_and_reported(tmp_path):
    app = ["mail", None, "", "  ", "maps", "games", "games", "tv", "mail", None]
    path = write_parquet(tmp_path / "d.parquet", {"app": app})
    hist, rep = read_categorical(path, "app", domain=["mail", "maps", "chat"])
    assert hist.labels == ("mail", "maps", "chat") and list(hist.counts) == [2, 1, 0]
    assert (rep.rows, rep.kept, rep.nulls, rep.empty, rep.out_of_domain) == (10, 3, 2, 2, 3)
    assert rep.examples == ("games", "tv") and rep.distinct == 2 and accounted(rep)
    assert hist.notes == (
        "4 rows of 10 had no value (2 NULL, 2 empty) and were left out.",
        "3 rows held values outside the declared domain (e.g. 'games', 'tv') and were left out.",
    )
    hist, rep = read_categorical(path, "app")  # without a domain every value is kept
    assert hist.labels == ("games", "mail", "maps", "tv") and rep.out_of_domain == 0 and rep.kept == 6


def test_domain_cap_and_domain_checks(tmp_path):
    path = write_csv(tmp_path / "ids.csv", ("id",), [(str(i),) for i in range(50)])
    with pytest.raises(InputError, match=r"ids.csv: the data has 50 distinct values; the limit is 10 "):
        read_categorical(path, "id", max_domain=10)
    with pytest.raises(InputError, match="the domain lists the value 'a' twice"):
        read_categorical(path, "id", domain=["a", "b", "a"])
    with pytest.raises(InputError, match="per_user must be first, mode or distinct:K"):
        read_categorical(path, "id", user_column="id", per_user="last")
    with pytest.raises(InputError, match="K in per_user distinct:K must be a whole number >= 1"):
        parse_rule("distinct:0")
    with pytest.raises(InputError, match="per_user needs a user_column"):
        read_categorical(path, "id", per_user="first")


def test_points_grid_equals_numpy_histogram2d(tmp_path):
    rng = np.random.default_rng(3)
    lat = np.concatenate([rng.normal(40.73, 0.05, 4000), [40.6, 40.9, 40.75, 41.5]])  # edges and outside
    lon = np.concatenate([rng.normal(-73.95, 0.06, 4000), [-74.1, -73.8, -73.9, -73.9]])
    path = write_parquet(tmp_path / "pts.parquet", {"latitude": lat.tolist(), "lng": lon.tolist()})
    hist, rep = read_points(path, width=40, height=30, bbox=(-74.1, 40.6, -73.8, 40.9))
    ref, _, _ = np.histogram2d(lat, lon, bins=[30, 40], range=[[40.6, 40.9], [-74.1, -73.8]])
    assert hist.shape == (30, 40) and np.array_equal(hist.counts.reshape(30, 40), np.flipud(ref).astype(np.int64))
    assert rep.kept == ref.sum() and rep.out_of_domain == lat.size - ref.sum() and accounted(rep)
    assert rep.columns == ("latitude", "lng") and rep.extent == (-74.1, 40.6, -73.8, 40.9)
    # the box from the data, and the default height: cells about square on the ground
    hist, rep = read_points(path, width=50)
    west, south, east, north = rep.extent
    height = round(50 * (north - south) / ((east - west) * np.cos(np.radians((south + north) / 2))))
    ref, _, _ = np.histogram2d(lat, lon, bins=[height, 50], range=[[south, north], [west, east]])
    assert hist.shape == (height, 50) and np.array_equal(hist.counts.reshape(height, 50), np.flipud(ref))
    assert rep.out_of_domain == lat.size - ref.sum()
    assert any("taken from the points (the central 99%" in n for n in hist.notes)
    # the box is the robust extent: quantiles 0.5% and 99.5% widened by 10% of their span, within the extent
    for values, lo, hi in ((lon, west, east), (lat, south, north)):
        q_lo, q_hi = np.quantile(values, [0.005, 0.995])
        assert lo == pytest.approx(max(values.min(), q_lo - 0.1 * (q_hi - q_lo)), rel=1e-12)
        assert hi == pytest.approx(min(values.max(), q_hi + 0.1 * (q_hi - q_lo)), rel=1e-12)
    assert rep.out_of_domain < 0.01 * lat.size  # a normal cloud keeps all but its farthest points


def test_the_default_box_leaves_far_points_out(tmp_path):
    """Points on a continent with a few on an island across the ocean: the default box is the continent's, not
    one spanning the ocean (the far points are counted as out of domain)."""
    rng = np.random.default_rng(8)
    lat = np.concatenate([rng.uniform(25, 49, 3000), [13.5] * 6])  # six points on an island ...
    lon = np.concatenate([rng.uniform(-124, -67, 3000), [144.8] * 6])  # ... across the Pacific
    path = write_csv(tmp_path / "far.csv", ("lat", "lon"), np.column_stack([lat, lon]).round(4))
    hist, rep = read_points(path, width=64)
    west, south, east, north = rep.extent
    assert -125 < west <= -123.9 and -67 < east < -60 and 20 < south < 25 and 48.9 < north <= 49
    assert rep.out_of_domain == 6 and hist.n == 3000


def test_a_grid_flows_through_the_image_path(tmp_path):
    rng = np.random.default_rng(5)
    path = write_csv(tmp_path / "p.csv", ("lat", "lon"), rng.normal((48.85, 2.35), 0.02, (20000, 2)).round(6))
    hist, _ = read_points(path, width=24, bbox="2.25,48.78,2.45,48.92")
    result = run(ProtocolSpec(eps_c=1.0, delta=1e-6), hist, seed=0)
    assert hist.is_image and result.estimate.shape == (hist.d,) and "psnr" in result.metrics
    assert render(hist, result.estimate).size == (hist.shape[1], hist.shape[0])


@pytest.mark.parametrize(
    "bins, value_range", [(7, None), (20, (-2.0, 2.0)), ("sturges", None), ("rice", (-1.0, 3.0)), ("sqrt", None)]
)
def test_numeric_bins_equal_numpy_histogram(tmp_path, bins, value_range):
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.normal(0.3, 1.0, 2500), [-2.0, 2.0, 0.0, 1.0]])
    path = write_csv(tmp_path / "x.csv", ("x",), [(repr(float(v)),) for v in x])
    hist, rep = read_numeric(path, "x", bins=bins, value_range=value_range)
    ref, edges = np.histogram(x, bins=bins, range=value_range)
    assert np.array_equal(hist.counts, ref) and rep.extent == (edges[0], edges[-1])
    assert rep.out_of_domain == x.size - ref.sum() and accounted(rep)
    assert hist.labels[-1].endswith("]") and hist.labels[0].startswith("[")
    assert any("taken from the data" in n for n in hist.notes) == (value_range is None)


def test_numeric_nan_inf_and_empty_are_accounted(tmp_path):
    path = write_csv(tmp_path / "x.csv", ("x",), [("1",), ("2",), ("",), ("nan",), ("inf",), ("3",)])
    hist, rep = read_numeric(path, "x", bins=2)
    assert list(hist.counts) == [1, 2] and (rep.kept, rep.nulls, rep.empty, rep.out_of_domain) == (3, 1, 1, 1)


def test_table_matches_the_csv_table_loader(tmp_path):
    rows = [
        ("30", "red", "1.5"),
        ("41", "blue", "2"),
        ("", "red", "3"),
        ("52", "green", "9"),
        ("38", "red", "0.5"),
        ("44", "blue", "nan"),
    ]
    path = write_csv(tmp_path / "t.csv", ("age", "color", "income"), rows)
    table, rep = read_table(path, ["age", "color", "income"], categorical=["color"], ranges={"income": (0, 5)})
    complete = write_csv(tmp_path / "c.csv", ("age", "color", "income"), [r for r in rows if r[0] and r[2] != "nan"])
    ref = load_table_csv(complete, categorical=["color"], ranges={"income": (0, 5)})
    assert np.array_equal(table.numeric, ref.numeric) and np.array_equal(table.categorical, ref.categorical)
    assert table.labels == ref.labels and table.ranges == ref.ranges and table.n == 4
    assert (rep.rows, rep.kept, rep.empty, rep.nulls, rep.out_of_domain) == (6, 4, 1, 1, 1)
    assert "income: 1 value(s) outside [0, 5] were clipped." in table.notes


def test_write_counts_round_trips(events, tmp_path):
    hist, _ = read_categorical(events, "app")
    out = write_counts(hist, tmp_path / "counts.csv")
    assert out.read_text().startswith("value,count\n10,1\n2,1\nchat,4\n")
    back, rep = read_counts(out)
    assert back.labels == hist.labels and np.array_equal(back.counts, hist.counts) and rep.respondents == hist.n
    legacy = load_csv(out)
    assert legacy.labels == hist.labels and np.array_equal(legacy.counts, hist.counts)


def test_counts_table_checks(tmp_path):
    path = write_parquet(tmp_path / "c.parquet", {"v": ["a", "b", None, "c"], "n": [3, 0, 4, 2]})
    hist, rep = read_counts(path, domain=["a", "b"])
    assert list(hist.counts) == [3, 0] and (rep.nulls, rep.out_of_domain, rep.respondents) == (1, 1, 3)
    dup = write_csv(tmp_path / "dup.csv", ("value", "count"), [("a", "1"), ("b", "2"), ("a", "3")])
    with pytest.raises(InputError, match="dup.csv: the value 'a' appears on more than one row"):
        read_counts(dup)
    neg = write_csv(tmp_path / "neg.csv", ("value", "count"), [("a", "1"), ("b", "-2")])
    with pytest.raises(InputError, match="neg.csv: count '-2' is not a whole number >= 0"):
        read_counts(neg)


# --- the cluster query: plain SQL gives the same counts --------------------------------------


def doc_queries() -> dict:
    """The SQL blocks of docs/your_data.md tagged `-- query: NAME`."""
    blocks = re.findall(r"```sql\n(.*?)```", DOCS.read_text(), flags=re.S)
    return {re.match(r"-- query: (\S+)", b).group(1): b for b in blocks if b.startswith("-- query:")}


def test_the_documented_group_by_gives_the_duckdb_counts(tmp_path):
    rng = np.random.default_rng(2)
    apps = [f"app{k}" for k in rng.zipf(1.5, 5000) % 300] + ["", None, " app1 "]
    users = [f"u{k}" for k in rng.integers(0, 700, len(apps))]
    path = write_parquet(tmp_path / "events.parquet", {"user_id": users, "category": apps})
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE events (row_id INTEGER PRIMARY KEY, user_id TEXT, category TEXT)")
    con.executemany("INSERT INTO events (user_id, category) VALUES (?, ?)", zip(users, apps))
    queries = doc_queries()
    rules = {"per-row": None, "first-per-user": "first", "mode-per-user": "mode", "distinct-per-user": "distinct:3"}
    assert set(queries) == set(rules)
    for query, rule in rules.items():
        kw = {} if rule is None else {"user_column": "user_id", "per_user": rule}
        sql = queries[query].replace("event_time", "row_id")  # sqlite's rowid is the file order here
        plain = dict(con.execute(sql).fetchall())
        hist, _ = read_categorical(path, "category", **kw)
        assert plain == dict(zip(hist.labels, hist.counts.tolist()))


# --- bad files: one sentence naming the file and the problem ---------------------------------


def one_sentence(message: str, file: str) -> bool:
    return "\n" not in message and message.endswith(".") and file in message


def bad_files(tmp_path):
    rng = np.random.default_rng(0)
    (tmp_path / "garbage.csv").write_bytes(rng.bytes(5000))
    (tmp_path / "garbage.parquet").write_bytes(rng.bytes(5000))
    (tmp_path / "latin1.csv").write_bytes("app\ncaf\xe9\n".encode("latin-1"))
    (tmp_path / "empty.csv").write_bytes(b"")
    (tmp_path / "header.csv").write_text("user,app\n")
    (tmp_path / "ragged.csv").write_text("user,app\nu1,mail\nu2\nu3,maps\n")
    (tmp_path / "semicolon.csv").write_text("user;app\nu1;mail\nu2;maps\n")
    (tmp_path / "mixed.csv").write_text("age,lon\n31,1\n42,2\nforty,3\n")
    con = duckdb.connect()
    con.execute(f"COPY (SELECT 'x' AS app WHERE false) TO '{tmp_path / 'norows.parquet'}' (FORMAT PARQUET)")
    con.execute(f"COPY (SELECT DATE '2024-01-01' AS day) TO '{tmp_path / 'dates.parquet'}' (FORMAT PARQUET)")
    return {
        "wrong column": (
            read_categorical,
            "semicolon.csv",
            {"column": "category"},
            "has one column 'user;app', which looks separated by ';' rather than ','",
        ),
        "wrong column name": (
            read_categorical,
            "ragged.csv",
            {"column": "category"},
            "has no column 'category'; its columns are user, app",
        ),
        "binary garbage": (read_categorical, "garbage.csv", {"column": "app"}, "holds binary data"),
        "binary parquet": (read_categorical, "garbage.parquet", {"column": "app"}, "is not a Parquet file"),
        "not utf-8": (read_categorical, "latin1.csv", {"column": "app"}, "is not UTF-8 text"),
        "empty file": (read_categorical, "empty.csv", {"column": "app"}, "is empty"),
        "header only": (read_categorical, "header.csv", {"column": "app"}, "holds no rows"),
        "parquet without rows": (read_categorical, "norows.parquet", {"column": "app"}, "holds no rows"),
        "ragged line": (
            read_categorical,
            "ragged.csv",
            {"column": "app"},
            "ragged.csv, line 3: 1 fields where the header has 2 (delimiter ',')",
        ),
        "mixed types": (
            read_numeric,
            "mixed.csv",
            {"column": "age"},
            "column 'age' holds 'forty', which is not a number",
        ),
        "mixed types, points": (
            read_points,
            "mixed.csv",
            {"lat": "age", "lon": "lon"},
            "holds 'forty', which is not a number",
        ),
        "dates, not numbers": (read_numeric, "dates.parquet", {"column": "day"}, "column 'day' holds DATE values"),
        "no latitude": (read_points, "ragged.csv", {}, "found no latitude column (named lat or latitude)"),
        "no such file": (read_categorical, "missing.csv", {"column": "app"}, "no such file"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "wrong column",
        "wrong column name",
        "binary garbage",
        "binary parquet",
        "not utf-8",
        "empty file",
        "header only",
        "parquet without rows",
        "ragged line",
        "mixed types",
        "mixed types, points",
        "dates, not numbers",
        "no latitude",
        "no such file",
    ],
)
def test_malformed_files_give_one_clear_message(tmp_path, case):
    reader, file, kw, message = bad_files(tmp_path)[case]
    with pytest.raises(InputError) as err:
        reader(tmp_path / file, **kw)
    assert message in str(err.value) and one_sentence(str(err.value), file), str(err.value)


def test_a_named_delimiter_reads_what_the_default_refuses(tmp_path):
    path = write_csv(tmp_path / "semi.csv", ("user", "app"), [("u1", "mail"), ("u2", "a,b")], delimiter=";")
    hist, rep = read_categorical(path, "app", delimiter=";")
    assert hist.labels == ("a,b", "mail") and rep.rows == 2
    with pytest.raises(InputError, match="the delimiter must be one character"):
        read_categorical(path, "app", delimiter=";;")


def test_bad_parameters():
    with pytest.raises(InputError, match="bbox needs -180 <= west < east <= 180"):
        parse_bbox("10,50,5,60")
    with pytest.raises(InputError, match="bbox needs four numbers"):
        parse_bbox("1,2,3")
    assert parse_bbox(" -74.1, 40.6 ,-73.8,40.9") == (-74.1, 40.6, -73.8, 40.9)
    assert parse_rule("Distinct:3") == ("distinct", 3) and parse_rule("mode") == ("mode", 1)


def test_bundled_samples_load():
    hist, rep = load_sample("app-events")
    assert rep.rule == "first" and rep.users == hist.n == 5998 and len(hist.labels) == 30
    assert rep.rows == 48266 and rep.empty == 92 and accounted(rep)
    hist, rep = load_sample("app-events", per_user="distinct:2")
    assert rep.users < hist.n <= 2 * rep.users
    grid, rep = load_sample("city-points", width=64)
    assert grid.shape[1] == 64 and grid.n == rep.rows == 100_000 and grid.is_image
    with pytest.raises(InputError, match="unknown sample 'nyc'; choose one of app-events, city-points"):
        load_sample("nyc")


def test_columns_and_point_columns_for_choosing(tmp_path):
    """What the dashboard offers to choose from: the file's columns in order (CSV: text), without its rows;
    latitude and longitude found by name as read_points finds them, None where not exactly one matches."""
    from ldpcore.data.ingest import columns, point_columns

    path = tmp_path / "p.csv"
    path.write_text("id,Latitude,LNG,note\n1,40.7,-73.9,a\n")
    assert columns(path) == {"id": "VARCHAR", "Latitude": "VARCHAR", "LNG": "VARCHAR", "note": "VARCHAR"}
    assert columns(path.read_bytes(), name="p.csv") == columns(path)
    assert point_columns(columns(path)) == ("Latitude", "LNG")
    assert point_columns(["lat", "latitude", "lon"]) == (None, "lon")
    with pytest.raises(InputError, match="holds binary data"):
        columns(bytes(range(256)), name="x.csv")
