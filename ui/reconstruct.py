"""Reconstruct's views: the same reports without a shuffler (ldpcore.experiment.protocol.local_only), the downloads of
the ESA run (full-size PNG, estimate CSV with intervals, run record), the error map, what the tight accountant
certifies for the same reports, and the histogram view (uploaded CSVs, heavy hitters): bins ranked by true count
with each estimate and its 95% band, a top-k zoom, a true-vs-estimate scatter and the central baseline on
request. Cached like ui.kit.runs: on the data's key, the spec and the seed."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import NamedTuple

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ldpcore import export
from ldpcore.data.histogram import Histogram
from ldpcore.errors import InputError
from ldpcore.experiment.protocol.compare import central_eps_on_notion
from ldpcore.experiment.protocol.histogram_view import bin_std, ranked
from ldpcore.experiment.protocol.local_only import without_shuffler
from ldpcore.experiment.protocol.postprocess import METHODS as POSTPROCESS
from ldpcore.experiment.protocol.run import Cell, Failed, Measured, Method
from ldpcore.experiment.protocol.spec import Plan, PlanOnNotion, ProtocolSpec, plan
from ldpcore.export import error_map, png_bytes, render
from ldpcore.export.view_records import reconstruct_record
from ldpcore.privacy.notions import OnNotion
from ui.kit.cache import cached
from ui.kit.chart_export import export_menu
from ui.kit.colours import CENTRAL_COLOR, PALETTE, method_color
from ui.kit.inputs import Input
from ui.kit.runs import DISPLAY_WIDTH, FAST, cell, cell_of, fit, ran, run_spec


@cached("results")
def _on_notion(spec: dict, n: int, d: int | None, _plan: Plan, notion: str) -> PlanOnNotion:
    return _plan.on_notion(notion)


def on_notion(p: Plan, notion: str) -> PlanOnNotion:
    """The plan's epsilons in `notion` (ldpcore's Plan.on_notion), cached on the spec, n and d."""
    return _on_notion(p.spec.as_dict(), p.n, p.d, p, notion)


@cached("results")
def _central_on_notion(eps_c: float, sigma: float, delta: float, _cell: Measured, notion: str) -> OnNotion:
    return central_eps_on_notion(_cell, notion)


def central_on_notion(c: Cell, notion: str) -> OnNotion:
    """The central Gaussian baseline's eps_c in `notion` (ldpcore's conversion), cached on its numbers; the cell
    ran (the page stops before otherwise)."""
    assert isinstance(c, Measured)
    return _central_on_notion(c.privacy["eps_c"], c.privacy["sigma"], c.privacy["delta"], c, notion)


@cached("runs")
def _local(input_key: str, _hist: Histogram, spec: dict, seed: int) -> Cell:
    return without_shuffler(Method("", ProtocolSpec(**spec)), spec["eps_c"], _hist, seed)


def local_cell(inp: Input, method: Method, eps_c: float, seed: int) -> Cell:
    """method's encoding without a shuffler at eps_l = eps_c, cached on the data, the spec and the seed."""
    return _local(inp.key, inp.hist, method.at(float(eps_c)).as_dict(), int(seed))


@cached("images")
def _local_png(input_key: str, _hist: Histogram, spec: dict, seed: int, max_width: int) -> bytes | None:
    c = _local(input_key, _hist, spec, seed)
    return None if isinstance(c, Failed) else png_bytes(fit(render(_hist, ran(c).estimate), max_width), FAST)


def local_png(inp: Input, method: Method, eps_c: float, seed: int, max_width: int = DISPLAY_WIDTH) -> bytes | None:
    """local_cell's reconstruction as a PNG at display resolution (None where undefined)."""
    return _local_png(inp.key, inp.hist, method.at(float(eps_c)).as_dict(), int(seed), int(max_width))


@cached("results")
def _bin_std(input_key: str, _hist: Histogram, spec: dict):
    return bin_std(ProtocolSpec(**spec), _hist)


def bin_std_of(inp: Input, method: Method, eps_c: float):
    """The analytic std of every bin's raw estimate of method at eps_c (ldpcore.experiment.protocol.histogram_view)."""
    return _bin_std(inp.key, inp.hist, method.at(float(eps_c)).as_dict())


def full_png(inp: Input, method: Method, eps_c: float, seed: int) -> bytes:
    """The reconstruction at the input's own resolution (for a download: made when it is asked for)."""
    return png_bytes(render(inp.hist, ran(cell(inp, method, eps_c, seed)).estimate))


def _std_errors(inp: Input, c: Cell) -> np.ndarray | None:
    """Every bin's standard error of the cell's estimate (ldpcore.export.std_errors); None for a post-processed
    estimate, which has no analytic interval (ldpcore.export.POSTPROCESSED_INTERVALS)."""
    run = ran(c)  # ValueError where the cell did not run
    if isinstance(c, Measured) and c.postprocess is not None:
        return None
    plan = c.plan if isinstance(c, Measured) else None
    return export.std_errors(inp.hist, run.estimate, plan, run.privacy.get("sigma"))


def estimate_csv(inp: Input, method: Method, eps_c: float, seed: int) -> str:
    """The estimate of cell(...) as CSV with every bin's standard error and 95% interval
    (ldpcore.export.estimate_csv), made when it is asked for."""
    c = cell(inp, method, eps_c, seed)
    return export.estimate_csv(inp.hist, ran(c).estimate, _std_errors(inp, c))


def record_json(inp: Input, method: Method, eps_c: float, seed: int) -> str:
    """The page's run record as JSON (ldpcore.export.view_records.reconstruct_record: the ESA run, the central
    baseline, the run without a shuffler and the summary of the per-bin intervals, as `ldpcore run --out`
    writes it), from the cached cells, made when it is asked for."""
    central, raw = Method("Central Gaussian", method.spec, central=True), replace(method, postprocess=None)
    cells = cell(inp, raw, eps_c, seed), cell(inp, central, eps_c, seed), local_cell(inp, method, eps_c, seed)
    post = None if method.postprocess is None else cell(inp, method, eps_c, seed)
    return export.to_json(reconstruct_record(inp.hist, method.at(float(eps_c)), int(seed), *cells, post=post))


@cached("images")
def _error_png(
    input_key: str, _hist: Histogram, spec: dict, central: bool, seed: int, max_width: int, postprocess: str | None
) -> bytes:
    estimate = ran(cell_of(input_key, _hist, spec, central, seed, postprocess)).estimate
    return png_bytes(fit(error_map(_hist, estimate), max_width), FAST)


def error_png(inp: Input, method: Method, eps_c: float, seed: int, max_width: int = DISPLAY_WIDTH) -> bytes:
    """The signed error map of cell(...) (ldpcore.export.error_map) at display resolution."""
    return _error_png(inp.key, inp.hist, *run_spec(method, eps_c), int(seed), int(max_width), method.postprocess)


@cached("results")
def _every_method(input_key: str, _hist: Histogram, spec: dict, seed: int) -> list[dict]:
    raw = cell_of(input_key, _hist, spec, False, seed)
    rows = []
    for name, m in POSTPROCESS.items():
        c = cell_of(input_key, _hist, spec, False, seed, name)
        row: dict = {"post-processing": f"{name}: {m.title}", "sums to": m.total or "free"}
        if isinstance(c, Failed):
            rows.append({**row, "RMSE": None, "largest error": None, "total variation": None, "not defined": c.error})
            continue
        rows.append({**row, "RMSE": c.metrics["rmse"], "largest error": c.metrics["linf"]})
        rows[-1].update({"total variation": c.metrics["tv"], "not defined": ""})
    if isinstance(raw, Measured):
        rows.insert(0, {"post-processing": "none: raw (unbiased)", "sums to": "free", "RMSE": raw.metrics["rmse_raw"]})
        rows.insert(1, {"post-processing": "none: clipped to [0, input maximum]", "RMSE": raw.metrics["rmse"]})
        rows[1].update({"largest error": raw.metrics["linf"], "total variation": raw.metrics["tv"]})
    return rows


def every_method(inp: Input, method: Method, eps_c: float, seed: int) -> list[dict]:
    """The ESA run's error after every post-processing (the raw and clipped estimates first), one row each; where a
    method is not defined for the encoding, the reason. Post-processes the cached run: no new simulation."""
    return _every_method(inp.key, inp.hist, method.at(float(eps_c)).as_dict(), int(seed))


@cached("results")
def _certified(input_key: str, _hist: Histogram, spec: dict) -> float | str:
    try:
        return plan(ProtocolSpec(**spec), _hist.n, _hist.d).eps_c
    except InputError as exc:
        return str(exc)


def certified_eps_c(inp: Input, spec: ProtocolSpec, eps_l: float, accountant: str) -> float | str:
    """The eps_c that accountant certifies for reports at local eps_l on the input (or why it cannot), cached."""
    return _certified(inp.key, inp.hist, replace(spec, eps_c=None, eps_l=float(eps_l), accountant=accountant).as_dict())


VIEWS = ("ranked", "true vs estimate", "relative error")


class Shown(NamedTuple):
    """What the histogram view draws: the view (one of VIEWS), the top-k zoom (0: every bin), a log y axis."""

    view: str
    top_k: int
    log_y: bool


def histogram_view(hist, series: dict, central=None, key: str = "hist") -> Shown:
    """series: {name: (estimate, std or None)}; the first is the main estimate (scatter, band). Returns what it
    drew (for the view's script)."""
    c1, c2, c3, c4 = st.columns([2, 2, 1, 2])
    view = c1.radio("View", VIEWS, horizontal=True, key=f"{key}_view", bind="query-params")
    top_k = int(
        c2.number_input(
            "Zoom to the top k bins (0 = all)",
            min_value=0,
            max_value=hist.d,
            value=min(hist.d, 50) if hist.d > 50 else 0,
            key=f"{key}_top_k",
            bind="query-params",
            help="The k bins with the largest true counts. Beyond the top 500 ranks, groups of ranks are averaged "
            "so that every bin counts and the heavy hitters are always drawn.",
        )
    )
    log_y = c3.toggle("Log scale", value=True, key="log_y", bind="query-params")
    show_central = c4.toggle(
        "Central baseline", value=False, key=f"{key}_central", bind="query-params", help="Drawn beneath the estimates."
    )
    shown = ranked(hist.counts, series, top_k=top_k or None, labels=hist.labels)
    if view == "ranked":
        central_y = None
        if show_central and central is not None:
            central_y = ranked(hist.counts, {"c": (central, None)}, top_k=top_k or None).series["c"]
        fig = ranked_figure(
            shown,
            hist.unit,
            central_y,
            log_y,
            title=f"Top {top_k:,} bins by true count" if top_k else "Bins ranked by true count",
        )
    elif view == "relative error":
        fig = relative_figure(shown, next(iter(shown.series)))
    else:
        fig = scatter_figure(shown, next(iter(shown.series)), hist.count_unit)
    st.plotly_chart(fig, width="stretch")
    export_menu(fig, f"{key}_{view.replace(' ', '_')}")
    return Shown(view, top_k, bool(log_y))


NAMED = 30  # ranks at most whose values are named on the x axis (more: the ranks' numbers)


def ranked_figure(
    view, unit: str, central=None, log_y: bool = True, title: str = "Bins ranked by true count"
) -> go.Figure:
    """The ranked histogram (ldpcore.experiment.protocol.histogram_view.Ranked), bottom to top: the 95% band of the
    estimate, the central baseline (optional, small gray markers), the true counts (black), the estimates
    (lines with markers, drawn last so nothing hides them). unit: the counts' (Histogram.unit). Up to NAMED
    ranks, the x axis names each rank's value (rain, sun, ...); beyond, whole rank numbers."""
    x = view.rank
    fig = go.Figure(_bands(view))
    markers = x.size <= 200
    hover = f"<b>%{{fullData.name}}</b><br>rank %{{x:,}} (%{{customdata}})<br>%{{y:,.4g}} {unit}<extra></extra>"
    colors = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(view.series)}
    if central is not None:
        fig.add_trace(
            go.Scatter(
                x=x,
                y=central,
                mode="markers",
                marker=dict(color=CENTRAL_COLOR, size=4, opacity=0.5, symbol="diamond"),
                name="central Gaussian (no LDP)",
                customdata=view.labels,
                hovertemplate=hover,
            )
        )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=view.truth,
            mode="lines+markers" if markers else "lines",
            line=dict(color="black", width=3),
            marker=dict(color="black", size=5),
            name="true count",
            customdata=view.labels,
            hovertemplate=hover,
        )
    )
    for name, y in view.series.items():
        fig.add_trace(
            go.Scatter(
                x=x,
                y=y,
                mode="lines+markers" if markers else "lines",
                line=dict(color=colors[name], width=1.5),
                marker=dict(color=colors[name], size=5, symbol="circle-open"),
                name=name,
                customdata=view.labels,
                hovertemplate=hover,
            )
        )
    grouped = " (beyond the top ranks: averaged in groups of ranks)" if view.grouped else ""
    fig.update_layout(
        title=title + grouped,
        xaxis_title="value, ranked by true count" if x.size <= NAMED else "rank by true count",
        yaxis_title=unit,
        height=420,
        margin=dict(l=10, r=10, t=50, b=10),
        legend=dict(orientation="h", x=0, xanchor="left", yanchor="top", y=-0.2),
    )
    if x.size <= NAMED:  # every rank named by its value, never at 1.5
        names = [str(n) if len(str(n)) <= 24 else str(n)[:23] + "…" for n in view.labels]
        fig.update_xaxes(tickmode="array", tickvals=list(x), ticktext=names)
    else:
        fig.update_xaxes(tickformat=",d")
    if log_y:
        top = max(float(np.max(view.truth)), 1.0)
        fig.update_yaxes(type="log", range=[-0.3, math.log10(top) + 0.3], dtick=1, exponentformat="power")
    return fig


def _bands(view) -> list[go.Scatter]:
    """The 95% band of every series that has one, as filled areas beneath the lines."""
    x = view.rank
    return [
        go.Scatter(
            x=np.r_[x, x[::-1]],
            y=np.r_[view.high[name], view.low[name][::-1]],
            fill="toself",
            fillcolor="rgba(99, 110, 250, 0.22)",
            line=dict(width=0),
            hoverinfo="skip",
            name=f"{name}: 95% band",
        )
        for name in view.series
        if name in view.low
    ]


def relative_figure(view, name: str) -> go.Figure:
    """Each value's own relative error, (estimate - true count) / true count, ranked by true count, with the 95%
    band of the raw estimate over the true count: a value holding a share p of n respondents has a relative error
    of about RMSE / (p n), larger for the rare values than the table's relative RMSE (RMSE / mean count) says.
    Values with no respondent have no relative error and are left out."""
    x, truth = view.rank, np.asarray(view.truth, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(truth > 0, truth, np.nan)
        y = (np.asarray(view.series[name], dtype=np.float64) - truth) / scale
        bands = [
            go.Scatter(
                x=np.r_[x, x[::-1]],
                y=np.r_[(view.high[name] - truth) / scale, ((view.low[name] - truth) / scale)[::-1]],
                fill="toself",
                fillcolor="rgba(99, 110, 250, 0.22)",
                line=dict(width=0),
                hoverinfo="skip",
                name="95% band of the raw estimate",
            )
        ] if name in view.low else []  # fmt: skip
    fig = go.Figure(bands)
    fig.add_trace(
        go.Scatter(
            x=x,
            y=y,
            mode="lines+markers" if x.size <= 200 else "lines",
            line=dict(color=PALETTE[0], width=1.5),
            marker=dict(size=5, symbol="circle-open"),
            name=f"{name}: relative error",
            customdata=view.labels,
            hovertemplate="rank %{x:,} (%{customdata})<br>relative error %{y:.3g}<extra></extra>",
        )
    )
    fig.add_hline(y=0, line_color="black", line_width=1)
    fig.update_layout(
        title="Each value's relative error: (estimate - true count) / true count",
        xaxis_title="value, ranked by true count" if x.size <= NAMED else "rank by true count",
        yaxis_title="relative error",
        height=420,
        margin=dict(l=10, r=10, t=50, b=10),
        legend=dict(orientation="h", x=0, xanchor="left", yanchor="top", y=-0.2),
    )
    if x.size <= NAMED:
        fig.update_xaxes(tickmode="array", tickvals=list(x), ticktext=[str(n)[:24] for n in view.labels])
    return fig


def scatter_figure(view, name: str, count_unit: str) -> go.Figure:
    """True count against the estimate of every drawn point (groups of ranks averaged), the diagonal exact."""
    truth, y = view.truth, view.series[name]
    top = float(max(truth.max(), np.nanmax(y), 1.0))
    low = float(min(0.0, np.nanmin(y)))
    fig = go.Figure(
        [
            go.Scatter(
                x=[low, top],
                y=[low, top],
                mode="lines",
                line=dict(color="gray", dash="dot"),
                name="exact",
                hoverinfo="skip",
            ),
            go.Scattergl(
                x=truth,
                y=y,
                mode="markers",
                marker=dict(color=method_color("Attribute fragments"), size=5, opacity=0.7),
                name=name,
                customdata=view.labels,
                hovertemplate="%{customdata}<br>true %{x:,.4g}<br>estimate %{y:,.4g}<extra></extra>",
            ),
        ]
    )
    fig.update_layout(
        title=f"True count against {name}",
        xaxis_title=f"true count ({count_unit})",
        yaxis_title=f"estimated count ({count_unit})",
        height=420,
        margin=dict(l=10, r=10, t=50, b=10),
        legend=dict(orientation="h", x=0, xanchor="left", yanchor="top", y=-0.2),
    )
    return fig
