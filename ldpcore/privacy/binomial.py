"""Binomial pmf, log-pmf, cdf and sf for the accountants' inner loops: the functions scipy.stats.binom
evaluates (Boost's, and its own log-pmf formula) at integer k, without importing scipy.stats (about a
second) and without its per-call argument handling (about a millisecond a call); outside the support
0..n, the limits (pmf 0, log-pmf -inf, cdf 0 or 1, sf 1 or 0).

The pmf, cdf and sf call SciPy's private ufuncs behind scipy.stats.binom (``_binom_pmf``,
``_binom_cdf``, ``_binom_sf`` in scipy.special). A SciPy without them (private names may change in
any release) falls back to scipy.stats.binom, which computes the same numbers more slowly, and
says so once per process (a RuntimeWarning)."""

from __future__ import annotations

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
