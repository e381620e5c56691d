"""Plotly figures: trade-off curves and 1-D histograms."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative

from ldpcore.experiment.run import method_label
from ldpcore.experiment.spec import ProtocolSpec
from ldpcore.oracles import ENCODINGS
from ldpcore.privacy.notions import on_notion
from ui.axes import COLORS, log_ticks
from ui.format import exact

MAX_POINTS = 5000
# one colour per method on every page: the central baseline gray, then the one-hot columns and every encoding
# in a fixed order through a 24-colour palette (a method keeps its colour whatever else is drawn)
CENTRAL_COLOR = "#555555"
# blue, red, green, orange first (attribute fragments, tau = 4, 16, 256: the paper's columns), then the rest of
# D3 without its gray, then Plotly's and Dark2's
_FIRST = ["#1F77B4", "#D62728", "#2CA02C", "#FF7F0E", "#9467BD", "#17BECF", "#E377C2", "#8C564B", "#BCBD22"]
_PALETTE = _FIRST + [c for c in qualitative.Plotly + qualitative.Dark2 if c.upper() not in _FIRST and c != "#666666"]
_TAUS = (4, 16, 256, 1, 2, 8, 32, 64, 128, 1024)  # the paper's columns first: the most distinct colours
_ORDER = ["Attribute fragments"] + [f"Report fragments, tau={t}" for t in _TAUS]
_ORDER += [method_label(ProtocolSpec(eps_c=1.0, delta=1e-6, encoding=name)) for name in ENCODINGS if name != "onehot"]


def method_color(label: str) -> str:
    """The colour of a method (a column label of ldpcore.experiment.run), the same on every page."""
    if label.startswith("Central"):
        return CENTRAL_COLOR
    if label in _ORDER:
        return _PALETTE[_ORDER.index(label) % len(_PALETTE)]
    return _PALETTE[sum(map(ord, label)) % len(_PALETTE)]


def _layout(fig: go.Figure, title: str, x: str, y: str, log_y: bool = True, legend_right: bool = True) -> go.Figure:
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


def _mark(fig: go.Figure, eps_c: float, label: str = "ε_c") -> None:
    """The chosen eps_c as a dotted vertical line, named at its top (x in log10: the axis is logarithmic)."""
    fig.add_vline(x=eps_c, line_dash="dot", line_color="gray")
    fig.add_annotation(
        x=math.log10(eps_c), y=1, yref="paper", text=f"{label} = {eps_c:.3g}", showarrow=False, yanchor="bottom"
    )


def neighbouring_of(method) -> str:
    """The notion a method's numbers are stated in: the encoding's, removal for the central Gaussian."""
    return "removal" if method.central else ENCODINGS[method.spec.encoding].neighbouring


def tradeoff_figures(methods, measured, curves, current: float, notion: str = "native") -> list[go.Figure]:
    """RMSE, local epsilons and messages against eps_c: analytic lines, measured markers. notion
    "replacement": every epsilon (x and y) restated under replacement by ldpcore.privacy.notions.on_notion."""
    rmse, eps, msgs = go.Figure(), go.Figure(), go.Figure()
    one = notion == "replacement"
    x_title = "central ε_c" + (" (replacement)" if one else " (each method's own notion)")
    for m in methods:
        color = method_color(m.label)
        native = neighbouring_of(m)

        def conv(e, native=native):
            return on_notion(e, native, notion).eps

        suffix = "" if not one or native == "replacement" else " [removal ×2]"
        line = [c for c in curves[m.label] if c is not None]
        ok = [c for c in measured if c.method == m.label and c.error is None]  # drawn at the certified eps_c
        xs = [conv(c["eps_c"]) for c in line]
        approximate = any(c["rmse_raw_note"] for c in line)  # dashed: the count sketch's median readout
        hover = "<b>%{fullData.name}</b><br>ε_c = %{x:.4g}<br>"
        rmse.add_trace(
            go.Scatter(
                x=xs,
                y=[c["rmse_raw"] for c in line],
                mode="lines",
                line=dict(color=color, dash="dash" if approximate else None),
                name=m.label + suffix + (" (analytic line: approximation)" if approximate else ""),
                legendgroup=m.label,
                hovertemplate=hover + ("approximate " if approximate else "") + "analytic std: %{y:.4g}<extra></extra>",
            )
        )
        for key, symbol, size, what in (("rmse_raw", "circle-open", 9, "raw"), ("rmse", "circle", 7, "clipped")):
            rmse.add_trace(
                go.Scatter(
                    x=[conv(c.plan.eps_c if c.plan is not None else c.eps_c) for c in ok],
                    y=[c.metrics[key] for c in ok],
                    mode="markers",
                    marker=dict(color=color, symbol=symbol, size=size),
                    showlegend=False,
                    name=m.label,
                    legendgroup=m.label,
                    hovertemplate=hover + f"measured RMSE ({what}): %{{y:.4g}}<extra></extra>",
                )
            )
        if not m.central:
            for key, dash, what in (("eps_l_inf", None, "ε per phone"), ("eps_l_1", "dash", "ε per captured shuffler")):
                eps.add_trace(
                    go.Scatter(
                        x=xs,
                        y=[conv(c[key]) for c in line],
                        mode="lines",
                        line=dict(color=color, dash=dash),
                        name=m.label + suffix,
                        legendgroup=m.label,
                        showlegend=key == "eps_l_inf",
                        hovertemplate=hover + f"{what}: %{{y:.4g}}<extra></extra>",
                    )
                )
            msgs.add_trace(
                go.Scatter(
                    x=xs,
                    y=[c["expected_messages"] for c in line],
                    mode="lines",
                    line=dict(color=color),
                    name=m.label,
                    hovertemplate=hover + "messages per phone: %{y:,.4g}<extra></extra>",
                )
            )
    for fig in (rmse, eps, msgs):
        _mark(fig, current)
    local = "replacement LDP" if one else "one-hot and fragmented sketch: removal LDP; others: replacement"
    return [
        _layout(
            rmse,
            "Error against ε_c (line: analytic std; open: measured raw; filled: measured clipped)",
            x_title,
            "RMSE per bin",
        ),
        _layout(
            eps,
            "Local guarantees against ε_c (solid: ε per phone; dashed: ε per captured shuffler)",
            x_title,
            f"local ε (nats; {local})" if one else "local ε (nats; each method's own notion)",
            False,
        ),
        _layout(msgs, "Messages per phone against ε_c", x_title, "expected messages"),
    ]


def values_at(methods, rows: dict, notion: str = "native") -> list[dict]:
    """The plotted values of every method at one eps_c (rows: {label: analytic dict or None}), as table rows
    with the native notion beside the compared one."""
    out = []
    for m in methods:
        r, native = rows.get(m.label), neighbouring_of(m)
        if r is None:  # every cell says it: the method has no plan at this eps_c (see the undefined settings above)
            words = "not defined at this ε_c"
            columns = ("ε_c", "ε per phone", "ε per captured shuffler", "RMSE per bin (analytic)", "messages per phone")
            out.append({"method": m.label, "notion (native)": native, **dict.fromkeys(columns, words)})
            continue
        c = on_notion(r["eps_c"], native, notion)
        row = {"method": m.label, "notion (native)": native, "ε_c": f"{c.eps:.4g}"}
        if c.converted:
            row["ε_c"] += f" (removal {c.native_eps:.4g})"
        for key, name in (("eps_l_inf", "ε per phone"), ("eps_l_1", "ε per captured shuffler")):
            v = on_notion(r[key], native, notion)
            row[name] = (
                "∞ (no local guarantee)"
                if math.isinf(v.eps)
                else f"{v.eps:.4g}" + (f" (removal {v.native_eps:.4g})" if v.converted else "")
            )
        row["RMSE per bin (analytic)"] = f"{r['rmse_raw']:.4g}"
        row["messages per phone"] = exact(r["expected_messages"])
        out.append(row)
    return out


def ranked_figure(view, central=None, log_y: bool = True, title: str = "Bins ranked by true count") -> go.Figure:
    """The ranked histogram (ldpcore.experiment.histogram_view.Ranked), bottom to top: the 95% band of the
    estimate, the central baseline (optional, small gray markers), the true counts (black), the estimates
    (lines with markers, drawn last so nothing hides them)."""
    fig = go.Figure()
    x = view.rank
    markers = x.size <= 200
    hover = "<b>%{fullData.name}</b><br>rank %{x:,} (%{customdata})<br>respondents %{y:,.4g}<extra></extra>"
    colors = {name: _PALETTE[i % len(_PALETTE)] for i, name in enumerate(view.series)}
    for name in view.series:
        if name in view.low:
            fig.add_trace(
                go.Scatter(
                    x=np.r_[x, x[::-1]],
                    y=np.r_[view.high[name], view.low[name][::-1]],
                    fill="toself",
                    fillcolor="rgba(99, 110, 250, 0.22)",
                    line=dict(width=0),
                    hoverinfo="skip",
                    name=f"{name}: 95% band",
                )
            )
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
        xaxis_title="rank by true count",
        yaxis_title="respondents per bin",
        height=420,
        margin=dict(l=10, r=10, t=50, b=10),
        legend=dict(orientation="h", x=0, xanchor="left", yanchor="top", y=-0.2),
    )
    if log_y:
        top = max(float(np.max(view.truth)), 1.0)
        fig.update_yaxes(type="log", range=[-0.3, math.log10(top) + 0.3], dtick=1, exponentformat="power")
    return fig


def scatter_figure(view, name: str) -> go.Figure:
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
        xaxis_title="true respondents",
        yaxis_title="estimated respondents",
        height=420,
        margin=dict(l=10, r=10, t=50, b=10),
        legend=dict(orientation="h", x=0, xanchor="left", yanchor="top", y=-0.2),
    )
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
    return _layout(fig, title, x_title, y_title, log_y, legend_right=False)
