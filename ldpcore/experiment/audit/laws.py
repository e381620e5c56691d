"""The laws of the shuffled counts an analyst sees, for the encodings whose analyst law is a CountLaws or k-RR
(ldpcore.oracles.laws): one bin's count from the other respondents, with the target's bit, and the exact
likelihood ratios the attacks threshold. Binomial laws are kept on ldpcore.privacy.binomial.tail_window."""

from __future__ import annotations

import math

import numpy as np
from scipy.signal import fftconvolve

from ldpcore.oracles.laws import CountLaws
from ldpcore.privacy import binomial

WINDOW_TAIL = 1e-30  # the binomial laws are kept on their tail_window: the mass left outside is at most this
DIRECT_CONVOLVE = 4_000_000  # longer convolutions use the FFT (absolute error ~1e-16 of the peak)


def binomial_law(n: int, p: float) -> tuple[int, np.ndarray]:
    """(first k, P(Bin(n, p) = k) on its tail_window)."""
    lo, hi = binomial.tail_window(n, p, WINDOW_TAIL)
    return lo, binomial.pmf(np.arange(lo, hi + 1), n, p)


def _convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.size * b.size <= DIRECT_CONVOLVE:
        return np.convolve(a, b)
    return np.maximum(fftconvolve(a, b), 0.0)


def others_law(c: int, m: int, hi: float, lo: float) -> tuple[int, np.ndarray]:
    """(first k, pmf) of Y = Bin(c, hi) + Bin(m - c, lo): one bin's 1-count from the m other respondents,
    c of whom hold the bin's value."""
    k1, a = binomial_law(c, hi)
    k2, b = binomial_law(m - c, lo)
    return k1 + k2, _convolve(a, b)


def with_bit(y: np.ndarray, p1: float) -> np.ndarray:
    """pmf of Y + Bern(p1) on the window of Y plus one."""
    return np.concatenate((y, [0.0])) * (1 - p1) + np.concatenate(([0.0], y)) * p1


def count_table(law: CountLaws, m: int, c: int) -> tuple[int, np.ndarray, np.ndarray]:
    """(first k, reference law, present law) of one bin's aggregate count when c of the m others hold its
    value (the backstop counts where the law has fragments)."""
    k0, y = others_law(c, m, law.hi, law.lo)
    return k0, with_bit(y, law.ref), with_bit(y, law.present)


def log_ratio_bit(k: np.ndarray, m: int, pi: float, p1: float, p0: float) -> np.ndarray:
    """ln P(Y + Bern(p1) = k)/P(Y + Bern(p0) = k) for Y ~ Bin(m, pi), from s(k)/s(k-1) = (m-k+1) pi/(k (1-pi))."""
    k = np.asarray(k, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_u = np.log(np.maximum(m - k + 1, 0)) + math.log(pi) - np.log(k) - math.log1p(-pi)  # ln s(k)/s(k-1)
        out = np.logaddexp(math.log(p1), math.log1p(-p1) + log_u) - np.logaddexp(math.log(p0), math.log1p(-p0) + log_u)
    return np.where(k == 0, math.log1p(-p1) - math.log1p(-p0), out)


def response_llr(h: np.ndarray, n: int, eps: float) -> np.ndarray:
    """ln P(h | v)/P(h | v') for the shuffled k-RR histogram when the n - 1 others all hold w: with
    P(h | x) = sum_r P(r | x) P_others(h - e_r) and P_others(h - e_r)/P_others(h) proportional to
    h_r/pi_r (pi_w = p, pi_u = q), the ratio is (S + (e^eps - 1) h_v)/(S + (e^eps - 1) h_v'),
    S = (n - h_w) + e^-eps h_w."""
    s = (n - h[:, 2]) + math.exp(-eps) * h[:, 2]
    g = math.expm1(eps)
    return np.log(s + g * h[:, 0]) - np.log(s + g * h[:, 1])
