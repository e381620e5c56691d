"""The Crowd IDs page's figures: reports dropped per crowd (Algorithm 3, Theorem V.2), the error of natural
crowd IDs, and the split of eps_l for a data-derived crowd ID (Erlingsson et al. 2020, Section V)."""

from __future__ import annotations

import plotly.graph_objects as go

from ui.kit.axes import COLORS, TRUTH, line, style, ticks


def drops_figure(labels, dropped, expected, bound: float) -> go.Figure:
    """Reports dropped per crowd in this run, their expectation and Theorem V.2's bound."""
    fig = go.Figure()
    fig.add_trace(go.Bar(x=labels, y=dropped, name="dropped in this run", marker_color=COLORS[0]))
    fig.add_trace(ticks(labels, expected, "expected", 22))
    fig.add_hline(y=bound, line_dash="dot", line_color="#b22222", annotation_text=f"Theorem V.2 bound {bound:.1f}")
    return style(fig, "Reports dropped per crowd", "crowd (size)", "reports dropped")


def _level(x, y: float, name: str) -> go.Scatter:
    """A dotted horizontal reference line as a trace (hline annotations misplace on log axes)."""
    return line([x[0], x[-1]], [y, y], name, TRUTH, dash="dot")


def partition_figure(labels, alone, pooled: float) -> go.Figure:
    """Std of a count estimated within each crowd vs over the whole data set."""
    fig = go.Figure(go.Bar(x=labels, y=alone, name="estimated within the crowd", marker_color=COLORS[0]))
    fig.add_trace(_level(labels, pooled, f"estimated over the whole data set ({pooled:.3g})"))
    style(fig, "Std of a count estimate: natural crowd IDs", "crowd (size)", "std (respondents)", log_y=True)
    return fig


def split_figure(fraction, best, median) -> go.Figure:
    """split / whole std against the share of eps_l spent on a data-derived crowd ID."""
    fig = go.Figure(line(fraction, median, "median over values", COLORS[0]))
    fig.add_trace(line(fraction, best, "best value (smallest ratio)", COLORS[1]))
    fig.add_trace(_level(fraction, 1.0, "no split (all of eps_l on the report)"))
    style(
        fig,
        "Data-derived crowd ID: error relative to not splitting",
        "eps_hat / eps_l (share on the ID)",
        "std ratio (split / whole)",
        log_y=True,
    )
    return fig
