"""Post-processing of a frequency estimate: what the analyst knows beyond the reports (every count is
at least 0, they add up to n, a per-bin cap) and the likelihood of what the analyzer saw.

Every method is a pure, vectorised function of the raw unbiased estimate (counts, one per bin) and n;
the likelihood methods also take the law of the support counts the estimator reads (the encoding's
capability ldpcore.oracles.base.support_law: a SupportLaw), from which the support counts are recovered
exactly (the estimate is affine in them). None draws random
numbers. Each is equivariant under a permutation of the bins (permute the input, the output is
permuted alike): it is an elementwise map of one or two scalars found from the whole estimate.

| name | method | every count >= 0 | total |
|---|---|---|---|
| clip | Base-Pos: max(c, 0) (and min(., upper)) | yes | free |
| norm-sub | Norm-Sub: max(c - t, 0) with t such that the total is n | yes | n |
| norm-cut | Norm-Cut: negative and the smallest positive counts set to 0 until the total is at most n | yes | <= n |
| simplex | Euclidean projection onto {0 <= x <= upper, total n} | yes | n |
| ibu | iterative Bayesian update (each report names one value: GRR, MURS on GRR) | yes | n |
| mle | maximum likelihood over {x >= 0, total n} | yes | n |

The first four are from Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li, *Locally differentially private
frequency estimation with consistency* (NDSS 2020), the methods it names Base-Pos, Norm-Cut and Norm-Sub (Norm-Sub's
result is the Euclidean projection onto the simplex of total n, so `simplex` differs from it only through
the cap: with upper >= n they are the same point). The iterative Bayesian update is the reconstruction of
Agrawal and Srikant, *Privacy-preserving data mining* (SIGMOD 2000: the reconstruction of the original
distribution), which Agrawal and Aggarwal, *On the design and quantification of privacy preserving data
mining algorithms* (PODS 2001), show to be an EM algorithm converging to the maximum-likelihood estimate;
ElSalamouny and Palamidessi, *Generalized iterative Bayesian update and applications to mechanisms for
privacy protection* (EuroS&P 2020) study it for local-DP mechanisms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldpcore.errors import InputError, require
from ldpcore.oracles.laws import Unsupported
from ldpcore.oracles.support import SupportLaw

IBU_TOL = 1e-6  # ibu stops when the log-likelihood is certified within this many nats of its maximum
IBU_MAX_STEPS = 100_000  # updates (EM steps), SQUAREM's included
IBU_NEEDS = (
    "the iterative Bayesian update needs reports that each name one value (GRR, MURS on GRR); here a report "
    "supports several values: mle maximises their likelihood instead"
)


@dataclass(frozen=True)
class Postprocessing:
    """A post-processing method as a table, a page or the command line names it: title, citation, whether its
    output sums to n ('n', or 'at most n', or '' when free) and whether it needs the encoding's SupportLaw."""

    name: str
    title: str
    citation: str
    total: str
    needs_law: bool = False


NDSS20 = (
    "Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li, Locally differentially private frequency estimation with "
    "consistency, NDSS 2020"
)
METHODS: dict[str, Postprocessing] = {
    m.name: m
    for m in (
        Postprocessing("clip", "Base-Pos (clipped to [0, upper])", NDSS20, ""),
        Postprocessing("norm-sub", "Norm-Sub", NDSS20, "n"),
        Postprocessing("norm-cut", "Norm-Cut", NDSS20, "at most n"),
        Postprocessing("simplex", "Projection onto the simplex (capped at upper)", NDSS20, "n"),
        Postprocessing(
            "ibu",
            "Iterative Bayesian update",
            "Agrawal and Srikant, Privacy-preserving data mining, SIGMOD 2000; Agrawal and Aggarwal, PODS 2001 (as EM)",
            "n",
            needs_law=True,
        ),
        Postprocessing(
            "mle",
            "Maximum likelihood",
            "the support counts' likelihood (multinomial, or the bins' binomials as a composite likelihood)",
            "n",
            needs_law=True,
        ),
    )
}


def _raw(estimate) -> np.ndarray:
    out = np.asarray(estimate, dtype=np.float64)
    require(out.ndim == 1 and out.size >= 1, "an estimate is a 1-d array of at least one count.")
    require(bool(np.isfinite(out).all()), "an estimate must be finite to post-process.")
    return out


def _total(n) -> float:
    require(math.isfinite(n) and n > 0, f"the total n must be a number > 0 (got {n}).")
    return float(n)


def base_pos(estimate, upper: float | None = None) -> np.ndarray:
    """Base-Pos (Wang et al. 2020): every negative count set to 0, and (given a public cap upper,
    e.g. an image's largest pixel value) every count above it to upper."""
    return np.clip(_raw(estimate), 0.0, math.inf if upper is None else upper)


def _level(x: np.ndarray, n: float, upper: float) -> float:
    """The shift t with sum_v clip(x_v - t, 0, upper) = n, exactly, in O(d log d): that sum is continuous,
    piecewise linear and non-increasing in t with breakpoints x_v (a bin reaches 0) and x_v - upper (a bin
    leaves the cap); on the piece holding n the free bins F and the capped ones C are fixed, and
    t = (sum_F x_v + upper |C| - n) / |F|."""
    s = np.sort(x)  # ascending; s - upper is sorted alike
    d = s.size
    suffix = np.concatenate([np.cumsum(s[::-1])[::-1], [0.0]])  # suffix[i] = sum of s[i:]
    capped = math.isfinite(upper)
    points = np.sort(np.concatenate([s, s - upper])) if capped else s

    def pieces(t):  # (first free index, first capped index) for shifts t: s[hi:] > t, s[lo:] - upper >= t
        hi = np.searchsorted(s, t, side="right")
        lo = np.searchsorted(s - upper, t, side="left") if capped else np.full(np.shape(t), d)
        return hi, lo

    hi, lo = pieces(points)
    cap_part = upper * (d - lo) if capped else 0.0
    at = cap_part + suffix[hi] - suffix[lo] - points * (lo - hi)  # the sum at every breakpoint
    i = int(np.searchsorted(-at, -n, side="right")) - 1  # the last breakpoint with sum >= n
    if i < 0:  # n lies beyond the first breakpoint: every bin free (only without a cap)
        return float((suffix[0] - n) / d)
    if i == points.size - 1:
        return float(points[-1])  # only where n <= 0, refused by the callers
    mid = (points[i] + points[i + 1]) / 2
    h, low = (int(v) for v in pieces(mid))
    free = low - h
    if free == 0:  # the sum is flat (= n) on this piece
        return float(points[i])
    return float((suffix[h] - suffix[low] + (upper * (d - low) if capped else 0.0) - n) / free)


def simplex(estimate, n: float, upper: float | None = None) -> np.ndarray:
    """The Euclidean projection onto {x : 0 <= x_v <= upper, sum_v x_v = n}: x_v = clip(c_v - t, 0, upper)
    with t found exactly (_level). Without a cap (upper None, or >= n) it is Norm-Sub's point; the cap is a
    public bound on one bin (an image's largest pixel value) and needs d upper >= n."""
    x, total = _raw(estimate), _total(n)
    cap = math.inf if upper is None or upper >= total else float(upper)
    require(cap > 0 and x.size * cap >= total, f"no histogram of {x.size:,} bins capped at {cap:g} holds n = {n:g}.")
    return np.clip(x - _level(x, total, cap), 0.0, cap)


def norm_sub(estimate, n: float) -> np.ndarray:
    """Norm-Sub (Wang et al. 2020): one amount t subtracted from every count and the negative
    results set to 0, with t such that the total is n; the Euclidean projection onto the simplex of total n."""
    return simplex(estimate, n)


def norm_cut(estimate, n: float) -> np.ndarray:
    """Norm-Cut (Wang et al. 2020): the negative counts set to 0 and, if the positive ones add up to
    more than n, the smallest positive ones too, until the total is at most n: the counts at or above the
    smallest threshold whose kept total is at most n (equal counts are kept or dropped together, so the
    result does not depend on the order of the bins; a single count above n leaves nothing)."""
    x, total = _raw(estimate), _total(n)
    positive = np.maximum(x, 0.0)
    if positive.sum() <= total:
        return positive
    s = np.sort(x[x > 0])[::-1]  # descending
    kept = np.cumsum(s)
    ends = np.r_[s[1:] < s[:-1], True]  # the last of each run of equal counts
    fits = np.flatnonzero(ends & (kept <= total))
    if not fits.size:
        return np.zeros_like(x)
    return np.where(x >= s[fits[-1]], x, 0.0)


@dataclass(frozen=True)
class IbuFit:
    """ibu's result: the estimate (counts, total n), the updates made, the certified log-likelihood gap in
    nats at the stop (the maximum is at most this far above the result's) and whether it is below the
    tolerance asked for."""

    estimate: np.ndarray
    steps: int
    gap: float
    converged: bool


def _law_support(law: SupportLaw, estimate, n) -> tuple[np.ndarray, float]:
    x, total = _raw(estimate), _total(n)
    law.check(x.size)
    return law.support(x, total), total


def ibu(law: SupportLaw, estimate, n: float, tol: float = IBU_TOL, max_steps: int = IBU_MAX_STEPS) -> IbuFit:
    """Iterative Bayesian update (Agrawal and Srikant 2000; an EM algorithm for the multinomial likelihood,
    Agrawal and Aggarwal 2001) for a categorical law: from the uniform distribution,

        theta_x <- theta_x r_x,   r_x = sum_y (N_y / T) M[y, x] / (M theta)_y,   M[y, x] = base + gain [y = x],

    O(d) per step ((M theta)_y = base + gain theta_y). The log-likelihood L is concave on the simplex and
    T r_x is its gradient, so L* - L(theta) <= T (max_x r_x - 1) (the Frank-Wolfe duality gap, as
    sum_x theta_x r_x = 1): it stops when that certificate is at most tol nats, or after max_steps updates
    (converged False). Plain EM crawls where the maximum has bins at 0 (thousands of steps at d = 50), so the
    steps are extrapolated by SQUAREM (Varadhan and Roland, *Simple and globally convergent methods for
    accelerating the convergence of any EM algorithm*, Scandinavian Journal of Statistics 35, 2008, scheme
    S3): two updates, a step along them of length alpha <= -1, kept only where it stays positive and does
    not lower the likelihood below the second update's (else alpha is halved towards -1, which is the
    second update itself), then one more update. The limit is the maximum-likelihood estimate (mle)."""
    require(law.categorical, IBU_NEEDS)
    support, total = _law_support(law, estimate, n)
    require(float(support.sum()) > 0, "the iterative Bayesian update needs at least one report.")
    y = support / support.sum()

    def update(theta: np.ndarray) -> tuple[np.ndarray, float]:
        ratio = y / (law.base + law.gain * theta)
        r = law.base * ratio.sum() + law.gain * ratio
        out = theta * r
        return out / out.sum(), law.trials * (float(r.max()) - 1.0)  # the sum is 1 up to rounding

    def loglik(theta: np.ndarray) -> float:
        return float(np.dot(y, np.log(law.base + law.gain * theta)))

    theta, steps, gap = np.full(y.size, 1.0 / y.size), 0, math.inf
    while steps < max_steps:
        first, gap = update(theta)
        if gap <= tol:
            return IbuFit(total * theta, steps, gap, True)
        second, _ = update(first)
        steps += 2
        r = first - theta
        v = second - first - r
        vv = float(np.dot(v, v))
        alpha = min(-math.sqrt(float(np.dot(r, r)) / vv), -1.0) if vv > 0 else -1.0
        jump, floor = second, loglik(second)
        while alpha < -1.0:
            trial = theta - 2 * alpha * r + alpha * alpha * v
            if bool((trial > 0).all()) and loglik(trial / trial.sum()) >= floor:
                jump = trial / trial.sum()
                break
            alpha = (alpha - 1.0) / 2 if alpha < -1.02 else -1.0
        theta, _ = update(jump)
        steps += 1
    _, gap = update(theta)
    return IbuFit(total * theta, steps, gap, gap <= tol)


def mle(law: SupportLaw, estimate, n: float) -> np.ndarray:
    """The maximum-likelihood counts over {x >= 0, total n} given the support counts behind the estimate,
    found exactly from the Karush-Kuhn-Tucker conditions (the log-likelihood is concave in theta = x / n).

    Categorical law (multinomial): sum_y N_y log(base + gain theta_y) is maximal at
    theta_y = max(0, s N_y - base / gain) with s such that the total is 1 (the limit of ibu).
    Otherwise the bins' binomial laws (SupportLaw): for a multiplier mu each bin's
    N/pi - (T - N)/(1 - pi) = mu is one quadratic in pi = base + gain theta, mu pi^2 - (mu + T) pi + N = 0,
    whose root in [0, 1] falls as mu grows; theta_v(mu) = max(0, (pi_v - base) / gain), and mu is the root
    of sum_v theta_v(mu) = 1 (brentq, to rounding). The result is rescaled to total n exactly."""
    support, total = _law_support(law, estimate, n)
    theta = _categorical_mle(law, support) if law.categorical else _binomial_mle(law, support)
    return total * theta / theta.sum()


def _categorical_mle(law: SupportLaw, support: np.ndarray) -> np.ndarray:
    a = law.base / law.gain
    s = np.sort(support)[::-1]
    top = np.cumsum(s)
    k = np.arange(1, s.size + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = (1 + k * a) / top  # the s of the top-k active set
    active = np.flatnonzero((top > 0) & (scale * s > a))
    require(active.size > 0, "the maximum-likelihood estimate needs at least one support count above 0.")
    return np.maximum(scale[active[-1]] * support - a, 0.0)


def _binomial_mle(law: SupportLaw, support: np.ndarray) -> np.ndarray:
    trials = float(law.trials)

    def theta(mu: float) -> np.ndarray:
        b = mu + trials
        disc = np.sqrt(np.maximum(b * b - 4.0 * mu * support, 0.0))
        if b >= 0:
            with np.errstate(divide="ignore", invalid="ignore"):
                pi = np.where(b + disc > 0, 2.0 * support / (b + disc), 0.0)
        else:  # mu < -T: the positive root of the concave quadratic
            pi = (b - disc) / (2.0 * mu)
        return np.maximum((pi - law.base) / law.gain, 0.0)

    def excess(mu: float) -> float:
        return float(theta(mu).sum()) - 1.0

    e0 = excess(0.0)
    if e0 == 0.0:
        return theta(0.0)
    step = trials
    lo, hi = (0.0, step) if e0 > 0 else (-step, 0.0)
    for _ in range(200):  # excess falls from d (1 - base)/gain - 1 > 0 at -inf to -1 at +inf
        if excess(hi) < 0 < excess(lo):
            break
        step *= 2
        lo, hi = (hi, hi + step) if e0 > 0 else (lo - step, lo)
    else:
        raise InputError("the maximum-likelihood multiplier could not be bracketed (degenerate support counts).")
    from scipy.optimize import brentq  # on first use: scipy.optimize costs most of a second to import

    mu = brentq(excess, lo, hi, xtol=1e-12 * trials, rtol=4 * np.finfo(float).eps, maxiter=500)
    return theta(mu)


def check_method(name: str) -> Postprocessing:
    """The method of that name, or InputError naming the choices."""
    require(name in METHODS, f"unknown post-processing {name!r}; choose one of {', '.join(METHODS)}.")
    return METHODS[name]


def why_not(name: str, law: SupportLaw | Unsupported | None) -> str:
    """Why the method of that name does not apply to an encoding with this support law ("" where it does)."""
    method = check_method(name)
    if not method.needs_law:
        return ""
    if law is None:
        return f"{method.title} needs the law of the encoding's support counts"
    if isinstance(law, Unsupported):
        return f"{method.title} is not defined here: {law.reason}"
    return IBU_NEEDS if name == "ibu" and not law.categorical else ""


def postprocess(
    name: str, estimate, n: float, upper: float | None = None, law: SupportLaw | Unsupported | None = None
) -> np.ndarray:
    """The estimate post-processed by the method of that name (METHODS); upper: the public cap of one bin
    (clip, simplex); law: the encoding's support law (ibu, mle), or why it has none (why_not). An ibu that has
    not converged is refused."""
    reason = why_not(name, law)
    require(not reason, reason + ".")
    if METHODS[name].needs_law:
        assert isinstance(law, SupportLaw)
        if name == "mle":
            return mle(law, estimate, n)
        fit = ibu(law, estimate, n)
        require(
            fit.converged,
            f"the iterative Bayesian update did not converge in {fit.steps:,} updates "
            f"(log-likelihood gap {fit.gap:.3g} nats > {IBU_TOL:g}); use mle, its limit.",
        )
        return fit.estimate
    if name == "clip":
        return base_pos(estimate, upper)
    if name == "norm-sub":
        return norm_sub(estimate, n)
    if name == "norm-cut":
        return norm_cut(estimate, n)
    return simplex(estimate, n, upper)
