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
from ui.kit.axes import Look, layout
from ui.kit.cache import cached
from ui.kit.colours import method_look
from ui.kit.format import exact
from ui.kit.inputs import Input
from ui.kit.runs import neighbouring_of, run_spec


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


EPS_C = "ε<sub>c</sub>"  # math in a chart's text: a subscript (plotly's <sub>), on screen and in a printed figure


def _mark(fig: go.Figure, eps_c: float) -> None:
    """The chosen eps_c as a dotted vertical line, named inside the plot at its top (never cut off by the
    figure's edge, in print either; x in log10: the axis is logarithmic)."""
    fig.add_vline(x=eps_c, line_dash="dot", line_color="gray")
    fig.add_annotation(
        x=math.log10(eps_c),
        y=1,
        yref="paper",
        text=f"{EPS_C} = {eps_c:.3g}",
        showarrow=False,
        xanchor="left",
        yanchor="top",
        xshift=3,
        bgcolor="rgba(255, 255, 255, 0.8)",
    )


HOVER = "<b>%{fullData.name}</b><br>ε<sub>c</sub> = %{x:.4g}<br>"


def _key(fig: go.Figure, name: str, dash: str = "solid", symbol: str | None = None, width: float = 2) -> None:
    """A legend entry saying what a line or a marker means (drawn in gray, nothing plotted)."""
    fig.add_trace(
        go.Scatter(
            x=[None],
            y=[None],
            mode="markers" if dash == "none" else ("lines+markers" if symbol else "lines"),
            name=name,
            line=dict(color="#555555", dash=None if dash == "none" else dash, width=width),
            marker=dict(color="#555555", symbol=symbol or "circle", size=8),
            legendgroup="keys",
            legendrank=2000,
            hoverinfo="skip",
        )
    )


def _entry(fig: go.Figure, label: str, series: Look, mode: str = "lines+markers") -> None:
    """The legend entry of a method: its colour, dash and marker shape (its lines and markers carry no entry)."""
    fig.add_trace(
        go.Scatter(
            x=[None],
            y=[None],
            mode=mode,
            name=label,
            line=dict(color=series.color, dash=series.dash, width=series.width),
            marker=dict(color=series.color, symbol=series.symbol, size=8),
            legendgroup=label,
            hoverinfo="skip",
        )
    )


def _error_traces(fig: go.Figure, label: str, line: list[dict], ok: list, xs: list, series: Look) -> None:
    """A method's analytic RMSE line (faded where only an approximation is known: the count sketch's median
    readout) and its measured raw (open marker) and clipped (filled) RMSE, drawn at each cell's certified eps_c."""
    approximate = any(c["rmse_raw_note"] for c in line)
    _entry(fig, label + (" (analytic line: approximation)" if approximate else ""), series)
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[c["rmse_raw"] for c in line],
            mode="lines",
            line=dict(color=series.color, dash=series.dash, width=series.width),
            opacity=0.55 if approximate else 1.0,
            name=label,
            legendgroup=label,
            showlegend=False,
            hovertemplate=HOVER + ("approximate " if approximate else "") + "analytic std: %{y:.4g}<extra></extra>",
        )
    )
    for key, open_, size, what in (("rmse_raw", True, 10, "raw"), ("rmse", False, 7, "clipped")):
        fig.add_trace(
            go.Scatter(
                x=[c.privacy["eps_c"] for c in ok],
                y=[c.metrics[key] for c in ok],
                mode="markers",
                marker=dict(
                    color=series.color,
                    symbol=series.symbol + ("-open" if open_ else ""),
                    size=size,
                    line=dict(width=1.5 if open_ else 0),
                ),
                showlegend=False,
                name=label,
                legendgroup=label,
                hovertemplate=HOVER + f"measured RMSE ({what}): %{{y:.4g}}<extra></extra>",
            )
        )


def _post_traces(fig: go.Figure, label: str, ok: list, series: Look) -> None:
    """A post-processed column's measured RMSE (diamonds joined by a dotted line, in its column's colour) at each
    cell's certified eps_c: a post-processed estimate has no analytic error, so there is no analytic line."""
    ok = sorted(ok, key=lambda c: c.privacy["eps_c"])
    fig.add_trace(
        go.Scatter(
            x=[c.privacy["eps_c"] for c in ok],
            y=[c.metrics["rmse"] for c in ok],
            mode="lines+markers",
            line=dict(color=series.color, dash="dot", width=series.width),
            marker=dict(color=series.color, symbol="diamond", size=8),
            name=label + " (measured)",
            legendgroup=label,
            hovertemplate=HOVER + "measured RMSE after post-processing: %{y:.4g}<extra></extra>",
        )
    )


def _local_traces(eps: go.Figure, msgs: go.Figure, label: str, line: list[dict], xs: list, series: Look) -> None:
    """A protocol's local epsilons (thick line: per phone; thin line with open markers: per captured shuffler) and
    its messages per phone, each in the method's colour and dash."""
    _entry(eps, label, series, "lines")
    for key, per_phone, what in (("eps_l_inf", True, "ε per phone"), ("eps_l_1", False, "ε per captured shuffler")):
        eps.add_trace(
            go.Scatter(
                x=xs,
                y=[c[key] for c in line],
                mode="lines" if per_phone else "lines+markers",
                line=dict(color=series.color, dash=series.dash, width=series.width + 1 if per_phone else 1),
                marker=dict(color=series.color, symbol=series.symbol + "-open", size=6, maxdisplayed=8),
                name=label,
                legendgroup=label,
                showlegend=False,
                hovertemplate=HOVER + f"{what}: %{{y:.4g}}<extra></extra>",
            )
        )
    msgs.add_trace(
        go.Scatter(
            x=xs,
            y=[c["expected_messages"] for c in line],
            mode="lines",
            line=dict(color=series.color, dash=series.dash, width=series.width),
            name=label,
            hovertemplate=HOVER + "messages per phone: %{y:,.4g}<extra></extra>",
        )
    )


def tradeoff_figures(methods, measured, curves, current: float, unit: str, notion: str = "native") -> list[go.Figure]:
    """RMSE, local epsilons and messages against eps_c: analytic lines, measured markers, each method in its own
    colour, dash and marker shape (ui.kit.colours.method_look; the lines narrower the later they are drawn, so a
    line exactly on another leaves it visible), what the markers and line widths mean in the legend itself.
    unit: the data's (Histogram.unit); notion "replacement": curves computed in that notion (every epsilon, x and
    y, restated by ldpcore) and the cells restated alike (compare.cells_on_notion)."""
    rmse, eps, msgs = go.Figure(), go.Figure(), go.Figure()
    one = notion == "replacement"
    x_title = f"central {EPS_C}" + (" (replacement)" if one else " (each method's own notion)")
    measured = cells_on_notion([c for c in measured if c.error is None], notion)
    for j, m in enumerate(methods):
        series = method_look(m.label)._replace(width=max(1.0, 3.4 - 0.6 * j))
        native = neighbouring_of(m)
        label = m.label + ("" if not one or native == "replacement" else f" [{native}, restated]")
        ok = [c for c in measured if c.method == m.label]  # drawn at the certified eps_c
        if m.postprocess is not None:  # in the colour of the column it post-processes
            column = m.label.removesuffix(f" + {m.postprocess}")
            _post_traces(rmse, label, ok, method_look(column)._replace(width=series.width))
            continue
        line = [c for c in curves[m.label] if c is not None]
        xs = [c["eps_c"] for c in line]
        _error_traces(rmse, label, line, ok, xs, series)
        if not m.central:
            _local_traces(eps, msgs, label, line, xs, series)
    _key(rmse, "line: analytic std of the raw estimate")
    _key(rmse, "open: measured RMSE, raw estimate", "none", "circle-open")
    _key(rmse, "filled: measured RMSE, clipped estimate", "none", "circle")
    if any(m.postprocess is not None for m in methods):
        _key(rmse, "diamonds, dotted: measured RMSE after a post-processing", "dot", "diamond")
    _key(eps, "thick: ε per phone", width=4)
    _key(eps, "thin, open markers: ε per captured shuffler", symbol="circle-open", width=1)
    for fig in (rmse, eps, msgs):
        _mark(fig, current)
    return [
        layout(rmse, f"Error against {EPS_C}", x_title, f"RMSE ({unit})"),
        layout(
            eps,
            f"Local guarantees against {EPS_C}",
            x_title,
            f"local ε (nats, {'replacement' if one else 'own notion'})",
            False,
        ),
        layout(msgs, f"Messages per phone against {EPS_C}", x_title, "expected messages"),
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
