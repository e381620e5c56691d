"""Adding an encoding touches one new module plus one registry line: a throwaway encoding defined here
(binary randomized response on every bit of the one-hot of the value, at eps/2 per bit) is registered
with the one line ``single(ToyBitRR)`` and runs end to end: ProtocolSpec -> plan -> run, on the exact
aggregate and the per-respondent path, with its accountants derived from its randomizer family and
an unbiased estimate (fixed seeds, tolerance from its analytic variance); the planner's table and its
inverse take it from the registry. The audit attacks every observer whose law the encoding states
(AuditedToyBitRR states all three, ldpcore.oracles.laws) and, for one that states none (ToyBitRR), says
why for each observer instead of naming encodings."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from ldpcore.data.histogram import Histogram
from ldpcore.errors import InputError
from ldpcore.experiment import audit, planning
from ldpcore.experiment.protocol.run import run
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan
from ldpcore.oracles import ENCODINGS, single
from ldpcore.oracles.base import FrequencyOracle
from ldpcore.oracles.laws import SINGLE_REPORT, BinLaws, CountLaws, Law, Observer, bernoulli
from ldpcore.privacy.bounds import Randomizer, accountants_for
from ldpcore.privacy.guarantee import Neighbouring


@dataclass(frozen=True)
class ToyBitRR:
    """Each of the d one-hot bits through binary RR keeping it w.p. p = e^(eps/2)/(1+e^(eps/2)); two values
    differ in two bits, so eps-LDP under replacement (Wang et al. 2017, symmetric unary encoding)."""

    d: int
    p: float

    name: ClassVar[str] = "toy-bit-rr"
    title: ClassVar[str] = "Toy: binary RR on every one-hot bit"
    neighbouring: ClassVar[Neighbouring] = Neighbouring.REPLACE_ONE
    randomizer: ClassVar[Randomizer] = Randomizer.ANY_LDP
    variance_note: ClassVar[str] = ""

    @classmethod
    def from_eps(cls, eps: float, d: int) -> ToyBitRR:
        return cls(d, 1 / (1 + math.exp(-eps / 2)))

    @staticmethod
    def largest_eps() -> float:
        return 30.0

    def sample_aggregate(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        counts = np.asarray(counts, dtype=np.int64)
        return rng.binomial(counts, self.p) + rng.binomial(counts.sum() - counts, 1 - self.p)

    def randomize(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        truth = np.arange(self.d) == np.asarray(values)[:, None]
        return truth ^ (rng.random(truth.shape) >= self.p)

    def aggregate(self, reports: np.ndarray) -> np.ndarray:
        return np.asarray(reports).sum(axis=0, dtype=np.int64)

    def estimate(self, aggregate: np.ndarray, n: int) -> np.ndarray:
        return (np.asarray(aggregate, dtype=np.float64) - n * (1 - self.p)) / (2 * self.p - 1)

    def variance(self, n: int, counts: np.ndarray | None = None) -> float:
        return n * self.p * (1 - self.p) / (2 * self.p - 1) ** 2

    def expected_messages(self) -> float:
        return 1.0

    @property
    def bits_per_message(self) -> int:
        return self.d

    def reference_cells(self, n: int) -> int:
        return n * self.d


@dataclass(frozen=True)
class AuditedToyBitRR(ToyBitRR):
    """ToyBitRR stating what each observer sees: every bit independent, Bern(p) for the value held and
    Bern(1 - p) for the others, in the report and in the shuffled counts."""

    name: ClassVar[str] = "toy-bit-rr-audited"

    def observer_law(self, observer: Observer) -> Law:
        if observer == Observer.ANALYST:
            return CountLaws(self.p, 1 - self.p, 1 - self.p, self.p)
        return BinLaws(bernoulli(1 - self.p), bernoulli(self.p), SINGLE_REPORT[observer])


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(ENCODINGS, ToyBitRR.name, single(ToyBitRR))  # the one registry line
    monkeypatch.setitem(ENCODINGS, AuditedToyBitRR.name, single(AuditedToyBitRR))


@pytest.fixture
def data() -> Histogram:
    return Histogram(np.array([4000, 2500, 1500, 1000, 600, 300, 100, 0], dtype=np.int64), "toy data")


def test_the_toy_encoding_conforms_and_its_accountants_are_derived(registered):
    encoding = ENCODINGS[ToyBitRR.name]
    assert encoding.accountants == tuple(str(b) for b in accountants_for(Randomizer.ANY_LDP))
    assert encoding.accountants[0] == "fmt21-numeric" and encoding.neighbouring == Neighbouring.REPLACE_ONE
    assert isinstance(ToyBitRR.from_eps(1.0, 8), FrequencyOracle)


def test_the_toy_encoding_runs_end_to_end_and_is_unbiased(registered, data):
    spec = ProtocolSpec(eps_c=0.5, delta=1e-6, encoding=ToyBitRR.name)
    p = plan(spec, data.n, data.d)
    assert spec.accountant == "fmt21-numeric" and p.eps_c <= 0.5 and p.eps_b > 0.5
    assert p.as_dict()["encoding"] == ToyBitRR.name and p.neighbouring == Neighbouring.REPLACE_ONE
    runs = 400
    estimates = np.array([run(spec, data, seed=s).estimate for s in range(runs)])
    oracle = p.oracle()
    assert isinstance(oracle, ToyBitRR)
    sd = math.sqrt(oracle.variance(data.n) / runs)
    assert np.all(np.abs(estimates.mean(axis=0) - data.counts) < 4.5 * sd)  # unbiased
    assert estimates.std(axis=0).mean() == pytest.approx(math.sqrt(oracle.variance(data.n)), rel=0.1)


def test_the_toy_encodings_per_respondent_path_agrees(registered, data):
    spec = ProtocolSpec(eps_c=0.5, delta=1e-6, encoding=ToyBitRR.name)
    exact = np.array([run(spec, data, seed=s).estimate for s in range(40)])
    reference = np.array([run(spec, data, seed=s, per_respondent=True).estimate for s in range(40)])
    sd = math.sqrt(plan(spec, data.n, data.d).oracle().variance(data.n) / 40)
    assert np.all(np.abs(exact.mean(axis=0) - reference.mean(axis=0)) < 4.5 * math.sqrt(2) * sd)


def test_the_planner_tables_the_toy_encoding_from_its_variance(registered, data):
    """One row per accountant, its RMSE the root of the analytic variance (the default grouped variance: the
    toy's variance depends on no other bin), its no-shuffler row the toy at eps_l = eps_c (its oracle at a
    local eps), and the inverse in eps_c meets a target."""
    table = planning.plan_table(data.counts, 0.5, 1e-6, encodings=[ToyBitRR.name])
    assert [r.accountant for r in table.rows] and all(r.encoding == ToyBitRR.name for r in table.rows)
    for row in table.rows:
        assert not row.error and row.rmse == pytest.approx(math.sqrt(row.plan.oracle().variance(data.n)), rel=1e-12)
        alone = ToyBitRR.from_eps(0.5, data.d)
        assert row.rmse_local_only == pytest.approx(math.sqrt(alone.variance(data.n)), rel=1e-12)
    query = planning.PlanQuery(
        data.counts, data.name, 1e-6, target=planning.Target("rmse", 60.0), encodings=(ToyBitRR.name,)
    )
    solved = planning.answer(query)
    assert query.solve == "eps_c" and solved.recommended is not None and solved.recommended.rmse <= 60.0


def test_the_audit_attacks_every_observer_the_toy_states_a_law_for(registered, data):
    spec = ProtocolSpec(eps_c=None, eps_l=2.0, delta=1e-6, encoding=AuditedToyBitRR.name)
    support = audit.supported_observers(plan(spec, data.n, data.d))
    assert [(s.observer, s.supported) for s in support] == [(o, True) for o in audit.OBSERVERS]
    report = audit.run_audit(spec, data, trials=20_000, seed=1)
    assert [o.observer for o in report.observers] == list(audit.OBSERVERS) and not report.skipped
    server, shuffler, analyst = report.observers
    # the pair (bit v, bit v') realises eps_l: at delta its eps is below by about delta / P(the extreme pair) < 1e-5
    assert 2.0 - 1e-5 < server.eps_pair <= 2.0
    assert 0 < server.eps_lower <= 2.0 and shuffler.eps_lower <= 2.0
    assert analyst.eps_lower <= analyst.eps_upper.eps and not any(o.exceeds() for o in report.observers)
    assert all(r.p_correct is not None and r.p_correct <= r.certified_at_most for r in report.risk.risks)


def test_the_audit_says_why_for_an_encoding_that_states_no_law(registered, data):
    spec = ProtocolSpec(eps_c=None, eps_l=2.0, delta=1e-6, encoding=ToyBitRR.name)
    support = audit.supported_observers(plan(spec, data.n, data.d))
    assert not any(s.supported for s in support)
    assert all(s.reason == f"the toy-bit-rr encoding states no law of what the {s.observer} sees" for s in support)
    with pytest.raises(InputError, match="not toy-bit-rr: server: the toy-bit-rr encoding states no law"):
        audit.run_audit(spec, data, trials=1_000)
    with pytest.raises(InputError, match="the analyst's audit supports no toy-bit-rr reports"):
        audit.run_audit(spec, data, observer="analyst", trials=1_000)


# --- the Adversary page picks the toy encodings up from the registry -------------------------------------------


@pytest.mark.app
def test_the_adversary_page_audits_the_toy_and_says_why_not_for_the_toy_without_laws(registered):
    """The page's encoding menu is the registry, so the registered toys open there with no other edit: the one that
    states its laws is audited by every observer (lower bound beside the certified one), the other shows one error
    naming why (AppTest runs the page in this process, where the fixture registered them)."""
    from conftest import assert_clean, metric, open_page

    fast = dict(max_side="32", adv_trials="10000")
    at = open_page("app_pages/adversary.py", encoding=AuditedToyBitRR.name, **fast)
    assert_clean(at)
    table = at.dataframe[0].value
    assert list(table["observer"]) == ["Server without a shuffler", "One captured shuffler", "Analyst after shuffling"]
    for observer in audit.OBSERVERS:
        assert metric(at, f"{observer} guesses right").startswith("1 in ")
    at = open_page("app_pages/adversary.py", encoding=ToyBitRR.name, **fast)
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "the toy-bit-rr encoding states no law of what the server sees" in errors[0]
