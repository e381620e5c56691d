"""Trade-off curves: the (false positive, false negative) rates of a family of tests, from an attack's trials or
exactly from the laws of its statistic, the least curve an (eps, delta)-DP guarantee allows, and the exact eps
of a pair of laws."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldpcore.experiment.audit.statistics import Tally
from ldpcore.privacy import tight

CURVE_POINTS = 400  # a trade-off curve is thinned to about this many points for display


@dataclass(frozen=True, eq=False)
class TradeOff:
    """Points (fpr, fnr) of a family of tests, fpr decreasing: an attack's curve, or the exact one."""

    fpr: np.ndarray
    fnr: np.ndarray

    def as_dict(self) -> dict:
        return {"fpr": self.fpr.tolist(), "fnr": self.fnr.tolist()}


def thin(fpr: np.ndarray, fnr: np.ndarray, points: int = CURVE_POINTS) -> TradeOff:
    """About `points` points at most, spread evenly in the log-odds of both rates (so both tails of the
    curve keep their detail, down to rates of 1e-12), the ends kept."""
    if fpr.size > points:

        def cell(rate):
            odds = np.log10(np.clip(rate, 1e-12, 1 - 1e-12)) - np.log10(np.clip(1 - rate, 1e-12, 1 - 1e-12))
            return np.floor((odds + 12) * points / 48).astype(np.int64)

        _, first = np.unique(cell(fpr) * (points + 1) + cell(fnr), return_index=True)
        keep = np.union1d(first, [0, fpr.size - 1])
        fpr, fnr = fpr[keep], fnr[keep]
    return TradeOff(fpr.astype(np.float64), fnr.astype(np.float64))


def tally_curve(t: Tally) -> TradeOff:
    _, fp, fn = t.sweep()
    return thin(fp / t.t0, fn / t.t1)


def exact_curve(pmf0: np.ndarray, pmf1: np.ndarray) -> TradeOff:
    """The likelihood-ratio tests' curve of two laws on one support ordered by increasing ratio."""
    fpr = np.concatenate((np.cumsum(pmf0[::-1])[::-1], [0.0]))
    fnr = np.concatenate(([0.0], np.cumsum(pmf1)))
    return thin(np.clip(fpr, 0, 1), np.clip(fnr, 0, 1))


def dp_tradeoff(eps: float, delta: float, fpr) -> np.ndarray:
    """The smallest false negative rate an (eps, delta)-DP mechanism allows at each false positive
    rate: max(0, 1 - delta - e^eps fpr, e^-eps (1 - delta - fpr)) (Kairouz, Oh, Viswanath, "The
    composition theorem for differential privacy", ICML 2015, Sec. 2). Every attack's curve lies on
    or above it when the guarantee holds."""
    fpr = np.asarray(fpr, dtype=np.float64)
    return np.maximum(0.0, np.maximum(1 - delta - math.exp(eps) * fpr, math.exp(-eps) * (1 - delta - fpr)))


def pair_eps(pmf0: np.ndarray, pmf1: np.ndarray, delta: float) -> float:
    """The exact eps at delta of the pair (pmf0, pmf1): the smallest eps with both hockey-stick
    divergences at e^eps at most delta (inf if mass without a finite ratio exceeds delta)."""
    both = (pmf0 > 0) & (pmf1 > 0)
    top = float(np.abs(np.log(pmf1[both]) - np.log(pmf0[both])).max()) if both.any() else 0.0

    def curve(eps: float) -> float:
        e = math.exp(eps)
        return max(float(np.maximum(pmf1 - e * pmf0, 0).sum()), float(np.maximum(pmf0 - e * pmf1, 0).sum()))

    top = top * (1 + 1e-12) + 1e-12
    if curve(top) > delta:
        return math.inf
    return tight.smallest_eps(curve, top, delta)
