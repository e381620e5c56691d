"""The tight accountant: the exact privacy curve of one attribute-fragment channel.

spec/esa.md, "Beyond the paper". Each bin of an attribute-fragmented one-hot report is
its own shuffled channel of binary randomized response with flip probability
p = 1/(1+e^eps0). One respondent changes ONE bin (removal, as the product accounts);
the other n-1 bits are worst case all 0, so with Y ~ Bin(n-1, p)

    delta(eps) = max over both directions of sum_k [P(k) - e^eps Q(k)]_+,
    P = Y + Bern(1-p),  Q = Y + Bern(p).

Each direction's positive part is a sum over a window of k that collapses to two binomial
tails (scipy.stats.binom sf/cdf: Boost's incomplete beta, accurate at n = 1e9 where
exp(binom.logpmf) loses 1e-6 relative), so nothing lies outside it; a rounding allowance
is added, so every value is an upper bound of the exact curve, in O(1) for any n.
Replacement neighbours change two bins: ``delta_replacement`` composes the two per-bin
curves with dp_accounting's privacy-loss distributions over a pmf window, adding the mass
outside the window.

The module also holds the solvers every privacy-curve bound shares (``smallest_eps``:
eps0 -> eps_c; ``largest_eps0``: eps_c -> eps0). Both land on the conservative side.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
from scipy.optimize import brentq
from scipy.stats import binom

from .oracles.onehot import flip_probability

ROUND_RTOL = 1e-10  # allowance for the relative rounding of binomial tails, added to delta
WINDOW_SD = 10.0  # binomial windows: mean +- WINDOW_SD (sd + 1); the mass outside is accounted for
INVERSE_RTOL = 1e-13  # relative precision of eps_c -> eps0 (eps0 -> eps_c is exact to the float)


# --- solvers shared by every bound given as a privacy curve delta(eps; eps0, n) ---

def _bisect(ok: Callable[[float], bool], good: float, bad: float, rtol: float) -> float:
    """Shrink [good, bad] (ok(good), not ok(bad)) to rtol, or to adjacent floats; return good."""
    while True:
        mid = good + (bad - good) / 2
        if mid in (good, bad) or abs(bad - good) <= rtol * abs(good):
            return good
        if ok(mid):
            good = mid
        else:
            bad = mid


def _boundary(curve: Callable[[float], float], delta: float, good: float, bad: float, rtol: float) -> float:
    """The point between good and bad where the monotone curve crosses delta, on the side curve <= delta.

    brentq on log(curve/delta) gives a warm start; steps doubling from it bracket the
    crossing tightly, and bisection finishes.
    """
    ok = lambda x: curve(x) <= delta  # noqa: E731
    x = brentq(lambda t: math.log(max(curve(t), 1e-300) / delta), min(good, bad), max(good, bad),
               xtol=1e-15, rtol=1e-15, maxiter=200)
    step = math.copysign(1e-13 * abs(x) + math.ulp(x), bad - good)
    if ok(x):
        good = x
        while (bad - (y := good + step)) * step > 0:
            if not ok(y):
                bad = y
                break
            good, step = y, 2 * step
    else:
        bad = x
        while ((y := bad - step) - good) * step > 0:
            if ok(y):
                good = y
                break
            bad, step = y, 2 * step
    return _bisect(ok, good, bad, rtol)


def smallest_eps(curve: Callable[[float], float], eps0: float, delta: float) -> float:
    """The smallest eps (to the float) with curve(eps) <= delta; curve(eps0) = 0 for an eps0-LDP randomizer.

    Exact to adjacent floats, so forward(inverse(eps_c)) <= eps_c holds exactly.
    """
    if curve(0.0) <= delta:
        return 0.0
    return _boundary(curve, delta, eps0, 0.0, 0.0)


def largest_eps0(curve_of_eps0: Callable[[float], float], eps_c: float, hi: float, delta: float) -> float:
    """The largest eps0 in [eps_c, hi] with curve_of_eps0(eps0) = delta(eps_c; eps0) <= delta.

    The curve is non-decreasing in eps0 and 0 at eps0 <= eps_c; the caller has checked it
    exceeds delta at hi. Relative precision INVERSE_RTOL, never above the crossing.
    """
    return _boundary(curve_of_eps0, delta, eps_c, hi, INVERSE_RTOL)


# --- the exact curve of one shuffled binary-RR channel ---

def delta_removal(eps: float, eps0: float, n: int) -> float:
    """delta(eps) of one bin with n respondents: exact, plus a rounding allowance (an upper bound).

    With f the pmf of Y, c1 = (1-p) - e^eps p and c2 = e^eps (1-p) - p (both > 0 for
    eps < eps0), P(k) - e^eps Q(k) = c1 f(k-1) - c2 f(k). As f(k-1)/f(k) = k(1-p)/((m-k+1)p)
    increases in k, it is positive exactly for k > t1, so the windowed sum collapses to two
    binomial tails with nothing outside: sum_{k >= s} = c1 P(Y >= s-1) - c2 P(Y >= s) at
    s = floor(t1) + 1. The other direction, Q(k) - e^eps P(k) = c1 f(k) - c2 f(k-1), is
    positive for k < t2: sum_{k <= j} = c1 P(Y <= j) - c2 P(Y <= j-1). The positive part
    is the largest such partial sum, so thresholds near t1 (t2) are all tried against the
    rounding of t; ROUND_RTOL times the terms' size covers the tails' rounding (Boost's
    incomplete beta, ~4e-12 relative at n = 1e9).
    """
    if eps >= eps0:
        return 0.0  # the likelihood ratio is at most (1-p)/p = e^eps0
    m, p, q = n - 1, flip_probability(eps0), flip_probability(-eps0)
    c1 = p * math.exp(eps0) * -math.expm1(eps - eps0)  # = (1-p) - e^eps p > 0, also when eps ~ eps0
    c2 = p * math.expm1(eps + eps0)  # = e^eps (1-p) - p
    near = np.arange(-2, 3)
    s = math.floor((m + 1) * p * c2 / (q * c1 + p * c2)) + 1 + near
    up_plus, up_minus = c1 * binom.sf(s - 2, m, p), c2 * binom.sf(s - 1, m, p)
    j = math.ceil((m + 1) * p * c1 / (q * c2 + p * c1)) - 1 + near
    down_plus, down_minus = c1 * binom.cdf(j, m, p), c2 * binom.cdf(j - 1, m, p)
    plus, minus = np.concatenate((up_plus, down_plus)), np.concatenate((up_minus, down_minus))
    return float(np.max(plus - minus + ROUND_RTOL * (plus + minus)))


def binomial_range(m: int, p: float) -> tuple[int, int]:
    """[lo, hi] covering Y ~ Bin(m, p) up to a negligible tail: mean +- WINDOW_SD (sd + 1), within 0..m."""
    mean, sd = m * p, math.sqrt(m * p * (1 - p))
    return max(0, math.floor(mean - WINDOW_SD * (sd + 1))), min(m, math.ceil(mean + WINDOW_SD * (sd + 1)))


def delta_replacement(eps: float, eps0: float, n: int, discretization: float = 1e-4) -> float:
    """Upper bound of delta(eps) under replacement: one bin loses the respondent's 1, another gains it.

    The two bins are independent channels, so the pair is (P x Q, Q x P); its privacy-loss
    distribution is the composition of the PLDs of (P, Q) and (Q, P) over the window
    (dp_accounting, pessimistic discretisation), plus both bins' mass outside the window and
    the rounding allowance of ``delta_removal``.
    """
    m, p = n - 1, flip_probability(eps0)
    lo, hi = binomial_range(m, p)
    hi += 1  # outcomes k = lo..hi of K = Y + Bern
    f = binom.pmf(np.arange(lo - 1, hi + 1), m, p)  # f(k-1), f(k) for k = lo..hi
    P, Q = (1 - p) * f[:-1] + p * f[1:], p * f[:-1] + (1 - p) * f[1:]
    keep = (P > 0) | (Q > 0)
    with np.errstate(divide="ignore"):
        logP, logQ = dict(enumerate(np.log(P[keep]))), dict(enumerate(np.log(Q[keep])))
    from dp_accounting.pld import privacy_loss_distribution as pld  # slow import; replacement only

    one = pld.from_two_probability_mass_functions(logQ, logP, value_discretization_interval=discretization)
    other = pld.from_two_probability_mass_functions(logP, logQ, value_discretization_interval=discretization)
    outside = float(binom.cdf(lo - 1, m, p) + binom.sf(hi - 1, m, p))
    rounding = ROUND_RTOL * (1 + math.exp(eps))
    return float(one.compose(other).get_delta_for_epsilon(eps)) + 2 * outside + rounding
