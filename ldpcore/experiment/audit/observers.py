"""One observer's audit: the attack run many times, the empirical epsilon it shows, its trade-off curves, and
every certified bound beside it; and which observers an encoding can be audited for, with the reason where not."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldpcore.errors import check_whole, require
from ldpcore.experiment.audit.attacks import Attack, analyst_attack, local_attack
from ldpcore.experiment.audit.certified import Certified, certified_bounds
from ldpcore.experiment.audit.curves import TradeOff, exact_curve, pair_eps, tally_curve
from ldpcore.experiment.audit.statistics import (
    DEFAULT_CONFIDENCE,
    EmpiricalBound,
    Tally,
    check_confidence,
    choose_and_measure,
)
from ldpcore.experiment.protocol.spec import Plan
from ldpcore.oracles.base import observer_law
from ldpcore.oracles.laws import OBSERVERS, Observer, Unsupported
from ldpcore.privacy.guarantee import Neighbouring

DEFAULT_TRIALS = 1_000_000
MIN_TRIALS, MAX_TRIALS = 100, 10_000_000


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
    neighbouring: Neighbouring
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
        return tuple(c for c in self.certified if c.valid and c.eps is not None and scale * c.eps < self.eps_lower)

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


def check_trials(trials) -> int:
    value = check_whole(trials, 0, "trials")
    require(
        MIN_TRIALS <= value <= MAX_TRIALS,
        f"trials (per hypothesis) must be a whole number in [{MIN_TRIALS:,}, {MAX_TRIALS:,}] (got {trials}).",
    )
    return value


def check_observer(observer: str) -> Observer:
    require(observer in OBSERVERS, f"observer must be one of {', '.join(OBSERVERS)} (got {observer!r}).")
    return Observer(observer)


def attack(
    plan: Plan,
    observer: str,
    rng: np.random.Generator,
    trials: int = DEFAULT_TRIALS,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[EmpiricalBound, TradeOff, Attack]:
    """Run one observer's attack: `trials` draws per hypothesis, the first half choosing the threshold and
    the second measuring it. Returns the empirical bound, the curve from all trials and the attack."""
    observer, trials, confidence = check_observer(observer), check_trials(trials), check_confidence(confidence)
    a = analyst_attack(plan) if observer == Observer.ANALYST else local_attack(plan, observer)
    halves = []
    for size in (trials // 2, trials - trials // 2):
        drawn = a.draw(rng, size)
        halves.append(drawn if isinstance(drawn, Tally) else Tally.from_scores(*drawn))
    return (
        choose_and_measure(halves[0], halves[1], plan.spec.delta, confidence),
        tally_curve(halves[0].merged(halves[1])),
        a,
    )


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
    exact = eps_pair = None
    if a.exact is not None:
        exact, eps_pair = exact_curve(*a.exact), pair_eps(*a.exact, plan.spec.delta)
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
        exact,
        eps_pair,
    )


@dataclass(frozen=True)
class ObserverSupport:
    """Whether the audit can attack what `observer` sees of this plan's encoding, and the reason where not."""

    observer: Observer
    supported: bool
    reason: str = ""


def supported_observers(plan: Plan) -> tuple[ObserverSupport, ...]:
    """Every observer, in OBSERVERS order, with whether the encoding states its law (ldpcore.oracles.laws)."""
    oracle = plan.oracle()
    out = []
    for observer in OBSERVERS:
        law = observer_law(oracle, observer)
        out.append(
            ObserverSupport(observer, False, law.reason)
            if isinstance(law, Unsupported)
            else ObserverSupport(observer, True)
        )
    return tuple(out)
