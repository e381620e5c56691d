"""Empirical privacy audits: what an observer of an ESA protocol can show it learns, beside what is certified.

An accountant's eps is an upper bound. An audit runs a distinguishing attack many times and
turns its error rates into a LOWER bound: any test telling a dataset D from a neighbour D'
with false positive rate a and false negative rate b under an (eps, delta)-DP mechanism has
a + e^eps b >= 1 - delta and b + e^eps a >= 1 - delta (Kairouz, Oh, Viswanath, "The
composition theorem for differential privacy", ICML 2015, Sec. 2, the hypothesis-testing
view). With T trials per hypothesis, Clopper-Pearson upper limits a+, b+ (the confidence split
between the two) give

    eps_lower = max(ln((1 - delta - b+) / a+), ln((1 - delta - a+) / b+)), 0 when not positive,

as in Jagielski, Ullman, Oprea, "Auditing differentially private machine learning: how private
is private SGD?" (NeurIPS 2020) and Nasr, Song, Thakurta, Papernot, Carlini, "Adversary
instantiation: lower bounds for differentially private machine learning" (IEEE S&P 2021). The
threshold of the test is chosen on one half of the trials and measured on the other, so the
choice does not inflate the confidence.

Observers (Erlingsson et al., "Encode, Shuffle, Analyze Privacy Revisited", 2020):
  server    no shuffler: one respondent's whole report, linked to them;
  shuffler  a captured shuffler: one attribute fragment (one bin's bit) or, with report
            fragments, one fragment; a single-message encoding's shuffler sees the whole report;
  analyst   the shuffled aggregate of all n respondents.
The server's and the shuffler's attacks are the likelihood-ratio tests on the report's
sufficient statistic, whose law is finite and drawn exactly (multinomial). The analyst's
attack draws only the bins the target touches with the exact aggregate samplers' laws
(binomial / multinomial), so its cost does not depend on n or d: the target's value v against
absence (removal, one-hot) or against another value v' (replacement), the other n - 1
respondents' data fixed at a worst case and stated (``ObserverAudit.others``).

Risk in words (``guessing_risk``): the probability that each observer's Bayes-optimal guess of
a target's value is right, the value drawn from the data's own distribution and the other
respondents known to the observer (the informed adversary of DP), against the guess from the
distribution alone, computed exactly (no sampling) as E_ref[max_v w_v L_v], the expected
largest of independent per-bin likelihood ratios under a reference report.

docs/audit.md says what these numbers mean and what they cannot show.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.signal import fftconvolve
from scipy.special import logsumexp
from scipy.stats import beta, binom

from ldpcore.data.loaders import Histogram, load_dataset
from ldpcore.errors import InputError, check_delta, check_whole, require
from ldpcore.experiment.spec import Plan, ProtocolSpec
from ldpcore.experiment.spec import plan as make_plan
from ldpcore.oracles import get_encoding
from ldpcore.oracles.direct import GRR
from ldpcore.oracles.fake_reports import MURS
from ldpcore.oracles.hadamard import Hadamard
from ldpcore.oracles.hashing import OLH
from ldpcore.oracles.onehot import OneHot
from ldpcore.oracles.unary import UnaryEncoding
from ldpcore.privacy import tight
from ldpcore.privacy.bounds import Amplification, Bound, get_bound

OBSERVERS = ("server", "shuffler", "analyst")
DEFAULT_TRIALS = 1_000_000
MIN_TRIALS, MAX_TRIALS = 100, 10_000_000
DEFAULT_CONFIDENCE = 0.95
CANDIDATES = 2000  # thresholds tried on the selection half: spread evenly in ln(1 + errors) of both kinds
CURVE_POINTS = 400  # a trade-off curve is thinned to about this many points for display
WINDOW_SD = 12.0  # binomial pmfs are kept on mean +- WINDOW_SD (sd + 1): the mass beyond is < 1e-30
DIRECT_CONVOLVE = 4_000_000  # longer convolutions use the FFT (absolute error ~1e-16 of the peak)


# --- statistics: Clopper-Pearson and the empirical epsilon -------------------------------------------------


def clopper_pearson_upper(errors, trials: int, alpha: float) -> np.ndarray:
    """The upper (1 - alpha) Clopper-Pearson limit of a binomial rate with `errors` of `trials`:
    the (1 - alpha) quantile of Beta(errors + 1, trials - errors), 1 when errors = trials
    (Clopper, Pearson, "The use of confidence or fiducial limits illustrated in the case of the
    binomial", Biometrika 1934)."""
    k = np.asarray(errors, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(k >= trials, 1.0, beta.ppf(1 - alpha, k + 1, np.maximum(trials - k, 1)))


def _eps_of_rates(a, b, delta: float) -> np.ndarray:
    """max(ln((1 - delta - b)/a), ln((1 - delta - a)/b)), 0 where neither is positive."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        one = np.where((a > 0) & (1 - delta - b > 0), np.log(np.maximum(1 - delta - b, 1e-300) / a), 0.0)
        two = np.where((b > 0) & (1 - delta - a > 0), np.log(np.maximum(1 - delta - a, 1e-300) / b), 0.0)
    return np.maximum(np.maximum(one, two), 0.0)


@dataclass(frozen=True, eq=False)
class _Tally:
    """Trials of one half as a histogram of the statistic: values ascending (a larger value is
    more likely under H1), counts under H0 and under H1. A test rejects H0 when statistic >= t."""

    values: np.ndarray
    h0: np.ndarray
    h1: np.ndarray

    @classmethod
    def from_scores(cls, s0: np.ndarray, s1: np.ndarray) -> _Tally:
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

    def merged(self, other: _Tally) -> _Tally:
        values = np.union1d(self.values, other.values)
        h0, h1 = np.zeros(values.size, dtype=np.int64), np.zeros(values.size, dtype=np.int64)
        for t in (self, other):
            at = np.searchsorted(values, t.values)
            h0[at] += t.h0
            h1[at] += t.h1
        return _Tally(values, h0, h1)


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


def _check_confidence(confidence) -> float:
    try:
        value = float(confidence)
    except (TypeError, ValueError):
        value = math.nan
    require(0 < value < 1, f"confidence must lie strictly between 0 and 1 (got {confidence}).")
    return value


def _bound(select: _Tally, measure: _Tally, delta: float, confidence: float) -> EmpiricalBound:
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
    eps = _eps_of_rates(clopper_pearson_upper(fp, select.t0, tried), clopper_pearson_upper(fn, select.t1, tried), delta)
    threshold = float(thresholds[int(np.argmax(eps))])
    fp, fn = measure.at(threshold)
    a_up = float(clopper_pearson_upper(fp, measure.t0, alpha))
    b_up = float(clopper_pearson_upper(fn, measure.t1, alpha))
    return EmpiricalBound(
        float(_eps_of_rates(a_up, b_up, delta)),
        threshold,
        fp / measure.t0,
        fn / measure.t1,
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
    delta, confidence = check_delta(delta), _check_confidence(confidence)
    h0, h1 = s0.size // 2, s1.size // 2
    return _bound(_Tally.from_scores(s0[:h0], s1[:h1]), _Tally.from_scores(s0[h0:], s1[h1:]), delta, confidence)


# --- trade-off curves ----------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TradeOff:
    """Points (fpr, fnr) of a family of tests, fpr decreasing: an attack's curve, or the exact one."""

    fpr: np.ndarray
    fnr: np.ndarray

    def as_dict(self) -> dict:
        return {"fpr": self.fpr.tolist(), "fnr": self.fnr.tolist()}


def _thin(fpr: np.ndarray, fnr: np.ndarray, points: int = CURVE_POINTS) -> TradeOff:
    """About `points` points at most, spread evenly in the log-odds of both rates (so both tails of the
    curve keep their detail, down to rates of 1e-12), the ends kept."""
    if fpr.size > points:

        def cell(rate):
            odds = np.log10(np.clip(rate, 1e-12, 1 - 1e-12)) - np.log10(np.clip(1 - rate, 1e-12, 1 - 1e-12))
            return np.floor((odds + 12) * points / 48).astype(np.int64)

        _, first = np.unique(cell(fpr) * (points + 1) + cell(fnr), return_index=True)
        keep = np.union1d(first, [0, fpr.size - 1])
        fpr, fnr = fpr[keep], fnr[keep]
    return TradeOff(fpr.astype(np.float64), fnr.astype(np.float64))


def _tally_curve(t: _Tally) -> TradeOff:
    _, fp, fn = t.sweep()
    return _thin(fp / t.t0, fn / t.t1)


def _exact_curve(pmf0: np.ndarray, pmf1: np.ndarray) -> TradeOff:
    """The likelihood-ratio tests' curve of two laws on one support ordered by increasing ratio."""
    fpr = np.concatenate((np.cumsum(pmf0[::-1])[::-1], [0.0]))
    fnr = np.concatenate(([0.0], np.cumsum(pmf1)))
    return _thin(np.clip(fpr, 0, 1), np.clip(fnr, 0, 1))


def dp_tradeoff(eps: float, delta: float, fpr) -> np.ndarray:
    """The smallest false negative rate an (eps, delta)-DP mechanism allows at each false positive
    rate: max(0, 1 - delta - e^eps fpr, e^-eps (1 - delta - fpr)) (Kairouz, Oh, Viswanath, "The
    composition theorem for differential privacy", ICML 2015, Sec. 2). Every attack's curve lies on
    or above it when the guarantee holds."""
    fpr = np.asarray(fpr, dtype=np.float64)
    return np.maximum(0.0, np.maximum(1 - delta - math.exp(eps) * fpr, math.exp(-eps) * (1 - delta - fpr)))


def _pair_eps(pmf0: np.ndarray, pmf1: np.ndarray, delta: float) -> float:
    """The exact eps at delta of the pair (pmf0, pmf1): the smallest eps with both hockey-stick
    divergences at e^eps at most delta (inf if mass without a finite ratio exceeds delta)."""
    both = (pmf0 > 0) & (pmf1 > 0)
    top = float(np.abs(np.log(pmf1[both]) - np.log(pmf0[both])).max()) if both.any() else 0.0

    def curve(eps: float) -> float:
        e = math.exp(eps)
        return max(float(np.maximum(pmf1 - e * pmf0, 0).sum()), float(np.maximum(pmf0 - e * pmf1, 0).sum()))

    top = top * (1 + 1e-12) + 1e-12
    if curve(top) > delta:
        return math.inf
    return tight.smallest_eps(curve, top, delta)


# --- binomial pmfs on windows ----------------------------------------------------------------------------


def _binomial_window(n: int, p: float) -> tuple[int, np.ndarray]:
    """(first k, P(Bin(n, p) = k) on mean +- WINDOW_SD (sd + 1) within 0..n)."""
    if n == 0:
        return 0, np.ones(1)
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    lo = max(0, math.floor(mean - WINDOW_SD * (sd + 1)))
    hi = min(n, math.ceil(mean + WINDOW_SD * (sd + 1)))
    return lo, binom.pmf(np.arange(lo, hi + 1), n, p)


def _convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.size * b.size <= DIRECT_CONVOLVE:
        return np.convolve(a, b)
    return np.maximum(fftconvolve(a, b), 0.0)


def _others_pmf(c: int, m: int, hi: float, lo: float) -> tuple[int, np.ndarray]:
    """(first k, pmf) of Y = Bin(c, hi) + Bin(m - c, lo): one bin's 1-count from the m other respondents,
    c of whom hold the bin's value."""
    k1, a = _binomial_window(c, hi)
    k2, b = _binomial_window(m - c, lo)
    return k1 + k2, _convolve(a, b)


def _with_bit(y: np.ndarray, p1: float) -> np.ndarray:
    """pmf of Y + Bern(p1) on the window of Y plus one."""
    return np.concatenate((y, [0.0])) * (1 - p1) + np.concatenate(([0.0], y)) * p1


# --- what an observer faces: the attacks -----------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Attack:
    """One observer's attack (``attack`` returns it beside its result): words for people, a sampler of
    both hypotheses' statistics, and the exact laws of the statistic (on one support ordered by
    increasing likelihood ratio) where known."""

    sees: str
    hypotheses: str
    statistic: str
    neighbouring: str
    draw: Callable[[np.random.Generator, int], tuple[np.ndarray, np.ndarray] | _Tally]
    exact: tuple[np.ndarray, np.ndarray] | None = None
    others: str = ""
    worst_c: int | None = None


def _categorical(pmf0: np.ndarray, pmf1: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The finite law of a report's sufficient statistic: its log-likelihood ratio ln(pmf1/pmf0) (the
    score a likelihood-ratio test thresholds), ascending, with the categories of equal ratio merged."""
    keep = (pmf0 > 0) | (pmf1 > 0)
    pmf0, pmf1 = pmf0[keep], pmf1[keep]
    with np.errstate(divide="ignore"):
        llr = np.log(pmf1) - np.log(pmf0)
    order = np.argsort(llr, kind="stable")
    llr, pmf0, pmf1 = llr[order], pmf0[order], pmf1[order]
    new = np.r_[True, np.diff(llr) > 1e-12 * np.maximum(1.0, np.abs(llr[1:]))]
    group = np.cumsum(new) - 1
    return llr[new], np.bincount(group, pmf0) / pmf0.sum(), np.bincount(group, pmf1) / pmf1.sum()


def _categorical_attack(pmf0, pmf1, **words) -> Attack:
    llr, p0, p1 = _categorical(np.asarray(pmf0, dtype=np.float64), np.asarray(pmf1, dtype=np.float64))
    return Attack(
        draw=lambda rng, size: _Tally(llr, rng.multinomial(size, p0), rng.multinomial(size, p1)),
        exact=(p0, p1),
        statistic="the exact log-likelihood ratio of the report",
        **words,
    )


def _independent_pair(a1: float, b1: float, a0: float, b0: float) -> tuple[np.ndarray, np.ndarray]:
    """Laws of two independent indicators (A, B) over (0,0), (0,1), (1,0), (1,1): A ~ Bern(a), B ~ Bern(b)."""

    def law(a, b):
        return np.array([(1 - a) * (1 - b), (1 - a) * b, a * (1 - b), a * b])

    return law(a0, b0), law(a1, b1)


def _fragment_counts(p_b: float, p_f: float, t: int, present: bool) -> np.ndarray:
    """Law of the 1s among t fragments of one bin's bit: backstop bit Bern(1 - p_b) if the value is there
    (present) else Bern(p_b), each fragment re-randomized with flip probability p_f."""
    j = np.arange(t + 1)
    one, zero = binom.pmf(j, t, 1 - p_f), binom.pmf(j, t, p_f)
    keep = 1 - p_b if present else p_b
    return keep * one + (1 - keep) * zero


def _base(oracle):
    """MURS: a respondent's report is its base oracle's (GRR or SOLH); the fakes are the shufflers'."""
    return oracle.oracle if isinstance(oracle, MURS) else oracle


def _local_attack(plan: Plan, observer: str) -> Attack:
    """The server's (or a captured shuffler's) likelihood-ratio test on one respondent's report."""
    oracle = _base(plan.oracle())
    if isinstance(oracle, OneHot):
        hyp = (
            "H1: the target holds value v; H0: the target is absent (sends the randomized all-zeros report). "
            "Only bin v's bits differ between the two."
        )
        if oracle.tau is None:
            sees = (
                "the target's whole report (every bin's bit)"
                if observer == "server"
                else "one attribute fragment of the target: bin v's bit (the shuffler of bin v)"
            )
            return _categorical_attack(
                [1 - oracle.p_b, oracle.p_b],
                [oracle.p_b, 1 - oracle.p_b],
                sees=sees,
                hypotheses=hyp,
                neighbouring="removal",
            )
        t = oracle.tau if observer == "server" else 1
        sees = (
            f"all {oracle.tau} report fragments of the target"
            if observer == "server"
            else "one report fragment of the target (the shuffler it was sent to)"
        )
        return _categorical_attack(
            _fragment_counts(oracle.p_b, oracle.p_f, t, False),
            _fragment_counts(oracle.p_b, oracle.p_f, t, True),
            sees=sees,
            hypotheses=hyp,
            neighbouring="removal",
        )
    sees = (
        "the target's report"
        if observer == "server"
        else "the target's report, linked to the target (a single-message encoding: the shuffler holds it whole)"
    )
    hyp = "H1: the target holds value v; H0: the target holds value v' (replacement)."
    words = dict(sees=sees, hypotheses=hyp, neighbouring="replacement")
    if isinstance(oracle, GRR):  # categories: report v', another value, v
        return _categorical_attack(
            [oracle.p, 1 - oracle.p - oracle.q, oracle.q], [oracle.q, 1 - oracle.p - oracle.q, oracle.p], **words
        )
    if isinstance(oracle, UnaryEncoding):  # (bit v, bit v')
        return _categorical_attack(*_independent_pair(oracle.p, oracle.q, oracle.q, oracle.p), **words)
    if isinstance(oracle, OLH):  # ([h(v) = y], [h(v') = y]); an ideal hash makes them independent
        return _categorical_attack(*_independent_pair(oracle.p, 1 / oracle.g, 1 / oracle.g, oracle.p), **words)
    if isinstance(oracle, Hadamard):  # ([j in C_v], [j in C_v']); |C_v & C_v'| = K/4 makes them independent
        return _categorical_attack(*_independent_pair(oracle.p, 0.5, 0.5, oracle.p), **words)
    raise InputError(f"the audit of one report supports {', '.join(LOCAL_ENCODINGS)}, not {plan.spec.encoding}.")


LOCAL_ENCODINGS = ("onehot", "grr", "oue", "sue", "olh", "solh", "hadamard", "murs")
ANALYST_ENCODINGS = ("onehot", "grr", "oue", "sue")


def _worst_c(plan: Plan) -> tuple[int, str]:
    """How many of the others hold the target's value in the tight accountant's worst case at the plan's
    eps_b (its extra["worst_c"], the start of the block found), and the words for it."""
    amp = _forward(get_bound("tight-binary-rr"), plan.eps_b, plan.n, plan.spec.delta, None)
    if not amp.valid:
        return (
            0,
            f"none of the other {plan.n - 1:,} respondents hold v (the tight accountant is not valid here: "
            f"{amp.reason})",
        )
    lo, hi = amp.extra["worst_c"]
    where = f"{lo:,}" if lo == hi else f"{lo:,} (of the block {lo:,}..{hi:,})"
    return lo, (
        f"{where} of the other {plan.n - 1:,} respondents hold v, the rest other values: the worst case "
        f"the tight accountant finds at eps_l = {plan.eps_b:.6g}, delta = {plan.spec.delta:g}"
    )


def _count_attack(m: int, c: int, hi: float, lo: float, p1: float, p0: float, **words) -> Attack:
    """One bin's count: Y = Bin(c, hi) + Bin(m - c, lo) from the others plus the target's bit, Bern(p1)
    under H1 and Bern(p0) under H0 (p1 > p0). Y is log-concave, so the likelihood ratio increases with
    the count and the count is the test's statistic."""

    def draw(rng, size):
        def one(p):
            return rng.binomial(c, hi, size) + rng.binomial(m - c, lo, size) + (rng.random(size) < p)

        return one(p0), one(p1)

    _, y = _others_pmf(c, m, hi, lo)
    return Attack(draw=draw, exact=(_with_bit(y, p0), _with_bit(y, p1)), worst_c=c, **words)


def _log_ratio_bit(k: np.ndarray, m: int, pi: float, p1: float, p0: float) -> np.ndarray:
    """ln P(Y + Bern(p1) = k)/P(Y + Bern(p0) = k) for Y ~ Bin(m, pi), from s(k)/s(k-1) = (m-k+1) pi/(k (1-pi))."""
    k = np.asarray(k, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_u = np.log(np.maximum(m - k + 1, 0)) + math.log(pi) - np.log(k) - math.log1p(-pi)  # ln s(k)/s(k-1)
        out = np.logaddexp(math.log(p1), math.log1p(-p1) + log_u) - np.logaddexp(math.log(p0), math.log1p(-p0) + log_u)
    return np.where(k == 0, math.log1p(-p1) - math.log1p(-p0), out)


def _analyst_attack(plan: Plan) -> Attack:
    """The analyst's likelihood-ratio test on the bins of the shuffled aggregate that the target touches."""
    oracle, n, m = plan.oracle(), plan.n, plan.n - 1
    sees = "the shuffled aggregate of all n respondents (1-reports per bin); only the target's bins are drawn"
    if isinstance(oracle, OneHot):
        c, others = _worst_c(plan)
        p_b, q_b = oracle.p_b, 1 - oracle.p_b
        hyp = (
            "H1: the target holds value v; H0: the target is absent (sends the randomized all-zeros report). "
            "Only bin v's count differs between the two."
        )
        if oracle.tau is None:
            return _count_attack(
                m,
                c,
                q_b,
                p_b,
                q_b,
                p_b,
                sees=sees,
                hypotheses=hyp,
                others=others,
                statistic="the 1-reports in bin v (the likelihood ratio increases with it)",
                neighbouring="removal",
            )
        tau, p_f = oracle.tau, oracle.p_f

        def draw(rng, size):
            def one(p):
                backstop = rng.binomial(c, q_b, size) + rng.binomial(m - c, p_b, size) + (rng.random(size) < p)
                return rng.binomial(tau * backstop, 1 - p_f) + rng.binomial(tau * (n - backstop), p_f)

            return one(p_b), one(q_b)

        return Attack(
            sees=(
                f"the shuffled aggregate of all n respondents (1-reports per bin, summed over the {tau} "
                "fragment shufflers); only the target's bin is drawn"
            ),
            hypotheses=hyp,
            others=others,
            worst_c=c,
            neighbouring="removal",
            draw=draw,
            statistic=(
                f"the 1-reports in bin v summed over the {tau} fragments (the likelihood ratio "
                "increases with it: the backstop count does, and the fragment layer preserves it)"
            ),
        )
    hyp = "H1: the target holds value v; H0: the target holds value v' (replacement)."
    if isinstance(oracle, GRR):
        p, q, d = oracle.p, oracle.q, oracle.d
        if d == 2:
            return _count_attack(
                m,
                0,
                p,
                q,
                p,
                q,
                sees=sees,
                hypotheses=hyp,
                neighbouring="replacement",
                others=f"all {m:,} other respondents hold v'",
                statistic="the reports of v (the likelihood ratio increases with it)",
            )
        # the others all hold a third value w: (N_v, N_v', N_w, rest) ~ Multinomial(m; q, q, p, 1 - p - 2q)
        # plus the target's report; the exact ratio is (S + (e^eps - 1) N_v)/(S + (e^eps - 1) N_v'),
        # S = (n - N_w) + e^-eps N_w (derived in _grr_llr's docstring)
        rest = max(0.0, 1 - p - 2 * q)

        def draw(rng, size):
            def one(pv, pv2):
                h = rng.multinomial(m, [q, q, p, rest], size=size)
                r = rng.random(size)
                h[:, 0] += r < pv
                h[:, 1] += (r >= pv) & (r < pv + pv2)
                h[:, 2] += (r >= pv + pv2) & (r < pv + pv2 + q)
                return _grr_llr(h, n, oracle.eps)

            return one(q, p), one(p, q)

        return Attack(
            sees=sees,
            hypotheses=hyp,
            neighbouring="replacement",
            draw=draw,
            others=(
                f"all {m:,} other respondents hold a third value w: each reports v and v' with "
                "probability q, as the clones of Feldman, McMillan, Talwar (SODA 2023)"
            ),
            statistic="the exact log-likelihood ratio of the counts of v, v' and w",
        )
    if isinstance(oracle, UnaryEncoding):
        p, q, d = oracle.p, oracle.q, oracle.d
        pi_v2 = q if d > 2 else p  # others at w (bit v' is 1 w.p. q), or at v' when d = 2 (w.p. p)

        def draw(rng, size):
            def one(pv, pv2):
                nv = rng.binomial(m, q, size) + (rng.random(size) < pv)
                nv2 = rng.binomial(m, pi_v2, size) + (rng.random(size) < pv2)
                return _log_ratio_bit(nv, m, q, p, q) - _log_ratio_bit(nv2, m, pi_v2, p, q)

            return one(q, p), one(p, q)

        others = (
            f"all {m:,} other respondents hold a third value w" if d > 2 else f"all {m:,} other respondents hold v'"
        )
        return Attack(
            sees=sees,
            hypotheses=hyp,
            neighbouring="replacement",
            draw=draw,
            others=others,
            statistic="the exact log-likelihood ratio of the 1-counts of bins v and v'",
        )
    raise InputError(f"the analyst's audit supports {', '.join(ANALYST_ENCODINGS)}, not {plan.spec.encoding}.")


def _grr_llr(h: np.ndarray, n: int, eps: float) -> np.ndarray:
    """ln P(h | v)/P(h | v') for the shuffled GRR histogram when the n - 1 others all hold w: with
    P(h | x) = sum_r P(r | x) P_others(h - e_r) and P_others(h - e_r)/P_others(h) proportional to
    h_r/pi_r (pi_w = p, pi_u = q), the ratio is (S + (e^eps - 1) h_v)/(S + (e^eps - 1) h_v'),
    S = (n - h_w) + e^-eps h_w."""
    s = (n - h[:, 2]) + math.exp(-eps) * h[:, 2]
    g = math.expm1(eps)
    return np.log(s + g * h[:, 0]) - np.log(s + g * h[:, 1])


# --- certified upper bounds --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Certified:
    """A certified upper bound beside the audit: an accountant's eps_c for the shuffled aggregate, or the
    local guarantee (eps_l_inf, eps_l_1) for one report; valid False (eps None) with the reason where
    the accountant does not apply."""

    name: str
    title: str
    eps: float | None
    delta: float
    neighbouring: str
    citation: str
    valid: bool = True
    reason: str = ""

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


_ESA = "Erlingsson et al., Encode, Shuffle, Analyze Privacy Revisited (2020)"


@lru_cache(maxsize=256)
def _forward(bound: Bound, eps0: float, n: int, delta: float, k: int | None) -> Amplification:
    """A bound's forward, kept: the analyst's attack and its certified bounds both need the tight one."""
    return bound.forward(eps0, n, delta, k)


def certified_bounds(plan: Plan, observer: str, accountants: tuple[str, ...] | None = None) -> tuple[Certified, ...]:
    """Every certified bound on what `observer` sees: the local guarantee for the server (eps_l_inf) and a
    captured shuffler (eps_l_1, Theorem IV.1 of the ESA paper), and for the analyst the eps_c that each
    accountant holding for the encoding (or those named) certifies at the plan's eps_b, n and delta."""
    encoding = get_encoding(plan.spec.encoding)
    if observer != "analyst":
        eps, name = (plan.eps_l_inf, "eps_l_inf") if observer == "server" else (plan.eps_l_1, "eps_l_1")
        what = "everything one respondent sends" if observer == "server" else "one captured fragment"
        return (
            Certified(
                name,
                f"local guarantee of {what}",
                eps,
                0.0,
                encoding.neighbouring,
                f"{_ESA}, Theorem IV.1" if plan.spec.tau else f"the {encoding.name} randomizer's eps",
            ),
        )
    k = encoding.channel_k(plan.d, plan.spec.param_dict)
    out = []
    for name in accountants or encoding.accountants:
        bound = encoding.bound(name, plan.spec.param_dict)
        require(
            bound.name in encoding.accountants or name in encoding.accountants,
            f"the accountant {name} does not hold for the {encoding.name} encoding; choose among "
            f"{', '.join(encoding.accountants)}.",
        )
        amp = _forward(bound, plan.eps_b, plan.n, plan.spec.delta, k)
        out.append(
            Certified(
                bound.name,
                bound.title,
                amp.eps_c,
                plan.spec.delta,
                bound.neighbouring,
                bound.citation,
                amp.valid,
                amp.reason,
            )
        )
    return tuple(out)


# --- one observer's audit -----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ObserverAudit:
    """What one observer can show it learns about a target, beside what is certified.

    bound: the empirical epsilon (eps_lower at `confidence`, the chosen test's measured fpr and fnr);
    eps_upper: the certified bound of the plan (its accountant for the analyst, the local guarantee
    otherwise); certified: every certified bound that holds (the analyst: every accountant of the
    encoding, valid or with its reason); curve: the attack's trade-off curve from all trials;
    exact_curve and eps_pair: the exact curve of the audited pair of hypotheses and its eps at delta
    (no test of this pair can show more), where the statistic's law is known exactly; others: the
    other respondents' data the analyst's pair uses (worst_c of them hold the target's value)."""

    observer: str
    sees: str
    hypotheses: str
    statistic: str
    neighbouring: str
    others: str
    worst_c: int | None
    bound: EmpiricalBound
    eps_upper: Certified
    certified: tuple[Certified, ...]
    curve: TradeOff
    exact_curve: TradeOff | None
    eps_pair: float | None

    @property
    def eps_lower(self) -> float:
        return self.bound.eps_lower

    @property
    def confidence(self) -> float:
        return self.bound.confidence

    @property
    def trials(self) -> int:
        """Trials per hypothesis (both halves)."""
        return self.bound.trials

    @property
    def best(self) -> tuple[float, float]:
        """(fpr, fnr) of the chosen test, measured on the second half of the trials."""
        return self.bound.fpr, self.bound.fnr

    @property
    def gap(self) -> float | None:
        """eps_upper - eps_lower (None when the plan's bound is not valid here)."""
        return None if self.eps_upper.eps is None else self.eps_upper.eps - self.eps_lower

    def exceeds(self, scale: float = 1.0) -> tuple[Certified, ...]:
        """The certified bounds that the lower bound contradicts: valid ones with scale * eps < eps_lower
        (scale = 1: an unsound accountant; scale < 1 checks that the audit can catch a bound that small)."""
        return tuple(c for c in self.certified if c.valid and scale * c.eps < self.eps_lower)

    def as_dict(self) -> dict:
        return {
            "observer": self.observer,
            "eps_lower": self.eps_lower,
            "confidence": self.confidence,
            "trials": self.trials,
            "delta": self.bound.delta,
            "eps_upper": {"eps": self.eps_upper.eps, "accountant": self.eps_upper.name},
            "best": dict(zip(("fpr", "fnr"), self.best)),
            "gap": self.gap,
            "eps_pair": self.eps_pair,
            "sees": self.sees,
            "hypotheses": self.hypotheses,
            "statistic": self.statistic,
            "neighbouring": self.neighbouring,
            "others": self.others,
            "worst_c": self.worst_c,
            "test": self.bound.as_dict(),
            "certified": [c.as_dict() for c in self.certified],
            "exceeded_by_lower_bound": [c.name for c in self.exceeds()],
            "curve": self.curve.as_dict(),
            "exact_curve": None if self.exact_curve is None else self.exact_curve.as_dict(),
        }


def _check_trials(trials) -> int:
    value = check_whole(trials, 0, "trials")
    require(
        MIN_TRIALS <= value <= MAX_TRIALS,
        f"trials (per hypothesis) must be a whole number in [{MIN_TRIALS:,}, {MAX_TRIALS:,}] (got {trials}).",
    )
    return value


def _check_observer(observer: str) -> str:
    require(observer in OBSERVERS, f"observer must be one of {', '.join(OBSERVERS)} (got {observer!r}).")
    return observer


def attack(
    plan: Plan,
    observer: str,
    rng: np.random.Generator,
    trials: int = DEFAULT_TRIALS,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[EmpiricalBound, TradeOff, Attack]:
    """Run one observer's attack: `trials` draws per hypothesis, the first half choosing the threshold and
    the second measuring it. Returns the empirical bound, the curve from all trials and the attack."""
    observer, trials, confidence = _check_observer(observer), _check_trials(trials), _check_confidence(confidence)
    a = _analyst_attack(plan) if observer == "analyst" else _local_attack(plan, observer)
    halves = []
    for size in (trials // 2, trials - trials // 2):
        drawn = a.draw(rng, size)
        halves.append(drawn if isinstance(drawn, _Tally) else _Tally.from_scores(*drawn))
    return _bound(halves[0], halves[1], plan.spec.delta, confidence), _tally_curve(halves[0].merged(halves[1])), a


def audit_observer(
    plan: Plan,
    observer: str,
    rng: np.random.Generator,
    trials: int = DEFAULT_TRIALS,
    confidence: float = DEFAULT_CONFIDENCE,
    accountants: tuple[str, ...] | None = None,
) -> ObserverAudit:
    """One observer's audit at the plan's n, eps and delta: the attack, and every certified bound beside it."""
    bound, curve, a = attack(plan, observer, rng, trials, confidence)
    certified = certified_bounds(plan, observer, accountants)
    primary = next((c for c in certified if c.name == plan.spec.accountant), certified[0])
    exact_curve = eps_pair = None
    if a.exact is not None:
        exact_curve, eps_pair = _exact_curve(*a.exact), _pair_eps(*a.exact, plan.spec.delta)
    return ObserverAudit(
        observer,
        a.sees,
        a.hypotheses,
        a.statistic,
        a.neighbouring,
        a.others,
        a.worst_c,
        bound,
        primary,
        certified,
        curve,
        exact_curve,
        eps_pair,
    )


# --- risk in words: how often each observer's best guess of a target's value is right -----------------------


def one_in(p: float) -> str:
    """A probability as "1 in N" for people (N = 1/p to three significant digits)."""
    if p <= 0:
        return "never"
    n = 1 / p
    return f"1 in {n:,.0f}" if n >= 100 else f"1 in {n:.3g}"


@dataclass(frozen=True)
class Risk:
    """How often one observer's Bayes-optimal guess of a target's value is right.

    p_correct: exact where `exact`; with exact False it is an upper bound (the analyst of report
    fragments: the one who sees the backstop counts, of which the fragments are a post-processing);
    None where not computed (note says why). certified_at_most = min(1, e^eps baseline + delta) from
    the observer's certified (eps, delta): for each value v, P[guess v | v] <= e^eps P[guess v | ref] +
    delta against one reference input, and the guesses are disjoint."""

    observer: str
    p_correct: float | None
    exact: bool
    baseline: float
    certified_at_most: float
    certified_by: str
    note: str = ""

    @property
    def sentence(self) -> str:
        said = {
            "server": "The server (no shuffler), seeing one person's report,",
            "shuffler": "A captured shuffler, seeing what of it reaches that shuffler,",
            "analyst": "The analyst, seeing only the shuffled counts,",
        }[self.observer]
        base = f"guessing from the data's distribution alone is right {one_in(self.baseline)} times"
        cap = f"the certified guarantee ({self.certified_by}) allows at most {one_in(self.certified_at_most)}"
        if self.p_correct is None:
            return f"{said} — not computed ({self.note}); {base}; {cap}."
        how = "guesses a person's value right" if self.exact else "guesses a person's value right at most"
        return f"{said} {how} {one_in(self.p_correct)} times ({self.p_correct:.3g}); {base}; {cap}."

    def as_dict(self) -> dict:
        return {
            **{k: getattr(self, k) for k in self.__dataclass_fields__},
            "one_in": one_in(self.p_correct or 0.0),
            "sentence": self.sentence,
        }


def _expected_max(groups: list[tuple[int, np.ndarray, np.ndarray]]) -> float:
    """E[max_v X_v] for independent X_v >= 0 given in groups of `size` identically distributed variables
    with atoms x of probabilities r: the integral over t of P(max > t) = 1 - prod_g F_g(t)^size_g,
    swept from the top (where the product is near 1 and its logarithm is summed without cancellation)."""
    x = np.concatenate([g[1] for g in groups])
    r = np.concatenate([g[2] for g in groups])
    gid = np.concatenate([np.full(g[1].size, i) for i, g in enumerate(groups)])
    mass = r > 0
    x, r, gid = x[mass], r[mass], gid[mass]
    size = np.array([g[0] for g in groups], dtype=np.float64)
    order = np.lexsort((gid, -x))
    x, r, gid = x[order], r[order], gid[order]
    by_group = np.argsort(gid, kind="stable")  # atoms grouped, each group's in descending x
    survival = np.empty_like(r)  # the group's mass at or above each atom
    sorted_r = r[by_group]
    starts = np.flatnonzero(np.r_[True, gid[by_group][1:] != gid[by_group][:-1]])
    csum = np.cumsum(sorted_r)
    csum -= np.repeat(np.r_[0.0, csum[starts[1:] - 1]], np.diff(np.r_[starts, r.size]))
    survival[by_group] = np.minimum(csum, 1.0)
    before = np.maximum(survival - r, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):  # a group's F reaches 0 once; below, the product stays 0
        step = np.where(before < 1, size[gid] * (np.log1p(-survival) - np.log1p(-before)), 0.0)
    log_prod = np.cumsum(step)  # ln prod_g F_g(t) for t just below each atom
    below = -np.expm1(log_prod)  # P(max > t) there
    return float(np.sum((x[:-1] - x[1:]) * below[:-1]) + x[-1])


def _groups(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bins of the data with respondents, grouped by (count, others' count): the others are the data less
    one respondent of its most common value. Returns (count, others, how many bins) per group."""
    counts = np.asarray(counts, dtype=np.int64)
    held = counts[counts > 0]
    top = int(held.max())
    values, sizes = np.unique(held, return_counts=True)
    others = values.copy()
    rows = [(int(v), int(o), int(s)) for v, o, s in zip(values, others, sizes) if v != top]
    rows.append((top, top - 1, 1))
    if sizes[-1] > 1:
        rows.append((top, top, int(sizes[-1]) - 1))
    g = np.array(rows, dtype=np.int64)
    return g[:, 0], g[:, 1], g[:, 2]


def _bit_laws(plan: Plan, observer: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(reference law, law when the bin is the target's value) of what the observer sees of one bin in
    one report, for the encodings whose report is independent across bins (one-hot, unary), else None.
    The reference is the absent respondent (one-hot) or every bit at q (unary, not an input: a
    reference measure only). None also for one-hot's captured attribute-fragment shuffler (one bin)."""
    oracle = plan.oracle()
    if isinstance(oracle, OneHot):
        if oracle.tau is None:
            return np.array([1 - oracle.p_b, oracle.p_b]), np.array([oracle.p_b, 1 - oracle.p_b])
        t = oracle.tau if observer == "server" else 1
        return (_fragment_counts(oracle.p_b, oracle.p_f, t, False), _fragment_counts(oracle.p_b, oracle.p_f, t, True))
    if isinstance(oracle, UnaryEncoding):
        return np.array([1 - oracle.q, oracle.q]), np.array([1 - oracle.p, oracle.p])
    return None


def _analyst_laws(plan: Plan) -> tuple[float, float, float, float] | None:
    """(hi, lo, ref bit, present bit): a bin's count is Bin(others holding it, hi) + Bin(other others, lo)
    plus the target's bit, Bern(present) in its value's bin, Bern(ref) under the reference."""
    oracle = plan.oracle()
    if isinstance(oracle, OneHot):
        return 1 - oracle.p_b, oracle.p_b, oracle.p_b, 1 - oracle.p_b
    if isinstance(oracle, UnaryEncoding):
        return oracle.p, oracle.q, oracle.q, oracle.p
    return None


def _count_table(plan: Plan, c: int) -> tuple[int, np.ndarray, np.ndarray]:
    """(first k, reference law, present law) of one bin's aggregate count when c others hold its value."""
    hi, lo, ref, present = _analyst_laws(plan)
    k0, y = _others_pmf(c, plan.n - 1, hi, lo)
    return k0, _with_bit(y, ref), _with_bit(y, present)


@dataclass(frozen=True)
class RiskReport:
    """The guessing risk of every observer for a target whose value is drawn from `prior_from`."""

    prior_from: str
    baseline: float
    risks: tuple[Risk, ...]

    def as_dict(self) -> dict:
        return {
            "prior_from": self.prior_from,
            "baseline": self.baseline,
            "baseline_one_in": one_in(self.baseline),
            "risks": [r.as_dict() for r in self.risks],
        }


def _check_counts(plan: Plan, counts) -> np.ndarray:
    counts = np.asarray(counts)
    require(
        counts.ndim == 1
        and counts.size == plan.d
        and np.issubdtype(counts.dtype, np.integer)
        and bool((counts >= 0).all())
        and int(counts.sum()) > 0,
        f"counts must be {plan.d:,} whole numbers >= 0 (one per value of the domain), not all 0.",
    )
    return counts.astype(np.int64)


def guessing_risk(plan: Plan, counts, prior_from: str = "the data") -> RiskReport:
    """How often each observer guesses a target's value right, the value drawn from counts/counts.sum()
    (the data's own distribution) and the other respondents (the data less one respondent of the most
    common value) known to the observer; exact, no sampling. For one-hot and unary encodings the
    Bayes-optimal success is E_ref[max_v w_v L_v(O_v)] with independent per-bin observations O_v and
    likelihood ratios L_v against a reference report (``_expected_max``); for GRR's report it is
    sum_r max_v w_v P(r | v)."""
    counts = _check_counts(plan, counts)
    w = counts / counts.sum()
    baseline = float(w.max())
    oracle = plan.oracle()
    out = []
    for observer in OBSERVERS:
        certified = certified_bounds(plan, observer, (plan.spec.accountant,) if observer == "analyst" else None)[0]
        eps, delta = (certified.eps, certified.delta) if certified.valid else (math.inf, 0.0)
        at_most = min(1.0, math.exp(min(eps, 700.0)) * baseline + delta)
        by = f"{certified.name}: eps = {eps:.4g}" + (f", delta = {delta:g}" if delta else "")
        p, exact, note = _guess(plan, oracle, observer, counts, w)
        out.append(Risk(observer, p, exact, baseline, at_most, by, note))
    return RiskReport(prior_from, baseline, tuple(out))


def _guess(plan, oracle, observer, counts, w) -> tuple[float | None, bool, str]:
    """(P[the Bayes-optimal guess is right], exact, note) for one observer."""
    base, total = _base(oracle), int(counts.sum())
    if observer != "analyst":
        if isinstance(base, GRR):  # sum over reports r of max(p w_r, q max_{v != r} w_v)
            order = np.argsort(w)
            best_other = np.full(w.size, w[order[-1]])
            best_other[order[-1]] = w[order[-2]]
            return float(np.maximum(base.p * w, base.q * best_other).sum()), True, ""
        if isinstance(oracle, OneHot) and oracle.tau is None and observer == "shuffler":
            # the shuffler of bin j sees the target's bit j: E_ref[max(w_j L(bit), max_{v != j} w_v)], best j
            p_b, q_b = oracle.p_b, 1 - oracle.p_b
            order = np.argsort(w)
            rest = np.full(w.size, w[order[-1]])
            rest[order[-1]] = w[order[-2]]
            per_bin = p_b * np.maximum(w * q_b / p_b, rest) + q_b * np.maximum(w * p_b / q_b, rest)
            return float(per_bin.max()), True, "the shuffler of the bin where it helps most"
        laws = _bit_laws(plan, observer)
        if laws is None:
            return None, False, f"no exact Bayes guess for the {plan.spec.encoding} report here"
        ref, present = laws
        ratio = present / ref
        values, sizes = np.unique(counts[counts > 0], return_counts=True)
        groups = [(int(s), (v / total) * ratio, ref) for v, s in zip(values, sizes)]
        return _expected_max(groups), True, ""
    if _analyst_laws(plan) is None:
        return None, False, f"no exact posterior of the shuffled {plan.spec.encoding} histogram is computed"
    groups = []
    for v, o, s in zip(*_groups(counts)):
        _, ref, present = _count_table(plan, int(o))
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(ref > 0, present / ref, 0.0)
        groups.append((int(s), (v / total) * ratio, ref))
    exact = not (isinstance(oracle, OneHot) and oracle.tau is not None)
    note = "" if exact else "the analyst of the backstop counts, of which the fragment counts are a post-processing"
    return _expected_max(groups), exact, note


# --- the demonstration: one respondent, what each observer sees and would guess --------------------------------


@dataclass(frozen=True, eq=False)
class View:
    """What one observer sees of the demonstration's respondent and what it would guess.

    observation: the server's report (one-hot: bool bits, (tau, d) with fragments; GRR: the value
    reported; unary: bits; OLH: the hash seed and bucket), the captured shuffler's fragment (one-hot
    attribute fragments: the pair (bin, bit)), or the analyst's aggregate counts; summary: the same in
    a few JSON-ready numbers; posterior: over the d values (None where not computed: note says why)."""

    observer: str
    sees: str
    observation: object
    summary: dict
    posterior: np.ndarray | None
    truth: int
    note: str = ""

    @property
    def guess(self) -> int | None:
        return None if self.posterior is None else int(np.argmax(self.posterior))

    @property
    def correct(self) -> bool | None:
        return None if self.posterior is None else self.guess == self.truth

    def as_dict(self, top: int = 5) -> dict:
        out = {
            "observer": self.observer,
            "sees": self.sees,
            "observed": self.summary,
            "guess": self.guess,
            "correct": self.correct,
            "note": self.note,
        }
        if self.posterior is not None:
            best = np.argsort(self.posterior)[::-1][:top]
            out.update(
                {
                    "p_guess": float(self.posterior[best[0]]),
                    "p_truth": float(self.posterior[self.truth]),
                    "top": [{"value": int(v), "posterior": float(self.posterior[v])} for v in best],
                }
            )
        return out


def _summary(observation) -> dict:
    """A report in a few numbers: the bins with a 1 (per fragment), or the values sent."""
    obs = np.asarray(observation)
    if obs.dtype == bool:
        rows = obs.reshape(-1, obs.shape[-1])
        return {
            "ones": [np.flatnonzero(r)[:1000].tolist() for r in rows]
            if rows.shape[0] > 1
            else np.flatnonzero(rows[0])[:1000].tolist()
        }
    return {"report": obs.tolist()}


@dataclass(frozen=True, eq=False)
class Demonstration:
    """One respondent holding `value` (drawn from the data or chosen): their report, and each observer's
    view and Bayes-optimal guess, beside the guess from the distribution alone (baseline_guess)."""

    value: int
    report: np.ndarray
    views: tuple[View, ...]
    baseline_guess: int
    others: str

    def as_dict(self) -> dict:
        return {
            "value": self.value,
            "baseline_guess": self.baseline_guess,
            "baseline_correct": self.baseline_guess == self.value,
            "others": self.others,
            "views": [v.as_dict() for v in self.views],
        }


def _normalise(log_post: np.ndarray) -> np.ndarray:
    return np.exp(log_post - logsumexp(log_post))


def demonstrate(plan: Plan, counts, rng: np.random.Generator, value: int | None = None) -> Demonstration:
    """Draw one respondent's value from counts (or take `value`), randomize their report with the encoding's
    own per-respondent randomizer, mix it into the shuffled aggregate of the others (the data less one
    respondent of the most common value, drawn with the exact aggregate sampler), and give each
    observer's posterior over the values (prior: the data's distribution)."""
    counts = _check_counts(plan, counts)
    w = counts / counts.sum()
    if value is None:
        value = int(rng.choice(plan.d, p=w))
    require(
        int(value) == value and 0 <= value < plan.d, f"value must be a whole number in [0, {plan.d - 1}] (got {value})."
    )
    value = int(value)
    oracle = plan.oracle()
    base = _base(oracle)
    with np.errstate(divide="ignore"):
        log_w = np.log(w)
    reports = base.randomize(np.array([value]), rng)
    report = reports[:, 0] if isinstance(oracle, OneHot) and oracle.tau is not None else reports[0]
    views = []
    for observer in ("server", "shuffler"):
        if isinstance(oracle, OneHot) and oracle.tau is None and observer == "shuffler":
            j = int(np.argmax(w))  # the shuffler of the most common value's bin
            ref, present = _bit_laws(plan, observer)
            log_l = np.zeros(plan.d)
            log_l[j] = math.log(present[int(report[j])] / ref[int(report[j])])
            views.append(
                View(
                    observer,
                    f"bin {j}'s bit of the target's report (the shuffler of the most common value's bin)",
                    (j, bool(report[j])),
                    {"bin": j, "bit": bool(report[j])},
                    _normalise(log_w + log_l),
                    value,
                )
            )
            continue
        seen = report if observer == "server" or not isinstance(oracle, OneHot) else report[:1]
        views.append(
            View(
                observer,
                _local_attack(plan, observer).sees,
                seen,
                _summary(seen),
                _report_posterior(plan, observer, seen, log_w),
                value,
            )
        )
    others = counts.copy()
    others[int(np.argmax(counts))] -= 1
    aggregate = np.asarray(oracle.sample_aggregate(others, rng))
    own = (
        report.reshape(-1, plan.d).sum(axis=0)
        if isinstance(base, (OneHot, UnaryEncoding))
        else np.bincount([int(report)], minlength=aggregate.size)
        if isinstance(base, GRR)
        else None
    )
    posterior, note = None, ""
    if own is None:
        note = f"the target's report is not added to a {plan.spec.encoding} aggregate here"
    else:
        aggregate = aggregate + own
        if _analyst_laws(plan) is None or (isinstance(oracle, OneHot) and oracle.tau is not None):
            note = "the exact posterior of this aggregate is not computed"
        else:
            posterior = _normalise(log_w + _aggregate_log_ratio(plan, others, aggregate))
    summary = {"count_at_value": int(aggregate[value]), "total": int(aggregate.sum())}
    views.append(
        View("analyst", "the shuffled aggregate of all n respondents", aggregate, summary, posterior, value, note)
    )
    return Demonstration(
        value,
        report,
        tuple(views),
        int(np.argmax(w)),
        "the data less one respondent of its most common value, known to every observer",
    )


def _report_posterior(plan: Plan, observer: str, seen, log_w: np.ndarray) -> np.ndarray | None:
    """Posterior over the values given one report (or fragment): w_v P(report | v), normalised."""
    base = _base(plan.oracle())
    if isinstance(base, GRR):
        return _normalise(log_w + np.where(np.arange(plan.d) == int(seen), math.log(base.p), math.log(base.q)))
    laws = _bit_laws(plan, observer)
    if laws is not None:
        ref, present = laws
        j = np.asarray(seen).reshape(-1, plan.d).sum(axis=0)
        return _normalise(log_w + np.log(present[j]) - np.log(ref[j]))
    if plan.d <= 65_536:  # any encoding with an exact likelihood: one evaluation per value
        log_l = np.array([float(base.report_log_prob(v, seen)) for v in range(plan.d)])
        return _normalise(log_w + log_l)
    return None


def _aggregate_log_ratio(plan: Plan, others: np.ndarray, aggregate: np.ndarray) -> np.ndarray:
    """ln L_v(N_v) per value: the aggregate's law with the target at v against the reference, bin by bin."""
    out = np.zeros(plan.d)
    values, group = np.unique(others, return_inverse=True)
    order = np.argsort(group, kind="stable")
    for c, at in zip(values, np.split(order, np.cumsum(np.bincount(group))[:-1])):
        k0, ref, present = _count_table(plan, int(c))
        k = np.clip(aggregate[at] - k0, 0, ref.size - 1)
        with np.errstate(divide="ignore"):
            out[at] = np.log(present[k]) - np.log(ref[k])
    return out


# --- everything for one protocol: the command line's and the page's entry point --------------------------------


@dataclass(frozen=True, eq=False)
class AuditReport:
    """The audit of one protocol: the plan, each observer's audit, the guessing risk, the observers not
    audited for this encoding (skipped, with the reason) and the seed that reproduces it."""

    plan: Plan
    data: str
    seed: int
    observers: tuple[ObserverAudit, ...]
    risk: RiskReport
    skipped: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        p = self.plan
        return {
            "data": self.data,
            "n": p.n,
            "d": p.d,
            "encoding": p.spec.encoding,
            "tau": p.spec.tau,
            "accountant": p.spec.accountant,
            "neighbouring": get_encoding(p.spec.encoding).neighbouring,
            "delta": p.spec.delta,
            "eps_c": p.eps_c,
            "eps_b": p.eps_b,
            "eps_l_inf": p.eps_l_inf,
            "eps_l_1": p.eps_l_1,
            "seed": self.seed,
            "observers": [o.as_dict() for o in self.observers],
            "risk": self.risk.as_dict(),
            "skipped": list(self.skipped),
        }


def _uniform(n: int, d: int) -> np.ndarray:
    counts = np.full(d, n // d, dtype=np.int64)
    counts[: n % d] += 1
    return counts


def run_audit(
    *,
    n: int | None = None,
    d: int | None = None,
    data: Histogram | str | None = None,
    eps_c: float | None = None,
    eps_l: float | None = None,
    delta: float,
    encoding: str = "onehot",
    tau: int | None = None,
    accountant: str | None = None,
    observer: str = "all",
    trials: int = DEFAULT_TRIALS,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = 0,
    params=None,
    eps_f_rule: str = "paper",
    eps_f: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> AuditReport:
    """The audit the command line prints: (n, d) or data (a Histogram or a bundled dataset's name),
    one of eps_c and eps_l, delta, the protocol, the observers (one or "all"), trials per hypothesis,
    the confidence and the seed. Each observer draws from its own child of the seed, so one observer
    alone gives the numbers it gives among all. "all" skips the observers an encoding has no attack for
    (AuditReport.skipped says which); naming one raises InputError. progress(done, total), if given, is
    called after each observer's audit and after the guessing risk (a dashboard's progress bar)."""
    require(
        (data is None) == (n is not None and d is not None) and (n is None) == (d is None),
        "give either n and d, or a dataset.",
    )
    if isinstance(data, str):
        data = load_dataset(data)
    if data is not None:
        counts, label = data.counts, data.name
    else:
        n, d = check_whole(n, 2, "n (respondents)"), check_whole(d, 2, "d (domain size)")
        counts, label = _uniform(n, d), f"uniform over d = {d:,} values, n = {n:,}"
    spec = ProtocolSpec(
        eps_c=eps_c,
        eps_l=eps_l,
        delta=delta,
        tau=tau,
        eps_f_rule=eps_f_rule,
        eps_f=eps_f,
        accountant=accountant,
        encoding=encoding,
        params=params or (),
    )
    p = make_plan(spec, int(counts.sum()), int(counts.size))
    trials, confidence, seed = _check_trials(trials), _check_confidence(confidence), check_whole(seed, 0, "seed")
    if observer != "all":
        _check_observer(observer)
    rngs = dict(zip(OBSERVERS, np.random.default_rng(seed).spawn(len(OBSERVERS))))
    audits, skipped = [], []
    names = OBSERVERS if observer == "all" else (observer,)
    for done, name in enumerate(names, 1):
        supported = ANALYST_ENCODINGS if name == "analyst" else LOCAL_ENCODINGS
        if observer == "all" and spec.encoding not in supported:
            skipped.append(f"{name}: no attack for the {spec.encoding} encoding (supported: {', '.join(supported)})")
        else:
            audits.append(audit_observer(p, name, rngs[name], trials, confidence))
        if progress is not None:
            progress(done, len(names) + 1)
    require(bool(audits), f"the audit supports the encodings {', '.join(LOCAL_ENCODINGS)}, not {spec.encoding}.")
    risk = guessing_risk(p, counts, label)
    if progress is not None:
        progress(len(names) + 1, len(names) + 1)
    return AuditReport(p, label, seed, tuple(audits), risk, tuple(skipped))
