"""Statistical tests of the sketch oracles (ldpcore.oracles.sketches): conditional mean and
variance for fixed hashes, the hash-averaged analytic variance, exact aggregate sampler vs
per-respondent randomizer, exact likelihood-ratio audits, the paper's message counts and
Table VII in kind."""

import itertools
import math
import re

import numpy as np
import pytest
from scipy import stats

from ldpcore.errors import InputError
from ldpcore.oracles.sketches import (
    SIMULATION_DRAWS,
    CountMeanSketch,
    CountSketch,
    FragmentedSketch,
    HadamardCountMeanSketch,
    HashFamily,
    median_factor,
    split_budget_rmse,
)
from ldpcore.oracles.sketches.hadamard_cms import fwht_rows
from ldpcore.oracles.sketches.sampling import iid_binomial, iid_poisson, uniform_multinomial

COUNTS = np.array([40, 0, 7, 120, 3, 0, 25, 60], dtype=np.int64)
CLASSES = [CountMeanSketch, FragmentedSketch, HadamardCountMeanSketch, CountSketch]


def _build(cls, eps, d, k, m, seed=3):
    """A sketch with fixed hash functions (seed) unless seed=None (drawn per run, as plan() builds them)."""
    kw = {"combine": "mean"} if cls is CountSketch else {}
    return cls.from_eps(eps, d, k=k, m=m, seed=seed, **kw)


def _collisions(sketch):
    """gamma[v, x] = fraction of rows with h_j(v) = h_j(x), and its signed version."""
    x = np.arange(sketch.d)
    h = sketch.hashes.cells(x[:, None], np.arange(sketch.k))  # (d, k)
    s = sketch.hashes.signs(x[:, None], np.arange(sketch.k))
    same = h[:, None, :] == h[None, :, :]
    return same.mean(axis=2), (same * s[:, None, :] * s[None, :, :]).mean(axis=2)


def _conditional_variance(sketch, counts):
    """Var(estimate | hashes) derived independently of the module: every respondent adds an
    independent term (see the module docstrings)."""
    n, f, m = counts.sum(), sketch.flip, sketch.m
    gamma, signed = _collisions(sketch)
    others = counts[:, None] * (1 - np.eye(sketch.d))  # c_v for v != x
    scale = (m / (m - 1)) ** 2
    if isinstance(sketch, CountSketch):
        return n / (1 - 2 * f) ** 2 - counts - (others * signed**2).sum(axis=0)
    if isinstance(sketch, HadamardCountMeanSketch):
        return scale * (n / (1 - 2 * f) ** 2 - counts - (others * gamma**2).sum(axis=0))
    return scale * (n * f * (1 - f) / (1 - 2 * f) ** 2 + (others * gamma * (1 - gamma)).sum(axis=0))


@pytest.mark.parametrize("cls", CLASSES)
def test_mean_is_the_noiseless_sketch_and_variance_is_exact_for_fixed_hashes(cls):
    sketch = _build(cls, 3.0, COUNTS.size, k=4, m=8)
    rng, reps, n = np.random.default_rng(7), 2000, int(COUNTS.sum())
    est = np.array([sketch.estimate(sketch.sample_aggregate(COUNTS, rng), n) for _ in range(reps)])
    var = _conditional_variance(sketch, COUNTS)
    target = sketch.noiseless_estimate(COUNTS)  # E[estimate | hashes]
    assert np.all(np.abs(est.mean(axis=0) - target) < 4 * np.sqrt(var / reps))
    alpha = 1e-3 / COUNTS.size
    lo, hi = stats.chi2.ppf([alpha / 2, 1 - alpha / 2], reps - 1) / (reps - 1)
    ratio = est.var(axis=0, ddof=1) / var
    assert np.all((ratio > lo) & (ratio < hi)), ratio


def test_noiseless_error_is_the_collision_error():
    sketch = CountMeanSketch.from_eps(1.0, COUNTS.size, k=4, m=8, seed=3)
    gamma, _ = _collisions(sketch)
    others = COUNTS[:, None] * (1 - np.eye(COUNTS.size))
    expected = COUNTS + 8 / 7 * (others * (gamma - 1 / 8)).sum(axis=0)
    assert sketch.noiseless_estimate(COUNTS) == pytest.approx(expected, abs=1e-9)
    # a median over rows ignores collisions that hit fewer than half of the rows
    median = CountSketch.from_eps(1.0, COUNTS.size, k=64, m=4096, seed=3)
    assert median.noiseless_estimate(COUNTS) == pytest.approx(COUNTS, abs=1e-9)


@pytest.mark.parametrize("cls", CLASSES)
def test_variance_is_the_mse_over_the_hash_family(cls):
    """variance(n, counts) averages the collision error over the hash family: check it across seeds."""
    counts = np.array([30, 5, 0, 80, 12, 44, 0, 9, 60, 2, 18, 1], dtype=np.int64)
    rng, n = np.random.default_rng(11), int(counts.sum())
    sketches = [_build(cls, 4.0, counts.size, k=3, m=8, seed=s) for s in range(600)]
    sq = np.array([(sk.estimate(sk.sample_aggregate(counts, rng), n) - counts) ** 2 for sk in sketches])
    assert sq.mean() / sketches[0].variance(n, counts).mean() == pytest.approx(1, abs=0.06)
    assert sketches[0].variance(n) == pytest.approx(sketches[0].variance(n, np.zeros_like(counts))[0])


def test_count_sketch_median_is_nearly_unbiased_with_its_modelled_variance():
    """Without collisions the median's only bias is the rows' asymmetry (tiny with ~400 reports per
    row); a collision in one row shifts it by about one order-statistic gap (its documented bias)."""
    counts = np.array([400, 0, 1500, 80, 3000, 650, 20, 900], dtype=np.int64) * 4
    sketch = CountSketch.from_eps(2.0, counts.size, k=64, m=1024, seed=8)
    gamma, _ = _collisions(sketch)
    assert np.array_equal(gamma, np.eye(counts.size))  # this seed hashes the 8 values apart in every row
    rng, reps, n = np.random.default_rng(2), 400, int(counts.sum())
    err = np.array([sketch.estimate(sketch.sample_aggregate(counts, rng), n) - counts for _ in range(reps)])
    var = sketch.variance(n, counts)
    assert np.all(np.abs(err.mean(axis=0)) < 4 * np.sqrt(var / reps))
    assert (err**2).mean() / var.mean() == pytest.approx(1, abs=0.1)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 16, 65])
def test_median_factor_is_k_times_the_variance_of_the_median_of_k_normals(k):
    """Against 100,000 medians of k standard normals (the mean of the middle two for even k); the
    tolerance is 4.5 standard errors of a sample variance, sqrt(2/R) relative."""
    rows = np.random.default_rng(k).standard_normal((100_000, k))
    measured = k * np.median(rows, axis=1).var()
    assert measured == pytest.approx(median_factor(k), rel=4.5 * math.sqrt(2 / rows.shape[0]))
    assert median_factor(4096) == pytest.approx(math.pi / 2, rel=1e-3)


@pytest.mark.parametrize("shape,ratio_range", [("flat", (1.5, 1.6)), ("heavy", (0.6, 1.45)), ("dominant", (0.05, 0.3))])
def test_count_sketch_median_variance_matches_the_measured_mse(shape, ratio_range):
    """k = 64, m = 1,024, hash functions drawn per run: the median readout's measured MSE against
    `variance`, within the model's 1% plus 4 standard errors of the mean of the squared errors. Flat
    counts give near-normal rows (median_factor(64) = 1.537 times the mean readout's MSE); heavy-tailed
    counts collide hard, which the median ignores (with two dominant values, the mean readout's error
    of the small ones is mostly collisions with them); a dominant value's rows share its fixed total,
    which the mean readout cancels and the median only partly. pi/2 times the mean readout's variance,
    the former rule, is off by up to 14x."""
    rng = np.random.default_rng(0)
    counts = {
        "flat": rng.integers(0, 500, 2000),
        "heavy": (rng.pareto(1.0, 2000) * 50).astype(np.int64),
        "dominant": np.concatenate([[10**6, 3 * 10**5], np.full(100, 50)]),
    }[shape]
    sketch = CountSketch.from_eps(6.0, counts.size, k=64, m=1024)
    n, reps = int(counts.sum()), 100
    sq = np.array([(sketch.estimate(sketch.sample_aggregate(counts, rng), n) - counts) ** 2 for _ in range(reps)])
    var = sketch.variance(n, counts)
    assert sq.mean() / var.mean() == pytest.approx(1, abs=0.01 + 4 * sq.std() / math.sqrt(sq.size) / sq.mean())
    mean = CountSketch.from_eps(6.0, counts.size, k=64, m=1024, combine="mean").variance(n, counts)
    assert ratio_range[0] < var.mean() / mean.mean() < ratio_range[1]


def _cells_agree(fast, slow):
    """Chi-square homogeneity of every coordinate's distribution (sparse values pooled away)."""
    for col in range(fast.shape[1]):
        support = np.union1d(fast[:, col], slow[:, col])
        table = np.array([[np.sum(a[:, col] == v) for v in support] for a in (fast, slow)])
        table = table[:, table.sum(axis=0) >= 10]
        if table.shape[1] > 1:
            assert stats.chi2_contingency(table).pvalue > 1e-4, (col, table)


@pytest.mark.parametrize("cls", CLASSES)
def test_aggregate_sampler_agrees_with_the_per_respondent_randomizer(cls):
    counts = np.array([6, 0, 3, 1], dtype=np.int64)
    sketch = _build(cls, 1.5, counts.size, k=2, m=4)
    values, reps = np.repeat(np.arange(counts.size), counts), 2000
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(2)
    fast = [sketch.sample_aggregate(counts, rng_a) for _ in range(reps)]
    slow = [sketch.aggregate(sketch.randomize(values, rng_b)) for _ in range(reps)]
    flat = [np.array([np.concatenate([a.loads, a.cells.ravel()]) for a in runs]) for runs in (fast, slow)]
    _cells_agree(*flat)


def test_the_sampler_uses_the_multinomial_path_for_large_counts_exactly():
    """Values with >= 2k respondents take one multinomial over the rows: same law as per respondent."""
    counts = np.array([50, 3], dtype=np.int64)
    sketch = FragmentedSketch.from_eps(2.0, 2, k=3, m=4, seed=1)  # 50 >= 2k: multinomial path
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(4)
    values = np.repeat(np.arange(2), counts)
    fast = np.array([sketch.sample_aggregate(counts, rng_a).cells.ravel() for _ in range(1500)])
    slow = np.array([sketch.aggregate(sketch.randomize(values, rng_b)).cells.ravel() for _ in range(1500)])
    _cells_agree(fast, slow)


@pytest.mark.parametrize("n,p", [(1870, 0.0137), (25, 0.3), (200_000, 1.5e-3), (50, 1e-4)])
def test_iid_binomial_sampler_has_the_binomial_law(n, p):
    draws = iid_binomial(n, p, 200_000, np.random.default_rng(9))
    support = np.arange(draws.min(), draws.max() + 1)
    pmf = stats.binom.pmf(support, n, p)
    keep = pmf * draws.size >= 5
    observed = np.bincount(draws - support[0], minlength=support.size)
    f_obs = np.append(observed[keep], observed[~keep].sum())
    f_exp = np.append(pmf[keep], 1 - pmf[keep].sum()) * draws.size
    assert stats.chisquare(f_obs[f_exp > 0], f_exp[f_exp > 0]).pvalue > 1e-3


def _bit_reports(seed, k, m):
    rows, bits = zip(*[(j, b) for j in range(k) for b in itertools.product([False, True], repeat=m)])
    return seed, np.array(rows), np.array(bits)


@pytest.mark.parametrize(
    "cls,removal,replacement",
    [
        (CountMeanSketch, 0.5, 1.0),
        (FragmentedSketch, 1.0, 2.0),
        (HadamardCountMeanSketch, None, 1.0),
        (CountSketch, None, 1.0),
    ],
)
def test_audit_exact_likelihood_ratios(cls, removal, replacement):
    """max |ln P[R(x)=y]/P[R(x')=y]| over inputs and all reports is the claimed eps (CMS: eps
    replacement, eps/2 against the all-(-1) vector; fragments: removal eps, replacement 2 eps)."""
    eps, d, k, m = 1.7, 5, 3, 4
    sketch = _build(cls, eps, d, k, m, seed=2)
    if removal is None:
        reports = (2,) + tuple(np.array(r) for r in zip(*itertools.product(range(k), range(m), [False, True])))
    else:
        reports = _bit_reports(2, k, m)
    logs = [sketch.report_log_prob(x, reports) for x in range(d)]
    assert all(np.exp(lp).sum() == pytest.approx(1.0, abs=1e-12) for lp in logs)
    assert max(np.abs(a - b).max() for a in logs for b in logs) == pytest.approx(replacement * eps, abs=1e-9)
    if removal is not None:
        ref = sketch.report_log_prob(None, reports)
        assert max(np.abs(lp - ref).max() for lp in logs) == pytest.approx(removal * eps, abs=1e-9)
    assert sketch.eps_l == pytest.approx(eps, abs=1e-12)


def test_randomizer_frequencies_match_the_exact_report_probabilities():
    sketch = CountSketch.from_eps(1.2, 6, k=2, m=4, seed=4)
    reports = (4,) + tuple(np.array(r) for r in zip(*itertools.product(range(2), range(4), [False, True])))
    probs = np.exp(sketch.report_log_prob(5, reports))
    seed, rows, coefs, plus = sketch.randomize(np.full(40_000, 5), np.random.default_rng(6))
    assert seed == 4
    observed = np.bincount((rows * 4 + coefs) * 2 + plus, minlength=16)
    assert stats.chisquare(observed, probs * 40_000).pvalue > 1e-3


@pytest.mark.parametrize(
    "eps_l,paper",
    [
        (1.78, 9457.76),
        (4.07, 1101.36),
        (7.235, 48.21),
        (10.40, 2.99),
        (12.99, 1.15),
        (8.55, 13.68),
        (11.7, 1.54),
        (13.14, 1.13),
    ],
)
def test_fragmented_sketch_messages_match_the_paper(eps_l, paper):
    """seeds/000 Tables I and III, #bits_sketch = (1-p) + (m-1) p at k=1024, m=65,536."""
    assert round(FragmentedSketch.from_eps(eps_l, 1_778_120).expected_messages(), 2) == paper


def test_hash_family_is_seeded_uniform_and_3_independent():
    x = np.arange(100_000)
    for m in (64, 48):  # a power of two (top bits) and not
        fam = HashFamily(k=3, m=m, seed=8)
        cells = fam.cells(x[None, :], np.arange(3)[:, None])
        assert np.array_equal(cells, HashFamily(k=3, m=m, seed=8).cells(x[None, :], np.arange(3)[:, None]))
        buf, tmp = np.empty(x.size, np.uint64), np.empty(x.size, np.uint64)
        assert np.array_equal(fam.row_into(1, fam.chars(x, 3), buf, tmp), cells[1])
        row_cells, negative = fam.row_into(2, fam.chars(x, 3), buf, tmp, signs=True)
        assert np.array_equal(row_cells, cells[2]) and np.array_equal(negative, fam.signs(x, 2) < 0)
        # over the family every key is uniform on [m] with a fair sign
        draws = np.array([HashFamily(k=1, m=m, seed=s).cells(12345, 0) for s in range(6000)])
        assert stats.chisquare(np.bincount(draws, minlength=m)).pvalue > 1e-3
    signs = np.array([HashFamily(k=1, m=64, seed=s).signs(77, 0) for s in range(6000)])
    assert abs(signs.mean()) < 4 / math.sqrt(signs.size)
    # pairs and triples of keys collide like a fully random hash (1/m, 1/m^2) over the family
    trio = np.array([[7, 8, 9], [9, 10, 2**21 + 9], [11, 2**11 + 11, 2**22 + 11]])
    hits = np.array(
        [
            [(fam.cells(t, 0) == fam.cells(t[0], 0)).all() for t in trio]
            for fam in (HashFamily(k=1, m=4, seed=s) for s in range(4000))
        ]
    )
    assert np.all(np.abs(hits.mean(axis=0) - 1 / 16) < 4 * math.sqrt(1 / 16 * 15 / 16 / 4000))


def test_same_seed_same_draw():
    counts = np.arange(300, dtype=np.int64) % 7 * 40
    for cls in CLASSES:
        sketch = _build(cls, 5.0, counts.size, k=16, m=64)
        a, b = (sketch.sample_aggregate(counts, np.random.default_rng(12)) for _ in range(2))
        assert np.array_equal(a.cells, b.cells) and np.array_equal(a.loads, b.loads)


def _ring_image(side=32):
    """A small image-like histogram: a bright ring (255) on a dim gradient background."""
    yy, xx = np.mgrid[:side, :side] - (side - 1) / 2
    radius = np.hypot(yy, xx)
    return np.where(np.abs(radius - side / 3) < 2, 255, (xx + side) // 4).astype(np.int64).ravel()


@pytest.mark.parametrize("eps", [2.94, 5.96, 8.55])
def test_table_vii_one_hash_with_the_whole_budget_wins(eps):
    counts = _ring_image()
    rmse = split_budget_rmse(counts, eps, np.random.default_rng(21), reports=(1, 2, 5), k=64, m=1024)
    assert rmse[1] < rmse[2] < rmse[5], rmse


def test_validation_messages():
    with pytest.raises(InputError, match="power-of-two"):
        HadamardCountMeanSketch.from_eps(1.0, 10, m=48)
    with pytest.raises(InputError, match="flip probability"):
        CountMeanSketch(d=10, flip=0.5)
    with pytest.raises(InputError, match="one entry per value"):
        CountMeanSketch.from_eps(1.0, 10, k=2, m=4).sample_aggregate(np.ones(9), np.random.default_rng(0))
    with pytest.raises(InputError, match="combine"):
        CountSketch.from_eps(1.0, 10, combine="max")
    with pytest.raises(InputError, match="eps_l"):
        FragmentedSketch.from_eps(0.0, 10)
    assert "1 <= eps_c <= eps_l_inf" in FragmentedSketch.privacy_note


@pytest.mark.parametrize("eps", [2.94, 8.55])  # Table VII's first and last rows
def test_table_vii_on_the_bundled_horse_with_apples_sketch_size(eps):
    from ldpcore.data.datasets import load_dataset

    horse = load_dataset("horse")
    rmse = split_budget_rmse(horse.counts, eps, np.random.default_rng(7), reports=(1, 2, 5), k=1024, m=65536)
    assert rmse[1] < rmse[2] < rmse[5], rmse


def test_uniform_multinomial_has_the_multinomial_law_exactly():
    """Every composition of 24 balls in 3 cells against the multinomial pmf; the Poisson start lands
    below the total (balls added) and above it (balls removed) both, and both paths are exact."""
    rng, total, cells, reps = np.random.default_rng(13), 24, 3, 30_000
    draws = np.array([uniform_multinomial(total, cells, rng) for _ in range(reps)])
    assert (draws.sum(axis=1) == total).all()
    keys, observed = np.unique(draws, axis=0, return_counts=True)
    expected = stats.multinomial.pmf(keys, total, np.full(cells, 1 / cells)) * reps
    keep = expected >= 5
    f_obs = np.append(observed[keep], reps - observed[keep].sum())
    f_exp = np.append(expected[keep], reps - expected[keep].sum())
    assert stats.chisquare(f_obs, f_exp).pvalue > 1e-3
    # both corrections happen at this size: the Poisson sum falls on either side of the total
    sums = [iid_poisson((total - math.sqrt(total)) / cells, cells, rng).sum() for _ in range(2000)]
    assert min(sums) < total < max(sums)


@pytest.mark.parametrize("lam", [0.7, 30.0, 16_384.0])
def test_iid_poisson_sampler_has_the_poisson_law(lam):
    draws = iid_poisson(lam, 200_000, np.random.default_rng(9))
    support = np.arange(draws.min(), draws.max() + 1)
    pmf = stats.poisson.pmf(support, lam)
    keep = pmf * draws.size >= 5
    observed = np.bincount(draws - support[0], minlength=support.size)
    f_obs = np.append(observed[keep], observed[~keep].sum())
    f_exp = np.append(pmf[keep], 1 - pmf[keep].sum()) * draws.size
    assert stats.chisquare(f_obs[f_exp > 0], f_exp[f_exp > 0]).pvalue > 1e-3


@pytest.mark.parametrize("cls", [HadamardCountMeanSketch, CountSketch])
def test_hadamard_sketch_multinomial_fields_agree_with_the_per_respondent_randomizer(cls):
    """With k m / 2 = 8, value 0's kept reports (about 10) and the row-uniform others (about 50) are
    drawn as multinomial fields, not report by report: same law as the per-respondent reference."""
    counts = np.array([60, 0, 5, 3], dtype=np.int64)
    sketch = _build(cls, 0.5, counts.size, k=2, m=8)
    values, reps = np.repeat(np.arange(counts.size), counts), 3000
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(2)
    fast = np.array(
        [np.concatenate([(a := sketch.sample_aggregate(counts, rng_a)).loads, a.cells.ravel()]) for _ in range(reps)]
    )
    slow = np.array(
        [
            np.concatenate([(a := sketch.aggregate(sketch.randomize(values, rng_b))).loads, a.cells.ravel()])
            for _ in range(reps)
        ]
    )
    _cells_agree(fast, slow)


def test_hadamard_sketch_of_a_huge_count_is_exact_in_its_first_moments():
    """[2^40, 5, 0]: the simulation draws k m multinomial cells, not 2^40 reports. Row loads (about 2^30)
    sum to n and fit the int32 cells, every cell is within its row's load, and the estimates are
    within five analytic standard deviations (1.05e6 at eps 10)."""
    counts = np.array([2**40, 5, 0], dtype=np.int64)
    sketch = HadamardCountMeanSketch.from_eps(10.0, 3, k=1024, m=64)
    reports = sketch.sample_aggregate(counts, np.random.default_rng(4))
    assert reports.loads.sum() == counts.sum() and reports.cells.dtype == np.int32
    assert (np.abs(reports.cells).max(axis=1) <= reports.loads).all()
    est = sketch.estimate(reports, int(counts.sum()))
    assert np.all(np.abs(est - counts) < 5 * np.sqrt(sketch.variance(int(counts.sum()), counts)))


@pytest.mark.parametrize("cls", CLASSES)
def test_the_run_seed_draws_the_hash_functions(cls):
    """seed=None (as plan() builds sketches): the generator draws the hash functions, so the same seed
    reproduces the run exactly and another seed hashes differently."""
    counts = np.array([40, 0, 7, 120, 3, 0, 25, 60], dtype=np.int64)
    sketch = _build(cls, 3.0, counts.size, k=4, m=8, seed=None)
    n = int(counts.sum())
    a, b, c = (sketch.sample_aggregate(counts, np.random.default_rng(s)) for s in (5, 5, 6))
    assert a.seed == b.seed != c.seed
    assert np.array_equal(a.cells, b.cells) and np.array_equal(sketch.estimate(a, n), sketch.estimate(b, n))
    keys = np.arange(1000)
    assert not np.array_equal(
        sketch.with_hashes(a.seed).hashes.cells(keys, 0), sketch.with_hashes(c.seed).hashes.cells(keys, 0)
    )
    # reports carry their hash seed; a sketch with fixed hashes refuses reports made with others
    seed, *_ = sketch.randomize(np.array([0, 3, 3]), np.random.default_rng(5))
    assert seed == a.seed
    with pytest.raises(InputError, match="made with hash seed"):
        _build(cls, 3.0, counts.size, k=4, m=8, seed=a.seed + 1).estimate(a, n)


@pytest.mark.parametrize("cls", CLASSES)
def test_unbiased_over_the_hash_draws_for_every_value(cls):
    """Heavy collisions (12 values, 3 rows of 8 cells): with the hash functions drawn per run, every
    value's mean estimate over runs is within 4.5 standard errors of its count (the per-value MSE over
    hashes and noise, `variance`, Bonferroni over 12 values); with one fixed hash family most values
    carry a collision bias far beyond that."""
    counts = np.array([30, 5, 0, 80, 12, 44, 0, 9, 60, 2, 18, 1], dtype=np.int64)
    n, reps, rng = int(counts.sum()), 4000, np.random.default_rng(17)
    fresh = _build(cls, 4.0, counts.size, k=3, m=8, seed=None)
    est = np.array([fresh.estimate(fresh.sample_aggregate(counts, rng), n) for _ in range(reps)])
    se = np.sqrt(fresh.variance(n, counts) / reps)
    assert np.all(np.abs(est.mean(axis=0) - counts) < 4.5 * se), (est.mean(axis=0) - counts) / se
    fixed = _build(cls, 4.0, counts.size, k=3, m=8, seed=0)
    est = np.array([fixed.estimate(fixed.sample_aggregate(counts, rng), n) for _ in range(reps)])
    assert (np.abs(est.mean(axis=0) - counts) > 4.5 * se).sum() >= 3


@pytest.mark.parametrize(
    "cls,kw", [(HadamardCountMeanSketch, {}), (CountSketch, {"combine": "mean"}), (CountSketch, {"combine": "median"})]
)
def test_the_few_values_readout_equals_the_whole_row_transform(cls, kw):
    """Up to 16 values the Hadamard readout transforms only their cells (a Kronecker split of H, in
    float64); it must give what transforming every row in integers gives."""
    counts = np.array([900, 0, 31, 4000, 7, 250, 0, 66, 12, 5], dtype=np.int64)
    sketch = cls.from_eps(3.0, counts.size, k=37, m=256, seed=5, **kw)
    reports = sketch.sample_aggregate(counts, np.random.default_rng(1))
    scale, n = 1 / (1 - 2 * sketch.flip), int(counts.sum())
    whole = sketch._read(fwht_rows(reports.cells.copy()), n, scale)
    assert sketch._read_values(sketch._hadamard_at(reports.cells), n, scale) == pytest.approx(
        whole, rel=1e-12, abs=1e-6
    )
    assert sketch.estimate(reports, n) == pytest.approx(whole, rel=1e-12, abs=1e-6)


@pytest.mark.parametrize(
    "cls,counts", [(HadamardCountMeanSketch, np.full(20, 3 * 10**7)), (CountMeanSketch, np.full(250_000, 2048))]
)
def test_a_simulation_beyond_its_stated_work_is_refused_before_it_starts(cls, counts):
    """The exact samplers cost sum_x min(c_x, k m) (Hadamard sketches) or sum_x min(c_x, 2k) (bit
    sketches) plus k m random draws, whatever n: above SIMULATION_DRAWS one message says so."""
    sketch = cls.from_eps(5.0, counts.size)
    limit = re.escape(f"random numbers for these counts; the limit is {SIMULATION_DRAWS:.0e}")
    with pytest.raises(InputError, match=limit):
        sketch.sample_aggregate(counts, np.random.default_rng(0))


@pytest.mark.parametrize("cls", [CountMeanSketch, FragmentedSketch])
def test_drawing_only_the_read_cells_gives_the_law_of_the_whole_table(cls):
    """With d <= m/8 a bit sketch draws only the k d cells its estimator reads (_sample_read): for fixed
    hashes with collisions (values 0 and 3 share a cell in some row), the estimates' means are the
    noiseless sketch and their variances the exact conditional ones, as for the whole table; every
    value's read sum, and the sum of the two colliding values (their joint law), has the table's law
    (chi-square homogeneity); the same seed gives the same run."""
    counts = np.array([40, 0, 7, 120, 3, 0, 25, 60], dtype=np.int64)
    sketch, n, reps = _build(cls, 3.0, counts.size, k=4, m=64, seed=1), int(counts.sum()), 1500
    gamma, _ = _collisions(sketch)
    assert gamma[0, 3] > 0 and (gamma - np.diag(np.diag(gamma)) > 0).sum() >= 8  # four colliding pairs
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(2)
    read = [sketch.sample_aggregate(counts, rng_a) for _ in range(reps)]
    table = [sketch.sample_aggregate(counts, rng_b, table=True) for _ in range(reps)]
    assert read[0].cells is None and table[0].sums is None
    with pytest.raises(InputError, match="table=True"):
        _ = read[0].table
    var, target = _conditional_variance(sketch, counts), sketch.noiseless_estimate(counts)
    alpha = 1e-3 / counts.size
    lo, hi = stats.chi2.ppf([alpha / 2, 1 - alpha / 2], reps - 1) / (reps - 1)
    for reports in (read, table):
        est = np.array([sketch.estimate(r, n) for r in reports])
        assert np.all(np.abs(est.mean(axis=0) - target) < 4 * np.sqrt(var / reps))
        ratio = est.var(axis=0, ddof=1) / var
        assert np.all((ratio > lo) & (ratio < hi)), ratio
    sums = [np.array([r.sums for r in read]), np.array([sketch._rowsum(r.cells) for r in table]).astype(np.int64)]
    _cells_agree(*(np.column_stack([s, s[:, 0] + s[:, 3]]) for s in sums))
    a, b = (sketch.sample_aggregate(counts, np.random.default_rng(9)) for _ in range(2))
    assert np.array_equal(a.sums, b.sums) and np.array_equal(a.loads, b.loads)
