"""ldpcore.privacy.binomial calls SciPy's private binomial ufuncs; a SciPy without them falls back to
scipy.stats.binom: the tight accountant then gives identical numbers, and says so once."""

import types
import warnings

import numpy as np
import pytest
import scipy.special

from ldpcore.privacy import binomial
from ldpcore.privacy.bounds import get_bound

# (eps0 for forward, n, delta); the inverse asks for eps0 / 8
POINTS = [(2.0, 1_000, 1e-6), (8.0, 1_914_589, 5e-8)]  # small n; Horse (inverse: eps_c = 1, the paper's)


def hide_private_kernels(monkeypatch):
    """As on a SciPy whose private ufuncs were renamed: the import guard finds none (scipy.stats keeps its own
    reference to them, as it would to the renamed ones)."""
    with monkeypatch.context() as renamed:
        renamed.setattr(scipy.special, "_ufuncs", types.ModuleType("scipy.special._ufuncs"))
        kernels = binomial._private_kernels()
    monkeypatch.setattr(binomial, "_KERNELS", kernels)
    monkeypatch.setattr(binomial, "_warned", False)
    assert binomial._KERNELS is None


def tight_numbers() -> list[float]:
    tight = get_bound("tight")
    out = []
    for eps, n, delta in POINTS:
        out.append(tight.forward(eps, n, delta).eps_c)
        out.append(tight.inverse(eps / 8, n, delta).eps0)
    return out


def test_the_guard_finds_the_private_kernels_in_this_scipy():
    assert binomial._KERNELS is not None and set(binomial._KERNELS) == {"pmf", "cdf", "sf"}


def test_the_tight_accountant_gives_identical_numbers_without_them(monkeypatch):
    with_kernels = tight_numbers()
    hide_private_kernels(monkeypatch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fallback = tight_numbers()
        binomial.sf(np.arange(10), 10, 0.5)
    said = [w for w in caught if issubclass(w.category, RuntimeWarning) and "private binomial" in str(w.message)]
    assert len(said) == 1  # once per process, although every pmf, cdf and sf call took the fallback
    assert fallback == with_kernels
    assert all(np.isfinite(fallback)) and len(fallback) == 2 * len(POINTS)


@pytest.mark.parametrize("n, p", [(1_000, 0.3), (1_000, 1e-7), (1_000, 1 - 1e-9), (10**9, 0.25)])
def test_the_fallback_equals_the_kernels_bit_for_bit(monkeypatch, n, p):
    k = np.concatenate([np.arange(-3, 1_004), np.arange(n // 4 - 500, n // 4 + 500), [n - 1, n, n + 1]])
    with_kernels = [binomial.pmf(k, n, p), binomial.cdf(k, n, p), binomial.sf(k, n, p)]
    hide_private_kernels(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        fallback = [binomial.pmf(k, n, p), binomial.cdf(k, n, p), binomial.sf(k, n, p)]
    for got, want in zip(fallback, with_kernels):
        assert np.array_equal(got, want)
