"""One-hot k-RAPPOR with attribute fragments (Erlingsson, Feldman, Mironov, Raghunathan, Song, Talwar,
Thakurta, Encode, Shuffle, Analyze Privacy Revisited (2020), Algorithm 1), optionally with report
fragments and a backstop (Algorithm 2).

Every one-hot bit goes through binary randomized response and to its own shuffler, so
the analyzer sees, per bin j, only the number of 1-reports. Zero-out LDP: the reference
report of a respondent whose value is null is the randomized all-zeros vector, one bit away from
any one-hot vector, so a flip probability p gives eps = ln((1-p)/p) (docs/esa.md).

Float64 realises a flip probability's eps only while it stays well above 2^-53: eps_b and eps_f
up to OneHot.largest_eps() = 18.22 (ldpcore.oracles.limits); larger ones are refused.

Exact aggregate simulation (cost O(d) for any n and tau):
  backstop   B_j ~ Bin(c_j, 1-p_b) + Bin(n - c_j, p_b)
  fragments  N_j ~ Bin(tau B_j, 1-p_f) + Bin(tau (n - B_j), p_f)   (sum over the tau shufflers)
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.special import expit

from ldpcore.errors import InputError, check_whole, require
from ldpcore.oracles.bits import bernoulli_bits
from ldpcore.oracles.laws import BinLaws, CountLaws, Law, Observer, Unsupported
from ldpcore.oracles.limits import check_realised, check_reference, largest_eps
from ldpcore.oracles.support import SupportLaw
from ldpcore.privacy import binomial
from ldpcore.privacy.bounds import Randomizer
from ldpcore.privacy.guarantee import Neighbouring


def flip_probability(eps: float) -> float:
    """Binary RR keeps a bit w.p. e^eps/(1+e^eps): flip probability 1/(1+e^eps)."""
    return float(expit(-eps))


def eps_of_flip(p: float) -> float:
    """ln((1-p)/p), the zero-out eps of one bit flipped w.p. p."""
    return math.log1p(-p) - math.log(p)


_CHUNKS = 2  # fixed, so results depend on the seed only, not on the machine
_PARALLEL_FROM = 100_000
_POOL = ThreadPoolExecutor(max_workers=_CHUNKS)


def _binary_rr(counts: np.ndarray, n: int, p: float, rng: np.random.Generator) -> np.ndarray:
    """Number of 1-reports per bin when c_j of n respondents hold a 1, each bit flipped w.p. p.

    Large domains are split into _CHUNKS parts drawn on threads from child generators
    (numpy releases the GIL while sampling), so a seed gives the same draw everywhere.
    """

    def draw(gen, c):
        return c - gen.binomial(c, p) + gen.binomial(n - c, p)

    if counts.size < _PARALLEL_FROM:
        return draw(rng, counts)
    parts = np.array_split(counts, _CHUNKS)
    return np.concatenate(list(_POOL.map(draw, rng.spawn(_CHUNKS), parts)))


@dataclass(frozen=True)
class OneHot:
    """One-hot reports over d bins; tau=None is Algorithm 1, tau >= 1 Algorithm 2.

    p_b: flip probability of the (backstop) bit; p_f: of each fragment (Algorithm 2).
    """

    d: int
    p_b: float
    tau: int | None = None
    p_f: float | None = None

    name: ClassVar[str] = "onehot"
    title: ClassVar[str] = "One-hot (k-RAPPOR), attribute fragments"
    neighbouring: ClassVar[Neighbouring] = Neighbouring.ZERO_OUT
    randomizer: ClassVar[Randomizer] = Randomizer.BINARY_RR  # every bit is its own shuffled channel
    variance_note: ClassVar[str] = ""  # the variance is exact

    def __post_init__(self):
        require(0 < self.p_b < 0.5, f"flip probability must lie in (0, 1/2) (got {self.p_b:g}).")
        check_realised("one-hot reports", eps_of_flip(self.p_b), self.p_b, flip_probability, "eps_b")
        if self.tau is not None:
            require(
                self.p_f is not None and 0 < self.p_f < 0.5,
                f"fragment flip probability must lie in (0, 1/2) (got {self.p_f}).",
            )
            p_f = self.fragment_flip
            check_realised("one-hot reports", eps_of_flip(p_f), p_f, flip_probability, "eps_f")

    @property
    def fragment_flip(self) -> float:
        """p_f, the flip probability of each report fragment (Algorithm 2 only)."""
        if self.p_f is None:
            raise InputError("one-hot reports without report fragments have no fragment flip probability.")
        return self.p_f

    @staticmethod
    def largest_eps() -> float:
        """The largest eps_b (or eps_f) float64 realises for a bit flipped w.p. 1/(1+e^eps): 18.22."""
        return largest_eps(flip_probability)

    # --- what the analyzer sees -------------------------------------------------------
    def sample_aggregate(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Exact draw of the per-bin 1-report counts (summed over fragments)."""
        counts = np.asarray(counts, dtype=np.int64)
        n = int(counts.sum())
        backstop = _binary_rr(counts, n, self.p_b, rng)
        if self.tau is None:
            return backstop
        return _binary_rr(self.tau * backstop, self.tau * n, self.fragment_flip, rng)

    def randomize(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per-respondent reference: bool reports, shape (n, d), or (tau, n, d) with fragments."""
        check_reference(self, np.size(values))
        values = np.asarray(values)
        bits = bernoulli_bits(self.p_b, (values.size, self.d), rng)  # the flips, exact Bernoulli bits 64 a word
        bits[np.arange(values.size), values] ^= True
        if self.tau is None:
            return bits
        return bits[None] ^ bernoulli_bits(self.fragment_flip, (self.tau,) + bits.shape, rng)

    def report_log_prob(self, value: int | None, reports: np.ndarray) -> np.ndarray:
        """Exact log P[R(value) = report] for bool reports shaped like randomize's output
        (trailing (d,) or (tau, d)); value=None is an absent respondent (all-zeros input)."""
        reports = np.asarray(reports, dtype=bool)
        truth = np.zeros(self.d, dtype=bool)
        if value is not None:
            truth[value] = True
        lp, lq = math.log1p(-self.p_b), math.log(self.p_b)
        if self.tau is None:
            return np.where(reports == truth, lp, lq).sum(axis=-1)
        # per bit: sum over the backstop bit b' of P(b'|b) prod_t P(y_t|b')
        ones = reports.sum(axis=-2)
        lf, lg = math.log1p(-self.fragment_flip), math.log(self.fragment_flip)
        given1 = ones * lf + (self.tau - ones) * lg
        given0 = ones * lg + (self.tau - ones) * lf
        per_bit = np.where(truth, np.logaddexp(lp + given1, lq + given0), np.logaddexp(lq + given1, lp + given0))
        return per_bit.sum(axis=-1)

    @staticmethod
    def aggregate(reports: np.ndarray) -> np.ndarray:
        """What the shufflers hand the analyzer: 1-reports per bin (summed over fragments)."""
        return reports.reshape(-1, reports.shape[-1]).sum(axis=0, dtype=np.int64)

    # --- the analyzer -----------------------------------------------------------------
    def estimate(self, aggregate: np.ndarray, n: int) -> np.ndarray:
        """Unbiased counts: debias the fragment layer (mean over tau), then the backstop."""
        x = np.asarray(aggregate, dtype=np.float64)
        if self.tau is not None:
            x = (x / self.tau - n * self.fragment_flip) / (1 - 2 * self.fragment_flip)
        return (x - n * self.p_b) / (1 - 2 * self.p_b)

    def variance(self, n: int, counts: np.ndarray | None = None) -> float:
        """Var of every bin's estimate (data-independent, so counts are not needed):
        n p(1-p)/(1-2p)^2, plus the fragment layer n p_f(1-p_f)/(tau (1-2p_f)^2) inside the
        backstop debiasing."""
        var = n * self.p_b * (1 - self.p_b)
        if self.tau is not None:
            var += n * self.fragment_flip * (1 - self.fragment_flip) / (self.tau * (1 - 2 * self.fragment_flip) ** 2)
        return var / (1 - 2 * self.p_b) ** 2

    def support_law(self, n: int) -> SupportLaw | Unsupported:
        """Without report fragments each bin's 1-reports are Bin(n, p_b + (1 - 2 p_b) c_v/n) in the population
        model (ldpcore.oracles.support); with them a respondent adds up to tau dependent copies of one bit to a
        bin, which is not a binomial law."""
        if self.tau is not None:
            return Unsupported(
                "with report fragments a bin's count adds the tau copies of each respondent's bit: not a binomial law"
            )
        return SupportLaw(int(n), self.p_b, 1 - 2 * self.p_b)

    def reference_cells(self, n: int) -> int:
        """Memory of the per-respondent reference: n one-hot rows of d bits, tau fragments each."""
        return n * self.d * (self.tau or 1)

    # --- what each observer sees (ldpcore.oracles.laws) ---------------------------------
    def observer_law(self, observer: Observer) -> Law | Unsupported:
        """Every bin's bit is its own channel. Without report fragments the server sees every bin's bit and a
        captured shuffler one bin's (its attribute fragment); with them, the server sees the tau fragments of
        every bit and a shuffler one fragment; the analyst sees the per-bin counts of the backstop bits,
        re-randomized per fragment."""
        p_b = self.p_b
        if observer == Observer.ANALYST:
            return CountLaws(1 - p_b, p_b, p_b, 1 - p_b, None if self.tau is None else (self.tau, self.fragment_flip))
        server = observer == Observer.SERVER
        if self.tau is None:
            sees = (
                "the target's whole report (every bin's bit)"
                if server
                else "one attribute fragment of the target: bin v's bit (the shuffler of bin v)"
            )
            return BinLaws(np.array([1 - p_b, p_b]), np.array([p_b, 1 - p_b]), sees, one_bin=not server)
        t = self.tau if server else 1
        sees = (
            f"all {self.tau} report fragments of the target"
            if server
            else "one report fragment of the target (the shuffler it was sent to)"
        )
        ref, present = (fragment_counts(p_b, self.fragment_flip, t, held) for held in (False, True))
        return BinLaws(ref, present, sees, fragments=self.tau)

    # --- communication ----------------------------------------------------------------
    def expected_messages(self) -> float:
        """Expected set bits sent per respondent, one message each (paper "#bits")."""
        if self.tau is None:
            on, off = 1 - self.p_b, self.p_b
        else:
            keep_b, keep_f = 1 - self.p_b, 1 - self.fragment_flip
            on = keep_b * keep_f + self.p_b * self.fragment_flip
            off = self.p_b * keep_f + keep_b * self.fragment_flip
        return (1 if self.tau is None else self.tau) * (on + (self.d - 1) * off)

    @property
    def bits_per_message(self) -> int:
        """A message names its bin (its shuffler): ceil(log2 d) bits."""
        return max(1, math.ceil(math.log2(self.d)))


def fragment_counts(p_b: float, p_f: float, t: int, present: bool) -> np.ndarray:
    """Law of the 1s among t fragments of one bin's bit: backstop bit Bern(1 - p_b) if the value is there
    (present) else Bern(p_b), each fragment re-randomized with flip probability p_f."""
    j = np.arange(t + 1)
    one, zero = binomial.pmf(j, t, 1 - p_f), binomial.pmf(j, t, p_f)
    keep = 1 - p_b if present else p_b
    return keep * one + (1 - keep) * zero


def split_runs_estimate(counts: np.ndarray, eps: float, runs: int, rng: np.random.Generator) -> np.ndarray:
    """Erlingsson et al. 2020 Table VI: every respondent runs the attribute-fragmented protocol `runs`
    times with eps/runs each (basic composition keeps the total at eps); the analyzer
    averages the runs' unbiased estimates. Var = n p(1-p)/((1-2p)^2 runs), p at eps/runs."""
    runs = check_whole(runs, 1, "runs")
    counts = np.asarray(counts, dtype=np.int64)
    oracle = OneHot(d=counts.size, p_b=flip_probability(eps / runs))
    n = int(counts.sum())
    return np.mean([oracle.estimate(oracle.sample_aggregate(counts, rng), n) for _ in range(runs)], axis=0)
