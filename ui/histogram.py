"""The histogram view of Reconstruct (uploaded CSVs, heavy hitters): bins ranked by true count with each
estimate and its 95% band, a top-k zoom, a true-vs-estimate scatter and the central baseline on request."""

from __future__ import annotations

import streamlit as st

from ldpcore.experiment.histogram_view import ranked
from ui.chart_export import export_menu
from ui.figures import ranked_figure, scatter_figure

VIEWS = ("ranked", "true vs estimate")


def histogram_view(hist, series: dict, central=None, key: str = "hist") -> None:
    """series: {name: (estimate, std or None)}; the first is the main estimate (scatter, band)."""
    c1, c2, c3, c4 = st.columns([2, 2, 1, 2])
    view = c1.radio("View", VIEWS, horizontal=True, key=f"{key}_view", bind="query-params")
    top_k = int(
        c2.number_input(
            "Zoom to the top k bins (0 = all)",
            min_value=0,
            max_value=hist.d,
            value=min(hist.d, 50) if hist.d > 50 else 0,
            key=f"{key}_top_k",
            bind="query-params",
            help="The k bins with the largest true counts. Beyond the top 500 ranks, groups of ranks are averaged "
            "so that every bin counts and the heavy hitters are always drawn.",
        )
    )
    log_y = c3.toggle("Log scale", value=True, key="log_y", bind="query-params")
    show_central = c4.toggle(
        "Central baseline", value=False, key=f"{key}_central", bind="query-params", help="Drawn beneath the estimates."
    )
    shown = ranked(hist.counts, series, top_k=top_k or None, labels=hist.labels)
    if view == "ranked":
        central_y = None
        if show_central and central is not None:
            central_y = ranked(hist.counts, {"c": (central, None)}, top_k=top_k or None).series["c"]
        fig = ranked_figure(
            shown, central_y, log_y, title=f"Top {top_k:,} bins by true count" if top_k else "Bins ranked by true count"
        )
    else:
        fig = scatter_figure(shown, next(iter(shown.series)))
    st.plotly_chart(fig, width="stretch")
    export_menu(fig, f"{key}_{view.replace(' ', '_')}")
