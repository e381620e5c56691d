"""ui/kit/cache.py: the dashboard's shared caches keep within their byte budget, hand out one read-only copy,
compute a result once for callers that ask together, and read their budgets from the environment."""

import threading
import time

import numpy as np
import pytest

from ui.kit.cache import BUDGETS_MB, Cache, budget_bytes, cached, nbytes

MB = 2**20


def small_cache(monkeypatch, mb: int) -> Cache:
    monkeypatch.setenv("LDPCORE_CACHE_RUNS_MB", str(mb))
    return Cache("runs")


def test_budget_from_the_environment(monkeypatch):
    monkeypatch.delenv("LDPCORE_CACHE_DATA_MB", raising=False)
    assert budget_bytes("data") == BUDGETS_MB["data"] * MB
    monkeypatch.setenv("LDPCORE_CACHE_DATA_MB", "300")
    assert budget_bytes("data") == 300 * MB
    monkeypatch.setenv("LDPCORE_CACHE_DATA_MB", "lots")
    with pytest.raises(ValueError, match="LDPCORE_CACHE_DATA_MB must be a whole number of MB"):
        budget_bytes("data")


def test_the_least_recently_used_go_first_and_the_total_stays_in_budget(monkeypatch):
    cache = small_cache(monkeypatch, 10)
    for key in range(4):  # 3 MB each: the fourth pushes out the least recently used
        cache.get(key, lambda: np.zeros(3 * MB, dtype=np.uint8))
        if key == 2:
            cache.get(0, lambda: pytest.fail("0 is cached"))  # 0 is now more recent than 1
    assert 0 in cache and 1 not in cache and 2 in cache and 3 in cache
    assert 9 * MB <= cache.bytes <= cache.budget


def test_a_result_larger_than_the_budget_is_returned_not_kept(monkeypatch):
    cache = small_cache(monkeypatch, 1)
    value = cache.get("big", lambda: np.ones(2 * MB, dtype=np.uint8))
    assert value.size == 2 * MB and "big" not in cache and cache.bytes == 0


def test_values_are_shared_and_read_only(monkeypatch):
    cache = small_cache(monkeypatch, 10)
    first = cache.get("k", lambda: {"estimate": np.arange(5.0)})
    assert cache.get("k", lambda: pytest.fail("cached")) is first
    with pytest.raises(ValueError, match="read-only"):
        first["estimate"][0] = 1.0


def test_callers_asking_together_share_one_computation(monkeypatch):
    cache, calls, results = small_cache(monkeypatch, 10), [], []
    gate = threading.Event()

    def compute():
        calls.append(1)
        gate.wait(5)
        return np.arange(3)

    threads = [threading.Thread(target=lambda: results.append(cache.get("k", compute))) for _ in range(6)]
    for t in threads:
        t.start()
    time.sleep(0.2)  # every thread is computing or waiting for the one that computes
    gate.set()
    for t in threads:
        t.join(5)
    assert len(calls) == 1 and len(results) == 6 and all(r is results[0] for r in results)


def test_a_failed_computation_is_not_kept(monkeypatch):
    cache = small_cache(monkeypatch, 10)
    with pytest.raises(RuntimeError):
        cache.get("k", lambda: (_ for _ in ()).throw(RuntimeError("boom")))
    assert cache.get("k", lambda: 7) == 7


def test_nbytes_counts_arrays_views_and_objects_once():
    base = np.zeros(1000)
    view = base[:500]
    assert nbytes(base) >= 8000 and 4000 <= nbytes(view) < 8000
    shared = np.zeros(1000)
    assert nbytes([shared, shared]) < nbytes(shared) + 200


def test_cached_keys_skip_underscore_arguments():
    calls = []

    @cached("results")
    def square(key: str, _payload: list, power: int = 2):
        calls.append(key)
        return len(_payload) ** power

    assert square("a", [1, 2, 3]) == 9
    assert square("a", [1, 2, 3, 4]) == 9  # the key names the payload; the payload is not hashed
    assert square("a", [1, 2], power=3) == 8 and calls == ["a", "a"]
