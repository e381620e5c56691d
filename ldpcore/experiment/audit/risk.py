"""Risk in words: the probability that each observer's Bayes-optimal guess of a target's value is right, the
value drawn from the data's own distribution and the other respondents known to the observer (the informed
adversary of DP), against the guess from the distribution alone, computed exactly (no sampling) as
E_ref[max_v w_v L_v], the expected largest of independent per-bin likelihood ratios under a reference
report, from the laws the encoding states (ldpcore.oracles.laws)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldpcore.errors import require
from ldpcore.experiment.audit.certified import certified_bounds
from ldpcore.experiment.audit.laws import count_table
from ldpcore.experiment.protocol.spec import Plan
from ldpcore.oracles.base import observer_law
from ldpcore.oracles.laws import OBSERVERS, BinLaws, CountLaws, Observer, ResponseLaws


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


def expected_max(groups: list[tuple[int, np.ndarray, np.ndarray]]) -> float:
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


def value_groups(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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


def check_counts(plan: Plan, counts) -> np.ndarray:
    counts = np.asarray(counts)
    require(
        counts.ndim == 1
        and counts.size == plan.domain
        and np.issubdtype(counts.dtype, np.integer)
        and bool((counts >= 0).all())
        and int(counts.sum()) > 0,
        f"counts must be {plan.domain:,} whole numbers >= 0 (one per value of the domain), not all 0.",
    )
    return counts.astype(np.int64)


def guessing_risk(plan: Plan, counts, prior_from: str = "the data") -> RiskReport:
    """How often each observer guesses a target's value right, the value drawn from counts/counts.sum()
    (the data's own distribution) and the other respondents (the data less one respondent of the most
    common value) known to the observer; exact, no sampling. With per-bin laws (BinLaws, CountLaws) the
    Bayes-optimal success is E_ref[max_v w_v L_v(O_v)] with independent per-bin observations O_v and
    likelihood ratios L_v against a reference report (``expected_max``); for a k-RR report it is
    sum_r max_v w_v P(r | v). certified_at_most is 1 where the observer's certified bound is not valid."""
    counts = check_counts(plan, counts)
    w = counts / counts.sum()
    baseline = float(w.max())
    out = []
    for observer in OBSERVERS:
        accountant = (plan.spec.accountant_name,) if observer == Observer.ANALYST else None
        g = certified_bounds(plan, observer, accountant)[0].guarantee
        if g.value is None:
            at_most, by = 1.0, f"{g.bound}: eps = inf"
        else:
            at_most = min(1.0, math.exp(min(g.value, 700.0)) * baseline + g.delta)
            by = f"{g.bound}: eps = {g.value:.4g}" + (f", delta = {g.delta:g}" if g.delta else "")
        p, exact, note = _guess(plan, observer, counts, w)
        out.append(Risk(observer, p, exact, baseline, at_most, by, note))
    return RiskReport(prior_from, baseline, tuple(out))


def _second_best(w: np.ndarray) -> np.ndarray:
    """max_{u != v} w_u for every v."""
    order = np.argsort(w)
    best_other = np.full(w.size, w[order[-1]])
    best_other[order[-1]] = w[order[-2]]
    return best_other


def _guess(plan: Plan, observer: Observer, counts: np.ndarray, w: np.ndarray) -> tuple[float | None, bool, str]:
    """(P[the Bayes-optimal guess is right], exact, note) for one observer."""
    law = observer_law(plan.oracle(), observer)
    total = int(counts.sum())
    match law:
        case ResponseLaws(p=p, q=q) if observer != Observer.ANALYST:  # sum over r of max(p w_r, q max_{v!=r} w_v)
            return float(np.maximum(p * w, q * _second_best(w)).sum()), True, ""
        case BinLaws(one_bin=True, ref=ref, present=present):
            # the shuffler of bin j sees the target's bit j: E_ref[max(w_j L(bit), max_{v != j} w_v)], best j
            rest = _second_best(w)
            per_bin = sum(ref[k] * np.maximum(w * present[k] / ref[k], rest) for k in range(ref.size))
            return float(np.max(per_bin)), True, "the shuffler of the bin where it helps most"
        case BinLaws(ref=ref, present=present):
            values, sizes = np.unique(counts[counts > 0], return_counts=True)
            return expected_max([(int(s), (v / total) * (present / ref), ref) for v, s in zip(values, sizes)]), True, ""
        case CountLaws():
            groups = []
            for v, o, s in zip(*value_groups(counts)):
                _, ref, present = count_table(law, plan.n - 1, int(o))
                with np.errstate(divide="ignore", invalid="ignore"):
                    ratio = np.where(ref > 0, present / ref, 0.0)
                groups.append((int(s), (v / total) * ratio, ref))
            exact = law.fragments is None
            note = (
                ""
                if exact
                else "the analyst of the backstop counts, of which the fragment counts are a post-processing"
            )
            return expected_max(groups), exact, note
    if observer == Observer.ANALYST:
        return None, False, f"no exact posterior of the shuffled {plan.spec.encoding} histogram is computed"
    return None, False, f"no exact Bayes guess for the {plan.spec.encoding} report here"
