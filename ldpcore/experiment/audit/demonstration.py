"""The demonstration: one respondent, their report through the encoding's own randomizer, and what each observer
sees of it and would guess (the posterior over the values, from the laws the encoding states)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from ldpcore.errors import require
from ldpcore.experiment.audit.attacks import local_attack
from ldpcore.experiment.audit.laws import count_table
from ldpcore.experiment.audit.risk import check_counts
from ldpcore.experiment.protocol.spec import Plan
from ldpcore.oracles.base import observer_law, report_likelihood, respondent_oracle
from ldpcore.oracles.laws import BinLaws, CountLaws, Observer, ResponseLaws, Unsupported

LIKELIHOOD_VALUES = 65_536  # a posterior from report_log_prob takes one evaluation per value: up to this many


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
        out: dict[str, object] = {
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
    counts = check_counts(plan, counts)
    w = counts / counts.sum()
    if value is None:
        value = int(rng.choice(plan.domain, p=w))
    require(
        int(value) == value and 0 <= value < plan.domain,
        f"value must be a whole number in [0, {plan.domain - 1}] (got {value}).",
    )
    value = int(value)
    oracle = plan.oracle()
    with np.errstate(divide="ignore"):
        log_w = np.log(w)
    server = observer_law(oracle, Observer.SERVER)
    fragments = server.fragments if isinstance(server, BinLaws) else None
    reports = respondent_oracle(oracle).randomize(np.array([value]), rng)
    report = reports[:, 0] if fragments else reports[0]
    views = [_local_view(plan, observer, report, w, log_w, value) for observer in (Observer.SERVER, Observer.SHUFFLER)]
    others = counts.copy()
    others[int(np.argmax(counts))] -= 1
    aggregate = np.asarray(oracle.sample_aggregate(others, rng))
    own = (
        report.reshape(-1, plan.domain).sum(axis=0)
        if isinstance(server, BinLaws)
        else np.bincount([int(report)], minlength=aggregate.size)
        if isinstance(server, ResponseLaws)
        else None
    )
    posterior, note = None, ""
    if own is None:
        note = f"the target's report is not added to a {plan.spec.encoding} aggregate here"
    else:
        aggregate = aggregate + own
        law = observer_law(oracle, Observer.ANALYST)
        if not isinstance(law, CountLaws) or law.fragments is not None:
            note = "the exact posterior of this aggregate is not computed"
        else:
            posterior = _normalise(log_w + _aggregate_log_ratio(plan, law, others, aggregate))
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


def _local_view(plan: Plan, observer: Observer, report, w: np.ndarray, log_w: np.ndarray, value: int) -> View:
    """What the server or a captured shuffler sees of the report, and its posterior over the values."""
    law = observer_law(plan.oracle(), observer)
    if isinstance(law, BinLaws) and law.one_bin:
        j = int(np.argmax(w))  # the shuffler of the most common value's bin
        log_l = np.zeros(plan.domain)
        log_l[j] = math.log(law.present[int(report[j])] / law.ref[int(report[j])])
        return View(
            observer,
            f"bin {j}'s bit of the target's report (the shuffler of the most common value's bin)",
            (j, bool(report[j])),
            {"bin": j, "bit": bool(report[j])},
            _normalise(log_w + log_l),
            value,
        )
    one_fragment = isinstance(law, BinLaws) and law.fragments is not None and observer == Observer.SHUFFLER
    seen = report[:1] if one_fragment else report
    sees = local_attack(plan, observer).sees
    return View(observer, sees, seen, _summary(seen), _report_posterior(plan, observer, seen, log_w), value)


def _report_posterior(plan: Plan, observer: Observer, seen, log_w: np.ndarray) -> np.ndarray | None:
    """Posterior over the values given one report (or fragment): w_v P(report | v), normalised."""
    law = observer_law(plan.oracle(), observer)
    if isinstance(law, ResponseLaws):
        return _normalise(log_w + np.where(np.arange(plan.domain) == int(seen), math.log(law.p), math.log(law.q)))
    if isinstance(law, BinLaws):
        j = np.asarray(seen).reshape(-1, plan.domain).sum(axis=0)
        return _normalise(log_w + np.log(law.present[j]) - np.log(law.ref[j]))
    likelihood = report_likelihood(plan.oracle())
    if plan.domain <= LIKELIHOOD_VALUES and not isinstance(likelihood, Unsupported):
        log_l = np.array([float(likelihood(v, seen)) for v in range(plan.domain)])
        return _normalise(log_w + log_l)
    return None


def _aggregate_log_ratio(plan: Plan, law: CountLaws, others: np.ndarray, aggregate: np.ndarray) -> np.ndarray:
    """ln L_v(N_v) per value: the aggregate's law with the target at v against the reference, bin by bin."""
    out = np.zeros(plan.domain)
    values, group = np.unique(others, return_inverse=True)
    order = np.argsort(group, kind="stable")
    for c, at in zip(values, np.split(order, np.cumsum(np.bincount(group))[:-1])):
        k0, ref, present = count_table(law, plan.n - 1, int(c))
        k = np.clip(aggregate[at] - k0, 0, ref.size - 1)
        with np.errstate(divide="ignore"):
            out[at] = np.log(present[k]) - np.log(ref[k])
    return out
