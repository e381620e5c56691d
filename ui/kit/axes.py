"""Plotly axes, colours and the figure styles every page shares, free of ldpcore (the systems pages then do not
import the protocol layers): log axes labelled in plain numbers, the legend beneath the plot, reference lines,
ticks and markers, and one line per series on log axes (Accountant, Multi-message)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative

COLORS = qualitative.Plotly
TRUTH = "#444444"  # the truth and reference values


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _tick_text(v: float) -> str:
    """0.05, 0.2, 1, 500, 2,000 as written; beyond 10^4 or below 10^-3 as 2×10⁵ / 10⁻⁴."""
    if 1e-3 <= v < 1e4:
        return f"{v:,.6g}"
    exponent = math.floor(math.log10(v) + 1e-9)
    mantissa = round(v / 10**exponent)
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    return power if mantissa == 1 else f"{mantissa}×{power}"


def log_ticks(fig: go.Figure, axis: str = "x") -> None:
    """A log axis labelled in plain numbers: at 1, 2 and 5 of each decade where the data span at most four
    decades, else at the decades only; unlabelled minor ticks and a light grid at 2..9 of each decade."""
    values = []
    for trace in fig.data:
        data = getattr(trace, axis, None)
        if data is not None:
            values += [float(v) for v in np.asarray(data, dtype=object).ravel() if _positive(v)]
    update = fig.update_xaxes if axis == "x" else fig.update_yaxes
    minor = dict(dtick="D1", ticks="outside", ticklen=3, showgrid=True, gridcolor="#f2f2f2")
    if not values:
        update(type="log", dtick=1, exponentformat="power", minor=minor)
        return
    lo, hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    steps = (1, 2, 5) if hi - lo <= 4 else (1,)
    ticks = [m * 10.0**e for e in range(lo, hi + 1) for m in steps]
    update(type="log", tickvals=ticks, ticktext=[_tick_text(t) for t in ticks], minor=minor)


def _positive(v) -> bool:
    try:
        v = float(v)
    except (TypeError, ValueError):
        return False
    return math.isfinite(v) and v > 0


def style(
    fig: go.Figure, title: str, x: str, y: str, log_x: bool = False, log_y: bool = False, height: int = 380
) -> go.Figure:
    """Title, axis titles, height and the legend beneath the plot; log axes as log_ticks draws them."""
    fig.update_layout(
        title=title,
        xaxis_title=x,
        yaxis_title=y,
        height=height,
        margin=dict(l=10, r=10, t=50, b=10),
        legend=dict(orientation="h", yanchor="top", y=-0.25),
    )
    if log_x:
        log_ticks(fig, "x")
    if log_y:
        log_ticks(fig, "y")
    return fig


def line(x, y, name: str, color: str, mode: str = "lines", **settings) -> go.Scatter:
    """A line trace (mode "lines+markers": with its points) in color; settings: more line settings (width, dash)."""
    return go.Scatter(x=x, y=y, mode=mode, name=name, line=dict(color=color, **settings))


def ticks(x, y, name: str, size: int) -> go.Scatter:
    """Short horizontal ticks at the reference values (the truth, an expectation)."""
    return go.Scatter(
        x=x,
        y=y,
        mode="markers",
        name=name,
        marker=dict(color=TRUTH, symbol="line-ew-open", size=size, line=dict(width=2)),
    )


def legend_vline(fig: go.Figure, x: float, name: str, color: str = "gray", dash: str = "dot") -> None:
    """A vertical line with a legend entry (vline annotations misplace on log axes)."""
    fig.add_vline(x=x, line_dash=dash, line_color=color, name=name, showlegend=True)


def layout(fig: go.Figure, title: str, x: str, y: str, log_y: bool = True) -> go.Figure:
    """Log axes with decade ticks; the legend beneath the plot, horizontal (it wraps into lines instead of
    scrolling, and never squeezes the plot, also on a narrow screen); hover shows x and y of every trace."""
    entries = sum(1 for t in fig.data if t.showlegend is not False)
    fig.update_layout(
        title=title,
        xaxis_title=x,
        yaxis_title=y,
        height=440 + 22 * max(0, (entries - 1) // 3),  # room for the legend's lines
        margin=dict(l=10, r=10, t=50, b=10),
        legend=dict(orientation="h", x=0, xanchor="left", yanchor="top", y=-0.26, font=dict(size=11)),
        hovermode="closest",
    )
    log_ticks(fig, "x")
    if log_y:
        log_ticks(fig, "y")
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
                hovertemplate=f"<b>%{{fullData.name}}</b><br>{x_title} %{{x:,.4g}}<br>"
                f"{y_title} %{{y:,.4g}}<extra></extra>",
            )
        )
    return layout(fig, title, x_title, y_title, log_y)
