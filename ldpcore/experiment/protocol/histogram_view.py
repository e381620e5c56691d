"""A histogram that reads: bins ranked by their true count, each estimate with its 95% band (the oracle's
analytic variance), and, where d is too large to draw every bin, the ranks beyond the top ones averaged in
groups, so the heavy hitters are always drawn exactly (never sampled evenly)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldpcore.data.histogram import Histogram
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan

Z95 = 1.959963984540054  # the two-sided 95% normal quantile
MAX_POINTS = 2_000  # points per line at most
EXACT_TOP = 500  # the highest-ranked bins are always drawn one by one


def bin_std(spec: ProtocolSpec, hist: Histogram) -> np.ndarray:
    """The analytic standard deviation of every bin's raw estimate (the oracle's variance at the true counts)."""
    oracle = plan(spec, hist.n, hist.d).oracle()
    return np.sqrt(np.maximum(np.broadcast_to(oracle.variance(hist.n, hist.counts), hist.counts.shape), 0.0))


@dataclass(frozen=True)
class Ranked:
    """Bins in order of their true count (largest first), grouped for drawing.

    order: the bin of every rank; start, stop: each drawn point covers ranks [start, stop) (one rank for the
    top EXACT_TOP, groups of equal size beyond); truth and every series: the mean over the point's ranks;
    low / high: the 95% band of a series with a std (mean over the group); labels: the bin's name where the
    point is one bin, else "ranks a-b"."""

    order: np.ndarray
    start: np.ndarray
    stop: np.ndarray
    truth: np.ndarray
    series: dict
    low: dict
    high: dict
    labels: list

    @property
    def rank(self) -> np.ndarray:
        """The x of every point: its first rank (1-based)."""
        return self.start + 1

    @property
    def grouped(self) -> bool:
        return bool(np.any(self.stop - self.start > 1))


def _groups(size: int, max_points: int, exact_top: int) -> np.ndarray:
    top = min(size, exact_top, max_points)
    rest = size - top
    if rest <= 0:
        return np.arange(size + 1)
    parts = min(rest, max(max_points - top, 1))
    return np.r_[np.arange(top), top + np.linspace(0, rest, parts + 1).round().astype(np.int64)]


def _mean(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    sums = np.add.reduceat(values.astype(np.float64), edges[:-1])
    return sums / np.diff(edges)


def ranked(
    truth: np.ndarray,
    series: dict,
    top_k: int | None = None,
    labels=None,
    max_points: int = MAX_POINTS,
    exact_top: int = EXACT_TOP,
) -> Ranked:
    """truth and series {name: (estimate, std or None)} ranked by truth (ties by bin), cut to the top_k ranks
    (None: all), grouped to at most max_points points with the top exact_top ranks one by one."""
    truth = np.asarray(truth)
    order = np.argsort(-truth, kind="stable")
    if top_k is not None:
        order = order[: max(int(top_k), 1)]
    edges = _groups(order.size, max_points, exact_top)
    start, stop = edges[:-1], edges[1:]
    out, low, high = {}, {}, {}
    for name, (estimate, std) in series.items():
        if estimate is None:
            continue
        est = np.asarray(estimate, dtype=np.float64)[order]
        out[name] = _mean(est, edges)
        if std is not None:
            s = np.asarray(std, dtype=np.float64)[order]
            low[name], high[name] = _mean(est - Z95 * s, edges), _mean(est + Z95 * s, edges)
    names = [
        (str(labels[order[a]]) if labels is not None else str(int(order[a])))
        if b - a == 1
        else f"ranks {a + 1:,}-{b:,}"
        for a, b in zip(start, stop)
    ]
    return Ranked(order, start, stop, _mean(truth[order], edges), out, low, high, names)
