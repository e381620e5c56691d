"""One look per method on every page (colour, dash, marker shape: ui.kit.axes.Look): the central baseline gray,
then the one-hot columns and every encoding in a fixed order through the 24-colour palette (a method keeps its look
whatever else is drawn)."""

from __future__ import annotations

from ldpcore.experiment.protocol.run import method_label
from ldpcore.experiment.protocol.spec import ProtocolSpec
from ldpcore.oracles import ENCODINGS
from ui.kit.axes import PALETTE, Look, look

CENTRAL_COLOR = "#555555"
CENTRAL = Look(CENTRAL_COLOR, "longdashdot", "x", 1.5)
# blue, red, green, orange first (attribute fragments, tau = 4, 16, 256: the paper's columns)
_TAUS = (4, 16, 256, 1, 2, 8, 32, 64, 128, 1024)  # the paper's columns first: the most distinct colours
# the fragmented encoding's columns, then every encoding's own column in the registry's order (ldpcore's labels)
_ORDER = list(
    dict.fromkeys(
        ["Attribute fragments"]
        + [f"Report fragments, tau={t}" for t in _TAUS]
        + [method_label(ProtocolSpec(eps_c=1.0, delta=1e-6, encoding=name)) for name in ENCODINGS]
    )
)


def method_look(label: str) -> Look:
    """The look of a method (a column label of ldpcore.experiment.protocol.run), the same on every page."""
    if label.startswith("Central"):
        return CENTRAL
    return look(_ORDER.index(label) if label in _ORDER else sum(map(ord, label)) % len(PALETTE))


def method_color(label: str) -> str:
    """The colour of a method, the same on every page."""
    return method_look(label).color
