"""Crowd IDs (seeds/000 Section V): Algorithm 3's drops against Theorem V.2 and their exact
law, abort frequency, the per-report path, and the data-derived crowd-ID budget split."""

import math

import numpy as np
import pytest
from scipy import stats

from ldpcore.errors import InputError
from ldpcore.systems.crowds import (
    abort_probability,
    count_std,
    crowd_id_split,
    data_derived_ids,
    delete_reports,
    deletion_guarantees,
    drop_bound,
    drop_tail,
    expected_drops,
    parse_sizes,
    partition_errors,
    sample_deletion,
)


def _drop_pmf(n, eps_cr, delta_cr):
    """P[dropped = j], j = 0..n, straight from the Laplace cdf (0 dropped includes abort):
    dropped = min(n, ceil(W)) for W = (2/eps) ln(2/delta) + Laplace(2/eps) > -1."""
    b = 2 / eps_cr
    law = stats.laplace(loc=b * math.log(2 / delta_cr), scale=b)
    pmf = np.diff(law.cdf(np.arange(-1, n + 1)))
    pmf[0] += law.cdf(-1)
    pmf[n] += law.sf(n)
    return pmf


@pytest.mark.parametrize("n", [0, 1, 3, 7, 40, 5000])
@pytest.mark.parametrize("eps_cr, delta_cr", [(0.5, 1e-3), (1.0, 0.1), (4.0, 1e-6)])
def test_expected_drops_closed_form(n, eps_cr, delta_cr):
    pmf = _drop_pmf(n, eps_cr, delta_cr)
    assert pmf.sum() == pytest.approx(1, abs=1e-12)
    assert expected_drops(n, eps_cr, delta_cr) == pytest.approx(pmf @ np.arange(n + 1), rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("eps_cr, delta_cr", [(0.5, 0.05), (1.0, 1e-3), (3.0, 0.2)])
def test_drops_match_their_exact_law(eps_cr, delta_cr):
    """Mean and variance of the dropped counts over many crowds (4 standard errors)."""
    rng = np.random.default_rng(17)
    n, crowds = 60, 200_000  # small enough that the cap min(n, .) matters at eps_cr = 0.5
    dropped = sample_deletion(np.full(crowds, n), eps_cr, delta_cr, rng).dropped
    pmf = _drop_pmf(n, eps_cr, delta_cr)
    j = np.arange(n + 1)
    mean = expected_drops(n, eps_cr, delta_cr)
    var = pmf @ (j - mean) ** 2
    assert abs(dropped.mean() - mean) < 4 * math.sqrt(var / crowds)
    fourth = pmf @ (j - mean) ** 4
    assert abs(dropped.var() - var) < 4 * math.sqrt((fourth - var**2) / crowds)
    # and the whole law: chi-square goodness of fit on the cells with >= 5 expected
    observed = np.bincount(dropped, minlength=n + 1)
    expected = crowds * pmf
    keep = expected >= 5
    observed = np.append(observed[keep], observed[~keep].sum())
    expected = np.append(expected[keep], expected[~keep].sum())
    assert stats.chisquare(observed, expected).pvalue > 1e-3


@pytest.mark.parametrize("crowds, eps_cr, delta_cr", [(1, 1.0, 0.1), (4, 0.5, 0.3), (50, 2.0, 0.05)])
def test_theorem_v2_drop_bound(crowds, eps_cr, delta_cr):
    """Runs of Algorithm 3 over P crowds: the fraction of runs in which some crowd loses more
    than (4/eps) ln(2P/delta) reports is at most delta (binomial tolerance) and matches the
    exact per-crowd tail."""
    rng = np.random.default_rng(99)
    runs = 40_000
    bound = drop_bound(eps_cr, delta_cr, crowds)
    deletion = sample_deletion(np.full(runs * crowds, 1000), eps_cr, delta_cr, rng)
    assert 1000 > bound
    exceed = (deletion.dropped > bound).reshape(runs, crowds)
    p_any = 1 - (1 - drop_tail(bound, eps_cr, delta_cr)) ** crowds
    assert p_any <= delta_cr
    sd = math.sqrt(p_any * (1 - p_any) / runs)
    assert exceed.mean() <= delta_cr + 4 * math.sqrt(delta_cr * (1 - delta_cr) / exceed.size)  # per crowd
    frac = exceed.any(axis=1).mean()  # per run: some crowd exceeds
    assert frac <= delta_cr + 4 * math.sqrt(delta_cr * (1 - delta_cr) / runs)
    assert abs(frac - p_any) < 4 * sd + 1 / runs


@pytest.mark.parametrize("crowds", [1, 10, 10_000])
@pytest.mark.parametrize("eps_cr", [0.1, 1.0, 2.0])
def test_theorem_v2_holds_exactly_with_floor_rounding(crowds, eps_cr):
    for delta_cr in (1e-9, 1e-3, 0.5, 0.99):
        tail = drop_tail(drop_bound(eps_cr, delta_cr, crowds), eps_cr, delta_cr)
        assert crowds * tail <= math.exp(eps_cr / 2) * delta_cr / (4 * crowds) <= delta_cr


@pytest.mark.parametrize("eps_cr, delta_cr", [(0.5, 0.2), (2.0, 0.4)])
def test_abort_frequency(eps_cr, delta_cr):
    rng = np.random.default_rng(5)
    crowds = 400_000
    deletion = sample_deletion(rng.integers(0, 50, crowds), eps_cr, delta_cr, rng)
    p = abort_probability(eps_cr, delta_cr)
    assert p == pytest.approx(delta_cr / 4 * math.exp(-eps_cr / 2), rel=1e-14)
    assert abs(deletion.aborts.mean() - p) < 4 * math.sqrt(p * (1 - p) / crowds)
    assert deletion.aborted and np.all(deletion.dropped[deletion.aborts] == 0)


def test_deletion_guarantees_match_runs_of_algorithm_3():
    """Exact run-level abort and exceed probabilities against 20,000 runs over three crowds
    (a large delta_cr makes both events common), 4 standard errors."""
    sizes, eps_cr, delta_cr = np.array([5, 50, 500, 5000]), 0.5, 0.5
    g = deletion_guarantees(sizes, eps_cr, delta_cr)
    assert g.bound == drop_bound(eps_cr, delta_cr, 4) and 5 < g.bound < 50
    assert g.expected_drops.tolist() == [expected_drops(x, eps_cr, delta_cr) for x in sizes]
    assert g.p_abort == abort_probability(eps_cr, delta_cr)
    assert g.p_run_abort == pytest.approx(1 - (1 - g.p_abort) ** 4, rel=1e-12)
    assert g.p_exceed == pytest.approx(1 - (1 - drop_tail(g.bound, eps_cr, delta_cr)) ** 3, rel=1e-12)
    assert g.p_exceed <= delta_cr
    runs = 20_000
    deletion = sample_deletion(np.tile(sizes, runs), eps_cr, delta_cr, np.random.default_rng(4))
    aborted = deletion.aborts.reshape(runs, 4).any(axis=1).mean()
    exceeded = (deletion.dropped > g.bound).reshape(runs, 4).any(axis=1).mean()
    for frac, p in ((aborted, g.p_run_abort), (exceeded, g.p_exceed)):
        assert abs(frac - p) < 4 * math.sqrt(p * (1 - p) / runs)


def test_parse_sizes():
    assert parse_sizes("120000, 4_500;800  0").tolist() == [120000, 4500, 800, 0]
    for text, message in (("", "at least one"), ("12, x", "'x' is not"), ("3 -4", "got -4"), ("2.5", "'2.5'")):
        with pytest.raises(InputError, match=message):
            parse_sizes(text)


@pytest.mark.slow
def test_delete_reports_keeps_uniform_subsets():
    rng = np.random.default_rng(8)
    crowds = [np.arange(20) + 100 * i for i in range(3)]
    kept_times = np.zeros(20)
    runs, kept_total, released = 3000, 0, 0
    for _ in range(runs):
        deletion, kept = delete_reports(crowds, 2.0, 0.3, rng)
        if kept is None:
            assert deletion.aborted
            continue
        released += 1
        for crowd, k, m in zip(crowds, kept, deletion.n_hat):
            assert len(k) == m and np.all(np.isin(k, crowd)) and np.all(np.diff(k) > 0)
        kept_times += np.isin(crowds[0], kept[0])
        kept_total += len(kept[0])
    assert 0 < released < runs  # delta_cr = 0.3 makes aborts of a 3-crowd run common
    # each report of crowd 0 is kept in a run w.p. E[n_hat]/20, the same for all 20
    share = kept_total / (20 * released)
    assert np.all(np.abs(kept_times / released - share) < 4 * math.sqrt(share * (1 - share) / released))


def test_partition_errors():
    per, pooled = partition_errors([2500, 2500, 2500, 2500], 4.0)
    assert np.allclose(pooled / per, 2)  # sqrt(m) for m equal crowds
    p = 1 / (1 + math.exp(4.0))
    assert pooled == pytest.approx(math.sqrt(10_000 * p * (1 - p)) / (1 - 2 * p), rel=1e-14)
    per, pooled = partition_errors([9900, 100], 12.0)  # the paper's sqrt(|D_i|/e^eps_l) at large eps
    assert np.allclose(per, np.sqrt(np.array([9900, 100]) / math.exp(12.0)), rtol=1e-4)
    assert pooled == pytest.approx(math.sqrt(10_000 / math.exp(12.0)), rel=1e-4)


@pytest.mark.parametrize("eps_l", [0.1, 0.5, 1.0, 2.0, 4.0, 8.0, 12.0])
@pytest.mark.parametrize("m", [2, 3, 16])
def test_splitting_the_budget_never_pays(eps_l, m):
    """seeds/000 Section V: any split of eps_l between a data-derived crowd ID and the report
    is worse for every value than the whole eps_l on the report (cf. Tables VI-VII)."""
    rng = np.random.default_rng(int(eps_l * 10) + m)
    grid = eps_l * np.linspace(0.001, 0.999, 41)
    for counts in (
        rng.integers(0, 1000, 40),
        np.r_[np.zeros(39, int), 5000],
        (10_000 / np.arange(1, 41) ** 1.2).astype(int),
        np.r_[1, np.zeros(39, int)],
    ):
        crowd_of = rng.integers(0, m, counts.size)
        crowd_of[:m] = np.arange(m)
        result = crowd_id_split(counts, crowd_of, eps_l, grid)
        assert result.split.shape == (grid.size, counts.size)
        assert result.whole == pytest.approx(float(count_std(counts.sum(), eps_l)))
        assert result.best_ratio > 1 and result.ratios.min() == pytest.approx(result.best_ratio)
        # the worst case for the split, an empty crowd with m = 2, gives the closed form
        E, H = math.exp(eps_l), np.exp(grid)
        assert result.best_ratio >= np.sqrt((H + 1) * (E - 1) ** 2 / (H * (E - H) ** 2)).min() * (1 - 1e-12)


@pytest.mark.slow
def test_split_variance_matches_simulation():
    """The split estimator c_hat = (N_iv - p n_i)/((1-2p) q) is unbiased with the stated
    variance: simulate IDs by m-ary RR and one-hot bits for one value per crowd."""
    rng = np.random.default_rng(31)
    counts = np.array([300, 50, 0, 900, 20])
    crowd_of = np.array([0, 0, 1, 1, 2])
    eps_l, eps_hat, m = 3.0, 1.0, 3
    result = crowd_id_split(counts, crowd_of, eps_l, [eps_hat])
    values = np.repeat(np.arange(counts.size), counts)
    q = math.exp(eps_hat) / (math.exp(eps_hat) + m - 1)
    p = 1 / (1 + math.exp(eps_l - eps_hat))
    reps = 4000
    est = np.empty((reps, counts.size))
    for r in range(reps):
        move = rng.random(values.size) >= q  # the ID is one of the other m-1 uniformly
        ids = np.where(move, (crowd_of[values] + rng.integers(1, m, values.size)) % m, crowd_of[values])
        bits = (values[:, None] == np.arange(counts.size)) ^ (rng.random((values.size, counts.size)) < p)
        for v in range(counts.size):
            inside = ids == crowd_of[v]
            est[r, v] = (bits[inside, v].sum() - p * inside.sum()) / ((1 - 2 * p) * q)
    sd = result.split[0]
    assert np.all(np.abs(est.mean(axis=0) - counts) < 4 * sd / math.sqrt(reps))
    alpha = 1e-3 / counts.size
    lo, hi = stats.chi2.ppf([alpha / 2, 1 - alpha / 2], reps - 1) / (reps - 1)
    ratio = est.var(axis=0, ddof=1) / sd**2
    assert np.all((ratio > lo) & (ratio < hi)), ratio


def test_data_derived_ids():
    ids = data_derived_ids(20_000, 4, np.random.default_rng(0))
    assert ids.shape == (20_000,) and set(ids.tolist()) == {0, 1, 2, 3}
    assert np.all(np.abs(np.bincount(ids) / 20_000 - 0.25) < 4 * math.sqrt(0.25 * 0.75 / 20_000))
    with pytest.raises(InputError, match="m \\(crowd IDs\\)"):
        data_derived_ids(10, 1, np.random.default_rng(0))


@pytest.mark.parametrize(
    "call, field",
    [
        (lambda: sample_deletion([3, -1], 1.0, 0.1, np.random.default_rng(0)), "counts"),
        (lambda: sample_deletion([3.5], 1.0, 0.1, np.random.default_rng(0)), "counts"),
        (lambda: sample_deletion([3], 0.0, 0.1, np.random.default_rng(0)), "eps_cr"),
        (lambda: sample_deletion([3], 1.0, 1.0, np.random.default_rng(0)), "delta_cr"),
        (lambda: drop_bound(1.0, 0.1, 0), "crowds"),
        (lambda: delete_reports([], 1.0, 0.1, np.random.default_rng(0)), "crowds"),
        (lambda: crowd_id_split([1, 2], [0, 0], 1.0, [0.5]), "m >= 2"),
        (lambda: crowd_id_split([1, 2], [0, 1], 1.0, [1.0]), "eps_hat"),
        (lambda: crowd_id_split([1, 2], [0], 1.0, [0.5]), "crowd_of"),
    ],
)
def test_validation(call, field):
    with pytest.raises(InputError, match=field):
        call()
