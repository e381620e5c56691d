"""One numeric value t in [-1, 1] per respondent (N. Wang, Xiao, Yang, Zhao, Hui, Shin, Shin, Yu,
Collecting and Analyzing Multidimensional Data with Local Differential Privacy (ICDE 2019), Sec. III;
docs/systems.md).

Laplace, Duchi et al.'s Algorithm 1, the Piecewise Mechanism (PM, Algorithm 2) and the
Hybrid Mechanism (HM, Sec. III-C). All are unbiased, so the mean estimate is the plain
average of the reports and its expected MSE is (1/n^2) sum_i Var(t_i). Each mechanism
has a vectorised randomizer (values, eps, rng) -> reports of the same shape, its
per-report variance Var(t, eps) (affine in t^2; t and eps broadcast) and its worst case.
With a = e^(eps/2), the formulas are written with expm1 and tanh so that they stay
exact for small eps.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ldpcore.data.scaling import require_all, unit_values
from ldpcore.errors import check_eps, require

_WANG = "Wang et al., Collecting and analyzing multidimensional data with local differential privacy (ICDE 2019)"


def eps_array(eps, name: str = "eps") -> np.ndarray:
    """eps as a float array; every entry must be a finite number > 0 (nats)."""
    e = np.asarray(eps, dtype=np.float64)
    require_all(np.isfinite(e) & (e > 0), e, name + " must be a finite number > 0 (got {:g}).")
    return e


# --- Laplace (Sec. III-A) ----------------------------------------------------------------


def laplace_randomize(values, eps: float, rng: np.random.Generator) -> np.ndarray:
    """t + Lap(2/eps): sensitivity 2 on [-1, 1]."""
    t, eps = unit_values(values), check_eps(eps, "eps")
    return t + rng.laplace(0.0, 2.0 / eps, t.shape)


def laplace_density(x, t, eps):
    """Output density eps/4 exp(-eps |x - t| / 2) on the real line."""
    t, eps = unit_values(t, "t"), eps_array(eps)
    return (eps / 4 * np.exp(-eps * np.abs(np.asarray(x, dtype=np.float64) - t) / 2))[()]


def laplace_variance(t, eps):
    """8/eps^2 for every t."""
    t, eps = unit_values(t, "t"), eps_array(eps)
    return (8.0 / eps**2 + np.zeros_like(t))[()]


def laplace_worst_variance(eps):
    """8/eps^2."""
    return (8.0 / eps_array(eps) ** 2)[()]


# --- Duchi et al., one dimension (Algorithm 1) ------------------------------------------


def duchi_b(eps):
    """The output magnitude B1 = (e^eps + 1)/(e^eps - 1) = coth(eps/2)."""
    return (1.0 / np.tanh(eps_array(eps) / 2))[()]


def duchi_prob_plus(t, eps):
    """P(report = +B1 | t) = (e^eps - 1)/(2 e^eps + 2) t + 1/2 (Eq. 3), computed as
    (1+t)/2 pi + (1-t)/2 (1 - pi), pi = e^eps/(e^eps + 1), free of cancellation; P(-B1 | t) = P(+B1 | -t)."""
    t, eps = unit_values(t, "t"), eps_array(eps)
    return ((1 + t) / 2 * expit(eps) + (1 - t) / 2 * expit(-eps))[()]


def duchi_randomize(values, eps: float, rng: np.random.Generator) -> np.ndarray:
    """Reports +-B1 with the probabilities of Eq. 3."""
    t, eps = unit_values(values), check_eps(eps, "eps")
    b = duchi_b(eps)
    return np.where(rng.random(t.shape) < duchi_prob_plus(t, eps), b, -b)


def duchi_variance(t, eps):
    """B1^2 - t^2 (Eq. 4)."""
    t = unit_values(t, "t")
    return (duchi_b(eps) ** 2 - t**2)[()]


def duchi_worst_variance(eps):
    """B1^2, at t = 0."""
    return duchi_b(eps) ** 2


# --- Piecewise Mechanism (Algorithm 2) --------------------------------------------------


def pm_constants(eps) -> tuple:
    """(C, p): outputs lie in [-C, C], C = (a+1)/(a-1) = coth(eps/4); the density is p =
    (e^eps - a)/(2a + 2) on [l(t), r(t)] and p/e^eps elsewhere in [-C, C] (Eq. 5)."""
    eps = eps_array(eps)
    a = np.exp(eps / 2)
    return (1.0 / np.tanh(eps / 4))[()], (a * np.expm1(eps / 2) / (2 * (a + 1)))[()]


def pm_interval(t, eps) -> tuple:
    """(l(t), r(t)): l = (C+1)/2 t - (C-1)/2, r = l + C - 1 (Eq. 5). l(1) = 1, r(-1) = -1."""
    t = unit_values(t, "t")
    c = pm_constants(eps)[0]
    left = (c + 1) / 2 * t - (c - 1) / 2
    return left[()], (left + c - 1)[()]


def pm_density(x, t, eps):
    """The output density at x given t (Eq. 5; N. Wang et al. 2019 Fig. 2): p on [l, r], p/e^eps on
    the rest of [-C, C], 0 outside."""
    x, eps = np.asarray(x, dtype=np.float64), eps_array(eps)
    c, p = pm_constants(eps)
    left, right = pm_interval(t, eps)
    density = np.where((left <= x) & (x <= right), p, p * np.exp(-eps))
    return np.where(np.abs(x) <= c, density, 0.0)[()]


def pm_randomize(values, eps: float, rng: np.random.Generator) -> np.ndarray:
    """Algorithm 2: w.p. a/(a+1) uniform on [l, r], else uniform on [-C, l) U (r, C].

    The outer pieces have lengths (C+1)(1+t)/2 and (C+1)(1-t)/2, so one uniform u picks
    the side by u < (1+t)/2; at t = 1 (t = -1) the right (left) piece is empty and is
    never chosen.
    """
    t, eps = unit_values(values), check_eps(eps, "eps")
    c = pm_constants(eps)[0]
    left, right = pm_interval(t, eps)
    center = rng.random(t.shape) < expit(eps / 2)
    u = rng.random(t.shape)  # independent of the coin: places the report within the chosen part
    outer = np.where(u < (1 + t) / 2, -c + (c + 1) * u, c - (c + 1) * (1 - u))
    return np.where(center, left + (right - left) * u, outer)


def pm_variance(t, eps):
    """t^2/(a-1) + (a+3)/(3(a-1)^2) (Lemma 1)."""
    t, eps = unit_values(t, "t"), eps_array(eps)
    am1 = np.expm1(eps / 2)
    return (t**2 / am1 + (am1 + 4) / (3 * am1**2))[()]


def pm_worst_variance(eps):
    """4a/(3(a-1)^2), at |t| = 1 (Sec. III-B)."""
    eps = eps_array(eps)
    return (4 * np.exp(eps / 2) / (3 * np.expm1(eps / 2) ** 2))[()]


# --- Hybrid Mechanism (Sec. III-C) ------------------------------------------------------

# eps* (Eq. 6): below it PM's variance at t = 0 exceeds Duchi's worst case, so HM is pure
# Duchi; eps# (Table I): PM's and Duchi's worst cases cross. The paper's closed forms (the roots
# of the polynomials in e^(eps/2) that equate the variances; tests check the crossings).
EPS_STAR = math.log((-5 + 2 * math.cbrt(6353 - 405 * math.sqrt(241)) + 2 * math.cbrt(6353 + 405 * math.sqrt(241))) / 27)
EPS_SHARP = math.log((7 + 4 * math.sqrt(7) + 2 * math.sqrt(20 + 14 * math.sqrt(7))) / 9)
THEORY_NOTE = (
    "Per-report variances on [-1, 1] (Wang et al., ICDE 2019, Section III). Below eps* the Hybrid Mechanism is "
    "pure Duchi; above eps# the Piecewise Mechanism's worst case beats Duchi's."
)


def hm_alpha(eps):
    """PM's share alpha = 1 - e^(-eps/2) for eps > eps*, else 0 (Eq. 7)."""
    eps = eps_array(eps)
    return np.where(eps > EPS_STAR, -np.expm1(-eps / 2), 0.0)[()]


def hm_randomize(values, eps: float, rng: np.random.Generator) -> np.ndarray:
    """PM w.p. alpha, else Duchi, both at the full eps."""
    t, eps = unit_values(values), check_eps(eps, "eps")
    use_pm = rng.random(t.shape) < hm_alpha(eps)
    return np.where(use_pm, pm_randomize(t, eps, rng), duchi_randomize(t, eps, rng))


def hm_variance(t, eps):
    """alpha Var_PM(t) + (1 - alpha) Var_Duchi(t) (Sec. III-C): flat in t above eps*."""
    alpha = hm_alpha(eps)
    return (alpha * pm_variance(t, eps) + (1 - alpha) * duchi_variance(t, eps))[()]


def hm_worst_variance(eps):
    """(a+3)/(3a(a-1)) + (e^eps+1)^2/(a(e^eps-1)^2) above eps*, else B1^2 (Eq. 8)."""
    eps = eps_array(eps)
    a = np.exp(eps / 2)
    mixed = (a + 3) / (3 * a * np.expm1(eps / 2)) + duchi_b(eps) ** 2 / a
    return np.where(eps > EPS_STAR, mixed, duchi_b(eps) ** 2)[()]


# --- registry ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Mechanism:
    """A one-dimensional mechanism by name (the rows of docs/systems.md's table)."""

    name: str
    title: str
    citation: str
    randomize: Callable[[np.ndarray, float, np.random.Generator], np.ndarray]
    variance: Callable
    worst_variance: Callable


MECHANISMS: dict[str, Mechanism] = {
    m.name: m
    for m in (
        Mechanism(
            "laplace", "Laplace", f"{_WANG}, Sec. III-A", laplace_randomize, laplace_variance, laplace_worst_variance
        ),
        Mechanism(
            "duchi",
            "Duchi et al.",
            f"{_WANG}, Algorithm 1, Eqs. 3-4",
            duchi_randomize,
            duchi_variance,
            duchi_worst_variance,
        ),
        Mechanism(
            "pm", "Piecewise Mechanism", f"{_WANG}, Algorithm 2, Lemma 1", pm_randomize, pm_variance, pm_worst_variance
        ),
        Mechanism(
            "hm",
            "Hybrid Mechanism",
            f"{_WANG}, Sec. III-C, Lemma 3, Eqs. 6-8",
            hm_randomize,
            hm_variance,
            hm_worst_variance,
        ),
    )
}


def get_mechanism(name: str, allowed=tuple(MECHANISMS)) -> Mechanism:
    """A mechanism by name, one of ``allowed``."""
    require(name in allowed, f"unknown mechanism {name!r}; choose one of {', '.join(allowed)}.")
    return MECHANISMS[name]
