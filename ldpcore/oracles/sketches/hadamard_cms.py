"""Apple's Hadamard count-mean sketch: one coefficient of the Hadamard transform of the one-hot of h_j(x),
flipped; the row transforms (fwht_rows) and the median over rows (row_median)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ldpcore.errors import checkpoint, require
from ldpcore.oracles.limits import check_reference
from ldpcore.oracles.sketches.hash_family import SketchReports
from ldpcore.oracles.sketches.sampling import (
    BLOCK,
    DIRECT_VALUES,
    check_groups,
    check_values,
    halves,
    repeat_blocks,
    threaded,
    uniform_multinomial,
)
from ldpcore.oracles.sketches.sketch import Sketch
from ldpcore.oracles.sketches.tail import HashTail, tail_of
from ldpcore.privacy.guarantee import Neighbouring


def hadamard_sign(overlap: np.ndarray) -> np.ndarray:
    """(-1)^popcount(overlap) as int64: H[l, b] for overlap = l & b."""
    return 1 - 2 * (np.bitwise_count(overlap) & 1).astype(np.int64)


def row_median(rows: np.ndarray) -> np.ndarray:
    """The median over axis 0 (the mean of the two middle values for an even count)."""
    by_value, h = np.ascontiguousarray(rows.T), rows.shape[0] // 2
    by_value.partition([h - 1, h] if rows.shape[0] % 2 == 0 else h, axis=1)
    return by_value[:, h] if rows.shape[0] % 2 else by_value[:, h - 1] / 2 + by_value[:, h] / 2


def fwht_rows(a: np.ndarray) -> np.ndarray:
    """In place: the unnormalised Walsh-Hadamard transform of every row, a[j] <- H a[j] with
    H[l, b] = (-1)^popcount(l & b) (Sylvester order); row blocks split over threads."""
    k, m = a.shape
    step = max(1, (1 << 20) // m)  # rows per block, transformed while in cache

    def transform(rows):
        for lo in range(rows.start, rows.stop, step):
            checkpoint()  # a block: where a run nobody waits for stops (ldpcore.errors)
            block = a[lo : min(lo + step, rows.stop)]
            h = 1
            while h < m:
                v = block.reshape(block.shape[0], m // (2 * h), 2, h)
                top = v[:, :, 0].copy()
                v[:, :, 0] += v[:, :, 1]
                np.subtract(top, v[:, :, 1], out=v[:, :, 1])
                h *= 2

    threaded(transform, halves(k), a.size)
    return a


@dataclass(frozen=True)
class HadamardCountMeanSketch(Sketch):
    """Apple's Hadamard count-mean sketch: row j, coefficient l uniform in [m], the bit
    H[l, h_j(x)] flipped w.p. f = 1/(1+e^eps) (replacement eps). With B[j, l] = (#+1) - (#-1),
    T[j] = c H B[j], c = (e^eps+1)/(e^eps-1) (Apple: x~ = k c w, M <- M H^T; T = M/k). m must be
    a power of two."""

    name = "hcms"
    title = "Hadamard count-mean sketch (Apple HCMS)"
    neighbouring = Neighbouring.REPLACE_ONE

    def __post_init__(self):
        super().__post_init__()
        require(self.m & (self.m - 1) == 0, f"a Hadamard sketch needs a power-of-two width m (got {self.m}).")

    def _plus(self, values, rows, coefs) -> np.ndarray:
        """The unflipped bit, True for +1: s_j(x) H[l, h_j(x)] = +1."""
        odd = np.bitwise_count(coefs & self.hashes.cells(values, rows)) & 1
        negative = self.hashes.signs(values, rows) < 0 if self._signed else False
        return (odd == 1) == negative

    def _cells_signs(self, values, rows) -> tuple[np.ndarray, np.ndarray]:
        """(h_j(x), s_j(x)) for keys x in rows, broadcasting; s = 1 for HCMS."""
        u = np.asarray(self.hashes.mix(values, rows))
        sign = 1 - 2 * (u & np.uint64(1)).astype(np.int64) if self._signed else np.ones(u.shape, dtype=np.int64)
        return self.hashes.reduce(u), sign

    def hash_tail(self, n: int, values, bins, rng: np.random.Generator) -> HashTail | None:
        """The spread of a run's error over hash draws where collisions make it heavy-tailed (tail.tail_of)."""
        values, bins = check_groups(values, bins, self.d)
        return tail_of(values, bins, self.k, self.m, self.grouped_variance(n, values, bins), False, rng)

    def simulation_draws(self, counts) -> float:
        """The kept reports drawn one by one (at most k m per value) and the table's k m cells, transformed in
        O(k m log m)."""
        table = self.k * self.m
        kept = np.minimum(np.asarray(counts) * (1 - 2 * self.flip), table).sum()
        return float(kept) + table * max(1.0, math.log2(self.m))

    def _sample(self, counts: np.ndarray, rng: np.random.Generator) -> SketchReports:
        """Exact draw (module doc). A flip w.p. f is a uniform bit w.p. 2f, so K_x ~ Bin(c_x, 1-2f) of
        value x's respondents report their true bit s_j(x) H[l, h_j(x)] on a uniform (row j,
        coefficient l), and the U others a uniform (row, coefficient, bit): Multinomial(K_x, 1/(k m))
        and Multinomial(U, 1/(2 k m)), drawn report by report below k m / 2 and as _fields above.
        Cost O(sum_x min(c_x, k m) + k m), never O(n); refused above SIMULATION_DRAWS. The cells are
        int32 while the mean row load n/k is below 3/4 of 2^31 (a row holds at most its load, and
        reaches 2^31 with probability below exp(-2^26); then the same draws are made again in int64)."""
        kept = rng.binomial(counts, 1 - 2 * self.flip)
        others, table = int(counts.sum() - kept.sum()), self.k * self.m
        self._check_draws(int(np.minimum(kept, table).sum()) + min(others, 2 * table))
        state, n = rng.bit_generator.state, int(counts.sum())
        reports = self._draw(kept, others, np.int32 if n < 3 * 2**29 * self.k else np.int64, rng)
        if reports.loads.max() >= 2**31 and reports.table.dtype == np.int32:
            rng.bit_generator.state = state
            reports = self._draw(kept, others, np.int64, rng)
        return reports

    def _draw(self, kept: np.ndarray, others: int, dtype, rng: np.random.Generator) -> SketchReports:
        """_sample's draws into cells of dtype, given K_x (kept) and U (others)."""
        k, m = self.k, self.m
        cells, loads = np.zeros((k, m), dtype=dtype), np.zeros(k, dtype=np.int64)
        flat, many = cells.reshape(-1), k * m // 2
        few = np.flatnonzero(kept < many)
        for values in repeat_blocks(few, kept[few], BLOCK // 4):  # one kept report at a time
            rows, coef = rng.integers(k, size=values.size), rng.integers(m, size=values.size)
            b, sign = self._cells_signs(values, rows)
            np.add.at(flat, rows * m + coef, (sign * hadamard_sign(coef & b)).astype(dtype))
            loads += np.bincount(rows, minlength=k)
        for x in np.flatnonzero(kept >= many):
            self._add_field(cells, loads, int(kept[x]), int(x), rng)
        if others < many:  # one uniform (row, coefficient, bit) at a time
            rows = rng.integers(k, size=others)
            bits = 1 - 2 * rng.integers(2, size=others)
            np.add.at(flat, rows * m + rng.integers(m, size=others), bits.astype(dtype))
            loads += np.bincount(rows, minlength=k)
        else:
            self._add_field(cells, loads, others, None, rng)
        return SketchReports(loads, cells, self.hash_seed)

    def _add_field(
        self, cells: np.ndarray, loads: np.ndarray, total: int, x: int | None, rng: np.random.Generator
    ) -> None:
        """Adds `total` reports uniform on the k rows x m coefficients: value x's kept reports (their bit
        s_j(x) H[l, h_j(x)] fixed by the coefficient) or, x=None, reports uniform on the bit too. In
        blocks of rows (one Multinomial of the total over the blocks, then a uniform_multinomial per
        block), on threads with spawned generators."""
        bits = 1 if x is not None else 2
        step = max(1, (1 << 20) // (self.m * bits))
        blocks = [slice(s, min(s + step, self.k)) for s in range(0, self.k, step)]
        parts = rng.multinomial(total, np.array([b.stop - b.start for b in blocks]) / self.k)

        def fill(gen, job):
            rows, part = job
            y = uniform_multinomial(int(part), (rows.stop - rows.start) * self.m * bits, gen)
            y = y.reshape(rows.stop - rows.start, self.m, bits)
            loads[rows] += y.sum(axis=(1, 2))
            if x is None:
                add = np.subtract(y[..., 0], y[..., 1], out=y[..., 0])
            else:
                add = self._signed_by_pattern(y[..., 0], x, rows)
            np.add(cells[rows], add, out=cells[rows], casting="unsafe")  # |cell| <= its row's load

        threaded(fill, list(zip(blocks, parts)), self.k * self.m * bits, rng)

    @cached_property
    def _kronecker(self) -> tuple[int, np.ndarray, np.ndarray]:
        """(m_lo, H_lo, H_hi) with H_m = H_hi x H_lo (Kronecker; l = l_hi m_lo + l_lo): popcount(l & b)
        splits over the two bit ranges, so H[l, b] = H_hi[l_hi, b_hi] H_lo[l_lo, b_lo]."""
        from scipy.linalg import hadamard  # imported on first use: scipy.linalg costs about half a second

        low = 1 << ((self.m.bit_length() - 1) // 2)
        return low, hadamard(low, dtype=np.int64), hadamard(self.m // low, dtype=np.int64)

    def _signed_by_pattern(self, y: np.ndarray, x: int, rows: slice) -> np.ndarray:
        """y (rows, m) times s_j(x) H[l, h_j(x)], the bit value x's kept report gives coefficient l in
        row j, in place: the Kronecker factors broadcast over y's (m_hi, m_lo) view."""
        low, h_lo, h_hi = self._kronecker
        b, sign = self._cells_signs(x, np.arange(rows.start, rows.stop))
        view = y.reshape(-1, self.m // low, low)
        np.multiply(view, (h_hi[:, b // low] * sign).T[:, :, None], out=view)
        np.multiply(view, h_lo[:, b % low].T[:, None, :], out=view)
        return y

    def randomize(self, values, rng: np.random.Generator) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        """Per-respondent reference: (hash seed, rows, coefficients, bits True for +1), each array of shape (n,)."""
        check_reference(self, np.size(values))
        values, sketch = check_values(values, self.d), self._hashed(rng)
        rows, coefs = rng.integers(self.k, size=values.size), rng.integers(self.m, size=values.size)
        return sketch.hash_seed, rows, coefs, sketch._plus(values, rows, coefs) ^ (rng.random(values.size) < self.flip)

    def reference_cells(self, n: int) -> int:
        """Memory of the per-respondent reference: three numbers per report and the k x m table."""
        return 3 * n + self.k * self.m

    def aggregate(self, reports) -> SketchReports:
        seed, rows, coefs, plus = reports
        cells = np.zeros((self.k, self.m), dtype=np.int64)
        np.add.at(cells, (rows, coefs), 2 * plus.astype(np.int64) - 1)
        return SketchReports(np.bincount(rows, minlength=self.k), cells, seed)

    def report_log_prob(self, value: int, reports) -> np.ndarray:
        """Exact log P[R(value) = (row, coefficient, bit)] under the reports' hash seed."""
        seed, rows, coefs, plus = reports
        kept = plus == self.with_hashes(seed)._plus(value, rows, coefs)
        return np.where(kept, math.log1p(-self.flip), math.log(self.flip)) - math.log(self.k * self.m)

    def _estimate(self, aggregate: SketchReports, n: int) -> np.ndarray:
        """Counts of all d values: the readout of T[j] = c H B[j] at the cells h_j(x). Up to
        DIRECT_VALUES values only those cells are transformed (_hadamard_at); else a copy of every row,
        in integers (every partial sum is at most n_j in size, so the cells' dtype holds it exactly)."""
        scale = 1 / (1 - 2 * self.flip)
        if self.d <= DIRECT_VALUES:
            return self._read_values(self._hadamard_at(aggregate.table), n, scale)
        return self._read(fwht_rows(aggregate.table.copy()), n, scale)

    def _hadamard_at(self, cells: np.ndarray) -> np.ndarray:
        """(k, d): s_j(x) (H B[j])[h_j(x)] for every row and value, without transforming whole rows: by
        the Kronecker split, (H B)[b] = sum_{l_hi} H_hi[l_hi, b_hi] (B[l_hi, :] @ H_lo[:, b_lo]), two
        small matrix products per row, O(m d) instead of O(m log m). In float64, exact below 2^53."""
        low, h_lo_int, h_hi_int = self._kronecker
        h_lo, h_hi = h_lo_int.astype(np.float64), h_hi_int.astype(np.float64)
        b, sign = self._cells_signs(np.arange(self.d)[None, :], np.arange(self.k)[:, None])
        out, step = np.empty((self.k, self.d)), max(1, (1 << 22) // self.m)
        for s in range(0, self.k, step):
            checkpoint()  # a block: where a run nobody waits for stops (ldpcore.errors)
            block = cells[s : s + step].astype(np.float64).reshape(-1, self.m // low, low)
            inner = block @ h_lo[:, b[s : s + step] % low].transpose(1, 0, 2)  # (rows, m_hi, d)
            out[s : s + step] = (h_hi[:, b[s : s + step] // low].transpose(1, 0, 2) * inner).sum(axis=1)
        return out * sign

    def _variance_at(self, n: int, x: np.ndarray | None, squares: float):
        """Per-bin MSE over the hash family (fully random hash model), exact in that model:
        (m/(m-1))^2 [n c^2 - c_x - (n - c_x) E gamma^2] + (sum_v c_v^2 - c_x^2)/(k(m-1)),
        c = 1/(1-2f), E gamma^2 = (1-1/m)/(k m) + 1/m^2 (gamma: the fraction of rows where
        h_j(v) = h_j(x)). Each respondent adds +-c: variance c^2 - gamma^2. counts=None: c_x = 0,
        no collision term."""
        m, k = self.m, self.k
        c = 0.0 if x is None else x
        gamma2 = (1 - 1 / m) / (k * m) + 1 / m**2
        var = (m / (m - 1)) ** 2 * (n / (1 - 2 * self.flip) ** 2 - c - (n - c) * gamma2)
        return var if x is None else var + (squares - c**2) / (k * (m - 1))

    @property
    def bits_per_message(self) -> int:
        """Row index, coefficient index and the bit."""
        return max(1, math.ceil(math.log2(self.k))) + int(math.log2(self.m)) + 1
