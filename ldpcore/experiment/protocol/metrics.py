"""Error metrics of an estimated histogram against the truth (docs/encodings.md).

rmse: after clipping the estimate to [0, input maximum] (the paper's RMSE, and what an
image shows); rmse_raw: of the unbiased raw estimate (compare with the analytic std);
linf and tv on the clipped estimate; psnr for images against their peak (255 * scale);
analytic_rmse: what rmse_raw is on average, from an oracle's variance.
"""

from __future__ import annotations

import math

import numpy as np


def clip_estimate(estimate: np.ndarray, upper: float) -> np.ndarray:
    """Post-processing: counts lie in [0, input maximum]."""
    return np.clip(estimate, 0.0, upper)


_BLOCK = 1 << 15  # values per block: a block's temporaries stay in the CPU cache


def error_metrics(truth: np.ndarray, estimate: np.ndarray, upper: float, peak: float | None = None) -> dict:
    """rmse, rmse_raw, linf, tv (and psnr when peak is given) of one estimate.

    Computed block by block, without full-size float copies, in two passes (the second for tv, whose
    normalisation needs the clipped total). Sums of squares by np.square().sum(), not np.dot: BLAS's
    threads (woken per call, spinning after it) cost more CPU than the whole pass on a busy 2-core machine."""
    truth, estimate = np.asarray(truth), np.asarray(estimate, dtype=np.float64)
    size = estimate.size
    err_sq = raw_sq = linf = clipped_total = 0.0
    t = np.empty(min(size, _BLOCK))
    c, r = np.empty_like(t), np.empty_like(t)
    for start in range(0, size, _BLOCK):
        stop = min(start + _BLOCK, size)
        tb, cb, rb = t[: stop - start], c[: stop - start], r[: stop - start]
        tb[:] = truth[start:stop]
        e = estimate[start:stop]
        np.subtract(e, tb, out=rb)
        raw_sq += float(np.square(rb, out=rb).sum())
        np.clip(e, 0.0, upper, out=cb)
        clipped_total += float(cb.sum())
        np.subtract(cb, tb, out=rb)
        np.abs(rb, out=rb)
        linf = max(linf, float(rb.max()))
        err_sq += float(np.square(rb, out=rb).sum())
    rmse = math.sqrt(err_sq / size)
    out = {
        "rmse": rmse,
        "rmse_raw": math.sqrt(raw_sq / size),
        "linf": linf,
        "tv": _tv_clipped(truth, estimate, upper, clipped_total, (t, c)),
    }
    if peak is not None:
        out["psnr"] = math.inf if rmse == 0 else 20 * math.log10(peak / rmse)
    return out


def _tv_clipped(truth: np.ndarray, estimate: np.ndarray, upper: float, total: float, buffers) -> float:
    """Total variation distance between truth and clip_estimate(estimate, upper), both normalised to
    distributions (1 where the clipped estimate has no mass), block by block, given the clipped total."""
    if total <= 0:
        return 1.0
    truth_total = float(truth.sum())
    t, c = buffers
    tv = 0.0
    for start in range(0, estimate.size, _BLOCK):
        stop = min(start + _BLOCK, estimate.size)
        tb, cb = t[: stop - start], c[: stop - start]
        np.divide(truth[start:stop], truth_total, out=tb)
        np.clip(estimate[start:stop], 0.0, upper, out=cb)
        np.divide(cb, total, out=cb)
        np.subtract(tb, cb, out=tb)
        tv += float(np.abs(tb, out=tb).sum())
    return 0.5 * tv


def analytic_rmse(oracle, n: int, counts: np.ndarray) -> float:
    """The analytic rmse_raw: root of the mean over bins of the oracle's per-bin variance at these counts."""
    return math.sqrt(float(np.mean(oracle.variance(n, counts))))
