"""Plotly figures of the Numeric, Longitudinal, LDP-SGD and Crowd IDs pages."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui.axes import COLORS, log_ticks

TRUTH = "#444444"


def _style(
    fig: go.Figure, title: str, x: str, y: str, log_x: bool = False, log_y: bool = False, height: int = 380
) -> go.Figure:
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


def _line(x, y, name: str, color: str, mode: str = "lines", **line) -> go.Scatter:
    """A line trace (mode "lines+markers": with its points) in color; line: more line settings (width, dash)."""
    return go.Scatter(x=x, y=y, mode=mode, name=name, line=dict(color=color, **line))


def _ticks(x, y, name: str, size: int) -> go.Scatter:
    """Short horizontal ticks at the reference values (the truth, an expectation)."""
    return go.Scatter(
        x=x,
        y=y,
        mode="markers",
        name=name,
        marker=dict(color=TRUTH, symbol="line-ew-open", size=size, line=dict(width=2)),
    )


def _mark(fig: go.Figure, x: float, name: str, color: str = "gray", dash: str = "dot") -> None:
    """A vertical line with a legend entry (vline annotations misplace on log axes)."""
    fig.add_vline(x=x, line_dash=dash, line_color=color, name=name, showlegend=True)


# --- Numeric ----------------------------------------------------------------------------


def estimates_figure(names, truth, estimate, std, title: str, y: str) -> go.Figure:
    """Per quantity: the truth and the estimate with a +-2 std bar (analytic std)."""
    fig = go.Figure(_ticks(names, truth, "truth", 18))
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
    return _style(fig, title, "", y)


def mse_figure(
    eps_grid, comparisons, titles: dict, eps: float, chosen: str, empirical: float | None, kind: str = "numeric"
) -> go.Figure:
    """Analytic expected MSE of every mechanism on this data against eps; the measured MSE of the
    chosen mechanism at the chosen eps as a marker."""
    fig = go.Figure()
    for i, name in enumerate(titles):
        y = [getattr(c, kind)[name] for c in comparisons]
        fig.add_trace(
            _line(
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
    _mark(fig, eps, f"eps = {eps:g}")
    what = "means" if kind == "numeric" else "frequencies"
    return _style(fig, f"Expected MSE of the {what} on this data", "eps (per respondent)", "MSE", True, True)


def worst_case_figure(
    eps_grid, curves: dict, eps_star: float, eps_sharp: float, eps: float, relative: bool
) -> go.Figure:
    """Worst-case variance of one report against eps (relative: divided by Duchi's), eps* and eps# marked
    (Wang et al., ICDE 2019, Table I)."""
    fig = go.Figure()
    for i, (name, y) in enumerate(curves.items()):
        fig.add_trace(_line(list(eps_grid), list(y), name, COLORS[i % len(COLORS)]))
    _mark(fig, eps_star, f"eps* = {eps_star:.4f}", "#b22222")
    _mark(fig, eps_sharp, f"eps# = {eps_sharp:.4f}", "#1f5fbf")
    _mark(fig, eps, f"eps = {eps:g}", "darkgray", "dash")
    if relative:
        return _style(
            fig,
            "Worst-case variance of one report, relative to Duchi et al.'s",
            "eps",
            "worst-case variance / Duchi's",
            log_x=True,
        )
    return _style(fig, "Worst-case variance of one report (t in [-1, 1])", "eps", "variance", True, True)


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
    _mark(fig, t, f"t = {t:g}", TRUTH)
    return _style(fig, f"Piecewise Mechanism: output density at eps = {eps:g}", "report", "density")


# --- Longitudinal -----------------------------------------------------------------------


def running_counts_figure(truth, estimate, std) -> go.Figure:
    """True F_t, the estimate and its +-2 std band (exact std) over the periods."""
    t = np.arange(1, len(truth) + 1)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=np.r_[t, t[::-1]],
            y=np.r_[estimate + 2 * std, np.maximum(estimate - 2 * std, 0)[::-1]],  # a count is never below 0
            fill="toself",
            fillcolor="rgba(99, 110, 250, 0.18)",
            line=dict(width=0),
            hoverinfo="skip",
            name="estimate ± 2σ (clipped at 0)",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=t,
            y=estimate,
            mode="lines+markers",
            name="estimate F_hat_t",
            line=dict(color=COLORS[0]),
            marker=dict(size=4),
        )
    )
    fig.add_trace(_line(t, truth, "true F_t", TRUTH, width=2.5))
    return _style(fig, "Respondents in state 1, period by period", "period t", "respondents", height=420)


# --- LDP-SGD ----------------------------------------------------------------------------


def accuracy_figure(private, baseline, bayes: float, label: str) -> go.Figure:
    """Test accuracy after the iterations of curve_x (0 = the initial model) of two ldpcore.systems.sgd.TrainResult,
    private vs the non-private baseline, epoch ends marked."""
    fig = go.Figure(_line(baseline.curve_x, baseline.test_accuracy, "non-private baseline", TRUTH, dash="dash"))
    fig.add_trace(_line(private.curve_x, private.test_accuracy, label, COLORS[0]))
    ends = private.epoch_ends
    fig.add_trace(
        go.Scatter(
            x=ends,
            y=private.epoch_test_accuracy,
            mode="markers",
            name="end of an epoch",
            marker=dict(color=COLORS[0], size=8),
        )
    )
    fig.add_hline(y=bayes, line_dash="dot", line_color="gray", annotation_text=f"Bayes rule {bayes:.3f}")
    return _style(fig, "Test accuracy per iteration", "iteration", "test accuracy", height=400)


def composition_figure(epochs, basic, advanced, eps_c: float | None) -> go.Figure:
    """Central eps after each epoch: basic and advanced (Theorem II.7) composition of the per-epoch bound."""
    fig = go.Figure(_line(epochs, basic, "basic composition", COLORS[0], "lines+markers"))
    fig.add_trace(_line(epochs, advanced, "advanced (Theorem II.7)", COLORS[1], "lines+markers"))
    if eps_c is not None:
        fig.add_hline(y=eps_c, line_dash="dot", line_color="gray", annotation_text=f"certified eps_c = {eps_c:.3g}")
    return _style(fig, "Central eps after each epoch", "epochs", "eps_c", height=400)


# --- Crowd IDs --------------------------------------------------------------------------


def drops_figure(labels, dropped, expected, bound: float) -> go.Figure:
    """Reports dropped per crowd in this run, their expectation and Theorem V.2's bound."""
    fig = go.Figure()
    fig.add_trace(go.Bar(x=labels, y=dropped, name="dropped in this run", marker_color=COLORS[0]))
    fig.add_trace(_ticks(labels, expected, "expected", 22))
    fig.add_hline(y=bound, line_dash="dot", line_color="#b22222", annotation_text=f"Theorem V.2 bound {bound:.1f}")
    return _style(fig, "Reports dropped per crowd", "crowd (size)", "reports dropped")


def _level(x, y: float, name: str) -> go.Scatter:
    """A dotted horizontal reference line as a trace (hline annotations misplace on log axes)."""
    return _line([x[0], x[-1]], [y, y], name, TRUTH, dash="dot")


def partition_figure(labels, alone, pooled: float) -> go.Figure:
    """Std of a count estimated within each crowd vs over the whole data set."""
    fig = go.Figure(go.Bar(x=labels, y=alone, name="estimated within the crowd", marker_color=COLORS[0]))
    fig.add_trace(_level(labels, pooled, f"estimated over the whole data set ({pooled:.3g})"))
    _style(fig, "Std of a count estimate: natural crowd IDs", "crowd (size)", "std (respondents)", log_y=True)
    return fig


def split_figure(fraction, best, median) -> go.Figure:
    """split / whole std against the share of eps_l spent on a data-derived crowd ID."""
    fig = go.Figure(_line(fraction, median, "median over values", COLORS[0]))
    fig.add_trace(_line(fraction, best, "best value (smallest ratio)", COLORS[1]))
    fig.add_trace(_level(fraction, 1.0, "no split (all of eps_l on the report)"))
    _style(
        fig,
        "Data-derived crowd ID: error relative to not splitting",
        "eps_hat / eps_l (share on the ID)",
        "std ratio (split / whole)",
        log_y=True,
    )
    return fig
