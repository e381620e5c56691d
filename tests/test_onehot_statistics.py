"""Statistical tests of the one-hot oracle: unbiasedness, analytic variance, exact
aggregate sampler vs per-respondent randomizer, and an exact likelihood-ratio audit."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ldpcore.data.datasets import load_dataset
from ldpcore.experiment.protocol.run import respondents, run
from ldpcore.experiment.protocol.spec import ProtocolSpec
from ldpcore.oracles.onehot import OneHot, eps_of_flip, flip_probability


@pytest.fixture(scope="module")
def horse():
    return load_dataset("horse")


@pytest.mark.parametrize("tau", [None, 16], ids=["attribute", "report-fragments"])
def test_mean_rmse_raw_matches_the_analytic_std(horse, tau):
    spec = ProtocolSpec(eps_c=0.5, delta=5e-8, tau=tau)
    results = [run(spec, horse, seed=s) for s in range(20)]
    analytic = results[0].analytic_std
    if tau is None:  # sqrt(n p (1-p)) / (1 - 2p) per bin
        p = results[0].plan.p_b
        assert analytic == pytest.approx(math.sqrt(horse.n * p * (1 - p)) / (1 - 2 * p), rel=1e-12)
    mean = np.mean([r.metrics["rmse_raw"] for r in results])
    assert abs(mean / analytic - 1) < 0.05
    assert abs(mean / analytic - 1) < 0.01  # in fact much closer: d = 87,680 bins per run


@pytest.mark.parametrize("tau", [None, 4])
def test_estimator_is_unbiased_per_bin(tau):
    counts = np.array([0, 3, 50, 400, 7, 0, 1000, 25], dtype=np.int64)
    oracle = OneHot(
        d=counts.size, p_b=flip_probability(3.0), tau=tau, p_f=None if tau is None else flip_probability(2.0)
    )
    rng = np.random.default_rng(11)
    reps = 4000
    est = np.array([oracle.estimate(oracle.sample_aggregate(counts, rng), counts.sum()) for _ in range(reps)])
    se = math.sqrt(oracle.variance(int(counts.sum())) / reps)
    assert np.all(np.abs(est.mean(axis=0) - counts) < 4 * se)
    # and each bin's variance matches the analytic formula: chi-square band, family-wise
    # level 1e-3 over the bins (Bonferroni)
    var = est.var(axis=0, ddof=1) / oracle.variance(int(counts.sum()))
    alpha = 1e-3 / counts.size
    lo, hi = stats.chi2.ppf([alpha / 2, 1 - alpha / 2], reps - 1) / (reps - 1)
    assert np.all((var > lo) & (var < hi)), var


def _exact_pmf(counts, oracle):
    """Exact distribution of one bin's aggregate count by convolution (Algorithm 1)."""
    n, p = int(sum(counts)), oracle.p_b

    def pmf(c):
        return np.convolve(stats.binom.pmf(np.arange(c + 1), c, 1 - p), stats.binom.pmf(np.arange(n - c + 1), n - c, p))

    return [pmf(c) for c in counts]


@pytest.mark.slow
@pytest.mark.parametrize("tau", [None, 3])
def test_aggregate_sampler_agrees_with_the_per_respondent_randomizer(tau):
    counts = np.array([6, 0, 3, 1], dtype=np.int64)
    oracle = OneHot(d=4, p_b=0.2, tau=tau, p_f=None if tau is None else 0.1)
    values = respondents(counts)
    reps = 3000
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(2)
    fast = np.array([oracle.sample_aggregate(counts, rng_a) for _ in range(reps)])
    slow = np.array([oracle.aggregate(oracle.randomize(values, rng_b)) for _ in range(reps)])
    for j in range(counts.size):
        support = np.union1d(fast[:, j], slow[:, j])
        table = np.array([[np.sum(fast[:, j] == v) for v in support], [np.sum(slow[:, j] == v) for v in support]])
        table = table[:, table.sum(axis=0) >= 10]  # pool-free: drop sparse cells from both rows
        assert stats.chi2_contingency(table).pvalue > 1e-3, (j, table)
    if tau is None:  # both also match the exact pmf
        for j, pmf in enumerate(_exact_pmf(counts, oracle)):
            for sample in (fast[:, j], slow[:, j]):
                observed = np.bincount(sample, minlength=pmf.size)
                keep = pmf * reps >= 5
                f_obs = np.append(observed[keep], observed[~keep].sum())
                f_exp = np.append(pmf[keep], pmf[~keep].sum()) * reps
                assert stats.chisquare(f_obs, f_exp * f_obs.sum() / f_exp.sum()).pvalue > 1e-3


def _all_reports(shape):
    size = int(np.prod(shape))
    return np.array(list(itertools.product([False, True], repeat=size))).reshape((-1,) + shape)


@pytest.mark.parametrize("tau,t", [(None, None), (2, 2), (3, 1)])
def test_audit_exact_likelihood_ratios(tau, t):
    """Removal LDP: max over inputs and reports of |ln P[R(x)=y]/P[R_0=y]| equals the
    claimed eps (Theorem IV.1 for t captured fragments); replacement is twice it."""
    d, eps_b, eps_f = 3, 2.0, 1.3
    oracle = OneHot(d=d, p_b=flip_probability(eps_b), tau=tau, p_f=None if tau is None else flip_probability(eps_f))
    if tau is None:
        reports, claimed = _all_reports((d,)), eps_b
    else:
        # an adversary holding t of the tau fragments sees the t-fragment randomizer
        sub = OneHot(d=d, p_b=oracle.p_b, tau=t, p_f=oracle.p_f)
        oracle, reports = sub, _all_reports((t, d))
        from ldpcore.privacy.fragments import eps_of_t

        claimed = eps_of_t(eps_b, eps_f, t)
    ref = oracle.report_log_prob(None, reports)
    assert np.exp(ref).sum() == pytest.approx(1.0, abs=1e-12)
    logs = [oracle.report_log_prob(x, reports) for x in range(d)]
    removal = max(np.abs(lp - ref).max() for lp in logs)
    replacement = max(np.abs(a - b).max() for a in logs for b in logs)
    assert removal == pytest.approx(claimed, abs=1e-9)
    assert replacement == pytest.approx(2 * claimed, abs=1e-9)


def test_randomizer_frequencies_match_the_exact_report_probabilities():
    oracle = OneHot(d=2, p_b=0.25, tau=2, p_f=0.15)
    reports = _all_reports((2, 2))
    probs = np.exp(oracle.report_log_prob(1, reports))
    rng = np.random.default_rng(5)
    draws = oracle.randomize(np.ones(20000, dtype=int), rng)  # (tau, n, d)
    codes = draws.transpose(1, 0, 2).reshape(20000, -1) @ (1 << np.arange(4)[::-1])
    observed = np.bincount(codes, minlength=16)
    assert stats.chisquare(observed, probs * 20000).pvalue > 1e-3


def test_flip_probability_round_trip():
    for eps in (1e-6, 0.5, 8.55, 30.0):
        assert eps_of_flip(flip_probability(eps)) == pytest.approx(eps, rel=1e-9)


def test_threaded_sampler_on_a_large_domain_is_exact_and_seeded():
    """Domains >= 100k bins are drawn in chunks on threads: same law, same seed -> same draw."""
    child = load_dataset("child")
    spec = ProtocolSpec(eps_c=0.5, delta=5e-9, tau=4)
    a, b = run(spec, child, seed=4), run(spec, child, seed=4)
    assert np.array_equal(a.estimate, b.estimate)
    mean_err = (a.estimate - child.counts).mean()
    assert abs(mean_err) < 4 * a.analytic_std / math.sqrt(child.d)
    assert abs(a.metrics["rmse_raw"] / a.analytic_std - 1) < 0.01


@pytest.mark.parametrize("eps_l", [2.94, 5.96, 8.55])  # Table VI's rows (Horse at eps_c 0.05, 0.25, 1)
def test_table_vi_a_single_full_budget_run_wins(horse, eps_l):
    from ldpcore.oracles.onehot import split_runs_estimate

    rng = np.random.default_rng(6)
    rmse = {
        r: math.sqrt(
            np.mean((np.clip(split_runs_estimate(horse.counts, eps_l, r, rng), 0, horse.max_count) - horse.counts) ** 2)
        )
        for r in (1, 2, 5)
    }
    assert rmse[1] < rmse[2] < rmse[5], rmse
    # and the raw variance follows n p(1-p)/((1-2p)^2 runs) with p at eps/runs
    for r in (1, 2, 5):
        p = flip_probability(eps_l / r)
        est = split_runs_estimate(horse.counts, eps_l, r, rng)
        analytic = math.sqrt(horse.n * p * (1 - p) / ((1 - 2 * p) ** 2 * r))
        assert abs(math.sqrt(np.mean((est - horse.counts) ** 2)) / analytic - 1) < 0.02
