"""Binomial pmf, log-pmf, cdf and sf for the accountants' inner loops: the functions scipy.stats.binom
evaluates (Boost's, and its own log-pmf formula) at integer k, without importing scipy.stats (about a
second) and without its per-call argument handling (about a millisecond a call); outside the support
0..n, the limits (pmf 0, log-pmf -inf, cdf 0 or 1, sf 1 or 0). ``tail_window`` is the one window of
whole numbers that the audits and the sketches keep of a binomial law.

The pmf, cdf and sf call SciPy's private ufuncs behind scipy.stats.binom (``_binom_pmf``,
``_binom_cdf``, ``_binom_sf`` in scipy.special). A SciPy without them (private names may change in
any release) falls back to scipy.stats.binom, which computes the same numbers more slowly, and
says so once per process (a RuntimeWarning)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np
from scipy.special import gammaln, xlog1py, xlogy


def _private_kernels() -> dict[str, Callable] | None:
    """SciPy's private binomial ufuncs by function name, or None where this SciPy lacks them."""
    try:
        from scipy.special import _ufuncs

        return {"pmf": _ufuncs._binom_pmf, "cdf": _ufuncs._binom_cdf, "sf": _ufuncs._binom_sf}
    except (ImportError, AttributeError):
        return None


_KERNELS = _private_kernels()
_warned = False


def _kernel(name: str) -> Callable:
    """The private ufunc, else scipy.stats.binom's method of that name (same values at integer k in 0..n)."""
    global _warned
    if _KERNELS is not None:
        return _KERNELS[name]
    if not _warned:
        _warned = True
        warnings.warn(
            "this SciPy lacks the private binomial ufuncs (scipy.special._ufuncs._binom_pmf, _binom_cdf, "
            "_binom_sf); ldpcore's accountants use scipy.stats.binom instead: the same numbers, more slowly.",
            RuntimeWarning,
            stacklevel=3,
        )
    from scipy.stats import binom

    return getattr(binom, name)


def _args(k, n) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """k (rounded down, as scipy.stats.binom does) and n as int64 arrays of one shape, and k clipped into 0..n
    (where the functions are defined)."""
    k, n = np.broadcast_arrays(np.floor(k).astype(np.int64), np.asarray(n, dtype=np.int64))
    return k, n, np.clip(k, 0, n)


def pmf(k, n, p) -> np.ndarray:
    k, n, inside = _args(k, n)
    return np.where((k >= 0) & (k <= n), _kernel("pmf")(inside, n, p), 0.0)


def logpmf(k, n, p) -> np.ndarray:
    k, n, j = _args(k, n)
    value = gammaln(n + 1) - (gammaln(j + 1) + gammaln(n - j + 1)) + xlogy(j, p) + xlog1py(n - j, -p)
    return np.where((k >= 0) & (k <= n), value, -np.inf)


def cdf(k, n, p) -> np.ndarray:
    k, n, inside = _args(k, n)
    return np.where(k < 0, 0.0, np.where(k >= n, 1.0, _kernel("cdf")(inside, n, p)))


def sf(k, n, p) -> np.ndarray:
    k, n, inside = _args(k, n)
    return np.where(k < 0, 1.0, np.where(k >= n, 0.0, _kernel("sf")(inside, n, p)))


def tail_window(n: int, p: float, tail: float) -> tuple[int, int]:
    """The whole numbers [lo, hi] within 0..n outside of which X ~ Bin(n, p) lies with probability at most
    `tail` (0 < tail < 1): mean -+ t with each side bounded by Bernstein's inequality for a sum of n
    independent variables in [0, 1], P(X - np >= t) <= exp(-t^2 / (2 (n p (1 - p) + t/3))) and the same for
    np - X (Bernstein 1924; Boucheron, Lugosi, Massart, Concentration Inequalities, 2013, Theorem 2.10),
    set to tail/2 each: t = L/3 + sqrt(L^2/9 + 2 L n p (1 - p)), L = ln(2/tail). Scipy's isf fails so far
    out; the window is a few standard deviations wider than the exact quantiles, and its width does not
    depend on n beyond the variance."""
    mean, var = n * p, n * p * (1 - p)
    log_tail = math.log(2 / tail)
    t = log_tail / 3 + math.sqrt(log_tail**2 / 9 + 2 * log_tail * var)
    return max(math.floor(mean - t), 0), min(math.ceil(mean + t), n)
