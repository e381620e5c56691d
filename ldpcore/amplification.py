"""Amplification by shuffling: local eps0 of n shuffled reports -> central (eps_c, delta).

A ``Bound`` is separate from any mechanism's parameters (as in Balle et al.'s
shuffleddp): it has a forward map eps0 -> eps_c, a validity region in eps0 (a reason
instead of a number outside it), the neighbouring notion and a citation. The inverse
(eps_c -> the largest valid eps0 whose certified eps_c <= target) is generic: bracket
and bisect, then step to the conservative side. Results are frozen ``Amplification``
objects, never bare floats. spec/amplification.md lists the bounds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from scipy.optimize import brentq

from .errors import InputError, check_delta, check_eps, require


@dataclass(frozen=True)
class Amplification:
    """One evaluation of a bound: eps0 local, eps_c central at (n, delta).

    valid is False (and reason says why) where the bound certifies nothing; eps_c is
    then None. capped is True when an inverse hit the top of the validity region, so
    the certified eps_c is below the target asked for.
    """

    bound: str
    eps0: float | None
    eps_c: float | None
    n: int
    delta: float
    neighbouring: str
    citation: str
    valid: bool = True
    reason: str = ""
    capped: bool = False
    target_eps_c: float | None = None

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class Bound:
    """A shuffle amplification bound.

    forward(eps0, n, delta, k) -> eps_c, increasing in eps0.
    region(n, delta, k) -> (lo, hi, reason): the eps0 interval where the bound holds,
    or reason != "" if it holds nowhere for these (n, delta, k).
    """

    name: str
    title: str
    citation: str
    applies_to: str
    neighbouring: str
    forward_fn: Callable[[float, int, float, int | None], float]
    region_fn: Callable[[int, float, int | None], tuple[float, float, str]]

    def _result(self, eps0, eps_c, n, delta, **kw) -> Amplification:
        return Amplification(self.name, eps0, eps_c, n, delta, self.neighbouring, self.citation, **kw)

    def forward(self, eps0: float, n: int, delta: float, k: int | None = None) -> Amplification:
        """Central eps_c of n shuffled eps0-LDP reports, or not valid with a reason."""
        eps0, n, delta = check_eps(eps0, "eps0"), _check_n(n), check_delta(delta)
        lo, hi, reason = self.region_fn(n, delta, k)
        if not reason and not lo <= eps0 <= hi:
            reason = f"{self.title} holds for eps0 in [{lo:.4g}, {hi:.4g}] at n={n:,}, delta={delta:g}; eps0={eps0:.4g} is outside."
        if reason:
            return self._result(eps0, None, n, delta, valid=False, reason=reason)
        return self._result(eps0, self.forward_fn(eps0, n, delta, k), n, delta)

    def inverse(self, eps_c: float, n: int, delta: float, k: int | None = None) -> Amplification:
        """The largest eps0 the bound certifies at eps_c (conservative side)."""
        eps_c, n, delta = check_eps(eps_c), _check_n(n), check_delta(delta)
        lo, hi, reason = self.region_fn(n, delta, k)
        if reason:
            return self._result(None, None, n, delta, valid=False, reason=reason, target_eps_c=eps_c)
        f = lambda e: self.forward_fn(e, n, delta, k)  # noqa: E731
        if f(lo) > eps_c:
            return self._result(None, None, n, delta, valid=False, target_eps_c=eps_c, reason=(
                f"{self.title} cannot certify eps_c={eps_c:g} at n={n:,}, delta={delta:g}: its smallest "
                f"certified value is {f(lo):.4g} (at eps0={lo:.4g}); raise eps_c or n."))
        if f(hi) <= eps_c:
            return self._result(hi, f(hi), n, delta, capped=True, target_eps_c=eps_c)
        eps0 = brentq(lambda e: f(e) - eps_c, lo, hi, xtol=1e-13, rtol=1e-15, maxiter=500)
        while f(eps0) > eps_c:  # land on the conservative side
            eps0 = math.nextafter(eps0, -math.inf)
        return self._result(eps0, f(eps0), n, delta, target_eps_c=eps_c)


def _check_n(n) -> int:
    require(float(n) == int(n) and int(n) >= 1, f"n (respondents) must be a whole number >= 1 (got {n}).")
    return int(n)


# --- Cheu et al. (seeds/000 Lemma II.6): binary RR with flip probability lambda/(2n) ---

def cheu_eps_of_lambda(lam: float, n: int, delta: float) -> float:
    """eps_c of shuffled binary RR flipping w.p. lambda/(2n), lambda in [14 ln(4/delta), n]."""
    m = lam - math.sqrt(2 * lam * math.log(2 / delta))
    return math.sqrt(32 * math.log(4 / delta) / m) * (1 - m / n)


def _cheu_forward(eps0, n, delta, k):
    return cheu_eps_of_lambda(2 * n / (math.exp(eps0) + 1), n, delta)


def _cheu_region(n, delta, k):
    lam_min = 14 * math.log(4 / delta)
    if n <= lam_min:
        return 0.0, 0.0, (f"too few respondents for amplification: Lemma II.6 needs n > 14 ln(4/delta) = "
                          f"{lam_min:.1f} at delta={delta:g} (n={n:,}).")
    # eps0 = ln(2n/lambda - 1); lambda = n gives eps0 = 0 (coin flips) with eps_c > 0.
    return 0.0, math.log(2 * n / lam_min - 1), ""


# --- ESA Theorem III.1: the closed form of the same lemma ---

def _thm31_forward(eps0, n, delta, k):
    return math.sqrt(64 * math.exp(eps0) * math.log(4 / delta) / n)


def _thm31_region(n, delta, k):
    hi = math.log(n) - math.log(14 * math.log(4 / delta))
    if hi < 1:
        return 0.0, 0.0, (f"too few respondents for amplification: Theorem III.1 needs ln n - ln(14 ln(4/delta)) >= 1 "
                          f"(n={n:,}, delta={delta:g} give {hi:.3g}).")
    return 1.0, hi, ""


BOUNDS: dict[str, Bound] = {}
ALIASES = {"paper": "cheu19", "lemma-ii.6": "cheu19", "thm3.1": "esa-thm3.1"}


def register(bound: Bound) -> Bound:
    BOUNDS[bound.name] = bound
    return bound


register(Bound(
    "cheu19", "Lemma II.6 (Cheu et al.)",
    "Erlingsson et al., Encode, Shuffle, Analyze Privacy Revisited (2020), Lemma II.6, from "
    "Cheu, Smith, Ullman, Zeber, Zhilyaev, Distributed differential privacy via shuffling (EUROCRYPT 2019)",
    "binary randomized response (one attribute-fragment channel)", "removal",
    _cheu_forward, _cheu_region))
register(Bound(
    "esa-thm3.1", "Theorem III.1 closed form",
    "Erlingsson et al., Encode, Shuffle, Analyze Privacy Revisited (2020), Theorem III.1",
    "binary randomized response (one attribute-fragment channel)", "removal",
    _thm31_forward, _thm31_region))


def get_bound(name: str) -> Bound:
    """A bound by name or alias (see BOUNDS)."""
    key = ALIASES.get(name, name)
    if key not in BOUNDS:
        raise InputError(f"unknown accountant {name!r}; choose one of {', '.join(sorted(BOUNDS))}.")
    return BOUNDS[key]
