"""Apple's count-mean sketch and the attribute-fragmented sketch of Erlingsson et al. 2020 (PRIVACY_NOTE),
and Table VII's split budget (split_budget_rmse)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldpcore.errors import check_whole, checkpoint
from ldpcore.oracles.bits import bernoulli_bits
from ldpcore.oracles.limits import check_reference
from ldpcore.oracles.sketches.hash_family import SketchReports
from ldpcore.oracles.sketches.sampling import (
    BLOCK,
    binomials,
    check_groups,
    check_values,
    count_dtype,
    halves,
    iid_binomial,
    key_bytes,
    repeat_blocks,
    threaded,
)
from ldpcore.oracles.sketches.sketch import Sketch
from ldpcore.oracles.sketches.tail import HashTail, tail_of
from ldpcore.privacy.bounds import Randomizer
from ldpcore.privacy.guarantee import Neighbouring

_HASHED = 1 << 20  # placements hashed between two checkpoints of _table

PRIVACY_NOTE = (
    "Erlingsson et al. 2020 gives no amplification bound for fragmented sketch reports (a row's crowd is only "
    "n/k): it runs them at the one-hot eps_l of eps_c, which does not certify that eps_c; its Table III "
    "says only 1 <= eps_c <= eps_l_inf at eps_c = 1, i.e. between the one-hot eps_c at the same eps_l "
    "and eps_l_inf itself."
)


@dataclass(frozen=True)
class CountMeanSketch(Sketch):
    """Apple's count-mean sketch: row j, the +-1 one-hot of h_j(x), each entry flipped w.p.
    f = 1/(1+e^(eps/2)) (replacement eps: two entries differ). Server (spec): x~ = k (c/2 v + 1/2),
    c = (e^(eps/2)+1)/(e^(eps/2)-1), M[j] += x~; here T = M/k = (S - n_j f)/(1-2f) for S the 1s."""

    name = "cms"
    title = "Count-mean sketch (Apple CMS)"
    neighbouring = Neighbouring.REPLACE_ONE
    _entries = 2

    def _placements(self, counts: np.ndarray, rng: np.random.Generator):
        """The true rows of every value's respondents, each picking one of the k rows uniformly:
        (bound, chunks) with chunks an iterator of (values, rows, respondents) arrays and bound >= every
        row's load. Values with 2k respondents or more take one Multinomial(c_v, 1/k) (drawn first,
        all at once when that table is small, so the bound is their largest row load plus every
        other respondent); the others a row per respondent."""
        small = np.flatnonzero((counts > 0) & (counts < 2 * self.k))
        big, every_row, uniform = np.flatnonzero(counts >= 2 * self.k), np.arange(self.k), np.full(self.k, 1 / self.k)
        step = max(1, BLOCK // self.k)
        eager = rng.multinomial(counts[big], uniform) if big.size <= step else None
        rest = int(counts[small].sum())
        bound = rest + int(eager.sum(axis=0).max()) if eager is not None and big.size else int(counts.sum())

        def big_chunks():
            for start in range(0, big.size, step):
                checkpoint()  # a block: where a run nobody waits for stops (ldpcore.errors)
                values = big[start : start + step]
                loads = eager if eager is not None else rng.multinomial(counts[values], uniform)
                yield np.repeat(values, self.k), np.tile(every_row, values.size), loads.ravel()

        def chunks():
            yield from big_chunks()
            for values in repeat_blocks(small, counts[small]):
                yield values, rng.integers(self.k, size=values.size), np.ones(values.size, dtype=np.int64)

        return bound, chunks()

    def _table(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Exact true row counts X (k, m): X[j, b] = row-j respondents whose value hashes to b."""
        bound, chunks = self._placements(counts, rng)
        table = np.zeros(self.k * self.m, dtype=count_dtype(bound))
        for values, rows, held in chunks:  # hashed and added in parts (no draws: the same table), a checkpoint each
            for s in range(0, values.size, _HASHED):
                checkpoint()
                part = slice(s, s + _HASHED)
                cells = rows[part] * self.m + self.hashes.cells(values[part], rows[part])
                np.add.at(table, cells, held[part].astype(table.dtype))
        return table.reshape(self.k, self.m)

    def _sample(self, counts: np.ndarray, rng: np.random.Generator) -> SketchReports:
        """Exact draw of the reported 1s, Bin(X, 1-f) + Bin(n_j - X, f) per cell given the true
        row counts X: the cells no row-j respondent holds are iid Bin(n_j, f) (drawn per row on
        threads), the occupied ones by numpy's binomial. O(sum_v min(c_v, 2k) + k m)."""
        self._check_draws(int(np.minimum(counts, 2 * self.k).sum()) + self.k * self.m)
        X = self._table(counts, rng)
        loads = X.sum(axis=1, dtype=np.int64)
        occupied = np.flatnonzero(X)
        held = X.ravel()[occupied].astype(np.int64)

        def draw(gen, rows):
            for j in rows:
                checkpoint()  # a row: where a run nobody waits for stops (ldpcore.errors)
                X[j] = iid_binomial(int(loads[j]), self.flip, self.m, gen)

        threaded(draw, halves(self.k), X.size, rng)
        X.ravel()[occupied] = (
            held - binomials(held, self.flip, rng) + binomials(loads[occupied // self.m] - held, self.flip, rng)
        )
        return SketchReports(loads, X, self.hash_seed)

    @property
    def _reads_few(self) -> bool:
        """The estimator reads at most k d cells: drawing only those pays up to d = m/8 (measured: about m/5)."""
        return 8 * self.d <= self.m

    def hash_tail(self, n: int, values, bins, rng: np.random.Generator) -> HashTail | None:
        """The spread of a run's error over hash draws where collisions make it heavy-tailed (tail.tail_of)."""
        values, bins = check_groups(values, bins, self.d)
        return tail_of(values, bins, self.k, self.m, self.grouped_variance(n, values, bins), False, rng)

    def simulation_draws(self, counts) -> float:
        """The rows of the respondents and the cells drawn: sum_v min(c_v, 2k) + k d (k m for the whole table)."""
        cells = self.k * (self.d if self._reads_few else self.m)
        return float(np.minimum(np.asarray(counts), 2 * self.k).sum()) + cells

    def _sample_read(self, counts: np.ndarray, rng: np.random.Generator) -> SketchReports:
        """Exact draw of the sums the estimator reads, sum_j S[j, h_j(x)] for every x in [d], drawing
        only the cells it reads (at most k d of the k m). Given the true row counts X, the cells are
        independent, S[j, b] = Bin(X[j, b], 1-f) + Bin(n_j - X[j, b], f) (every report flips each of
        its m entries independently), and every respondent's cell is read (its value is in [d]), so
        the read cells have the law of _sample's and the unread ones (all Bin(n_j, f)) do not enter
        the estimates. The true counts are kept per (row, value), X[j, h_j(x)] summing the values of
        one cell; row by row a scratch array of m slots names one value per distinct read cell. A cell
        read by several values is drawn; the cells a value reads alone (most of them when d << m) enter
        only its own sum, and a sum of independent binomials with one p is binomial, so they are drawn
        at once per value: Bin(sum X, 1-f) + Bin(sum (n_j - X), f) over them. The estimates have the
        joint law of the table's, not its draws: a seed gives the same run each time, but not the run
        of sample_aggregate(table=True). O(sum_v min(c_v, 2k) + k d), about k d^2/m draws."""
        k, d = self.k, self.d
        self._check_draws(int(np.minimum(counts, 2 * k).sum()) + k * d)
        bound, chunks = self._placements(counts, rng)
        held = np.zeros(k * d, dtype=count_dtype(bound))
        for values, rows, part in chunks:
            np.add.at(held, rows * d + values, part.astype(held.dtype))
        held = held.reshape(k, d)
        loads = held.sum(axis=1, dtype=np.int64)
        chars, keys = self.hashes.chars(np.arange(d), key_bytes(d)), np.arange(d)

        def draw(gen, rows):  # sums over the shared cells; true counts and loads over each value's own cells
            sums, own, own_loads = np.zeros(d, np.int64), np.zeros(d, np.int64), np.zeros(d, np.int64)
            slot, buf, tmp = np.empty(self.m, dtype=np.intp), np.empty(d, np.uint64), np.empty(d, np.uint64)
            drawn = np.empty(d, np.int64)
            for j in rows:
                checkpoint()  # a row: where a run nobody waits for stops (ldpcore.errors)
                cells = self.hashes.row_into(j, chars, buf, tmp)
                slot[cells] = keys  # the last value of each read cell names it
                named = slot[cells]
                readers = np.bincount(named, minlength=d)  # values reading each cell, at the value naming it
                lone = readers[named] == 1
                own[lone] += held[j, lone]
                own_loads[lone] += loads[j]
                crowd = ~lone
                shared = np.flatnonzero(readers > 1)
                x = np.bincount(named[crowd], weights=held[j, crowd], minlength=d)[shared].astype(np.int64)
                empty = x == 0
                drawn[shared[empty]] = iid_binomial(int(loads[j]), self.flip, int(empty.sum()), gen)
                x, occupied = x[~empty], shared[~empty]
                drawn[occupied] = x - gen.binomial(x, self.flip) + gen.binomial(loads[j] - x, self.flip)
                sums[crowd] += drawn[named[crowd]]
            return sums, own, own_loads

        sums, own, own_loads = (sum(part) for part in zip(*threaded(draw, halves(k), k * d, rng)))
        sums += own - rng.binomial(own, self.flip) + rng.binomial(own_loads - own, self.flip)
        return SketchReports(loads, None, self.hash_seed, sums)

    def randomize(self, values, rng: np.random.Generator) -> tuple[int, np.ndarray, np.ndarray]:
        """Per-respondent reference: (hash seed, rows (n,), bits (n, m) bool, True for +1)."""
        check_reference(self, np.size(values))
        values, sketch = check_values(values, self.d), self._hashed(rng)
        rows = rng.integers(self.k, size=values.size)
        bits = bernoulli_bits(self.flip, (values.size, self.m), rng)  # the flips, exact Bernoulli bits 64 a word
        bits[np.arange(values.size), sketch.hashes.cells(values, rows)] ^= True
        return sketch.hash_seed, rows, bits

    def aggregate(self, reports) -> SketchReports:
        seed, rows, bits = reports
        cells = np.zeros((self.k, self.m), dtype=np.int64)
        np.add.at(cells, rows, bits)
        return SketchReports(np.bincount(rows, minlength=self.k), cells, seed)

    def report_log_prob(self, value: int | None, reports) -> np.ndarray:
        """Exact log P[R(value) = (row, bits)] under the reports' hash seed; value=None is the all-(-1)
        vector (absent respondent)."""
        seed, rows, bits = reports
        truth = np.zeros(bits.shape, dtype=bool)
        if value is not None:
            truth[np.arange(rows.size), self.with_hashes(seed).hashes.cells(value, rows)] = True
        same = np.where(bits == truth, math.log1p(-self.flip), math.log(self.flip)).sum(axis=-1)
        return same - math.log(self.k)

    def _estimate(self, aggregate: SketchReports, n: int) -> np.ndarray:
        """Counts of all d values. The debiasing T = (S - n_j f)/(1-2f) is linear, so the readout
        sums the raw counts: sum_j T[j, h_j(x)] = (sum_j S[j, h_j(x)] - f n)/(1-2f)."""
        read = aggregate.sums if aggregate.cells is None else self._rowsum(aggregate.cells)
        summed = (read - self.flip * aggregate.loads.sum()) / (1 - 2 * self.flip)
        return self.m / (self.m - 1) * (summed - n / self.m)

    def _variance_at(self, n: int, x: np.ndarray | None, squares: float):
        """Per-bin MSE over the hash family (fully random hash model), exact in that model:
        (m/(m-1))^2 n f(1-f)/(1-2f)^2 [noise] + (n - c_x)(1-1/k)/(m-1) [row sampling]
        + (sum_v c_v^2 - c_x^2)/(k(m-1)) [collisions, data dependent]. counts=None: the first
        two terms at c_x = 0. For fixed hashes the collision term is a fixed bias per value."""
        f, m, k = self.flip, self.m, self.k
        var = (m / (m - 1)) ** 2 * n * f * (1 - f) / (1 - 2 * f) ** 2
        if x is None:
            return var + n * (1 - 1 / k) / (m - 1)
        return var + (n - x) * (1 - 1 / k) / (m - 1) + (squares - x**2) / (k * (m - 1))

    @property
    def bits_per_message(self) -> int:
        """The row index and the m-entry vector."""
        return max(1, math.ceil(math.log2(self.k))) + self.m


@dataclass(frozen=True)
class FragmentedSketch(CountMeanSketch):
    """The attribute-fragmented sketch of Erlingsson et al. 2020: the row's m-bit one-hot as m binary-RR bits,
    each flipped w.p. p = 1/(1+e^eps); only set bits are sent, each as its own message naming
    (row, cell). Zero-out LDP like one-hot (reference: the randomized all-zeros row). Same aggregate
    law and estimator as CMS with f = p (Tables I, III: #bits = (1-p) + (m-1) p)."""

    name = "sketch-fragments"
    title = "Sketch with attribute fragments (Erlingsson et al. 2020)"
    neighbouring = Neighbouring.ZERO_OUT
    randomizer = Randomizer.BINARY_RR  # every bit of a row: binary RR, as one-hot
    privacy_note = PRIVACY_NOTE
    _entries = 1  # zero-out: the reference is the randomized all-zeros row

    def expected_messages(self) -> float:
        """Expected set bits sent per respondent (paper "#bits_sketch")."""
        return (1 - self.flip) + (self.m - 1) * self.flip

    @property
    def bits_per_message(self) -> int:
        """A message names its row and cell: ceil(log2(k m)) bits."""
        return max(1, math.ceil(math.log2(self.k * self.m)))


def split_budget_rmse(
    counts,
    eps: float,
    rng: np.random.Generator,
    reports=(1, 2, 5),
    k: int = 1024,
    m: int = 65_536,
    seed: int | None = None,
) -> dict[int, float]:
    """Erlingsson et al. 2020 Table VII in kind: every respondent sends r fragmented-sketch reports, each on a
    row drawn independently and at eps/r, so the r reports compose to zero-out eps. That is the
    sketch of r c_v reports per value, read with n r reports and divided by r. Returns
    {r: RMSE of the raw estimate}. One hash with the whole budget wins: the noise variance
    n p_r(1-p_r)/(r (1-2p_r)^2) grows with r far faster than the row-sampling variance
    (n - c_x)(1-1/k)/(r (m-1)) falls; the collision error does not depend on r, and every r is
    read with the same hash functions (seed, else drawn once from rng)."""
    counts = np.asarray(counts, dtype=np.int64)
    n, out = int(counts.sum()), {}
    seed = int(rng.integers(2**63)) if seed is None else seed
    for r in reports:
        r = check_whole(r, 1, "reports per respondent")
        sketch = FragmentedSketch.from_eps(eps / r, counts.size, k=k, m=m, seed=seed)
        est = sketch.estimate(sketch.sample_aggregate(r * counts, rng), r * n) / r
        out[r] = float(np.sqrt(np.mean((est - counts) ** 2)))
    return out
