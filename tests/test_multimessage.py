"""Tests of the multi-message oracles of seeds/001 and the single-message reference
(ldpcore.oracles.multimessage): the exact Hadamard and Count-Min accountants against brute
force and the spec's rho_min numbers, exact aggregate samplers vs per-user randomizers,
Count-Min's exact moments and one-sided guarantee, B-ary RR's blanket and audit, the
reference curves."""

import itertools
import math

import numpy as np
import pytest
from scipy import signal, stats

from ldpcore.errors import InputError
from ldpcore.oracles.multimessage import (
    BaryRR,
    CountMinMultiMessage,
    HadamardMultiMessage,
    count_min_delta,
    count_min_q_min,
    hadamard_delta,
    hadamard_rho_min,
    multi_message_upper_bound,
    paper_q,
    paper_rho,
    paper_tau,
    single_message_lower_bound,
)


@pytest.mark.parametrize("eps,expected", [(0.5, 137), (1.0, 43), (2.0, 19)])
def test_rho_min_reproduces_the_spec(eps, expected):
    """spec: n=4096, tau=12, delta=1e-6 -> rho_min ~ 137/43/19, several times below the paper's rho."""
    rho = hadamard_rho_min(eps, 1e-6, 4096)
    assert abs(rho / expected - 1) <= 0.1
    assert hadamard_delta(eps, rho, 4096, 12) <= 1e-6 < hadamard_delta(eps, rho - 1, 4096, 12)
    assert paper_tau(4096) == 12 and paper_rho(eps, 1e-6) / rho > 6  # ~10x: 14.5/11.6/6.6


@pytest.mark.parametrize("tau,rho", [(1, 1), (1, 3), (2, 1), (2, 2)])
def test_accountant_matches_brute_force_over_all_outputs(tau, rho):
    """One user (n=1): enumerate every output sequence, group it into multisets, and compute
    delta(eps) = sum over multisets of [P_j - e^eps P_j']_+ from report_log_prob."""
    oracle = HadamardMultiMessage(d=3, tau=tau, rho=rho)  # B' = 4
    tuples = np.array(list(itertools.product(range(oracle.width), repeat=tau)))
    outputs = tuples[np.array(list(itertools.product(range(len(tuples)), repeat=1 + rho)))]
    codes = np.sort((outputs * oracle.width ** np.arange(tau)).sum(axis=-1), axis=-1)
    _, first = np.unique(codes, axis=0, return_index=True)
    multisets = outputs[first]
    p0, p1 = (np.exp(oracle.report_log_prob(j, multisets)) for j in (0, 1))
    assert p0.sum() == pytest.approx(1.0, abs=1e-12) and p1.sum() == pytest.approx(1.0, abs=1e-12)
    for eps in (0.1, 0.7, 1.5):
        brute = np.clip(p0 - math.exp(eps) * p1, 0, None).sum()
        assert hadamard_delta(eps, rho, 1, tau) == pytest.approx(brute, rel=1e-9, abs=1e-15)
    assert np.isinf(oracle.report_log_prob(1, multisets)).any()  # local eps is infinite


def test_randomizer_draws_match_report_log_prob():
    oracle = HadamardMultiMessage(d=3, tau=1, rho=1)
    draws = oracle.randomize(np.full(30_000, 2), np.random.default_rng(3))
    codes = np.sort(draws[..., 0], axis=-1) @ np.array([4, 1])
    support = np.array([[a, b] for a in range(4) for b in range(a, 4)])
    probs = np.exp(oracle.report_log_prob(2, support[:, :, None]))
    observed = np.array([np.sum(codes == 4 * a + b) for a, b in support])
    assert probs.sum() == pytest.approx(1.0) and observed[probs == 0].sum() == 0
    assert stats.chisquare(observed[probs > 0], probs[probs > 0] * 30_000).pvalue > 1e-3


@pytest.mark.slow
def test_hadamard_aggregate_marginals_agree_with_the_tuples():
    counts = np.array([5, 0, 2, 9, 1], dtype=np.int64)
    oracle = HadamardMultiMessage(d=5, tau=2, rho=3)
    rng_a, rng_b, reps = np.random.default_rng(1), np.random.default_rng(2), 3000
    fast = np.array([oracle.sample_aggregate(counts, rng_a) for _ in range(reps)])
    slow = np.array([oracle.sample_aggregate(counts, rng_b, exact=True) for _ in range(reps)])
    n = counts.sum()
    for j in range(counts.size):
        pmf = counts[j] + np.arange(n * 4 - counts[j] + 1)
        probs = stats.binom.pmf(pmf - counts[j], n * 4 - counts[j], 1 / 4)
        for sample in (fast[:, j], slow[:, j]):
            observed = np.array([np.sum(sample == v) for v in pmf])
            keep = probs * reps >= 5
            f_obs = np.append(observed[keep], observed[~keep].sum())
            f_exp = np.append(probs[keep], probs[~keep].sum()) * reps
            assert stats.chisquare(f_obs, f_exp * f_obs.sum() / f_exp.sum()).pvalue > 1e-4
    est = np.array([oracle.estimate(c, n) for c in fast])
    assert np.all(np.abs(est.mean(axis=0) - counts) < 4 * np.sqrt(oracle.variance(n, counts) / reps))
    assert est.var(axis=0, ddof=1) / oracle.variance(n, counts) == pytest.approx(np.ones(5), abs=0.12)


def test_hadamard_from_eps_and_communication():
    tight = HadamardMultiMessage.from_eps(1.0, d=1000, n=4096, delta=1e-6)
    paper = HadamardMultiMessage.from_eps(1.0, d=1000, n=4096, delta=1e-6, rule="paper")
    assert (tight.tau, tight.rho, paper.rho) == (12, 43, 498)
    assert tight.width == 1024 and tight.bits_per_message == 12 * 10 and tight.expected_messages() == 44
    assert HadamardMultiMessage.accountants == () and "infinite" in HadamardMultiMessage.privacy_note


def test_count_min_never_underestimates_without_noise():
    rng = np.random.default_rng(4)
    for seed in range(30):
        counts = rng.poisson(rng.choice([0.5, 5, 50]), size=200)
        oracle = CountMinMultiMessage(d=200, q=0.0, tau=3, width=64, seed=seed)
        assert np.all(oracle.estimate(oracle.sample_aggregate(counts, rng), counts.sum()) >= counts)
    noisy = CountMinMultiMessage(d=200, q=0.01, tau=3, width=64, seed=1, one_sided=True)
    assert np.all(noisy.estimate(noisy.sample_aggregate(counts, rng), counts.sum()) >= counts)


def assert_simulation_matches_moments(oracle, counts, seed: int, z: float, reps: int = 4000) -> np.ndarray:
    """Seeded simulation: every bin's mean error within z standard errors of moments' exact bias, and its
    variance inside the chi-square band (Bonferroni over bins, 1e-3). Returns the bias."""
    rng, n = np.random.default_rng(seed), int(counts.sum())
    err = np.array([oracle.estimate(oracle.sample_aggregate(counts, rng), n) - counts for _ in range(reps)])
    bias, var = oracle.moments(counts)
    assert np.all(np.abs(err.mean(axis=0) - bias) < z * np.sqrt(var / reps))
    alpha = 1e-3 / counts.size
    lo, hi = stats.chi2.ppf([alpha / 2, 1 - alpha / 2], reps - 1) / (reps - 1)
    assert np.all((err.var(axis=0, ddof=1) / var > lo) & (err.var(axis=0, ddof=1) / var < hi))
    return bias


@pytest.mark.parametrize("one_sided", [False, True])
def test_count_min_exact_moments_match_simulation(one_sided):
    counts = np.array([0, 3, 40, 7, 0, 12, 90, 1, 5, 0, 22, 2, 60, 0, 9, 4], dtype=np.int64)
    oracle = CountMinMultiMessage(d=16, q=0.05, tau=3, width=8, seed=2, one_sided=one_sided)  # collisions
    bias = assert_simulation_matches_moments(oracle, counts, seed=5, z=4.0)
    if one_sided:
        assert np.all(bias >= 0)
    # without collisions the variance is that of min_t Bin(n, q), whatever the data
    n = int(counts.sum())
    direct = np.random.default_rng(6).binomial(n, 0.05, size=(200_000, 3)).min(axis=1).var()
    assert oracle.variance(n) == pytest.approx(direct, rel=0.02)


def test_count_min_aggregate_agrees_with_the_randomizer_and_audit():
    counts = np.array([3, 0, 2, 1], dtype=np.int64)
    oracle = CountMinMultiMessage(d=4, q=0.2, tau=2, width=3, seed=1)
    values, reps = np.repeat(np.arange(4), counts), 3000
    rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(8)
    fast = np.array([oracle.sample_aggregate(counts, rng_a).ravel() for _ in range(reps)])
    slow = np.array([oracle.aggregate(oracle.randomize(values, rng_b)).ravel() for _ in range(reps)])
    for col in range(fast.shape[1]):
        support = np.union1d(fast[:, col], slow[:, col])
        table = np.array([[np.sum(a[:, col] == v) for v in support] for a in (fast, slow)])
        table = table[:, table.sum(axis=0) >= 10]
        assert stats.chi2_contingency(table).pvalue > 1e-4, (col, table)
    one_user = CountMinMultiMessage(d=4, q=0.2, tau=1, width=3, seed=1)
    reports = np.array(list(itertools.product(range(3), repeat=3)))[:, None, :]  # every (1, 3) count matrix
    logs = [one_user.report_log_prob(x, reports) for x in range(4)]
    assert all(np.exp(lp).sum() == pytest.approx(1.0) for lp in logs)
    assert any((np.isinf(a) & np.isfinite(b)).any() for a in logs for b in logs)  # local eps = infinity


def test_count_min_paper_parameters():
    oracle = CountMinMultiMessage.from_eps(1.0, d=1000, n=10**7, delta=1e-6)
    tau = math.ceil(math.log2(1000))
    assert oracle.tau == tau and oracle.width == 2 * 10**7
    assert oracle.q == pytest.approx(90 * tau**2 * math.log(2 * tau / 1e-6) / 1e7)
    assert oracle.expected_messages() == pytest.approx(tau * (1 + 2 * 10**7 * oracle.q))
    with pytest.raises(InputError, match="too small for the paper's blanket"):
        CountMinMultiMessage.from_eps(1.0, d=1000, n=4096, delta=1e-6)


def _count_min_brute(eps, q, n, tau):
    """Both directions' hockey-stick divergence over every (y_a, y_b) of every row, rows as an
    explicit product space: P = (N + 1, N), Q = (N, N + 1) per row, N ~ Bin(n, q)."""
    f = stats.binom.pmf(np.arange(n + 1), n, q)
    plain, plus = np.append(f, 0.0), np.insert(f, 0, 0.0)  # laws of N and N + 1 on 0..n+1
    p = q_ = np.ones(1)
    for _ in range(tau):
        p, q_ = np.outer(p, np.outer(plus, plain)).ravel(), np.outer(q_, np.outer(plain, plus)).ravel()
    e = math.exp(eps)
    return np.clip(p - e * q_, 0, None).sum(), np.clip(q_ - e * p, 0, None).sum()


@pytest.mark.parametrize(
    "n,q,tau",
    [
        (1, 0.3, 1),
        (20, 0.05, 1),
        (20, 0.3, 1),
        (60, 0.1, 1),
        (60, 0.3, 1),
        (3, 0.5, 2),
        (20, 0.1, 2),
        (30, 0.05, 2),
        (40, 0.3, 2),
    ],
)
def test_count_min_delta_bounds_brute_force_tightly(n, q, tau):
    """Pessimistic PLD >= the exact delta of the product space, within 2e-3 relative (measured: at
    most 7.9e-4, e.g. 1.416014e-03 vs 1.414900e-03 at n=40, q=0.3, tau=2, eps=2)."""
    for eps in (0.3, 1.0, 2.0):
        forward, backward = _count_min_brute(eps, q, n, tau)
        assert forward == pytest.approx(backward, rel=1e-12, abs=1e-15)  # symmetric pair
        pld = count_min_delta(eps, q, n, tau)
        assert forward * (1 - 1e-12) <= pld <= forward * (1 + 2e-3)


def test_count_min_delta_falls_in_q_up_to_one_half_and_is_symmetric():
    """What count_min_q_min relies on, by brute force: delta(q) = delta(1 - q), falling on (0, 1/2]."""
    for n, tau in [(20, 1), (40, 1), (12, 2)]:
        for eps in (0.5, 2.0):
            qs = np.linspace(0.02, 0.5, 25)
            exact = np.array([_count_min_brute(eps, q, n, tau)[0] for q in qs])
            assert np.all(np.diff(exact) < 0)
            mirror = np.array([_count_min_brute(eps, 1 - q, n, tau)[0] for q in qs])
            assert mirror == pytest.approx(exact, rel=1e-9, abs=1e-15)


def test_count_min_delta_matches_the_exact_table_law():
    """Audit from the randomizer alone: the law of the whole table for n users is the convolution
    of every user's law of message counts (report_log_prob); its hockey-stick divergence between
    neighbours whose hashes differ in every row is count_min_delta's (other cells cancel)."""
    for d, tau, width, others, q in [(4, 1, 3, [0, 1, 3], 0.2), (6, 2, 2, [0, 5], 0.3)]:
        oracle = CountMinMultiMessage(d=d, q=q, tau=tau, width=width, seed=3)
        cells = tau * width
        reports = np.array(list(itertools.product(range(3), repeat=cells))).reshape(-1, tau, width)
        laws = [np.exp(oracle.report_log_prob(x, reports)).reshape((3,) * cells) for x in range(d)]
        x, x2 = next((a, b) for a in range(d) for b in range(d) if np.all(oracle._cells[:, a] != oracle._cells[:, b]))
        rest = laws[others[0]]
        for v in others[1:]:
            rest = signal.convolve(rest, laws[v], method="direct")
        p, q2 = (signal.convolve(rest, laws[v], method="direct").ravel() for v in (x, x2))
        assert p.sum() == pytest.approx(1.0) and q2.sum() == pytest.approx(1.0)
        for eps in (0.2, 1.0, 2.5):
            exact = np.clip(p - math.exp(eps) * q2, 0, None).sum()
            assert exact == pytest.approx(np.clip(q2 - math.exp(eps) * p, 0, None).sum(), rel=1e-9)
            assert exact * (1 - 1e-9) <= count_min_delta(eps, q, len(others) + 1, tau) <= exact * (1 + 2e-3)


@pytest.mark.slow
@pytest.mark.parametrize("eps,delta,n,tau", [(1.0, 1e-6, 10**5, 6), (0.5, 1e-8, 10**4, 3), (3.0, 1e-10, 10**7, 14)])
def test_count_min_q_min_is_certified_and_minimal(eps, delta, n, tau):
    q = count_min_q_min(eps, delta, n, tau)
    assert count_min_delta(eps, q, n, tau) <= delta < count_min_delta(eps, q * (1 - 2e-3), n, tau)
    assert q < paper_q(eps, delta, n, tau) / 50


@pytest.mark.slow
def test_count_min_tight_q_is_hundreds_of_times_below_the_paper():
    """n = 1e6, d = 1e4 (tau = 14), eps = 1, delta = 1e-8: q 7.32e-4 against the paper's 0.384
    (1/524); RMSE per value 48 against 871 (peaked data), 2.1e4 messages per user against 1.1e7."""
    n, d = 10**6, 10**4
    tight = CountMinMultiMessage.from_eps(1.0, d, n, 1e-8, rule="tight")
    paper = CountMinMultiMessage.from_eps(1.0, d, n, 1e-8)  # the default rule is the paper's
    assert (tight.tau, tight.width) == (paper.tau, paper.width) == (14, 2 * n)
    assert paper.q == paper_q(1.0, 1e-8, n, 14) and tight.q / paper.q == pytest.approx(1 / 524, rel=0.02)
    counts = np.zeros(d, dtype=np.int64)
    counts[0] = n
    rmse = [math.sqrt(np.mean(b**2 + v)) for b, v in (o.moments(counts) for o in (tight, paper))]
    assert rmse[0] == pytest.approx(48, rel=0.02) and rmse[1] / rmse[0] > 15
    with pytest.raises(InputError, match="rule must be"):
        CountMinMultiMessage.from_eps(1.0, d, n, 1e-8, rule="exact")
    with pytest.raises(InputError, match="too small for Count-Min's blanket"):
        CountMinMultiMessage.from_eps(1.0, d, 1000, 1e-8, rule="tight")


@pytest.mark.slow
def test_count_min_with_tight_q_keeps_its_exact_moments():
    """The simulated error's mean and variance are moments' exact bias (the min's, negative, plus
    collisions) and variance at the tight q as well."""
    counts = np.random.default_rng(11).multinomial(5000, np.full(64, 1 / 64))
    oracle = CountMinMultiMessage.from_eps(1.0, 64, 5000, 1e-6, width=32, seed=4, rule="tight")  # collisions
    assert_simulation_matches_moments(oracle, counts, seed=12, z=4.5)


def test_bary_rr_blanket_and_exact_sampler():
    n, d, delta, eps = 100_000, 50, 1e-6, 0.5
    oracle = BaryRR.from_eps(eps, d, n, delta)
    gamma = max(14 * d * math.log(2 / delta) / ((n - 1) * eps**2), 27 * d / ((n - 1) * eps))
    assert oracle.gamma == pytest.approx(gamma) and oracle.eps_l == pytest.approx(math.log(1 + d * (1 - gamma) / gamma))
    from ldpcore.privacy.bounds import get_bound  # lazily: the accountant module is shared work

    assert all(get_bound(name).name == name for name in BaryRR.accountants)
    assert get_bound("blanket-krr").forward(oracle.eps_l, n, delta, d).eps_c == pytest.approx(eps)
    counts = np.random.default_rng(9).integers(0, 4000, size=d)
    rng, reps, n = np.random.default_rng(10), 3000, int(counts.sum())
    est = np.array([oracle.estimate(oracle.sample_aggregate(counts, rng), n) for _ in range(reps)])
    assert np.all(np.abs(est.mean(axis=0) - counts) < 4 * np.sqrt(oracle.variance(n, counts) / reps))
    assert est.var(axis=0, ddof=1) / oracle.variance(n, counts) == pytest.approx(np.ones(d), abs=0.12)
    with pytest.raises(InputError, match="gamma"):
        BaryRR.from_eps(0.1, 10_000, 1000, 1e-6)


@pytest.mark.slow
def test_bary_rr_sampler_agrees_with_randomizer_and_audit():
    oracle = BaryRR(d=4, gamma=0.6)
    counts = np.array([5, 0, 3, 1])
    values, reps = np.repeat(np.arange(4), counts), 3000
    fast = np.array([oracle.sample_aggregate(counts, np.random.default_rng(s)) for s in range(reps)])
    slow = np.array([oracle.aggregate(oracle.randomize(values, np.random.default_rng(reps + s))) for s in range(reps)])
    for col in range(4):
        support = np.union1d(fast[:, col], slow[:, col])
        table = np.array([[np.sum(a[:, col] == v) for v in support] for a in (fast, slow)])
        assert stats.chi2_contingency(table[:, table.sum(axis=0) >= 10]).pvalue > 1e-4
    logs = [oracle.report_log_prob(x, np.arange(4)) for x in range(4)]
    assert max(np.abs(a - b).max() for a in logs for b in logs) == pytest.approx(oracle.eps_l)


def test_reference_curves():
    n = np.logspace(2, 10, 9)
    single = single_message_lower_bound(n, d=10_000)
    assert single == pytest.approx(np.minimum(n**0.25, 100.0))
    assert single[-1] == 100.0 and np.all(np.diff(single) >= 0)  # n^(1/4) until n = d^2
    multi = multi_message_upper_bound(n, 10_000, 1.0, 1e-6)
    assert np.all(multi == multi[0]) and multi[0] == pytest.approx(math.sqrt(math.log(1e4) * math.log(1e6)))
    assert multi[0] < single[-1]


@pytest.mark.parametrize("eps,n", [(1.0, 1000), (1.0, 10**5), (0.5, 10**6), (2.0, 10**7)])
def test_hadamard_rho_min_from_a_guess_is_the_same(eps, n):
    rho = hadamard_rho_min(eps, 1e-6, n)
    assert all(hadamard_rho_min(eps, 1e-6, n, guess=g) == rho for g in (1, rho - 3, rho, rho + 1, 4 * rho))


@pytest.mark.slow
@pytest.mark.parametrize("eps,delta,n,tau", [(1.0, 1e-6, 1000, 6), (1.0, 1e-6, 10**5, 6), (2.0, 1e-8, 10**7, 10)])
def test_count_min_chart_q_is_certified_and_close(eps, delta, n, tau):
    """The chart's q (discretization 1e-3, from a start) passes the default accountant's check and lies
    within 3% above its q."""
    exact = count_min_q_min(eps, delta, n, tau)
    for start in (None, exact * 0.9, exact * 1.2):
        shown = count_min_q_min(eps, delta, n, tau, start=start, discretization=1e-3)
        assert count_min_delta(eps, shown, n, tau) <= delta
        assert exact * (1 - 2e-3) <= shown <= exact * 1.03
