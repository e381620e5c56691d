"""Plotly axes, colours and the figure styles every page shares, free of ldpcore (the systems pages then do not
import the protocol layers): log axes labelled in plain numbers, the legend beneath the plot, reference lines,
ticks and markers, one look per series (colour, dash and marker shape: told apart in grayscale too), and one line
per series on log axes (Accountant, Multi-message)."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import plotly.graph_objects as go
from plotly.colors import hex_to_rgb, qualitative, unlabel_rgb

COLORS = qualitative.Plotly
TRUTH = "#444444"  # the truth and reference values
# 24 colours told apart on screen and dark enough for print (luma at most 0.66: Plotly's yellow, light green and
# pink left out): D3's (blue, red, green, orange first) without its gray, then Plotly's and Dark2's
_FIRST = ["#1F77B4", "#D62728", "#2CA02C", "#FF7F0E", "#9467BD", "#17BECF", "#E377C2", "#8C564B", "#BCBD22"]


def _luma(color: str) -> float:
    r, g, b = hex_to_rgb(color) if color.startswith("#") else unlabel_rgb(color)
    return (0.299 * r + 0.587 * g + 0.114 * b) / 255


_GRAYS = ("#666666", "rgb(102,102,102)")
_MORE = qualitative.Plotly + qualitative.Dark2 + qualitative.Dark24
PALETTE = (_FIRST + [c for c in _MORE if c.upper() not in _FIRST and c not in _GRAYS and _luma(c) <= 0.66])[:24]
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "triangle-down", "star", "pentagon", "hexagon", "cross")


class Look(NamedTuple):
    """How one series is drawn: a colour, a dash and a marker shape, so that it is told apart without colour (a
    printed page in grayscale), and a line width that narrows with the series' place (a series drawn exactly on
    another stays visible beneath it)."""

    color: str
    dash: str
    symbol: str
    width: float


def look(i: int) -> Look:
    """The look of the i-th series: every colour, dash and shape differs from the next series' (24 colours, six
    dashes, nine shapes: the first 18 series differ in colour and in dash)."""
    return Look(PALETTE[i % len(PALETTE)], DASHES[i % len(DASHES)], SYMBOLS[i % len(SYMBOLS)], max(1.2, 3.2 - 0.5 * i))


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
    """One line per series (NaN where a series is undefined), each its own look (colour, dash, marker), log x
    (and y) axes."""
    fig = go.Figure()
    for i, (name, y) in enumerate(curves.items()):
        series = look(i)
        fig.add_trace(
            go.Scatter(
                x=list(x),
                y=list(y),
                mode="lines+markers",
                name=name,
                line=dict(color=series.color, dash=series.dash, width=series.width),
                marker=dict(size=5, symbol=series.symbol),
                hovertemplate=f"<b>%{{fullData.name}}</b><br>{x_title} %{{x:,.4g}}<br>"
                f"{y_title} %{{y:,.4g}}<extra></extra>",
            )
        )
    return layout(fig, title, x_title, y_title, log_y)
