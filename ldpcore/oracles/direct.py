"""Generalized randomized response (GRR, k-RR, direct encoding) and its shuffle calibration.

Wang et al. 2017 (direct encoding), T. Wang, Ding, Xu, Huang, Hong, Zhou, Li, Jha, Practical and Robust
Privacy Amplification with Multi-Party Differential Privacy (2019), Eq. (1), docs/encodings.md: a
respondent holding v reports v w.p. p = e^eps/(e^eps+d-1) and each other value w.p. q = 1/(e^eps+d-1);
eps-LDP under replacement (p/q = e^eps, tight). The debiased count (N_v - n q)/(p - q) has Var = [c_v
p(1-p) + (n - c_v) q(1-q)]/(p-q)^2; the helpers for this "supports v" form are shared by every
single-message oracle of this package.

Exact aggregate (blanket decomposition, Balle et al. 2019): GRR(v) = (1-gamma) delta_v +
gamma Uniform[d] with 1 - gamma = p - q, so kept_v ~ Bin(c_v, p-q) respondents report
the truth and the other n - sum(kept) a uniform value: Multinomial(n - sum kept, 1/d).

Float64 realises GRR's eps only while 1 - p = (d-1) q stays well above 2^-53 (limits): from_eps
refuses larger eps, naming GRR.largest_eps(d) (19.38 at d = 4, 18.22 at d = 2).

Shuffled GRR (T. Wang et al. 2019 Theorem 1, Balle et al. Theorem 3.1): eps_c =
sqrt(14 ln(2/delta)(e^eps_l + d - 1)/(n-1)), so e^eps_l = A - d + 1 with
A = (n-1) eps_c^2/(14 ln(2/delta)); valid for eps_c <= min(1, 14 ln(2/delta)/27).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar, Protocol

import numpy as np

from ldpcore.errors import check_delta, check_eps, check_whole, require
from ldpcore.oracles.laws import ResponseLaws
from ldpcore.oracles.limits import check_realised, check_reference, largest_eps
from ldpcore.oracles.support import SupportLaw
from ldpcore.privacy import formulas
from ldpcore.privacy.bounds import Randomizer
from ldpcore.privacy.guarantee import Neighbouring


def check_domain(d, name: str = "d (domain size)") -> int:
    """A domain size is a whole number >= 2."""
    return check_whole(d, 2, name)


def check_respondents(n) -> int:
    """The blanket bounds need n >= 2 respondents."""
    return check_whole(n, 2, "n (respondents)")


class _SupportLaw(Protocol):
    """What the support analyzer reads: the domain size and the support probabilities p and q."""

    @property
    def d(self) -> int: ...

    @property
    def p(self) -> float: ...

    @property
    def q(self) -> float: ...

    def support_counts(self, aggregate: np.ndarray, n: int) -> np.ndarray: ...

    categorical_reports: ClassVar[bool]


class SupportAnalyzer:
    """The analyzer of the single-message oracles whose report "supports" the true value
    w.p. p and any other value w.p. q (docs/encodings.md): one message per respondent,
    c_hat_v = (N_v - n q)/(p - q) from the support counts N_v, and
    Var(c_hat_v) = [c_v p(1-p) + (n-c_v) q(1-q)]/(p-q)^2."""

    variance_note: ClassVar[str] = ""  # the variance is exact
    neighbouring: ClassVar[Neighbouring] = Neighbouring.REPLACE_ONE  # one report: a value replaced
    categorical_reports: ClassVar[bool] = False  # each report supports exactly one value (GRR)

    def support_counts(self, aggregate: np.ndarray, n: int) -> np.ndarray:
        """N_v from what the analyzer sees (the report histogram itself, by default)."""
        return aggregate

    def estimate(self: _SupportLaw, aggregate: np.ndarray, n: int) -> np.ndarray:
        support = np.asarray(self.support_counts(aggregate, n), dtype=np.float64)
        return (support - n * self.q) / (self.p - self.q)

    def variance(self: _SupportLaw, n: int, counts: np.ndarray | None = None) -> float | np.ndarray:
        """Per bin; counts=None gives the c_v = 0 value n q(1-q)/(p-q)^2 (the spec table's) as a scalar."""
        p, q = self.p, self.q
        if counts is None:
            return n * q * (1 - q) / (p - q) ** 2
        c = np.asarray(counts, dtype=np.float64)
        return (c * p * (1 - p) + (n - c) * q * (1 - q)) / (p - q) ** 2

    def support_law(self: _SupportLaw, n: int) -> SupportLaw:
        """Each bin's support count is Bin(n, q + (p - q) c_v/n) in the population model (ldpcore.oracles.support);
        jointly multinomial where each report supports exactly one value."""
        return SupportLaw(int(n), self.q, self.p - self.q, self.categorical_reports)

    def expected_messages(self) -> float:
        return 1.0

    def reference_cells(self: _SupportLaw, n: int) -> int:
        """Memory of the per-respondent reference (an ideal-hash OLH report holds a d-entry table, a unary
        report d bits); GRR and Hadamard response, whose reports are one index, state their own."""
        return n * self.d


def blanket_a(eps_c: float, n: int, delta: float) -> float:
    """A = (n-1) eps_c^2/(14 ln(2/delta)) = e^eps_l + k - 1 of the k-RR blanket bound (formulas.blanket_a),
    for checked inputs with eps_c <= formulas.blanket_limit(delta)."""
    eps_c, delta = check_eps(eps_c), check_delta(delta)
    cap = formulas.blanket_limit(delta)
    require(
        eps_c <= cap,
        f"the privacy blanket bound holds for eps_c <= min(1, 14 ln(2/delta)/27) = {cap:.4g} (got {eps_c:g}).",
    )
    return formulas.blanket_a(eps_c, check_respondents(n), delta)


def shuffled_grr_eps(eps_c: float, n: int, delta: float, d: int) -> float:
    """Largest eps_l with shuffled d-ary GRR (eps_c, delta)-DP: ln(A - d + 1) (formulas.krr_eps0,
    T. Wang et al. 2019, Theorem 1)."""
    d, eps_c, delta = check_domain(d), check_eps(eps_c), check_delta(delta)
    a = blanket_a(eps_c, n, delta)
    require(
        a - d + 1 > 1,
        (
            f"shuffled GRR cannot reach eps_c={eps_c:g} with n={int(n):,}, d={d}, delta={delta:g}: it needs "
            f"A = (n-1) eps_c^2/(14 ln(2/delta)) = {a:.4g} > d = {d}; raise eps_c or n, or use SOLH."
        ),
    )
    return formulas.krr_eps0(eps_c, int(n), delta, d)


@dataclass(frozen=True)
class GRR(SupportAnalyzer):
    """d-ary generalized randomized response: p = P[report v | v], q = P[report u | v] (u != v)."""

    d: int
    p: float
    q: float

    name: ClassVar[str] = "grr"
    title: ClassVar[str] = "Generalized randomized response (k-RR, direct encoding)"
    randomizer: ClassVar[Randomizer] = Randomizer.K_RR
    categorical_reports: ClassVar[bool] = True  # a report is one value: the counts are jointly multinomial
    # blanket-krr, -bennett, -hoeffding take k = self.k; stronger-clone holds for k-RR

    def __post_init__(self):
        check_domain(self.d)
        require(
            0 < self.q < self.p and math.isclose(self.p + (self.d - 1) * self.q, 1, rel_tol=1e-12),
            f"GRR needs 0 < q < p with p + (d-1) q = 1 (got p={self.p:g}, q={self.q:g}, d={self.d}).",
        )
        self.check_realised(self.eps, self.d, (self.d - 1) * self.q)

    @staticmethod
    def smallest_at(eps: float, d: int) -> float:
        """1 - p = (d-1)/(e^eps + d - 1), the smallest probability GRR's law depends on."""
        t = (d - 1) * math.exp(-eps)
        return t / (1 + t)

    @classmethod
    def check_realised(cls, eps: float, d: int, smallest: float) -> None:
        """InputError naming GRR.largest_eps(d) unless float64 realises eps with 1 - p = smallest."""
        check_realised(f"GRR on d={d} values", eps, smallest, lambda e: cls.smallest_at(e, d))

    @classmethod
    @lru_cache(maxsize=256)
    def largest_eps(cls, d: int) -> float:
        """The largest eps float64 realises for GRR on d values (limits); cached on d."""
        return largest_eps(lambda eps: cls.smallest_at(eps, d))

    @classmethod
    def from_eps(cls, eps: float, d: int) -> GRR:
        """p = e^eps/(e^eps + d - 1) (Wang et al. 2017, Eq. (1) of T. Wang et al. 2019)."""
        eps, d = check_eps(eps, "eps"), check_domain(d)
        cls.check_realised(eps, d, cls.smallest_at(eps, d))
        scale = 1 + (d - 1) * math.exp(-eps)  # (e^eps + d - 1)/e^eps, finite for any eps
        return cls(d, 1 / scale, math.exp(-eps) / scale)

    @classmethod
    def from_shuffle(cls, eps_c: float, n: int, delta: float, d: int) -> GRR:
        """The least noisy GRR whose n shuffled reports are (eps_c, delta)-DP (blanket bound)."""
        return cls.from_eps(shuffled_grr_eps(eps_c, n, delta, d), d)

    @property
    def k(self) -> int:
        """Alphabet of the randomized response: the k of the k-RR bounds."""
        return self.d

    @property
    def eps(self) -> float:
        return math.log(self.p / self.q)

    # --- what the analyzer sees -------------------------------------------------------
    def sample_aggregate(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Exact draw of the report histogram: Bin(c_v, p-q) truthful + Multinomial(rest, 1/d)."""
        counts = np.asarray(counts, dtype=np.int64)
        kept = rng.binomial(counts, self.p - self.q)
        return kept + rng.multinomial(int(counts.sum() - kept.sum()), np.full(self.d, 1 / self.d))

    def randomize(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per-respondent reference: keep v w.p. p, else a uniform one of the d-1 other values."""
        check_reference(self, np.size(values))
        values = np.asarray(values, dtype=np.int64)
        other = (values + rng.integers(1, self.d, size=values.shape)) % self.d
        return np.where(rng.random(values.shape) < self.p, values, other)

    def reference_cells(self, n: int) -> int:
        """Memory of the per-respondent reference: one index per report and the d-bin histogram."""
        return n + self.d

    def aggregate(self, reports: np.ndarray) -> np.ndarray:
        """The shuffled multiset as a histogram over [d]."""
        return np.bincount(np.ravel(reports), minlength=self.d)

    def report_log_prob(self, value: int, reports: np.ndarray) -> np.ndarray:
        """Exact log P[GRR(value) = report]."""
        return np.where(np.asarray(reports) == value, math.log(self.p), math.log(self.q))

    def observer_law(self, observer) -> ResponseLaws:
        """k-RR for every observer: one report (server, shuffler), the histogram of n reports (analyst)."""
        return ResponseLaws(self.p, self.q, self.d, self.eps)

    # --- communication (the analyzer: SupportAnalyzer) --------------------------------
    @property
    def bits_per_message(self) -> int:
        return max(1, math.ceil(math.log2(self.d)))
