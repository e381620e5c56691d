"""The exact aggregate samplers against their laws: half_binomial draws Bin(m, 1/2) exactly, and
Hadamard response's dyadic sampler draws the report histogram whose mean and covariance are
Sum_v c_v P[. | v] and Sum_v c_v (diag P[. | v] - P[. | v] P[. | v]^T), like the per-respondent
randomizer. Fixed seeds; tolerances from the analytic variance (module constants below)."""

import numpy as np
import pytest
from scipy import stats

from ldpcore.experiment.run import respondents
from ldpcore.oracles import hadamard
from ldpcore.oracles.hadamard import POPCOUNT_FROM, POPCOUNT_MAX, Hadamard, half_binomial

Z = 5.0  # |z| bound of a standardized mean or covariance difference: P < 6e-7 each under the law
P_MIN = 1e-4  # p-value floor of a goodness-of-fit test


@pytest.mark.parametrize("bits", [np.random.PCG64, np.random.MT19937])  # raw 64-bit words, or integers()
def test_half_binomial_is_binomial_one_half(bits):
    m = np.array([0, 1, 2, 7, 63, 64, 65, 128, 129, POPCOUNT_MAX, POPCOUNT_MAX + 1, 5000])
    reps = 20_000
    assert m.size * reps >= POPCOUNT_FROM  # the popcount path
    draws = half_binomial(np.tile(m, (reps, 1)), np.random.Generator(bits(5)))
    assert draws.dtype == np.int64 and draws.shape == (reps, m.size)
    assert np.all(draws[:, 0] == 0) and np.all((draws >= 0) & (draws <= m))
    for j, size in enumerate(m[1:], start=1):
        observed = np.bincount(draws[:, j], minlength=size + 1)
        expected = stats.binom.pmf(np.arange(size + 1), size, 0.5) * reps
        keep = expected >= 5  # pool the tails into one cell each side
        lo, hi = np.argmax(keep), len(keep) - np.argmax(keep[::-1])
        obs = np.concatenate([[observed[:lo].sum()], observed[lo:hi], [observed[hi:].sum()]])
        exp = np.concatenate([[expected[:lo].sum()], expected[lo:hi], [expected[hi:].sum()]])
        obs, exp = obs[exp > 0], exp[exp > 0]
        assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > P_MIN, size


def _law(oracle, counts):
    """Mean and covariance of the report histogram over [K]: a sum of independent multinomials."""
    probs = np.exp([oracle.report_log_prob(v, np.arange(oracle.K)) for v in range(oracle.d)])
    mean = counts @ probs
    cov = np.diag(mean) - (probs.T * counts) @ probs
    return mean, cov


def _check(draws, mean, cov):
    """Sample mean and covariance of draws (reps, K) against the law, entry by entry."""
    reps = len(draws)
    var = np.diag(cov)
    live = var > 0
    assert np.all(draws[:, ~live] == np.round(mean[~live]))  # cells no report can reach stay empty
    z_mean = (draws.mean(axis=0) - mean)[live] / np.sqrt(var[live] / reps)
    assert np.abs(z_mean).max() < Z, z_mean
    sample = np.cov(draws[:, live], rowvar=False)
    law = cov[np.ix_(live, live)]
    spread = np.sqrt((np.outer(var[live], var[live]) + law**2) / reps)  # sd of a sample covariance (normal)
    z_cov = (sample - law) / spread
    assert np.abs(z_cov).max() < Z, np.abs(z_cov).max()


COUNTS = np.array(  # d = 37, K = 64: every group of values by the top bit of v+1, the last one partial
    [300, 0, 5, 40, 0, 0, 12, 80, 3, 0, 0, 1, 25, 0, 7, 0, 60, 2, 0]
    + [0, 9, 0, 0, 33, 4, 0, 0, 0, 15, 6, 0, 50, 0, 2, 0, 0, 8]
)


@pytest.mark.parametrize(
    ("eps", "counts", "threaded"),
    [
        (1.5, COUNTS, False),
        (4.0, COUNTS, True),  # the first level's halves of every group on two threads
        (1.0, COUNTS * 40, False),  # large counts: numpy's binomial for counts above POPCOUNT_MAX, the top group
    ],  # spread by halving rather than respondent by respondent
)
def test_hadamard_sampler_has_the_exact_law(monkeypatch, eps, counts, threaded):
    monkeypatch.setattr(hadamard, "_THREADED_FROM", 2 if threaded else hadamard._THREADED_FROM)
    monkeypatch.setattr(hadamard, "RESPONDENTS_MAX", 0)  # always the dyadic sampler,
    monkeypatch.setattr(hadamard, "POPCOUNT_FROM", 1)  # with popcount binomials however small the arrays
    oracle = Hadamard.from_eps(eps, counts.size)
    rng, reps = np.random.default_rng(21), 1000 if threaded else 1500
    draws = np.array([oracle.sample_aggregate(counts, rng) for _ in range(reps)])
    assert np.all(draws.sum(axis=1) == counts.sum())
    _check(draws, *_law(oracle, counts))


def test_hadamard_per_respondent_path_and_shortcut_have_the_same_law():
    """The randomizer (the reference) and sample_aggregate below RESPONDENTS_MAX (which places each
    respondent) against the same law."""
    oracle = Hadamard.from_eps(1.5, COUNTS.size)
    assert COUNTS.sum() <= hadamard.RESPONDENTS_MAX
    values, reps = respondents(COUNTS), 1500
    law = _law(oracle, COUNTS)
    rng = np.random.default_rng(22)
    _check(np.array([oracle.aggregate(oracle.randomize(values, rng)) for _ in range(reps)]), *law)
    _check(np.array([oracle.sample_aggregate(COUNTS, rng) for _ in range(reps)]), *law)


def test_hadamard_sampler_depends_on_the_seed_only(monkeypatch):
    monkeypatch.setattr(hadamard, "_THREADED_FROM", 2)
    oracle = Hadamard.from_eps(2.0, 300)
    counts = np.random.default_rng(0).integers(0, 200, 300)
    first = oracle.sample_aggregate(counts, np.random.default_rng(8))
    assert np.array_equal(first, oracle.sample_aggregate(counts, np.random.default_rng(8)))
    assert not np.array_equal(first, oracle.sample_aggregate(counts, np.random.default_rng(9)))
