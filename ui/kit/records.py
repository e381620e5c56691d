"""The sidebar's raw-records and points inputs: an uploaded CSV, TSV or Parquet file (or a bundled sample)
-> ldpcore.data.ingest -> a cached Histogram and its IngestReport, shown beside the controls.

The reading, the per-user rules and the accounting of every row are ldpcore's; this module draws the
controls (bound to the URL), calls the readers and shows the report's fields.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from ldpcore.data import ingest
from ldpcore.data.histogram import Histogram
from ldpcore.data.ingest import IngestReport
from ldpcore.errors import InputError
from ldpcore.export.reproduce import Points, Records, Sample, Source
from ui.kit.cache import cached
from ui.kit.feedback import file_upload, input_errors
from ui.kit.format import plain

RECORDS, POINTS = "records", "points"  # the data choices (short: a bound selectbox writes them into the URL)
SAMPLES = tuple(ingest.SAMPLES)  # the bundled samples (app-events: records, city-points: points)
RECORD_TYPES = ["csv", "tsv", "tab", "txt", "parquet", "pq"]
NONE = "(none: one row per respondent)"
BY_NAME = "(found by its name)"
RULES = ("first", "mode", "distinct")
DESCRIPTIONS = {
    RECORDS: "Your raw records: a CSV, TSV or Parquet file with a header, one value per row (per respondent, or "
    "per event with a user id column); choose the column below.",
    POINTS: "Your location points: a CSV, TSV or Parquet file with latitude and longitude columns, counted on a "
    "grid that goes through the image path (a map-like picture).",
}


@cached("data", spinner="Reading the file's columns...")
def _columns(digest: str, name: str, _data: bytes) -> dict[str, str]:
    return ingest.columns(_data, name=name)


@cached("data", spinner="Aggregating the records (DuckDB)...")
def _read(digest: str, name: str, _data: bytes, kind: str, options: dict) -> tuple[Histogram, IngestReport]:
    options = dict(options)
    if kind == POINTS:
        return ingest.read_points(_data, name=name, **options)
    if options.pop("numeric"):
        return ingest.read_numeric(_data, name=name, **options)
    options.pop("bins"), options.pop("value_range")
    return ingest.read_categorical(_data, name=name, **options)


@cached("data", spinner="Loading the sample...")
def _sample(name: str) -> tuple[Histogram, IngestReport]:
    return ingest.load_sample(name)


def _upload() -> tuple[str, bytes, str]:
    """The uploaded file (name, bytes, digest), kept in the session across pages and reruns."""
    f = file_upload(
        st.sidebar,
        "CSV, TSV or Parquet file with a header",
        types=RECORD_TYPES,
        key="records_file",
        help="Files above the upload limit: aggregate them with `python -m ldpcore histogram` (see the README).",
        larger="aggregate it with `python -m ldpcore histogram --out counts.csv` (README: Your own data) and "
        "upload the counts.",
    )
    if f is not None and st.session_state.get("records_upload", (None,))[0] != f.file_id:
        data = f.getvalue()
        st.session_state["records_upload"] = (f.file_id, f.name, data, hashlib.sha256(data).hexdigest()[:16])
    if "records_upload" not in st.session_state:
        st.info("Upload a CSV, TSV or Parquet file in the sidebar to begin (or choose the sample app-events or "
                "city-points).")  # fmt: skip
        st.stop()
    _, name, data, digest = st.session_state["records_upload"]
    return name, data, digest


def _user_controls(side, names: list[str], values: dict) -> dict:
    """The user id column and the per-user rule (their control values go into `values`)."""
    user = side.selectbox("User id column", [NONE] + names, key="rec_user", bind="query-params")
    values["rec_user"] = user
    if user == NONE:
        return {"user_column": None, "per_user": None}
    rule = side.radio(
        "Per user",
        RULES,
        key="rec_rule",
        bind="query-params",
        horizontal=True,
        help="first: the value of their first row; mode: their most frequent value (both: one value per user, so "
        "the guarantees hold per user); distinct: up to K distinct values, each a report (per user, group privacy "
        "over K: K x eps).",
    )
    values["rec_rule"] = rule
    if rule == "distinct":
        k = int(side.number_input("K values per user", 1, 1000, 3, key="rec_k", bind="query-params"))
        values["rec_k"] = k
        rule = f"distinct:{k}"
    return {"user_column": user, "per_user": rule}


def _index(names: list[str], wanted: str | None) -> int:
    return names.index(wanted) if wanted in names else 0


def records_input(kind: str) -> tuple[Histogram, IngestReport, str, dict[str, object], Source]:
    """Draw the controls of a raw-records or points input (or load a sample); return the Histogram, its
    IngestReport, a cache key naming both, the values of the controls that choose it (by key, for another page of
    the session) and the source a script reads it from again. Bad files and options: one st.error line, and the
    page stops. Records have no default column: until one is chosen (or a link names it), the page says so and
    stops."""
    side = st.sidebar
    if kind in SAMPLES:
        with input_errors():
            hist, report = _sample(kind)
        show_report(report)
        return hist, report, f"sample:{kind}", {}, Sample(kind)
    name, data, digest = _upload()
    values: dict[str, object] = {}
    with input_errors():
        names = list(_columns(digest, name, data))
        if kind == POINTS:
            lat, lon = ingest.point_columns(names)
            choices = [BY_NAME] + names  # by name: read_points finds it, or says which names it looks for
            lat = side.selectbox("Latitude column", choices, _index(choices, lat), key="pts_lat", bind="query-params")
            lon = side.selectbox("Longitude column", choices, _index(choices, lon), key="pts_lon", bind="query-params")
            options: dict[str, object] = {
                "lat": None if lat == BY_NAME else lat,
                "lon": None if lon == BY_NAME else lon,
                "width": int(
                    side.number_input(
                        "Grid width (cells, west to east)", 8, 2048, 128, step=16, key="pts_grid", bind="query-params"
                    )
                ),
            }
            bbox = side.text_input(
                "Box west,south,east,north (degrees)",
                key="pts_bbox",
                bind="query-params",
                placeholder="empty: the points' extent",
                help="Fix it in advance in a deployment: the points' extent is itself private.",
            ).strip()
            options["bbox"] = bbox or None
            values.update(pts_lat=lat, pts_lon=lon, pts_grid=options["width"], pts_bbox=bbox)
        else:
            column = side.selectbox(
                "Column of values",
                names,
                index=None,
                placeholder="Choose the column to count",
                key="rec_column",
                bind="query-params",
            )
            numeric = side.toggle("Numbers: count them in bins", key="rec_numeric", bind="query-params")
            options = {"column": column, "numeric": numeric, "bins": 20, "value_range": None}
            values.update(rec_column=column, rec_numeric=numeric)
            if numeric:
                options["bins"] = int(side.number_input("Bins", 1, 100_000, 20, key="rec_bins", bind="query-params"))
                text = side.text_input(
                    "Range lo,hi", key="rec_range", bind="query-params", placeholder="empty: the data's min and max"
                ).strip()
                values.update(rec_bins=options["bins"], rec_range=text)
                if text:
                    parts = text.split(",")
                    try:
                        options["value_range"] = tuple(float(p) for p in parts)
                    except ValueError:
                        raise InputError(f"the range needs two numbers lo,hi (got {text!r}).") from None
        options.update(_user_controls(side, names, values))
        if kind == RECORDS and options["column"] is None:
            st.info(
                f"{name}: choose the column of values to count in the sidebar (Column of values; one of "
                f"{', '.join(names)}). Each row's value in that column is one respondent's report."
            )
            st.stop()
        hist, report = _read(digest, name, data, kind, options)
    show_report(report)
    return hist, report, f"{kind}:{digest}:{sorted(options.items())}", values, _source(kind, name, options)


def _source(kind: str, name: str, options: dict) -> Source:
    """Where a script reads the records again: the file by its name, with the controls' column, rule, bins or box."""
    users = {"user_column": options["user_column"], "per_user": options["per_user"]}
    if kind == POINTS:
        return Points(name, options["lat"], options["lon"], options["width"], options["bbox"], **users)
    if options["numeric"]:
        return Records(name, options["column"], options["bins"], options["value_range"], **users)
    return Records(name, options["column"], **users)


def show_report(report: IngestReport) -> None:
    """What was read and kept, in the sidebar: every row is kept or counted as left out, with why."""
    rows = [
        ("rows read", report.rows),
        ("kept", report.kept),
        ("NULL", report.nulls),
        ("empty", report.empty),
        ("out of domain", report.out_of_domain),
    ]
    if report.users is not None:
        rows += [("without a user id", report.missing_user), ("users", report.users)]
    rows += [("distinct values" if report.kind != POINTS else "cells with points", report.distinct)]
    rows += [("respondents n", report.respondents)]
    table = "\n".join(f"| {label} | {value:,} |" for label, value in rows)
    st.sidebar.markdown(
        f"**{plain(report.file)}** ({report.kind}; {report.rule})\n\n| read | count |\n|---|---:|\n{table}",
        help="Every row is kept or left out for one reason: rows = kept + NULL + empty + out of domain"
        + (" + without a user id." if report.users is not None else "."),
    )
