"""Hadamard response, one-block form (Acharya, Sun, Zhang, "Hadamard response: estimating
distributions privately, efficiently, and with little communication", AISTATS 2019).

K = the smallest power of two > d, H the K x K Sylvester matrix, H[i, j] = (-1)^popcount(i & j).
Value v owns row v+1 and its set C_v = {j : H[v+1, j] = +1} (|C_v| = K/2, an index-2
subgroup of (Z_2)^log2 K). A respondent holding v reports one index j in [K]:
  P[j | v] = 2 e^eps/(K(e^eps+1)) for j in C_v,  2/(K(e^eps+1)) otherwise,
i.e. j lands in C_v w.p. p = e^eps/(e^eps+1) and is uniform inside its half; eps-LDP under
replacement, tight (float64 realises it up to eps = 18.22, ldpcore.oracles.limits). For
u != v, |C_u & C_v| = K/4, so a report of another value lies in C_u w.p. q = 1/2: with
N_u = #reports in C_u = (n + (H Y)_{u+1})/2 (fast Walsh-Hadamard transform of the report
histogram Y), c_hat_u = (N_u - n/2)/(p - 1/2) and
Var = [c_u p(1-p) + (n - c_u)/4]/(p - 1/2)^2, ~ n ((e^eps+1)/(e^eps-1))^2. One message of log2 K bits.

Exact aggregate sampler, O(K log K) binomials for any n: every respondent is uniform on an
affine hyperplane {j : <w, j> = t (mod 2)} (w = v+1; t = 0 for C_v, 1 for its complement).
Fixing the bits b of j from the top, a group of m with constraint (w, t) splits Bin(m, 1/2)
between the two halves, unless w's only remaining bit is the top one: then it goes whole to
the half b = t. The constraint carries over as (w without its top bit, t xor b w_top).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.special import expit

from ldpcore.errors import check_eps, checkpoint, require
from ldpcore.oracles.direct import SupportAnalyzer, check_domain
from ldpcore.oracles.laws import Law, Observer, PairLaws, Unsupported, bernoulli, unsupported_analyst
from ldpcore.oracles.limits import check_realised, check_reference, largest_eps
from ldpcore.privacy.bounds import Randomizer


def fwht(x: np.ndarray) -> np.ndarray:
    """H x for the Sylvester Hadamard matrix of size len(x) (a power of two), O(K log K)."""
    y = np.asarray(x, dtype=np.float64)
    size, h = y.size, 1
    while h < size:
        y = y.reshape(-1, 2, h)
        y = np.stack([y[:, 0] + y[:, 1], y[:, 0] - y[:, 1]], axis=1)
        h *= 2
    return y.reshape(size)


_DRAWS = 2**20  # binomials drawn between two checkpoints (about a second at Map scale)


def _binomial(rng: np.random.Generator, n: np.ndarray, p: float) -> np.ndarray:
    """rng.binomial(n, p), the same draws (the generator takes them in order), in blocks of _DRAWS with a
    checkpoint before each (ldpcore.errors: where a run nobody waits for stops)."""
    flat = np.ascontiguousarray(n).reshape(-1)
    out = np.empty(flat.size, dtype=np.int64)
    for start in range(0, flat.size, _DRAWS):
        checkpoint()
        out[start : start + _DRAWS] = rng.binomial(flat[start : start + _DRAWS], p)
    return out.reshape(np.shape(n))


def _parity(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(x) & 1


@dataclass(frozen=True)
class Hadamard(SupportAnalyzer):
    """Hadamard response over d values: p = P[report in C_v | v]."""

    d: int
    p: float

    name: ClassVar[str] = "hadamard"
    title: ClassVar[str] = "Hadamard response"
    randomizer: ClassVar[Randomizer] = Randomizer.ANY_LDP

    def __post_init__(self):
        check_domain(self.d)
        require(0.5 < self.p < 1, f"Hadamard response's p must lie in (1/2, 1) (got {self.p:g}).")
        check_realised(self.title, self.eps, 1 - self.p, self.smallest_at)

    @staticmethod
    def smallest_at(eps: float) -> float:
        """1 - p = 1/(e^eps+1), the smallest probability of the law (limits)."""
        return float(expit(-eps))

    @classmethod
    def largest_eps(cls) -> float:
        """The largest eps float64 realises (limits): 18.22."""
        return largest_eps(cls.smallest_at)

    @classmethod
    def from_eps(cls, eps: float, d: int) -> Hadamard:
        """p = e^eps/(e^eps+1)."""
        eps = check_eps(eps, "eps")
        check_realised(cls.title, eps, cls.smallest_at(eps), cls.smallest_at)
        return cls(check_domain(d), float(expit(eps)))

    @property
    def q(self) -> float:
        """P[a report of another value lies in C_v] = |C_u & C_v|/|C_u| = 1/2."""
        return 0.5

    @property
    def K(self) -> int:  # noqa: N802 (the paper's name)
        """Smallest power of two > d: rows 1..d of H_K, row 0 (all ones) unused."""
        return 1 << self.d.bit_length()

    @property
    def eps(self) -> float:
        return math.log(self.p) - math.log1p(-self.p)

    # --- what the analyzer sees -------------------------------------------------------
    def sample_aggregate(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Exact draw of the report histogram over [K] by dyadic binomial splitting (module doc)."""
        counts = np.asarray(counts, dtype=np.int64)
        inside = _binomial(rng, counts, self.p)
        # groups[node, w, t]: respondents in the current dyadic block of j whose remaining
        # constraint is <w, j_low> = t; initially one block, w = v+1
        groups = np.zeros((1, self.K, 2), dtype=np.int64)
        groups[0, 1 : self.d + 1, 0], groups[0, 1 : self.d + 1, 1] = inside, counts - inside
        while groups.shape[1] > 1:
            split = groups.reshape(groups.shape[0], 2, -1, 2)  # [node, top bit of w, rest of w, t]
            free, bound = split[:, 0], split[:, 1]
            up_free, up_bound = _binomial(rng, free, 0.5), _binomial(rng, bound, 0.5)
            up_bound[:, 0] = [0, 1] * bound[:, 0]  # w = top bit only: j's top bit must equal t
            low = free - up_free + bound - up_bound  # top bit 0: t unchanged
            high = up_free + up_bound[..., ::-1]  # top bit 1: t flips where w_top = 1
            groups = np.stack([low, high], axis=1).reshape(-1, free.shape[1], 2)
        return groups[:, 0, 0]

    def randomize(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per-respondent reference: j uniform on [K], moved into C_v (w.p. p) or out of it
        by flipping the lowest set bit of v+1 when its parity is wrong."""
        check_reference(self, np.size(values))
        w = np.asarray(values, dtype=np.int64) + 1
        j = rng.integers(self.K, size=w.shape)
        outside = rng.random(w.shape) >= self.p
        return j ^ np.where(_parity(w & j) != outside, w & -w, 0)

    def reference_cells(self, n: int) -> int:
        """Memory of the per-respondent reference: one index per report and the K-bin histogram."""
        return n + self.K

    def aggregate(self, reports: np.ndarray) -> np.ndarray:
        """The shuffled multiset as a histogram over [K]."""
        return np.bincount(np.ravel(reports), minlength=self.K)

    def report_log_prob(self, value: int, reports: np.ndarray) -> np.ndarray:
        """Exact log P[HR(value) = j]."""
        inside = _parity((value + 1) & np.asarray(reports, dtype=np.int64)) == 0
        return np.where(inside, math.log(self.p), math.log1p(-self.p)) - math.log(self.K / 2)

    # --- the analyzer (SupportAnalyzer with q = 1/2) ------------------------------------
    def support_counts(self, aggregate: np.ndarray, n: int) -> np.ndarray:
        """N_v = (n + (H Y)_{v+1})/2: reports inside C_v, from one fast Walsh-Hadamard transform."""
        return (n + fwht(aggregate)[1 : self.d + 1]) / 2

    # --- communication ----------------------------------------------------------------
    def observer_law(self, observer: Observer) -> Law | Unsupported:
        """One report j: [j in C_v] is Bern(p) for the value held; for another value v', |C_v & C_v'| = K/4
        makes [j in C_v'] an independent Bern(1/2). The analyst: unsupported."""
        if observer == Observer.ANALYST:
            return unsupported_analyst(self.name)
        return PairLaws(bernoulli(0.5), bernoulli(self.p))

    @property
    def bits_per_message(self) -> int:
        """log2 K."""
        return self.K.bit_length() - 1
