"""Numeric data in a stated range [lo, hi], mapped onto [-1, 1] for the numeric mechanisms
(Wang et al., Collecting and analyzing multidimensional data with local differential privacy,
ICDE 2019, Sec. III-B's scaling)."""

from __future__ import annotations

import numpy as np

from ldpcore.errors import InputError, require


def require_all(ok: np.ndarray, values: np.ndarray, message: str) -> None:
    """InputError(message) naming the first offending value unless ok holds everywhere."""
    if not np.all(ok):
        raise InputError(message.format(np.broadcast_to(values, ok.shape)[~ok].flat[0]))


def unit_values(values, name: str = "values") -> np.ndarray:
    """values as a float array in [-1, 1] (NaN is refused too)."""
    t = np.asarray(values, dtype=np.float64)
    require_all(
        np.abs(t) <= 1,
        t,
        name + " must lie in [-1, 1] (got {:g}); map data with to_unit, which clips it to [lo, hi] first.",
    )
    return t


def _check_range(lo: float, hi: float) -> tuple[float, float]:
    lo, hi = float(lo), float(hi)
    require(
        np.isfinite(lo) and np.isfinite(hi) and lo < hi,
        f"a value range needs finite lo < hi (got lo={lo:g}, hi={hi:g}).",
    )
    return lo, hi


def to_unit(x, lo: float, hi: float, clip: bool = True) -> np.ndarray:
    """Map [lo, hi] onto [-1, 1]: t = 2(x - lo)/(hi - lo) - 1 (Sec. III-B's scaling).

    Values are clipped to [lo, hi] first (clip=False refuses them instead). Clipping is
    required: every mechanism is eps-LDP and unbiased only for inputs in [-1, 1] (outside
    it Duchi's probabilities leave [0, 1] and PM's density ratio exceeds e^eps). After
    clipping the average of the reports is unbiased for the mean of the clipped data,
    which is the true mean when [lo, hi] holds all the data. The range must be fixed
    without looking at the data for the guarantee to hold.
    """
    lo, hi = _check_range(lo, hi)
    x = np.asarray(x, dtype=np.float64)
    require(not np.isnan(x).any(), "values must be numbers (found NaN).")
    if clip:
        x = np.clip(x, lo, hi)
    else:
        require_all((x >= lo) & (x <= hi), x, f"values must lie in [{lo:g}, {hi:g}] (got {{:g}}).")
    return (2 * (x - lo) / (hi - lo) - 1)[()]


def from_unit(t, lo: float, hi: float):
    """Map reports or estimates back: lo + (t + 1)(hi - lo)/2 (affine, so unbiasedness carries over)."""
    lo, hi = _check_range(lo, hi)
    return (lo + (np.asarray(t, dtype=np.float64) + 1) * (hi - lo) / 2)[()]


def variance_scale(lo: float, hi: float) -> float:
    """Variances on [-1, 1] times ((hi - lo)/2)^2 are variances in the data's units."""
    lo, hi = _check_range(lo, hi)
    return ((hi - lo) / 2) ** 2
