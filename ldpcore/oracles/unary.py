"""Unary encoding: symmetric (SUE, basic RAPPOR) and optimized (OUE) (Wang et al. 2017).

A respondent holding v sends the one-hot vector of v with bit v reported as 1 w.p. p and
every other bit as 1 w.p. q, all independently, in one d-bit message. Two inputs differ
in two bits, so the replacement eps is ln(p(1-q)/((1-p)q)) (tight):
  SUE: p = e^(eps/2)/(e^(eps/2)+1), q = 1-p;   OUE: p = 1/2, q = 1/(e^eps+1).
Var(c_hat_v) = [c_v p(1-p) + (n-c_v) q(1-q)]/(p-q)^2 (docs/encodings.md); the
bits are independent, so the exact aggregate is N_v ~ Bin(c_v, p) + Bin(n - c_v, q).
Float64 realises the eps while q stays well above 2^-53 (limits): OUE up to eps = 18.22, SUE
(whose q is at eps/2) up to 37.91; larger eps are refused.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.special import expit

from ldpcore.errors import check_eps, require
from ldpcore.oracles.direct import SupportAnalyzer, check_domain
from ldpcore.oracles.laws import SINGLE_REPORT, BinLaws, CountLaws, Law, Observer, Unsupported, bernoulli
from ldpcore.oracles.limits import check_realised, check_reference, largest_eps
from ldpcore.privacy.bounds import Randomizer


@dataclass(frozen=True)
class UnaryEncoding(SupportAnalyzer):
    """d-bit unary encoding: P[bit v = 1 | v] = p, P[bit u = 1 | v] = q (u != v)."""

    d: int
    p: float
    q: float

    name: ClassVar[str] = "ue"
    title: ClassVar[str] = "Unary encoding"
    randomizer: ClassVar[Randomizer] = Randomizer.ANY_LDP

    def __post_init__(self):
        check_domain(self.d)
        require(0 < self.q < self.p < 1, f"unary encoding needs 0 < q < p < 1 (got p={self.p:g}, q={self.q:g}).")
        check_realised(self.title, self.eps, min(self.q, 1 - self.p), self.smallest_at)

    @staticmethod
    @abstractmethod
    def smallest_at(eps: float) -> float:
        """The smallest probability (or complement) the law depends on at eps (limits): SUE's or OUE's q."""

    @classmethod
    def largest_eps(cls) -> float:
        """The largest eps float64 realises for this encoding (limits)."""
        return largest_eps(cls.smallest_at)

    @property
    def eps(self) -> float:
        return math.log(self.p) + math.log1p(-self.q) - math.log1p(-self.p) - math.log(self.q)

    # --- what the analyzer sees -------------------------------------------------------
    def sample_aggregate(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Exact draw of the per-bin 1-counts: Bin(c_v, p) + Bin(n - c_v, q)."""
        counts = np.asarray(counts, dtype=np.int64)
        return rng.binomial(counts, self.p) + rng.binomial(counts.sum() - counts, self.q)

    def randomize(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per-respondent reference: bool reports of shape (n, d)."""
        check_reference(self, np.size(values))
        values = np.asarray(values, dtype=np.int64)
        truth = np.arange(self.d) == values[:, None]
        return rng.random(truth.shape) < np.where(truth, self.p, self.q)

    @staticmethod
    def aggregate(reports: np.ndarray) -> np.ndarray:
        """1-reports per bin."""
        reports = np.asarray(reports)
        return reports.reshape(-1, reports.shape[-1]).sum(axis=0, dtype=np.int64)

    def report_log_prob(self, value: int, reports: np.ndarray) -> np.ndarray:
        """Exact log P[UE(value) = report] for bool reports with trailing axis d."""
        reports = np.asarray(reports, dtype=bool)
        truth = np.arange(self.d) == value
        one = np.where(truth, math.log(self.p), math.log(self.q))
        zero = np.where(truth, math.log1p(-self.p), math.log1p(-self.q))
        return np.where(reports, one, zero).sum(axis=-1)

    # --- communication (the analyzer: SupportAnalyzer) --------------------------------
    def observer_law(self, observer: Observer) -> Law | Unsupported:
        """Independent bits: bit u is Bern(p) for the value held and Bern(q) for every other, in the one report
        (server, shuffler) and in the counts of the shuffled aggregate (analyst)."""
        if observer == Observer.ANALYST:
            return CountLaws(self.p, self.q, self.q, self.p)
        return BinLaws(bernoulli(self.q), bernoulli(self.p), SINGLE_REPORT[observer])

    @property
    def bits_per_message(self) -> int:
        return self.d


@dataclass(frozen=True)
class SUE(UnaryEncoding):
    """Symmetric unary encoding (basic RAPPOR): each bit through binary RR at eps/2."""

    name: ClassVar[str] = "sue"
    title: ClassVar[str] = "Symmetric unary encoding (basic RAPPOR)"

    @staticmethod
    def smallest_at(eps: float) -> float:
        """q = 1 - p = 1/(e^(eps/2)+1)."""
        return float(expit(-eps / 2))

    @classmethod
    def from_eps(cls, eps: float, d: int) -> SUE:
        """p = e^(eps/2)/(e^(eps/2)+1), q = 1 - p; Var ~ n e^(eps/2)/(e^(eps/2)-1)^2."""
        eps = check_eps(eps, "eps")
        check_realised(cls.title, eps, cls.smallest_at(eps), cls.smallest_at)
        return cls(check_domain(d), float(expit(eps / 2)), float(expit(-eps / 2)))


@dataclass(frozen=True)
class OUE(UnaryEncoding):
    """Optimized unary encoding (Wang et al. 2017): minimal variance among unary encodings."""

    name: ClassVar[str] = "oue"
    title: ClassVar[str] = "Optimized unary encoding"

    @staticmethod
    def smallest_at(eps: float) -> float:
        """q = 1/(e^eps+1)."""
        return float(expit(-eps))

    @classmethod
    def from_eps(cls, eps: float, d: int) -> OUE:
        """p = 1/2, q = 1/(e^eps+1); Var ~ 4 n e^eps/(e^eps-1)^2."""
        eps = check_eps(eps, "eps")
        check_realised(cls.title, eps, cls.smallest_at(eps), cls.smallest_at)
        return cls(check_domain(d), 0.5, float(expit(-eps)))
