"""Central baseline: the Gaussian mechanism on the true counts (no LDP).

Analytic calibration of Balle and Wang (ICML 2018, Theorem 8): N(0, sigma^2) noise with
L2 sensitivity s is (eps, delta)-DP iff
  Phi(s/(2 sigma) - eps sigma/s) - e^eps Phi(-s/(2 sigma) - eps sigma/s) <= delta.
Zero-out (a respondent's value replaced by the null value, not counted) changes one count by 1, as adding or
removing a respondent would: s = 1.
The paper's Table IV sigma column is not this calibration (docs/departures.md); both are shown.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import log_ndtr

from ldpcore.errors import check_delta, check_eps
from ldpcore.privacy import solver

U = 2.0**-52  # float64 relative spacing

# Erlingsson et al. 2020 Table IV, "No LDP (Gaussian mechanism)", Horse, delta = 5e-8.
PAPER_SIGMA_HORSE = {0.05: 80.42, 0.25: 16.18, 0.5: 8.15, 0.75: 5.47, 1.0: 4.14}


def gaussian_delta(sigma: float, eps: float, sensitivity: float = 1.0) -> float:
    """Exact delta of the Gaussian mechanism at eps (Balle and Wang 2018, Thm 8)."""
    a = sensitivity / (2 * sigma)
    b = eps * sigma / sensitivity
    return math.exp(log_ndtr(a - b)) - math.exp(eps + log_ndtr(-a - b))


def analytic_gaussian_sigma(eps: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest sigma with gaussian_delta(sigma, eps) <= delta (conservative side)."""
    eps, delta = check_eps(eps), check_delta(delta)
    lo, hi = math.log(sensitivity) - 20, math.log(sensitivity) + 20  # delta ~ 1 at lo, ~ 0 at hi
    log_sigma = solver.root(
        lambda log_s: gaussian_delta(math.exp(log_s), eps, sensitivity), delta, lo, hi, 1e-13, 4 * U
    )
    ok = lambda sigma: gaussian_delta(sigma, eps, sensitivity) <= delta  # noqa: E731
    return solver.settle(ok, math.exp(log_sigma), math.inf, single_steps=10_000)


def gaussian_eps(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest eps with gaussian_delta(sigma, eps) <= delta (conservative side): the eps of noise sigma at another
    sensitivity (sqrt(2): the same release under replacement)."""
    delta = check_delta(delta)
    value = lambda eps: gaussian_delta(sigma, eps, sensitivity)  # noqa: E731
    if value(0.0) <= delta:
        return 0.0
    hi = 1.0
    while value(hi) > delta:
        hi *= 2
    return solver.boundary(value, delta, hi, 0.0, log=True)


def gaussian_mechanism(counts: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """The true counts plus N(0, sigma^2) noise per bin."""
    return counts + sigma * rng.standard_normal(counts.shape)
