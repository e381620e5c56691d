"""The median readout's variance model: k Var(median of k normals) (median_factor) and the density at the
centre of a row's collision noise (centre_densities), with MEDIAN_NOTE saying what the model is short of."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
from scipy.special import gammaln, log_ndtr

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


def centre_densities(s2: float, values: np.ndarray, bins: np.ndarray, m: int) -> np.ndarray:
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
    factor = cos_grid(centre / s * (u[1] - u[0]), u.size)  # in place: (cos(t c) - 1)/m, then 1 + that
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


def cos_grid(theta: np.ndarray, size: int) -> np.ndarray:
    """cos(j theta_i) for j < size, as a (theta.size, size) array, by angle addition: cos((qB + r) theta) =
    cos(qB theta) cos(r theta) - sin(qB theta) sin(r theta) with B ~ sqrt(size), so that only about
    2 sqrt(size) cosines and sines per theta are evaluated (each term rounded once: ~1e-16 absolute)."""
    width = math.isqrt(size - 1) + 1
    blocks = -(-size // width)
    big, small = np.outer(theta, np.arange(blocks) * width), np.outer(theta, np.arange(width))
    out = np.cos(big)[:, :, None] * np.cos(small)[:, None, :]
    out -= np.sin(big)[:, :, None] * np.sin(small)[:, None, :]
    return out.reshape(theta.size, blocks * width)[:, :size]
