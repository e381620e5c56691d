"""The Numeric page's data section: the paper's synthetic data or an uploaded table CSV -> a cached NumericTable."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import streamlit as st

from ldpcore.data.numeric_table import SYNTHETIC_DESCRIPTIONS, table_columns
from ldpcore.systems.numeric import SYNTHETIC, NumericTable, load_table_csv, synthetic_table
from ldpcore.systems.numeric.analysis import check_size
from ui.cache import cached
from ui.controls import seed_input
from ui.feedback import input_errors

UPLOAD = "upload"


@dataclass(frozen=True)
class Table:
    """The chosen table, a cache key naming it and the seed (data: stream [seed, 0], reports: [seed, 1])."""

    table: NumericTable
    key: str
    seed: int


@cached("data", spinner="Drawing the synthetic data...")
def _synthetic(name: str, n: int, d: int, seed: int) -> NumericTable:
    return synthetic_table(name, n, d, np.random.default_rng([seed, 0]))  # the reports use stream [seed, 1]


@cached("results", spinner="Reading the upload...")
def _columns(digest: str, name: str, _data: bytes) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return table_columns(_data, name=name)


@cached("data", spinner="Reading the upload...")
def _upload(digest: str, name: str, _data: bytes, categorical: tuple[str, ...]) -> NumericTable:
    return load_table_csv(_data, categorical=categorical, name=name)


def table_sidebar() -> Table:
    """Draw the data controls in the sidebar; on bad input show st.error and stop the page."""
    upload = None
    main = st.container()  # where an unreadable upload is reported, as every other error: not in the sidebar
    with st.sidebar:
        st.header("Data")
        source = st.selectbox(
            "Data", list(SYNTHETIC) + [UPLOAD], key="num_data", bind="query-params", help="upload: your own table CSV"
        )
        st.caption(
            SYNTHETIC_DESCRIPTIONS.get(
                source,
                "A CSV with a header naming the columns, one row per respondent; "
                "numeric columns are mapped to [-1, 1] over their range.",
            )
        )
        if source != UPLOAD:
            n = int(
                st.number_input(
                    "n (respondents)",
                    min_value=100,
                    max_value=1_000_000,
                    value=100_000,
                    step=10_000,
                    key="num_n",
                    bind="query-params",
                )
            )
            d = int(
                st.number_input(
                    "d (attributes)",
                    min_value=1,
                    max_value=64,
                    value=16,
                    key="num_d",
                    bind="query-params",
                    help="The paper uses d = 16.",
                )
            )
        else:
            f = st.file_uploader(
                "Table CSV",
                type=["csv", "txt"],
                help="Numeric and categorical columns under a header; one row per respondent.",
            )
            if f is not None and st.session_state.get("num_upload", (None,))[0] != f.file_id:
                data = f.getvalue()  # hashed once per upload, not on every rerun
                st.session_state["num_upload"] = (f.file_id, f.name, data, hashlib.sha256(data).hexdigest()[:16])
            upload = st.session_state.get("num_upload")
            if upload is not None:
                with input_errors(where=main):
                    header, text_columns = _columns(upload[3], upload[1], upload[2])
                categorical = st.multiselect(
                    "Categorical columns",
                    header,
                    default=text_columns,
                    key="num_categorical",
                    bind="query-params",
                    help="Columns holding categories (estimated as frequencies through OUE); "
                    "the others must hold numbers.",
                )
        seed = seed_input("num_seed")
    with input_errors():
        if source != UPLOAD:
            check_size(n, d)
            return Table(_synthetic(source, n, d, seed), f"{source}:{n}:{d}:{seed}", seed)
        if upload is None:
            st.info("Upload a table CSV in the sidebar to begin.")
            st.stop()
        _, name, data, digest = upload
        return Table(_upload(digest, name, data, tuple(categorical)), f"upload:{digest}:{','.join(categorical)}", seed)
