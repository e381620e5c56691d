"""The sketches' hash functions (simple tabulation) and what a sketch's analyzer sees (SketchReports)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ldpcore.errors import InputError


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
