"""The typed vocabulary of a privacy result: the neighbouring relation and one certified number.

``Neighbouring`` uses dp_accounting's names (NeighboringRelation.ADD_OR_REMOVE_ONE and
REPLACE_ONE); its string values, 'removal' and 'replacement', are the words the dashboard,
the CLI and the JSON records show. ``Guarantee`` is every certified number of the library:
a value with the bound that certifies it, the relation, delta, and where it certifies
nothing valid=False with the reason (value None), instead of an exception, NaN, inf or an
error string.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum


class Neighbouring(StrEnum):
    """Which datasets are neighbours: one respondent added or removed, or one respondent's value replaced."""

    ADD_OR_REMOVE_ONE = "removal"
    REPLACE_ONE = "replacement"


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
