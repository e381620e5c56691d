"""The analyzer's side for numeric data: mean estimates, their expected MSE, which mechanism
to use for given data, and the central eps of shuffled reports (seeds/002 Secs. III-IV;
spec/numeric.md)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError, check_eps, require
from .mechanisms import MECHANISMS, get_mechanism, unit_values


def estimate_mean(reports) -> np.ndarray:
    """The plain average of the reports over respondents (axis 0): unbiased for every
    mechanism here, including Algorithm 4's (d/k)-scaled tuples and Duchi's d-dim ones."""
    reports = np.asarray(reports, dtype=np.float64)
    require(reports.ndim >= 1 and reports.shape[0] >= 1, "need at least one report.")
    return reports.mean(axis=0)[()]


def expected_mse(values, eps: float, mechanism: str):
    """(1/n^2) sum_i Var(t_i): the expected squared error of the mean of n reports of the
    values t_i (shape (n,), or (n, d) for one MSE per column) under a 1-D mechanism."""
    t = unit_values(values)
    require(t.ndim in (1, 2) and t.shape[0] >= 1, "values must form an (n,) or (n, d) array with n >= 1.")
    return (get_mechanism(mechanism).variance(t, eps).mean(axis=0) / t.shape[0])[()]


@dataclass(frozen=True)
class Recommendation:
    """The 1-D mechanism with the least expected MSE of the mean, for data with E[t^2] = mean_square.

    mse: per mechanism, the expected MSE of the mean of n reports (n = 1: the average
    per-report variance). best: the smallest; ties go to the first of laplace, duchi, pm,
    hm. HM's MSE on given data is alpha PM's + (1 - alpha) Duchi's, so HM is never strictly
    best here (it wins the worst case over all data, Corollary 1, not a given data set).
    """

    eps: float
    mean_square: float
    n: int
    mse: dict[str, float]
    best: str


def recommend(eps: float, values=None, *, mean_square: float | None = None, n: int | None = None) -> Recommendation:
    """Rank Laplace, Duchi, PM and HM for the values of one attribute (in [-1, 1]) or for
    their mean square alone: every per-report variance is affine in t^2, so the average
    variance over the data is the variance at t^2 = E[t^2] (spec/numeric.md). n defaults
    to the number of values, else 1."""
    eps = check_eps(eps, "eps")
    require((values is None) != (mean_square is None), "give the values or their mean square, not both.")
    if values is not None:
        t = unit_values(values)
        require(t.ndim == 1 and t.size >= 1, "values must be a non-empty 1-D array (one attribute).")
        mean_square, n = float(np.mean(t**2)), t.size if n is None else n
    mean_square = float(mean_square)
    require(0 <= mean_square <= 1, f"the mean square of values in [-1, 1] lies in [0, 1] (got {mean_square:g}).")
    n = 1 if n is None else n
    require(int(n) == n and n >= 1, f"n (respondents) must be a whole number >= 1 (got {n}).")
    mse = {name: float(m.variance(np.sqrt(mean_square), eps)) / int(n) for name, m in MECHANISMS.items()}
    return Recommendation(eps, mean_square, int(n), mse, min(mse, key=mse.get))


def shuffled_eps_c(eps: float, n: int, delta: float, bound: str | None = None):
    """Central (eps_c, delta) of n shuffled reports, each from an eps-LDP randomizer (any
    mechanism here; Algorithm 4's whole tuple is eps-LDP). bound: a name for
    ldpcore.amplification.get_bound that holds for any eps0-LDP randomizer; by default
    "fmt21-closed" (Feldman et al. 2021) if registered, else "efmrtt19". Returns the
    bound's Amplification (valid False with a reason where the bound certifies nothing)."""
    from ..amplification import get_bound

    if bound is None:
        try:
            chosen = get_bound("fmt21-closed")
        except InputError:
            chosen = get_bound("efmrtt19")
    else:
        chosen = get_bound(bound)
    return chosen.forward(eps, n, delta)
