"""Numeric shuffle-amplification curves for eps0-LDP randomizers: clones and the privacy blanket.

Each function is an upper bound on delta(eps) (at most 1) for n shuffled reports
(replacement neighbours), non-increasing in eps, non-decreasing in eps0, 0 at eps >= eps0;
ldpcore.privacy.tight turns it into eps0 -> eps_c and back (docs/accountants.md).

- Numerical clones (Feldman, McMillan, Talwar, Hiding among the clones, FOCS 2021): the
  shuffled output is a post-processing of a pair of counts decided by C ~ Bin(n-1, p_c)
  clones of the victim, p_c = e^-eps0 for any randomizer; the stronger clone (Feldman,
  McMillan, Talwar, SODA 2023) has p_c = 2/(e^eps0+1) for RR-type randomizers.
- Privacy blanket (Balle, Bell, Gascon, Nissim, CRYPTO 2019): with blanket mass gamma,
  delta <= E_{M~Bin(n, gamma)} E[(sum_{i<=M} L_i)_+] / (gamma n) for the privacy
  amplification variable L; Hoeffding's or Bennett's inequality bounds the inner term.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ldpcore.privacy import binomial
from ldpcore.privacy.tight import binomial_range

CACHE_SIZE = 256  # (n, eps0) entries kept by each cache: eps0 -> eps_c evaluates the curve often at one eps0
MAX_POINTS = 512  # at most this many values of C are evaluated; wider windows are blocked
BLOCK_RTOL = 1e-5  # blocks may be as wide as this fraction of C (g barely changes across them)
FALLING_RTOL = 1e-6  # a blanket bound lower at eps than at eps (1 - this) is still falling: no minimiser search


@lru_cache(maxsize=CACHE_SIZE)
def _clone_blocks(m: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """Starts of blocks partitioning 0..m and P(C in block), C ~ Bin(m, p); cached, read-only.

    Blocks: [0, lo) lumped, then the window [lo, hi] (tight.binomial_range) in equal blocks
    (single values where the window has at most MAX_POINTS of them and 1e-5 lo < 2), the last
    one running to m. Masses come from the cdf below the mean and the sf above it.
    """
    lo, hi = binomial_range(m, p)
    width = max(1, math.ceil((hi - lo + 1) / MAX_POINTS), math.floor(BLOCK_RTOL * lo))
    starts = np.arange(lo, hi + 1, width)
    if lo > 0:
        starts = np.concatenate(([0], starts))
    edges = np.append(starts, m + 1) - 1  # block j is (edges[j], edges[j+1]]
    cdf, sf = binomial.cdf(edges, m, p), binomial.sf(edges, m, p)  # edges[0] may be -1: cdf 0, sf 1
    mass = np.where(starts > m * p, sf[:-1] - sf[1:], cdf[1:] - cdf[:-1])
    starts.setflags(write=False)
    mass.setflags(write=False)
    return starts, mass


def clones_delta(eps: float, eps0: float, n: int, p_clone: float) -> float:
    """delta(eps) of the clone reduction with C ~ Bin(n-1, p_clone) (docs/accountants.md): clones_curve at one eps."""
    return float(clones_curve(np.array([eps]), eps0, n, p_clone)[0])


def clones_curve(eps: np.ndarray, eps0: float, n: int, p_clone: float) -> np.ndarray:
    """delta(eps) of the clone reduction at every eps of an array (docs/accountants.md).

    Given C = c and A ~ Bin(c, 1/2), P_c = A + Bern(alpha) vs Q_c = A + Bern(1-alpha),
    alpha = e^eps0/(e^eps0+1). Exactly, D_{e^eps}(P_c || Q_c) = kappa g(c) with
    e^eps' = (e^(eps+eps0) - 1)/(e^eps0 - e^eps), kappa = (e^eps0 - e^eps)/(e^eps0 + 1),
    a* = floor((c+1) e^eps'/(1+e^eps')) + 1 and g(c) = P(B_c >= a*-1) - e^eps' P(B_c >= a*),
    B_c ~ Bin(c, 1/2), i.e. g(c) = P(B_c = a*-1) - (e^eps' - 1) P(B_c >= a*); the other
    direction is the mirror image. One more clone is a post-processing, so g is
    non-increasing in c and each block of C is charged g at its start: an upper bound,
    exact where blocks are single values. 0 from eps0 on.
    """
    eps = np.atleast_1d(np.asarray(eps, dtype=np.float64))
    out = np.zeros(len(eps))
    live = eps < eps0
    if not live.any():
        return out
    e = eps[live][:, None]
    e0 = math.exp(eps0)
    gap = e0 * -np.expm1(e - eps0)  # e^eps0 - e^eps > 0, also when eps ~ eps0
    kappa, e_prime = gap / (e0 + 1), np.expm1(e + eps0) / gap
    e_prime_m1 = np.expm1(e) * (e0 + 1) / gap  # e^eps' - 1
    c, mass = _clone_blocks(n - 1, p_clone)
    k = np.floor((c + 1) * (e_prime / (1 + e_prime)))  # a* - 1: c + 1 where the fraction rounds to 1 (g = 0 there)
    g = binomial.pmf(k, c, 0.5) - e_prime_m1 * binomial.sf(k, c, 0.5)
    out[live] = kappa[:, 0] * (np.maximum(g, 0.0) @ mass)
    return out


def _blanket_moments(eps: float, eps0: float, k: int | None) -> tuple[float, float, float, float]:
    """(gamma, max L, range of L, E L^2) of the privacy amplification variable L = (R_x - e^eps R_x')/omega.

    k-RR (k values): gamma = k/(e^eps0+k-1), omega uniform, L = gamma(1-e^eps) + k(1-gamma)
    (1[y=x] - e^eps 1[y=x']), whose max, range and second moment follow directly.
    Generic eps0-LDP: omega = R_x0 for a fixed input, gamma = e^-eps0 (R_x >= e^-eps0 R_x0);
    l = R_x/omega, l' = R_x'/omega lie in [e^-eps0, e^eps0] with mean 1 and l/l' in
    [e^-eps0, e^eps0], so max L = e^eps0 - e^eps, min L = 1 - e^(eps+eps0), and
    E l^2 <= e^eps0 + e^-eps0 - 1, E l l' >= e^-eps0 (2 - e^-eps0) give
    E L^2 <= (e^eps - 1)^2 + 4 sinh(eps0/2)^2 (1 + e^2eps) + 2 e^eps (1 - e^-eps0)^2.
    Everything is written without cancellation (expm1), so it stays positive near eps0.
    """
    e0, e, a = math.exp(eps0), math.exp(eps), math.expm1(eps)
    gap = e0 * -math.expm1(eps - eps0)  # e^eps0 - e^eps
    if k is None:
        second = a * a + 4 * math.sinh(eps0 / 2) ** 2 * (1 + e * e) + 2 * e * math.expm1(-eps0) ** 2
        return 1 / e0, gap, math.expm1(eps0) * (e + 1), second
    g, not_g = k / (e0 + k - 1), math.expm1(eps0) / (e0 + k - 1)  # gamma, 1 - gamma
    second = g * (1 + not_g) * a * a + not_g**2 * k * (e * e + 1)
    return g, k * gap / (e0 + k - 1), not_g * k * (e + 1), second


def _log_binomial_mgf_sum(n: int, gamma: float, rate: float) -> float:
    """log sum_{m>=1} Bin(m; n, gamma) e^(-m rate) = log[(1 - gamma(1 - e^-rate))^n - (1 - gamma)^n]."""
    if gamma >= 1:  # every report is blanket (gamma rounds to 1 at eps0 < 1e-16)
        return -n * rate
    with_m0 = n * math.log1p(-gamma * -math.expm1(-rate))
    return with_m0 + math.log(-math.expm1(n * math.log1p(-gamma) - with_m0))


def _log_hoeffding(eps: float, eps0: float, n: int, k: int | None) -> float:
    """log of Balle et al.'s bound with Hoeffding's inequality, 0 < eps < eps0.

    For M = m blanket samples, L in an interval of width b and E L = -a (a = e^eps - 1),
    E[(S_m)_+] <= int_0^inf exp(-2(t + m a)^2/(m b^2)) dt <= b^2/(4a) e^(-2 m a^2/b^2); the
    M = 0 term vanishes. delta <= b^2/(4a) sum_{m>=1} Bin(m; n, gamma) e^(-2 m a^2/b^2)/(gamma n).
    """
    gamma, _, b, _ = _blanket_moments(eps, eps0, k)
    a = math.expm1(eps)
    return 2 * math.log(b / 2) - math.log(a) - math.log(gamma * n) + _log_binomial_mgf_sum(n, gamma, 2 * (a / b) ** 2)


def _log_bennett(eps: float, eps0: float, n: int, k: int | None) -> float:
    """log of Balle et al.'s bound with Bennett's inequality, 0 < eps < eps0.

    L <= B and E L^2 <= v give P(S_m + m a >= s) <= exp(-m (v/B^2) h(B s/(m v))),
    h(u) = (1+u) ln(1+u) - u; convexity of h at beta = a B/v integrates this to
    E[(S_m)_+] <= B e^(-m alpha h(beta))/ln(1+beta), alpha = v/B^2, so
    delta <= B sum_{m>=1} Bin(m; n, gamma) e^(-m alpha h(beta)) / (gamma n ln(1+beta)).
    """
    gamma, big_b, _, v = _blanket_moments(eps, eps0, k)
    beta = math.expm1(eps) * big_b / v
    h = (1 + beta) * math.log1p(beta) - beta
    return math.log(big_b / (gamma * n * math.log1p(beta))) + _log_binomial_mgf_sum(n, gamma, v / big_b**2 * h)


def _blanket(log_bound, eps: float, eps0: float, n: int, k: int | None) -> float:
    """min(1, min over eps' <= eps of the bound): an (eps', delta) guarantee holds at every eps >= eps'.

    Both bounds first fall and then rise in eps (their prefactor grows like e^eps), so the
    minimum over eps' <= eps is the bound at min(eps, its minimiser): the bound at eps itself where it
    is still falling there (lower at eps than at eps (1 - FALLING_RTOL); were the minimiser within that
    of eps, the bound at eps is above it by a negligible second-order amount, on the safe side), else
    the minimiser is searched.
    """
    if eps >= eps0:
        return 0.0
    if eps <= 0:
        return 1.0
    at = log_bound(eps, eps0, n, k)
    if not log_bound(eps * (1 - FALLING_RTOL), eps0, n, k) > at:  # not still falling at eps: find the minimiser
        eps = min(eps, _lowest(log_bound, eps0, n, k))
        if eps <= 0:
            return 1.0
        at = log_bound(eps, eps0, n, k)
    return math.exp(min(0.0, at))


@lru_cache(maxsize=CACHE_SIZE)
def _lowest(log_bound, eps0: float, n: int, k: int | None) -> float:
    """The minimiser of log_bound over eps in (0, eps0) (independent of the eps asked for; cached)."""
    from scipy.optimize import minimize_scalar

    return minimize_scalar(
        lambda e: log_bound(e, eps0, n, k), bounds=(0.0, eps0), method="bounded", options={"xatol": 1e-12 * eps0}
    ).x


def clear_caches() -> None:
    """Forget every cached block partition and minimiser (for cold timings)."""
    _clone_blocks.cache_clear()
    _lowest.cache_clear()


def blanket_hoeffding_delta(eps: float, eps0: float, n: int, k: int | None = None) -> float:
    """Privacy blanket with Hoeffding's inequality: k-RR on k values, or any eps0-LDP randomizer (k None)."""
    return _blanket(_log_hoeffding, eps, eps0, n, k)


def blanket_bennett_delta(eps: float, eps0: float, n: int, k: int | None = None) -> float:
    """Privacy blanket with Bennett's inequality: k-RR on k values, or any eps0-LDP randomizer (k None)."""
    return _blanket(_log_bennett, eps, eps0, n, k)
