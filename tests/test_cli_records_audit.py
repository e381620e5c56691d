"""The command line's raw-records, points and audit paths: `run --column/--lat/--lon/--grid/--bbox`,
`histogram` and `audit` (JSON fields, files, one-line errors with status 2)."""

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import cli

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ROOT / "ldpcore" / "data" / "bundled"


def one_line_error(out, message: str):
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and message in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


@pytest.fixture
def records(tmp_path):
    """1,200 raw records (one category per row, a header) of 300 users, events in file order."""
    rng = np.random.default_rng(5)
    path = tmp_path / "events.csv"
    cats = ["news", "video", "maps", "mail"]
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["user", "category"])
        for i in range(1200):
            out.writerow([f"u{i % 300}", cats[int(rng.integers(0, 4))]])
    return path


def test_run_reads_raw_records_and_n_is_the_number_of_rows(records):
    out = cli("run", "--input", records, "--column", "category", "--eps-c", "1", "--delta", "1e-4", "--json")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert rec["n"] == 1200 and rec["d"] == 4
    ingest = rec["ingest"]
    assert ingest["rows"] == ingest["kept"] == 1200 and ingest["rule"] == "one row per respondent"
    assert ingest["nulls"] == ingest["empty"] == ingest["out_of_domain"] == 0


@pytest.mark.parametrize("rule,n", [("first", 300), ("mode", 300), ("distinct:2", None)])
def test_run_per_user_rules(records, rule, n):
    out = cli(
        "run",
        "--input",
        records,
        "--column",
        "category",
        "--user-column",
        "user",
        "--per-user",
        rule,
        "--eps-c",
        "1",
        "--delta",
        "1e-4",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert rec["ingest"]["users"] == 300 and rec["ingest"]["rule"] == rule
    assert rec["n"] == (n or rec["ingest"]["respondents"]) and (n or 301) <= rec["n"] <= 600


def test_histogram_writes_the_counts_that_run_reads_back(records, tmp_path):
    target = tmp_path / "out" / "counts.csv"
    out = cli("histogram", "--input", records, "--column", "category", "--out", target, "--json")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert rec["n"] == 1200 and rec["rows"] == 1200 and rec["out"] == str(target)
    rows = list(csv.DictReader(target.open()))
    assert sum(int(r["count"]) for r in rows) == 1200 and sorted(r["value"] for r in rows) == sorted(
        ["news", "video", "maps", "mail"]
    )
    again = json.loads(cli("run", "--input", target, "--eps-c", "1", "--delta", "1e-4", "--json").stdout)
    assert again["n"] == 1200 and again["d"] == 4


def test_points_become_a_grid_image(tmp_path):
    out = cli(
        "run",
        "--input",
        BUNDLED / "city_points.csv",
        "--lat",
        "latitude",
        "--lon",
        "longitude",
        "--grid",
        "48",
        "--bbox=-74.2,40.6,-73.8,40.9",
        "--eps-c",
        "1",
        "--delta",
        "1e-6",
        "--out",
        tmp_path,
        "--json",
    )
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    ingest = rec["ingest"]
    assert ingest["kind"] == "points" and ingest["rows"] == 100_000
    assert ingest["kept"] + ingest["out_of_domain"] == 100_000 and rec["n"] == ingest["kept"]
    assert ingest["extent"] == [-74.2, 40.6, -73.8, 40.9]
    assert (tmp_path / "reconstruction.png").exists() and rec["d"] % 48 == 0


@pytest.mark.parametrize(
    "args,message",
    [
        (["--column", "nope"], "has no column 'nope'; its columns are user, category"),
        (["--per-user", "first", "--column", "category"], "--per-user needs --user-column"),
        (["--column", "category", "--grid", "8"], "not both"),
        (["--column", "category", "--user-column", "user", "--per-user", "most"], "per_user must be first, mode"),
        (["--grid", "8"], "found no latitude column"),
        (["--range", "0,1", "--column", "category"], "--range needs --bins"),
    ],
)
def test_bad_record_options_are_one_line_with_status_2(records, args, message):
    one_line_error(cli("run", "--input", records, "--eps-c", "1", "--delta", "1e-4", *args), message)


def test_record_options_without_input_are_refused():
    one_line_error(
        cli("run", "--dataset", "horse", "--column", "x", "--range", "0,1", "--eps-c", "1"),
        "--column, --range: only for raw records or points read with --input",
    )
    one_line_error(
        cli("audit", "--n", "1000", "--d", "4", "--grid", "8", "--eps-c", "1", "--delta", "1e-6"), "--grid: only"
    )


def test_a_raw_records_csv_without_column_says_how_to_read_it(records):
    one_line_error(cli("run", "--input", records, "--eps-c", "1", "--delta", "1e-4"), "--column NAME")


def test_histogram_errors(records, tmp_path):
    one_line_error(cli("histogram", "--input", records, "--out", tmp_path / "c.csv"), "give --column")
    one_line_error(cli("histogram", "--input", records, "--column", "category", "--out", tmp_path), "is a folder")
    garbage = tmp_path / "g.parquet"
    garbage.write_bytes(bytes(range(256)) * 8)
    one_line_error(cli("histogram", "--input", garbage, "--column", "a", "--out", tmp_path / "c.csv"), "not a Parquet")


def test_audit_json_has_every_observer_with_its_bounds():
    out = cli(
        "audit", "--n", "10000", "--d", "16", "--eps-l", "4", "--delta", "1e-6", "--trials", "20000", "--seed", "3",
        "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert [o["observer"] for o in rec["observers"]] == ["server", "shuffler", "analyst"]
    for o in rec["observers"]:
        assert {"observer", "eps_lower", "confidence", "trials", "eps_upper", "best"} <= set(o)
        assert o["trials"] == 20000 and o["confidence"] == 0.95
        assert set(o["best"]) == {"fpr", "fnr"} and set(o["eps_upper"]) == {"eps", "accountant"}
        assert 0 <= o["eps_lower"] <= o["eps_upper"]["eps"]
    server = rec["observers"][0]
    assert server["eps_upper"] == {"eps": 4.0, "accountant": "eps_l_inf"} and server["eps_lower"] > 3.5
    assert rec["observers"][2]["eps_upper"]["accountant"] == "cheu19"
    assert len(rec["risk"]["risks"]) == 3
    again = cli(
        "audit", "--n", "10000", "--d", "16", "--eps-l", "4", "--delta", "1e-6", "--trials", "20000", "--seed", "3",
        "--json", "--observer", "server",
    )  # fmt: skip
    assert json.loads(again.stdout)["observers"][0]["eps_lower"] == server["eps_lower"]  # its own child of the seed


def test_audit_text_and_raw_records(records):
    out = cli(
        "audit", "--input", records, "--column", "category", "--eps-c", "1", "--delta", "1e-4", "--trials", "1000",
        "--observer", "analyst",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "events.csv: n = 1,200, d = 4" in out.stdout and "analyst: eps_lower " in out.stdout
    assert "guesses a person's value right" in out.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (["--n", "1000", "--eps-c", "1", "--delta", "1e-6"], "give --n with --d"),
        (["--dataset", "horse", "--n", "9", "--eps-c", "1"], "give exactly one of"),
        (["--n", "1000", "--d", "4", "--eps-c", "1"], "--delta is required"),
        (["--n", "1000", "--d", "4", "--eps-c", "1", "--delta", "1e-6", "--observer", "me"], "observer must be one"),
        (["--n", "1000", "--d", "4", "--eps-c", "1", "--delta", "1e-6", "--trials", "5"], "trials (per hypothesis)"),
        (["--n", "1000", "--d", "4", "--eps-c", "1", "--delta", "1e-6", "--trials", "1_000"], "plain decimal"),
        (["--n", "1000", "--d", "4", "--eps-c", "1", "--delta", "1e-6", "--confidence", "1"], "confidence"),
        (["--n", "1000", "--d", "4", "--eps-c", "1", "--delta", "3"], "delta"),
        (["--n", "1000", "--d", "4", "--eps-c", "1", "--delta", "1e-6", "--encoding", "cms"], "not cms"),
        (["--n", "1000", "--d", "4", "--eps-c", "1", "--delta", "1e-6", "--bogus"], "unrecognized arguments"),
    ],
)
def test_audit_bad_input_is_one_line_with_status_2(args, message):
    one_line_error(cli("audit", *args), message)
