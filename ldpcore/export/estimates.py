"""The estimate as CSV (one row per bin, with its standard error and 95% interval) and the run record's
summary of those intervals; a post-processed estimate's rows leave them empty (POSTPROCESSED_INTERVALS says why)."""

from __future__ import annotations

import numpy as np

from ldpcore.data.histogram import Histogram
from ldpcore.errors import InputError
from ldpcore.experiment.planning import Z95, standard_errors
from ldpcore.experiment.protocol.metrics import clip_estimate
from ldpcore.export.spreadsheet import csv_text, inert

ESTIMATE_COLUMNS = ("value", "true", "estimate", "clipped", "std_error", "ci95_low", "ci95_high")
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
    pieces of text of CSV_ROWS_PER_CHUNK rows, so that a file of millions of rows is never held whole. Written by
    the csv module (a label holding a comma, quote or line break is quoted), labels made inert for spreadsheets
    (ldpcore.export.spreadsheet)."""
    yield csv_text([ESTIMATE_COLUMNS])
    labels = iter(hist.labels) if hist.labels is not None else None
    for start in range(0, hist.d, CSV_ROWS_PER_CHUNK):
        stop = min(start + CSV_ROWS_PER_CHUNK, hist.d)
        part = estimate[start:stop]
        columns = [hist.counts[start:stop].tolist()]
        columns += ([f"{x:.6g}" for x in a.tolist()] for a in (part, clip_estimate(part, hist.max_count)))
        if std_error is None:
            columns += [[""] * (stop - start)] * 3
        else:
            se = std_error[start:stop]
            columns += ([f"{x:.6g}" for x in a.tolist()] for a in (se, part - Z95 * se, part + Z95 * se))
        if labels is None:  # numbers only, which need no quoting: joined directly (half the csv module's time)
            yield "".join(
                f"{v},{t},{e},{c},{s},{lo},{hi}\n" for v, t, e, c, s, lo, hi in zip(range(start, stop), *columns)
            )
        else:
            yield csv_text(zip((inert(next(labels)) for _ in range(start, stop)), *columns))


def estimate_csv(hist: Histogram, estimate: np.ndarray, std_error: np.ndarray | None) -> str:
    """The estimate CSV of estimate_csv_chunks in one string."""
    return "".join(estimate_csv_chunks(hist, estimate, std_error))
