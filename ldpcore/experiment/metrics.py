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


def error_metrics(truth: np.ndarray, estimate: np.ndarray, upper: float, peak: float | None = None) -> dict:
    """rmse, rmse_raw, linf, tv (and psnr when peak is given) of one estimate."""
    truth = np.asarray(truth, dtype=np.float64)
    clipped = clip_estimate(estimate, upper)
    err = clipped - truth
    raw = estimate - truth
    rmse = math.sqrt(float(np.dot(err, err)) / err.size)
    out = {
        "rmse": rmse,
        "rmse_raw": math.sqrt(float(np.dot(raw, raw)) / raw.size),
        "linf": float(np.abs(err).max()),
        "tv": total_variation(truth, clipped),
    }
    if peak is not None:
        out["psnr"] = math.inf if rmse == 0 else 20 * math.log10(peak / rmse)
    return out


def analytic_rmse(oracle, n: int, counts: np.ndarray) -> float:
    """The analytic rmse_raw: root of the mean over bins of the oracle's per-bin variance at these counts."""
    return math.sqrt(float(np.mean(oracle.variance(n, counts))))


def total_variation(truth: np.ndarray, estimate: np.ndarray) -> float:
    """Total variation distance between the two histograms normalised to distributions."""
    total = estimate.sum()
    if total <= 0:
        return 1.0
    return 0.5 * float(np.abs(truth / truth.sum() - estimate / total).sum())
