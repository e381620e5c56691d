"""Heavy hitters: one-hot attribute fragments vs the fragmented count-mean sketch (Erlingsson, Feldman,
Mironov, Raghunathan, Song, Talwar, Thakurta, Encode, Shuffle, Analyze Privacy Revisited (2020), Table I
and Section VII; docs/esa.md "Sketches").

Both protocols run at the SAME local eps_l: the one that Lemma II.6 (cheu19, one binary
channel per bin, k = 2) gives the one-hot attribute fragments for the target (eps_c, delta).
No amplification bound is known for sketch reports, so, as in the paper, the sketch is run at
that eps_l and its eps_c is only bracketed (PRIVACY_NOTE). The paper's finding (Table I): the
one-hot estimate recovers more of the tail, the sketch sends far fewer messages per respondent
("#bits_1-hot" vs "#bits_sketch").
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ldpcore.errors import require
from ldpcore.experiment.protocol.metrics import error_metrics
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan
from ldpcore.oracles.sketches import PRIVACY_NOTE, FragmentedSketch
from ldpcore.privacy.bounds import BoundName


@dataclass(frozen=True)
class MethodResult:
    """One protocol's outcome: recall as ((k, recall@k), ...), RMSE over all d counts,
    expected messages per respondent (the paper's "#bits") and seconds for simulate+estimate."""

    name: str
    eps_l: float
    recall: tuple[tuple[int, float], ...]
    rmse: float
    messages: float
    seconds: float
    note: str = ""

    def recall_at(self, k: int) -> float:
        return dict(self.recall)[k]


@dataclass(frozen=True)
class HeavyHitterComparison:
    """compare()'s result (Erlingsson et al. 2020 Table I, in kind)."""

    eps_c: float
    delta: float
    n: int
    d: int
    ks: tuple[int, ...]
    onehot: MethodResult
    sketch: MethodResult

    @property
    def methods(self) -> tuple[MethodResult, MethodResult]:
        return self.onehot, self.sketch


def top_k(values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest entries (ties broken by an unspecified but deterministic order)."""
    return np.argpartition(values, values.size - k)[values.size - k :]


def recall_at(true_counts: np.ndarray, estimate: np.ndarray, k: int) -> float:
    """Fraction of the true top-k values found among the estimated top-k. The true top-k breaks
    ties by the lower value index (stable), so it is well defined."""
    truth = np.argsort(-np.asarray(true_counts), kind="stable")[:k]
    return float(np.isin(truth, top_k(np.asarray(estimate, dtype=np.float64), k)).sum() / k)


def _score(name, eps_l, counts, estimate, ks, messages, seconds, note="") -> MethodResult:
    rmse = error_metrics(counts, estimate, counts.max())["rmse_raw"]
    recall = tuple((int(k), recall_at(counts, estimate, int(k))) for k in ks)
    return MethodResult(name, float(eps_l), recall, rmse, float(messages), float(seconds), note)


def compare(
    hist,
    eps_c: float,
    delta: float,
    rng: np.random.Generator,
    ks=(100, 1000, 10000),
    sketch_k: int = 1024,
    sketch_m: int = 65536,
    hash_seed: int = 0,
) -> HeavyHitterComparison:
    """Erlingsson et al. 2020 Table I in kind: one-hot attribute fragments vs the fragmented count-mean sketch
    (Apple's k = 1,024 hash functions of width m = 65,536 by default), both at the eps_l that
    cheu19 (Lemma II.6, channel k = 2) gives one-hot fragments for (eps_c, delta); the sketch's
    eps_c at that eps_l is unknown (its note). hist: a Histogram or an array of d counts.
    Each method is simulated exactly from the counts (aggregate samplers) and timed."""
    counts = np.asarray(getattr(hist, "counts", hist), dtype=np.int64).ravel()
    d, n = counts.size, int(counts.sum())
    ks = tuple(int(k) for k in ks)
    require(n >= 1, "the histogram holds no reports.")
    require(all(1 <= k <= d for k in ks), f"every k must lie in [1, d={d}] (got {ks}).")
    onehot_plan = plan(ProtocolSpec(eps_c=eps_c, delta=delta, accountant=BoundName.CHEU19), n, d)
    eps_l = onehot_plan.eps_b

    start = time.perf_counter()
    onehot = onehot_plan.oracle()
    est = onehot.estimate(onehot.sample_aggregate(counts, rng), n)
    onehot_result = _score(
        "one-hot, attribute fragments",
        eps_l,
        counts,
        est,
        ks,
        onehot.expected_messages(),
        time.perf_counter() - start,
        f"eps_c = {eps_c:g} (cheu19, delta = {delta:g})",
    )

    start = time.perf_counter()
    sketch = FragmentedSketch.from_eps(eps_l, d, k=sketch_k, m=sketch_m, seed=hash_seed)
    est = sketch.estimate(sketch.sample_aggregate(counts, rng), n)
    sketch_result = _score(
        f"count-mean sketch {sketch_k} x {sketch_m}, attribute fragments",
        eps_l,
        counts,
        est,
        ks,
        sketch.expected_messages(),
        time.perf_counter() - start,
        "same eps_l as one-hot; " + PRIVACY_NOTE,
    )
    return HeavyHitterComparison(float(eps_c), float(delta), n, d, ks, onehot_result, sketch_result)
