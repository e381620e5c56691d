"""Charts for a paper: any plotly figure of the dashboard as SVG, PDF or PNG at a chosen width, font size
and scale, without the on-screen chrome, and the CSV of the data it plots.

Static images are drawn by plotly.js in the system's headless Chromium through kaleido, offline: the
plotly.js bundled with the plotly package, and no MathJax (kaleido would otherwise fetch it from a CDN).
"""

from __future__ import annotations

import copy
import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

import plotly
import plotly.graph_objects as go
import streamlit as st

FORMATS = {"svg": "image/svg+xml", "pdf": "application/pdf", "png": "image/png"}
_PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


@dataclass(frozen=True)
class ExportStyle:
    """The size of a printed chart: width and height in CSS pixels (1 px = 1/96 in; a 6.5 in text column
    is 624 px), the base font size in points of that scale, and the PNG scale factor (2: 192 dpi)."""

    width: int = 720
    height: int = 420
    font_size: int = 12
    scale: float = 2.0
    title: bool = False  # the caption of a paper usually replaces the on-screen title


def for_print(fig: go.Figure, style: ExportStyle) -> go.Figure:
    """A copy of fig laid out for print: white background, the chosen font, no title unless asked, the
    legend at the bottom of the figure beneath the x axis's title (the plot area gives it the room it needs), and
    no interactive-only elements."""
    out = go.Figure(copy.deepcopy(fig.to_dict()))
    out.update_layout(
        template="simple_white",
        width=style.width,
        height=style.height,
        font=dict(size=style.font_size, family="Liberation Sans, Arial, sans-serif"),
        legend=dict(
            orientation="h",
            x=0,
            y=0,
            xanchor="left",
            yanchor="bottom",
            yref="container",
            font=dict(size=style.font_size),
        ),
        margin=dict(l=60, r=20, t=40 if style.title else 10, b=10),
        hovermode=False,
    )
    if not style.title:
        out.update_layout(title=None)
    out.update_xaxes(showgrid=True, gridcolor="#e5e5e5")
    out.update_yaxes(showgrid=True, gridcolor="#e5e5e5")
    return out


def image_bytes(fig: go.Figure, fmt: str, style: ExportStyle = ExportStyle()) -> bytes:
    """fig as an SVG, PDF or PNG file (about 3-6 s: a headless Chromium starts for the call)."""
    import kaleido

    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    printed = for_print(fig, style)
    opts = dict(format=fmt, width=style.width, height=style.height, scale=style.scale if fmt == "png" else 1)
    return kaleido.calc_fig_sync(printed.to_dict(), opts=opts, kopts=dict(mathjax=False, plotlyjs=str(_PLOTLY_JS)))


def data_csv(fig: go.Figure) -> str:
    """The plotted data, one row per point: trace (legend name), x, y, and the x/y axis titles in the
    header (as plain text: ε<sub>c</sub> -> ε_c), with the values exactly as plotted (full precision)."""
    x_title = _plain(fig.layout.xaxis.title.text or "x")
    y_title = _plain(fig.layout.yaxis.title.text or "y")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["trace", x_title, y_title])
    for trace in fig.data:
        if getattr(trace, "x", None) is None or getattr(trace, "y", None) is None:
            continue
        for x, y in zip(trace.x, trace.y):
            if x is not None and y is not None:
                writer.writerow([trace.name or "", repr(float(x)), repr(float(y))])
    return out.getvalue()


def _plain(text: str) -> str:
    """A chart's text without its markup: a subscript as _c, other tags left out."""
    return re.sub(r"<[^>]+>", "", text.replace("<sub>", "_"))


def export_menu(fig: go.Figure, name: str) -> None:
    """A popover beneath a chart: its image for a paper (format, size, font, scale) and its data as CSV.
    The image is drawn only when its button is clicked."""
    with st.popover("Export for a paper", icon=":material/download:"):
        c1, c2 = st.columns(2)
        fmt = c1.radio("Format", list(FORMATS), horizontal=True, key=f"{name}_fmt", format_func=str.upper)
        font = c2.number_input("Font size (pt)", 6, 32, ExportStyle.font_size, key=f"{name}_font")
        width = c1.number_input("Width (px, 96 per inch)", 200, 4000, ExportStyle.width, step=10, key=f"{name}_w")
        height = c2.number_input("Height (px)", 150, 4000, ExportStyle.height, step=10, key=f"{name}_h")
        scale = c1.number_input("PNG scale", 1.0, 8.0, ExportStyle.scale, step=0.5, key=f"{name}_scale")
        title = c2.checkbox("Keep the title", value=False, key=f"{name}_title")
        style = ExportStyle(int(width), int(height), int(font), float(scale), title)
        st.download_button(
            f"{fmt.upper()} image",
            lambda: image_bytes(fig, fmt, style),
            f"{name}.{fmt}",
            FORMATS[fmt],
            on_click="ignore",
            key=f"{name}_image",
        )  # drawn on the click (a headless Chromium starts for it), never on a rerun
        st.download_button(
            "CSV of the plotted data", data_csv(fig), f"{name}.csv", "text/csv", on_click="ignore", key=f"{name}_csv"
        )
