"""Plotly axis and colour helpers shared by every page's figures, free of ldpcore: ui.figures (the protocol
pages, whose colour order comes from ldpcore's encodings) and ui.figures_systems (whose pages then do not import
the protocol layers)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative

COLORS = qualitative.Plotly


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _tick_text(v: float) -> str:
    """0.05, 0.2, 1, 500, 2,000 as written; beyond 10^4 or below 10^-3 as 2×10⁵ / 10⁻⁴."""
    if 1e-3 <= v < 1e4:
        return f"{v:,.6g}"
    exponent = math.floor(math.log10(v) + 1e-9)
    mantissa = round(v / 10**exponent)
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    return power if mantissa == 1 else f"{mantissa}×{power}"


def log_ticks(fig: go.Figure, axis: str = "x") -> None:
    """A log axis labelled in plain numbers: at 1, 2 and 5 of each decade where the data span at most four
    decades, else at the decades only; unlabelled minor ticks and a light grid at 2..9 of each decade."""
    values = []
    for trace in fig.data:
        data = getattr(trace, axis, None)
        if data is not None:
            values += [float(v) for v in np.asarray(data, dtype=object).ravel() if _positive(v)]
    update = fig.update_xaxes if axis == "x" else fig.update_yaxes
    minor = dict(dtick="D1", ticks="outside", ticklen=3, showgrid=True, gridcolor="#f2f2f2")
    if not values:
        update(type="log", dtick=1, exponentformat="power", minor=minor)
        return
    lo, hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    steps = (1, 2, 5) if hi - lo <= 4 else (1,)
    ticks = [m * 10.0**e for e in range(lo, hi + 1) for m in steps]
    update(type="log", tickvals=ticks, ticktext=[_tick_text(t) for t in ticks], minor=minor)


def _positive(v) -> bool:
    try:
        v = float(v)
    except (TypeError, ValueError):
        return False
    return math.isfinite(v) and v > 0
