"""Composition of a mechanism run k times on the same respondents: basic composition, (k eps, k delta),
and advanced composition (Erlingsson, Feldman, Mironov, Raghunathan, Song, Talwar, Thakurta, Encode, Shuffle,
Analyze Privacy Revisited, 2020, Theorem II.7, after Bun and Steinke), with the inverse of the latter."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ldpcore.errors import check_delta, check_eps, check_whole, require
from ldpcore.privacy import solver


@dataclass(frozen=True)
class Composition:
    """k-fold composition of (eps_step, delta_step)-DP steps: (eps, delta), or valid False."""

    rule: str
    k: int
    eps_step: float
    delta_step: float
    eps: float | None
    delta: float
    valid: bool = True
    reason: str = ""


def basic_composition(eps: float, delta: float, k: int) -> Composition:
    """(k eps, k delta)."""
    eps, k = check_eps(eps, "eps"), check_whole(k, 1, "k (steps)")
    delta = float(delta)
    require(0 <= delta < 1, f"delta must lie in [0, 1) (got {delta:g}).")
    return Composition("basic", k, eps, delta, k * eps, k * delta)


def advanced_composition(eps: float, delta: float, k: int, delta_prime: float) -> Composition:
    """Theorem II.7 (Bun and Steinke, Corollary 8.11, as stated in Erlingsson et al. 2020):
    (k eps^2/2 + sqrt(k) eps sqrt(2 ln(sqrt(k pi/2) eps/delta')), delta' + k delta).
    Undefined (valid False) when sqrt(k pi/2) eps <= delta' (the logarithm is not positive);
    basic composition is then far smaller anyway."""
    eps, k, delta_prime = check_eps(eps, "eps"), check_whole(k, 1, "k (steps)"), check_delta(delta_prime, "delta'")
    delta = float(delta)
    require(0 <= delta < 1, f"delta must lie in [0, 1) (got {delta:g}).")
    log_arg = math.log(math.sqrt(k * math.pi / 2)) + math.log(eps) - math.log(delta_prime)
    total_delta = delta_prime + k * delta
    if log_arg <= 0:
        return Composition(
            "advanced",
            k,
            eps,
            delta,
            None,
            total_delta,
            False,
            f"Theorem II.7 needs sqrt(k pi/2) eps > delta' (k={k}, eps={eps:g}, delta'={delta_prime:g}).",
        )
    return Composition(
        "advanced", k, eps, delta, k * eps**2 / 2 + math.sqrt(k) * eps * math.sqrt(2 * log_arg), total_delta
    )


def advanced_inverse(target: float, k: int, delta_prime: float) -> float:
    """The largest eps_step at which Theorem II.7 gives at most ``target`` (it increases in eps_step), to a
    relative 1e-13 on the conservative side (ldpcore.privacy.solver)."""
    lo = delta_prime / math.sqrt(k * math.pi / 2) * (1 + 1e-9)

    def composed(eps_step: float) -> float:  # Theorem II.7 is defined from lo on
        composition = advanced_composition(eps_step, 0.0, k, delta_prime)
        return composition.eps if composition.eps is not None else math.inf

    if composed(lo) >= target:
        return 0.0
    hi = max(target, lo * 2)
    while composed(hi) <= target:
        hi *= 2
    return solver.boundary(composed, target, lo, hi, rtol=1e-13, log=False)
