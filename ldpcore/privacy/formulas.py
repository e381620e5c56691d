"""The formulas of the registered amplification bounds (ldpcore.privacy.bounds registers them): for each
closed form its forward map eps0 -> eps_c, its inverse where it has one and its validity region in eps0 (a reason
instead of a number outside it); for a bound given by a privacy curve delta(eps; eps0, n) the forward, inverse,
certify and region functions built from the curve (ldpcore.privacy.clones, ldpcore.privacy.tight). Each section
names its paper, theorem and equation; docs/accountants.md derives them."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ldpcore.errors import InputError, check_whole, require
from ldpcore.privacy import clones, tight

EPS0_MIN, EPS0_MAX = 1e-6, 100.0  # numeric bounds are evaluated for eps0 in [EPS0_MIN, EPS0_MAX]


def check_k(k, bound: str = "", required: bool = False) -> int | None:
    """The domain size k: a whole number >= 2, or None unless the bound requires it."""
    if k is None:
        require(not required, f"{bound} needs the domain size k (--domain).")
        return None
    return check_whole(k, 2, "the domain size k")


# --- EFMRTT'19 (Erlingsson et al. 2019 Theorem 8): any eps0-LDP randomizers, shuffled before randomizing ---


def efmrtt_forward(eps0, n, delta, k):
    return 12 * eps0 * math.sqrt(math.log(1 / delta) / n)


def efmrtt_inverse(eps_c, n, delta, k):
    return eps_c / (12 * math.sqrt(math.log(1 / delta) / n))


def efmrtt_region(n, delta, k):
    if n < 1000:
        return 0.0, 0.0, f"too few respondents for amplification: Theorem 8 needs n >= 1000 (n={n:,})."
    if delta >= 0.01:
        return 0.0, 0.0, f"Theorem 8 needs delta < 1/100 (delta={delta:g})."
    return 0.0, 0.5, ""  # 0 < eps0 < 1/2 (open_top)


# --- Cheu et al. (Erlingsson et al. 2020 Lemma II.6): binary RR with flip probability lambda/(2n) ---


def cheu_eps_of_lambda(lam: float, n: int, delta: float) -> float:
    """eps_c of shuffled binary RR flipping w.p. lambda/(2n), lambda in [14 ln(4/delta), n]."""
    m = lam - math.sqrt(2 * lam * math.log(2 / delta))
    return math.sqrt(32 * math.log(4 / delta) / m) * (1 - m / n)


def cheu_forward(eps0, n, delta, k):
    return cheu_eps_of_lambda(2 * n / (math.exp(eps0) + 1), n, delta)


def cheu_inverse(eps_c, n, delta, k):
    """Lemma II.6 solved exactly: with m = lambda - sqrt(2 lambda ln(2/delta)) and C = 32 ln(4/delta),
    eps_c^2 m = C (1 - m/n)^2 is a quadratic in m (take the root in (0, n]); then sqrt(lambda)
    solves s^2 - sqrt(2 ln(2/delta)) s - m = 0, and eps0 = ln(2n/lambda - 1)."""
    c, b2 = 32 * math.log(4 / delta), 2 * math.log(2 / delta)
    b = 2 * c / n + eps_c**2
    m = 2 * c / (b + math.sqrt(b * b - 4 * c * c / n**2))  # the smaller root, stably
    s = (math.sqrt(b2) + math.sqrt(b2 + 4 * m)) / 2
    return math.log(2 * n / (s * s) - 1)


def cheu_region(n, delta, k):
    lam_min = 14 * math.log(4 / delta)
    if n <= lam_min:
        return (
            0.0,
            0.0,
            (
                f"too few respondents for amplification: Lemma II.6 needs n > 14 ln(4/delta) = "
                f"{lam_min:.1f} at delta={delta:g} (n={n:,})."
            ),
        )
    # eps0 = ln(2n/lambda - 1); lambda = n gives eps0 = 0 (coin flips) with eps_c > 0.
    return 0.0, math.log(2 * n / lam_min - 1), ""


# --- ESA Theorem III.1: the closed form of the same lemma ---


def thm31_forward(eps0, n, delta, k):
    return math.sqrt(64 * math.exp(eps0) * math.log(4 / delta) / n)


def thm31_region(n, delta, k):
    hi = math.log(n) - math.log(14 * math.log(4 / delta))
    if hi < 1:
        return (
            0.0,
            0.0,
            (
                f"too few respondents for amplification: Theorem III.1 needs ln n - ln(14 ln(4/delta)) >= 1 "
                f"(n={n:,}, delta={delta:g} give {hi:.3g})."
            ),
        )
    return 1.0, hi, ""


# --- FMT'21 closed form (docs/accountants.md) ---


def fmt_closed_forward(eps0, n, delta, k):
    e = math.exp(eps0)
    return math.log1p(math.tanh(eps0 / 2) * (8 * math.sqrt(e * math.log(4 / delta) / n) + 8 * e / n))


def fmt_closed_region(n, delta, k):
    hi = math.log(n / (16 * math.log(2 / delta)))
    if hi <= 0:
        return (
            0.0,
            0.0,
            (
                f"too few respondents for amplification: the clones closed form needs "
                f"n > 16 ln(2/delta) = {16 * math.log(2 / delta):.1f} (n={n:,})."
            ),
        )
    return 0.0, hi, ""


# --- Balle et al. k-RR closed form = shuffled GRR; SOLH is GRR on the hash range d' ---


def blanket_a(eps_c: float, n: int, delta: float) -> float:
    """A = (n-1) eps_c^2/(14 ln(2/delta)) = e^eps0 + k - 1 at eps_c (docs/encodings.md)."""
    return (n - 1) * eps_c**2 / (14 * math.log(2 / delta))


def blanket_limit(delta: float) -> float:
    """The largest eps_c of the k-RR blanket closed form: min(1, 14 ln(2/delta)/27) (Balle et al. 2019
    Theorem 3.1 needs eps_c <= 1 and gamma >= 27k/((n-1) eps_c))."""
    return min(1.0, 14 * math.log(2 / delta) / 27)


def krr_forward(eps0, n, delta, k):
    return math.sqrt(14 * math.log(2 / delta) * (math.exp(eps0) + k - 1) / (n - 1))


def krr_eps0(eps_c: float, n: int, delta: float, k: int | None) -> float:
    """The k-RR blanket closed form solved for eps0: ln(A - k + 1) (T. Wang et al. 2019, Theorem 1); A > k is
    the caller's, and so is k (the k-RR bound requires it)."""
    if k is None:
        raise InputError("the k-RR blanket bound needs the domain size k (--domain).")
    return math.log(blanket_a(eps_c, n, delta) - k + 1)


def blanket_region(n, delta, k, floor_k, what, inverse):
    """[0, inverse at blanket_limit] for a k-RR blanket bound, or why it is empty: with A at the limit
    <= floor_k (the alphabet at eps0 = 0), even eps0 = 0 exceeds the limit."""
    cap = blanket_limit(delta)
    if n < 2 or blanket_a(cap, n, delta) <= floor_k:
        floor = math.sqrt(14 * math.log(2 / delta) * floor_k / max(n - 1, 1))
        return (
            0.0,
            0.0,
            (
                f"too few respondents for amplification: {what} gives eps_c >= sqrt(14 ln(2/delta) "
                f"{floor_k}/(n-1)) = {floor:.4g} even at eps0 = 0, above its limit {cap:.4g} (n={n:,})."
            ),
        )
    return 0.0, inverse(cap, n, delta, k), ""


def krr_region(n, delta, k, name):
    k = check_k(k, name, required=True)
    return blanket_region(n, delta, k, k, "the k-RR blanket", krr_eps0)


def solh_hash_range(x: float, k: int | None) -> int:
    """Hash range d' at e^eps0 = x: k if fixed, else ceil((x-1)/2) >= 2.

    At fixed eps_c the variance-optimal range is d' = (A+2)/3 with e^eps0 = A - d' + 1
    (T. Wang et al. 2019), i.e. d' = (e^eps0 + 1)/2; this rule stays within 1 below it and is
    non-decreasing, so the forward is monotone and has an exact inverse.
    """
    return k if k is not None else max(2, math.ceil((x - 1) / 2))


def solh_forward(eps0, n, delta, k):
    return krr_forward(eps0, n, delta, solh_hash_range(math.exp(eps0), k))


def solh_inverse(eps_c, n, delta, k):
    """Largest x = e^eps0 with x + d'(x) - 1 <= A: d' = ceil((A+2)/3) - 1 (= floor((A+2)/3) unless an integer)."""
    if k is not None:
        return krr_eps0(eps_c, n, delta, k)
    a = blanket_a(eps_c, n, delta)
    d = max(2, math.ceil((a + 2) / 3) - 1)
    return math.log(min(a - d + 1, 2 * d + 1))  # x in (2d-1, 2d+1] maps to d


def solh_region(n, delta, k):
    k = check_k(k)
    return blanket_region(n, delta, k, k or 2, "SOLH", solh_inverse)


def solh_extra(eps0, n, delta, k):
    return {"hash_range": solh_hash_range(math.exp(eps0), k)}


# --- bounds given as a privacy curve delta(eps; eps0, n): ldpcore.privacy.clones, ldpcore.privacy.tight ---


def curve_bound(
    curve: Callable[[float, float, int, int | None], float],
    uses_k: bool = False,
    grid: Callable[[np.ndarray, float, int, int | None], np.ndarray] | None = None,
) -> dict:
    """forward_fn, region_fn, inverse_fn and certify_fn of a bound given by its privacy curve delta(eps; eps0, n, k).

    The region is [EPS0_MIN, EPS0_MAX]: below, eps0-LDP alone already gives eps_c < 1e-6;
    above, nothing is left to amplify. uses_k: k (optional) selects a k-specific curve, else it
    is ignored.
    """

    def forward(eps0, n, delta, k, rtol=0.0):
        return tight.smallest_eps(lambda e: curve(e, eps0, n, k), eps0, delta, rtol)

    def inverse(eps_c, n, delta, k, rtol=0.0):
        if rtol > 0:
            return tight.largest_eps0(lambda e0: curve(eps_c, e0, n, k), eps_c, EPS0_MAX, delta, rtol, rtol / 4)
        return tight.largest_eps0(lambda e0: curve(eps_c, e0, n, k), eps_c, EPS0_MAX, delta)

    def certify(eps_c, eps0, n, delta, k):
        return curve(eps_c, eps0, n, k) <= delta

    def region(n, delta, k):
        if uses_k:
            check_k(k)
        return EPS0_MIN, EPS0_MAX, ""

    def on_grid(eps, eps0, n, k, floor):
        if grid is not None:
            return grid(np.atleast_1d(eps), eps0, n, k)
        return np.array([curve(float(e), eps0, n, k) for e in np.atleast_1d(eps)])

    return dict(
        forward_fn=forward, region_fn=region, inverse_fn=inverse, certify_fn=certify, solves=True, curve_fn=on_grid
    )


def clones_curve(p_clone: Callable[[float], float]) -> dict:
    return curve_bound(
        lambda eps, eps0, n, k: clones.clones_delta(eps, eps0, n, p_clone(eps0)),
        grid=lambda eps, eps0, n, k: clones.clones_curve(eps, eps0, n, p_clone(eps0)),
    )


# --- the exact curve of one attribute-fragment channel: ldpcore.privacy.tight ---


def tight_region(n, delta, k):
    if n < 2:
        return 0.0, 0.0, f"the exact curve needs n >= 2 respondents: one alone has nobody to hide among (n={n:,})."
    if n > tight.N_MAX:
        return 0.0, 0.0, f"the exact curve takes n <= {tight.N_MAX:,} respondents (n={n:,})."
    return EPS0_MIN, EPS0_MAX, ""


def worst_counts(worst, n) -> dict:
    """How many of the other n-1 respondents hold the target's value in the worst case found (a range when
    a block of such counts was bounded at once)."""
    return {"worst_c": [worst.ones, worst.ones + (n - 1 - worst.crowd)]}


def tight_forward(eps0, n, delta, rtol=0.0):
    eps_c, worst = tight.removal_forward(eps0, n, delta, rtol)
    return eps_c, worst_counts(worst, n)


def tight_inverse(eps_c, n, delta, hi, rtol=0.0):
    eps0, worst = tight.removal_inverse(eps_c, n, delta, hi, rtol)
    return eps0, worst_counts(worst, n)
