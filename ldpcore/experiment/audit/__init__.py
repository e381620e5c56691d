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
the null report (zero-out, one-hot) or against another value v' (replacement), the other n - 1
respondents' data fixed at a worst case and stated (``ObserverAudit.others``).

Risk in words (``guessing_risk``): the probability that each observer's Bayes-optimal guess of
a target's value is right, the value drawn from the data's own distribution and the other
respondents known to the observer (the informed adversary of DP), against the guess from the
distribution alone, computed exactly (no sampling) as E_ref[max_v w_v L_v], the expected
largest of independent per-bin likelihood ratios under a reference report.

Which observers an encoding is audited for is the encoding's own statement of the laws each sees
(ldpcore.oracles.laws, observer_law): an encoding that states none for an observer is skipped with its
reason (supported_observers). docs/audit.md says what these numbers mean and what they cannot show.

statistics     Clopper-Pearson limits and the empirical epsilon
curves         trade-off curves, the DP region, the exact eps of a pair of laws
laws           the shuffled counts' laws and likelihood ratios
attacks        each observer's attack from the encoding's laws
certified      the certified bounds beside an audit
observers      one observer's audit; which observers an encoding supports
risk           the guessing risk in words
demonstration  one respondent followed through the protocol
report         run_audit(spec, data): everything for one protocol
"""

from __future__ import annotations

from ldpcore.experiment.audit.certified import Certified, certified_bounds
from ldpcore.experiment.audit.curves import TradeOff, dp_tradeoff
from ldpcore.experiment.audit.demonstration import Demonstration, View, demonstrate
from ldpcore.experiment.audit.observers import (
    DEFAULT_TRIALS,
    MAX_TRIALS,
    MIN_TRIALS,
    ObserverAudit,
    ObserverSupport,
    attack,
    audit_observer,
    supported_observers,
)
from ldpcore.experiment.audit.report import AuditReport, run_audit, uniform
from ldpcore.experiment.audit.risk import Risk, RiskReport, guessing_risk, one_in
from ldpcore.experiment.audit.statistics import (
    DEFAULT_CONFIDENCE,
    EmpiricalBound,
    clopper_pearson_upper,
    empirical_epsilon,
)
from ldpcore.oracles.laws import OBSERVERS, Observer

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_TRIALS",
    "MAX_TRIALS",
    "MIN_TRIALS",
    "OBSERVERS",
    "AuditReport",
    "Certified",
    "Demonstration",
    "EmpiricalBound",
    "Observer",
    "ObserverAudit",
    "ObserverSupport",
    "Risk",
    "RiskReport",
    "TradeOff",
    "View",
    "attack",
    "audit_observer",
    "certified_bounds",
    "clopper_pearson_upper",
    "demonstrate",
    "dp_tradeoff",
    "empirical_epsilon",
    "guessing_risk",
    "one_in",
    "run_audit",
    "supported_observers",
    "uniform",
]
