"""The sidebar's data section: a bundled dataset or an upload -> a cached Histogram."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

import streamlit as st

from ldpcore.data.datasets import DATASETS, load_dataset
from ldpcore.data.histogram import Histogram
from ldpcore.data.ingest import SAMPLES as INGEST_SAMPLES
from ldpcore.data.loaders import CSV_SUFFIXES, is_csv, load_upload
from ldpcore.experiment.protocol.spec import default_delta
from ldpcore.export.reproduce import Dataset, Source, Upload
from ui.kit.cache import cached
from ui.kit.feedback import file_upload, input_errors
from ui.kit.format import plain
from ui.kit.navigation import remember, restore
from ui.kit.records import DESCRIPTIONS, POINTS, RECORDS, SAMPLES, records_input

UPLOAD = "upload"
SAMPLES_TEXT = {name: f"Bundled sample: {s.description}." for name, s in INGEST_SAMPLES.items()}
CHOICE = "data_choice"  # session state: the input last chosen, carried to the next page
IMAGE_TYPES = ["png", "jpg", "jpeg", "gif", "bmp", "tif", "tiff", "webp"]
# the data controls' keys: a URL naming any of them chooses the data (else the session's last choice is kept)
KEYS = ("dataset", "max_side", "scale", "rec_column", "rec_numeric", "rec_bins", "rec_range", "rec_user", "rec_rule",
        "rec_k", "pts_lat", "pts_lon", "pts_grid", "pts_bbox")  # fmt: skip


@dataclass(frozen=True)
class Input:
    """The chosen data, a cache key naming it, the delta the paper used (or a default), the values of the data
    controls that choose it again on another page of the session (ui.kit.navigation carries them; empty: a
    shape without data, which no other page takes), and where it comes from (the source a view's script loads it
    from again: ldpcore.export.reproduce)."""

    hist: Histogram
    key: str
    delta: float
    report: object = None  # raw records and points: the IngestReport (rows read, kept, NULL, empty, out of domain)
    values: Mapping[str, object] = field(default_factory=dict)
    source: Source | None = None


@cached("data", spinner="Loading the data...")
def _load_bundled(name: str, max_side: int) -> Histogram:
    return load_dataset(name, max_side=max_side or None)


@cached("data", spinner="Reading the upload...")
def _load_upload(digest: str, name: str, _data: bytes, scale: float, max_side: int) -> Histogram:
    return load_upload(_data, name, scale=scale, max_side=max_side or None)


def data_sidebar() -> Input:
    """Draw the data controls in the sidebar; on bad input show st.error and stop the page.

    An upload (an image, a histogram CSV, raw records, points) is kept in the session (st.session_state, not in
    the URL); the data chosen stays the data set on every page that takes data until another input is chosen
    (ui.kit.navigation carries the controls' values), and each page names it. A URL asking for an upload in a
    session that has none (a reload, a shared link) says the file must be chosen again. Image-only controls (the
    scale and the downsampling) are shown for images only."""
    restore("data", KEYS)
    inp = _data_sidebar()
    remember("data", inp.values)
    return inp


def _data_sidebar() -> Input:
    choices = list(DATASETS) + [UPLOAD, RECORDS, POINTS] + list(SAMPLES)
    fresh = CHOICE not in st.session_state  # the session's first page with data (or a reload)
    with st.sidebar:
        st.header("Data")
        # options are short names: a bound widget writes the displayed option into the URL
        name = st.selectbox(
            "Input",
            choices,
            key="dataset",
            bind="query-params",
            help="upload: your own image or histogram CSV (kept while this browser tab is open); records: raw "
            "records (CSV, TSV, Parquet); points: latitude/longitude; app-events, city-points: bundled samples of both",
        )
        st.session_state[CHOICE] = name
        st.caption(
            DATASETS[name].description
            if name in DATASETS
            else DESCRIPTIONS.get(name) or SAMPLES_TEXT.get(name) or "Your own image or histogram CSV."
        )
        if name == UPLOAD:
            _upload_control()
        max_side, scale = _image_controls(name)
    if name in (RECORDS, POINTS) or name in SAMPLES:
        hist, report, key, values, source = records_input(name)
        return Input(hist, key, default_delta(hist.n), report, {"dataset": name, **values}, source)
    with input_errors():
        if name == UPLOAD:
            return _uploaded(fresh, scale, max_side)
        hist = _load_bundled(name, max_side)
        values = {"dataset": name} | ({"max_side": max_side} if hist.is_image else {})
        source = Dataset(name, max_side or None)
        return Input(hist, f"{name}:{max_side}", DATASETS[name].delta, values=values, source=source)


def _upload_control() -> None:
    """The image or CSV uploader; a new file is kept in the session (read and hashed once per upload)."""
    f = file_upload(
        st,
        "Image (PNG, JPEG, ...) or histogram CSV",
        key="upload_file",
        types=IMAGE_TYPES + list(CSV_SUFFIXES),
        help="CSV: one count per line, or value,count rows under a header.",
        larger="downsample the image, or aggregate records with `python -m ldpcore histogram --out counts.csv` "
        "(README: Your own data) and upload the counts.",
    )
    if f is not None and st.session_state.get("upload", (None,))[0] != f.file_id:
        data = f.getvalue()  # hashed once per upload, not on every rerun
        st.session_state["upload"] = (f.file_id, f.name, data, hashlib.sha256(data).hexdigest()[:16])


def _image_controls(name: str) -> tuple[int, float]:
    """The downsampling (0: full size) and, for an uploaded image, the respondents per unit of luminance: shown
    for images only (else 0 and 1)."""
    image = (name in DATASETS and DATASETS[name].file is not None) or (
        name == UPLOAD and "upload" in st.session_state and not is_csv(st.session_state["upload"][1])
    )
    max_side, scale = 0, 1.0
    if image:
        max_side = st.number_input(
            "Downsample images to a max side of (px; 0 = full size)",
            min_value=0,
            max_value=8192,
            value=0,
            step=64,
            key="max_side",
            bind="query-params",
        )
    if image and name == UPLOAD:
        scale = st.number_input(
            "Respondents per unit of luminance (scale)",
            min_value=0.01,
            max_value=100.0,
            value=1.0,
            step=0.5,
            key="scale",
            bind="query-params",
            help="The paper's Map uses 2.5.",
        )
    return int(max_side), float(scale)


def _uploaded(fresh: bool, scale: float, max_side: int) -> Input:
    """The session's upload as an Input, named on the page; without one, say how to get one and stop the page
    (fresh: the session's first page with data, e.g. a shared link asking for an upload)."""
    if "upload" not in st.session_state:
        st.info(
            "This link asks for an uploaded file, which is kept only while its browser tab is open: choose "
            "the file again in the sidebar (Data: upload)."
            if fresh
            else "Upload an image or a histogram CSV in the sidebar to begin."
        )
        st.stop()
    _, fname, data, digest = st.session_state["upload"]
    st.caption(f"Data: your upload **{plain(fname)}** (kept for this browser tab, on every page).")
    hist = _load_upload(digest, fname, data, scale, max_side)
    values = {"dataset": UPLOAD} | ({"max_side": max_side, "scale": scale} if hist.is_image else {})
    source = Upload(fname, scale, max_side or None)
    return Input(hist, f"upload:{digest}:{scale}:{max_side}", default_delta(hist.n), values=values, source=source)
