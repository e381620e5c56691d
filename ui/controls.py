"""Small URL-bound controls, and the metric with a note beneath, shared by the Numeric, Longitudinal, LDP-SGD and
Crowd IDs pages."""

from __future__ import annotations

import streamlit as st

# eps from 0.01 to 20 in round steps, about ten a decade (roughly log-spaced)
STEPS = (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8)
EPS_GRID = [float(f"{m * 10.0**e:.3g}") for e in (-2, -1, 0, 1) for m in STEPS if m * 10.0**e <= 20]
DELTAS = [10.0**-k for k in range(3, 13)]


def eps_slider(
    label: str, key: str, value: float = 1.0, lo: float = 0.01, hi: float = 20.0, help: str | None = None
) -> float:
    """An epsilon on the log grid between lo and hi, bound to ?key=."""
    options = [e for e in EPS_GRID if lo <= e <= hi]
    return float(
        st.select_slider(
            label, options=options, value=value, key=key, bind="query-params", format_func=lambda e: f"{e:g}", help=help
        )
    )


def delta_slider(label: str, key: str, value: float = 1e-6, help: str | None = None) -> float:
    """A delta among 1e-3 .. 1e-12, bound to ?key=."""
    return float(
        st.select_slider(
            label,
            options=DELTAS,
            value=value,
            key=key,
            bind="query-params",
            format_func=lambda d: f"{d:.0e}",
            help=help,
        )
    )


def seed_input(key: str) -> int:
    """The seed of a simulation, bound to ?key=."""
    return int(st.number_input("Seed", min_value=0, max_value=2**31 - 1, value=0, key=key, bind="query-params"))


def noted_metric(container, label: str, value: str, note: str | None, help: str) -> None:
    """st.metric with a neutral note beneath the value (a comparison or a unit, not a change: no arrow, no color)."""
    container.metric(label, value, delta=note, delta_color="off", delta_arrow="off", help=help)
