"""Work that nobody waits for (issue 24 item 6): a sweep's cells are kept per cell, so that a repeat of the same
view is served from the caches even when the cells' estimates do not fit the runs cache."""

from collections import OrderedDict

import pytest
from conftest import assert_clean, open_page

from ui.kit import runs
from ui.kit.cache import CACHES

pytestmark = pytest.mark.app


def test_a_repeated_sweep_is_served_from_the_cache_even_when_its_runs_are_not_kept(monkeypatch):
    """The runs cache keeps nothing here (a budget of 1 byte): the slim cells in the results cache serve the
    second view of the same URL without a single run."""
    for cache in CACHES.values():  # this worker's earlier tests may have filled the shared caches
        monkeypatch.setattr(cache, "_entries", OrderedDict())
        monkeypatch.setattr(cache, "bytes", 0)
    calls = []
    evaluate = runs.evaluate
    monkeypatch.setattr(runs, "evaluate", lambda *a: calls.append(a[1]) or evaluate(*a))
    monkeypatch.setattr(CACHES["runs"], "budget", 1)
    url = dict(dataset="horse", max_side="24", sweep_points="3", seed="11")
    assert_clean(open_page("app_pages/tradeoffs.py", **url))
    first = len(calls)
    assert first >= 3 and CACHES["runs"].bytes == 0
    assert_clean(open_page("app_pages/tradeoffs.py", **url))
    assert len(calls) == first  # nothing ran again
