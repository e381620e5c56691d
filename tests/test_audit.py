"""Empirical audits (ldpcore.experiment.audit): the statistics, each observer's attack against the encodings' own
randomizers and aggregate samplers, the acceptance numbers of issue 17 (the server's attack attains
eps_l; the analyst's lower bound against the tight accountant), the soundness grid with its negative
control, the guessing risk against brute force, the demonstration and the command-line-shaped entry."""

import itertools
import json
import math

import numpy as np
import pytest
from scipy.stats import binom, chisquare

from ldpcore.data.histogram_csv import load_csv
from ldpcore.data.images import load_image
from ldpcore.errors import InputError
from ldpcore.experiment import audit
from ldpcore.experiment.audit import attacks, laws, risk, statistics
from ldpcore.experiment.protocol.spec import ProtocolSpec, default_delta, plan
from ldpcore.export import to_json
from ldpcore.oracles import get_encoding
from ldpcore.oracles.base import observer_law, respondent_oracle


def local_plan(encoding="onehot", eps_l=1.0, n=1000, d=8, delta=1e-6, **kw):
    """A plan at local eps_l; one-hot accounted by the tight accountant (Lemma II.6 needs more respondents)."""
    kw.setdefault("accountant", "tight" if encoding == "onehot" else None)
    return plan(ProtocolSpec(eps_c=None, eps_l=eps_l, delta=delta, encoding=encoding, **kw), n, d)


# --- statistics ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k, trials", [(0, 50), (7, 100), (4_000, 10_000), (99, 100)])
def test_clopper_pearson_limit_is_where_the_binomial_tail_equals_alpha(k, trials):
    upper = float(audit.clopper_pearson_upper(k, trials, 0.025))
    assert binom.cdf(k, trials, upper) == pytest.approx(0.025, rel=1e-6)
    assert audit.clopper_pearson_upper(trials, trials, 0.025) == 1.0


@pytest.mark.slow
def test_identical_hypotheses_give_a_positive_bound_in_at_most_the_stated_share_of_runs():
    """The threshold is chosen on one half and measured on the other, so the confidence is not inflated:
    with H0 = H1 the bound is positive in at most 1 - confidence of runs (40 seeded runs at 0.9).
    Maximising the bound over every threshold of the same trials exceeds that share (same draws)."""
    positive = naive = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        s0, s1 = rng.random(4000), rng.random(4000)
        positive += audit.empirical_epsilon(s0, s1, 1e-6, confidence=0.9).eps_lower > 0
        _, fp, fn = statistics.Tally.from_scores(s0, s1).sweep()
        limits = [audit.clopper_pearson_upper(k, 4000, 0.05) for k in (fp, fn)]
        naive += statistics.eps_of_rates(*limits, 1e-6).max() > 0
    assert positive <= 4 < 8 < naive


def test_empirical_epsilon_of_randomized_response_is_below_and_near_its_eps():
    rng = np.random.default_rng(5)
    keep = math.exp(2) / (1 + math.exp(2))
    s1 = (rng.random(400_000) < keep).astype(np.int64)
    s0 = (rng.random(400_000) < 1 - keep).astype(np.int64)
    bound = audit.empirical_epsilon(s0, s1, 1e-9)
    assert 1.95 < bound.eps_lower <= 2.0
    assert bound.trials == 400_000 and bound.measured == 200_000 and bound.threshold == 1.0


def test_exact_curves_touch_the_region_their_eps_allows():
    """The exact curve of a pair lies on or above the (eps_pair, delta) region everywhere and crosses the
    region of any smaller eps: eps_pair is the smallest eps the pair satisfies."""
    a = audit.audit_observer(local_plan("grr", 3.0, d=5), "server", np.random.default_rng(0), 10_000)
    curve = a.exact_curve
    assert (curve.fnr >= audit.dp_tradeoff(a.eps_pair, 1e-6, curve.fpr) - 1e-12).all()
    assert (curve.fnr < audit.dp_tradeoff(a.eps_pair * 0.99, 1e-6, curve.fpr)).any()
    assert a.eps_pair == pytest.approx(3.0, abs=1e-5)


# --- the laws of what each observer sees, against the oracles' own randomizers and samplers --------------------

LOCAL = [
    ("onehot", {}),
    ("onehot", {"tau": 3}),
    ("grr", {}),
    ("oue", {}),
    ("sue", {}),
    ("olh", {}),
    ("hadamard", {}),
    ("murs", {"params": {"base": "grr", "n_r": 10}}),
]


@pytest.mark.parametrize("encoding, kw", LOCAL)
@pytest.mark.parametrize("observer", ["server", "shuffler"])
def test_report_laws_match_the_randomizer_and_its_exact_likelihood(encoding, kw, observer):
    """Reports drawn with the oracle's per-respondent randomizer, scored with its report_log_prob, have
    the categorical law the attack samples from (values and frequencies)."""
    p = local_plan(encoding, 1.5, n=2000, d=6, **kw)
    attack = attacks.local_attack(p, observer)
    llr, law0, law1 = attack.draw(np.random.default_rng(0), 1).values, *attack.exact
    oracle = respondent_oracle(p.oracle())
    rng = np.random.default_rng(1)
    one_fragment = observer == "shuffler" and p.spec.tau is not None
    for value, law in ((0, law1), (1, law0)):  # one-hot: value 1 leaves bin 0 with the absent report's law
        reports = oracle.randomize(np.full(20_000, value), rng)
        if p.spec.tau is not None:  # (tau, n, d) -> (n, tau, d)
            reports = np.moveaxis(reports, 0, 1)
        if one_fragment:
            scores = _fragment_llr(oracle, reports[:, 0])
        else:
            scores = oracle.report_log_prob(0, reports) - oracle.report_log_prob(
                None if encoding == "onehot" else 1, reports
            )
        at = np.minimum(np.searchsorted(llr, scores - 1e-9), llr.size - 1)
        assert np.allclose(llr[at], scores, atol=1e-9)
        seen = np.bincount(at, minlength=llr.size)
        assert chisquare(seen[law > 0], law[law > 0] * seen.sum()).pvalue > 1e-3


def _fragment_llr(oracle, fragment):
    """ln P(one fragment | value 0)/P(one fragment | absent): only bin 0 differs."""
    bit = fragment[:, 0]
    one = (1 - oracle.p_b) * (1 - oracle.p_f) + oracle.p_b * oracle.p_f
    zero = oracle.p_b * (1 - oracle.p_f) + (1 - oracle.p_b) * oracle.p_f
    return np.where(bit, math.log(one / zero), math.log((1 - one) / (1 - zero)))


@pytest.mark.slow
def test_one_hot_analyst_count_has_the_aggregate_samplers_law():
    """Bin v's count under both hypotheses, drawn by the attack, against OneHot.sample_aggregate with the
    target at v (present) or at another value (absent: bin v then gets the all-zeros report's bit)."""
    p = local_plan("onehot", 2.0, n=60, d=3)
    attack = attacks.analyst_attack(p)
    c = attack.worst_c
    s0, s1 = attack.draw(np.random.default_rng(0), 40_000)
    oracle, rng = p.oracle(), np.random.default_rng(1)
    for ours, counts, law in ((s1, [c + 1, 59 - c, 0], attack.exact[1]), (s0, [c, 59 - c, 1], attack.exact[0])):
        theirs = np.array([oracle.sample_aggregate(np.array(counts), rng)[0] for _ in range(10_000)])
        k0 = laws.others_law(c, 59, 1 - p.p_b, p.p_b)[0]
        for sample in (ours, theirs):
            seen = np.bincount(sample - k0, minlength=law.size)[: law.size]
            assert (
                chisquare(seen[law > 1e-4], law[law > 1e-4] / law[law > 1e-4].sum() * seen[law > 1e-4].sum()).pvalue
                > 1e-3
            )


@pytest.mark.parametrize("d", [2, 5])
def test_grr_analyst_scores_have_the_aggregate_samplers_law(d):
    """The GRR analyst's log-likelihood ratio, on histograms from GRR.sample_aggregate (others at w, or at v'
    when d = 2), has the law of the attack's own draws (two-sample chi-square on shared bins)."""
    p = local_plan("grr", 2.0, n=40, d=d)
    attack = attacks.analyst_attack(p)
    s0, s1 = attack.draw(np.random.default_rng(0), 20_000)
    oracle, rng = p.oracle(), np.random.default_rng(1)
    w = 1 if d == 2 else 2
    for ours, target in ((s1, 0), (s0, 1)):
        counts = np.zeros(d, dtype=np.int64)
        counts[w] += 39
        counts[target] += 1
        hists = np.array([oracle.sample_aggregate(counts, rng) for _ in range(10_000)])
        theirs = hists[:, 0] if d == 2 else laws.response_llr(hists[:, [0, 1, 2]], 40, oracle.eps)
        _same_law(ours, theirs)


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["oue", "sue"])
def test_unary_analyst_scores_have_the_aggregate_samplers_law(encoding):
    p = local_plan(encoding, 2.0, n=40, d=4)
    attack = attacks.analyst_attack(p)
    s0, s1 = attack.draw(np.random.default_rng(0), 20_000)
    oracle, rng = p.oracle(), np.random.default_rng(1)
    for ours, target in ((s1, 0), (s0, 1)):
        counts = np.array([0, 0, 39, 0])
        counts[target] += 1
        agg = np.array([oracle.sample_aggregate(counts, rng) for _ in range(10_000)])
        theirs = laws.log_ratio_bit(agg[:, 0], 39, oracle.q, oracle.p, oracle.q) - laws.log_ratio_bit(
            agg[:, 1], 39, oracle.q, oracle.p, oracle.q
        )
        _same_law(ours, theirs)


def _same_law(a, b):
    values = np.union1d(np.round(a, 9), np.round(b, 9))
    ca = np.bincount(np.searchsorted(values, np.round(a, 9)), minlength=values.size)
    cb = np.bincount(np.searchsorted(values, np.round(b, 9)), minlength=values.size)
    big = (ca + cb) >= 20
    table = np.array([ca[big], cb[big]])
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0) / table.sum()
    stat = ((table - expected) ** 2 / expected).sum()
    from scipy.stats import chi2

    assert chi2.sf(stat, big.sum() - 1) > 1e-3


def test_grr_likelihood_ratio_is_the_exact_one():
    """(S + (e^eps - 1) h_v)/(S + (e^eps - 1) h_v') against P(h | v)/P(h | v') summed over every
    assignment of reports, for 4 others at w and d = 3."""
    oracle = local_plan("grr", 1.3, n=5, d=3).oracle()
    law = {0: [oracle.p, oracle.q, oracle.q], 1: [oracle.q, oracle.p, oracle.q], 2: [oracle.q, oracle.q, oracle.p]}

    def prob(hist, target):
        total = 0.0
        for reports in itertools.product(range(3), repeat=5):
            if np.array_equal(np.bincount(reports, minlength=3), hist):
                total += math.prod(law[2 if i < 4 else target][r] for i, r in enumerate(reports))
        return total

    for hist in ([1, 0, 4], [2, 1, 2], [0, 3, 2], [1, 1, 3]):
        exact = math.log(prob(np.array(hist), 0) / prob(np.array(hist), 1))
        assert laws.response_llr(np.array([hist]), 5, oracle.eps)[0] == pytest.approx(exact, rel=1e-12)


def test_the_analysts_pair_is_the_tight_accountants_worst_case():
    """At the tight accountant's worst_c the audited pair's exact eps at delta is the tight eps_c (both from
    exact binomial sums; the accountant's is the supremum over c, so never smaller)."""
    p = plan(ProtocolSpec(eps_c=0.5, delta=1e-6, accountant="tight"), 20_000, 4)
    a = audit.audit_observer(p, "analyst", np.random.default_rng(0), 10_000, accountants=("tight",))
    assert a.worst_c is not None and "worst case" in a.others
    assert a.eps_pair <= a.eps_upper.eps * (1 + 1e-9)
    assert a.eps_pair == pytest.approx(a.eps_upper.eps, rel=1e-4)


# --- acceptance -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["onehot", "grr"])
@pytest.mark.parametrize("eps_l", [1.0, 4.0, 8.0])
def test_server_attack_attains_eps_l(encoding, eps_l):
    """Issue 17: without a shuffler the likelihood-ratio test on one report is optimal, so with 10^6 trials
    the lower bound is within 5% of the claimed eps_l (and never above it)."""
    p = local_plan(encoding, eps_l, n=10_000, d=16)
    a = audit.audit_observer(p, "server", np.random.default_rng(int(eps_l)), 1_000_000)
    assert a.eps_upper.eps == pytest.approx(eps_l)
    assert 0.95 * eps_l <= a.eps_lower <= eps_l


@pytest.mark.slow
@pytest.mark.parametrize("n", [10_000, 1_000_000])
@pytest.mark.parametrize("eps_c", [0.5, 1.0])
def test_analyst_lower_bound_is_below_and_within_half_of_the_tight_eps(n, eps_c):
    """Issue 17: one-hot attribute fragments after shuffling, the tight accountant at delta = default_delta(n)
    (0.1/n): the lower bound from 10^7 trials per hypothesis is at most the tight eps_c and at least half
    of it (docs/audit.md reports the gaps)."""
    p = plan(ProtocolSpec(eps_c=eps_c, delta=default_delta(n), accountant="tight"), n, 16)
    a = audit.audit_observer(p, "analyst", np.random.default_rng(17), 10_000_000, accountants=("tight",))
    assert a.eps_upper.eps == pytest.approx(eps_c)
    assert 0.5 * eps_c <= a.eps_lower <= eps_c


def test_analyst_lower_bound_is_below_the_tight_eps_at_a_million_trials():
    p = plan(ProtocolSpec(eps_c=1.0, delta=1e-7, accountant="tight"), 1_000_000, 16)
    a = audit.audit_observer(p, "analyst", np.random.default_rng(3), 1_000_000)
    assert 0.3 < a.eps_lower <= 1.0 and not a.exceeds()
    assert {c.name for c in a.certified} == set(get_encoding("onehot").accountants)


# --- the soundness suite: every accountant offered, on a seeded grid; and its negative control ---------------

GRID_ENCODINGS = [
    ("onehot", {}),
    ("onehot", {"tau": 4, "eps_f_rule": "equal-variance"}),
    ("grr", {}),
    ("oue", {}),
    ("sue", {}),
]
GRID = [
    (e, kw, n, eps_l, delta)
    for (e, kw) in GRID_ENCODINGS
    for n in (1_000, 10_000)
    for eps_l in (2.0, 6.0)
    for delta in (1e-6, 1e-3)
]
GRID_TRIALS = 100_000
CHECKS_CONFIDENCE = 1 - 0.05 / (3 * len(GRID))  # Bonferroni over the grid's observer audits


@pytest.fixture(scope="module")
def grid_audits():
    out = []
    for i, (encoding, kw, n, eps_l, delta) in enumerate(GRID):
        p = local_plan(encoding, eps_l, n=n, d=4, delta=delta, **kw)
        rngs = np.random.default_rng(i).spawn(3)
        out.append(
            [audit.audit_observer(p, o, r, GRID_TRIALS, CHECKS_CONFIDENCE) for o, r in zip(audit.OBSERVERS, rngs)]
        )
    return out


@pytest.mark.slow
def test_no_lower_bound_exceeds_any_certified_bound_on_the_grid(grid_audits):
    """Issue 17: for every accountant the encoding offers (and the local guarantees of the server and a
    captured shuffler), the empirical lower bound never exceeds the certified eps."""
    violations = [
        (GRID[i], a.observer, c.name, a.eps_lower, c.eps)
        for i, audits in enumerate(grid_audits)
        for a in audits
        for c in a.exceeds()
    ]
    assert not violations
    analysts = [a for audits in grid_audits for a in audits if a.observer == "analyst"]
    assert sum(len([c for c in a.certified if c.valid]) for a in analysts) >= 3 * len(GRID)


@pytest.mark.slow
def test_a_bound_halved_is_caught_by_the_same_check(grid_audits):
    """The negative control: with every certified eps halved the same check flags some grid points, for
    every observer, for the tight, stronger-clone and numerical-clones accountants, and also where the
    shuffle amplifies for real (the halved bound below eps_l / 4), so the suite above can fail."""
    flagged = [
        (GRID[i], a.observer, c) for i, audits in enumerate(grid_audits) for a in audits for c in a.exceeds(scale=0.5)
    ]
    assert {o for _, o, _ in flagged} == set(audit.OBSERVERS)
    assert {"tight-binary-rr", "stronger-clone", "fmt21-numeric"} <= {c.name for _, o, c in flagged if o == "analyst"}
    assert any(o == "analyst" and c.eps / 2 < point[3] / 4 for point, o, c in flagged)


# --- risk in words ---------------------------------------------------------------------------------------


def _brute_risk(p, counts, observer):
    """sum over every observation of max_v w_v P(obs | v), enumerating reports (or aggregates)."""
    w = counts / counts.sum()
    d = counts.size
    if observer != "analyst":
        law = observer_law(p.oracle(), observer)
        ref, present = law.ref, law.present
        total = 0.0
        for obs in itertools.product(range(ref.size), repeat=d):
            base = math.prod(ref[o] for o in obs)
            total += max(w[v] * base * present[obs[v]] / ref[obs[v]] for v in range(d))
        return total
    others = counts.copy()
    others[np.argmax(counts)] -= 1
    tables = [laws.count_table(observer_law(p.oracle(), "analyst"), p.n - 1, int(c)) for c in others]
    total = 0.0
    for obs in itertools.product(*[range(t[0], t[0] + t[1].size) for t in tables]):
        ref = [t[1][o - t[0]] for t, o in zip(tables, obs)]
        pres = [t[2][o - t[0]] for t, o in zip(tables, obs)]
        base = math.prod(ref)
        total += max(w[v] * base * pres[v] / ref[v] for v in range(d) if ref[v] > 0)
    return total


@pytest.mark.parametrize(
    "encoding, kw, observer",
    [
        ("onehot", {}, "server"),
        ("onehot", {"tau": 2}, "server"),
        ("onehot", {"tau": 2}, "shuffler"),
        ("sue", {}, "server"),
        ("onehot", {}, "analyst"),
        ("oue", {}, "analyst"),
    ],
)
def test_bayes_guess_probability_is_exact_against_enumeration(encoding, kw, observer):
    counts = np.array([5, 2, 2, 1]) if observer != "analyst" else np.array([4, 2, 1])
    p = local_plan(encoding, 1.2, n=int(counts.sum()), d=counts.size, **kw)
    risk = next(r for r in audit.guessing_risk(p, counts).risks if r.observer == observer)
    assert risk.exact and risk.p_correct == pytest.approx(_brute_risk(p, counts, observer), rel=1e-9)


def test_grr_and_one_hot_shuffler_guesses_against_enumeration():
    counts = np.array([6, 3, 1, 0, 2])
    w = counts / counts.sum()
    grr = local_plan("grr", 1.5, n=12, d=5)
    o = grr.oracle()
    exact = sum(max(w[v] * (o.p if r == v else o.q) for v in range(5)) for r in range(5))
    risks = {r.observer: r for r in audit.guessing_risk(grr, counts).risks}
    assert risks["server"].p_correct == pytest.approx(exact) == risks["shuffler"].p_correct
    assert risks["analyst"].p_correct is None and "grr" in risks["analyst"].note
    onehot = local_plan("onehot", 1.5, n=12, d=5)
    pb = onehot.p_b
    by_bin = [
        sum(
            prob * max(w[j] * ratio, max(np.delete(w, j)))
            for prob, ratio in ((pb, (1 - pb) / pb), (1 - pb, pb / (1 - pb)))
        )
        for j in range(5)
    ]
    shuffler = next(r for r in audit.guessing_risk(onehot, counts).risks if r.observer == "shuffler")
    assert shuffler.p_correct == pytest.approx(max(by_bin))


def test_risk_sits_between_the_baseline_and_the_certified_bound():
    counts = load_image(_png(), name="tiny").counts
    p = plan(ProtocolSpec(eps_c=1.0, delta=1e-6, accountant="tight"), int(counts.sum()), counts.size)
    report = audit.guessing_risk(p, counts, "tiny")
    for r in report.risks:
        assert r.baseline <= r.p_correct <= r.certified_at_most + 1e-12
        assert "1 in" in r.sentence and r.certified_by.startswith(("eps_l", "tight"))
    assert audit.one_in(0.004) == "1 in 250" and audit.one_in(0.5) == "1 in 2" and audit.one_in(0) == "never"


def test_expected_max_of_independent_variables_against_enumeration():
    rng = np.random.default_rng(0)
    groups = [(2, rng.random(3), rng.dirichlet(np.ones(3))), (1, rng.random(4), rng.dirichlet(np.ones(4)))]
    atoms = [(g[1], g[2]) for g in groups for _ in range(g[0])]
    exact = sum(
        max(a[0][i] for a, i in zip(atoms, pick)) * math.prod(a[1][i] for a, i in zip(atoms, pick))
        for pick in itertools.product(*[range(a[0].size) for a in atoms])
    )
    assert risk.expected_max(groups) == pytest.approx(exact, rel=1e-12)


# --- the demonstration ------------------------------------------------------------------------------------


def _png():
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray((np.arange(48, dtype=np.uint8).reshape(6, 8) * 5), mode="L").save(buf, format="PNG")
    return buf.getvalue()


@pytest.mark.parametrize("source", ["image", "histogram"])
@pytest.mark.parametrize("encoding, kw", [("onehot", {}), ("onehot", {"tau": 4}), ("grr", {}), ("oue", {})])
def test_demonstration_for_an_image_and_a_histogram(source, encoding, kw):
    hist = (
        load_image(_png(), name="tiny")
        if source == "image"
        else load_csv(b"value,count\na,40\nb,25\nc,10\nd,5\n", name="h.csv")
    )
    p = local_plan(encoding, 3.0, n=hist.n, d=hist.d, **kw)
    demo = audit.demonstrate(p, hist.counts, np.random.default_rng(4))
    again = audit.demonstrate(p, hist.counts, np.random.default_rng(4))
    assert demo.value == again.value and [v.guess for v in demo.views] == [v.guess for v in again.views]
    assert hist.counts[demo.value] > 0 and demo.baseline_guess == int(np.argmax(hist.counts))
    views = {v.observer: v for v in demo.views}
    assert set(views) == set(audit.OBSERVERS)
    for v in demo.views:
        if v.posterior is not None:
            assert v.posterior.sum() == pytest.approx(1.0) and v.correct == (v.guess == demo.value)
            assert (v.posterior[hist.counts == 0] == 0).all()
    assert np.asarray(views["analyst"].observation).sum() > 0
    json.loads(to_json(demo.as_dict()))


@pytest.mark.parametrize("encoding", ["onehot", "grr", "sue", "olh"])
def test_demonstration_posterior_is_the_exact_likelihoods(encoding):
    """The server's posterior equals w_v exp(report_log_prob(v, report)) normalised, for every value."""
    counts = np.array([3, 1, 4, 1, 5])
    p = local_plan(encoding, 2.0, n=14, d=5)
    demo = audit.demonstrate(p, counts, np.random.default_rng(2), value=2)
    server = demo.views[0]
    oracle = respondent_oracle(p.oracle())
    log = np.log(counts / counts.sum()) + np.array([oracle.report_log_prob(v, demo.report) for v in range(5)])
    assert np.allclose(server.posterior, np.exp(log - log.max()) / np.exp(log - log.max()).sum())


def test_demonstration_analyst_posterior_against_the_aggregate_likelihood():
    """The analyst's posterior over the value, for one-hot, is w_v prod_j P(N_j | target at v) normalised."""
    counts = np.array([6, 3, 2])
    p = local_plan("onehot", 2.0, n=11, d=3)
    demo = audit.demonstrate(p, counts, np.random.default_rng(8))
    analyst = demo.views[2]
    others = np.array([5, 3, 2])
    tables = [laws.count_table(observer_law(p.oracle(), "analyst"), p.n - 1, int(c)) for c in others]
    n_obs = np.asarray(analyst.observation)
    like = [math.prod((t[2] if j == v else t[1])[n_obs[j] - t[0]] for j, t in enumerate(tables)) for v in range(3)]
    post = counts / counts.sum() * np.array(like)
    assert np.allclose(analyst.posterior, post / post.sum())


# --- the entry point a command line wraps -------------------------------------------------------------------


def test_run_audit_prints_every_observer_as_json_and_reproduces():
    spec = ProtocolSpec(eps_c=1.0, delta=1e-6, accountant="tight")
    report = audit.run_audit(spec, audit.uniform(50_000, 32), trials=20_000, seed=3)
    record = json.loads(to_json(report.as_dict()))
    assert [o["observer"] for o in record["observers"]] == list(audit.OBSERVERS)
    for o in record["observers"]:
        assert {"eps_lower", "confidence", "trials", "eps_upper", "best"} <= set(o)
        assert o["eps_upper"]["eps"] >= o["eps_lower"] and o["trials"] == 20_000
    assert record["observers"][2]["eps_upper"]["accountant"] == "tight-binary-rr"
    alone = audit.run_audit(spec, audit.uniform(50_000, 32), trials=20_000, seed=3, observer="analyst")
    assert alone.observers[0].eps_lower == report.observers[2].eps_lower
    assert "uniform" in record["risk"]["prior_from"] and len(record["risk"]["risks"]) == 3


def test_run_audit_on_a_bundled_dataset_skips_observers_without_an_attack():
    olh = ProtocolSpec(eps_c=1.0, delta=5e-8, encoding="olh")
    report = audit.run_audit(olh, "horse", trials=1_000)
    assert [o.observer for o in report.observers] == ["server", "shuffler"]
    assert report.skipped and "analyst" in report.skipped[0] and report.plan.n == 1_914_606
    with pytest.raises(InputError, match="analyst's audit supports no olh reports: no exact law"):
        audit.run_audit(olh, "horse", observer="analyst", trials=1_000)


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(trials=10), "trials"),
        (dict(trials=10**8), "trials"),
        (dict(confidence=1.0), "confidence"),
        (dict(observer="mallory"), "observer"),
        (dict(n=1), "n \\(respondents\\)"),
        (dict(seed=-1), "seed"),
        (dict(encoding="cms"), "supports the encodings that state what an observer sees, not cms: server: the cms"),
    ],
)
def test_invalid_input_is_one_sentence_naming_the_field(kw, message):
    args = {**dict(n=1000, d=8, eps_l=2.0, delta=1e-6, trials=1000), **kw}
    spec = ProtocolSpec(
        eps_c=None, eps_l=args.pop("eps_l"), delta=args.pop("delta"), encoding=args.pop("encoding", "onehot")
    )
    with pytest.raises(InputError, match=message):
        audit.run_audit(spec, audit.uniform(args.pop("n"), args.pop("d")), **args)


def test_empirical_epsilon_needs_two_trials_per_hypothesis():
    with pytest.raises(InputError, match="at least 2 trials"):
        audit.empirical_epsilon([1], [0, 1], 1e-6)


def test_run_audit_reports_its_progress_after_each_observer_and_the_risk():
    calls = []
    spec, data = ProtocolSpec(eps_c=None, eps_l=2.0, delta=1e-6), audit.uniform(10_000, 8)
    report = audit.run_audit(spec, data, trials=1000, progress=lambda *a: calls.append(a))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)] and len(report.observers) == 3
    calls.clear()
    audit.run_audit(spec, data, trials=1000, observer="server", progress=lambda *a: calls.append(a))
    assert calls == [(1, 2), (2, 2)]
