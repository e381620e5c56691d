"""One neighbouring notion for comparisons: an epsilon stated under removal (add/remove one respondent)
restated under replacement (change one respondent's value), so that encodings of different notions can be
compared on one axis.

A removal guarantee of the one-hot report (and the fragmented sketch built on it) is a guarantee per
shuffled channel: the respondent's bit in one bin is 1 rather than 0. Replacing the respondent's value
changes two bins, two independent channels, so basic composition gives (2 eps, 2 delta), tighter than group
privacy over remove-then-add, (2 eps, (1 + e^eps) delta). The same factor holds for the local epsilon of the
one-hot report: replacing a value flips two bits, each eps-LDP under removal, so the report is 2 eps-LDP
under replacement (group privacy of size 2). Encodings that are natively replacement-DP (GRR, the unary and
hashing encodings, sketches) are left as they are. The planner (ldpcore.experiment.planning) converts its
rows the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from ldpcore.privacy.guarantee import Neighbouring

NOTIONS = ("replacement", "native")
REMOVAL, REPLACEMENT = Neighbouring.ADD_OR_REMOVE_ONE, Neighbouring.REPLACE_ONE
CONVERSION = "replacement from removal: the two changed bins composed, (2 eps, 2 delta)"


@dataclass(frozen=True)
class OnNotion:
    """An epsilon (and delta, None for a local guarantee) in the comparison's notion, with the native one.

    eps, delta, neighbouring: as compared; native_eps, native_delta, native_neighbouring: as the encoding
    or accountant states them; conversion: the words of the conversion ("" when none was needed)."""

    eps: float
    delta: float | None
    neighbouring: Neighbouring
    native_eps: float
    native_delta: float | None
    native_neighbouring: Neighbouring
    conversion: str

    @property
    def converted(self) -> bool:
        return bool(self.conversion)


def on_notion(
    eps: float, neighbouring: Neighbouring | str, notion: str = "replacement", delta: float | None = None
) -> OnNotion:
    """eps (and delta) of a guarantee under `neighbouring` ("removal" or "replacement") restated in `notion`
    ("replacement", or "native": unchanged)."""
    if neighbouring not in (REMOVAL, REPLACEMENT):
        raise ValueError(f"neighbouring must be removal or replacement (got {neighbouring!r})")
    if notion not in NOTIONS:
        raise ValueError(f"notion must be one of {', '.join(NOTIONS)} (got {notion!r})")
    neighbouring = Neighbouring(neighbouring)
    if notion == "native" or neighbouring == REPLACEMENT:
        return OnNotion(eps, delta, neighbouring, eps, delta, neighbouring, "")
    return OnNotion(2 * eps, None if delta is None else 2 * delta, REPLACEMENT, eps, delta, neighbouring, CONVERSION)


def replacement_eps(eps: float, neighbouring: Neighbouring | str) -> float:
    """eps under replacement of a guarantee stated under `neighbouring` (removal: 2 eps)."""
    return on_notion(eps, neighbouring).eps


def notions_differ(neighbourings) -> bool:
    """Whether the compared guarantees are stated under more than one notion (then compare as replacement)."""
    return len(set(neighbourings)) > 1
