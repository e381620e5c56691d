"""Multi-message shuffled frequency oracles of Ghazi, Golowich, Kumar, Pagh, Velingker,
On the Power of Multiple Anonymous Messages (EUROCRYPT 2021), the single-message reference
(B-ary randomized response with the Balle et al. privacy blanket) and the error reference
curves (docs/encodings.md "Multi-message protocols").

Multi-message protocols have local eps = infinity: privacy comes from the crowd alone, by
the protocol's own analysis (Lemma 4.4 / 4.10 of Ghazi et al. 2021, or the exact accountants
`hadamard_delta` and `count_min_delta` below), not by an amplification bound, so their
`accountants` are empty.
Neighbouring datasets differ in one user's value (replacement, Ghazi et al. 2021 Definition 2.2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import ClassVar

import numpy as np
from scipy.special import gammaln

from ldpcore.errors import InputError, check_delta, check_eps, check_whole, require
from ldpcore.oracles.direct import GRR
from ldpcore.oracles.limits import check_reference
from ldpcore.oracles.sketches.hash_family import HashFamily
from ldpcore.oracles.sketches.sampling import binomial_window, check_counts, check_values
from ldpcore.privacy import binomial, solver
from ldpcore.privacy.bounds import Randomizer, accountants_for
from ldpcore.privacy.guarantee import Neighbouring

_TAIL = 1e-18  # probability left outside each side of a summation window (binomial_window's tail: 2 _TAIL)
CURVE_DISCRETIZATION = 1e-3  # a chart's count_min_q_min: 40x cheaper, q ~1-2% above the default 1e-4's


# --- Algorithm 1: Hadamard response with blanket tuples (private coin) ---------------------


def paper_tau(n: int) -> int:
    """tau = ceil(log2 n) (Ghazi et al. 2021 Theorem 4.3), so that a blanket tuple lands in C_j w.p. ~1/n."""
    check_whole(n, 2, "n")
    return math.ceil(math.log2(n))


def paper_rho(eps: float, delta: float) -> int:
    """rho = ceil(36 ln(1/delta)/eps^2) blanket tuples per user (Ghazi et al. 2021 Lemma 4.4, k = 1)."""
    return math.ceil(36 * math.log(1 / check_delta(delta)) / check_eps(eps, "eps_c") ** 2)


def _hinge(s, a: np.ndarray, m: np.ndarray, r: float, e: float) -> np.ndarray:
    """E[(1 - e (s + V)/a)_+] for V ~ Bin(m, r): the terms v <= top = ceil(a/e - s) - 1, in closed
    form with sum_{v<=t} v Bin(v; m, r) = m r cdf(t-1; m-1, r)."""
    top = np.ceil(a / e - s) - 1
    below = binomial.cdf(top - 1, np.maximum(m - 1, 0), r)
    return binomial.cdf(top, m, r) * (1 - e * s / a) - e / a * m * r * below


def hadamard_delta(eps: float, rho: int, n: int, tau: int) -> float:
    """Exact delta(eps) of Algorithm 1 (k = 1) against an analyzer who also knows every other
    user's true tuple, for neighbours j != j'.

    The N = n rho blanket tuples are uniform on [B']^tau; a coordinate lies in C_j and C_j' w.p.
    1/4 for each of the four patterns (Hadamard rows are orthogonal), so a blanket tuple lies in
    both C_j^tau and C_j'^tau w.p. 4^-tau and in exactly one of them w.p. 2^-tau - 4^-tau each.
    A multiset of tuples has probability proportional to A_j, its tuples inside C_j^tau (the
    proof of Lemma 4.4; report_log_prob), so the privacy loss is ln(A_j/A_j'). Under j:
    A_j = 1 + W + U, A_j' = W + V + B with (W, U, V) ~ Multinomial(N; 4^-tau, 2^-tau - 4^-tau,
    2^-tau - 4^-tau) and B ~ Bern(2^-tau) (the user's own tuple also in C_j'^tau), and
    delta = E[(1 - e^eps A_j'/A_j)_+], the same in both directions by symmetry. The sum over V
    is in closed form (_hinge); W and U are summed over windows and the probability left outside
    them is added (an upper bound, tight to ~1e-15, floating point).
    """
    check_eps(eps, "eps_c")
    rho, n, tau = check_whole(rho, 1, "rho"), check_whole(n, 1, "n"), check_whole(tau, 1, "tau")
    N, p = int(n) * int(rho), 2.0**-tau
    p_both, p_one = p * p, p - p * p
    p_u, p_v = p_one / (1 - p_both), p_one / (1 - p_both - p_one)  # U | W, and V | W, U
    e = math.exp(eps)
    ws = binomial_window(N, p_both)
    pw = binomial.pmf(ws, N, p_both)
    ws, pw = ws[pw >= _TAIL / ws.size], pw[pw >= _TAIL / ws.size]  # the rest is negligible; its mass is added below
    # one row per w: its window of u (padded to the longest; the padding has probability 0)
    lo, hi = np.array([binomial_window(N - w, p_u)[[0, -1]] for w in ws]).reshape(-1, 2).T
    u = lo[:, None] + np.arange(int((hi - lo).max()) + 1)
    w = ws[:, None]
    pu = np.where(u <= hi[:, None], pw[:, None] * binomial.pmf(u, N - w, p_u), 0.0)
    a, m = 1.0 + w + u, np.maximum(N - w - u, 0)
    hinge = (1 - p) * _hinge(w, a, m, p_v, e) + p * _hinge(w + 1, a, m, p_v, e)
    return min(1.0, float((pu * hinge).sum()) + max(0.0, 1.0 - float(pu.sum())))


def hadamard_rho_min(eps: float, delta: float, n: int, tau: int | None = None, guess: int | None = None) -> int:
    """The smallest rho with hadamard_delta(eps, rho, n, tau) <= delta (tau: paper_tau(n) if None).
    delta is non-increasing in rho (more blanket tuples are a post-processing: anyone can add
    uniform tuples), so doubling then bisection finds it (from guess, if given: a curve passes the
    previous n's rho scaled to keep n rho 2^-tau, the blanket tuples expected in C_j^tau)."""
    check_delta(delta)
    tau = paper_tau(n) if tau is None else tau

    def ok(rho: int) -> bool:
        return hadamard_delta(eps, rho, n, tau) <= delta

    try:
        if guess is not None:
            return solver.smallest_int_near(ok, guess, 1, 2**40)
        return solver.smallest_int(ok, 1, 2**40)
    except ArithmeticError:
        raise InputError(f"no rho <= 2^40 reaches delta={delta:g} at eps={eps:g}.") from None


@dataclass(frozen=True)
class HadamardMultiMessage:
    """Algorithm 1 of Ghazi et al. 2021 (k = 1). B' = the smallest power of two > d; C_j = {i in [B'] :
    popcount((j+1) & i) even}, |C_j| = B'/2 (row j+1 of the Hadamard matrix; row 0 is all ones).
    A user with value j sends one tuple of tau indices uniform on C_j and rho blanket tuples
    uniform on [B']^tau. c_j counts the tuples inside C_j^tau: c_j = x_j + Bin(n(1+rho) - x_j,
    2^-tau) exactly, and (c_j - n(1+rho) 2^-tau)/(1 - 2^-tau) is unbiased."""

    d: int
    tau: int
    rho: int

    name: ClassVar[str] = "hadamard-multi"
    title: ClassVar[str] = "Hadamard multi-message (Ghazi et al. Algorithm 1)"
    neighbouring: ClassVar[Neighbouring] = Neighbouring.REPLACE_ONE
    accountants: ClassVar[tuple[str, ...]] = ()
    privacy_note: ClassVar[str] = (
        "Local eps is infinite; eps_c comes from the blanket tuples: Lemma 4.4 of "
        "Ghazi et al. 2021 with the paper's rho, or the exact accountant hadamard_delta "
        "(about 10x fewer blanket tuples). No amplification bound applies."
    )

    def __post_init__(self):
        require(self.d >= 1, f"the domain size d must be >= 1 (got {self.d}).")
        require(self.tau >= 1 and self.rho >= 0, f"tau must be >= 1 and rho >= 0 (got {self.tau}, {self.rho}).")

    @classmethod
    def from_eps(cls, eps: float, d: int, n: int, delta: float, rule: str = "tight", guess: int | None = None):
        """Central (eps, delta) -> tau = ceil(log2 n) and rho by the exact accountant ("tight", from
        guess if given: hadamard_rho_min) or the paper's ceil(36 ln(1/delta)/eps^2) ("paper")."""
        require(rule in ("tight", "paper"), f"rule must be 'tight' or 'paper' (got {rule!r}).")
        tau = paper_tau(n)
        rho = hadamard_rho_min(eps, delta, n, tau, guess) if rule == "tight" else paper_rho(eps, delta)
        return cls(d=d, tau=tau, rho=rho)

    @property
    def width(self) -> int:
        """B': the smallest power of two > d."""
        return 1 << self.d.bit_length()

    @cached_property
    def _member(self) -> np.ndarray:
        """(B', d) bool: index i lies in C_j."""
        i, j = np.arange(self.width)[:, None], np.arange(1, self.d + 1)[None, :]
        return np.bitwise_count(i & j) % 2 == 0

    def sample_aggregate(self, counts, rng: np.random.Generator, exact: bool = False) -> np.ndarray:
        """c_j for every j. Default: c_j = x_j + Bin(n(1+rho) - x_j, 2^-tau) drawn independently,
        cost O(d): every marginal (so every per-bin error) is exact; the dependence between bins
        is left out (none pairwise from blanket tuples, whose memberships in two Hadamard rows are
        independent; some through users' own tuples and higher orders). exact=True draws the
        tuples (cost O(n (1+rho) tau d), small inputs)."""
        counts = check_counts(counts, self.d)
        if exact:
            check_reference(self, int(counts.sum()))  # before the n values are laid out
            return self.aggregate(self.randomize(np.repeat(np.arange(self.d), counts), rng))
        total = int(counts.sum()) * (1 + self.rho)
        return counts + rng.binomial(total - counts, 2.0**-self.tau)

    def randomize(self, values, rng: np.random.Generator) -> np.ndarray:
        """Per-user reference: (n, 1+rho, tau) indices in [B'], each user's tuples in random order."""
        check_reference(self, np.size(values))
        values = check_values(values, self.d)
        own = rng.integers(self.width, size=(values.size, self.tau))
        key = values[:, None] + 1
        # flipping the lowest set bit of j+1 maps the odd half of [B'] onto C_j: uniform on C_j
        own ^= (np.bitwise_count(own & key) % 2) * (key & -key)
        blanket = rng.integers(self.width, size=(values.size, self.rho, self.tau))
        tuples = np.concatenate([own[:, None], blanket], axis=1)
        order = rng.random(tuples.shape[:2]).argsort(axis=1)
        return np.take_along_axis(tuples, order[..., None], axis=1)

    def reference_cells(self, n: int) -> int:
        """Memory of the per-user reference: (1 + rho) tuples of tau indices per user."""
        return n * (1 + self.rho) * self.tau

    def aggregate(self, reports) -> np.ndarray:
        """c_j: the tuples (of all users) inside C_j^tau. O(tuples tau d)."""
        tuples = np.asarray(reports).reshape(-1, self.tau)
        step = max(1, (1 << 24) // (self.tau * self.d))
        return sum(
            (self._member[tuples[s : s + step]].all(axis=1).sum(axis=0) for s in range(0, len(tuples), step)),
            np.zeros(self.d, dtype=np.int64),
        )

    def report_log_prob(self, value: int, reports) -> np.ndarray:
        """Exact log-probability of the multiset of one user's tuples, reports (..., 1+rho, tau):
        ln A_j + tau ln 2 + ln rho! - sum ln(mult!) - tau (1+rho) ln B', with A_j the tuples inside
        C_j^tau (-inf if none: local eps is infinite)."""
        reports = np.asarray(reports)
        inside = self._member[reports, value].all(axis=-1).sum(axis=-1)
        codes = np.sort((reports * self.width ** np.arange(self.tau)).sum(axis=-1), axis=-1)
        idx = np.arange(codes.shape[-1])
        starts = np.concatenate([np.ones(codes.shape[:-1] + (1,), bool), np.diff(codes, axis=-1) != 0], axis=-1)
        rank = idx - np.maximum.accumulate(np.where(starts, idx, 0), axis=-1) + 1
        with np.errstate(divide="ignore"):
            return (
                np.log(inside)
                + self.tau * math.log(2)
                + gammaln(self.rho + 1)
                - np.log(rank).sum(axis=-1)
                - self.tau * (1 + self.rho) * math.log(self.width)
            )

    def estimate(self, aggregate: np.ndarray, n: int) -> np.ndarray:
        p = 2.0**-self.tau
        return (np.asarray(aggregate, dtype=np.float64) - n * (1 + self.rho) * p) / (1 - p)

    def variance(self, n: int, counts=None):
        """(n(1+rho) - x_j) 2^-tau / (1 - 2^-tau), exact; counts=None: x_j = 0."""
        x = 0.0 if counts is None else check_counts(counts, self.d).astype(np.float64)
        p = 2.0**-self.tau
        return (n * (1 + self.rho) - x) * p / (1 - p)

    def expected_messages(self) -> float:
        return 1.0 + self.rho

    @property
    def bits_per_message(self) -> int:
        """A tuple of tau indices in [B']."""
        return self.tau * (self.width.bit_length() - 1)


# --- Algorithm 2: Count-Min with blanket increments (public coin) ---------------------------


def paper_q(eps: float, delta: float, n: int, tau: int) -> float:
    """q = 90 tau^2 ln(2 tau/delta)/(n eps^2) (Ghazi et al. 2021 Lemma 4.10 with the paper's constants)."""
    return 90 * tau**2 * math.log(2 * tau / check_delta(delta)) / (n * check_eps(eps, "eps_c") ** 2)


def _cell_pld(n: int, q: float, discretization: float, reverse: bool):
    """dp_accounting PLD of one cell: N + 1 against N (reverse: N against N + 1), N ~ Bin(n, q),
    losses rounded up (pessimistic). Outcomes k in binomial_window(n, q) + [0, 1]; the upper law's
    mass outside them, and where the lower law is 0, has infinite loss."""
    from dp_accounting.pld import pld_pmf  # slow import
    from dp_accounting.pld import privacy_loss_distribution as pld

    z = binomial_window(n, q, 2 * _TAIL)
    k, shift = np.arange(z[0], z[-1] + 2), int(not reverse)  # upper = N + shift
    with np.errstate(divide="ignore"):
        upper, lower = binomial.logpmf(k - shift, n, q), binomial.logpmf(k - 1 + shift, n, q)
    keep = np.isfinite(upper) & np.isfinite(lower)
    idx = np.ceil((upper[keep] - lower[keep]) / discretization).astype(np.int64)
    probs = np.bincount(idx - idx.min(), weights=np.exp(upper[keep]))
    infinite = (
        binomial.cdf(z[0] - 1 - shift, n, q)
        + binomial.sf(z[-1] + 1 - shift, n, q)
        + np.exp(upper[~np.isfinite(lower)]).sum()
    )
    pmf = pld_pmf.DensePLDPmf(discretization, int(idx.min()), probs, float(infinite), pessimistic_estimate=True)
    return pld.PrivacyLossDistribution(pmf)


def count_min_delta(eps: float, q: float, n: int, tau: int, discretization: float = 1e-4) -> float:
    """delta(eps) of Algorithm 2 for neighbours x != x', against an analyzer who sees the whole
    table and knows the hashes and every other user's value: an upper bound, exact but for the
    privacy loss rounded up to multiples of `discretization` (delta's relative excess is about
    2 tau discretization |d ln delta/d eps|: 1e-4 to 1e-3 at the brute-force checks, 3% at
    tau = 14, delta = 1e-8, i.e. 0.3% on q) and floating point (~1e-15).

    Every cell's noise is N ~ Bin(n, q): the n - 1 other users' blanket messages and the user's
    own, which do not depend on its value (sample_aggregate). Only the cells a_t = h_t(x) and
    b_t = h_t(x') differ in law, and the worst case has a_t != b_t in every row t (a row with
    a_t = b_t has the same law under both; fewer rows are a post-processing). Row t is then
    P = (N_a + 1, N_b) vs Q = (N_a, N_b + 1), N_a, N_b iid, and rows are independent: the pair
    is the product of tau cell pairs (N + 1 vs N) and tau cell pairs (N vs N + 1), so its
    privacy loss distribution is their composition (full FFT convolutions, no truncation).
    Swapping a_t and b_t maps (P, Q) onto (Q, P), so both directions have this delta. Each
    cell's mass outside its window (<= 2e-18) is an outcome of infinite loss: the true pair is
    a post-processing of that one (draw from the law outside the window), so the bound survives
    composition. Ghazi et al. 2021 Lemma 4.10 bounds the same delta through the smoothness of Bin(n, q),
    at the price of the constant 90 (paper_q).
    """
    check_eps(eps, "eps_c")
    n, tau = check_whole(n, 1, "n"), check_whole(tau, 1, "tau")
    require(0 < q < 1, f"the blanket probability q must lie in (0, 1) (got {q:g}).")
    row = _cell_pld(int(n), q, discretization, False).compose(
        _cell_pld(int(n), q, discretization, True), tail_mass_truncation=0
    )
    table = row.self_compose(int(tau), tail_mass_truncation=0) if tau > 1 else row
    return min(1.0, max(0.0, float(table.get_delta_for_epsilon(eps))))


def count_min_q_min(
    eps: float,
    delta: float,
    n: int,
    tau: int,
    rtol: float = 1e-3,
    start: float | None = None,
    discretization: float = 1e-4,
) -> float:
    """The smallest q <= 1/2 with count_min_delta(eps, q, n, tau, discretization) <= delta, to a
    relative rtol and rounded up: the q returned always passes that check. Bin(n, q) and
    Bin(n, 1 - q) give the same delta (reflect the table), so q <= 1/2; there delta falls as q
    grows (checked by brute force, no post-processing argument: Bin(n, q') is not Bin(n, q) plus
    independent noise). From start (default: the Gaussian mechanism's q ~ 4 tau ln(1.25/delta)/(n
    eps^2); a curve passes the previous n's q n / n), steps growing fourfold from a factor 1 + 4 rtol
    bracket the crossing, then the conservative solver (brentq on ln(delta(q)/delta) to rtol/4,
    ldpcore.privacy.solver), each q evaluated once. A coarser discretization is cheaper and still
    an upper bound (the PLD is pessimistic), so its q is larger: for a chart's points."""
    check_eps(eps, "eps_c")
    check_delta(delta)
    n, tau = check_whole(n, 1, "n"), check_whole(tau, 1, "tau")

    @cache
    def curve(q: float) -> float:
        return count_min_delta(eps, q, n, tau, discretization)

    q = min(0.5, start or 4 * tau * math.log(1.25 / delta) / (n * eps**2))
    step = math.log1p(4 * rtol)  # in ln q
    lo = hi = q
    if curve(q) <= delta:  # the crossing lies below q
        while curve(lo := hi * math.exp(-step)) <= delta:
            hi, step = lo, 4 * step
    else:
        while curve(hi) > delta:
            require(
                hi < 0.5,
                f"n={n:,} is too small for Count-Min's blanket: even q = 1/2 does not reach "
                f"delta={delta:g} at eps={eps:g} with tau={tau}.",
            )
            lo, hi, step = hi, min(0.5, hi * math.exp(step)), 4 * step
    return solver.boundary(curve, delta, hi, lo, rtol=rtol, coarse=rtol / 4)


@dataclass(frozen=True)
class CountMinMultiMessage:
    """Algorithm 2 of Ghazi et al. 2021: public hashes h_1..h_tau: [d] -> [width] (paper: width = 2n); a
    user sends (t, h_t(x)) for every t and each of the tau*width cells independently w.p. q as
    blanket noise. Table C[t, l] = true hashed counts + Bin(n, q) per cell (exact). Estimate
    min_t C[t, h_t(j)] - q n, or without "- q n" (one_sided) never below the true count."""

    d: int
    q: float
    tau: int
    width: int
    seed: int = 0
    one_sided: bool = False

    name: ClassVar[str] = "count-min-multi"
    title: ClassVar[str] = "Count-Min multi-message (Ghazi et al. Algorithm 2)"
    neighbouring: ClassVar[Neighbouring] = Neighbouring.REPLACE_ONE
    accountants: ClassVar[tuple[str, ...]] = ()
    privacy_note: ClassVar[str] = (
        "Local eps is infinite; eps_c comes from the Bin(n, q) blanket of every cell: "
        "Ghazi et al. 2021 Lemma 4.10 with the paper's q = 90 tau^2 ln(2 tau/delta)/(n eps^2), "
        "or the exact accountant count_min_delta (a q hundreds of times smaller at "
        "d = 1e4). No amplification bound applies."
    )

    def __post_init__(self):
        require(1 <= self.d <= 2**32, f"the domain size d must lie in [1, 2^32] (got {self.d}).")
        require(0 <= self.q < 1, f"the blanket probability q must lie in [0, 1) (got {self.q:g}).")
        require(
            self.tau >= 1 and 2 <= self.width <= 2**32,
            f"tau must be >= 1 and width in [2, 2^32] (got {self.tau}, {self.width}).",
        )

    @classmethod
    def from_eps(
        cls,
        eps: float,
        d: int,
        n: int,
        delta: float,
        tau: int | None = None,
        width: int | None = None,
        seed: int = 0,
        one_sided: bool = False,
        rule: str = "paper",
        start: float | None = None,
        discretization: float = 1e-4,
    ):
        """Central (eps, delta) -> width = 2n, tau = ceil(log2 d) (an element collides in every
        row w.p. <= (n/width)^tau = 2^-tau, Lemma 4.8) and q by the paper's 90 tau^2 ln(2 tau/delta)
        /(n eps^2) ("paper", paper_q) or the exact accountant ("tight", count_min_q_min from start
        at this discretization)."""
        require(rule in ("tight", "paper"), f"rule must be 'tight' or 'paper' (got {rule!r}).")
        eps, delta = check_eps(eps, "eps_c"), check_delta(delta)
        tau = max(1, math.ceil(math.log2(d))) if tau is None else tau
        if rule == "tight":
            q = count_min_q_min(eps, delta, n, tau, start=start, discretization=discretization)
        else:
            q = paper_q(eps, delta, n, tau)
            require(q < 1, f"n={n:,} is too small for the paper's blanket: q = {q:.3g} >= 1 (needs n > {q * n:,.0f}).")
        return cls(d=d, q=q, tau=tau, width=2 * n if width is None else width, seed=seed, one_sided=one_sided)

    @cached_property
    def hashes(self) -> HashFamily:
        return HashFamily(self.tau, self.width, self.seed)

    @cached_property
    def _cells(self) -> np.ndarray:
        """(tau, d): h_t(j)."""
        return self.hashes.cells(np.arange(self.d)[None, :], np.arange(self.tau)[:, None])

    @cached_property
    def _cell_ids(self) -> np.ndarray:
        """(tau, d): the cell (t, h_t(j)) numbered among the cells that some value hashes to."""
        cells = self._cells + self.width * np.arange(self.tau)[:, None]
        return np.unique(cells, return_inverse=True)[1].reshape(cells.shape)

    def _true_table(self, counts: np.ndarray) -> np.ndarray:
        table = np.zeros((self.tau, self.width), dtype=np.int64)
        np.add.at(table, (np.arange(self.tau)[:, None], self._cells), counts[None, :])
        return table

    def sample_aggregate(self, counts, rng: np.random.Generator) -> np.ndarray:
        """Exact table: true hashed counts + independent Bin(n, q) per cell. O(tau (d + width))."""
        counts = check_counts(counts, self.d)
        return self._true_table(counts) + rng.binomial(int(counts.sum()), self.q, size=(self.tau, self.width))

    def randomize(self, values, rng: np.random.Generator) -> np.ndarray:
        """Per-user reference: (n, tau, width) message counts (0, 1 or 2 per cell)."""
        check_reference(self, np.size(values))
        values = check_values(values, self.d)
        reports = (rng.random((values.size, self.tau, self.width)) < self.q).astype(np.int64)
        reports[np.arange(values.size)[:, None], np.arange(self.tau), self._cells[:, values].T] += 1
        return reports

    def reference_cells(self, n: int) -> int:
        """Memory of the per-user reference: a tau x width table of message counts per user."""
        return n * self.tau * self.width

    @staticmethod
    def aggregate(reports) -> np.ndarray:
        return np.asarray(reports).sum(axis=0)

    def report_log_prob(self, value: int, reports) -> np.ndarray:
        """Exact log P[one user's message counts (..., tau, width)] (-inf if a true message is missing)."""
        blanket = np.array(reports, dtype=np.int64)
        blanket[..., np.arange(self.tau), self._cells[:, value]] -= 1
        ok = ((blanket == 0) | (blanket == 1)).all(axis=(-2, -1))
        ones = blanket.sum(axis=(-2, -1))
        with np.errstate(divide="ignore"):
            lp = ones * np.log(self.q) + (self.tau * self.width - ones) * math.log1p(-self.q)
        return np.where(ok, lp, -np.inf)

    def estimate(self, aggregate: np.ndarray, n: int) -> np.ndarray:
        low = np.take_along_axis(np.asarray(aggregate), self._cells, axis=1).min(axis=0).astype(np.float64)
        return low if self.one_sided else low - self.q * n

    def _min_moments(self, offsets: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance of M = min_t (e_t + N_t), N_t iid Bin(n, q), for each column of the
        offsets e (tau, bins): P(M >= y) = prod_t P(N > y - e_t - 1), summed over the window where
        every N_t lies but for _TAIL (so M >= min e + lo almost surely). O(tau bins window)."""
        support = binomial_window(n, self.q)
        lo, span = support[0], support[-1] - support[0]
        sf = binomial.sf(np.arange(lo - 1, support[-1] + 1), n, self.q)  # P(N > z), z = lo-1..hi
        base = offsets.min(axis=0) + lo
        mean, var = np.empty(offsets.shape[1]), np.empty(offsets.shape[1])
        y = np.arange(1, span + 1)
        step = max(1, (1 << 22) // (self.tau * max(span, 1)))
        for s in range(0, offsets.shape[1], step):
            e, b = offsets[:, s : s + step, None], base[s : s + step, None]
            z = np.clip(b + y - e - 1 - (lo - 1), 0, sf.size - 1)
            tail = sf[z].prod(axis=0)  # P(M >= base + y)
            m1 = tail.sum(axis=1)
            mean[s : s + step] = base[s : s + step] + m1
            var[s : s + step] = ((2 * y - 1) * tail).sum(axis=1) - m1**2
        return mean, var

    def moments(self, counts) -> tuple[np.ndarray, np.ndarray]:
        """Exact bias and variance of every bin's estimate for these counts and the seeded hashes
        (the documented bias of the min: >= 0 one-sided, and collisions only raise it). The
        colliding counts come from the d occupied cells, not the full table; bins with the same
        offsets share one _min_moments column. O(tau d log d + tau distinct window)."""
        counts = check_counts(counts, self.d)
        n = int(counts.sum())
        sums = np.bincount(self._cell_ids.ravel(), weights=np.broadcast_to(counts, self._cell_ids.shape).ravel())
        offsets = sums[self._cell_ids].astype(np.int64) - counts  # other values' counts in j's cells
        columns, inverse = np.unique(offsets, axis=1, return_inverse=True)  # few distinct: fast
        mean, var = (m[inverse.ravel()] for m in self._min_moments(columns, n))
        return (mean if self.one_sided else mean - self.q * n), var

    def variance(self, n: int, counts=None):
        """Exact: with counts (n = counts.sum()), per bin (moments); without, the collision-free
        Var(min_t N_t), whatever the data."""
        if counts is not None:
            return self.moments(counts)[1]
        return float(self._min_moments(np.zeros((self.tau, 1), dtype=np.int64), n)[1][0])

    def expected_messages(self) -> float:
        return self.tau * (1 + self.width * self.q)

    @property
    def bits_per_message(self) -> int:
        """(t, l): ceil(log2 tau) + ceil(log2 width) bits."""
        return math.ceil(math.log2(self.tau)) + math.ceil(math.log2(self.width))


# --- single-message reference: B-ary randomized response with the privacy blanket -------------


@dataclass(frozen=True)
class BaryRR(GRR):
    """B-ary (d-ary) randomized response, shuffled, parameterised by its blanket (Balle et al. 2019):
    report the truth w.p. 1-gamma, else a uniform value, i.e. GRR with p = 1-gamma+gamma/d and
    q = gamma/d, eps_l = ln(1 + d(1-gamma)/gamma). Replacement LDP; k-RR amplification bounds apply."""

    p: float = field(init=False)
    q: float = field(init=False)
    gamma: float

    name: ClassVar[str] = "bary-rr"
    title: ClassVar[str] = "B-ary randomized response, privacy blanket (single message)"
    accountants: ClassVar[tuple[str, ...]] = accountants_for(Randomizer.K_RR)
    privacy_note: ClassVar[str] = "Single message: eps_c from an amplification bound for k-RR at eps_l."

    def __post_init__(self):
        require(0 < self.gamma < 1, f"the blanket probability gamma must lie in (0, 1) (got {self.gamma:g}).")
        object.__setattr__(self, "p", 1 - self.gamma + self.gamma / self.d)
        object.__setattr__(self, "q", self.gamma / self.d)
        super().__post_init__()

    @classmethod
    def from_eps(cls, eps: float, d: int, n: int, delta: float) -> BaryRR:  # type: ignore[override]  # central eps
        """Central (eps, delta) -> gamma = max{14 d ln(2/delta)/((n-1) eps^2), 27 d/((n-1) eps)}
        (Balle et al. 2019, Theorem 3.1; spec)."""
        eps, delta = check_eps(eps, "eps_c"), check_delta(delta)
        require(n >= 2, f"n must be >= 2 (got {n}).")
        gamma = max(14 * d * math.log(2 / delta) / ((n - 1) * eps**2), 27 * d / ((n - 1) * eps))
        require(
            gamma < 1, f"n={n:,} is too small for d={d:,} at eps={eps:g}: the blanket needs gamma = {gamma:.3g} < 1."
        )
        return cls(d=d, gamma=gamma)

    @property
    def eps_l(self) -> float:
        return self.eps


# --- reference curves for plotting error against n (Ghazi et al. 2021) ----------------------------------


def single_message_lower_bound(n, d: int) -> np.ndarray:
    """Ghazi et al. 2021 Theorem 1.1: any single-message shuffled protocol (fixed eps, delta) has error
    Omega~(min(n^(1/4), sqrt(d))); returns min(n^(1/4), sqrt(d)), up to constants and log factors."""
    return np.minimum(np.asarray(n, dtype=np.float64) ** 0.25, math.sqrt(d))


def multi_message_upper_bound(n, d: int, eps: float, delta: float) -> np.ndarray:
    """Ghazi et al. 2021 Theorem 4.3 / Lemma 4.5: Algorithm 1's error is polylog(d) and independent of n,
    sqrt(ln(d) ln(1/delta))/eps up to constants (the Chernoff deviation of Bin(n(1+rho), 2^-tau)
    with 2^-tau ~ 1/n and rho ~ ln(1/delta)/eps^2, over d bins)."""
    value = math.sqrt(math.log(max(d, 2)) * math.log(1 / check_delta(delta))) / check_eps(eps, "eps_c")
    return np.full(np.shape(n), value)
