"""The contract every encoding (frequency oracle) implements.

An oracle is built for a domain of d values at a local eps (``CalibratedOracle.from_eps``, or
the encoding's own construction from a Plan: ldpcore.oracles.Encoding.build) and then offers
two ways to produce what the analyzer sees, which must agree in distribution:

- ``sample_aggregate(counts, rng)``: an exact draw of the shuffled aggregate from the true
  counts, at a cost independent of n (binomial / multinomial draws);
- ``randomize(values, rng)`` then ``aggregate(reports)``: the per-respondent reference.

``estimate(aggregate, n)`` debiases it into counts, ``variance(n, counts)`` is each count's
analytic variance (exact unless ``variance_note`` says what it is short of),
``expected_messages()`` and ``bits_per_message`` are the communication, and
``reference_cells(n)`` the memory the per-respondent reference needs (refused above
ldpcore.oracles.limits.REFERENCE_CELLS).
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from ldpcore.privacy.bounds import Randomizer
from ldpcore.privacy.guarantee import Neighbouring


@runtime_checkable
class FrequencyOracle(Protocol):
    """A calibrated encoding over d values: exact aggregate sampler, per-respondent randomizer, estimator,
    analytic variance, messages and bits (module doc)."""

    name: ClassVar[str]
    title: ClassVar[str]
    neighbouring: ClassVar[Neighbouring]
    randomizer: ClassVar[Randomizer]

    @property
    def d(self) -> int: ...

    @property
    def variance_note(self) -> str: ...

    def sample_aggregate(self, counts: np.ndarray, rng: np.random.Generator) -> Any: ...

    def randomize(self, values: np.ndarray, rng: np.random.Generator) -> Any: ...

    def aggregate(self, reports: Any) -> Any: ...

    def estimate(self, aggregate: Any, n: int) -> np.ndarray: ...

    def variance(self, n: int, counts: np.ndarray | None = None) -> float | np.ndarray: ...

    def expected_messages(self) -> float: ...

    @property
    def bits_per_message(self) -> int: ...

    def reference_cells(self, n: int) -> int: ...


class CalibratedOracle(FrequencyOracle, Protocol):
    """An oracle class calibrated from its local eps alone: ``from_eps(eps, d, **parameters)``
    (what ldpcore.oracles.single registers with one line)."""

    @classmethod
    def from_eps(cls, eps: float, d: int) -> FrequencyOracle: ...
