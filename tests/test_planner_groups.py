"""The planner's histograms by distinct counts (ldpcore.experiment.planning Groups): the scaled counts of a shape at
a new n made on the groups equal scaled_counts exactly, and the sketches' grouped variances equal their variances
read at one bin per distinct count, so the inverses never touch d-length arrays; the inverses' one-dimensional
search lands on the meeting side, within SOLVE_RTOL of the crossing."""

import math

import numpy as np
import pytest

from ldpcore.errors import InputError
from ldpcore.experiment.planning.search import SOLVE_RTOL, search
from ldpcore.experiment.planning.shapes import groups_of, scaled_counts, scaled_groups
from ldpcore.oracles.sketches import CountMeanSketch, CountSketch, FragmentedSketch, HadamardCountMeanSketch


def _histograms(seed: int, trials: int):
    """Random histograms with many equal counts (zero, small, heavy), as images and Zipf shapes have."""
    rng = np.random.default_rng(seed)
    for _ in range(trials):
        d = int(rng.integers(2, 4000))
        counts = rng.zipf(1.4, d) * int(rng.integers(1, 40))
        counts[rng.random(d) < rng.random()] = 0
        if counts.sum() == 0:
            counts[0] = 1
        yield rng, counts


def test_scaled_groups_equal_the_groups_of_scaled_counts_exactly():
    """Every n kind: halves and multiples of the total make remainders tie across different counts (the tie rule:
    the larger share first), odd n leave them apart; below d, most bins scale to 0 or 1."""
    checked = 0
    for rng, counts in _histograms(0, 60):
        total = int(counts.sum())
        weights = counts / total
        start = groups_of(counts)
        share, wsum = start.values / total, float(weights.sum())
        for n in {total, max(1, total // 2), 2 * total, 3 * total + 1, int(rng.integers(1, 10 * total + 2)), 7, 10**9}:
            full = groups_of(scaled_counts(weights, n))
            grouped = scaled_groups(share, start.bins, wsum, n)
            assert grouped.n == full.n == n and grouped.d == full.d == counts.size
            assert np.array_equal(grouped.values, full.values), (n, total)
            assert np.array_equal(grouped.bins, full.bins), (n, total)
            checked += 1
    assert checked >= 300


def test_scaled_counts_are_the_largest_remainders_with_ties_to_the_larger_share():
    weights = np.array([1.0, 3.0, 1.0, 3.0, 2.0])  # n = 6: exact 2/3, 2, 2/3, 2, 4/3 ...
    for n in range(1, 40):
        counts = scaled_counts(weights, n)
        exact = weights / weights.sum() * n
        assert counts.sum() == n
        assert np.all((counts == np.floor(exact)) | (counts == np.floor(exact) + 1))
        up = counts > np.floor(exact)
        rem = exact - np.floor(exact)
        if up.any() and (~up).any():  # every remainder rounded up is at least every one rounded down
            assert rem[up].min() >= rem[~up].max()
    # n = 5: exact 0.5, 1.5, 0.5, 1.5, 1 -> two of the four 0.5 remainders go up, the larger shares (1.5) first
    assert list(scaled_counts(weights, 5)) == [0, 2, 0, 2, 1]


SKETCHES = [
    (CountMeanSketch, {}),
    (FragmentedSketch, {}),
    (HadamardCountMeanSketch, {}),
    (CountSketch, {"combine": "mean"}),
    (CountSketch, {"combine": "median"}),
]


@pytest.mark.slow
@pytest.mark.parametrize("cls, kw", SKETCHES)
def test_grouped_variance_equals_the_variance_at_one_bin_per_distinct_count(cls, kw):
    for rng, counts in _histograms(1, 12):
        k, m = int(rng.choice([1, 3, 16, 64])), int(rng.choice([64, 1024]))
        sketch = cls.from_eps(float(rng.uniform(0.5, 4)), counts.size, k=k, m=m, seed=3, **kw)
        n = int(counts.sum())
        values, first, bins = np.unique(counts, return_index=True, return_counts=True)
        every = np.broadcast_to(sketch.variance(n, counts), counts.shape)
        np.testing.assert_allclose(sketch.grouped_variance(n, values, bins), every[first], rtol=1e-12)


def test_grouped_variance_refuses_groups_that_are_not_a_histogram_over_d():
    sketch = CountMeanSketch.from_eps(1.0, 10, k=4, m=64, seed=1)
    with pytest.raises(InputError, match="add up to d=10"):
        sketch.grouped_variance(100, [0, 10], [5, 4])
    with pytest.raises(InputError, match=">= 0"):
        sketch.grouped_variance(100, [-1, 10], [5, 5])


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: 3e5 / x,  # 1/x: the slope hint is exact
        lambda x: 40 / math.sqrt(x),  # 1/sqrt(x): the secant must correct the hint
        lambda x: 0.1 + 50 / x**1.5,  # flattening: a secant overshoots far
        lambda x: math.inf if x < 2e4 else 2e5 / x,  # not valid below 2e4 (inf: not meeting)
    ],
)
def test_search_returns_a_meeting_point_within_the_tolerance_of_the_crossing(fn):
    for target in (0.05, 0.11, 0.3, 2.0, 40.0):
        for guess, slope in ((None, None), (1e4, -1.0), (1e7, -1.0), (3e5, None)):
            calls = []

            def value(x, calls=calls):
                calls.append(x)
                return fn(x)

            found = search(value, 10.0, 1e9, target, guess, slope)
            if not fn(1e9) <= target:
                assert found is None
                continue
            x, v = found
            assert v == fn(x) <= target
            assert x == 10.0 or not fn(x / (1 + SOLVE_RTOL)) <= target, (target, guess, x)
            assert len(calls) <= 40
