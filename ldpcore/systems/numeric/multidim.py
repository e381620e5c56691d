"""d attributes per respondent (N. Wang, Xiao, Yang, Zhao, Hui, Shin, Shin, Yu, Collecting and Analyzing
Multidimensional Data with Local Differential Privacy (ICDE 2019), Sec. IV; docs/systems.md "Numeric and
multidimensional data").

Duchi et al.'s d-dimensional mechanism (Algorithm 3), the paper's Algorithm 4 (k sampled
attributes through PM or HM at eps/k, scaled by d/k, the rest reported as 0) and its
extension to categorical attributes, which go through OUE at eps/k (Sec. IV-C).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, gammaln, log_expit, logsumexp

from ldpcore.data.numeric_table import NumericTable
from ldpcore.data.scaling import unit_values
from ldpcore.errors import check_eps, check_whole, require
from ldpcore.systems.numeric.mechanisms import duchi_b, eps_array, get_mechanism

ALGORITHM4_MECHANISMS = ("pm", "hm")


def _tuples(values) -> np.ndarray:
    t = unit_values(values)
    require(
        t.ndim == 2 and t.shape[0] >= 1 and t.shape[1] >= 1,
        f"tuples must form an (n, d) array with n, d >= 1 (got shape {t.shape}).",
    )
    return t


def _log_binom(n, k):
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)


def _random_subsets(sizes: np.ndarray, d: int, rng: np.random.Generator) -> np.ndarray:
    """(n, d) bool; row i marks a uniformly random subset of sizes[i] of the d columns
    (the columns whose rank in an independent random permutation is below sizes[i])."""
    ranks = rng.permuted(np.broadcast_to(np.arange(d), (len(sizes), d)), axis=1)
    return ranks < np.asarray(sizes)[:, None]


# --- Duchi et al., d dimensions (Algorithm 3) -------------------------------------------
#
# Given v in {-1, 1}^d, an output s in {-B, B}^d agreeing with v on m coordinates has
# s.v = B(2m - d). Algorithm 3 picks s uniformly from T+ = {s.v >= 0} w.p. pi = e^eps/(e^eps+1),
# else from T- = {s.v <= 0}, so P(s | v) is proportional to pi (m > d/2), 1 - pi (m < d/2) and,
# for a tie m = d/2 (even d only), pi + (1 - pi) = 1. A tie is then e^eps + 1 times likelier
# under one input than a disagreeing output under another: for even d Algorithm 3 as printed
# is only ln(1 + e^eps)-LDP. ties="half" (the default) gives ties the weight 1/2 instead,
# between 1 - pi and pi, which makes every ratio at most e^eps; ties carry no signal
# (their sum of s_j is 0), so the estimate stays unbiased, now with C_d = 2^(d-1)/binom(d-1,
# floor((d-1)/2)) for every d, below Eq. 9's for even d. ties="both" is N. Wang et al. 2019 as printed.

DUCHI_TIES = {"half": 0.5, "both": 1.0}
DUCHI_TIES_NOTE = (
    "**Duchi's d-dimensional mechanism and ties.** Algorithm 3 of Wang et al. (ICDE 2019) puts the outputs s "
    "with s.v = 0 (possible for even d) in both T+ and T-; as printed it is then only ln(1 + e^eps)-LDP, not "
    'eps-LDP. The library gives those ties weight 1/2 instead (ties="half", the default), which is '
    "eps-LDP and keeps the estimate unbiased."
)


def _tie_weight(ties: str) -> float:
    require(ties in DUCHI_TIES, f"ties must be one of {', '.join(DUCHI_TIES)} (got {ties!r}).")
    return DUCHI_TIES[ties]


def duchi_cd(d: int, ties: str = "half") -> float:
    """C_d via log-gamma. ties="both": Eq. 9, 2^(d-1)/binom(d-1, (d-1)/2) for odd d and
    (2^(d-1) + binom(d, d/2)/2)/binom(d-1, d/2) for even d; ties="half": the odd-d form for all d."""
    d = check_whole(d, 1, "d (attributes)")
    top = (d - 1) * math.log(2)
    if d % 2 == 0 and _tie_weight(ties) == 1.0:
        top = np.logaddexp(top, _log_binom(d, d // 2) - math.log(2))
    return math.exp(top - _log_binom(d - 1, (d - 1) // 2))


def duchi_md_b(eps, d: int, ties: str = "half"):
    """B = (e^eps + 1)/(e^eps - 1) C_d (Eq. 10): every report lies in {-B, B}^d."""
    return duchi_b(eps) * duchi_cd(d, ties)


def duchi_md_randomize(values, eps: float, rng: np.random.Generator, ties: str = "half") -> np.ndarray:
    """Algorithm 3 per tuple in O(d): draw v (v_j = +1 w.p. (1 + t_j)/2), then the number m of
    coordinates where s agrees with v, P(m) ~ binom(d, m) times pi, 1 - pi or the tie weight,
    then which m coordinates agree, uniformly. Reports are (n, d) in {-B, B}^d."""
    t, eps = _tuples(values), check_eps(eps, "eps")
    n, d = t.shape
    m = np.arange(d + 1)
    log_w = np.where(2 * m > d, log_expit(eps), np.where(2 * m < d, log_expit(-eps), math.log(_tie_weight(ties))))
    log_p = _log_binom(d, m) + log_w
    v = rng.random((n, d)) < (1 + t) / 2
    agree = _random_subsets(rng.choice(m, size=n, p=np.exp(log_p - logsumexp(log_p))), d, rng)
    b = duchi_md_b(eps, d, ties)
    return np.where(agree == v, b, -b)


def duchi_md_variance(t, eps, d: int, ties: str = "half"):
    """B^2 - t_j^2 per coordinate (Eq. 13)."""
    t = unit_values(t, "t")
    return (duchi_md_b(eps, d, ties) ** 2 - t**2)[()]


# --- Algorithm 4 ------------------------------------------------------------------------


def algorithm4_k(eps: float, d: int) -> int:
    """k = max(1, min(d, floor(eps/2.5))) sampled attributes (Eq. 12)."""
    eps, d = check_eps(eps, "eps"), check_whole(d, 1, "d (attributes)")
    return max(1, min(d, math.floor(eps / 2.5)))


def algorithm4_randomize(values, eps: float, rng: np.random.Generator, mechanism: str = "pm") -> np.ndarray:
    """Algorithm 4 on (n, d) tuples: k attributes sampled without replacement per tuple,
    each reported as (d/k) x with x from PM or HM at eps/k, the others as 0."""
    t = _tuples(values)
    mech = get_mechanism(mechanism, ALGORITHM4_MECHANISMS)
    n, d = t.shape
    k = algorithm4_k(eps, d)
    sampled = _random_subsets(np.full(n, k), d, rng)
    reports = np.zeros((n, d))
    reports[sampled] = d / k * mech.randomize(t[sampled], eps / k, rng)
    return reports


def algorithm4_variance(t, eps: float, d: int, mechanism: str = "pm"):
    """(d/k)(sigma^2(t) + t^2) - t^2 with sigma^2 the 1-D variance at eps/k (Lemma 6, Eqs. 14-15)."""
    t = unit_values(t, "t")
    k = algorithm4_k(eps, d)
    sigma2 = get_mechanism(mechanism, ALGORITHM4_MECHANISMS).variance(t, eps / k)
    return (d / k * (sigma2 + t**2) - t**2)[()]


def algorithm4_worst_variance(eps: float, d: int, mechanism: str = "pm") -> float:
    """The larger of the variance at t = 0 and |t| = 1 (it is affine in t^2); N. Wang et al. 2019 Fig. 3
    divides it by Duchi's B^2."""
    return float(max(algorithm4_variance(0.0, eps, d, mechanism), algorithm4_variance(1.0, eps, d, mechanism)))


# --- categorical attributes (Sec. IV-C) -------------------------------------------------


def oue_probabilities(eps):
    """OUE (Wang et al. 2017, the paper's [38]) keeps the true bit w.p. p = 1/2 and sets
    every other bit w.p. q = 1/(e^eps + 1): (p, q)."""
    return 0.5, expit(-eps_array(eps))[()]


def oue_frequency_variance(f, eps: float, n: int, d: int = 1, k: int = 1):
    """Var of one frequency estimate when k of d attributes are sent, each through OUE at eps/k:
    (1/n)[(d/k) 4e^(eps/k)/(e^(eps/k) - 1)^2 + (2d/k - 1) f] (docs/systems.md). d = k = 1 is
    plain OUE; k = d splits the budget over every attribute."""
    f = np.asarray(f, dtype=np.float64)
    require(bool(np.all((f >= 0) & (f <= 1))), "frequencies must lie in [0, 1].")
    n, d, k = check_whole(n, 1, "n (respondents)"), check_whole(d, 1, "d (attributes)"), check_whole(k, 1, "k")
    require(k <= d, f"k must be at most d={d} (got {k}).")
    x = eps_array(eps) / k
    return ((d / k * 4 * np.exp(x) / np.expm1(x) ** 2 + (2 * d / k - 1) * f) / n)[()]


@dataclass(frozen=True, eq=False)
class TableReports:
    """Algorithm 4's reports on a NumericTable (Sec. IV-C), in column order numeric then categorical.

    sampled: (n, d) bool, the k attributes each respondent sent. numeric: (n, d_num), (d/k) x
    for a sampled numeric attribute (x from PM or HM at eps/k), else 0. bits: per categorical
    attribute, (n, m) OUE bits at eps/k, all False for respondents who did not send it.
    """

    sampled: np.ndarray
    numeric: np.ndarray
    bits: tuple[np.ndarray, ...]
    eps: float
    k: int
    mechanism: str


def randomize_table(table: NumericTable, eps: float, rng: np.random.Generator, mechanism: str = "pm") -> TableReports:
    """Algorithm 4 extended to categorical attributes (Sec. IV-C): eps-LDP per respondent."""
    mech = get_mechanism(mechanism, ALGORITHM4_MECHANISMS)
    n, d, d_num = table.n, table.d, table.d_numeric
    k = algorithm4_k(eps, d)
    sampled = _random_subsets(np.full(n, k), d, rng)
    numeric = np.zeros((n, d_num))
    chosen = sampled[:, :d_num]
    numeric[chosen] = d / k * mech.randomize(table.numeric[chosen], eps / k, rng)
    p, q = oue_probabilities(eps / k)
    bits = []
    for j, m in enumerate(table.domains):
        y = rng.random((n, m)) < q
        y[np.arange(n), table.categorical[:, j]] = rng.random(n) < p
        bits.append(y & sampled[:, d_num + j, None])
    return TableReports(sampled, numeric, tuple(bits), float(eps), k, mechanism)


def estimate_frequencies(reports: TableReports) -> tuple[np.ndarray, ...]:
    """Per categorical attribute, f_v = (d/(k n)) sum over its reports of (y[v] - q)/(p - q) (Sec. IV-C)."""
    n, d = reports.sampled.shape
    d_num = reports.numeric.shape[1]
    p, q = oue_probabilities(reports.eps / reports.k)
    return tuple(
        d / (reports.k * n) * (y.sum(axis=0) - reports.sampled[:, d_num + j].sum() * q) / (p - q)
        for j, y in enumerate(reports.bits)
    )
