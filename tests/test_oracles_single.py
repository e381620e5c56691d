"""Single-message oracles (GRR, SUE, OUE, OLH/SOLH, Hadamard response) and MURS fake reports:
unbiasedness and analytic variance, exact aggregate sampler vs per-respondent randomizer,
exact likelihood-ratio audits, and the shuffle calibrations of spec/frequency_oracles.md."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats
from scipy.linalg import hadamard
from scipy.optimize import brentq

from ldpcore.errors import InputError
from ldpcore.experiment.protocol.run import respondents
from ldpcore.oracles.direct import GRR, blanket_a, shuffled_grr_eps
from ldpcore.oracles.fake_reports import MURS, murs_eps_server, murs_local_eps
from ldpcore.oracles.hadamard import Hadamard, fwht
from ldpcore.oracles.hashing import MERSENNE_31, OLH, SOLH, solh_parameters
from ldpcore.oracles.unary import OUE, SUE

DELTA = 1e-9
STATS = {  # d = 8, skewed counts below
    "grr": GRR.from_eps(1.5, 8),
    "sue": SUE.from_eps(1.5, 8),
    "oue": OUE.from_eps(1.5, 8),
    "olh": OLH.from_eps(1.5, 8),
    "solh": SOLH.from_eps(2.0, 8, g=3),
    "hadamard": Hadamard.from_eps(1.5, 8),
    "murs-grr": MURS.from_eps(1.5, 8, 3, 200),
    "murs-solh": MURS.from_eps(2.0, 8, 2, 300, g=3),
}
SMALL = {  # d = 3..5: per-respondent paths and audits
    "grr": GRR.from_eps(1.2, 4),
    "sue": SUE.from_eps(1.2, 4),
    "oue": OUE.from_eps(1.2, 4),
    "olh": OLH.from_eps(1.2, 3),
    "olh-universal": OLH.from_eps(1.2, 3, prime=5),
    "solh": SOLH.from_eps(1.0, 4, g=3),
    "hadamard": Hadamard.from_eps(1.2, 5),
    "murs-grr": MURS.from_eps(1.2, 3, 2, 2),
    "murs-solh": MURS.from_eps(1.2, 3, 1, 3, g=4),
}


@pytest.mark.parametrize("name", STATS)
def test_estimator_is_unbiased_with_the_analytic_variance(name):
    oracle = STATS[name]
    counts = np.array([0, 3, 50, 400, 7, 0, 1000, 25], dtype=np.int64)
    n, reps, rng = int(counts.sum()), 4000, np.random.default_rng(11)
    est = np.array([oracle.estimate(oracle.sample_aggregate(counts, rng), n) for _ in range(reps)])
    var = oracle.variance(n, counts)
    assert np.all(np.abs(est.mean(axis=0) - counts) < 4 * np.sqrt(var / reps))
    alpha = 1e-3 / counts.size  # chi-square band per bin, family-wise 1e-3 (Bonferroni)
    lo, hi = stats.chi2.ppf([alpha / 2, 1 - alpha / 2], reps - 1) / (reps - 1)
    ratio = est.var(axis=0, ddof=1) / var
    assert np.all((ratio > lo) & (ratio < hi)), ratio
    assert oracle.variance(n) == pytest.approx(oracle.variance(n, np.zeros(8))[0], rel=1e-12)


def _homogeneous(a, b, joint=True):
    """Two-sample chi-square per column and on the rows' joint outcomes; sparse cells dropped."""
    pairs = [(a[:, [j]], b[:, [j]]) for j in range(a.shape[1])] + ([(a, b)] if joint else [])
    for x, y in pairs:
        keys, inv = np.unique(np.concatenate([x, y]), axis=0, return_inverse=True)
        table = np.stack(
            [np.bincount(inv[: len(x)], minlength=len(keys)), np.bincount(inv[len(x) :], minlength=len(keys))]
        )
        table = table[:, table.sum(axis=0) >= 10]
        if table.shape[1] > 1:
            assert stats.chi2_contingency(table).pvalue > 1e-4, table


@pytest.mark.parametrize("name", SMALL)
def test_aggregate_sampler_agrees_with_the_per_respondent_randomizer(name):
    """olh-universal: the real hash ((a x + b) mod P) mod g with a small prime, P = 17 (collision
    probability 0.206, not 1/g = 0.25), against the sampler with that family's q; the family is only
    pairwise independent, so the support counts agree bin by bin, not jointly."""
    universal = name == "olh-universal"
    oracle = OLH.from_eps(1.2, 3, prime=17) if universal else SMALL[name]
    counts = np.array([3, 0, 2, 1, 4][: oracle.d], dtype=np.int64)
    values, reps = respondents(counts), 3000
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(2)
    fast = np.array([oracle.sample_aggregate(counts, rng_a) for _ in range(reps)])
    slow = np.array([oracle.aggregate(oracle.randomize(values, rng_b)) for _ in range(reps)])
    _homogeneous(fast, slow, joint=not universal)


def test_real_hash_olh_is_unbiased_at_moderate_n():
    oracle = OLH.from_eps(1.5, 6, prime=MERSENNE_31)
    counts = np.array([0, 40, 5, 300, 12, 100])
    values, n, reps, rng = respondents(counts), int(counts.sum()), 400, np.random.default_rng(3)
    est = np.array([oracle.estimate(oracle.aggregate(oracle.randomize(values, rng)), n) for _ in range(reps)])
    assert np.all(np.abs(est.mean(axis=0) - counts) < 4 * np.sqrt(oracle.variance(n, counts) / reps))


def _all_reports(oracle):
    """Every report of a small oracle, one per row (a leading axis over the report space)."""
    inner = oracle.oracle if isinstance(oracle, MURS) else oracle
    if isinstance(inner, GRR):
        return np.arange(inner.d)
    if isinstance(inner, Hadamard):
        return np.arange(inner.K)
    if isinstance(inner, (SUE, OUE)):
        return np.array(list(itertools.product([False, True], repeat=inner.d)))
    if inner.prime is None:  # hash tables [g]^d, then y
        return np.array(list(itertools.product(range(inner.g), repeat=inner.d + 1)))
    return np.array(list(itertools.product(range(1, inner.prime), range(inner.prime), range(inner.g))))


@pytest.mark.parametrize("name", SMALL)
def test_audit_exact_likelihood_ratios(name):
    """Replacement LDP: max over reports and pairs of inputs of ln P[R(x)=y]/P[R(x')=y] is eps, attained."""
    oracle = SMALL[name]
    reports = _all_reports(oracle)
    logs = np.array([oracle.report_log_prob(x, reports) for x in range(oracle.d)])
    assert np.exp(logs).sum(axis=1) == pytest.approx(np.ones(oracle.d), abs=1e-12)
    worst = max((a - b).max() for a in logs for b in logs)
    assert worst <= oracle.eps + 1e-12
    assert worst == pytest.approx(oracle.eps, abs=1e-12)


@pytest.mark.parametrize("name", SMALL)
def test_randomizer_frequencies_match_the_exact_report_probabilities(name):
    oracle = SMALL[name]
    inner = oracle.oracle if isinstance(oracle, MURS) else oracle  # a respondent's own randomizer
    reports, draws = _all_reports(oracle), 20000
    sample = inner.randomize(np.ones(draws, dtype=np.int64), np.random.default_rng(7))
    rows = np.concatenate([reports.reshape(len(reports), -1), sample.reshape(draws, -1)]).astype(np.int64)
    keys, inv = np.unique(rows, axis=0, return_inverse=True)
    assert len(keys) == len(reports)  # every drawn report is in the enumeration
    observed = np.bincount(inv[len(reports) :], minlength=len(keys))[inv[: len(reports)]]
    expected = np.exp(oracle.report_log_prob(1, reports)) * draws
    assert stats.chisquare(observed, expected).pvalue > 1e-3


@pytest.mark.parametrize("eps_c,a,g,eps_l", [(0.5, 833.8, 278, 6.32), (1.0, 3335.2, 1112, 7.71)])
def test_solh_parameters_reproduce_the_spec(eps_c, a, g, eps_l):
    n = 10**6
    assert round(blanket_a(eps_c, n, DELTA), 1) == a
    d_range, local = solh_parameters(eps_c, n, DELTA)
    assert (d_range, round(local, 2)) == (g, eps_l)
    oracle = SOLH.from_shuffle(eps_c, n, DELTA, d=10**5)
    assert (oracle.g, oracle.eps) == (d_range, pytest.approx(local, rel=1e-12))
    # the k-RR blanket bound on the hash range certifies exactly eps_c ...
    assert math.sqrt(14 * math.log(2 / DELTA) * (math.exp(local) + g - 1) / (n - 1)) == pytest.approx(eps_c, rel=1e-12)
    # ... and the variance is the spec's ~94.5 ln(2/delta)/(n (n-1) eps_c^2) per frequency, for any d
    spec_var = 94.5 * math.log(2 / DELTA) / (n * (n - 1) * eps_c**2)
    assert oracle.variance(n) / n**2 == pytest.approx(spec_var, rel=0.01)


def test_solh_and_shuffled_grr_agree_with_the_accountants():
    from ldpcore.privacy.bounds import get_bound

    n = 10**6
    g, eps_l = solh_parameters(0.5, n, DELTA)
    assert get_bound("solh").forward(eps_l, n, DELTA, g).eps_c == pytest.approx(0.5, rel=1e-12)
    grr = GRR.from_shuffle(0.5, n, DELTA, 100)
    assert get_bound("grr-shuffle").forward(grr.eps, n, DELTA, 100).eps_c == pytest.approx(0.5, rel=1e-12)


def test_shuffled_grr_inverse_and_infeasibility():
    n, a = 10**6, blanket_a(0.5, 10**6, DELTA)
    assert shuffled_grr_eps(0.5, n, DELTA, 100) == pytest.approx(math.log(a - 99), rel=1e-14)
    assert GRR.from_shuffle(0.5, n, DELTA, 100).eps == pytest.approx(math.log(734.8056), abs=1e-6)
    with pytest.raises(InputError, match="shuffled GRR cannot reach eps_c=0.5 .* A = .*833.8 > d = 834"):
        GRR.from_shuffle(0.5, n, DELTA, 834)
    with pytest.raises(InputError, match="blanket bound holds for eps_c <= min\\(1, 14 ln\\(2/delta\\)/27\\) = 1 "):
        GRR.from_shuffle(1.5, n, DELTA, 10)
    trivial = SOLH.from_shuffle(0.1, 1000, DELTA, 10)  # below SOLH's floor: only the trivial bound eps_l = eps_c
    assert trivial.eps == pytest.approx(0.1)
    with pytest.raises(InputError, match="SOLH cannot reach"):
        SOLH.from_shuffle(0.1, 20, DELTA, 10)


def test_variance_without_counts_matches_the_spec_table():
    n, e = 10**6, 1.3
    x = math.exp(e)
    assert GRR.from_eps(e, 50).variance(n) == pytest.approx(n * (x + 48) / (x - 1) ** 2, rel=1e-12)
    assert SUE.from_eps(e, 50).variance(n) == pytest.approx(n * math.exp(e / 2) / (math.exp(e / 2) - 1) ** 2, rel=1e-12)
    assert OUE.from_eps(e, 50).variance(n) == pytest.approx(4 * n * x / (x - 1) ** 2, rel=1e-12)
    assert OLH.from_eps(math.log(3), 50).variance(n) == pytest.approx(4 * n * 3 / 2**2, rel=1e-12)  # g = e^eps + 1
    assert Hadamard.from_eps(e, 50).variance(n) == pytest.approx(n * ((x + 1) / (x - 1)) ** 2, rel=1e-12)


def test_murs_epsilons_of_a_spec_like_example():
    """n = 1e6, delta = 1e-9, GRR on d = 100, r = 3 shufflers, eps_1 = 0.5 against the server."""
    n, ln = 10**6, math.log(2 / DELTA)
    murs = MURS.from_central(0.5, n, DELTA, 100, shufflers=3, fakes_per_shuffler=20_000)
    assert murs.eps == pytest.approx(7.358550, abs=1e-6)
    assert murs.eps == pytest.approx(brentq(lambda e: murs_eps_server(e, n, DELTA, 100, 60_000) - 0.5, 1, 20), abs=1e-9)
    honest = murs.epsilons(n, DELTA)
    assert (honest.eps_server, honest.eps_shufflers) == (pytest.approx(0.5, rel=1e-12), murs.eps)
    assert (
        honest.eps_users
        == pytest.approx(math.sqrt(14 * ln * 100 / 60_000), rel=1e-12)
        == pytest.approx(0.706906, abs=1e-6)
    )
    one = murs.epsilons(n, DELTA, colluding=1)  # its 20,000 fakes are known: n_u -> 40,000
    assert one.hidden_fakes == 40_000 and one.eps_server == pytest.approx(0.547754, abs=1e-6)
    assert one.eps_users == pytest.approx(math.sqrt(14 * ln * 100 / 40_000), rel=1e-12)
    with pytest.raises(InputError, match="colluding shufflers"):
        murs.epsilons(n, DELTA, colluding=3)


def test_more_fakes_allow_a_larger_local_eps_at_the_same_eps_1():
    n = 10**6
    eps_l = [murs_local_eps(0.5, n, DELTA, 100, 3 * n_r) for n_r in (0, 5_000, 10_000, 20_000, 39_000)]
    assert eps_l[0] == pytest.approx(shuffled_grr_eps(0.5, n, DELTA, 100), rel=1e-12)
    assert np.all(np.diff(eps_l) > 0)
    assert murs_local_eps(0.5, n, DELTA, 100, 3 * 40_000) == math.inf  # the fakes alone suffice
    with pytest.raises(InputError, match="fakes alone"):
        MURS.from_central(0.5, n, DELTA, 100, 3, 40_000)


def test_shared_shape_communication_and_accountant_names():
    from ldpcore.oracles import ENCODINGS
    from ldpcore.privacy.bounds import BOUNDS, get_bound

    for oracle in list(STATS.values()) + list(SMALL.values()):
        assert oracle.neighbouring == "replacement" and oracle.expected_messages() == 1.0
        bounds = ENCODINGS[oracle.name].accountants  # the registry says which bounds hold
        assert {get_bound(b).neighbouring for b in bounds if b in BOUNDS} <= {"replacement"}
        assert isinstance(oracle.name, str) and isinstance(oracle.title, str)
    for cls in (GRR, SUE, OUE, OLH, Hadamard):
        for e in (0.01, 1.0, 8.0):
            assert cls.from_eps(e, 5).eps == pytest.approx(e, rel=1e-9)
    assert [GRR.from_eps(1, 5).bits_per_message, SUE.from_eps(1, 5).bits_per_message] == [3, 5]
    assert [Hadamard.from_eps(1, d).K for d in (3, 4, 8)] == [4, 8, 16]
    assert Hadamard.from_eps(1, 8).bits_per_message == 4
    assert OLH.from_eps(2.0, 100).g == 8 and OLH.from_eps(2.0, 100).bits_per_message == 62 + 3
    x = np.random.default_rng(0).integers(0, 50, 32)
    assert np.array_equal(fwht(x), hadamard(32) @ x)


@pytest.mark.parametrize(
    "build,message",
    [
        (lambda: GRR.from_eps(0, 5), "eps must be a finite number > 0"),
        (lambda: SUE.from_eps(1, 1), "d \\(domain size\\) must be a whole number >= 2"),
        (lambda: OLH.from_eps(1, 5, prime=6), "hash prime must be a prime"),
        (lambda: OLH.from_eps(1, 10, prime=7), "hash prime must be a prime in \\[max\\(d, g\\)"),
        (lambda: OLH.from_eps(30, 5), "eps <= 21"),
        (lambda: MURS(SUE.from_eps(1, 5), 2, 10), "MURS needs a GRR or \\(S\\)OLH oracle"),
        (lambda: MURS.from_eps(1, 5, 0, 10), "shufflers must be a whole number >= 1"),
        (lambda: MURS.from_eps(1, 5, 2, -1), "fake reports must be a whole number >= 0"),
    ],
)
def test_invalid_parameters_raise_one_clear_message(build, message):
    with pytest.raises(InputError, match=message):
        build()
