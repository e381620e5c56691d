"""Sampling and shape helpers of the sketches: threads that never change a draw, blocks, checks of
counts and values, the windows of binomial and Poisson laws and fast iid draws on them by inversion, and a
multinomial over many uniform cells in O(cells)."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.special import bdtr, gammaln, xlogy

from ldpcore.errors import carried, checkpoint, require
from ldpcore.privacy import binomial

THREADS = 2  # fixed, so a seed gives the same draw on every machine
BLOCK = 1 << 22  # respondents or cells per vectorised step
CHUNK = 1 << 16  # values per step of a readout (keeps the work arrays in cache)
DIRECT_VALUES = 16  # Hadamard readout: up to this many values, transform only their cells (_hadamard_at)
SIMULATION_DRAWS = 500_000_000  # random numbers an exact Hadamard-sketch simulation may draw (about 15 s)


def threaded(fn, parts, size: int, rng=None) -> list:
    """fn(part), or fn(generator, part) with generators spawned from rng, on THREADS threads when
    the work (size, in cells) is large; the result never depends on the threading."""
    args = [parts] if rng is None else [rng.spawn(len(parts)), parts]
    fn = carried(fn)  # each part starts with a checkpoint (ldpcore.errors), on whichever thread runs it
    if size < BLOCK:
        return list(map(fn, *args))
    with ThreadPoolExecutor(THREADS) as pool:
        return list(pool.map(fn, *args))


def halves(k: int) -> list[range]:
    return [range(k * i // THREADS, k * (i + 1) // THREADS) for i in range(THREADS)]


def repeat_blocks(keys: np.ndarray, reps: np.ndarray, block: int = BLOCK):
    """np.repeat(keys, reps) in blocks of at most `block` entries (a key's repeats may span blocks)."""
    cum = np.cumsum(reps)
    total = int(cum[-1]) if cum.size else 0
    for start in range(0, total, block):
        checkpoint()
        stop = min(start + block, total)
        lo, hi = (int(i) for i in np.searchsorted(cum, [start, stop - 1], side="right"))
        part = np.array(reps[lo : hi + 1], dtype=np.int64)
        part[0] = min(int(cum[lo]), stop) - start
        if hi > lo:
            part[-1] = stop - int(cum[hi - 1])
        yield np.repeat(keys[lo : hi + 1], part)


def key_bytes(d: int) -> int:
    """Bytes needed by the keys 0..d-1."""
    return max(1, -(-(d - 1).bit_length() // 8))


def count_dtype(bound: int):
    """Cell counts never exceed the largest row load: int32 halves the k x m tables whenever that is safe."""
    return np.int32 if bound < 2**31 else np.int64


def check_counts(counts, d: int) -> np.ndarray:
    """A histogram over [d]: d counts >= 0, as int64."""
    counts = np.asarray(counts, dtype=np.int64)
    require(counts.shape == (d,), f"counts must hold one entry per value (d={d}); got shape {counts.shape}.")
    require(bool((counts >= 0).all()), "counts must be >= 0.")
    return counts


def check_groups(values, bins, d: int) -> tuple[np.ndarray, np.ndarray]:
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


WINDOW_TAIL = 2e-18  # the probability a sampling window leaves out (about 1e-18 on each side)


def binomial_window(n: int, p: float, tail: float = WINDOW_TAIL) -> np.ndarray:
    """The whole numbers of Bin(n, p)'s tail_window (ldpcore.privacy.binomial): at most `tail` lies outside."""
    lo, hi = binomial.tail_window(n, p, tail)
    return np.arange(lo, hi + 1)


def iid_binomial(n: int, p: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """size iid Bin(n, p) draws (inversion on the binomial_window cdf). The law of numpy's sampler up to
    floating point, several times faster for many draws with the same (n, p); numpy's own for fewer
    draws than 8 per point of the window (the table would cost more than it saves)."""
    z = binomial_window(n, p)
    if size < 8 * z.size:
        return rng.binomial(n, p, size)
    return inversion(z, bdtr(z, n, p), size, rng)


def iid_poisson(lam: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """size iid Poisson(lam) draws (inversion on its window's cdf, from the pmf: what lies below the window is
    left out). The window is the binomial tail_window's in the Poisson limit, variance lam: Bernstein's
    inequality holds for Poisson laws too (Boucheron, Lugosi, Massart 2013, Section 2.2), at most
    WINDOW_TAIL outside."""
    log_tail = math.log(2 / WINDOW_TAIL)
    t = log_tail / 3 + math.sqrt(log_tail**2 / 9 + 2 * log_tail * lam)
    z = np.arange(max(math.floor(lam - t), 0), math.ceil(lam + t) + 1)
    return inversion(z, np.cumsum(np.exp(xlogy(z, lam) - lam - gammaln(z + 1))), size, rng)


def inversion(z: np.ndarray, cdf: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """size iid draws of the law with cdf on the window z (consecutive whole numbers) by inversion with
    a guide table (Chen and Asau, "On generating random variates from an empirical distribution",
    1974): the window's end points absorb its tails; a bucket of the uniform gives a start,
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


def uniform_multinomial(total: int, cells: int, rng: np.random.Generator) -> np.ndarray:
    """Multinomial(total, uniform on cells) in O(cells + sqrt(total)) for any total: cells iid
    Poisson(lam) counts, which given their sum S are Multinomial(S, uniform) whatever lam, then the
    total - S missing balls dropped in uniformly, or S - total of the S balls taken out uniformly
    without replacement (a uniform sub-multiset of a multinomial sample is multinomial). lam puts
    the mean of S one standard deviation below total: mostly balls are added (cheap), few removed."""
    y = iid_poisson(max(total - math.sqrt(total), 0) / cells, cells, rng)
    s = int(y.sum())
    if s < total:
        np.add.at(y, rng.integers(cells, size=total - s), 1)
    elif s > total:
        out = np.sort(rng.choice(s, size=s - total, replace=False))  # ball indices, in cell order
        y -= np.bincount(np.searchsorted(np.cumsum(y), out, side="right"), minlength=cells)
    return y
