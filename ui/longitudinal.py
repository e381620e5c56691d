"""The Longitudinal page's views: the cached tracking run (synthetic trajectories, then the tree protocol's
reports; Erlingsson et al., SODA 2019, Section 3) and its figure."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ldpcore.systems.longitudinal import Tracking, TreeProtocol, synthetic_trajectories
from ui.kit.axes import COLORS, TRUTH, line, style
from ui.kit.cache import cached


@cached("results", spinner="Simulating the reports...")
def tracking(n: int, d: int, k: int, eps: float, mode: str, initial: float, rate: float, seed: int) -> Tracking:
    """Trajectories, then the protocol's reports, from one stream of the seed (the data do not depend on eps)."""
    rng = np.random.default_rng(seed)
    trajectories = synthetic_trajectories(n, d, k, rng, initial=initial, rate=rate)
    return TreeProtocol(d, k, eps, mode).track(trajectories, rng)


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
    fig.add_trace(line(t, truth, "true F_t", TRUTH, width=2.5))
    return style(fig, "Respondents in state 1, period by period", "period t", "respondents", height=420)
