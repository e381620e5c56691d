"""Plotly figures: trade-off curves and 1-D histograms."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative

MAX_POINTS = 5000
COLORS = qualitative.Plotly


def _layout(fig: go.Figure, title: str, x: str, y: str, log_y: bool = True, legend_right: bool = True) -> go.Figure:
    """Log axes; the legend to the right of a full-width chart (many methods never squeeze it), below a narrow one."""
    legend = (
        dict(orientation="v", x=1.02, y=1, xanchor="left", font=dict(size=11))
        if legend_right
        else dict(orientation="h", yanchor="top", y=-0.2)
    )
    fig.update_layout(
        title=title, xaxis_title=x, yaxis_title=y, height=440, margin=dict(l=10, r=10, t=50, b=10), legend=legend
    )
    fig.update_xaxes(type="log")
    if log_y:
        fig.update_yaxes(type="log")
    return fig


def _mark(fig: go.Figure, eps_c: float) -> None:
    """The sidebar's eps_c as a vertical line with a legend entry (vline annotations misplace on log axes)."""
    fig.add_vline(x=eps_c, line_dash="dot", line_color="gray", name=f"eps_c = {eps_c:g}", showlegend=True)


def tradeoff_figures(methods, measured, curves, current: float) -> list[go.Figure]:
    """RMSE, local epsilons and messages against eps_c: analytic lines, measured markers."""
    rmse, eps, msgs = go.Figure(), go.Figure(), go.Figure()
    for i, m in enumerate(methods):
        color = COLORS[i % len(COLORS)]
        line = [c for c in curves[m.label] if c is not None]
        ok = [c for c in measured if c.method == m.label and c.error is None]  # drawn at the certified eps_c
        xs = [c["eps_c"] for c in line]
        approximate = any(c["rmse_raw_note"] for c in line)  # dashed: the count sketch's median readout
        rmse.add_trace(
            go.Scatter(
                x=xs,
                y=[c["rmse_raw"] for c in line],
                mode="lines",
                line=dict(color=color, dash="dash" if approximate else None),
                name=m.label + (" (analytic line: approximation)" if approximate else ""),
                legendgroup=m.label,
                hovertemplate=("approximate " if approximate else "") + "analytic std (raw): %{y:.4g}",
            )
        )
        rmse.add_trace(
            go.Scatter(
                x=[c.plan.eps_c if c.plan is not None else c.eps_c for c in ok],
                y=[c.metrics["rmse_raw"] for c in ok],
                mode="markers",
                marker=dict(color=color, symbol="circle-open", size=9),
                showlegend=False,
                name=m.label,
                legendgroup=m.label,
                hovertemplate="measured RMSE (raw): %{y:.4g}",
            )
        )
        rmse.add_trace(
            go.Scatter(
                x=[c.plan.eps_c if c.plan is not None else c.eps_c for c in ok],
                y=[c.metrics["rmse"] for c in ok],
                mode="markers",
                marker=dict(color=color, size=7),
                showlegend=False,
                name=m.label,
                legendgroup=m.label,
                hovertemplate="measured RMSE (clipped): %{y:.4g}",
            )
        )
        if not m.central:
            eps.add_trace(
                go.Scatter(
                    x=xs,
                    y=[c["eps_l_inf"] for c in line],
                    mode="lines",
                    line=dict(color=color),
                    name=f"{m.label}: eps_l_inf",
                )
            )
            eps.add_trace(
                go.Scatter(
                    x=xs,
                    y=[c["eps_l_1"] for c in line],
                    mode="lines",
                    line=dict(color=color, dash="dash"),
                    name=f"{m.label}: eps_l_1",
                )
            )
            msgs.add_trace(
                go.Scatter(
                    x=xs, y=[c["expected_messages"] for c in line], mode="lines", line=dict(color=color), name=m.label
                )
            )
    for fig in (rmse, eps, msgs):
        _mark(fig, current)
    return [
        _layout(
            rmse,
            "Error against eps_c (line: analytic std; open: measured raw; filled: measured clipped)",
            "central eps_c",
            "RMSE per bin",
        ),
        _layout(
            eps,
            "Local guarantees against eps_c (one-hot and fragmented sketch: removal LDP; others: replacement)",
            "central eps_c",
            "local eps (nats)",
            False,
        ),
        _layout(msgs, "Messages per respondent against eps_c", "central eps_c", "expected messages"),
    ]


def histogram_figure(truth: np.ndarray, series: dict[str, np.ndarray], labels=None, log_y: bool = False) -> go.Figure:
    """The true histogram and estimates; at most MAX_POINTS values (evenly spaced) are drawn."""
    idx = np.arange(truth.size)
    if truth.size > MAX_POINTS:
        idx = np.unique(np.linspace(0, truth.size - 1, MAX_POINTS).astype(np.int64))
    x = [labels[i] for i in idx] if labels is not None else idx
    fig = go.Figure()
    kind = go.Bar if truth.size <= 60 else go.Scattergl
    style = {} if kind is go.Bar else {"mode": "lines"}
    fig.add_trace(kind(x=x, y=truth[idx], name="original", **style))
    for name, values in series.items():
        y = np.clip(values[idx], 0, None) if log_y else values[idx]
        fig.add_trace(kind(x=x, y=y, name=name, opacity=0.8, **style))
    shown = "" if idx.size == truth.size else f" ({idx.size:,} of {truth.size:,} values shown)"
    fig.update_layout(
        title=f"Histogram{shown}",
        xaxis_title="value",
        yaxis_title="respondents",
        height=420,
        barmode="group",
        margin=dict(l=10, r=10, t=50, b=10),
        legend=dict(orientation="h"),
    )
    if log_y:
        fig.update_yaxes(type="log", range=[0, math.log10(max(float(truth.max()), 1.0)) + 0.3])
    return fig


def log_lines(x, curves: dict, title: str, x_title: str, y_title: str, log_y: bool = True) -> go.Figure:
    """One line per series (NaN where a series is undefined), log x (and y) axes."""
    fig = go.Figure()
    for i, (name, y) in enumerate(curves.items()):
        fig.add_trace(
            go.Scatter(
                x=list(x),
                y=list(y),
                mode="lines+markers",
                name=name,
                line=dict(color=COLORS[i % len(COLORS)]),
                marker=dict(size=4),
            )
        )
    return _layout(fig, title, x_title, y_title, log_y, legend_right=False)
