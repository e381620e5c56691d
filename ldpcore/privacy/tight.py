"""The tight accountant: the exact privacy curve of one attribute-fragment channel,
in the worst case over the other respondents' data (docs/tight_accountant.md).

Each bin of an attribute-fragmented one-hot report is its own shuffled channel of binary
randomized response with flip probability p = 1/(1+e^eps0). One respondent changes ONE
bin (zero-out, as the product accounts). If c of the other m = n-1 respondents hold a 1
in that bin, the analyzer sees Y_c + Bern(1-p) (target present) or Y_c + Bern(p) (absent),
Y_c = Bin(c, 1-p) + Bin(m-c, p), and

    delta(eps) = sup over c in 0..m of max over both directions of D_{e^eps}(.||.).

The family is symmetric (c <-> m-c swaps the directions), each directed divergence sums
one tail of Y_c's pmf (Y_c is log-concave), and c is searched in blocks: for c in
[c1, c1+w) the pair is a mixture of c1-pairs with at most w-1 fewer others (a 1-holder
reports 1 surely w.p. 1-e^-eps0, else like a 0-holder), so delta_{c1}(m-w+1) bounds the
block. Branch and bound over blocks covers every c <= C and c >= m-C exactly or within
LOSS of the crowd; the docs give the argument for the middle. Every value is an upper
bound: pmf errors, rounding, the mass outside each window and A's truncation are added.

``removal_inverse``/``removal_forward`` solve on the worst-case curve (ldpcore.privacy.solver); ``curve_on_grid``
gives it at many eps at once (the dominating pairs of ldpcore.privacy.dominating);
``smallest_eps`` and ``largest_eps0`` are the inversions the other privacy-curve bounds share.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import expit

from ldpcore.privacy import solver
from ldpcore.privacy.binomial import cdf, pmf, sf

U = 2.0**-52  # float64 relative spacing
ETA_PMF = 1e-12  # charged relative error of one scipy binomial pmf (tests measure <= 1e-14 up to n = 1e9)
TAIL_RTOL = 1e-12  # a window is widened until the bounded tail beyond it is below this fraction
A_SD = 12.0  # the c 1-holders' flips A ~ Bin(c, p) are kept on cp +- A_SD (sd + 1); the rest is charged
C_MIN = 128  # every c <= C_MIN (and >= m - C_MIN) is searched ...
THETA = 4.0  # ... and every c with c p <= THETA: the worst c found on every grid is <= 21 or has c p <= 0.4
LOSS = 1e-5  # the narrowest block loses at most this fraction of the crowd
FIRST_BLOCKS, SPLIT = 32, 8
REFINE_RTOL = 1e-4  # blocks within this of the best value are not split further (its eps effect is ~1e-6)
N_MAX = 10**10  # above this the windows would not fit the time budget
SOLVE_RTOL = 1e-12  # brentq's precision before the last bisection to adjacent floats
LEAVES_PER_ROUND = 4  # blocks above delta added to the cheap curve per round of the search
WINDOW_SD = 10.0  # binomial windows of the other bounds: mean +- WINDOW_SD (sd + 1)


def smallest_eps(curve: Callable[[float], float], eps0: float, delta: float, rtol: float = 0.0) -> float:
    """The smallest eps (to the float, or rtol > 0: at most a relative rtol above it) with curve(eps) <= delta;
    curve(eps0) = 0 for an eps0-LDP randomizer."""
    if curve(0.0) <= delta:
        return 0.0
    return solver.boundary(curve, delta, eps0, 0.0, rtol, coarse=rtol / 4 if rtol > 0 else None)


def largest_eps0(
    curve_of_eps0: Callable[[float], float],
    eps_c: float,
    hi: float,
    delta: float,
    rtol: float = 1e-13,
    coarse: float | None = None,
) -> float:
    """The largest eps0 in [eps_c, hi] with curve_of_eps0(eps0) = delta(eps_c; eps0) <= delta.

    The curve is non-decreasing in eps0 and 0 at eps0 <= eps_c; the caller has checked it
    exceeds delta at hi. Relative precision rtol, never above the crossing (coarse: solver.boundary's).
    """
    return solver.boundary(curve_of_eps0, delta, eps_c, hi, rtol, coarse=coarse)


def binomial_range(m: int, p: float) -> tuple[int, int]:
    """[lo, hi] covering Y ~ Bin(m, p) up to a negligible tail: mean +- WINDOW_SD (sd + 1), within 0..m."""
    mean, sd = m * p, math.sqrt(m * p * (1 - p))
    return max(0, math.floor(mean - WINDOW_SD * (sd + 1))), min(m, math.ceil(mean + WINDOW_SD * (sd + 1)))


# --- one channel, c of the others holding a 1: both directed divergences, as upper bounds ---


def _coefficients(eps: float, eps0: float) -> tuple[float, float, float, float]:
    """p, q = 1-p, a = q - e^eps p and b = e^eps q - p (a, b > 0 for eps < eps0), without cancellation."""
    p, q = float(expit(-eps0)), float(expit(eps0))
    return p, q, q * -math.expm1(eps - eps0), p * math.expm1(eps + eps0)


def directed(eps: float, eps0: float, crowd, ones) -> tuple[np.ndarray, np.ndarray]:
    """Upper bounds of D(absent || present) and D(present || absent) at e^eps, per (crowd, ones) pair.

    With S = Bin(crowd-ones, p) - A, A ~ Bin(ones, p) (Y_c shifted by c), absent = S + Bern(p)
    and present = S + Bern(1-p): absent(k) - e^eps present(k) = a s(k) - b s(k-1), positive
    exactly for k in S's left tail; present(k) - e^eps absent(k) = a s(k-1) - b s(k), positive
    in the right tail. Each row depends on its own pair only (not on the rest of the batch).
    """
    crowd = np.atleast_1d(np.asarray(crowd, dtype=np.int64))
    ones = np.atleast_1d(np.asarray(ones, dtype=np.int64))
    if eps >= eps0:
        return np.zeros(len(ones)), np.zeros(len(ones))  # the likelihood ratio is at most e^eps0
    p, q, a, b = _coefficients(eps, eps0)
    big = crowd - ones
    pa, a_lo, a_hi, a_out = _a_window(ones, p, q)
    # B ~ Bin(big, p) alone: P(B=k)/P(B=k-1) = (big-k+1) p/(k q) crosses b/a below kd, a/b above ku;
    # S's thresholds lie within A's span of these (mediants), +-1 for rounding
    kd = np.ceil((big + 1) * (p * a / (q * b + p * a))).astype(np.int64) + 1 - a_lo
    ku = np.floor((big + 1) * (p * b / (q * a + p * b))).astype(np.int64) - 1 - a_lo
    start = np.maximum(64, np.ceil(2 * np.sqrt(big * p * q))).astype(np.int64)
    down = _tail_sum(pa, a_lo, a_hi, big, p, a, b, kd, start, left=True)
    up = _tail_sum(pa, a_lo, a_hi, big, p, a, b, ku, start, left=False)
    return down + a * a_out, up + a * a_out


def _a_window(ones: np.ndarray, p: float, q: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The 1-holders' flips A ~ Bin(ones, p) per row: (pmf on [a_lo, a_hi] padded to a common span, a_lo, a_hi,
    a_out), with a_out twice the computed mass outside [a_lo, a_hi]: s loses at most that in total."""
    sd_a = np.sqrt(ones * p * q)
    a_lo = np.maximum(0, np.floor(ones * p - A_SD * (sd_a + 1))).astype(np.int64)
    a_hi = np.minimum(ones, np.ceil(ones * p + A_SD * (sd_a + 1))).astype(np.int64)
    ia = np.arange(int((a_hi - a_lo).max()) + 1)
    pa = np.where(ia <= (a_hi - a_lo)[:, None], pmf(a_lo[:, None] + ia, ones[:, None], p), 0.0)
    a_out = 2 * (np.where(a_lo > 0, cdf(a_lo - 1, ones, p), 0.0) + np.where(ones > a_hi, sf(a_hi, ones, p), 0.0))
    return pa, a_lo, a_hi, a_out


def _binomial_window(lo: np.ndarray, length: int, big: np.ndarray, p: float) -> np.ndarray:
    """P(B = k), B ~ Bin(big, p), for k = lo .. lo+length-1 per row: scipy's pmf at the row's first
    point in the support, then the ratios P(k+1)/P(k) = (big-k) p/((k+1) q) multiplied on (each
    step rounds by at most 4 U; _tail_sum charges it). Rows whose first value is below 1e-280
    (where subnormals would lose digits) are evaluated point by point."""
    first = np.maximum(lo, 0)
    anchor = pmf(first, big, p)
    k = first[:, None] + np.arange(length - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        steps = np.where(k < big[:, None], (big[:, None] - k) * p / ((k + 1) * (1.0 - p)), 0.0)
    out = np.cumprod(np.concatenate((anchor[:, None], steps), axis=1), axis=1)
    shift = first - lo  # positions below 0
    if shift.any():
        at = np.arange(length) - shift[:, None]
        out = np.where(at >= 0, np.take_along_axis(out, np.maximum(at, 0), axis=1), 0.0)
    tiny = anchor < 1e-280
    if tiny.any():
        out[tiny] = pmf(lo[tiny, None] + np.arange(length), big[tiny, None], p)
    return out


def _s_pmf(
    pa: np.ndarray, a_lo: np.ndarray, a_hi: np.ndarray, big: np.ndarray, p: float, lo: np.ndarray, length: int
) -> np.ndarray:
    """s(k) = sum_i P(A = a_lo+i) P(B = k+a_lo+i) for k = lo .. lo+length-1, per row (sums of positive terms).

    Each row is computed the same way whatever the rest of the batch: a row's value must not
    depend on which other rows are evaluated with it (the solvers compare them)."""
    span = pa.shape[1]
    pb = _binomial_window(lo + a_lo, length + span - 1, big, p)
    own = a_hi - a_lo + 1  # each row's own span (the rest is padding)
    s = pa[:, :1] * pb[:, :length]
    for i in range(1, min(span, 8)):  # short spans: added term by term (zero padding adds exact zeros)
        s += pa[:, i : i + 1] * pb[:, i : i + length]
    for r in np.flatnonzero(own > 8):  # long spans: one direct (not FFT) convolution per row, its own span
        s[r] = np.convolve(pb[r, : length + own[r] - 1], pa[r, own[r] - 1 :: -1], mode="valid")
    return s


def _tail_sum(pa, a_lo, a_hi, big, p, a, b, k_star, start, left: bool) -> np.ndarray:
    """Per row, the positive terms of one tail summed over a window, the rest bounded, rounding added.

    Log-concavity of S: beyond the window's outer edge every ratio s(k)/s(k-1) is at least
    (left) or at most (right) the one at the edge, so the remaining mass is at most a
    geometric series. Windows double (from each row's own start) until that bound is below
    TAIL_RTOL of the sum. A pmf value in the window is scipy's at the window's first point times
    at most (window length) ratios, each rounded by at most 4 U, and a convolution of at most
    span products: every term's error is at most (ETA_PMF + 6 (width + span + 8) U)(a s + b s').
    """
    result = np.full(len(big), np.nan)
    width, limit = 64, 4 * int(big.max() + pa.shape[1] + 2)
    while np.isnan(result).any():
        rows = np.flatnonzero(np.isnan(result) & (start <= width))
        if len(rows):
            prow, al, ah, bg, ks = pa[rows], a_lo[rows], a_hi[rows], big[rows], k_star[rows]
            s_min, s_max = -ah, bg - al  # support of S (A kept on [a_lo, a_hi])
            if left:  # terms k = lo .. hi (<= k_star): a s(k) - b s(k-1); beyond: k < lo
                hi = np.minimum(s_max, ks)
                lo = np.maximum(s_min, hi - width)
                s = _s_pmf(prow, al, ah, bg, p, lo - 1, width + 2)
                k = lo[:, None] + np.arange(width + 1)
                plus, minus = a * s[:, 1:], b * s[:, :-1]
                edge, nxt, at_end = s[:, 1], s[:, 0], lo - 1 < s_min
            else:  # terms k = lo .. hi: a s(k-1) - b s(k); beyond: k > hi
                lo = np.maximum(s_min, ks - (ah - al))
                hi = np.minimum(s_max + 1, lo + width)
                s = _s_pmf(prow, al, ah, bg, p, lo - 1, width + 3)
                k = lo[:, None] + np.arange(width + 2)
                plus, minus = a * s[:, :-1], b * s[:, 1:]
                at = (hi - lo)[:, None]
                edge = np.take_along_axis(s, at + 1, axis=1)[:, 0]
                nxt = np.take_along_axis(s, at + 2, axis=1)[:, 0]
                at_end = hi + 1 > s_max
            eta = ETA_PMF + 6 * (width + (ah - al)[:, None] + 8) * U  # relative error bound of a term's parts
            inside = k <= hi[:, None]
            total = np.where(inside, np.maximum(plus - minus, 0.0), 0.0).sum(axis=1)
            # rounding can only change a term's positive part where it may be positive
            size = np.where(inside & (plus - minus > -2 * eta * (plus + minus)), plus + minus, 0.0).sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                rho = np.where(nxt > 0, edge / nxt, np.inf)  # >= every ratio further out (> 1 in a tail)
                geometric = a * edge / (rho - 1) * (1.0 if left else rho)
                tail = np.where(at_end | (edge == 0), 0.0, np.where(rho > 1, geometric, np.inf))
            done = (tail <= TAIL_RTOL * total) | at_end | (width >= limit)
            rounding = 2 * (ETA_PMF + 6 * (width + ah - al + 8) * U) * size
            result[rows[done]] = (total + tail + rounding)[done]
        width *= 2
    return result


# --- the worst case over the other respondents' data ---


@dataclass(frozen=True)
class WorstCase:
    """An upper bound of the channel's delta(eps) over every dataset of the others, and where it was found:
    ``ones`` 1-holders among ``crowd`` others (crowd < n-1 when a block of c was bounded at once)."""

    delta: float
    ones: int
    crowd: int


def _searched(eps0: float, n: int) -> tuple[int, int]:
    """(top, w_min): every c <= top (and, by symmetry, >= m - top) is searched, in blocks of at least w_min."""
    m = n - 1
    p = float(expit(-eps0))
    return min(m, max(C_MIN, math.ceil(THETA / p))), max(1, math.floor(LOSS * m))


def worst_case(eps: float, eps0: float, n: int, level: float = 0.0) -> WorstCase:
    """The curve at eps: the largest bound over the blocks of c of the narrowest width, and where.

    Branch and bound finds it without evaluating every block: a block whose bound is within
    REFINE_RTOL of a value attained and at most ``level`` is not split, so the result is
    within REFINE_RTOL of the curve and above ``level`` exactly when the curve is (level = 0:
    the curve itself).
    """
    return _leaves(eps, eps0, n, level)[0]


def _leaves(eps: float, eps0: float, n: int, level: float, first_above: bool = False) -> list[WorstCase]:
    """The final blocks of the branch and bound, largest bound first (first_above: stop at the first
    value attained above level, which then comes alone; else a block whose bound is at most level is
    final: the answer only has to say whether the curve exceeds level, and its value is then an upper
    bound of the curve at most level)."""
    m = n - 1
    if eps >= eps0 or m == 0:
        return [WorstCase(0.0 if eps >= eps0 else float(max(directed(eps, eps0, [0], [0]))), 0, m)]
    top, w_min = _searched(eps0, n)
    width = max(w_min, math.ceil((top + 1) / FIRST_BLOCKS))
    blocks = np.array([(c, min(width, top + 1 - c)) for c in range(0, top + 1, width)], dtype=np.int64)
    best, leaves = 0.0, []
    while len(blocks):
        start, w = blocks[:, 0], blocks[:, 1]
        wide = w > w_min
        bound = np.maximum(*directed(eps, eps0, m - (w - 1), start))  # the whole block
        # a wide block's start at the full crowd is a value attained (first_above: only where the block's
        # bound exceeds level, the others being final); a narrow block's bound counts as attained
        check = wide & (bound > level) if first_above else wide
        value = np.maximum(*directed(eps, eps0, np.full(int(check.sum()), m), start[check])) if check.any() else []
        attained = np.concatenate((bound[~wide], value))
        best = max(best, float(attained.max(initial=0.0)))
        if first_above and best > level:
            at = int(np.argmax(attained))
            c = np.concatenate((start[~wide], start[check]))[at]
            crowd = m - (w[~wide][at] - 1) if at < (~wide).sum() else m
            return [WorstCase(best, int(c), int(crowd))]
        final = ~wide | ((first_above or bound <= best * (1 + REFINE_RTOL)) & (bound <= level))
        leaves += [
            WorstCase(float(v), int(c), int(m - (t - 1))) for v, c, t in zip(bound[final], start[final], w[final])
        ]
        children = []
        for c, t in zip(start[~final], w[~final]):
            sub = max(w_min, math.ceil(t / SPLIT))
            children += [(s, min(sub, c + t - s)) for s in range(c, c + t, sub)]
        blocks = np.array(children, dtype=np.int64).reshape(-1, 2)
    return sorted(leaves, key=lambda leaf: -leaf.delta)


def delta_removal(eps: float, eps0: float, n: int) -> float:
    """The worst-case privacy curve of one shuffled binary-RR channel (an upper bound)."""
    return worst_case(eps, eps0, n).delta


GRID_SHARE = 64  # curve_on_grid's blocks of c are at most max(w_min, c / GRID_SHARE) wide


@lru_cache(maxsize=64)
def blocks(eps0: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(start, width) of blocks partitioning the searched c (0 .. top, _searched): w_min wide up to
    GRID_SHARE w_min, then about c / GRID_SHARE, so that each block's crowd loss is small beside its c."""
    top, w_min = _searched(eps0, n)
    out, c = [], 0
    while c <= top:
        w = min(max(w_min, c // GRID_SHARE), top + 1 - c)
        out.append((c, w))
        c += w
    start, width = np.array(out, dtype=np.int64).T
    start.setflags(write=False)
    width.setflags(write=False)
    return start, width


def curve_on_grid(eps, eps0: float, n: int, first_block: bool = False, floor: float = 0.0) -> np.ndarray:
    """Upper bounds of the worst-case curve at every eps of a grid: the largest block bound (item 3 of the docs'
    argument: delta_{c1}(m - w + 1) bounds every c in [c1, c1 + w)) over one partition of the searched c
    (``blocks``), both directions. first_block: the bound of the first block alone (c < w_min), a cheap
    stand-in close to the curve (at most its bound), for searches whose answers are then certified.

    One pmf window of S per block serves every eps. By log-concavity a direction's positive terms are a prefix
    (left tail: a s(k) - b s(k-1), while s(k)/s(k-1) > b/a) or a suffix (right tail: a s(k-1) - b s(k), while
    s(k)/s(k-1) < a/b) of the window, so each is a s-sum minus b s-sum, from cumulative sums taken from the
    window's outer end (positive terms). The mass beyond the window is a geometric series from its edge (the
    window widens until it is below TAIL_RTOL of the sum). Charged: each s value's error eta (as in
    ``directed``), the cumulative sums' rounding, a term or two misread at the sign change (covered by 4 eta of
    the sums' parts) and A's truncation. floor: a window stops widening once the mass beyond it is below floor
    (the value stays an upper bound; below floor it may be loose)."""
    eps = np.atleast_1d(np.asarray(eps, dtype=np.float64))
    out = np.zeros(len(eps))
    live = eps < eps0  # the likelihood ratio is at most e^eps0: 0 from eps0 on
    if not live.any():
        return out
    m = n - 1
    if m == 0:
        out[live] = [max(float(x[0]) for x in directed(float(e), eps0, [0], [0])) for e in eps[live]]
        return out
    start, width = blocks(eps0, n)
    if first_block:
        start, width = start[:1], width[:1]
    ones = start
    big = m - (width - 1) - ones
    p, q = float(expit(-eps0)), float(expit(eps0))
    e = eps[live]
    a, b = q * -np.expm1(e - eps0), p * np.expm1(e + eps0)  # per eps, as _coefficients
    pa, a_lo, a_hi, a_out = _a_window(ones, p, q)
    span = a_hi - a_lo
    s_min, s_max = -a_hi, big - a_lo  # support of S (A kept on [a_lo, a_hi])
    center = np.round(big * p - ones * p).astype(np.int64)  # S's mean
    margin = int(max(64, 8 * math.ceil(math.sqrt(m * p * q)))) + int(span.max())
    limit = 4 * int(big.max() + pa.shape[1] + 2)
    rows = np.arange(len(big))[:, None]
    while True:  # a window around the mean, widened until the mass beyond it is negligible at every eps
        lo = np.maximum(s_min, center - margin)
        length = int(np.max(np.minimum(s_max + 1, center + margin) - lo)) + 3
        s = _s_pmf(pa, a_lo, a_hi, big, p, lo - 1, length)  # s[:, j] = s(lo - 1 + j)
        hi = lo + length - 3  # terms k = lo .. hi; s(hi + 1) closes the right tail's bound
        cur, prev = s[:, 1:-1], s[:, :-2]  # s(k), s(k-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = cur / prev
        left = np.arange(length - 2) < np.argmax(s, axis=1)[:, None]  # both 0 (underflow): inf left of the mode
        ratio = np.minimum.accumulate(np.where(np.isnan(ratio), np.where(left, np.inf, 0.0), ratio), axis=1)
        w = length - 2
        # prefix sums of s(k), s(k-1) over k = lo .. (left tail) and suffix sums from hi down (right tail)
        pre1 = np.concatenate((np.zeros((len(big), 1)), np.cumsum(cur, axis=1)), axis=1)
        pre0 = np.concatenate((np.zeros((len(big), 1)), np.cumsum(prev, axis=1)), axis=1)
        suf1 = np.concatenate((np.cumsum(cur[:, ::-1], axis=1)[:, ::-1], np.zeros((len(big), 1))), axis=1)
        suf0 = np.concatenate((np.cumsum(prev[:, ::-1], axis=1)[:, ::-1], np.zeros((len(big), 1))), axis=1)
        # each row's ratios are non-increasing: how many exceed b/a (down) and where they fall below a/b (up)
        n_down = np.stack([np.searchsorted(-r, -b / a, side="left") for r in ratio])
        n_up = np.stack([np.searchsorted(-r, -a / b, side="right") for r in ratio])
        d1, d0 = a * pre1[rows, n_down], b * pre0[rows, n_down]
        u0, u1 = a * suf0[rows, n_up], b * suf1[rows, n_up]
        eta = ETA_PMF + 6 * (length + span[:, None] + 8) * U  # relative error bound of an s value
        charge = 4 * eta + 2 * (w + 4) * U
        with np.errstate(divide="ignore", invalid="ignore"):
            rho_l = np.where(s[:, 0] > 0, s[:, 1] / s[:, 0], np.inf)  # >= every ratio further left
            rho_r = np.where(s[:, -1] > 0, s[:, -2] / s[:, -1], np.inf)  # s(hi)/s(hi + 1), >= further right
            tail_l = np.where(rho_l > 1, s[:, 1] / (rho_l - 1), np.inf)[:, None] * a
            tail_r = np.where(rho_r > 1, s[:, -2] * rho_r / (rho_r - 1), np.inf)[:, None] * a
        tail_l = np.where(((lo - 1 < s_min) | (s[:, 1] == 0))[:, None], 0.0, tail_l)
        tail_r = np.where(((hi + 1 > s_max) | (s[:, -2] == 0))[:, None], 0.0, tail_r)
        down = np.maximum(d1 - d0, 0.0)
        up = np.maximum(u0 - u1, 0.0)
        small_l = (tail_l <= TAIL_RTOL * down) | (tail_l <= floor)
        small_r = (tail_r <= TAIL_RTOL * up) | (tail_r <= floor)
        if (small_l & small_r).all() or length >= limit:
            break
        margin *= 2
    down += tail_l + charge * (d1 + d0) + a_out[:, None] * a
    up += tail_r + charge * (u0 + u1) + a_out[:, None] * a
    out[live] = np.maximum(down, up).max(axis=0)
    return out


def certifies(eps: float, eps0: float, n: int, delta: float) -> bool:
    """Whether the curve at eps is at most delta (the same answer as delta_removal(...) <= delta, faster)."""
    return _leaves(eps, eps0, n, delta, first_above=True)[0].delta <= delta


def _delta_others_zero(eps: float, eps0: float, n: int) -> float:
    """The curve with every other bit at 0 (c = 0), from binomial tails in O(1): only a starting point
    for the search (it is a lower bound of the worst case, and its tails lose ~1e-7 at n ~ 1e9)."""
    if eps >= eps0:
        return 0.0
    m = n - 1
    p, q, a, b = _coefficients(eps, eps0)
    near = np.arange(-2, 3)
    s = math.floor((m + 1) * p * b / (q * a + p * b)) + 1 + near
    j = math.ceil((m + 1) * p * a / (q * b + p * a)) - 1 + near
    up = a * sf(s - 2, m, p) - b * sf(s - 1, m, p)
    down = a * cdf(j, m, p) - b * cdf(j - 1, m, p)
    return float(max(up.max(), down.max(), 0.0))


def _proxy_n(n: int) -> int:
    """The crowd of the first block (c = 0 .. w_min-1 bounded at once), plus the target."""
    return n - max(1, math.floor(LOSS * (n - 1))) + 1


def _leaf_curve(leaves: list[WorstCase]) -> Callable[[float, float], float]:
    crowd = np.array([leaf.crowd for leaf in leaves])
    ones = np.array([leaf.ones for leaf in leaves])
    return lambda eps, eps0: float(np.maximum(*directed(eps, eps0, crowd, ones)).max())


def removal_forward(eps0: float, n: int, delta: float, rtol: float = 0.0) -> tuple[float, WorstCase]:
    """(smallest certified eps_c, the worst case there): eps0 -> eps_c on the worst-case curve.
    rtol > 0: a certified eps_c at most a relative rtol above it, for curves (_display_solve)."""
    start = smallest_eps(lambda e: _delta_others_zero(e, eps0, _proxy_n(n)), eps0, delta, rtol / 8)
    if rtol > 0:
        return _display_solve(lambda e: _leaves(e, eps0, n, delta, True)[0], start, 0.0, eps0, True, delta, rtol)
    return _worst_case_solve(
        lambda e, curve: curve(e, eps0), lambda e: _leaves(e, eps0, n, delta), start, 0.0, eps0, True, n, delta
    )


def removal_inverse(eps_c: float, n: int, delta: float, hi: float, rtol: float = 0.0) -> tuple[float, WorstCase]:
    """(largest certified eps0 in [eps_c, hi], the worst case there): eps_c -> eps0 on the worst-case curve.
    rtol > 0: a certified eps0 at most a relative rtol below it, for curves (_display_solve)."""
    proxy = lambda e0: _delta_others_zero(eps_c, e0, _proxy_n(n))  # noqa: E731
    start = (
        largest_eps0(proxy, eps_c, hi, delta, rtol / 8, rtol / 32)
        if rtol > 0
        else largest_eps0(proxy, eps_c, hi, delta)
    )
    if rtol > 0:
        return _display_solve(lambda e0: _leaves(eps_c, e0, n, delta, True)[0], start, eps_c, hi, False, delta, rtol)
    return _worst_case_solve(
        lambda e0, curve: curve(eps_c, e0), lambda e0: _leaves(eps_c, e0, n, delta), start, eps_c, hi, False, n, delta
    )


def _worst_case_solve(
    point, certify_at, x: float, lo: float, hi: float, ok_up: bool, n: int, delta: float
) -> tuple[float, WorstCase]:
    """Solve on the c = 0 curve from the proxy's x, then certify on the full worst case; while it fails,
    add the largest leaves above delta and re-solve on the leaves found so far (cheap). Every
    answer is the crossing of a curve below the worst case that the worst case certifies, so it
    is the worst case's own crossing (to adjacent floats). Returns (x, the worst case at x)."""
    leaves = [WorstCase(0.0, 0, n - 1)]
    known = {(0, n - 1)}
    nudge = 0.0
    # the proxy's answer, made exact
    x = solver.solve_near(lambda y: point(y, _leaf_curve(leaves)), delta, x, lo, hi, ok_up, SOLVE_RTOL)
    for _ in range(32):
        found = certify_at(x)
        if found[0].delta <= delta:
            return x, found[0]
        new = [leaf for leaf in found[:LEAVES_PER_ROUND] if leaf.delta > delta and (leaf.ones, leaf.crowd) not in known]
        if not new:  # a known block fails by rounding: step toward the certified side
            nudge = max(2 * nudge, 4 * math.ulp(x))
            x = min(max(x + (nudge if ok_up else -nudge), lo), hi)
            continue
        leaves += new
        known |= {(leaf.ones, leaf.crowd) for leaf in new}
        curve = _leaf_curve(leaves)
        x = solver.solve_near(lambda y: point(y, curve), delta, x, lo, hi, ok_up, SOLVE_RTOL)
    raise ArithmeticError("the worst-case search did not settle")  # pragma: no cover


def _display_solve(
    worst_at: Callable[[float], WorstCase], x: float, lo: float, hi: float, ok_up: bool, delta: float, rtol: float
) -> tuple[float, WorstCase]:
    """A point the worst case certifies, within a relative rtol of its crossing, in a few evaluations of it.

    x is the crossing of the c = 0 curve (to rtol/8, on its certified side), which lies below the
    worst case, so the worst case crosses at x or on x's uncertified side, within ~1e-5 of x at
    typical inputs. The first
    point tried is rtol/2 from x toward the certified side; while the worst case does not
    certify it, steps doubling from rtol x (certified at the end: the curve is 0 at
    eps >= eps0) bracket the crossing and bisect narrows the bracket to rtol. The end returned
    is one the worst case certifies, so it never lies on the uncertified side of the exact answer."""
    end = hi if ok_up else lo
    x = min(x * (1 + rtol / 2), end) if ok_up else max(x * (1 - rtol / 2), end)
    found = worst_at(x)
    bad, step = x, rtol * abs(x) + math.ulp(x)
    while found.delta > delta and x != end:
        bad, x = x, min(x + step, end) if ok_up else max(x - step, end)
        found, step = worst_at(x), 2 * step
    if bad == x:
        return x, found
    seen = {x: found}

    def ok(y: float) -> bool:
        seen[y] = worst_at(y)
        return seen[y].delta <= delta

    good = solver.bisect(ok, x, bad, rtol)
    return good, seen[good]
