"""Small URL-bound controls shared by several pages: epsilons on log grids (eps_c typed exactly, with a slider
for quick moves), deltas, seeds, and the metric with a note beneath."""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from ldpcore.errors import InputError, check_delta
from ui.kit import url
from ui.kit.feedback import input_errors

# eps from 0.01 to 20 in round steps, about ten a decade (roughly log-spaced)
STEPS = (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8)
EPS_GRID = [float(f"{m * 10.0**e:.3g}") for e in (-2, -1, 0, 1) for m in STEPS if m * 10.0**e <= 20]
DELTAS = [10.0**-k for k in range(3, 13)]
PAPER_EPS = (0.05, 0.25, 0.5, 0.75, 1.0)
# eps_c on a log scale from 0.001 to 10 (three significant digits), plus the paper's values
EPS_C_GRID = sorted({float(f"{x:.3g}") for x in np.logspace(-3, 1, 81)} | set(PAPER_EPS))
EPS_RANGE = (0.001, 10.0)  # eps_c the controls accept (nats)
DELTA_HELP = "Leave empty for the paper's delta of the bundled dataset (uploads: about 1/(10 n))."


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


def eps_c_slider(label: str = "Central epsilon eps_c", key: str = "eps_c", container=st, default: float = 1.0) -> float:
    """The central epsilon: a box taking any value in EPS_RANGE exactly, bound to ?<key>=, with a log-scale
    slider beneath it for quick moves (key <key>_log, not in the URL: it follows the box, and shows the typed
    value among its stops: 3 typed reads 3, not the nearest stop 3.16). A URL value that is not a number in range
    shows one warning naming the parameter, and the default is used."""
    lo, hi = EPS_RANGE
    raw = st.query_params.get(key)  # before the box: Streamlit drops an invalid bound value silently
    log_key = f"{key}_log"

    def from_slider() -> None:
        st.session_state[key] = float(st.session_state[log_key])

    value = float(
        container.number_input(
            label,
            min_value=lo,
            max_value=hi,
            value=default,
            step=0.1,
            format="%g",
            key=key,
            bind="query-params",
            help=f"Any value from {lo:g} to {hi:g} nats; type it, or move the slider below (log scale).",
        )
    )
    st.session_state[log_key] = value  # the slider follows the box, at the typed value
    container.select_slider(
        f"{label}, quick moves (log scale)",
        options=sorted({*EPS_C_GRID, value}),
        key=log_key,
        on_change=from_slider,
        format_func=lambda e: f"{e:g}",
        label_visibility="collapsed",
    )
    if raw is not None and not _in_range(raw, lo, hi):
        container.warning(
            f"The URL's {key}={url.shown(raw)} is not a number from {lo:g} to {hi:g}: using the default "
            f"{key} = {default:g}."
        )
        url.warned(key)
    return value


def _in_range(text: str, lo: float, hi: float) -> bool:
    try:
        return lo <= float(text) <= hi
    except ValueError:
        return False


def parse_delta(text: str, example: str) -> float:
    """A delta typed as text; anything but a number strictly between 0 and 1 shows st.error and stops."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan  # not a number: check_delta refuses it like any other value outside (0, 1)
    with input_errors(f"delta must be a number strictly between 0 and 1, such as {example} (got {text!r})."):
        return check_delta(value)


def central_delta_input(default: float) -> str:
    """The central delta as typed, bound to ?delta= (empty: the data's default, shown as the placeholder)."""
    return st.text_input(
        "Central delta",
        key="delta",
        bind="query-params",
        placeholder=f"{default:g} (default for this data)",
        help=DELTA_HELP,
    )


def delta_or_default(text: str, default: float) -> float:
    """The delta a central_delta_input holds: its number, or default where it is empty; InputError if it is not
    a number (its range is checked where the delta is used)."""
    text = text.strip()
    try:
        return float(text) if text else default
    except ValueError:
        raise InputError(f"delta must be a number such as 1e-8 (got {text!r}).") from None
