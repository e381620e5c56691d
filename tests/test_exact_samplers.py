"""The exact samplers against their laws: half_binomial draws Bin(m, 1/2) and bernoulli_bits Bernoulli(q)
exactly, and Hadamard response's dyadic sampler draws the report histogram whose mean and covariance are
Sum_v c_v P[. | v] and Sum_v c_v (diag P[. | v] - P[. | v] P[. | v]^T), like the per-respondent
randomizer. Fixed seeds; tolerances from the analytic variance (module constants below)."""

import threading

import numpy as np
import pytest
from scipy import stats

from ldpcore.errors import Cancelled, stop_when
from ldpcore.experiment.protocol.run import respondents
from ldpcore.oracles import bits, hadamard
from ldpcore.oracles.bits import POPCOUNT_FROM, POPCOUNT_MAX, bernoulli_bits, half_binomial
from ldpcore.oracles.hadamard import Hadamard

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


@pytest.mark.parametrize("bits", [np.random.PCG64, np.random.MT19937])
@pytest.mark.parametrize("q", [0.0, 2.0**-3, 0.375, 0.5, 0.26894142136999510, 1 / 3, 1 - 2.0**-6, 1.0])
def test_bernoulli_has_probability_q(bits, q):
    shape = (700, 1001)  # not a multiple of 64 bits
    draws = bernoulli_bits(q, shape, np.random.Generator(bits(6)))
    assert draws.dtype == bool and draws.shape == shape
    ones, size = int(draws.sum()), draws.size
    if q in (0.0, 1.0):
        assert ones == q * size
        return
    assert abs(ones - q * size) < Z * np.sqrt(size * q * (1 - q))
    rows, cols = draws.sum(axis=1), draws.sum(axis=0)  # independent across the array: binomial margins
    assert abs(rows.var() / (shape[1] * q * (1 - q)) - 1) < Z * np.sqrt(2 / shape[0])
    assert abs(cols.var() / (shape[0] * q * (1 - q)) - 1) < Z * np.sqrt(2 / shape[1])


def test_bernoulli_follows_the_binary_digits_of_q():
    """q = 0.101b: a bit is 1 iff U = 0.u1u2u3... < q, so P = 5/8 exactly, and the three digits decide every
    bit (no fourth word drawn: the generator's state after three words per 64 bits)."""
    rng, reference = np.random.default_rng(3), np.random.default_rng(3)
    draws = bernoulli_bits(0.625, 64 * 1000, rng)
    u = [np.unpackbits(reference.bit_generator.random_raw(1000).view(np.uint8), bitorder="little") for _ in range(3)]
    below = (u[0] == 0) | ((u[0] == 1) & (u[1] == 0) & (u[2] == 0))
    assert np.array_equal(draws, below.astype(bool))


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
@pytest.mark.slow
def test_hadamard_sampler_has_the_exact_law(monkeypatch, eps, counts, threaded):
    monkeypatch.setattr(hadamard, "_THREADED_FROM", 2 if threaded else hadamard._THREADED_FROM)
    monkeypatch.setattr(hadamard, "RESPONDENTS_MAX", 0)  # always the dyadic sampler,
    monkeypatch.setattr(bits, "POPCOUNT_FROM", 1)  # with popcount binomials however small the arrays
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


def test_hadamard_sampler_stops_at_a_level_when_nobody_waits(monkeypatch):
    """Under stop_when, the dyadic sampler stops at a checkpoint of its levels, also in the halves it runs on
    the pool's threads (they carry the caller's predicate): Cancelled after a few levels, not a full draw."""
    monkeypatch.setattr(hadamard, "_THREADED_FROM", 2)
    monkeypatch.setattr(hadamard, "RESPONDENTS_MAX", 0)
    oracle = Hadamard.from_eps(2.0, 300)
    counts = np.random.default_rng(0).integers(0, 200, 300)
    asked: list[str] = []

    def after_three() -> bool:
        asked.append(threading.current_thread().name)
        return len(asked) > 3

    with stop_when(after_three), pytest.raises(Cancelled):
        oracle.sample_aggregate(counts, np.random.default_rng(8))
    levels = 2 * oracle.bits_per_message  # at least one checkpoint per group and per level of a group
    assert 3 < len(asked) < levels
    alone = oracle.sample_aggregate(counts, np.random.default_rng(8))
    with stop_when(lambda: asked.append(threading.current_thread().name) or False):  # never holds: the same draw
        assert np.array_equal(oracle.sample_aggregate(counts, np.random.default_rng(8)), alone)
    pool_threads = {name for name in asked if name != threading.current_thread().name}
    assert pool_threads  # the threaded halves asked the predicate too
