"""The common shape of the sketches (Sketch): calibration, variance contract, hash functions drawn per run or
fixed, the exact samplers' dispatch, and the count-mean readout over the rows."""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, replace
from functools import cached_property
from typing import ClassVar, Self

import numpy as np

from ldpcore.errors import InputError, check_eps, checkpoint, require
from ldpcore.oracles.limits import check_realised, largest_eps
from ldpcore.oracles.onehot import eps_of_flip, flip_probability
from ldpcore.oracles.sketches.hash_family import HashFamily, SketchReports
from ldpcore.oracles.sketches.sampling import (
    CHUNK,
    SIMULATION_DRAWS,
    check_counts,
    check_groups,
    halves,
    key_bytes,
    threaded,
)
from ldpcore.privacy.bounds import Randomizer
from ldpcore.privacy.guarantee import Neighbouring


@dataclass(frozen=True)
class Sketch:
    """Common shape of the sketches: d values, k rows of width m, flip probability, hash seed (None:
    drawn from each simulation's generator; module doc)."""

    d: int
    flip: float
    k: int = 1024
    m: int = 65_536
    seed: int | None = None

    name: ClassVar[str]
    title: ClassVar[str]
    neighbouring: ClassVar[Neighbouring]
    randomizer: ClassVar[Randomizer] = Randomizer.ANY_LDP  # one eps-LDP report per respondent
    _signed: ClassVar[bool] = False
    _entries: ClassVar[int] = 1  # report entries that differ between two values: each flips at eps/_entries

    def __post_init__(self):
        require(1 <= self.d <= 2**32, f"the domain size d must lie in [1, 2^32] (got {self.d}).")
        require(self.k >= 1, f"the number of hash functions k must be >= 1 (got {self.k}).")
        require(2 <= self.m <= 2**32, f"the sketch width m must lie in [2, 2^32] (got {self.m}).")
        require(0 < self.flip < 0.5, f"flip probability must lie in (0, 1/2) (got {self.flip:g}).")
        check_realised(self.title, self.eps_l, self.flip, self.smallest_at)

    @classmethod
    def smallest_at(cls, eps: float) -> float:
        """The flip probability 1/(1+e^(eps/_entries)), the smallest probability of the law (limits)."""
        return flip_probability(eps / cls._entries)

    @classmethod
    def largest_eps(cls) -> float:
        """The largest eps float64 realises (limits): 18.22, or 37.91 for CMS (entries flip at eps/2)."""
        return largest_eps(cls.smallest_at)

    @classmethod
    def from_eps(cls, eps: float, d: int, k: int = 1024, m: int = 65_536, seed: int | None = None, **kw):
        """Local eps -> flip probability 1/(1+e^(eps/_entries)) per reported entry."""
        eps = check_eps(eps, "eps_l")
        check_realised(cls.title, eps, cls.smallest_at(eps), cls.smallest_at)
        return cls(d=d, flip=cls.smallest_at(eps), k=k, m=m, seed=seed, **kw)

    @property
    def eps_l(self) -> float:
        return self._entries * eps_of_flip(self.flip)

    def expected_messages(self) -> float:
        """One message per respondent."""
        return 1.0

    def reference_cells(self, n: int) -> int:
        """Memory of the per-respondent reference: n reports of m entries, read out over d values."""
        return n * max(self.d, self.m)

    @property
    def variance_note(self) -> str:
        """What `variance` is short of exact ("" when exact)."""
        return ""

    def variance(self, n: int, counts=None):
        """Per-bin MSE of the raw estimate (_variance_at); counts=None: a bin of count 0, no collision term."""
        if counts is None:
            return self._variance_at(n, None, 0.0)
        c = check_counts(counts, self.d).astype(np.float64)
        return self._variance_at(n, c, float((c**2).sum()))

    def grouped_variance(self, n: int, values, bins):
        """variance(n, counts) at one bin of each distinct count, in O(len(values)) rather than O(d): values
        are the histogram's distinct counts, bins how many of its d bins hold each."""
        values, bins = check_groups(values, bins, self.d)
        return self._variance_at(n, values, float(np.dot(bins, values**2)))

    def _variance_at(self, n: int, x: np.ndarray | None, squares: float):
        """The variance at the counts x (None: count 0, no collisions), sum_v c_v^2 = squares."""
        raise NotImplementedError

    @property
    def hash_seed(self) -> int:
        """The seed of the hash functions, once fixed (with_hashes, _hashed)."""
        if self.seed is None:
            raise InputError("this sketch draws its hash functions per run (seed=None): give a seed to fix them.")
        return self.seed

    @cached_property
    def hashes(self) -> HashFamily:
        return HashFamily(self.k, self.m, self.hash_seed)

    @abstractmethod
    def _sample(self, counts: np.ndarray, rng: np.random.Generator) -> SketchReports:
        """Exact draw of what the analyzer sees, with this sketch's fixed hash functions."""

    @abstractmethod
    def _estimate(self, aggregate: SketchReports, n: int) -> np.ndarray:
        """Counts of all d values, read with this sketch's fixed hash functions."""

    def with_hashes(self, seed: int) -> Self:
        """This sketch with the hash functions of seed (the reports' own; a sketch with fixed hashes takes
        only reports made with them)."""
        require(
            self.seed is None or self.seed == seed,
            f"these reports were made with hash seed {seed}, not this sketch's {self.seed}.",
        )
        return self if self.seed == seed else replace(self, seed=int(seed))

    def _hashed(self, rng: np.random.Generator) -> Self:
        """This sketch with its fixed hash functions, or with hash functions drawn from rng (seed None)."""
        return self if self.seed is not None else self.with_hashes(int(rng.integers(2**63)))

    def sample_aggregate(self, counts, rng: np.random.Generator, table: bool = False) -> SketchReports:
        """Exact draw of what the analyzer sees (the class's _sample), with the hash functions drawn
        from rng unless fixed. A bit sketch whose estimator reads fewer cells than the table holds
        draws only those and keeps the sums it reads (_sample_read: the estimates have the same law);
        table=True: always the whole k x m table."""
        sketch, counts = self._hashed(rng), check_counts(counts, self.d)
        return sketch._sample_read(counts, rng) if sketch._reads_few and not table else sketch._sample(counts, rng)

    @property
    def _reads_few(self) -> bool:
        """Whether _sample_read pays: the estimator reads at most k d of the k m cells (bit sketches only)."""
        return False

    def _sample_read(self, counts: np.ndarray, rng: np.random.Generator) -> SketchReports:
        raise NotImplementedError

    def estimate(self, aggregate: SketchReports, n: int) -> np.ndarray:
        """Counts of all d values, read with the reports' hash functions."""
        return self.with_hashes(aggregate.seed)._estimate(aggregate, n)

    def _check_draws(self, draws: float) -> None:
        """An exact simulation drawing `draws` random numbers, or InputError above SIMULATION_DRAWS."""
        require(
            draws <= SIMULATION_DRAWS,
            f"an exact simulation of {self.title} would draw about {draws:.3g} "
            f"random numbers for these counts; the limit is {SIMULATION_DRAWS:.0e}: "
            f"lower the counts (an image's scale), d, k or m.",
        )

    def _rowsum(self, table: np.ndarray, signed: bool = False) -> np.ndarray:
        """sum_j [s_j(x)] table[j, h_j(x)] for every x in [d]; the rows are split over threads."""
        if self.m & (self.m - 1) == 0:
            return self._rowsum_pow2(table, signed)
        chars = self.hashes.chars(np.arange(self.d), key_bytes(self.d))

        def part(rows):
            acc, size = np.zeros(self.d), min(self.d, CHUNK)
            buf, tmp, got = np.empty(size, np.uint64), np.empty(size, np.uint64), np.empty(size, table.dtype)
            for s in range(0, self.d, CHUNK):
                checkpoint()  # a block: where a run nobody waits for stops (ldpcore.errors)
                c, size = chars[:, s : s + CHUNK], min(CHUNK, self.d - s)
                for j in rows:
                    if signed:
                        cells, negative = self.hashes.row_into(j, c, buf[:size], tmp[:size], signs=True)
                        np.negative(np.take(table[j], cells, out=got[:size]), out=got[:size], where=negative)
                    else:
                        np.take(table[j], self.hashes.row_into(j, c, buf[:size], tmp[:size]), out=got[:size])
                    acc[s : s + size] += got[:size]
            return acc

        return sum(threaded(part, halves(self.k), self.k * self.d))

    def _rowsum_pow2(self, table: np.ndarray, signed: bool) -> np.ndarray:
        """_rowsum for a power-of-two width, with the same result. h_j(x) is the top log2 m bits
        of u_j(x) and a shift commutes with XOR, so h_j(x) = g_j0[x_0] ^ g_j1[x_1] ^ g_j2[x_2] ^
        g_j3[x_3] with g the tables' top bits (the sign bit is the XOR of their low bits). In a
        chunk of 2^16 aligned keys x_2 and x_3 are fixed, so a row's cells are the outer XOR of
        its 256 x_1 parts with its 256 x_0 parts: one pass and one gather per (value, row)
        instead of four gathers. Integer tables are summed in int64 (exact, so equal to the float
        sum whenever that is exact, i.e. below 2^53); others in float64 in the same order."""
        t, shift = self.hashes._tables, np.uint64(65 - self.m.bit_length())
        g = (t >> shift).astype(np.intp)
        if signed:
            g = (g << 1) | (t & np.uint64(1)).astype(np.intp)
        exact = np.issubdtype(table.dtype, np.integer)

        def part(rows):
            out = np.empty(self.d)
            acc = np.empty(CHUNK, np.int64 if exact else np.float64)
            cells, got = np.empty(CHUNK, np.intp), np.empty(CHUNK, table.dtype)
            idx, neg = np.empty(CHUNK, np.intp), np.empty(CHUNK, bool)
            for s in range(0, self.d, CHUNK):
                checkpoint()  # a block: where a run nobody waits for stops (ldpcore.errors)
                size = min(CHUNK, self.d - s)
                lines, x1, x2, x3 = -(-size // 256), (s >> 8) & 255, (s >> 16) & 255, (s >> 24) & 255
                grid, c, a, v = cells[: lines * 256].reshape(lines, 256), cells[:size], acc[:size], got[:size]
                a[:] = 0
                for j in rows:
                    gj = g[j]
                    np.bitwise_xor(
                        (gj[1, x1 : x1 + lines] ^ (gj[2, x2] ^ gj[3, x3]))[:, None], gj[0][None, :], out=grid
                    )
                    if signed:
                        np.take(table[j], np.right_shift(c, 1, out=idx[:size]), out=v, mode="wrap")
                        np.not_equal(np.bitwise_and(c, 1, out=c), 0, out=neg[:size])
                        np.negative(v, out=v, where=neg[:size])
                    else:
                        np.take(table[j], c, out=v, mode="wrap")  # every cell is in range
                    np.add(a, v, out=a)
                out[s : s + size] = a
            return out

        return sum(threaded(part, halves(self.k), self.k * self.d))

    def _read(self, table: np.ndarray, n: int, scale: float) -> np.ndarray:
        """CMS readout (spec) of T = scale * table, an estimate of X: m/(m-1) (sum_j T[j, h_j(x)]
        - n/m), unbiased over the hash family."""
        return self.m / (self.m - 1) * (scale * self._rowsum(table) - n / self.m)

    def _read_values(self, values: np.ndarray, n: int, scale: float) -> np.ndarray:
        """_read from values[j, x] = table[j, h_j(x)] (k x d) instead of the whole table."""
        return self.m / (self.m - 1) * (scale * values.sum(axis=0) - n / self.m)

    def noiseless_estimate(self, counts) -> np.ndarray:
        """The estimate without privacy noise and with every respondent in every row (Table V,
        eps_c = infinity): the readout of T = F/k, F[j, b] = sum_v c_v [s_j(v)] [h_j(v) = b]. O(d k)."""
        counts = check_counts(counts, self.d)
        v = np.flatnonzero(counts)
        F = np.empty((self.k, self.m))
        for j in range(self.k):
            weights = counts[v] * self.hashes.signs(v, j) if self._signed else counts[v]
            F[j] = np.bincount(self.hashes.cells(v, j), weights=weights, minlength=self.m)
        return self._read(F, int(counts.sum()), 1 / self.k)
