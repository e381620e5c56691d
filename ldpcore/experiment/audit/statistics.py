"""Statistics of an audit: Clopper-Pearson limits of the error rates and the empirical epsilon they give.

Any test telling D from a neighbour D' with false positive rate a and false negative rate b under an
(eps, delta)-DP mechanism has a + e^eps b >= 1 - delta and b + e^eps a >= 1 - delta (Kairouz, Oh, Viswanath,
"The composition theorem for differential privacy", ICML 2015, Sec. 2). With Clopper-Pearson upper limits
a+, b+ of the measured rates, eps_lower = max(ln((1 - delta - b+)/a+), ln((1 - delta - a+)/b+)) holds at the
stated confidence (Jagielski, Ullman, Oprea, NeurIPS 2020). The threshold is chosen on one half of the trials
and measured on the other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import beta

from ldpcore.errors import check_delta, require

DEFAULT_CONFIDENCE = 0.95
CANDIDATES = 2000  # thresholds tried on the selection half: spread evenly in ln(1 + errors) of both kinds


def clopper_pearson_upper(errors, trials: int, alpha: float) -> np.ndarray:
    """The upper (1 - alpha) Clopper-Pearson limit of a binomial rate with `errors` of `trials`:
    the (1 - alpha) quantile of Beta(errors + 1, trials - errors), 1 when errors = trials
    (Clopper, Pearson, "The use of confidence or fiducial limits illustrated in the case of the
    binomial", Biometrika 1934)."""
    k = np.asarray(errors, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(k >= trials, 1.0, beta.ppf(1 - alpha, k + 1, np.maximum(trials - k, 1)))


def eps_of_rates(a, b, delta: float) -> np.ndarray:
    """max(ln((1 - delta - b)/a), ln((1 - delta - a)/b)), 0 where neither is positive."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        one = np.where((a > 0) & (1 - delta - b > 0), np.log(np.maximum(1 - delta - b, 1e-300) / a), 0.0)
        two = np.where((b > 0) & (1 - delta - a > 0), np.log(np.maximum(1 - delta - a, 1e-300) / b), 0.0)
    return np.maximum(np.maximum(one, two), 0.0)


@dataclass(frozen=True, eq=False)
class Tally:
    """Trials of one half as a histogram of the statistic: values ascending (a larger value is
    more likely under H1), counts under H0 and under H1. A test rejects H0 when statistic >= t."""

    values: np.ndarray
    h0: np.ndarray
    h1: np.ndarray

    @classmethod
    def from_scores(cls, s0: np.ndarray, s1: np.ndarray) -> Tally:
        both = np.concatenate((s0, s1))
        if np.issubdtype(both.dtype, np.integer) and both.size and both.max() - both.min() < 10**7:
            lo = int(both.min())
            c0 = np.bincount(s0 - lo, minlength=int(both.max()) - lo + 1)
            c1 = np.bincount(s1 - lo, minlength=c0.size)
            keep = (c0 + c1) > 0
            return cls(np.flatnonzero(keep).astype(np.float64) + lo, c0[keep], c1[keep])
        values, inverse = np.unique(both, return_inverse=True)
        return cls(
            values.astype(np.float64),
            np.bincount(inverse[: s0.size], minlength=values.size),
            np.bincount(inverse[s0.size :], minlength=values.size),
        )

    @property
    def t0(self) -> int:
        return int(self.h0.sum())

    @property
    def t1(self) -> int:
        return int(self.h1.sum())

    def sweep(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(thresholds, false positives, false negatives) for t = each value and +inf (reject nothing)."""
        fp = np.concatenate((np.cumsum(self.h0[::-1])[::-1], [0]))
        fn = np.concatenate(([0], np.cumsum(self.h1)))
        return np.concatenate((self.values, [np.inf])), fp, fn

    def at(self, threshold: float) -> tuple[int, int]:
        """(false positives, false negatives) of the test statistic >= threshold."""
        reject = self.values >= threshold
        return int(self.h0[reject].sum()), int(self.h1[~reject].sum())

    def merged(self, other: Tally) -> Tally:
        values = np.union1d(self.values, other.values)
        h0, h1 = np.zeros(values.size, dtype=np.int64), np.zeros(values.size, dtype=np.int64)
        for t in (self, other):
            at = np.searchsorted(values, t.values)
            h0[at] += t.h0
            h1[at] += t.h1
        return Tally(values, h0, h1)


@dataclass(frozen=True)
class EmpiricalBound:
    """The empirical epsilon of one attack: eps_lower holds with probability >= confidence.

    threshold: the test rejects H0 when the statistic is >= threshold (chosen on the first half of
    the trials); fpr, fnr: its error rates measured on the second half (`measured` trials per
    hypothesis); fpr_upper, fnr_upper: their Clopper-Pearson upper limits, each at
    1 - (1 - confidence)/2."""

    eps_lower: float
    threshold: float
    fpr: float
    fnr: float
    fpr_upper: float
    fnr_upper: float
    trials: int
    measured: int
    confidence: float
    delta: float

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def check_confidence(confidence) -> float:
    try:
        value = float(confidence)
    except (TypeError, ValueError):
        value = math.nan
    require(0 < value < 1, f"confidence must lie strictly between 0 and 1 (got {confidence}).")
    return value


def choose_and_measure(select: Tally, measure: Tally, delta: float, confidence: float) -> EmpiricalBound:
    """Choose the threshold with the largest bound on `select`, report the bound it has on `measure`.

    The choice uses Clopper-Pearson limits corrected for the number of thresholds tried (Bonferroni),
    so a threshold that looks good by chance in a thin tail is not preferred to a well-measured one;
    the bound reported is measured on the other half at the stated confidence."""
    alpha = (1 - confidence) / 2
    thresholds, fp, fn = select.sweep()
    if thresholds.size > 2 * CANDIDATES:  # neighbouring thresholds give the same bound: keep ~CANDIDATES
        scale = CANDIDATES / math.log1p(max(select.t0, select.t1))
        key = np.floor(np.log1p(fp) * scale).astype(np.int64) * (CANDIDATES + 2) + np.floor(np.log1p(fn) * scale)
        _, keep = np.unique(key, return_index=True)
        thresholds, fp, fn = thresholds[keep], fp[keep], fn[keep]
    tried = alpha / thresholds.size
    eps = eps_of_rates(clopper_pearson_upper(fp, select.t0, tried), clopper_pearson_upper(fn, select.t1, tried), delta)
    threshold = float(thresholds[int(np.argmax(eps))])
    false_pos, false_neg = measure.at(threshold)
    a_up = float(clopper_pearson_upper(false_pos, measure.t0, alpha))
    b_up = float(clopper_pearson_upper(false_neg, measure.t1, alpha))
    return EmpiricalBound(
        float(eps_of_rates(a_up, b_up, delta)),
        threshold,
        false_pos / measure.t0,
        false_neg / measure.t1,
        a_up,
        b_up,
        select.t0 + measure.t0,
        measure.t0,
        confidence,
        delta,
    )


def empirical_epsilon(scores_h0, scores_h1, delta: float, confidence: float = DEFAULT_CONFIDENCE) -> EmpiricalBound:
    """The empirical epsilon of any threshold attack from per-trial scores (a larger score is more
    likely under H1): the threshold is chosen on the first half of each array, measured on the second."""
    s0, s1 = np.asarray(scores_h0), np.asarray(scores_h1)
    require(
        s0.ndim == 1 and s1.ndim == 1 and min(s0.size, s1.size) >= 2,
        "the scores of each hypothesis must be a 1-D array of at least 2 trials.",
    )
    delta, confidence = check_delta(delta), check_confidence(confidence)
    h0, h1 = s0.size // 2, s1.size // 2
    return choose_and_measure(
        Tally.from_scores(s0[:h0], s1[:h1]), Tally.from_scores(s0[h0:], s1[h1:]), delta, confidence
    )
