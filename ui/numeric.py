"""The Numeric page's views: the data section (the paper's synthetic data or an uploaded table CSV -> a cached
NumericTable), the cached collections and mechanism comparisons, and the figures (Wang et al., ICDE 2019)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ldpcore.data.numeric_table import SYNTHETIC_DESCRIPTIONS, table_columns
from ldpcore.export.reproduce import SyntheticTable, TableUpload
from ldpcore.systems.numeric import SYNTHETIC, NumericTable, load_table_csv, synthetic_table
from ldpcore.systems.numeric.analysis import (
    MAX_SIMULATED_CELLS,
    MechanismComparison,
    TableEstimate,
    check_size,
    compare_mechanisms,
    estimate_table,
)
from ui.kit.axes import COLORS, TRUTH, legend_vline, line, style, ticks
from ui.kit.cache import cached
from ui.kit.controls import seed_input
from ui.kit.feedback import file_upload, input_errors

UPLOAD = "upload"
T = TypeVar("T")


@dataclass(frozen=True)
class Table:
    """The chosen table, a cache key naming it, the seed (data: stream [seed, 0], reports: [seed, 1]) and where
    it comes from (what the view's script reads again)."""

    table: NumericTable
    key: str
    seed: int
    source: SyntheticTable | TableUpload


@cached("data", spinner="Drawing the synthetic data...")
def _synthetic(name: str, n: int, d: int, seed: int) -> NumericTable:
    return synthetic_table(name, n, d, np.random.default_rng([seed, 0]))  # the reports use stream [seed, 1]


@cached("results", spinner="Reading the upload...")
def _columns(digest: str, name: str, _data: bytes) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return table_columns(_data, name=name)


@cached("data", spinner="Reading the upload...")
def _upload(digest: str, name: str, _data: bytes, categorical: tuple[str, ...]) -> NumericTable:
    return load_table_csv(_data, categorical=categorical, name=name)


def table_sidebar(then: Callable[[], T]) -> tuple[Table, T]:
    """Draw the data controls in the sidebar, then call `then` (the page's other sidebar controls: drawn before
    the data are read, so that bad data never hides them); the Table and what `then` returned. On bad input show
    st.error and stop the page."""
    upload: tuple | None = None
    categorical: list[str] = []
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
            n, d = _size_controls()
        else:
            upload, categorical = _upload_controls(main)
        seed = seed_input("num_seed")
    more = then()
    with input_errors():
        if source != UPLOAD:
            check_size(n, d)
            table = SyntheticTable(source, n, d)
            return Table(_synthetic(source, n, d, seed), f"{source}:{n}:{d}:{seed}", seed, table), more
        if upload is None:
            st.info("Upload a table CSV in the sidebar to begin.")
            st.stop()
        _, name, data, digest = upload
        origin = TableUpload(name, tuple(categorical))
        table = _upload(digest, name, data, tuple(categorical))
        return Table(table, f"upload:{digest}:{','.join(categorical)}", seed, origin), more


def _size_controls() -> tuple[int, int]:
    """The synthetic table's attributes d and respondents n, bound to the URL: n at most what is simulated at once
    with d attributes (MAX_SIMULATED_CELLS / d; a URL asking for more is said once, and the default is used)."""
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
    n = int(
        st.number_input(
            "n (respondents)",
            min_value=100,
            max_value=MAX_SIMULATED_CELLS // d,
            value=min(100_000, MAX_SIMULATED_CELLS // d),
            step=10_000,
            key="num_n",
            bind="query-params",
            help=f"At most {MAX_SIMULATED_CELLS:,} values are simulated at once: n x d at most that.",
        )
    )
    return n, d


def _upload_controls(main) -> tuple[tuple | None, list[str]]:
    """The table CSV uploader (the file kept in the session: id, name, bytes, digest) and, once a file is there,
    its categorical columns (the text columns by default, bound to the URL). An unreadable file: one st.error in
    main, and the page stops."""
    f = file_upload(
        st,
        "Table CSV",
        key="num_upload_file",
        types=["csv", "txt"],
        help="Numeric and categorical columns under a header; one row per respondent.",
        larger="upload a sample of its rows.",
    )
    if f is not None and st.session_state.get("num_upload", (None,))[0] != f.file_id:
        data = f.getvalue()  # hashed once per upload, not on every rerun
        st.session_state["num_upload"] = (f.file_id, f.name, data, hashlib.sha256(data).hexdigest()[:16])
    upload = st.session_state.get("num_upload")
    if upload is None:
        return None, []
    with input_errors(where=main):
        header, text_columns = _columns(upload[3], upload[1], upload[2])
    categorical = st.multiselect(
        "Categorical columns",
        header,
        default=text_columns,
        key="num_categorical",
        bind="query-params",
        help="Columns holding categories (estimated as frequencies through OUE); the others must hold numbers.",
    )
    return upload, categorical


@cached("results", spinner="Simulating the reports...")
def table_estimate(table_key: str, _table: NumericTable, mechanism: str, eps: float, seed: int) -> TableEstimate:
    """One collection of the table (reports from stream [seed, 1])."""
    return estimate_table(_table, mechanism, eps, np.random.default_rng([seed, 1]))


@cached("results")
def comparisons(table_key: str, _table: NumericTable, eps_grid: tuple[float, ...]) -> list[MechanismComparison]:
    """Every mechanism's analytic MSE on the table at each eps of the grid."""
    return [compare_mechanisms(_table, e) for e in eps_grid]


def estimates_figure(names, truth, estimate, std, title: str, y: str) -> go.Figure:
    """Per quantity: the truth and the estimate with a +-2 std bar (analytic std)."""
    fig = go.Figure(ticks(names, truth, "truth", 18))
    fig.add_trace(
        go.Scatter(
            x=names,
            y=estimate,
            mode="markers",
            name="estimate +- 2 std (analytic)",
            marker=dict(color=COLORS[0], size=8),
            error_y=dict(type="data", array=2 * np.asarray(std), color=COLORS[0], thickness=1.2),
        )
    )
    return style(fig, title, "", y)


def mse_figure(
    eps_grid, comparisons, titles: dict, eps: float, chosen: str, empirical: float | None, kind: str = "numeric"
) -> go.Figure:
    """Analytic expected MSE of every mechanism on this data against eps; the measured MSE of the
    chosen mechanism at the chosen eps as a marker."""
    fig = go.Figure()
    for i, name in enumerate(titles):
        y = [getattr(c, kind)[name] for c in comparisons]
        fig.add_trace(
            line(
                list(eps_grid),
                y,
                name,
                COLORS[i % len(COLORS)],
                width=3 if name == chosen else 1.5,
                dash="solid" if name.startswith(("alg4", "duchi-md")) else "dash",
            )
        )
    if empirical is not None:
        fig.add_trace(
            go.Scatter(
                x=[eps],
                y=[empirical],
                mode="markers",
                name=f"{chosen}: measured",
                marker=dict(color="black", size=10, symbol="x"),
            )
        )
    legend_vline(fig, eps, f"eps = {eps:g}")
    what = "means" if kind == "numeric" else "frequencies"
    return style(fig, f"Expected MSE of the {what} on this data", "eps (per respondent)", "MSE", True, True)


def worst_case_figure(
    eps_grid, curves: dict, eps_star: float, eps_sharp: float, eps: float, relative: bool
) -> go.Figure:
    """Worst-case variance of one report against eps (relative: divided by Duchi's), eps* and eps# marked
    (Wang et al., ICDE 2019, Table I)."""
    fig = go.Figure()
    for i, (name, y) in enumerate(curves.items()):
        fig.add_trace(line(list(eps_grid), list(y), name, COLORS[i % len(COLORS)]))
    legend_vline(fig, eps_star, f"eps* = {eps_star:.4f}", "#b22222")
    legend_vline(fig, eps_sharp, f"eps# = {eps_sharp:.4f}", "#1f5fbf")
    legend_vline(fig, eps, f"eps = {eps:g}", "darkgray", "dash")
    if relative:
        return style(
            fig,
            "Worst-case variance of one report, relative to Duchi et al.'s",
            "eps",
            "worst-case variance / Duchi's",
            log_x=True,
        )
    return style(fig, "Worst-case variance of one report (t in [-1, 1])", "eps", "variance", True, True)


def pm_density_figure(x, density, t: float, eps: float) -> go.Figure:
    """The Piecewise Mechanism's output density given t (Wang et al., ICDE 2019, Fig. 2)."""
    fig = go.Figure(
        go.Scatter(
            x=x,
            y=density,
            mode="lines",
            line=dict(color=COLORS[2], shape="hv"),
            fill="tozeroy",
            name="density of the report",
        )
    )
    legend_vline(fig, t, f"t = {t:g}", TRUTH)
    return style(fig, f"Piecewise Mechanism: output density at eps = {eps:g}", "report", "density")
