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

Exact aggregate sampler (sample_aggregate; Hadamard.sample_aggregate's doc has the derivation): the
law of one report is P[j | v] = (1 + s H[v+1, j])/K with s = 2p - 1, a mixture: w.p. s uniform on
C_v, else uniform on [K]. Grouping the values by the top set bit h of w = v+1, the reports on C_v
are j_low uniform on [2^h], j_h = <w_low, j_low> mod 2 and the bits above h uniform: dyadic
splitting of (parity, label, position) groups, O(K log K) additions and popcount binomials.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.special import expit

from ldpcore.errors import carried, check_eps, checkpoint, require
from ldpcore.oracles.bits import half_binomial
from ldpcore.oracles.direct import SupportAnalyzer, check_domain
from ldpcore.oracles.laws import Law, Observer, PairLaws, Unsupported, bernoulli, unsupported_analyst
from ldpcore.oracles.limits import check_realised, check_reference, largest_eps
from ldpcore.privacy.bounds import Randomizer


def fwht(x: np.ndarray) -> np.ndarray:
    """H x for the Sylvester Hadamard matrix of size len(x) (a power of two), O(K log K)."""
    y = np.array(x, dtype=np.float64).reshape(-1)  # a copy, transformed in place
    size, h = y.size, 1
    while h < size:
        pairs = y.reshape(-1, 2, h)
        low, high = pairs[:, 0], pairs[:, 1]
        difference = low - high
        low += high
        high[...] = difference
        h *= 2
    return y


def _parity(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(x) & 1


_THREADS = 2  # fixed, so a draw depends on the seed only, not on the machine
_THREADED_FROM = 1 << 14  # labels of a group split between the threads
RESPONDENTS_MAX = 1 << 21  # sample_aggregate places each respondent up to min(this, max(2^15, K log2(K)/2))
_POOL = ThreadPoolExecutor(max_workers=_THREADS)


def _split_top(state: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One level of _parity_split on groups [P, t, u] (A, 2, U): x's next bit pairs with u's top bit
    and becomes P's lowest bit: (2A, 2, U/2)."""
    width, half = state.shape[0], state.shape[2] // 2
    parent = state.reshape(width, 2, 2, half)  # [P, t, u's top bit, u's other bits]
    up = half_binomial(parent, rng)
    parent -= up
    child = np.empty_like(parent)  # [P, x's bit, t, u's other bits]
    np.add(parent[:, :, 0], parent[:, :, 1], out=child[:, 0])
    np.add(up[:, :, 0], up[:, ::-1, 1], out=child[:, 1])  # t flips where u's bit and x's bit are 1
    return child.reshape(2 * width, 2, half)


def _parity_split(state: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """counts[b, x] (2, 2^g) from groups state[t, u] (2, 2^g) of respondents each at an independent
    uniform x in [2^g], by b = t xor <u, x> mod 2.

    Dyadic splitting: a group (P, t, u) of m respondents (P: x's bits drawn so far, t: the parity so
    far, u: the label's bits not paired yet) sends Bin(m, 1/2) to x's next bit = 1, where t flips
    if u's paired bit is 1; g levels of 2^(g+1) groups. Half the levels pair u's top bits (P then
    holds x's top bits), the rest u's low bits, so every addition runs over rows of >= 2^(g/2)."""
    size = state.shape[1]
    g, top = size.bit_length() - 1, size.bit_length() // 2
    groups = state.reshape(1, 2, size)
    for _ in range(top):
        groups = _split_top(groups, rng)
    groups = np.ascontiguousarray(groups.transpose(1, 2, 0))  # [t, u's low bits, P]
    for _ in range(g - top):  # x's next bit pairs with u's lowest bit and becomes P's top bit
        half, width = groups.shape[1] // 2, groups.shape[2]
        parent = groups.reshape(2, half, 2, width)
        up = half_binomial(parent, rng)
        parent -= up
        child = np.empty_like(parent)  # [t, u >> 1, x's bit, P]
        np.add(parent[:, :, 0], parent[:, :, 1], out=child[:, :, 0])
        np.add(up[:, :, 0], up[::-1, :, 1], out=child[:, :, 1])
        groups = child.reshape(2, half, 2 * width)
    # P = (x mod 2^(g-top)) 2^top + x >> (g-top): back to x
    return groups.reshape(2, size >> top, 1 << top).transpose(0, 2, 1).reshape(2, size)


def _unsplit(labels: np.ndarray) -> np.ndarray:
    """The groups [P, t, u] (1, 2, len(labels)) of _parity_split before its first level: t = 0."""
    state = np.empty((1, 2, labels.size), dtype=np.int64)
    state[0, 0], state[0, 1] = labels, 0
    return state


def _spread(cells: np.ndarray, bits: int, rng: np.random.Generator) -> np.ndarray:
    """cells[b, x] (2, W) with `bits` more independent uniform bits on top of x: (2, W 2^bits)."""
    width, total = cells.shape[1], int(cells.sum())
    if total < cells.size << bits:  # fewer respondents than cells: place each one
        at = np.repeat(np.arange(cells.size), cells.reshape(-1))
        b, x = np.divmod(at, width)
        x += rng.integers(1 << bits, size=total) * width
        return np.bincount(b * (width << bits) + x, minlength=cells.size << bits).reshape(2, -1)
    for _ in range(bits):
        up = half_binomial(cells, rng)
        cells = np.concatenate([cells - up, up], axis=1)
    return cells


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
        """Exact draw of the report histogram over [K] in O(K log K) additions and binomials.

        P[j | v] = (2/K)(p [j in C_v] + (1-p) [j not in C_v]) = (1-s)/K + s (2/K)[j in C_v] with
        s = 2p - 1: a_v ~ Bin(c_v, s) respondents of v report uniformly on C_v, the other n - sum(a)
        uniformly on [K]. With w = v+1 = 2^h + u (u < 2^h), j in C_v iff j_h = <u, j mod 2^h> mod 2,
        so those reports have j mod 2^h uniform, j_h that parity (_parity_split) and the bits above h
        uniform; adding the groups from h = 0 up, each step gives every report so far a uniform bit h.
        """
        counts = np.asarray(counts, dtype=np.int64)
        n = int(counts.sum())
        if n <= min(RESPONDENTS_MAX, max(1 << 15, self.K * self.bits_per_message // 2)):  # cheaper than the groups
            return self.aggregate(self._reports(np.repeat(np.arange(self.d), counts), rng))
        on_set = rng.binomial(counts, 2 * self.p - 1)
        groups = []  # w = 2^h + u: the counts of u < 2^g, g = ceil(log2(values with that top bit h))
        for h in range(self.bits_per_message):
            labels = on_set[(1 << h) - 1 : min(2 << h, self.d + 1) - 1]
            groups.append(np.pad(labels, (0, (1 << (labels.size - 1).bit_length()) - labels.size)))
        split = carried(_parity_split)  # the threads stop with this one (ldpcore.errors.checkpoint)
        threaded = {  # large groups: the first level here, its halves on two threads with child generators
            h: [_POOL.submit(split, half, child) for half, child in zip(halves, rng.spawn(_THREADS))]
            for h, labels in enumerate(groups)
            if labels.size >= _THREADED_FROM
            for halves in [_split_top(_unsplit(labels), rng)]  # [x's top bit, t, u's other bits]
        }
        cells = np.array([n - on_set.sum()])  # reports so far, over j mod 2^h
        for h, labels in enumerate(groups):
            checkpoint()
            if h in threaded:
                reports = np.concatenate([half.result() for half in threaded[h]], axis=1)
            else:
                reports = _parity_split(_unsplit(labels)[0], rng)
            group = _spread(reports, h + 1 - labels.size.bit_length(), rng)  # [j_h, j mod 2^h]
            up = half_binomial(cells, rng)
            cells = np.concatenate([cells - up, up]) + group.reshape(-1)
        return cells

    def randomize(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per-respondent reference: j uniform on [K], moved into C_v (w.p. p) or out of it
        by flipping the lowest set bit of v+1 when its parity is wrong."""
        check_reference(self, np.size(values))
        return self._reports(values, rng)

    def _reports(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
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
