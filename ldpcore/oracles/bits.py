"""Exact random bits in bulk, from an np.random.Generator: the draws the samplers and randomizers need.

- half_binomial(m, rng): Bin(m, 1/2) elementwise, as the ones among m fair random bits (popcounts
  of one stream of random 64-bit words cut at the running sums of m).
- bernoulli_bits(q, shape, rng): independent Bernoulli(q) bools with exactly the probability q (the
  float's own value, not rounded to a multiple of 2^-53 as rng.random() < q is), 64 at a time: each
  bit compares a uniform U = 0.u1u2... with q's binary digits, digit by digit, until every bit of
  the array is decided (2 random words per 64 bits on average; the digits of a double end).
"""

from __future__ import annotations

import math

import numpy as np

from ldpcore.errors import checkpoint

_ALL_BITS = np.iinfo(np.uint64).max
_RAW_64 = (np.random.PCG64, np.random.PCG64DXSM, np.random.SFC64, np.random.Philox)  # raw output: 64 bits
POPCOUNT_MAX = 256  # larger counts are drawn by numpy's binomial: at most 4 random words a count
POPCOUNT_FROM = 128  # fewer counts: numpy's binomial (one call costs less than the popcounts' dozen)
_FULL_WORDS = 5  # bernoulli_bits' digits after which it starts dropping decided words (before, nearly none is)


def random_words(rng: np.random.Generator, size: int) -> np.ndarray:
    """size uniform 64-bit words: the bit generator's raw output where it is 64 bits wide."""
    if isinstance(rng.bit_generator, _RAW_64):
        return rng.bit_generator.random_raw(size)
    return rng.integers(_ALL_BITS, size=size, dtype=np.uint64, endpoint=True)


def half_binomial(m: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Bin(m, 1/2) elementwise, exactly: the number of ones among m fair random bits.

    One stream of random 64-bit words is cut at the running sums of m; a count's draw is the ones
    between its two cuts: the ones up to the end of the word a cut falls in (prefix sums of the
    words' popcounts) less those of that word at or above the cut. Counts above POPCOUNT_MAX, and
    arrays of fewer than POPCOUNT_FROM, are drawn by rng.binomial instead. Starts with a checkpoint
    (ldpcore.errors: the samplers' levels are where a run nobody waits for stops)."""
    checkpoint()
    m = np.asarray(m, dtype=np.int64)
    if m.size < POPCOUNT_FROM:
        return rng.binomial(m, 0.5)
    flat = m.reshape(-1)
    large = np.flatnonzero(flat > POPCOUNT_MAX) if flat.max() > POPCOUNT_MAX else None
    if large is not None:
        flat = flat.copy()
        flat[large] = 0
    cuts = np.empty(flat.size + 1, dtype=np.int64)
    cuts[0] = 0
    np.cumsum(flat, out=cuts[1:])
    words = random_words(rng, int(cuts[-1]) // 64 + 1)
    through = np.empty(words.size, dtype=np.int64)  # ones in words 0..i
    np.cumsum(np.bitwise_count(words), out=through)  # (out=, not dtype=: numpy's fast loop)
    word = cuts >> 6
    above = np.take(words, word, mode="clip")  # indices are in range: "clip" skips the checks
    above >>= np.bitwise_and(cuts.view(np.uint64), np.uint64(63))
    before = np.take(through, word, mode="clip")  # ones before each cut
    before -= np.bitwise_count(above)
    out = np.diff(before)
    if large is not None:
        out[large] = rng.binomial(m.reshape(-1)[large], 0.5)
    return out.reshape(m.shape)


def bernoulli_bits(q: float, shape: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Independent Bernoulli(q) bools of this shape, with exactly the probability q (module doc)."""
    count = math.prod(shape) if isinstance(shape, tuple) else int(shape)
    if q >= 1:
        return np.ones(shape, dtype=bool)
    numerator, denominator = float(q).as_integer_ratio()  # q = numerator / 2^digits
    digits = denominator.bit_length() - 1
    out = np.zeros(-(-count // 64), dtype=np.uint64)
    undecided = np.full(out.size, _ALL_BITS, dtype=np.uint64)  # lanes whose U agrees with q so far
    live = None  # the words of out that undecided covers (None: all of them)
    for step, i in enumerate(range(digits - 1, -1, -1) if q > 0 else ()):
        u = random_words(rng, undecided.size)
        if numerator >> i & 1:  # digit 1: U's digit 0 decides U < q
            below = undecided & ~u
            if live is None:
                out |= below
            else:
                out[live] |= below
            undecided &= u
        else:  # digit 0: U's digit 1 decides U > q
            undecided &= ~u
        if step < _FULL_WORDS:  # a word of 64 lanes is decided after about six digits: no word drops out before
            continue
        still = np.flatnonzero(undecided)
        if still.size < undecided.size:
            live, undecided = (still if live is None else live[still]), undecided[still]
            if not still.size:
                break
    return np.unpackbits(out.view(np.uint8), count=count, bitorder="little").view(bool).reshape(shape)
