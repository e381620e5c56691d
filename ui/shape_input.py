"""The Plan page's input without data: n respondents over d values in a shape (uniform, Zipf with an exponent,
geometric with a ratio; ldpcore.experiment.planner.Shape), every control bound to the URL.

A URL value the controls cannot take as given (not a number, not a whole number, not a shape's name) shows one
st.warning naming the parameter and the value used instead; a number out of range shows one st.error naming the
field and its range."""

from __future__ import annotations

import streamlit as st

from ldpcore.data.loaders import Histogram
from ldpcore.errors import check_n, check_whole
from ldpcore.experiment.planner import Shape, scaled_counts
from ldpcore.experiment.spec import default_delta
from ui.cache import cached
from ui.feedback import input_errors
from ui.inputs import Input

SHAPE = "shape"  # the Plan page's source option for this input
KINDS = ("uniform", "zipf", "geometric")
PARAMETERS = {"zipf": ("Zipf exponent s", "zipf_s", 1.1), "geometric": ("Geometric ratio r", "geometric_r", 0.99)}
MAX_D = 10_000_000  # bins of a shape (the largest bundled input, Map, has 2.8 million)
DEFAULTS = {"n": 10_000_000, "d": 5_000}


@cached("data", spinner="Spreading n over the shape...")
def _histogram(kind: str, parameter: float | None, n: int, d: int) -> Histogram:
    shape = Shape(kind, parameter)
    return Histogram(scaled_counts(shape.weights(d), n), f"{shape} (n={n:,}, d={d:,})")


def _taken(text: str | None, value) -> bool:
    """Whether the URL's text (None: not in the URL) is the value the control holds."""
    try:
        return text is None or float(text) == float(value)
    except ValueError:
        return False


def shape_sidebar() -> Input:
    """Draw the shape controls in the sidebar; the Input of n respondents spread over d values by the shape
    (whole counts by largest remainders, delta about 1/(10 n)). Bad input: one st.error, and the page stops."""
    raw = {key: st.query_params.get(key) for key in ("n", "d", SHAPE, *(p[1] for p in PARAMETERS.values()))}
    bad = []  # (key, what it should be, the value used) where the control did not take the URL's value as given
    with st.sidebar:
        st.header("Shape without data")
        values = {}
        for key, label in (("n", "Respondents n"), ("d", "Domain size d (values)")):
            values[key] = st.number_input(label, value=DEFAULTS[key], step=1, key=key, bind="query-params")
            if not _taken(raw[key], values[key]):
                bad.append((key, "a whole number", f"{values[key]:,}"))
        kind = st.selectbox(
            "Shape",
            KINDS,
            index=1,
            key=SHAPE,
            bind="query-params",
            help="uniform: every value equally likely; zipf: the i-th value in proportion to i^-s; geometric: in "
            "proportion to r^i.",
        )
        if raw[SHAPE] not in (None, kind):
            bad.append((SHAPE, f"one of {', '.join(KINDS)}", kind))
        parameter = None
        if kind in PARAMETERS:
            label, key, default = PARAMETERS[kind]
            parameter = float(st.number_input(label, value=default, format="%g", key=key, bind="query-params"))
            if not _taken(raw[key], parameter):
                bad.append((key, "a number", f"{parameter:g}"))
        for key, what, used in bad:
            st.warning(f"The URL's {key}={raw[key]!r} is not {what}: using {key} = {used}.")
    with input_errors():
        n = check_n(values["n"])
        d = check_whole(values["d"], 2, "the domain size d", MAX_D)
        hist = _histogram(kind, parameter, n, d)
    return Input(hist, f"{SHAPE}:{kind}:{parameter}:{n}:{d}", default_delta(n))
