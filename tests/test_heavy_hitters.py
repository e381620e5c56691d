"""ldpcore.systems.heavy_hitters at a small scale: seeds/000 Table I in kind (one-hot recovers more of
the tail, the fragmented sketch sends far fewer messages), recall bounds, determinism."""

import dataclasses

import numpy as np
import pytest

from ldpcore.data.datasets import synthetic_heavy_hitters
from ldpcore.oracles.sketches import PRIVACY_NOTE
from ldpcore.systems.heavy_hitters import compare, recall_at

KS = (100, 1000, 10000)


def _run(seed=0):
    hist = synthetic_heavy_hitters(np.random.default_rng(seed), d=50_000, n=5_000_000)
    return compare(hist, 1.0, 5e-10, np.random.default_rng(seed), ks=KS, sketch_k=64, sketch_m=4096)


@pytest.fixture(scope="module")
def result():
    return _run()


def test_recall_in_unit_interval(result):
    for method in result.methods:
        assert [k for k, _ in method.recall] == list(KS)
        assert all(0.0 <= r <= 1.0 for _, r in method.recall)
        assert method.rmse > 0 and method.seconds >= 0


def test_same_eps_l_and_privacy_note(result):
    assert result.onehot.eps_l == result.sketch.eps_l > 0
    assert PRIVACY_NOTE in result.sketch.note


def test_onehot_recovers_more_of_the_tail(result):
    for k in (1000, 10000):
        assert result.onehot.recall_at(k) >= result.sketch.recall_at(k)
    assert result.onehot.rmse < result.sketch.rmse


def test_sketch_sends_far_fewer_messages(result):
    assert result.sketch.messages < result.onehot.messages / 2
    assert result.sketch.messages >= 1


def test_deterministic_under_seed(result):
    again = _run()
    for a, b in zip(result.methods, again.methods):
        assert dataclasses.replace(a, seconds=0.0) == dataclasses.replace(b, seconds=0.0)


def test_recall_at_exact():
    counts = np.array([5, 9, 1, 7, 3])
    assert recall_at(counts, counts.astype(float), 2) == 1.0
    assert recall_at(counts, np.array([9.0, 0, 0, 0, 8]), 2) == 0.0
    assert recall_at(counts, np.array([0.0, 9, 0, 0, 8]), 2) == 0.5
