"""The count sketch of Charikar et al. as a frequency oracle (Bassily et al. 2017): the HCMS report of the
signed one-hot, read by the mean or the median of the rows."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldpcore.errors import require
from ldpcore.oracles.sketches.hadamard_cms import HadamardCountMeanSketch, row_median
from ldpcore.oracles.sketches.median import MEDIAN_NOTE, centre_densities, median_factor
from ldpcore.oracles.sketches.sampling import BLOCK, check_counts, check_groups, key_bytes, threaded
from ldpcore.oracles.sketches.tail import HashTail, tail_of


@dataclass(frozen=True)
class CountSketch(HadamardCountMeanSketch):
    """Count sketch with signed hashes s_j: the HCMS report of s_j(x) e_{h_j(x)} (Bassily et al.
    2017). T[j] estimates the signed row counts; row j reads k s_j(x) T[j, h_j(x)], unbiased for
    c_x plus collisions of zero mean over the signs. combine="mean" averages the rows (unbiased
    over the hash family, no correction needed); "median" takes their median (robust to a heavy
    collision; nearly but not exactly unbiased: the rows are not quite symmetric about c_x, and with
    heavy collisions (k = 16, m = 64) a value's bias reaches a few hundredths of its standard
    deviation). Its variance is modelled, not exact (_median_variance, MEDIAN_NOTE)."""

    combine: str = "median"

    name = "count-sketch"
    title = "Count sketch, signed hashes (Bassily et al. 2017)"
    _signed = True

    def __post_init__(self):
        super().__post_init__()
        require(self.combine in ("median", "mean"), f"combine must be 'median' or 'mean' (got {self.combine!r}).")

    def _read(self, table: np.ndarray, n: int, scale: float) -> np.ndarray:
        if self.combine == "mean":
            return scale * self._rowsum(table, signed=True)
        chars, step = self.hashes.chars(np.arange(self.d), key_bytes(self.d)), max(1, BLOCK // self.k)

        def median(start):  # k times the median over rows of s_j(x) T[j, h_j(x)], for a block of values
            c = chars[:, start : start + step]
            rows = np.empty((self.k, c.shape[1]), dtype=table.dtype)
            buf, tmp = np.empty(c.shape[1], np.uint64), np.empty(c.shape[1], np.uint64)
            for j in range(self.k):
                cells, negative = self.hashes.row_into(j, c, buf, tmp, signs=True)
                np.negative(np.take(table[j], cells, out=rows[j]), out=rows[j], where=negative)
            return scale * self.k * row_median(rows)

        return np.concatenate(threaded(median, range(0, self.d, step), self.k * self.d))

    def _read_values(self, values: np.ndarray, n: int, scale: float) -> np.ndarray:
        """_read from values[j, x] = s_j(x) table[j, h_j(x)] (k x d)."""
        return scale * (values.sum(axis=0) if self.combine == "mean" else self.k * row_median(values))

    @property
    def variance_note(self) -> str:
        return "" if self.combine == "mean" else MEDIAN_NOTE

    def hash_tail(self, n: int, values, bins, rng: np.random.Generator) -> HashTail | None:
        """The mean readout's spread over hash draws (signed collisions, tail.tail_of); the median readout ignores a
        rare collision, and its variance is a model of the rows (None)."""
        if self.combine != "mean":
            return None
        values, bins = check_groups(values, bins, self.d)
        return tail_of(values, bins, self.k, self.m, self.grouped_variance(n, values, bins), True, rng)

    def prediction_limit(self, n: int, values, bins) -> str:
        """Where the median readout's modelled variance (MEDIAN_NOTE) is not a prediction within 10%, why ("" where
        it is, and for the mean readout, whose variance is exact). A row reads k/(1-2f) times an integer, the sum
        of the +-1 of its about n/k reports, so the median over the k rows moves on a lattice (steps of k/(1-2f)
        counts, half that for an even k); the sample median's standard deviation is about sqrt(pi n/2)/k of those
        steps, so the model of continuous rows needs n >= k^2: simulated with k = 64, 256, 1,024 and eps_l = 1, 4
        it is within 3.1% at n = k^2 and 5.2% at n = k^2/2, 9.1% at k^2/4, 10-27% between k^2/10 and k^2/7, and
        every estimate is 0 when the steps exceed the counts (a 20 x 20 grid of 3,376 points at k = 1,024).
        With k < 16 rows collisions heavier than the privacy noise (sum_v c_v^2/m above the row's noise variance
        k n/(1-2f)^2) move it too: 1.15x at 3.8 times the noise, 3.7x at 370 times (k = 4, m = 64), within 3% below
        1 time; with k >= 16 it held at up to 92 times."""
        if self.combine == "mean":
            return ""
        k, gain = self.k, 1 - 2 * self.flip
        if n < k * k:
            step = k / gain / (2 if k % 2 == 0 else 1)
            return (
                f"the median readout needs as many reports per row as rows (n/k >= k = {k:,}); here about "
                f"{n / k:,.3g} reach a row, so the median of the rows moves in steps of {step:,.4g} counts (every "
                f"estimate is 0 where the counts are smaller) and its predicted RMSE does not hold: use the mean "
                f"readout (combine=mean, exact) or at most {math.isqrt(n):,} rows"
            )
        values, bins = check_groups(values, bins, self.d)
        heavy = float(np.dot(bins, values**2)) / self.m / (k * n / gain**2)
        if k < 16 and heavy > 1:
            return (
                f"with k = {k} rows (fewer than 16) and collisions {heavy:,.3g} times heavier than the privacy "
                "noise of a row, the median readout's variance model is not reliable (up to 3.7x off in "
                "simulations): use the mean readout (combine=mean, exact) or at least 16 rows"
            )
        return ""

    def variance(self, n: int, counts=None):
        """Mean: _variance_at. Median: _median_variance, an approximation (MEDIAN_NOTE), on the distinct counts;
        counts=None: median_factor(k) times the mean's without collisions."""
        if self.combine == "mean":
            return super().variance(n, counts)
        if counts is None:
            return median_factor(self.k) * (n * (1 / (1 - 2 * self.flip) ** 2) - n / (self.k * self.m))
        values, inverse, bins = np.unique(check_counts(counts, self.d), return_inverse=True, return_counts=True)
        return self._median_variance(n, values, bins)[inverse]

    def grouped_variance(self, n: int, values, bins):
        if self.combine == "mean":
            return super().grouped_variance(n, values, bins)
        return self._median_variance(n, *check_groups(values, bins, self.d))

    def _variance_at(self, n: int, x: np.ndarray | None, squares: float):
        """Mean over rows, exact in the fully random hash model: n c^2 - c_x - (n - c_x)/(k m)
        + (sum_v c_v^2 - c_x^2)/(k m), c = 1/(1-2f) (signed gamma has mean 0, second moment
        1/(k m)); counts=None: c_x = 0, no collision term."""
        m, k = self.m, self.k
        c = 0.0 if x is None else x
        var = n / (1 - 2 * self.flip) ** 2 - c - (n - c) / (k * m)
        return var if x is None else var + (squares - c**2) / (k * m)

    def _median_variance(self, n: int, values: np.ndarray, bins: np.ndarray) -> np.ndarray:
        """The median readout's variance in a model of the rows (MEDIAN_NOTE), at each distinct count
        (values, held by bins bins each). Row j reads value x as
        R_j = c_x + a_j + e_j + C_j: a_j = k X_j - c_x, where X_j of x's respondents chose row j (variance
        c_x (k-1), summing to 0 over the rows), e_j the privacy noise of every report (independent
        across rows), C_j = sum_{v != x} e_v c_v B_v the collisions (B_v ~ Bernoulli(1/m), e_v = +-1,
        fully random hashes). With a normal, a_j = b (Z_j - Zbar), Y_j = b Z_j + e_j + C_j is iid of
        variance S^2 = k n c^2 - (n - c_x)/m ~ k n c^2 - n/m (c = 1/(1-2f)) plus the collisions', and
        median(R) - c_x = median(Y) - b Zbar. Cov(median(Y), Zbar) = b/k (Bahadur's representation of the
        median and Stein's lemma), so Var = Var(median Y) - b^2/k = Var(median Y) - c_x, and
        Var(median Y) = median_factor(k)/(pi/2) / (4 k f(0)^2), f the density of Y at 0 (the sample
        median's asymptotic variance, David and Nagaraja, Order Statistics, 3rd ed. 2003, Ch. 10, scaled
        to be exact for normal rows at every k). Normal rows give median_factor(k) n c^2 - c_x against the
        mean readout's n c^2 - c_x; collisions the median ignores lower it. The mean readout in the same
        model has the exact variance above."""
        m, k, c2 = self.m, self.k, 1 / (1 - 2 * self.flip) ** 2
        x = np.asarray(values, dtype=np.float64)
        density = centre_densities(k * n * c2 - n / m, x, np.asarray(bins, dtype=np.float64), m)
        return median_factor(k) / (math.pi / 2) / (4 * k * density**2) - x
