"""The estimate as CSV (one row per bin, with its standard error and 95% interval) and the run record's
summary of those intervals; a post-processed estimate's rows leave them empty (POSTPROCESSED_INTERVALS says why)."""

from __future__ import annotations

import numpy as np

from ldpcore.data.histogram import Histogram
from ldpcore.errors import InputError
from ldpcore.experiment.planning import Z95, standard_errors
from ldpcore.experiment.protocol.metrics import clip_estimate

CSV_ROWS_PER_CHUNK = 65_536  # the estimate CSV and the error map are made this many values at a time

INTERVAL_NOTE = (
    "per bin, the 95% normal interval estimate -+ 1.96 x std_error of the raw (unbiased) estimate; std_error by "
    "plug-in: the oracle's analytic variance at the estimate clipped to [0, n] and rounded (the central Gaussian "
    "baseline: its sigma)"
)


POSTPROCESSED_INTERVALS = (
    "omitted: a post-processed estimate is biased (it is non-negative, or sums to n, by construction) and has no "
    "analytic variance, so the normal interval of the raw estimate does not describe it; the raw run (without "
    "--postprocess) has them"
)


def std_errors(hist: Histogram, estimate: np.ndarray, plan=None, sigma: float | None = None) -> np.ndarray:
    """Every bin's standard error: an LDP run's (its Plan) by plug-in (ldpcore.experiment.planning.standard_errors),
    the central Gaussian baseline's (no plan) its sigma."""
    if plan is not None:
        return standard_errors(plan.oracle(), hist.n, estimate)
    if sigma is None:
        raise InputError("a standard error needs the run's plan, or the Gaussian baseline's sigma.")
    return np.full(hist.d, float(sigma))


def uncertainty(std_error: np.ndarray | None) -> dict:
    """The run record's summary of the per-bin intervals (the bins themselves are in the estimate CSV); None: the
    estimate is post-processed and has none (POSTPROCESSED_INTERVALS)."""
    if std_error is None:
        return {"level": 0.95, "how": POSTPROCESSED_INTERVALS, "per_bin": "estimate.csv: left empty"}
    return {
        "level": 0.95,
        "z": Z95,
        "mean_std_error": float(np.mean(std_error)),
        "rms_std_error": float(np.sqrt(np.mean(np.square(std_error)))),
        "max_std_error": float(np.max(std_error)),
        "how": INTERVAL_NOTE,
        "per_bin": "estimate.csv: std_error, ci95_low, ci95_high",
    }


def estimate_csv_chunks(hist: Histogram, estimate: np.ndarray, std_error: np.ndarray | None):
    """The estimate CSV (value,true,estimate,clipped,std_error,ci95_low,ci95_high rows; value = label, pixel index
    or bin index; the interval as INTERVAL_NOTE says, empty where std_error is None: a post-processed estimate) as
    pieces of text of CSV_ROWS_PER_CHUNK rows, so that a file of millions of rows is never held whole."""
    if std_error is None:
        yield from _chunks_without_intervals(hist, estimate)
        return
    yield "value,true,estimate,clipped,std_error,ci95_low,ci95_high\n"
    labels = iter(hist.labels) if hist.labels is not None else None
    for start in range(0, hist.d, CSV_ROWS_PER_CHUNK):
        stop = min(start + CSV_ROWS_PER_CHUNK, hist.d)
        values = [next(labels) for _ in range(stop - start)] if labels is not None else range(start, stop)
        part, se = estimate[start:stop], std_error[start:stop]
        clipped = clip_estimate(part, hist.max_count)
        low, high = part - Z95 * se, part + Z95 * se
        yield "".join(
            f"{v},{t},{e:.6g},{c:.6g},{s:.6g},{lo:.6g},{hi:.6g}\n"
            for v, t, e, c, s, lo, hi in zip(
                values,
                hist.counts[start:stop].tolist(),
                part.tolist(),
                clipped.tolist(),
                se.tolist(),
                low.tolist(),
                high.tolist(),
            )
        )


def _chunks_without_intervals(hist: Histogram, estimate: np.ndarray):
    """estimate_csv_chunks' rows with the three interval fields empty."""
    yield "value,true,estimate,clipped,std_error,ci95_low,ci95_high\n"
    labels = iter(hist.labels) if hist.labels is not None else None
    for start in range(0, hist.d, CSV_ROWS_PER_CHUNK):
        stop = min(start + CSV_ROWS_PER_CHUNK, hist.d)
        values = [next(labels) for _ in range(stop - start)] if labels is not None else range(start, stop)
        part = estimate[start:stop]
        clipped = clip_estimate(part, hist.max_count)
        yield "".join(
            f"{v},{t},{e:.6g},{c:.6g},,,\n"
            for v, t, e, c in zip(values, hist.counts[start:stop].tolist(), part.tolist(), clipped.tolist())
        )


def estimate_csv(hist: Histogram, estimate: np.ndarray, std_error: np.ndarray | None) -> str:
    """The estimate CSV of estimate_csv_chunks in one string."""
    return "".join(estimate_csv_chunks(hist, estimate, std_error))
