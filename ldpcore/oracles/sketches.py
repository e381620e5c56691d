"""Sketch-based frequency oracles: Apple's count-mean sketch (CMS) and Hadamard CMS, a signed count
sketch, and the attribute-fragmented sketch of Erlingsson, Feldman, Mironov, Raghunathan, Song, Talwar,
Thakurta, Encode, Shuffle, Analyze Privacy Revisited (2020), Tables I, III, V, VII; docs/esa.md
"Sketches").

k seeded hash functions h_j: [d] -> [m] (paper and Apple: k = 1024, m = 65,536). Every
respondent picks ONE row j uniformly and reports on h_j(x) only:
- CountMeanSketch: the +-1 one-hot of h_j(x), each entry flipped w.p. 1/(1+e^(eps/2)).
- FragmentedSketch: that one-hot as m binary-RR bits flipped w.p. 1/(1+e^eps); only set
  bits are sent, each its own message (removal LDP, like one-hot over [m] in row j).
- HadamardCountMeanSketch: one uniform Hadamard coefficient l of the one-hot,
  H[l, h_j(x)] = (-1)^popcount(l & h_j(x)), flipped w.p. 1/(1+e^eps): 1 bit + indices.
- CountSketch: the same 1-bit report of the signed one-hot s_j(x) e_{h_j(x)} (the frequency
  oracle of Bassily et al. 2017, after Charikar et al.), median or mean over rows.

The analyzer debiases every cell into T[j, b], an unbiased estimate of X[j, b] = the number
of row-j respondents whose value hashes to b (Apple's M[j, b] is k T[j, b]), and reads x
from T[j, h_j(x)] over the rows. With no privacy noise and every respondent in every row
(the paper's non-private baseline, Table V, eps_c = infinity) the estimate is
`noiseless_estimate(counts)`; for the mean readouts it is also E[estimate | hashes], so
`noiseless_estimate(counts) - counts` is the sketch's own (collision) error.

Hash functions: a sketch built with seed=None (as plan() builds them) draws its hash functions
from the generator of each simulation (sample_aggregate, randomize), as a fresh deployment
would choose them, so its estimates are unbiased over runs for every value and the same
generator seed gives the same hashes and the same run; the reports carry the hash seed the
analyzer reads them with (SketchReports.seed). A given seed fixes the hash functions: the
law given the hashes (noiseless_estimate, the tests of the conditional law).

Exact aggregate simulation: each value's respondents pick rows uniformly (a row per
respondent below 2k respondents, else one Multinomial(c_v, 1/k)), giving the true row
counts X at cost O(sum_v min(c_v, 2k) + k m); the reported 1s of a bit sketch are then
Bin(X, 1-f) + Bin(n_j - X, f) per cell. Those cells are independent given X and every
respondent's cell is one the estimator reads, so with d <= m/8 only the k d read cells are drawn
and their sums kept (_sample_read, O(sum_v min(c_v, 2k) + k d); table=True draws the whole
table). A Hadamard report is kept (its true bit on a
uniform coefficient) w.p. 1-2f, else uniform on (coefficient, bit); the kept reports of one
value in one row are Multinomial(K, 1/m) over the coefficients, with bits fixed by the
coefficient, and the other reports of a row Multinomial(U, 1/(2m)): drawn per report when
few, else as one multinomial in O(m) (_uniform_multinomial), so the cost is
O(sum_v min(c_v, k m) + k m), independent of n for a fixed domain; above SIMULATION_DRAWS
it is refused. A Hadamard sketch draws its whole table: the read values (H B[j])[h_j(x)] are not
independent across cells (every report moves the transform at every cell of its row).

Privacy: a CMS, HCMS or count-sketch report is one eps-LDP message (replacement), so the
generic amplification bounds apply to it (ldpcore.oracles registers them). The fragmented
sketch sends many messages per respondent; Erlingsson et al. 2020 gives no bound for it (PRIVACY_NOTE).
"""

from __future__ import annotations

import math
from abc import abstractmethod
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import cache, cached_property
from typing import ClassVar, Self

import numpy as np
from scipy.special import bdtr, gammaln, log_ndtr, xlogy

from ldpcore.errors import InputError, check_eps, check_whole, require
from ldpcore.oracles.limits import check_realised, check_reference, largest_eps
from ldpcore.oracles.onehot import eps_of_flip, flip_probability
from ldpcore.privacy.bounds import Randomizer
from ldpcore.privacy.guarantee import Neighbouring

PRIVACY_NOTE = (
    "Erlingsson et al. 2020 gives no amplification bound for fragmented sketch reports (a row's crowd is only "
    "n/k): it runs them at the one-hot eps_l of eps_c, which does not certify that eps_c; its Table III "
    "says only 1 <= eps_c <= eps_l_inf at eps_c = 1, i.e. between the one-hot eps_c at the same eps_l "
    "and eps_l_inf itself."
)

_THREADS = 2  # fixed, so a seed gives the same draw on every machine
_BLOCK = 1 << 22  # respondents or cells per vectorised step
_CHUNK = 1 << 16  # values per step of a readout (keeps the work arrays in cache)
_DIRECT_VALUES = 16  # Hadamard readout: up to this many values, transform only their cells (_hadamard_at)
SIMULATION_DRAWS = 500_000_000  # random numbers an exact Hadamard-sketch simulation may draw (about 15 s)


def _threaded(fn, parts, size: int, rng=None) -> list:
    """fn(part), or fn(generator, part) with generators spawned from rng, on _THREADS threads when
    the work (size, in cells) is large; the result never depends on the threading."""
    args = [parts] if rng is None else [rng.spawn(len(parts)), parts]
    if size < _BLOCK:
        return list(map(fn, *args))
    with ThreadPoolExecutor(_THREADS) as pool:
        return list(pool.map(fn, *args))


def _halves(k: int) -> list[range]:
    return [range(k * i // _THREADS, k * (i + 1) // _THREADS) for i in range(_THREADS)]


def _repeat_blocks(keys: np.ndarray, reps: np.ndarray, block: int = _BLOCK):
    """np.repeat(keys, reps) in blocks of at most `block` entries (a key's repeats may span blocks)."""
    cum = np.cumsum(reps)
    total = int(cum[-1]) if cum.size else 0
    for start in range(0, total, block):
        stop = min(start + block, total)
        lo, hi = (int(i) for i in np.searchsorted(cum, [start, stop - 1], side="right"))
        part = np.array(reps[lo : hi + 1], dtype=np.int64)
        part[0] = min(int(cum[lo]), stop) - start
        if hi > lo:
            part[-1] = stop - int(cum[hi - 1])
        yield np.repeat(keys[lo : hi + 1], part)


def _key_bytes(d: int) -> int:
    """Bytes needed by the keys 0..d-1."""
    return max(1, -(-(d - 1).bit_length() // 8))


def _count_dtype(bound: int):
    """Cell counts never exceed the largest row load: int32 halves the k x m tables whenever that is safe."""
    return np.int32 if bound < 2**31 else np.int64


def check_counts(counts, d: int) -> np.ndarray:
    """A histogram over [d]: d counts >= 0, as int64."""
    counts = np.asarray(counts, dtype=np.int64)
    require(counts.shape == (d,), f"counts must hold one entry per value (d={d}); got shape {counts.shape}.")
    require(bool((counts >= 0).all()), "counts must be >= 0.")
    return counts


def _check_groups(values, bins, d: int) -> tuple[np.ndarray, np.ndarray]:
    """A histogram over [d] by its distinct counts: (values >= 0, bins > 0 summing to d), as float64."""
    values, bins = np.asarray(values, dtype=np.float64), np.asarray(bins, dtype=np.float64)
    require(values.ndim == 1 and values.shape == bins.shape, "values and bins must be 1-d of one length.")
    require(bool((values >= 0).all()) and bool((bins > 0).all()), "counts must be >= 0 and bins > 0.")
    require(float(bins.sum()) == d, f"the bins must add up to d={d} (got {bins.sum():g}).")
    return values, bins


def check_values(values, d: int) -> np.ndarray:
    """Respondents' values in [0, d), as int64."""
    values = np.asarray(values, dtype=np.int64)
    require(bool(((values >= 0) & (values < d)).all()), f"values must lie in [0, {d}).")
    return values


def _bernstein_window(mean: float, var: float, top: int | None, tail: float) -> np.ndarray:
    """Whole numbers around mean outside of which each side of a law with this variance holds at most
    `tail`, by Bernstein's inequality P(|N - mean| >= t) <= 2 exp(-t^2/(2(var + t/3))) (sums of
    independent variables in [0, 1]: binomials, and Poissons as their limit)."""
    log_tail = math.log(1 / tail)
    t = log_tail / 3 + math.sqrt(log_tail**2 / 9 + 2 * log_tail * var)
    high = math.ceil(mean + t) if top is None else min(math.ceil(mean + t), top)
    return np.arange(max(math.floor(mean - t), 0), high + 1)


def binomial_window(n: int, p: float, tail: float = 1e-18) -> np.ndarray:
    """Values of Bin(n, p) outside of which each side holds at most `tail` (Bernstein; scipy's isf
    fails so far out)."""
    return _bernstein_window(n * p, n * p * (1 - p), n, tail)


def _iid_binomial(n: int, p: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """size iid Bin(n, p) draws (_inversion on the binomial_window cdf). The law of numpy's sampler up to
    floating point, several times faster for many draws with the same (n, p); numpy's own for fewer
    draws than 8 per point of the window (the table would cost more than it saves)."""
    z = binomial_window(n, p)
    if size < 8 * z.size:
        return rng.binomial(n, p, size)
    return _inversion(z, bdtr(z, n, p), size, rng)


def _iid_poisson(lam: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """size iid Poisson(lam) draws (_inversion on the Bernstein window's cdf, from the pmf: what lies
    below the window, <= 1e-18, is left out)."""
    z = _bernstein_window(lam, lam, None, 1e-18)
    return _inversion(z, np.cumsum(np.exp(xlogy(z, lam) - lam - gammaln(z + 1))), size, rng)


def _inversion(z: np.ndarray, cdf: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """size iid draws of the law with cdf on the window z (consecutive whole numbers) by inversion with
    a guide table (Chen and Asau, "On generating random variates from an empirical distribution",
    1974): the window's end points absorb the <= 1e-18 tails; a bucket of the uniform gives a start,
    one step settles nearly every draw, a binary search the rest."""
    cdf = np.array(cdf, dtype=np.float64)
    cdf[-1] = np.inf
    buckets = 8 * z.size
    guide = np.searchsorted(cdf, np.arange(buckets) / buckets, side="right")
    u = rng.random(size)
    idx = guide[np.multiply(u, buckets).astype(np.intp)]  # the answer is at or after the bucket's start
    stepped = cdf[idx] <= u
    idx += stepped
    rest = np.flatnonzero(stepped)
    rest = rest[cdf[idx[rest]] <= u[rest]]
    idx[rest] = np.searchsorted(cdf, u[rest], side="right")
    idx += z[0]
    return idx


def _uniform_multinomial(total: int, cells: int, rng: np.random.Generator) -> np.ndarray:
    """Multinomial(total, uniform on cells) in O(cells + sqrt(total)) for any total: cells iid
    Poisson(lam) counts, which given their sum S are Multinomial(S, uniform) whatever lam, then the
    total - S missing balls dropped in uniformly, or S - total of the S balls taken out uniformly
    without replacement (a uniform sub-multiset of a multinomial sample is multinomial). lam puts
    the mean of S one standard deviation below total: mostly balls are added (cheap), few removed."""
    y = _iid_poisson(max(total - math.sqrt(total), 0) / cells, cells, rng)
    s = int(y.sum())
    if s < total:
        np.add.at(y, rng.integers(cells, size=total - s), 1)
    elif s > total:
        out = np.sort(rng.choice(s, size=s - total, replace=False))  # ball indices, in cell order
        y -= np.bincount(np.searchsorted(np.cumsum(y), out, side="right"), minlength=cells)
    return y


@dataclass(frozen=True)
class HashFamily:
    """k seeded hash functions [2^32] -> [m] with signs [2^32] -> {-1, +1}, by simple tabulation
    (Carter and Wegman 1979; Patrascu and Thorup 2012): a key is cut into four bytes and
    u_j(x) = T_j0[x_0] ^ T_j1[x_1] ^ T_j2[x_2] ^ T_j3[x_3] with uniform 64-bit table entries. The
    family is 3-independent, so every collision moment the variances use (pairs and triples of
    keys) is that of a fully random hash. h_j(x) = ((u >> 32) m) >> 32, exactly uniform when m is
    a power of two (the top log2 m bits), within 2^-32 otherwise; s_j(x) = 1 - 2 (u & 1). The
    tables (8 KiB per row) stay in cache. Same seed, same functions.
    """

    k: int
    m: int
    seed: int

    @cached_property
    def _tables(self) -> np.ndarray:
        """(k, 4, 256) uint64."""
        return np.random.default_rng(self.seed).integers(0, 2**64, size=(self.k, 4, 256), dtype=np.uint64)

    @staticmethod
    def chars(x, count: int = 4) -> np.ndarray:
        """(count, ...) intp: the low `count` bytes of the keys x (the others must be 0)."""
        x = np.asarray(x, dtype=np.int64)
        return np.stack([(x >> 8 * c) & 255 for c in range(count)]).astype(np.intp)

    def mix(self, x, rows) -> np.ndarray:
        """u_j(x) (uint64) for j in rows, broadcasting keys x against rows."""
        x, flat = np.asarray(x, dtype=np.int64), self._tables.reshape(-1)
        base = np.asarray(rows, dtype=np.int64) * 1024
        u = flat[base + (x & 255)]
        for c in range(1, 4):
            u ^= flat[base + (256 * c + ((x >> 8 * c) & 255))]
        return u

    def reduce(self, u: np.ndarray) -> np.ndarray:
        """h = (u >> 32) m >> 32 in place (u >> (64 - log2 m) when m is a power of two), as int64."""
        if self.m & (self.m - 1) == 0:
            u >>= np.uint64(65 - self.m.bit_length())
        else:
            u >>= np.uint64(32)
            u *= np.uint64(self.m)
            u >>= np.uint64(32)
        return u.view(np.int64)

    def cells(self, x, rows) -> np.ndarray:
        """h_j(x) for j in rows, broadcasting keys x against rows (int64)."""
        return self.reduce(np.asarray(self.mix(x, rows)))

    def signs(self, x, rows) -> np.ndarray:
        """s_j(x) in {-1, +1} (int64), broadcasting like cells."""
        return 1 - 2 * (self.mix(x, rows) & np.uint64(1)).astype(np.int64)

    def row_into(self, j: int, chars: np.ndarray, buf: np.ndarray, tmp: np.ndarray, signs: bool = False):
        """cells(x, j) for keys given by chars(x, count), computed in the uint64 buffers buf and tmp
        (the readout's hot loop; the bytes beyond count are 0, so their entries are a constant,
        folded into the first table). With signs, also the mask s_j(x) < 0, as (cells, mask)."""
        t = self._tables[j]
        first = t[0] ^ np.bitwise_xor.reduce(t[len(chars) :, 0]) if len(chars) < 4 else t[0]
        np.take(first, chars[0], out=buf)
        for c in range(1, len(chars)):
            np.bitwise_xor(buf, np.take(t[c], chars[c], out=tmp), out=buf)
        if not signs:
            return self.reduce(buf)
        negative = np.bitwise_and(buf, np.uint64(1), out=tmp).astype(bool)
        return self.reduce(buf), negative


@dataclass(frozen=True)
class SketchReports:
    """What a sketch's analyzer sees: loads[j] reports in row j and, per cell, either the reported
    1s, cells[j, b] (bit sketches), or cells[j, l] = (#+1) - (#-1) of the reports of coefficient l
    (Hadamard sketches; all Apple's server keeps of them); seed: the public hash functions. A bit
    sketch drawn for its estimates only (_sample_read) holds instead of the table the sums its
    estimator reads, sums[x] = sum_j cells[j, h_j(x)] for every x in [d], and cells is None."""

    loads: np.ndarray
    cells: np.ndarray | None
    seed: int
    sums: np.ndarray | None = None

    @property
    def table(self) -> np.ndarray:
        """cells, or InputError for reports that hold only the sums their estimator reads."""
        if self.cells is None:
            raise InputError("these reports hold only the sums the estimator reads: draw them with table=True.")
        return self.cells


@dataclass(frozen=True)
class _Sketch:
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
        values, bins = _check_groups(values, bins, self.d)
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
        chars = self.hashes.chars(np.arange(self.d), _key_bytes(self.d))

        def part(rows):
            acc, size = np.zeros(self.d), min(self.d, _CHUNK)
            buf, tmp, got = np.empty(size, np.uint64), np.empty(size, np.uint64), np.empty(size, table.dtype)
            for s in range(0, self.d, _CHUNK):
                c, size = chars[:, s : s + _CHUNK], min(_CHUNK, self.d - s)
                for j in rows:
                    if signed:
                        cells, negative = self.hashes.row_into(j, c, buf[:size], tmp[:size], signs=True)
                        np.negative(np.take(table[j], cells, out=got[:size]), out=got[:size], where=negative)
                    else:
                        np.take(table[j], self.hashes.row_into(j, c, buf[:size], tmp[:size]), out=got[:size])
                    acc[s : s + size] += got[:size]
            return acc

        return sum(_threaded(part, _halves(self.k), self.k * self.d))

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
            acc = np.empty(_CHUNK, np.int64 if exact else np.float64)
            cells, got = np.empty(_CHUNK, np.intp), np.empty(_CHUNK, table.dtype)
            idx, neg = np.empty(_CHUNK, np.intp), np.empty(_CHUNK, bool)
            for s in range(0, self.d, _CHUNK):
                size = min(_CHUNK, self.d - s)
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

        return sum(_threaded(part, _halves(self.k), self.k * self.d))

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


@dataclass(frozen=True)
class CountMeanSketch(_Sketch):
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
        step = max(1, _BLOCK // self.k)
        eager = rng.multinomial(counts[big], uniform) if big.size <= step else None
        rest = int(counts[small].sum())
        bound = rest + int(eager.sum(axis=0).max()) if eager is not None and big.size else int(counts.sum())

        def big_chunks():
            for start in range(0, big.size, step):
                values = big[start : start + step]
                loads = eager if eager is not None else rng.multinomial(counts[values], uniform)
                yield np.repeat(values, self.k), np.tile(every_row, values.size), loads.ravel()

        def chunks():
            yield from big_chunks()
            for values in _repeat_blocks(small, counts[small]):
                yield values, rng.integers(self.k, size=values.size), np.ones(values.size, dtype=np.int64)

        return bound, chunks()

    def _table(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Exact true row counts X (k, m): X[j, b] = row-j respondents whose value hashes to b."""
        bound, chunks = self._placements(counts, rng)
        table = np.zeros(self.k * self.m, dtype=_count_dtype(bound))
        for values, rows, held in chunks:
            np.add.at(table, rows * self.m + self.hashes.cells(values, rows), held.astype(table.dtype))
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
                X[j] = _iid_binomial(int(loads[j]), self.flip, self.m, gen)

        _threaded(draw, _halves(self.k), X.size, rng)
        X.ravel()[occupied] = (
            held - rng.binomial(held, self.flip) + rng.binomial(loads[occupied // self.m] - held, self.flip)
        )
        return SketchReports(loads, X, self.hash_seed)

    @property
    def _reads_few(self) -> bool:
        """The estimator reads at most k d cells: drawing only those pays up to d = m/8 (measured: about m/5)."""
        return 8 * self.d <= self.m

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
        held = np.zeros(k * d, dtype=_count_dtype(bound))
        for values, rows, part in chunks:
            np.add.at(held, rows * d + values, part.astype(held.dtype))
        held = held.reshape(k, d)
        loads = held.sum(axis=1, dtype=np.int64)
        chars, keys = self.hashes.chars(np.arange(d), _key_bytes(d)), np.arange(d)

        def draw(gen, rows):  # sums over the shared cells; true counts and loads over each value's own cells
            sums, own, own_loads = np.zeros(d, np.int64), np.zeros(d, np.int64), np.zeros(d, np.int64)
            slot, buf, tmp = np.empty(self.m, dtype=np.intp), np.empty(d, np.uint64), np.empty(d, np.uint64)
            drawn = np.empty(d, np.int64)
            for j in rows:
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
                drawn[shared[empty]] = _iid_binomial(int(loads[j]), self.flip, int(empty.sum()), gen)
                x, occupied = x[~empty], shared[~empty]
                drawn[occupied] = x - gen.binomial(x, self.flip) + gen.binomial(loads[j] - x, self.flip)
                sums[crowd] += drawn[named[crowd]]
            return sums, own, own_loads

        sums, own, own_loads = (sum(part) for part in zip(*_threaded(draw, _halves(k), k * d, rng)))
        sums += own - rng.binomial(own, self.flip) + rng.binomial(own_loads - own, self.flip)
        return SketchReports(loads, None, self.hash_seed, sums)

    def randomize(self, values, rng: np.random.Generator) -> tuple[int, np.ndarray, np.ndarray]:
        """Per-respondent reference: (hash seed, rows (n,), bits (n, m) bool, True for +1)."""
        check_reference(self, np.size(values))
        values, sketch = check_values(values, self.d), self._hashed(rng)
        rows = rng.integers(self.k, size=values.size)
        bits = np.zeros((values.size, self.m), dtype=bool)
        bits[np.arange(values.size), sketch.hashes.cells(values, rows)] = True
        return sketch.hash_seed, rows, bits ^ (rng.random(bits.shape) < self.flip)

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
    (row, cell). Removal LDP like one-hot (reference: the randomized all-zeros row). Same aggregate
    law and estimator as CMS with f = p (Tables I, III: #bits = (1-p) + (m-1) p)."""

    name = "sketch-fragments"
    title = "Sketch with attribute fragments (Erlingsson et al. 2020)"
    neighbouring = Neighbouring.ADD_OR_REMOVE_ONE
    randomizer = Randomizer.BINARY_RR  # every bit of a row: binary RR, as one-hot
    privacy_note = PRIVACY_NOTE
    _entries = 1  # removal: the reference is the randomized all-zeros row

    def expected_messages(self) -> float:
        """Expected set bits sent per respondent (paper "#bits_sketch")."""
        return (1 - self.flip) + (self.m - 1) * self.flip

    @property
    def bits_per_message(self) -> int:
        """A message names its row and cell: ceil(log2(k m)) bits."""
        return max(1, math.ceil(math.log2(self.k * self.m)))


def _hadamard_sign(overlap: np.ndarray) -> np.ndarray:
    """(-1)^popcount(overlap) as int64: H[l, b] for overlap = l & b."""
    return 1 - 2 * (np.bitwise_count(overlap) & 1).astype(np.int64)


def _row_median(rows: np.ndarray) -> np.ndarray:
    """The median over axis 0 (the mean of the two middle values for an even count)."""
    by_value, h = np.ascontiguousarray(rows.T), rows.shape[0] // 2
    by_value.partition([h - 1, h] if rows.shape[0] % 2 == 0 else h, axis=1)
    return by_value[:, h] if rows.shape[0] % 2 else by_value[:, h - 1] / 2 + by_value[:, h] / 2


def _fwht_rows(a: np.ndarray) -> np.ndarray:
    """In place: the unnormalised Walsh-Hadamard transform of every row, a[j] <- H a[j] with
    H[l, b] = (-1)^popcount(l & b) (Sylvester order); row blocks split over threads."""
    k, m = a.shape
    step = max(1, (1 << 20) // m)  # rows per block, transformed while in cache

    def transform(rows):
        for lo in range(rows.start, rows.stop, step):
            block = a[lo : min(lo + step, rows.stop)]
            h = 1
            while h < m:
                v = block.reshape(block.shape[0], m // (2 * h), 2, h)
                top = v[:, :, 0].copy()
                v[:, :, 0] += v[:, :, 1]
                np.subtract(top, v[:, :, 1], out=v[:, :, 1])
                h *= 2

    _threaded(transform, _halves(k), a.size)
    return a


@dataclass(frozen=True)
class HadamardCountMeanSketch(_Sketch):
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
        for values in _repeat_blocks(few, kept[few], _BLOCK // 4):  # one kept report at a time
            rows, coef = rng.integers(k, size=values.size), rng.integers(m, size=values.size)
            b, sign = self._cells_signs(values, rows)
            np.add.at(flat, rows * m + coef, (sign * _hadamard_sign(coef & b)).astype(dtype))
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
        blocks of rows (one Multinomial of the total over the blocks, then a _uniform_multinomial per
        block), on threads with spawned generators."""
        bits = 1 if x is not None else 2
        step = max(1, (1 << 20) // (self.m * bits))
        blocks = [slice(s, min(s + step, self.k)) for s in range(0, self.k, step)]
        parts = rng.multinomial(total, np.array([b.stop - b.start for b in blocks]) / self.k)

        def fill(gen, job):
            rows, part = job
            y = _uniform_multinomial(int(part), (rows.stop - rows.start) * self.m * bits, gen)
            y = y.reshape(rows.stop - rows.start, self.m, bits)
            loads[rows] += y.sum(axis=(1, 2))
            if x is None:
                add = np.subtract(y[..., 0], y[..., 1], out=y[..., 0])
            else:
                add = self._signed_by_pattern(y[..., 0], x, rows)
            np.add(cells[rows], add, out=cells[rows], casting="unsafe")  # |cell| <= its row's load

        _threaded(fill, list(zip(blocks, parts)), self.k * self.m * bits, rng)

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
        _DIRECT_VALUES values only those cells are transformed (_hadamard_at); else a copy of every row,
        in integers (every partial sum is at most n_j in size, so the cells' dtype holds it exactly)."""
        scale = 1 / (1 - 2 * self.flip)
        if self.d <= _DIRECT_VALUES:
            return self._read_values(self._hadamard_at(aggregate.table), n, scale)
        return self._read(_fwht_rows(aggregate.table.copy()), n, scale)

    def _hadamard_at(self, cells: np.ndarray) -> np.ndarray:
        """(k, d): s_j(x) (H B[j])[h_j(x)] for every row and value, without transforming whole rows: by
        the Kronecker split, (H B)[b] = sum_{l_hi} H_hi[l_hi, b_hi] (B[l_hi, :] @ H_lo[:, b_lo]), two
        small matrix products per row, O(m d) instead of O(m log m). In float64, exact below 2^53."""
        low, h_lo_int, h_hi_int = self._kronecker
        h_lo, h_hi = h_lo_int.astype(np.float64), h_hi_int.astype(np.float64)
        b, sign = self._cells_signs(np.arange(self.d)[None, :], np.arange(self.k)[:, None])
        out, step = np.empty((self.k, self.d)), max(1, (1 << 22) // self.m)
        for s in range(0, self.k, step):
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
        chars, step = self.hashes.chars(np.arange(self.d), _key_bytes(self.d)), max(1, _BLOCK // self.k)

        def median(start):  # k times the median over rows of s_j(x) T[j, h_j(x)], for a block of values
            c = chars[:, start : start + step]
            rows = np.empty((self.k, c.shape[1]), dtype=table.dtype)
            buf, tmp = np.empty(c.shape[1], np.uint64), np.empty(c.shape[1], np.uint64)
            for j in range(self.k):
                cells, negative = self.hashes.row_into(j, c, buf, tmp, signs=True)
                np.negative(np.take(table[j], cells, out=rows[j]), out=rows[j], where=negative)
            return scale * self.k * _row_median(rows)

        return np.concatenate(_threaded(median, range(0, self.d, step), self.k * self.d))

    def _read_values(self, values: np.ndarray, n: int, scale: float) -> np.ndarray:
        """_read from values[j, x] = s_j(x) table[j, h_j(x)] (k x d)."""
        return scale * (values.sum(axis=0) if self.combine == "mean" else self.k * _row_median(values))

    @property
    def variance_note(self) -> str:
        return "" if self.combine == "mean" else MEDIAN_NOTE

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
        return self._median_variance(n, *_check_groups(values, bins, self.d))

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
        density = _centre_densities(k * n * c2 - n / m, x, np.asarray(bins, dtype=np.float64), m)
        return median_factor(k) / (math.pi / 2) / (4 * k * density**2) - x


MEDIAN_NOTE = (
    "the count sketch's median readout has no closed-form variance: its analytic RMSE is an "
    "approximation (a model of the rows, exact for normal rows; within 1% of simulations on average "
    "over the values for k >= 16, up to 20% off for k <= 4 with heavy collisions)."
)


@cache
def median_factor(k: int) -> float:
    """k Var(median of k iid standard normals), the median of an even k being the mean of the two middle
    values: 1 for k <= 2, 1.346 at k = 3, 1.537 at 64, up to pi/2. By quadrature of the order statistics'
    densities (David and Nagaraja, Order Statistics, 3rd ed. 2003, Ch. 2): X_(h+1) for odd k = 2h+1;
    for even k = 2h, E[X_(h)^2] and E[X_(h) X_(h+1)] from their joint density, on a grid of 14 median
    standard deviations either side."""
    if k <= 2:
        return 1.0
    h, half = k // 2, 14 * math.sqrt(math.pi / (2 * k))
    x = np.linspace(-min(12.0, half), min(12.0, half), 20_001)
    log_pdf, log_cdf, log_sf = -x * x / 2 - math.log(2 * math.pi) / 2, log_ndtr(x), log_ndtr(-x)
    if k % 2:
        log_c = gammaln(k + 1) - 2 * gammaln(h + 1)
        return k * float(np.trapezoid(x * x * np.exp(log_c + h * (log_cdf + log_sf) + log_pdf), x))
    log_c = gammaln(k + 1) - gammaln(h) - gammaln(h + 1)  # X_(h) of 2h: F^(h-1) S^h f
    square = np.trapezoid(x * x * np.exp(log_c + (h - 1) * log_cdf + h * log_sf + log_pdf), x)
    log_c = (gammaln(k + 1) - 2 * gammaln(h)) / 2  # (X_(h), X_(h+1)): F(x)^(h-1) f(x) f(y) S(y)^(h-1), x < y
    upper = x * np.exp((h - 1) * log_sf + log_pdf + log_c)
    tail = np.concatenate([np.cumsum(((upper[1:] + upper[:-1]) / 2 * np.diff(x))[::-1])[::-1], [0.0]])
    product = np.trapezoid(x * np.exp((h - 1) * log_cdf + log_pdf + log_c) * tail, x)
    return k * float(2 * square + 2 * product) / 4


def _centre_densities(s2: float, values: np.ndarray, bins: np.ndarray, m: int) -> np.ndarray:
    """For every distinct count x (values; bins: how many values hold each), the density at 0 of
    N(0, s2) + sum_{v != x} e_v c_v B_v (_median_variance) by Fourier inversion,
    (1/pi) int_0^inf exp(-s2 t^2/2) prod_{v != x} (1 - (1 - cos(t c_v))/m) dt on t = u/s, u in [0, 9]
    (e^-40.5 beyond), 30 points per period of the fastest cosine. Counts below s/50 enter through their
    variance c^2/m (the product's second-order term; their own factor is left in), counts above 200 s
    only move mass far from the centre: a factor 1 - 1/m each. The cost is O(distinct counts), not O(d)."""
    s = math.sqrt(s2)
    tiny, far = values <= s / 50, values > 200 * s
    middle = ~tiny & ~far
    s = math.sqrt(s2 + float(np.dot(bins[tiny], values[tiny] ** 2)) / m)
    centre, repeats = values[middle], bins[middle]
    u = np.linspace(0.0, 9.0, max(2049, math.ceil(45 * (centre.max() if centre.size else 0) / s) + 1))
    factor = _cos_grid(centre / s * (u[1] - u[0]), u.size)  # in place: (cos(t c) - 1)/m, then 1 + that
    factor -= 1.0
    factor /= m
    log_all = repeats @ np.log1p(factor) - u * u / 2
    factor += 1.0
    scale = (1 - 1 / m) ** bins[far].sum() / (math.pi * s)
    total = np.exp(log_all)
    weights = np.full(u.size, u[1] - u[0])  # the trapezoid rule on the equally spaced u
    weights[[0, -1]] /= 2
    every = float(np.dot(total, weights)) * scale
    out = np.full(values.shape, every)
    out[far] = every / (1 - 1 / m)
    out[middle] = (total * weights / factor).sum(axis=1) * scale  # the product without the count's own factor
    return out


def _cos_grid(theta: np.ndarray, size: int) -> np.ndarray:
    """cos(j theta_i) for j < size, as a (theta.size, size) array, by angle addition: cos((qB + r) theta) =
    cos(qB theta) cos(r theta) - sin(qB theta) sin(r theta) with B ~ sqrt(size), so that only about
    2 sqrt(size) cosines and sines per theta are evaluated (each term rounded once: ~1e-16 absolute)."""
    width = math.isqrt(size - 1) + 1
    blocks = -(-size // width)
    big, small = np.outer(theta, np.arange(blocks) * width), np.outer(theta, np.arange(width))
    out = np.cos(big)[:, :, None] * np.cos(small)[:, None, :]
    out -= np.sin(big)[:, :, None] * np.sin(small)[:, None, :]
    return out.reshape(theta.size, blocks * width)[:, :size]


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
    row drawn independently and at eps/r, so the r reports compose to removal eps. That is the
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
