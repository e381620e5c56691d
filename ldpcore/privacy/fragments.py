"""Report fragments with a backstop (Erlingsson, Feldman, Mironov, Raghunathan, Song, Talwar, Thakurta,
Encode, Shuffle, Analyze Privacy Revisited (2020), Algorithm 2, Theorem IV.1).

The backstop R_b (eps_b) randomizes each bit once; each of tau fragments re-randomizes
the backstop bit with fresh eps_f randomness. docs/esa.md gives the parameter rules.
"""

from __future__ import annotations

import math

from ldpcore.errors import InputError, check_eps, require

EPS_F_RULES = ("paper", "equal-variance", "manual")


def _logaddexp(a: float, b: float) -> float:
    hi, lo = max(a, b), min(a, b)
    return hi + math.log1p(math.exp(lo - hi))


def eps_of_t(eps_b: float, eps_f: float, t: int) -> float:
    """Theorem IV.1: LDP of any t fragments, ln((e^(eps_b+t eps_f)+1)/(e^eps_b+e^(t eps_f))).

    At most min(eps_b, t eps_f); zero-out-DP whenever the backstop is.
    """
    return _logaddexp(eps_b + t * eps_f, 0.0) - _logaddexp(eps_b, t * eps_f)


def equal_variance_eps_f(eps_b: float, tau: int) -> float:
    """Solve e^eps_f/(e^eps_f-1)^2 = tau e^eps_b/(e^eps_b+1)^2 for eps_f (docs/esa.md).

    The fragment layer's variance (averaged over tau) then equals the backstop's.
    """
    target = tau * math.exp(eps_b - 2 * _logaddexp(eps_b, 0.0))
    # ln g(e^u) = u - 2 ln(e^u - 1) = -u - 2 ln(1 - e^-u) decreases on u > 0 from +inf to -inf.
    g = lambda u: -u - 2 * math.log(-math.expm1(-u)) - math.log(target)  # noqa: E731
    from scipy.optimize import brentq  # imported on first use: it costs about a second

    return brentq(g, 1e-12, 800.0, xtol=1e-14)


def choose_eps_f(eps_b: float, tau: int, rule: str = "paper", eps_f: float | None = None) -> float:
    """The fragment epsilon by rule: 'paper' eps_b - ln tau, 'equal-variance', or 'manual'."""
    require(int(tau) == tau and tau >= 1, f"tau (report fragments) must be a whole number >= 1 (got {tau}).")
    if rule == "paper":
        value = eps_b - math.log(tau)
        require(
            value > 0,
            f"the paper's rule eps_f = eps_b - ln(tau) = {eps_b:.3f} - ln({tau}) is <= 0; "
            "use the equal-variance rule or a manual eps_f.",
        )
        return value
    if rule == "equal-variance":
        return equal_variance_eps_f(eps_b, tau)
    if rule == "manual":
        if eps_f is None:
            raise InputError("the manual rule needs a value for eps_f.")
        return check_eps(eps_f, "eps_f")
    raise InputError(f"unknown eps_f rule {rule!r}; choose one of {', '.join(EPS_F_RULES)}.")
