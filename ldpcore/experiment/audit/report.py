"""Everything for one protocol, the command line's and the page's entry point: run_audit(spec, data) gives the
plan, each supported observer's audit, the guessing risk, and the observers skipped with the reason."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ldpcore.data.datasets import load_dataset
from ldpcore.data.histogram import Histogram
from ldpcore.errors import MAX_D, check_whole, require
from ldpcore.experiment.audit.observers import (
    DEFAULT_TRIALS,
    ObserverAudit,
    audit_observer,
    check_observer,
    check_trials,
    supported_observers,
)
from ldpcore.experiment.audit.risk import RiskReport, guessing_risk
from ldpcore.experiment.audit.statistics import DEFAULT_CONFIDENCE, check_confidence
from ldpcore.experiment.protocol.spec import Plan, ProtocolSpec, plan
from ldpcore.oracles import get_encoding
from ldpcore.oracles.laws import OBSERVERS


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


def uniform(n: int, d: int) -> Histogram:
    """n respondents spread evenly over d values (the first n mod d values one more): the data of an audit
    without a dataset."""
    n, d = check_whole(n, 2, "n (respondents)"), check_whole(d, 2, "d (domain size)", MAX_D)  # before the counts
    counts = np.full(d, n // d, dtype=np.int64)
    counts[: n % d] += 1
    return Histogram(counts, f"uniform over d = {d:,} values, n = {n:,}")


def run_audit(
    spec: ProtocolSpec,
    data: Histogram | str,
    *,
    observer: str = "all",
    trials: int = DEFAULT_TRIALS,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> AuditReport:
    """The audit of spec on data (a Histogram, e.g. uniform(n, d), or a bundled dataset's name): the observers
    (one or "all"), trials per hypothesis, the confidence and the seed. Each observer draws from its own child
    of the seed, so one observer alone gives the numbers it gives among all. "all" skips the observers the
    encoding states no law for (AuditReport.skipped says why); naming one raises InputError with the reason.
    progress(done, total), if given, is called after each observer's audit and after the guessing risk (a
    dashboard's progress bar)."""
    if isinstance(data, str):
        data = load_dataset(data)
    p = plan(spec, data.n, data.d)
    trials, confidence, seed = check_trials(trials), check_confidence(confidence), check_whole(seed, 0, "seed")
    names = OBSERVERS if observer == "all" else (check_observer(observer),)
    support = {s.observer: s for s in supported_observers(p)}
    rngs = dict(zip(OBSERVERS, np.random.default_rng(seed).spawn(len(OBSERVERS))))
    audits, skipped = [], []
    for done, name in enumerate(names, 1):
        if observer == "all" and not support[name].supported:
            skipped.append(f"{name}: {support[name].reason}")
        else:
            audits.append(audit_observer(p, name, rngs[name], trials, confidence))
        if progress is not None:
            progress(done, len(names) + 1)
    require(
        bool(audits),
        f"the audit supports the encodings that state what an observer sees, not {spec.encoding}: "
        + "; ".join(skipped)
        + ".",
    )
    risk = guessing_risk(p, data.counts, data.name)
    if progress is not None:
        progress(len(names) + 1, len(names) + 1)
    return AuditReport(p, data.name, seed, tuple(audits), risk, tuple(skipped))
