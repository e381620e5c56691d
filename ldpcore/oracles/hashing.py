"""Optimized local hashing (OLH, Wang et al. 2017) and its shuffled form SOLH (T. Wang, Ding, Xu, Huang,
Hong, Zhou, Li, Jha, Practical and Robust Privacy Amplification with Multi-Party Differential Privacy
(2019), Sec. 5.2).

A respondent holding v draws a hash function h: [d] -> [g] from a public family, and sends
(h, y) with y = GRR_g(h(v)): y = h(v) w.p. p = e^eps/(e^eps+g-1), else one of the other
g-1 buckets uniformly (eps-LDP under replacement, tight). The report supports u when
h(u) = y; under an ideal random hash a report of another value supports u w.p. q* = 1/g,
so c_hat_u = (N_u - n/g)/(p - 1/g) (T. Wang et al. 2019 Eq. (3)) and, since the support indicators
of one report are then independent across u, the aggregate law is exactly
N_u ~ Bin(c_u, p) + Bin(n - c_u, 1/g) (docs/encodings.md). OLH: g = round(e^eps)+1,
Var ~ 4n e^eps/(e^eps-1)^2.

Real-hash mode (prime=P): h(x) = ((a x + b) mod P) mod g with a in [1, P), b in [0, P)
drawn per respondent (Carter and Wegman, "Universal classes of hash functions", 1979). For
keys x != y in [0, P), (a x + b, a y + b) mod P is uniform on the ordered pairs of distinct
residues, so with P = Q g + R (R buckets of Q + 1 residues, g - R of Q) two keys collide w.p.
  q* = [R Q (Q+1) + (g-R) Q (Q-1)] / (P (P-1))    (1/g - O(1/P); 0.206 at P = 17, g = 4),
and a report of another value supports u w.p. q = p q* + (1-p)(1-q*)/(g-1) (= 1/g when q* =
1/g), whatever the two values. The estimator and the variance use that q, so they are exact
for the real family too; the support indicators of one report are only pairwise independent
across values, so sample_aggregate's Bin(c_u, p) + Bin(n - c_u, q) is exact bin by bin, not
jointly. The analyzer's real cost is O(n d) hash evaluations.

Float64 realises OLH's eps while 1 - p = (g-1)/(e^eps+g-1) stays well above 2^-53 (limits):
always with g = round(e^eps) + 1 (1 - p ~ 1/2), up to GRR.largest_eps(g) for a given g.

SOLH (T. Wang et al. 2019 Theorem 3 with the k-RR blanket bound on the hash range d'): at central
(eps_c, delta) and A = (n-1) eps_c^2/(14 ln(2/delta)), the variance-optimal range is
d' = (A+2)/3 with e^eps_l = A - d' + 1; the solh bound (ldpcore.privacy.bounds) takes the
integer d' = ceil((A+2)/3) - 1 (>= 2) and e^eps_l = min(A - d' + 1, 2 d' + 1), which is
monotone in eps_l and reproduces the spec's examples (A = 833.806: d' = 278). Var ~
94.5 ln(2/delta)/(n(n-1) eps_c^2) per frequency, independent of d.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Self

import numpy as np

from ldpcore.errors import InputError, check_eps, require
from ldpcore.oracles.direct import GRR, SupportAnalyzer, blanket_a, check_domain
from ldpcore.oracles.laws import Law, Observer, PairLaws, Unsupported, bernoulli, unsupported_analyst
from ldpcore.oracles.limits import check_realised, check_reference
from ldpcore.privacy.bounds import BoundName, Randomizer, get_bound

MERSENNE_31 = 2**31 - 1  # default prime of the real-hash mode; a x + b stays below 2^62
AUTO_RANGE_EPS_MAX = 21  # the automatic hash range round(e^eps) + 1 stays below 2^31 up to this eps


def _is_prime(m: int) -> bool:
    return m >= 2 and bool(np.all(m % np.arange(2, math.isqrt(m) + 1)))


@dataclass(frozen=True)
class OLH(SupportAnalyzer):
    """Local hashing onto g buckets with GRR there: p = P[y = h(v) | v]; prime=None is an
    ideal random hash (a report carries its hash table), else the universal hash mod prime."""

    d: int
    g: int
    p: float
    prime: int | None = None

    name: ClassVar[str] = "olh"
    title: ClassVar[str] = "Optimized local hashing"
    randomizer: ClassVar[Randomizer] = Randomizer.ANY_LDP

    def __post_init__(self):
        check_domain(self.d)
        check_domain(self.g, "g (hash range)")
        require(self.g <= MERSENNE_31, f"g (hash range) must be at most 2^31 - 1 (got {self.g:,}).")
        require(1 / self.g < self.p < 1, f"OLH's p must lie in (1/g, 1) (got {self.p:g}, g={self.g}).")
        self.check_realised(self.eps, self.g, 1 - self.p)
        if self.prime is not None:
            require(
                _is_prime(self.prime) and max(self.d, self.g) <= self.prime <= MERSENNE_31,
                f"the hash prime must be a prime in [max(d, g), 2^31 - 1] (got {self.prime}, d={self.d}, g={self.g}).",
            )

    @classmethod
    def from_eps(cls, eps: float, d: int, g: int | None = None, prime: int | None = None) -> Self:
        """p = e^eps/(e^eps+g-1); g = round(e^eps) + 1 unless given (None or 0; Wang et al. 2017)."""
        eps = check_eps(eps, "eps")
        if not g:
            require(
                eps <= AUTO_RANGE_EPS_MAX,
                f"OLH's hash range round(e^eps) + 1 must stay below 2^31: eps <= {AUTO_RANGE_EPS_MAX} (got {eps:g}).",
            )
            g = round(math.exp(eps)) + 1
        g = check_domain(g, "g (hash range)")
        cls.check_realised(eps, g, GRR.smallest_at(eps, g))
        return cls(check_domain(d), g, 1 / (1 + (g - 1) * math.exp(-eps)), prime)

    @classmethod
    def check_realised(cls, eps: float, g: int, smallest: float) -> None:
        """InputError naming the largest usable eps unless float64 realises eps with 1 - p = smallest
        (GRR on the g buckets)."""
        check_realised(f"{cls.title} on g={g} buckets", eps, smallest, lambda e: GRR.smallest_at(e, g))

    @staticmethod
    def largest_eps(g: int = 0) -> float:
        """The largest eps float64 realises: GRR.largest_eps(g) on a given range g; any with g = 0 (the
        automatic range keeps 1 - p near 1/2; from_eps stops at AUTO_RANGE_EPS_MAX for the range's size)."""
        return GRR.largest_eps(g) if g else math.inf

    @property
    def collision(self) -> float:
        """q* = P[h(x) = h(y)] for keys x != y: 1/g for the ideal hash, the family's exact value mod prime."""
        if self.prime is None:
            return 1 / self.g
        quotient, remainder = divmod(self.prime, self.g)  # P = Q g + R
        pairs = remainder * quotient * (quotient + 1) + (self.g - remainder) * quotient * (quotient - 1)
        return pairs / (self.prime * (self.prime - 1))

    @property
    def q(self) -> float:
        """P[a report of another value supports v] = p q* + (1-p)(1-q*)/(g-1): 1/g under an ideal hash."""
        return self.p * self.collision + self.q_bucket * (1 - self.collision)

    @property
    def q_bucket(self) -> float:
        """GRR on [g]: P[y = b | h(v)] for each bucket b != h(v)."""
        return (1 - self.p) / (self.g - 1)

    @property
    def k(self) -> int:
        """Alphabet of the randomized response: the k (= d') of the blanket bounds."""
        return self.g

    @property
    def eps(self) -> float:
        return math.log(self.p / self.q_bucket)

    # --- what the analyzer sees -------------------------------------------------------
    def sample_aggregate(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Support counts Bin(c_v, p) + Bin(n - c_v, q): exact under an ideal hash, bin by bin mod prime."""
        counts = np.asarray(counts, dtype=np.int64)
        return rng.binomial(counts, self.p) + rng.binomial(counts.sum() - counts, self.q)

    def _table(self, seeds: np.ndarray) -> np.ndarray:
        """h(0..d-1) for hash seeds (..., d) (ideal: the table itself) or (..., 2) pairs (a, b)."""
        if self.prime is None:
            return seeds
        return ((seeds[..., :1] * np.arange(self.d) + seeds[..., 1:]) % self.prime) % self.g

    def randomize(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per-respondent reference: int64 rows (hash seed..., y); the seed is the hash table
        h(0..d-1) under an ideal hash, else (a, b)."""
        check_reference(self, np.size(values))
        values = np.asarray(values, dtype=np.int64)
        n = values.size
        if self.prime is None:
            seeds = rng.integers(self.g, size=(n, self.d))
        else:
            seeds = np.column_stack([rng.integers(1, self.prime, n), rng.integers(self.prime, size=n)])
        hashed = self._table(seeds)[np.arange(n), values]
        other = (hashed + rng.integers(1, self.g, size=n)) % self.g
        return np.column_stack([seeds, np.where(rng.random(n) < self.p, hashed, other)])

    def aggregate(self, reports: np.ndarray) -> np.ndarray:
        """Support counts N_v = #{reports (h, y): h(v) = y}: O(n d) hash evaluations."""
        reports = np.asarray(reports, dtype=np.int64)
        return (self._table(reports[:, :-1]) == reports[:, -1:]).sum(axis=0)

    def report_log_prob(self, value: int, reports: np.ndarray) -> np.ndarray:
        """Exact log P[OLH(value) = (seed, y)]: the seed is uniform on the hash family
        (g^d tables, or (prime-1) prime pairs), then GRR on [g]."""
        reports = np.asarray(reports, dtype=np.int64)
        family = self.d * math.log(self.g) if self.prime is None else math.log(self.prime * (self.prime - 1))
        hit = self._table(reports[..., :-1])[..., value] == reports[..., -1]
        return np.where(hit, math.log(self.p), math.log(self.q_bucket)) - family

    # --- communication (the analyzer: SupportAnalyzer with q, T. Wang et al. 2019 Eq. (3) for q = 1/g) ---
    def observer_law(self, observer: Observer) -> Law | Unsupported:
        """One report (seed, y): [h(v) = y] is Bern(p) for the value held; for another value v' an ideal hash
        makes [h(v') = y] an independent Bern(1/g). The analyst: unsupported."""
        if observer == Observer.ANALYST:
            return unsupported_analyst(self.name)
        return PairLaws(bernoulli(1 / self.g), bernoulli(self.p))

    @property
    def bits_per_message(self) -> int:
        """Hash seed (a, b) mod prime (MERSENNE_31 for the ideal hash it stands for) + ceil(log2 g)."""
        return 2 * math.ceil(math.log2(self.prime or MERSENNE_31)) + math.ceil(math.log2(self.g))


def solh_parameters(eps_c: float, n: int, delta: float) -> tuple[int, float]:
    """(d', eps_l) of SOLH at central (eps_c, delta): the solh bound's inverse, its hash_range and eps0
    (d' near the variance-optimal (A+2)/3, formulas.solh_hash_range)."""
    a = blanket_a(eps_c, n, delta)
    amp = get_bound(BoundName.SOLH).inverse(eps_c, n, delta)
    if not amp.valid or amp.eps0 is None or amp.eps0 <= 0:
        raise InputError(
            f"SOLH cannot reach eps_c={eps_c:g} with n={int(n):,}, delta={delta:g}: it needs "
            f"A = (n-1) eps_c^2/(14 ln(2/delta)) = {a:.4g} > 2; raise eps_c or n."
        )
    return amp.extra["hash_range"], amp.eps0


@dataclass(frozen=True)
class SOLH(OLH):
    """OLH whose hash range d' and local eps_l are calibrated for the shuffle model (T. Wang et al. 2019)."""

    name: ClassVar[str] = "solh"
    randomizer: ClassVar[Randomizer] = Randomizer.SOLH
    title: ClassVar[str] = "Shuffled optimized local hashing (SOLH)"

    @classmethod
    def from_eps(cls, eps: float, d: int, g: int | None = None, prime: int | None = None) -> Self:
        """SOLH at local eps on the hash range g (from solh_parameters or an accountant's hash_range: SOLH's
        range is calibrated with its eps, so it must be given)."""
        if not g:
            raise InputError("SOLH needs its hash range g (solh_parameters, or the solh bound's hash_range).")
        return super().from_eps(eps, d, g, prime)

    @classmethod
    def from_shuffle(cls, eps_c: float, n: int, delta: float, d: int, prime: int | None = None) -> SOLH:
        """SOLH whose n shuffled reports are (eps_c, delta)-DP against the server (Theorem 3)."""
        g, eps_l = solh_parameters(eps_c, n, delta)
        return cls.from_eps(eps_l, d, g, prime)
