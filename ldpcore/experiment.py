"""run(spec, histogram, seed) -> Result: plan, simulate, estimate, measure.

The analyzer sees only shuffled aggregates, so the default simulation draws them
exactly (cost independent of n). ``per_respondent=True`` runs the reference
randomizer instead (O(n d) memory and time: small inputs only).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .central import analytic_gaussian_sigma, gaussian_mechanism
from .data import Histogram
from .errors import require
from .metrics import clip_estimate, error_metrics
from .protocol import Plan, ProtocolSpec, plan

PER_RESPONDENT_LIMIT = 50_000_000  # n * d * (tau or 1) cells


@dataclass(frozen=True)
class Result:
    """One run: the plan (privacy numbers), the raw estimate, metrics and timing."""

    plan: Plan
    estimate: np.ndarray
    metrics: dict
    seed: int
    seconds: float
    histogram: Histogram

    @property
    def analytic_std(self) -> float:
        """Std of every bin's raw estimate (the analytic rmse_raw)."""
        return math.sqrt(self.plan.oracle().variance(self.plan.n))

    @property
    def clipped(self) -> np.ndarray:
        return clip_estimate(self.estimate, self.histogram.max_count)

    def as_dict(self) -> dict:
        """The run record: every privacy number, metric, the spec and the seed (JSON-ready)."""
        return {
            "input": self.histogram.name, **self.plan.as_dict(),
            **self.metrics, "analytic_rmse_raw": self.analytic_std,
            "seed": self.seed, "seconds": self.seconds, "spec": self.plan.spec.as_dict(),
            "shape": list(self.histogram.shape) if self.histogram.shape else None,
            "input_notes": list(self.histogram.notes),
        }


def respondents(counts: np.ndarray) -> np.ndarray:
    """One value per respondent (value j repeated c_j times)."""
    return np.repeat(np.arange(counts.size), counts)


def run(spec: ProtocolSpec, hist: Histogram, seed: int = 0, per_respondent: bool = False) -> Result:
    """Simulate the protocol on hist and measure its error; seeds are explicit."""
    start = time.perf_counter()
    p = plan(spec, hist.n, hist.d)
    oracle = p.oracle()
    rng = np.random.default_rng(seed)
    if per_respondent:
        cells = hist.n * hist.d * (spec.tau or 1)
        require(cells <= PER_RESPONDENT_LIMIT,
                f"the per-respondent path needs n*d*tau = {cells:,} cells; the limit is {PER_RESPONDENT_LIMIT:,}.")
        aggregate = oracle.aggregate(oracle.randomize(respondents(hist.counts), rng))
    else:
        aggregate = oracle.sample_aggregate(hist.counts, rng)
    estimate = oracle.estimate(aggregate, hist.n)
    metrics = error_metrics(hist.counts, estimate, hist.max_count, hist.peak if hist.is_image else None)
    metrics["expected_messages"] = oracle.expected_messages()
    return Result(p, estimate, metrics, seed, time.perf_counter() - start, hist)


@dataclass(frozen=True)
class CentralResult:
    """The no-LDP baseline: the Gaussian mechanism on the true counts."""

    eps_c: float
    delta: float
    sigma: float
    estimate: np.ndarray
    metrics: dict
    seed: int


def run_central(eps_c: float, delta: float, hist: Histogram, seed: int = 0) -> CentralResult:
    """Analytic-Gaussian baseline at the same (eps_c, delta), removal neighbours."""
    sigma = analytic_gaussian_sigma(eps_c, delta)
    estimate = gaussian_mechanism(hist.counts, sigma, np.random.default_rng(seed))
    metrics = error_metrics(hist.counts, estimate, hist.max_count, hist.peak if hist.is_image else None)
    return CentralResult(eps_c, delta, sigma, estimate, metrics, seed)
