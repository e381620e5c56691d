"""Binomial pmf, log-pmf, cdf and sf for the accountants' inner loops: the functions scipy.stats.binom
evaluates (Boost's, and its own log-pmf formula) at integer k, without importing scipy.stats (about a
second) and without its per-call argument handling (about a millisecond a call); outside the support
0..n, the limits (pmf 0, log-pmf -inf, cdf 0 or 1, sf 1 or 0)."""

from __future__ import annotations

import numpy as np
from scipy.special import _ufuncs as scu
from scipy.special import gammaln, xlog1py, xlogy


def _args(k, n) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """k (rounded down, as scipy.stats.binom does) and n as int64 arrays of one shape, and k clipped into 0..n
    (where the functions are defined)."""
    k, n = np.broadcast_arrays(np.floor(k).astype(np.int64), np.asarray(n, dtype=np.int64))
    return k, n, np.clip(k, 0, n)


def pmf(k, n, p) -> np.ndarray:
    k, n, inside = _args(k, n)
    return np.where((k >= 0) & (k <= n), scu._binom_pmf(inside, n, p), 0.0)


def logpmf(k, n, p) -> np.ndarray:
    k, n, j = _args(k, n)
    value = gammaln(n + 1) - (gammaln(j + 1) + gammaln(n - j + 1)) + xlogy(j, p) + xlog1py(n - j, -p)
    return np.where((k >= 0) & (k <= n), value, -np.inf)


def cdf(k, n, p) -> np.ndarray:
    k, n, inside = _args(k, n)
    return np.where(k < 0, 0.0, np.where(k >= n, 1.0, scu._binom_cdf(inside, n, p)))


def sf(k, n, p) -> np.ndarray:
    k, n, inside = _args(k, n)
    return np.where(k < 0, 1.0, np.where(k >= n, 0.0, scu._binom_sf(inside, n, p)))
