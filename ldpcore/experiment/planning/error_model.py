"""The error model: from each distinct count's analytic variance (the oracle's own, ldpcore.oracles.base.
grouped_variance), the predicted raw RMSE per bin, the expected l_inf error, the top-k recall, the central
Gaussian baseline, and plug-in standard errors and confidence intervals of an estimate. Nothing here is O(d)
beyond the plug-in intervals of one estimate."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import erfc

from ldpcore.experiment.planning.shapes import Groups
from ldpcore.oracles.base import FrequencyOracle, grouped_variance
from ldpcore.privacy.central import analytic_gaussian_sigma

Z95 = 1.959963984540054  # the two-sided 95% normal quantile
LINF_NOTE = (
    "expected largest per-bin error of the raw estimate, from independent Gaussian errors with the "
    "analytic per-bin variances: E max_j |e_j| = integral of 1 - prod_j P(|e_j| <= t) dt"
)
NO_TOPK = "no top-k recall: no bin holds 1% of the respondents, or the largest counts tie beyond 10 bins"
HEAVY_SHARE = 0.01  # a heavy hitter holds at least this share of the respondents
TOPK_MAX = 10  # top-k recall: k = the heavy hitters, at most this many
TOPK_NOTE = (
    "expected fraction of the true top k bins (k: the bins holding at least 1% of the respondents, at most 10, "
    "fewer where the k-th and (k+1)-th counts tie) that are among the k largest estimates, with every bin's "
    "estimate an independent normal of its count and the oracle's analytic variance: P(bin i in the estimated "
    "top k) = E P(fewer than k other estimates exceed X_i), counted exactly over the 2k largest bins and as a "
    "Poisson count over the others"
)


def variances(oracle: FrequencyOracle, groups: Groups) -> np.ndarray:
    """Each distinct count's per-bin variance, at a cost independent of d (the oracle's grouped variance: a
    sketch's depends on the other counts through collisions, every other encoding's on the bin's own)."""
    return grouped_variance(oracle, groups.n, groups.values, groups.bins)


def spread(var: np.ndarray, groups: Groups) -> tuple[float, float]:
    """(root mean variance, expected max |error|) from each distinct count's variance (variances) and how
    many bins hold it: the l_inf integral runs over distinct counts only."""
    mult = groups.bins
    rmse = math.sqrt(float(np.dot(var, mult)) / float(mult.sum()))
    sd = np.sqrt(np.maximum(var, 0.0))
    keep = sd > 0
    sd, mult = sd[keep], mult[keep]
    if sd.size == 0:
        return rmse, 0.0
    # quantise the standard deviations upwards on a log grid (<= 0.2% each): few distinct values to integrate
    q = np.exp(np.ceil(np.log(sd) / 0.002) * 0.002)
    sd, inverse = np.unique(q, return_inverse=True)
    mult = np.bincount(inverse, weights=mult)
    top = float(sd.max())
    t = np.linspace(0.0, top * (math.sqrt(2 * math.log(2 * mult.sum())) + 7.0), 801)[1:]
    with np.errstate(divide="ignore"):
        log_cdf = (mult[:, None] * np.log1p(-erfc(t[None, :] / (sd[:, None] * math.sqrt(2))))).sum(axis=0)
    tail = -np.expm1(log_cdf)  # P(max > t)
    dt = t[1] - t[0]
    linf = float(dt * (1.0 + tail[0]) / 2 + np.trapezoid(tail, t))
    return rmse, linf


# the normal upper tail on a table (linear interpolation, error < 4e-6): np.interp is many times cheaper than erfc
_TAIL_Z = np.linspace(-9.0, 9.0, 3601)
_TAIL = 0.5 * erfc(_TAIL_Z / math.sqrt(2))
_NODES = np.linspace(-6.0, 6.0, 41)  # a top bin's standardised estimate: equally spaced quadrature nodes
_WEIGHTS = np.exp(-(_NODES**2) / 2) / np.exp(-(_NODES**2) / 2).sum()
_SURE = 8.0  # standard deviations beyond which a normal estimate is taken as certainly above or below (1e-15)
_CLUSTER = 0.2  # the other bins are pooled by count in widths of this many of their smallest standard deviation,
_POOLS = 256  # into at most about this many pools


def _upper(z):
    """P(Z > z) for a standard normal Z."""
    return np.interp(z, _TAIL_Z, _TAIL)


def heavy_k(groups: Groups) -> int | None:
    """The k of the top-k recall (TOPK_NOTE), None without heavy hitters."""
    values, mult, n = groups.values, groups.bins, groups.n  # ascending
    if values[-1] < HEAVY_SHARE * n:
        return None
    cap = min(int(mult[values >= HEAVY_SHARE * n].sum()), TOPK_MAX, groups.d - 1)
    ends = np.cumsum(mult[::-1])  # bins down to each distinct count, largest first: a true top k ends at one
    fits = ends[ends <= cap]
    return int(fits[-1]) if fits.size else None


def topk_recall(var: np.ndarray, groups: Groups, k: int) -> float:
    """The predicted top-k recall of TOPK_NOTE from each distinct count's variance (variances). A top bin whose
    estimate is 8 standard deviations clear of every bin outside the top k is in the estimated top k (error
    < 1e-8 at d = 10^7); for each other top bin, the mean over its estimate x (quadrature) of P(fewer than k
    of the other bins exceed x), with the 2k largest bins counted one by one (Poisson-binomial), the rest
    pooled by count into a Poisson count. Nothing here is O(d)."""
    values = groups.values[::-1].astype(np.float64)  # largest first
    sd = np.sqrt(np.maximum(var[::-1], 0.0)) + 1e-9 * (1.0 + values)  # > 0: a zero variance is a step
    mult = groups.bins[::-1]
    head = min(2 * k, groups.d)
    ends = np.cumsum(mult)
    last = int(np.searchsorted(ends, head))  # the head's bins lie in the distinct counts [0, last]
    take = np.minimum(mult[: last + 1], head - np.r_[0.0, ends[:last]]).astype(np.int64)
    at = np.repeat(np.arange(last + 1), take)
    c, s = values[at], sd[at]
    rest = mult.copy()
    rest[: last + 1] -= take
    tail = np.flatnonzero(rest > 0)
    outside = max(
        (c[k:] + _SURE * s[k:]).max(initial=-math.inf), (values[tail] + _SURE * sd[tail]).max(initial=-math.inf)
    )
    unsure = np.flatnonzero(c[:k] - _SURE * s[:k] <= outside)
    if not unsure.size:
        return 1.0
    x = c[unsure, None] + s[unsure, None] * _NODES  # (unsure, nodes): their estimates
    lo, hi = x.min(), x.max()
    room = k - int(np.count_nonzero(c - _SURE * s > hi))  # fewer than room of the others may exceed x
    mid = np.flatnonzero((c - _SURE * s <= hi) & (c + _SURE * s >= lo))  # the head bins that may or may not
    p = _upper((x[None] - c[mid, None, None]) / s[mid, None, None])  # (mid, unsure, nodes): mid bin above x
    p[np.searchsorted(mid, unsure), np.arange(unsure.size)] = 0.0  # a bin does not compete with itself
    below = np.zeros(x.shape + (room,))  # P(exactly r of the mid bins exceed x), r < room
    below[..., 0] = 1.0
    for pj in p:
        moved = below * pj[..., None]
        below -= moved
        below[..., 1:] += moved[..., :-1]
    tail = tail[(lo - values[tail]) / sd[tail] < _SURE]  # the pooled bins that may exceed x
    lam = np.zeros(x.shape)
    if tail.size:
        m, ct, st = rest[tail], values[tail], sd[tail]
        width = max(_CLUSTER * st.min(), (ct[0] - ct[-1]) / _POOLS)
        key = np.floor((ct[0] - ct) / width).astype(np.int64)  # ct descending: key ascending
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        weight = np.add.reduceat(m, starts)
        centre = np.add.reduceat(m * ct, starts) / weight
        spread = np.sqrt(np.add.reduceat(m * st**2, starts) / weight)
        reach = x < (centre + spread * _SURE).max()
        z = (x[reach][None] - centre[:, None]) / spread[:, None]
        lam[reach] = weight @ _upper(z)
    term = np.empty(x.shape + (room,))  # P(Poisson(lam) = j), j < room
    term[..., 0] = np.exp(-lam)
    for j in range(1, room):
        term[..., j] = term[..., j - 1] * lam / j
    at_most = np.cumsum(term, axis=-1)[..., ::-1]  # at_most[..., r] = P(Poisson(lam) <= room - 1 - r)
    inside = (below * at_most).sum(axis=-1) @ _WEIGHTS  # P(each unsure top bin is in the estimated top k)
    return float(np.clip((k - unsure.size + inside.sum()) / k, 0.0, 1.0))


def rmse_of(var: np.ndarray, groups: Groups) -> float:
    return math.sqrt(float(np.dot(var, groups.bins)) / float(groups.bins.sum()))


def error_of(var: np.ndarray, groups: Groups, kind: str) -> float:
    """The predicted error of a target kind ('rmse', 'relative_rmse', 'linf') from the variances."""
    if kind == "linf":
        return spread(var, groups)[1]
    rmse = rmse_of(var, groups)
    return rmse if kind == "rmse" else rmse * groups.d / groups.n


def central_rmse(eps_c: float, delta: float, notion: str, rounds: int = 1) -> tuple[float, str]:
    """The analytic Gaussian mechanism's sigma (= its RMSE per bin) at (eps_c, delta): L2 sensitivity 1
    under zero-out (one count down), sqrt(2) under replacement (one count down, another up); over `rounds`
    releases with the same sigma (a Gaussian of sensitivity sqrt(rounds) times as large, exactly), (eps_c, delta)
    is their total."""
    words = "sqrt(2) (replacement)" if notion == "replacement" else "1 (zero-out)"
    sensitivity = (math.sqrt(2) if notion == "replacement" else 1.0) * math.sqrt(rounds)
    over = "" if rounds == 1 else f", each of {rounds:,} rounds (sensitivity sqrt({rounds:,}) times as large)"
    return analytic_gaussian_sigma(eps_c, delta, sensitivity), f"analytic Gaussian, L2 sensitivity {words}{over}"


def standard_errors(oracle, n: int, estimate: np.ndarray, upper: float | None = None) -> np.ndarray:
    """Per-bin standard errors of an unbiased estimate by plug-in: the oracle's analytic variance at the
    estimate clipped to [0, upper] (default n) and rounded to whole counts."""
    upper = n if upper is None else upper
    plug = np.rint(np.clip(np.asarray(estimate, dtype=np.float64), 0, upper)).astype(np.int64)
    return np.sqrt(np.maximum(np.broadcast_to(oracle.variance(n, plug), plug.shape), 0.0))


def confidence_intervals(oracle, n: int, estimate: np.ndarray, level_z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) normal confidence intervals of every bin: estimate -+ z x plug-in standard error."""
    se = standard_errors(oracle, n, estimate)
    estimate = np.asarray(estimate, dtype=np.float64)
    return estimate - level_z * se, estimate + level_z * se
