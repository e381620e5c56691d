"""What an observer faces: the likelihood-ratio attack on what it sees, built from the laws the encoding states
(ldpcore.oracles.laws; an encoding that states none for an observer is not attacked, and the reason is
given). The server's and a captured shuffler's statistic is one report's, whose law is finite and drawn
exactly (multinomial). The analyst's attack draws only the bins the target touches, so its cost does not
depend on n or d: the target's value v against the null report (zero-out) or against another value v'
(replacement), the other n - 1 respondents' data fixed at a worst case that is stated (Attack.others)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldpcore.errors import InputError
from ldpcore.experiment.audit.certified import forward
from ldpcore.experiment.audit.laws import log_ratio_bit, others_law, response_llr, with_bit
from ldpcore.experiment.audit.statistics import Tally
from ldpcore.experiment.protocol.spec import Plan
from ldpcore.oracles.base import observer_law
from ldpcore.oracles.laws import (
    SINGLE_REPORT,
    BinLaws,
    CountLaws,
    Law,
    Observer,
    PairLaws,
    ResponseLaws,
    Unsupported,
)
from ldpcore.privacy.bounds import BoundName, get_bound
from ldpcore.privacy.guarantee import Neighbouring

REMOVAL = (
    "H1: the target holds value v; H0: the target's value is null (it sends the randomized all-zeros report: "
    "zero-out). "
    "Only bin v's {what} between the two."
)
REPLACEMENT = "H1: the target holds value v; H0: the target holds value v' (replacement)."
ANALYST_SEES = "the shuffled aggregate of all n respondents (1-reports per bin); only the target's bins are drawn"


@dataclass(frozen=True, eq=False)
class Attack:
    """One observer's attack (``attack`` returns it beside its result): words for people, a sampler of
    both hypotheses' statistics, and the exact laws of the statistic (on one support ordered by
    increasing likelihood ratio) where known."""

    sees: str
    hypotheses: str
    statistic: str
    neighbouring: Neighbouring
    draw: Callable[[np.random.Generator, int], tuple[np.ndarray, np.ndarray] | Tally]
    exact: tuple[np.ndarray, np.ndarray] | None = None
    others: str = ""
    worst_c: int | None = None


def stated_law(plan: Plan, observer: Observer | str) -> Law:
    """The law `observer` sees under the plan's oracle; InputError with the encoding's reason where it states none."""
    law = observer_law(plan.oracle(), observer)
    if isinstance(law, Unsupported):
        raise InputError(f"the {observer}'s audit supports no {plan.spec.encoding} reports: {law.reason}.")
    return law


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
        draw=lambda rng, size: Tally(llr, rng.multinomial(size, p0), rng.multinomial(size, p1)),
        exact=(p0, p1),
        statistic="the exact log-likelihood ratio of the report",
        **words,
    )


def report_laws(law: Law, neighbouring: Neighbouring) -> tuple[np.ndarray, np.ndarray]:
    """(law under H0, law under H1) of what tells the hypotheses apart in one report: bin v's observation
    against the null report (zero-out), or the pair of v's and v''s (replacement; for k-RR the categories report
    v', another value, v)."""
    match law:
        case BinLaws(ref=ref, present=present) if neighbouring == Neighbouring.ZERO_OUT:
            return ref, present
        case BinLaws(ref=ref, present=present) | PairLaws(ref=ref, present=present):
            return np.outer(ref, present).ravel(), np.outer(present, ref).ravel()
        case ResponseLaws(p=p, q=q):
            return np.array([p, 1 - p - q, q]), np.array([q, 1 - p - q, p])
    raise InputError(f"a {type(law).__name__} is not the law of one report.")


def local_attack(plan: Plan, observer: Observer | str) -> Attack:
    """The server's (or a captured shuffler's) likelihood-ratio test on one respondent's report."""
    law = stated_law(plan, observer)
    removal = plan.neighbouring == Neighbouring.ZERO_OUT
    pmf0, pmf1 = report_laws(law, plan.neighbouring)
    return _categorical_attack(
        pmf0,
        pmf1,
        sees=law.sees if isinstance(law, BinLaws) else SINGLE_REPORT[Observer(observer)],
        hypotheses=REMOVAL.format(what="bits differ") if removal else REPLACEMENT,
        neighbouring=plan.neighbouring,
    )


def worst_c(plan: Plan) -> tuple[int, str]:
    """How many of the others hold the target's value in the tight accountant's worst case at the plan's
    eps_b (its extra["worst_c"], the start of the block found), and the words for it. A zero-out count law
    is binary randomized response per bin, the tight accountant's channel."""
    amp = forward(get_bound(BoundName.TIGHT_BINARY_RR), plan.eps_b, plan.n, plan.spec.delta, None)
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

    _, y = others_law(c, m, hi, lo)
    return Attack(draw=draw, exact=(with_bit(y, p0), with_bit(y, p1)), worst_c=c, **words)


def _removal_counts(plan: Plan, law: CountLaws) -> Attack:
    """Bin v's count against absence, the others at the tight accountant's worst case (one-hot reports)."""
    c, others = worst_c(plan)
    m, n = plan.n - 1, plan.n
    hyp = REMOVAL.format(what="count differs")
    if law.fragments is None:
        return _count_attack(
            m,
            c,
            law.hi,
            law.lo,
            law.present,
            law.ref,
            sees=ANALYST_SEES,
            hypotheses=hyp,
            others=others,
            statistic="the 1-reports in bin v (the likelihood ratio increases with it)",
            neighbouring=Neighbouring.ZERO_OUT,
        )
    tau, p_f = law.fragments

    def draw(rng, size):
        def one(p):
            backstop = rng.binomial(c, law.hi, size) + rng.binomial(m - c, law.lo, size) + (rng.random(size) < p)
            return rng.binomial(tau * backstop, 1 - p_f) + rng.binomial(tau * (n - backstop), p_f)

        return one(law.ref), one(law.present)

    return Attack(
        sees=(
            f"the shuffled aggregate of all n respondents (1-reports per bin, summed over the {tau} "
            "fragment shufflers); only the target's bin is drawn"
        ),
        hypotheses=hyp,
        others=others,
        worst_c=c,
        neighbouring=Neighbouring.ZERO_OUT,
        draw=draw,
        statistic=(
            f"the 1-reports in bin v summed over the {tau} fragments (the likelihood ratio "
            "increases with it: the backstop count does, and the fragment layer preserves it)"
        ),
    )


def _replacement_counts(plan: Plan, law: CountLaws) -> Attack:
    """The 1-counts of bins v and v', the others all at a third value w (at v' when d = 2)."""
    m, d = plan.n - 1, plan.domain
    pi_v2 = law.lo if d > 2 else law.hi  # bit v' of the others: as for a value not held, or held (d = 2)

    def draw(rng, size):
        def one(pv, pv2):
            nv = rng.binomial(m, law.lo, size) + (rng.random(size) < pv)
            nv2 = rng.binomial(m, pi_v2, size) + (rng.random(size) < pv2)
            return log_ratio_bit(nv, m, law.lo, law.present, law.ref) - log_ratio_bit(
                nv2, m, pi_v2, law.present, law.ref
            )

        return one(law.ref, law.present), one(law.present, law.ref)

    others = f"all {m:,} other respondents hold a third value w" if d > 2 else f"all {m:,} other respondents hold v'"
    return Attack(
        sees=ANALYST_SEES,
        hypotheses=REPLACEMENT,
        neighbouring=Neighbouring.REPLACE_ONE,
        draw=draw,
        others=others,
        statistic="the exact log-likelihood ratio of the 1-counts of bins v and v'",
    )


def _response_counts(plan: Plan, law: ResponseLaws) -> Attack:
    """The shuffled k-RR histogram: for d = 2 the reports of v, the others all at v'; else the counts of v, v'
    and a third value w that all the others hold."""
    p, q, n, m = law.p, law.q, plan.n, plan.n - 1
    words: dict[str, Any] = dict(sees=ANALYST_SEES, hypotheses=REPLACEMENT, neighbouring=Neighbouring.REPLACE_ONE)
    if law.d == 2:
        return _count_attack(
            m,
            0,
            p,
            q,
            p,
            q,
            others=f"all {m:,} other respondents hold v'",
            statistic="the reports of v (the likelihood ratio increases with it)",
            **words,
        )
    # (N_v, N_v', N_w, rest) ~ Multinomial(m; q, q, p, 1 - p - 2q) plus the target's report (response_llr)
    rest = max(0.0, 1 - p - 2 * q)

    def draw(rng, size):
        def one(pv, pv2):
            h = rng.multinomial(m, [q, q, p, rest], size=size)
            r = rng.random(size)
            h[:, 0] += r < pv
            h[:, 1] += (r >= pv) & (r < pv + pv2)
            h[:, 2] += (r >= pv + pv2) & (r < pv + pv2 + q)
            return response_llr(h, n, law.eps)

        return one(q, p), one(p, q)

    return Attack(
        draw=draw,
        others=(
            f"all {m:,} other respondents hold a third value w: each reports v and v' with "
            "probability q, as the clones of Feldman, McMillan, Talwar (SODA 2023)"
        ),
        statistic="the exact log-likelihood ratio of the counts of v, v' and w",
        **words,
    )


def analyst_attack(plan: Plan) -> Attack:
    """The analyst's likelihood-ratio test on the bins of the shuffled aggregate that the target touches."""
    law = stated_law(plan, Observer.ANALYST)
    match law:
        case CountLaws() if plan.neighbouring == Neighbouring.ZERO_OUT:
            return _removal_counts(plan, law)
        case CountLaws():
            return _replacement_counts(plan, law)
        case ResponseLaws():
            return _response_counts(plan, law)
    raise InputError(
        f"the analyst's audit supports no {plan.spec.encoding} reports: a {type(law).__name__} is not the law "
        "of an aggregate."
    )
