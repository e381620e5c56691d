"""Shared caches with a byte budget, for every cached call of the dashboard (in place of st.cache_data).

st.cache_data bounds a cache by its number of entries only and hands every session its own unpickled
copy of a result. A run on a 7000x7000 image holds ~400 MB, so 256 entries could hold 100 GB, and
eight sessions looking at one result held eight copies of it. These caches instead:

- are shared by every session of the server process: one copy of each result, handed out as is (the
  numpy arrays inside are made read-only when the result is stored, so no session can change it);
- hold at most a byte budget each: the least recently used entries go first, and a result larger than
  the whole budget is returned to the session that asked but not kept;
- compute a missing result once: a session asking for a result another session is computing waits
  for it instead of computing it again (a class stepping through the same views shares the work).

Budgets, in MB, default to BUDGETS_MB and are set per cache with the environment variable
LDPCORE_CACHE_<NAME>_MB (e.g. LDPCORE_CACHE_RUNS_MB=1024) before the server starts.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import threading
from collections import OrderedDict

import numpy as np
import streamlit as st

BUDGETS_MB = {
    "data": 1024,  # inputs: bundled and uploaded histograms (a 50-megapixel image is 400 MB), numeric tables, datasets
    "runs": 512,  # simulated runs: estimates (8 bytes per value), metrics and privacy numbers
    "images": 64,  # PNGs at display resolution
    "results": 128,  # analytic curves, accountant tables, the results of the systems pages
}


def budget_bytes(name: str) -> int:
    """The byte budget of a cache: LDPCORE_CACHE_<NAME>_MB if set (a whole number of MB >= 0), else BUDGETS_MB."""
    variable = f"LDPCORE_CACHE_{name.upper()}_MB"
    text = os.environ.get(variable, "").strip()
    if not text:
        return BUDGETS_MB[name] * 2**20
    if not text.isdigit():
        raise ValueError(f"{variable} must be a whole number of MB (got {text!r}).")
    return int(text) * 2**20


def nbytes(value, seen: set | None = None) -> int:
    """The bytes a value holds: numpy arrays (made read-only on the way: cached values are shared),
    bytes and strings, and whatever dataclasses, objects, dicts, lists and tuples hold; each object once."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
        return sys.getsizeof(value) + (value.nbytes if value.base is not None else 0)
    if isinstance(value, dict):
        return sys.getsizeof(value) + sum(nbytes(k, seen) + nbytes(v, seen) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return sys.getsizeof(value) + sum(nbytes(v, seen) for v in value)
    if hasattr(value, "__dict__") and not isinstance(value, type) and not callable(value):  # dataclasses, objects
        return sys.getsizeof(value) + nbytes(vars(value), seen)
    return sys.getsizeof(value)


class Cache:
    """One shared cache: key -> value, least recently used first out, within budget bytes."""

    def __init__(self, name: str):
        self.name = name
        self.budget = budget_bytes(name)
        self.bytes = 0
        self._entries: OrderedDict = OrderedDict()  # key -> (value, size)
        self._computing: dict = {}  # key -> threading.Event, set when the computation ends
        self._lock = threading.Lock()

    def __contains__(self, key) -> bool:
        return key in self._entries

    def get(self, key, compute):
        """The value for key: cached, or computed once by compute() (other callers wait for it), then kept
        within the budget."""
        while True:
            with self._lock:
                if key in self._entries:
                    self._entries.move_to_end(key)
                    return self._entries[key][0]
                event = self._computing.get(key)
                if event is None:
                    event = self._computing[key] = threading.Event()
                    break
            event.wait()  # another session is computing it; then look again (it may not have been kept)
        try:
            value = compute()
            self._keep(key, value, nbytes(value))
            return value
        finally:
            with self._lock:
                del self._computing[key]
            event.set()

    def _keep(self, key, value, size: int) -> None:
        with self._lock:
            if size > self.budget:
                return  # larger than the whole budget: not kept
            while self._entries and self.bytes + size > self.budget:
                _, (_, freed) = self._entries.popitem(last=False)
                self.bytes -= freed
            self._entries[key] = (value, size)
            self.bytes += size


CACHES = {name: Cache(name) for name in BUDGETS_MB}


def _frozen(value):
    """A hashable stand-in for an argument: dicts, lists and sets by their contents."""
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(_frozen(v) for v in value)
    return value


def cached(cache: str, spinner: str | None = None):
    """Decorate a function to cache its results in CACHES[cache]. As with st.cache_data, parameters
    whose name starts with "_" are not part of the key (pass a key naming them, e.g. the input's key);
    spinner: text shown while the result is computed or awaited."""
    store = CACHES[cache]

    def wrap(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def call(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            key = (fn.__module__, fn.__qualname__, getattr(getattr(fn, "__code__", None), "co_filename", "")) + tuple(
                (name, _frozen(value)) for name, value in bound.arguments.items() if not name.startswith("_")
            )
            if spinner is None or key in store:
                return store.get(key, lambda: fn(*args, **kwargs))
            with st.spinner(spinner):
                return store.get(key, lambda: fn(*args, **kwargs))

        return call

    return wrap
