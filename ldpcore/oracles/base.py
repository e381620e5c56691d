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

Optional capabilities, each read through a function here that gives the default (or says
"unsupported, because ...") for an oracle without it, in the spirit of dp_accounting's
``supports(event)``: the layers above ask these functions, never an oracle's class.

- ``observer_law(oracle, observer)``: what the server, a captured shuffler or the analyst sees of one
  respondent (ldpcore.oracles.laws), for the audits; default: unsupported.
- ``grouped_variance(oracle, n, values, bins)``: each distinct count's variance from the histogram's
  distinct counts and how many bins hold each, for the planner; default: ``variance(n, values)``, right
  for every oracle whose per-bin variance depends on the bin's own count only (a sketch's depends on the
  other counts through collisions, and it states its own).
- ``respondent_oracle(oracle)``: the oracle whose ``randomize`` is one respondent's report alone;
  default: the oracle (MURS: its base oracle, the fake reports are the shufflers').
- ``report_likelihood(oracle)``: ``report_log_prob(value, reports)``, the exact log-probability of a
  report, or Unsupported.
- ``support_law(oracle, n)``: the law of the support counts behind the unbiased estimate
  (ldpcore.oracles.support.SupportLaw), for the likelihood post-processing; default: unsupported.
- ``simulation_draws(oracle, counts)``: about how many random numbers one exact simulation of these counts
  draws (its cost, for a planner that simulates many runs); default 2 d (a draw or two per bin).
- ``hash_tail(oracle, n, values, bins, rng)``: where the analytic variance is a mean over hash draws carried by
  rare collisions, how a run's error spreads (ldpcore.oracles.sketches.tail.HashTail), else None; default None.
- ``prediction_limit(oracle, n, values, bins)``: why the analytic variance is not a prediction within its
  stated tolerance for these counts (and what to use instead), "" where it is; default "" (the variance is
  exact, or its note states the approximation's tolerance).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from ldpcore.oracles.laws import Law, Observer, Unsupported
from ldpcore.oracles.support import SupportLaw
from ldpcore.privacy.bounds import Randomizer
from ldpcore.privacy.guarantee import Neighbouring

if TYPE_CHECKING:
    from ldpcore.oracles.sketches.tail import HashTail


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


@runtime_checkable
class _Observed(Protocol):
    def observer_law(self, observer: Observer) -> Law | Unsupported: ...


@runtime_checkable
class _Grouped(Protocol):
    def grouped_variance(self, n: int, values: np.ndarray, bins: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class _Wrapped(Protocol):
    @property
    def respondent(self) -> FrequencyOracle: ...


@runtime_checkable
class _Likelihood(Protocol):
    def report_log_prob(self, value: Any, reports: Any) -> np.ndarray: ...


@runtime_checkable
class _Supported(Protocol):
    def support_law(self, n: int) -> SupportLaw | Unsupported: ...


@runtime_checkable
class _Tailed(Protocol):
    def hash_tail(self, n: int, values: np.ndarray, bins: np.ndarray, rng: np.random.Generator) -> HashTail | None: ...


@runtime_checkable
class _Costed(Protocol):
    def simulation_draws(self, counts: np.ndarray) -> float: ...


@runtime_checkable
class _Limited(Protocol):
    def prediction_limit(self, n: int, values: np.ndarray, bins: np.ndarray) -> str: ...


def observer_law(oracle: FrequencyOracle, observer: Observer | str) -> Law | Unsupported:
    """What `observer` sees of one respondent under this oracle (ldpcore.oracles.laws), or why it is not stated."""
    observer = Observer(observer)
    if isinstance(oracle, _Observed):
        return oracle.observer_law(observer)
    return Unsupported(f"the {oracle.name} encoding states no law of what the {observer} sees")


def grouped_variance(oracle: FrequencyOracle, n: int, values: np.ndarray, bins: np.ndarray) -> np.ndarray:
    """Each distinct count's per-bin variance (values: the distinct counts, bins: how many bins hold each),
    at a cost independent of d: the oracle's own grouped_variance, else variance(n, values)."""
    var: float | np.ndarray = (
        oracle.grouped_variance(n, values, bins) if isinstance(oracle, _Grouped) else oracle.variance(n, values)
    )
    return np.broadcast_to(np.asarray(var, dtype=np.float64), np.shape(values))


def respondent_oracle(oracle: FrequencyOracle) -> FrequencyOracle:
    """The oracle whose randomize is one respondent's report alone (default: the oracle itself)."""
    return oracle.respondent if isinstance(oracle, _Wrapped) else oracle


def report_likelihood(oracle: FrequencyOracle) -> Callable[[Any, Any], np.ndarray] | Unsupported:
    """report_log_prob(value, reports) of the respondent's oracle, or why there is none."""
    own = respondent_oracle(oracle)
    if isinstance(own, _Likelihood):
        return own.report_log_prob
    return Unsupported(f"the {oracle.name} encoding states no likelihood of a report")


def support_law(oracle: FrequencyOracle, n: int) -> SupportLaw | Unsupported:
    """The law of the support counts behind the oracle's unbiased estimate of n respondents, or why there is none."""
    if isinstance(oracle, _Supported):
        return oracle.support_law(n)
    return Unsupported(f"the {oracle.name} encoding states no law of the counts its estimate is made from")


def prediction_limit(oracle: FrequencyOracle, n: int, values: np.ndarray, bins: np.ndarray) -> str:
    """Why the oracle's analytic variance does not predict its error for a histogram of n respondents whose
    distinct counts are values (bins: how many bins hold each), "" where it does (module doc)."""
    return oracle.prediction_limit(n, values, bins) if isinstance(oracle, _Limited) else ""


def simulation_draws(oracle: FrequencyOracle, counts: np.ndarray) -> float:
    """About how many random numbers one exact simulation of these counts draws (module doc)."""
    return oracle.simulation_draws(counts) if isinstance(oracle, _Costed) else 2.0 * np.size(counts)


def hash_tail(
    oracle: FrequencyOracle, n: int, values: np.ndarray, bins: np.ndarray, rng: np.random.Generator
) -> HashTail | None:
    """How a run's error spreads over hash draws where the oracle's predicted error is a mean carried by rare
    collisions (a histogram of n respondents by its distinct counts values, held by bins bins each), else None."""
    return oracle.hash_tail(n, values, bins, rng) if isinstance(oracle, _Tailed) else None
