"""One colour per method on every page: the central baseline gray, then the one-hot columns and every encoding
in a fixed order through a 24-colour palette (a method keeps its colour whatever else is drawn)."""

from __future__ import annotations

from plotly.colors import qualitative

from ldpcore.experiment.protocol.run import method_label
from ldpcore.experiment.protocol.spec import ProtocolSpec
from ldpcore.oracles import ENCODINGS

CENTRAL_COLOR = "#555555"
# blue, red, green, orange first (attribute fragments, tau = 4, 16, 256: the paper's columns), then the rest of
# D3 without its gray, then Plotly's and Dark2's
_FIRST = ["#1F77B4", "#D62728", "#2CA02C", "#FF7F0E", "#9467BD", "#17BECF", "#E377C2", "#8C564B", "#BCBD22"]
PALETTE = _FIRST + [c for c in qualitative.Plotly + qualitative.Dark2 if c.upper() not in _FIRST and c != "#666666"]
_TAUS = (4, 16, 256, 1, 2, 8, 32, 64, 128, 1024)  # the paper's columns first: the most distinct colours
# the fragmented encoding's columns, then every encoding's own column in the registry's order (ldpcore's labels)
_ORDER = list(
    dict.fromkeys(
        ["Attribute fragments"]
        + [f"Report fragments, tau={t}" for t in _TAUS]
        + [method_label(ProtocolSpec(eps_c=1.0, delta=1e-6, encoding=name)) for name in ENCODINGS]
    )
)


def method_color(label: str) -> str:
    """The colour of a method (a column label of ldpcore.experiment.protocol.run), the same on every page."""
    if label.startswith("Central"):
        return CENTRAL_COLOR
    if label in _ORDER:
        return PALETTE[_ORDER.index(label) % len(PALETTE)]
    return PALETTE[sum(map(ord, label)) % len(PALETTE)]
