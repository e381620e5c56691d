"""Trade-offs' views: the analytic curves of every method against eps_c (ldpcore.experiment.protocol.run.analytic,
cached like ui.kit.runs, in the chosen notion), and the figures and table of RMSE, local epsilons and messages
against eps_c. Every restated number comes from ldpcore (analytic, compare.cells_on_notion)."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from ldpcore.data.histogram import Histogram
from ldpcore.experiment.protocol.compare import cells_on_notion
from ldpcore.experiment.protocol.run import Method, analytic
from ldpcore.experiment.protocol.spec import ProtocolSpec
from ldpcore.oracles import ENCODINGS
from ldpcore.privacy.guarantee import Neighbouring
from ui.kit.axes import layout
from ui.kit.cache import cached
from ui.kit.colours import method_color
from ui.kit.format import exact
from ui.kit.inputs import Input
from ui.kit.runs import run_spec


@cached("results")
def _curve(
    input_key: str, _hist: Histogram, spec: dict, central: bool, eps_grid: tuple, notion: str
) -> list[dict | None]:
    method = Method("", ProtocolSpec(**spec), central)
    return [analytic(method, e, _hist, notion) for e in eps_grid]


def curve(inp: Input, method: Method, eps_grid, notion: str = "native") -> list[dict | None]:
    """The analytic curves of method at every eps_c of eps_grid in `notion` (ldpcore's analytic), cached."""
    grid = tuple(float(e) for e in eps_grid)
    return _curve(inp.key, inp.hist, *run_spec(method, grid[0]), grid, notion)


def _mark(fig: go.Figure, eps_c: float, label: str = "ε_c") -> None:
    """The chosen eps_c as a dotted vertical line, named at its top (x in log10: the axis is logarithmic)."""
    fig.add_vline(x=eps_c, line_dash="dot", line_color="gray")
    fig.add_annotation(
        x=math.log10(eps_c), y=1, yref="paper", text=f"{label} = {eps_c:.3g}", showarrow=False, yanchor="bottom"
    )


def neighbouring_of(method) -> str:
    """The notion a method's numbers are stated in: the encoding's, zero-out for the central Gaussian (one count
    removed)."""
    return Neighbouring.ZERO_OUT if method.central else ENCODINGS[method.spec.encoding].neighbouring


HOVER = "<b>%{fullData.name}</b><br>ε_c = %{x:.4g}<br>"


def _error_traces(fig: go.Figure, label: str, line: list[dict], ok: list, xs: list, color: str, suffix: str) -> None:
    """A method's analytic RMSE line (dashed where only an approximation is known: the count sketch's median
    readout) and its measured raw and clipped RMSE markers, drawn at each cell's certified eps_c."""
    approximate = any(c["rmse_raw_note"] for c in line)
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[c["rmse_raw"] for c in line],
            mode="lines",
            line=dict(color=color, dash="dash" if approximate else None),
            name=label + suffix + (" (analytic line: approximation)" if approximate else ""),
            legendgroup=label,
            hovertemplate=HOVER + ("approximate " if approximate else "") + "analytic std: %{y:.4g}<extra></extra>",
        )
    )
    for key, symbol, size, what in (("rmse_raw", "circle-open", 9, "raw"), ("rmse", "circle", 7, "clipped")):
        fig.add_trace(
            go.Scatter(
                x=[c.privacy["eps_c"] for c in ok],
                y=[c.metrics[key] for c in ok],
                mode="markers",
                marker=dict(color=color, symbol=symbol, size=size),
                showlegend=False,
                name=label,
                legendgroup=label,
                hovertemplate=HOVER + f"measured RMSE ({what}): %{{y:.4g}}<extra></extra>",
            )
        )


def _post_traces(fig: go.Figure, label: str, ok: list, color: str, suffix: str) -> None:
    """A post-processed column's measured RMSE, joined by a dotted line, at each cell's certified eps_c: a
    post-processed estimate has no analytic error, so there is no analytic line."""
    ok = sorted(ok, key=lambda c: c.privacy["eps_c"])
    fig.add_trace(
        go.Scatter(
            x=[c.privacy["eps_c"] for c in ok],
            y=[c.metrics["rmse"] for c in ok],
            mode="lines+markers",
            line=dict(color=color, dash="dot"),
            marker=dict(color=color, symbol="diamond", size=8),
            name=label + suffix + " (measured)",
            legendgroup=label,
            hovertemplate=HOVER + "measured RMSE after post-processing: %{y:.4g}<extra></extra>",
        )
    )


def _local_traces(
    eps: go.Figure, msgs: go.Figure, label: str, line: list[dict], xs: list, color: str, suffix: str
) -> None:
    """A protocol's local epsilons (solid: per phone; dashed: per captured shuffler) and its messages per phone."""
    for key, dash, what in (("eps_l_inf", None, "ε per phone"), ("eps_l_1", "dash", "ε per captured shuffler")):
        eps.add_trace(
            go.Scatter(
                x=xs,
                y=[c[key] for c in line],
                mode="lines",
                line=dict(color=color, dash=dash),
                name=label + suffix,
                legendgroup=label,
                showlegend=key == "eps_l_inf",
                hovertemplate=HOVER + f"{what}: %{{y:.4g}}<extra></extra>",
            )
        )
    msgs.add_trace(
        go.Scatter(
            x=xs,
            y=[c["expected_messages"] for c in line],
            mode="lines",
            line=dict(color=color),
            name=label,
            hovertemplate=HOVER + "messages per phone: %{y:,.4g}<extra></extra>",
        )
    )


def tradeoff_figures(methods, measured, curves, current: float, notion: str = "native") -> list[go.Figure]:
    """RMSE, local epsilons and messages against eps_c: analytic lines, measured markers. notion "replacement":
    curves computed in that notion (every epsilon, x and y, restated by ldpcore) and the cells restated alike."""
    rmse, eps, msgs = go.Figure(), go.Figure(), go.Figure()
    one = notion == "replacement"
    x_title = "central ε_c" + (" (replacement)" if one else " (each method's own notion)")
    measured = cells_on_notion([c for c in measured if c.error is None], notion)
    for m in methods:
        color = method_color(m.label)
        native = neighbouring_of(m)
        suffix = "" if not one or native == "replacement" else f" [{native}, restated]"
        ok = [c for c in measured if c.method == m.label]  # drawn at the certified eps_c
        if m.postprocess is not None:
            _post_traces(rmse, m.label, ok, color, suffix)
            continue
        line = [c for c in curves[m.label] if c is not None]
        xs = [c["eps_c"] for c in line]
        _error_traces(rmse, m.label, line, ok, xs, color, suffix)
        if not m.central:
            _local_traces(eps, msgs, m.label, line, xs, color, suffix)
    for fig in (rmse, eps, msgs):
        _mark(fig, current)
    local = "replacement LDP" if one else "one-hot and fragmented sketch: zero-out LDP; others: replacement"
    return [
        layout(
            rmse,
            "Error against ε_c (line: analytic std; open: measured raw; filled: measured clipped; "
            "diamonds: measured after a post-processing)",
            x_title,
            "RMSE per bin",
        ),
        layout(
            eps,
            "Local guarantees against ε_c (solid: ε per phone; dashed: ε per captured shuffler)",
            x_title,
            f"local ε (nats; {local})" if one else "local ε (nats; each method's own notion)",
            False,
        ),
        layout(msgs, "Messages per phone against ε_c", x_title, "expected messages"),
    ]


def values_at(methods, rows: dict, notion: str = "native") -> list[dict]:
    """The plotted values of every method at one eps_c (rows: {label: analytic dict or None}), as table rows
    with the native notion beside the compared one."""
    out = []
    for m in methods:
        if m.postprocess is not None:  # measured only: its markers are in the error chart
            continue
        r, native = rows.get(m.label), neighbouring_of(m)
        if r is None:  # every cell says it: the method has no plan at this eps_c (see the undefined settings above)
            words = "not defined at this ε_c"
            columns = ("ε_c", "ε per phone", "ε per captured shuffler", "RMSE per bin (analytic)", "messages per phone")
            out.append({"method": m.label, "notion (native)": native, **dict.fromkeys(columns, words)})
            continue
        row = {"method": m.label, "notion (native)": native, "ε_c": f"{r['eps_c']:.4g}"}
        if r["converted"]:
            row["ε_c"] += f" ({native} {r['native_eps_c']:.4g})"
        for key, name in (("eps_l_inf", "ε per phone"), ("eps_l_1", "ε per captured shuffler")):
            native_value = r.get(f"native_{key}", r[key])
            row[name] = (
                "∞ (no local guarantee)"
                if math.isinf(r[key])
                else f"{r[key]:.4g}" + (f" ({native} {native_value:.4g})" if native_value != r[key] else "")
            )
        row["RMSE per bin (analytic)"] = f"{r['rmse_raw']:.4g}"
        row["messages per phone"] = exact(r["expected_messages"])
        out.append(row)
    return out
