"""The sidebar's data section: a bundled dataset or an upload -> a cached Histogram."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import streamlit as st

from ldpcore.data.loaders import CSV_SUFFIXES, DATASETS, Histogram, load_dataset, load_upload
from ldpcore.experiment.spec import default_delta
from ui.cache import cached
from ui.feedback import input_errors

UPLOAD = "upload"
IMAGE_TYPES = ["png", "jpg", "jpeg", "gif", "bmp", "tif", "tiff", "webp"]


@dataclass(frozen=True)
class Input:
    """The chosen data, a cache key naming it, and the delta the paper used (or a default)."""

    hist: Histogram
    key: str
    delta: float


@cached("data", spinner="Loading the data...")
def _load_bundled(name: str, max_side: int) -> Histogram:
    return load_dataset(name, max_side=max_side or None)


@cached("data", spinner="Reading the upload...")
def _load_upload(digest: str, name: str, _data: bytes, scale: float, max_side: int) -> Histogram:
    return load_upload(_data, name, scale=scale, max_side=max_side or None)


def data_sidebar() -> Input:
    """Draw the data controls in the sidebar; on bad input show st.error and stop the page."""
    choices = list(DATASETS) + [UPLOAD]
    with st.sidebar:
        st.header("Data")
        # options are short names: a bound widget writes the displayed option into the URL
        name = st.selectbox(
            "Input", choices, key="dataset", bind="query-params", help="upload: your own image or histogram CSV"
        )
        st.caption(DATASETS[name].description if name in DATASETS else "Your own image or histogram CSV.")
        max_side = st.number_input(
            "Downsample images to a max side of (px; 0 = full size)",
            min_value=0,
            max_value=8192,
            value=0,
            step=64,
            key="max_side",
            bind="query-params",
        )
        if name == UPLOAD:
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
            f = st.file_uploader(
                "Image (PNG, JPEG, ...) or histogram CSV",
                type=IMAGE_TYPES + list(CSV_SUFFIXES),
                help="CSV: one count per line, or value,count rows under a header.",
            )
            if f is not None and st.session_state.get("upload", (None,))[0] != f.file_id:
                data = f.getvalue()  # hashed once per upload, not on every rerun
                st.session_state["upload"] = (f.file_id, f.name, data, hashlib.sha256(data).hexdigest()[:16])
    with input_errors():
        if name == UPLOAD:
            if "upload" not in st.session_state:
                st.info("Upload an image or a histogram CSV in the sidebar to begin.")
                st.stop()
            _, fname, data, digest = st.session_state["upload"]
            hist = _load_upload(digest, fname, data, float(scale), int(max_side))
            return Input(hist, f"upload:{digest}:{scale}:{max_side}", default_delta(hist.n))
        hist = _load_bundled(name, int(max_side))
        return Input(hist, f"{name}:{max_side}", DATASETS[name].delta)
