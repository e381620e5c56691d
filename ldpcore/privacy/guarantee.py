"""The typed vocabulary of a privacy result: the neighbouring relation and one certified number.

``Neighbouring`` names the relation as the literature does (docs/notions.md). ``Guarantee`` is every certified
number of the library: a value with the bound that certifies it, the relation, delta, and where it certifies
nothing valid=False with the reason (value None), instead of an exception, NaN, inf or an error string.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum


class Neighbouring(StrEnum):
    """Which datasets of n respondents are neighbours (docs/notions.md).

    REPLACE_ONE ("replacement"): one respondent's value replaced by another value (dp_accounting's REPLACE_ONE).
    ZERO_OUT ("zero-out"): one respondent's value replaced by the null value, whose report is the randomized
    all-zeros report (substitution with a null value; dp_accounting's REPLACE_SPECIAL). This is what the one-hot
    report, the fragmented sketch and their accountants certify: n stays n, one bit of the report changes.
    Add/remove-one (a report more or fewer in every channel) is not a relation any result here states.
    """

    REPLACE_ONE = "replacement"
    ZERO_OUT = "zero-out"


class PairKind(StrEnum):
    """Where the dominating pair of a composed guarantee comes from (ldpcore.privacy.dominating): the bound's
    privacy curve at every grid point, or its closed form at several deltas (each (eps, delta) it certifies
    bounds the curve from eps on)."""

    CURVE = "the bound's privacy curve"
    POINTS = "the bound's closed form at several deltas"


@dataclass(frozen=True)
class Guarantee:
    """A certified (value, delta)-DP number under `neighbouring`, by `bound`; or not valid, with the reason.

    value is None exactly when valid is False. `or_inf` is the value with "certifies nothing" as
    +inf, the convention of the JSON records (written there as null).
    """

    value: float | None
    bound: str
    neighbouring: Neighbouring
    delta: float
    valid: bool = True
    reason: str = ""

    def __post_init__(self):
        if (self.value is None) == self.valid:
            raise ValueError("a Guarantee has a value exactly when it is valid")

    @classmethod
    def invalid(cls, bound: str, neighbouring: Neighbouring, delta: float, reason: str) -> Guarantee:
        return cls(None, bound, neighbouring, delta, valid=False, reason=reason)

    @property
    def or_inf(self) -> float:
        return self.value if self.value is not None else math.inf
