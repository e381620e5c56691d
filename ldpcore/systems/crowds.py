"""Crowd IDs (Erlingsson, Feldman, Mironov, Raghunathan, Song, Talwar, Thakurta, Encode, Shuffle, Analyze
Privacy Revisited (2020), Section V): randomized report deletion and the cost of partitions.

Algorithm 3 (randomized report deletion), per crowd i with n_i reports:
  n_hat_i = max{floor(n_i + Laplace(2/eps_cr) - (2/eps_cr) ln(2/delta_cr)), 0};
  if n_hat_i <= n_i drop n_i - n_hat_i uniformly chosen reports, else abort.
Rounding: the seed leaves n_hat_i real; we take the floor. It is post-processing of the
Laplace count (Theorem V.1 is unchanged), it never makes n_hat_i larger, so it aborts
less often than the real-valued rule ((delta_cr/4) e^(-eps_cr/2) per crowd instead of
delta_cr/4), and it drops at most one report more. Abort ends the whole run: nothing is
released (Deletion.aborted), but the per-crowd draws stay available for analysis.

Data-derived crowd IDs (Section V, "Data-derived Crowd IDs", cf. Tables VI-VII): the ID
costs eps_hat on top of the report's eps_l - eps_hat, and splitting a budget that way
never beats spending all of it on the report (crowd_id_split).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldpcore.errors import InputError, check_delta, check_eps, check_whole, require
from ldpcore.oracles.onehot import flip_probability

SOURCE = (
    "Erlingsson, Feldman, Mironov, Raghunathan, Song, Talwar and Thakurta, "
    "*Encode, Shuffle, Analyze Privacy Revisited* (2020), Section V"
)
# What the dashboard's Crowd IDs page says about each part (str.format fields in braces)
EXPLANATION = f"Reports annotated by a crowd ID are shuffled and analysed per crowd. {SOURCE}."
DELETION_HELP = (
    "The shuffler makes each crowd's size (eps_cr, delta_cr)-DP (Theorem V.1) by dropping n_i - n_hat_i "
    "random reports, n_hat_i = floor(n_i + Laplace(2/eps_cr) - (2/eps_cr) ln(2/delta_cr)); it aborts, "
    "releasing nothing, if n_hat_i > n_i. Theorem V.2: w.p. >= 1 - delta_cr no crowd loses more than "
    "(4/eps_cr) ln(2P/delta_cr) reports, here P = {crowds} crowds."
)
NATURAL_IDS_HELP = (
    "IDs the respondents reveal anyway (language, device, region) cost no budget. Estimated within its crowd "
    "D_i, a count has error about sqrt(|D_i|/e^eps_l) instead of sqrt(|D|/e^eps_l) over the whole data "
    "set: small crowds gain the most, sqrt(m) for m equal crowds (exact one-hot form shown)."
)
DATA_DERIVED_HELP = (
    "An ID hashed from the value itself (here a random hash of {values:,} values onto m = {m} IDs, "
    "{respondents:,} respondents with heavy-hitter data) is as sensitive as the value: it must be "
    "randomized at some eps_hat, and the report gets only eps_l - eps_hat. Each count is then estimated "
    "within its noisy crowd. Section V's conclusion: splitting the budget never pays; put all of eps_l on "
    "the report (cf. Tables VI-VII)."
)


def _shift(eps_cr: float, delta_cr: float) -> tuple[float, float]:
    """Laplace scale b = 2/eps_cr and the downward shift b ln(2/delta_cr)."""
    b = 2 / check_eps(eps_cr, "eps_cr")
    return b, b * math.log(2 / check_delta(delta_cr, "delta_cr"))


def _check_counts(counts, name: str = "counts") -> np.ndarray:
    c = np.asarray(counts)
    require(
        c.ndim == 1 and c.size >= 1 and np.issubdtype(c.dtype, np.integer) and bool(np.all(c >= 0)),
        f"{name} must be a non-empty 1-D array of whole numbers >= 0.",
    )
    return c.astype(np.int64)


@dataclass(frozen=True)
class Deletion:
    """One run of Algorithm 3: crowd sizes n and noisy targets n_hat (aborts where n_hat > n)."""

    n: np.ndarray
    n_hat: np.ndarray

    @property
    def aborts(self) -> np.ndarray:
        """Crowds whose noisy target exceeds their size (line 7 of Algorithm 3)."""
        return self.n_hat > self.n

    @property
    def aborted(self) -> bool:
        """True if any crowd aborts: the run releases nothing."""
        return bool(self.aborts.any())

    @property
    def dropped(self) -> np.ndarray:
        """n_i - n_hat_i reports dropped per crowd (0 where the crowd aborts)."""
        return np.where(self.aborts, 0, self.n - self.n_hat)


def parse_sizes(text: str) -> np.ndarray:
    """Crowd sizes from text such as "120000, 4500 800": whole numbers >= 0, separated by commas,
    semicolons or spaces (underscores allowed as digit separators)."""
    tokens = [t for t in str(text).replace(",", " ").replace(";", " ").split() if t]
    require(len(tokens) >= 1, "crowd sizes: give at least one whole number, e.g. 120000, 4500, 800.")
    sizes = []
    for t in tokens:
        try:
            sizes.append(int(t))
        except ValueError:
            raise InputError(f"crowd sizes must be whole numbers >= 0 ({t!r} is not).") from None
    require(min(sizes) >= 0, f"crowd sizes must be whole numbers >= 0 (got {min(sizes)}).")
    return np.array(sizes, dtype=np.int64)


def sample_deletion(counts, eps_cr: float, delta_cr: float, rng: np.random.Generator) -> Deletion:
    """Algorithm 3 on crowd sizes only (what the analyzer learns), vectorised over crowds."""
    n = _check_counts(counts)
    b, shift = _shift(eps_cr, delta_cr)
    n_hat = np.maximum(np.floor(n + rng.laplace(0.0, b, n.size) - shift), 0).astype(np.int64)
    return Deletion(n, n_hat)


def delete_reports(
    crowds, eps_cr: float, delta_cr: float, rng: np.random.Generator
) -> tuple[Deletion, list[np.ndarray] | None]:
    """Algorithm 3 on the reports themselves: each crowd keeps a uniformly chosen subset of
    n_hat_i of its reports (order preserved); None instead of the crowds on abort."""
    crowds = [np.asarray(c) for c in crowds]
    require(len(crowds) >= 1, "crowds must hold at least one crowd of reports.")
    deletion = sample_deletion(np.array([len(c) for c in crowds], dtype=np.int64), eps_cr, delta_cr, rng)
    if deletion.aborted:
        return deletion, None
    kept = [c[np.sort(rng.choice(len(c), size=m, replace=False))] for c, m in zip(crowds, deletion.n_hat)]
    return deletion, kept


def drop_bound(eps_cr: float, delta_cr: float, crowds: int) -> float:
    """Theorem V.2: w.p. >= 1 - delta_cr every one of the P crowds loses at most
    (4/eps_cr) ln(2P/delta_cr) reports. P (= crowds) is the number of crowds, i.e. of
    partitions {R_i}_{[P]} Algorithm 3 takes (the union bound in the proof, Appendix C).

    With floor rounding the bound holds whenever eps_cr <= 2 ln(4P), see drop_tail.
    """
    crowds = check_whole(crowds, 1, "crowds")
    eps_cr, delta_cr = check_eps(eps_cr, "eps_cr"), check_delta(delta_cr, "delta_cr")
    return 4 / eps_cr * math.log(2 * crowds / delta_cr)


def abort_probability(eps_cr: float, delta_cr: float) -> float:
    """P[one crowd aborts] = P[Laplace(b) >= shift + 1] = (delta_cr/4) e^(-eps_cr/2)."""
    b, shift = _shift(eps_cr, delta_cr)
    return 0.5 * math.exp(-(shift + 1) / b)


def drop_tail(x: float, eps_cr: float, delta_cr: float) -> float:
    """P[a crowd with more than x reports loses more than x] (x >= 0), exactly: the drop is
    ceil(W) for W = shift + Laplace(b) > -1, so this is P[W > floor(x)].

    At x = drop_bound(P) this is at most e^(eps_cr/2) delta_cr / (4 P^2), so the union
    over P crowds stays below delta_cr whenever eps_cr <= 2 ln(4P).
    """
    require(x >= 0, f"x must be >= 0 (got {x:g}).")
    b, shift = _shift(eps_cr, delta_cr)
    z = (math.floor(x) - shift) / b
    return 1 - 0.5 * math.exp(z) if z < 0 else 0.5 * math.exp(-z)


def expected_drops(n: int, eps_cr: float, delta_cr: float) -> float:
    """Exact E[dropped] for a crowd of n reports (0 on abort), in closed form:
    sum_{x=0}^{n-1} P[W > x], summed as two geometric series on each side of the shift."""
    n = check_whole(n, 0, "n")
    b, shift = _shift(eps_cr, delta_cr)
    x0 = min(math.ceil(shift), n)  # x = 0..x0-1 lie below the shift
    below = x0 - 0.5 * (math.exp((x0 - shift) / b) - math.exp(-shift / b)) / math.expm1(1 / b)
    above = 0.0 if n <= x0 else 0.5 * math.exp((shift - x0) / b) * math.expm1(-(n - x0) / b) / math.expm1(-1 / b)
    return below + above


@dataclass(frozen=True)
class DeletionGuarantees:
    """What Algorithm 3 promises for these crowd sizes at (eps_cr, delta_cr), exactly.

    bound: Theorem V.2's (4/eps_cr) ln(2P/delta_cr) for P crowds. expected_drops[i]: E[dropped]
    in crowd i. p_abort: P[one crowd aborts]; p_run_abort: P[some crowd aborts, so nothing is
    released]. p_exceed: P[some crowd loses more than the bound] (<= delta_cr whenever
    eps_cr <= 2 ln(4P), see drop_tail).
    """

    eps_cr: float
    delta_cr: float
    bound: float
    expected_drops: np.ndarray
    p_abort: float
    p_run_abort: float
    p_exceed: float


def deletion_guarantees(counts, eps_cr: float, delta_cr: float) -> DeletionGuarantees:
    """Theorems V.1-V.2 and the exact drop and abort probabilities for crowds of these sizes."""
    n = _check_counts(counts)
    crowds = n.size
    bound = drop_bound(eps_cr, delta_cr, crowds)
    p_abort = abort_probability(eps_cr, delta_cr)
    tail = drop_tail(bound, eps_cr, delta_cr)  # only crowds larger than the bound can lose more than it
    p_exceed = -math.expm1(np.count_nonzero(n > bound) * math.log1p(-tail))
    return DeletionGuarantees(
        eps_cr,
        delta_cr,
        bound,
        np.array([expected_drops(int(x), eps_cr, delta_cr) for x in n]),
        p_abort,
        -math.expm1(crowds * math.log1p(-p_abort)),
        p_exceed,
    )


# --- the cost of partitions ------------------------------------------------------------


def count_std(n, eps_l: float) -> np.ndarray:
    """Std of a one-hot count estimate from n eps_l-LDP reports: sqrt(n p(1-p))/(1-2p),
    p = 1/(1+e^eps_l) (ldpcore.oracles.onehot); about sqrt(n/e^eps_l) for large eps_l."""
    p = flip_probability(check_eps(eps_l, "eps_l"))
    return np.sqrt(np.asarray(n, dtype=np.float64) * p * (1 - p)) / (1 - 2 * p)


def partition_errors(sizes, eps_l: float) -> tuple[np.ndarray, float]:
    """Section V: a count in crowd D_i estimated from D_i alone vs from all of D, i.e.
    sqrt(|D_i|/e^eps_l) vs sqrt(|D|/e^eps_l) (exact one-hot form); sqrt(m) for m equal crowds."""
    sizes = _check_counts(sizes, "sizes")
    return count_std(sizes, eps_l), float(count_std(sizes.sum(), eps_l))


@dataclass(frozen=True)
class SplitComparison:
    """Std of every value's count estimate: whole (all eps_l on the report) vs split[g, v]
    (eps_hat[g] on a data-derived crowd ID, eps_l - eps_hat[g] on the report)."""

    eps_l: float
    eps_hat: np.ndarray
    whole: float
    split: np.ndarray

    @property
    def best_ratio(self) -> float:
        """The smallest split / whole over all splits and values (> 1: splitting never pays)."""
        return float(self.split.min() / self.whole)

    @property
    def ratios(self) -> np.ndarray:
        """split / whole per (eps_hat, value): above 1 wherever splitting costs accuracy."""
        return self.split / self.whole


def data_derived_ids(values: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """A data-derived crowd ID h(v) for each of ``values`` values: a uniformly random hash onto
    m >= 2 IDs (each value's ID independent and uniform), as ESA's hashing of the data."""
    values, m = check_whole(values, 1, "values"), check_whole(m, 2, "m (crowd IDs)")
    return rng.integers(0, m, values)


def crowd_id_split(counts, crowd_of, eps_l: float, eps_hat, m: int | None = None) -> SplitComparison:
    """The data-derived crowd-ID budget split of Erlingsson et al. 2020 Section V, per value.

    counts[v]: respondents holding value v (within one natural crowd); crowd_of[v] in
    0..m-1: the data-derived crowd ID h(v). (a) whole: one-hot report at eps_l, every
    count has variance n p(1-p)/(1-2p)^2. (b) split: the ID by m-ary randomized response
    at eps_hat (keep q = e^eps_hat/(e^eps_hat + m - 1), else each other ID w.p.
    s = (1-q)/(m-1)) and the one-hot report at eps_l - eps_hat (flip p); crowd i = h(v)
    is analysed alone, c_hat_v = (N_iv - p n_i)/((1-2p) q), unbiased with variance
      [p(1-p)(q (S_i - c_v) + s (n - S_i)) + c_v (q (1 - 3p(1-p)) - q^2 (1-2p)^2)] / ((1-2p) q)^2,
    S_i = |D_i|. This is smallest at S_i = 0, m = 2, where the ratio to (a) is
    (H+1)(E-1)^2/(H (E-H)^2) > 1 (E = e^eps_l, H = e^eps_hat): splitting never pays.
    """
    c = _check_counts(counts)
    ids = np.asarray(crowd_of)
    require(
        ids.shape == c.shape and np.issubdtype(ids.dtype, np.integer) and bool(np.all(ids >= 0)),
        "crowd_of must give a crowd ID >= 0 for every value.",
    )
    m = int(ids.max()) + 1 if m is None else int(m)
    require(
        m >= 2 and bool(np.all(ids < m)),
        f"the data-derived crowd IDs need m >= 2 crowds covering crowd_of (got m={m}).",
    )
    eps_l = check_eps(eps_l, "eps_l")
    h = np.atleast_1d(np.asarray(eps_hat, dtype=np.float64))
    require(bool(np.all((h > 0) & (h < eps_l))), f"every eps_hat must lie in (0, eps_l={eps_l:g}).")
    n = c.sum()
    require(n >= 1, "counts must hold at least one respondent.")
    size = np.bincount(ids, weights=c, minlength=m)[ids]  # S_i for each value's crowd
    q = (1 / (1 + (m - 1) * np.exp(-h)))[:, None]
    s = (1 - q) / (m - 1)
    p = np.array([flip_probability(eps_l - x) for x in h])[:, None]
    var = (
        p * (1 - p) * (q * (size - c) + s * (n - size)) + c * (q * (1 - 3 * p * (1 - p)) - q**2 * (1 - 2 * p) ** 2)
    ) / ((1 - 2 * p) * q) ** 2
    return SplitComparison(eps_l, h, float(count_std(n, eps_l)), np.sqrt(var))
