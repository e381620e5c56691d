"""ui.kit.runs.landed: a sweep's cells simulated in the background, once for every session that needs them, drawn as
they land; a new sweep of a session cancels the queued cells it no longer needs (unless another session needs them);
a cell whose job failed raises its error in the session that asks for it."""

import threading
import time
import uuid

import numpy as np
import pytest

from ldpcore.data.histogram import Histogram
from ldpcore.experiment.protocol.run import Method
from ldpcore.experiment.protocol.spec import ProtocolSpec
from ui.kit import runs
from ui.kit.inputs import Input

METHOD = Method("Attribute fragments", ProtocolSpec(eps_c=1.0, delta=1e-6), False)


@pytest.fixture
def sessions(monkeypatch):
    """Which session runs.landed() serves: set its name with sessions.now = "..."; every evaluation is counted per
    eps_c, and waits while sessions.gate is closed (so that some cells are still queued)."""

    class State:
        now = "a"
        gate = threading.Event()
        evaluated: list[float] = []

    state = State()
    state.gate.set()
    real = runs.evaluate

    def evaluate(method, eps_c, hist, seed):
        state.gate.wait(10)
        state.evaluated.append(eps_c)
        return real(method, eps_c, hist, seed)

    monkeypatch.setattr(runs, "_session", lambda: state.now)
    monkeypatch.setattr(runs, "evaluate", evaluate)
    return state


def _input() -> Input:
    """A small histogram under a key no other test uses (the caches are shared by the process)."""
    return Input(Histogram(counts=np.arange(1, 33), name="t"), f"test-{uuid.uuid4().hex}", 1e-6)


def _complete(inp: Input, eps, timeout: float = 30) -> runs.Landed:
    deadline = time.monotonic() + timeout
    while (now := runs.landed(inp, [METHOD], eps, 0)).pending and time.monotonic() < deadline:
        time.sleep(0.05)
    return now


def test_peeking_queues_nothing_and_queued_cells_land_once_for_every_session(sessions):
    inp, eps = _input(), [0.3, 0.6, 1.2]
    assert runs.landed(inp, [METHOD], eps, 0) == runs.Landed([None] * 3, 3)
    time.sleep(0.2)
    assert sessions.evaluated == []  # a peek starts nothing
    for name in ("a", "b"):  # two sessions ask for the same sweep
        sessions.now = name
        runs.landed(inp, [METHOD], eps, 0, queue=True)
    done = _complete(inp, eps)
    assert done.pending == 0 and [c.eps_c for c in done.ready] == eps and sorted(sessions.evaluated) == eps
    assert all(c.estimate is None and c.method == METHOD.label for c in done.ready)  # summaries, labelled


def test_a_new_sweep_cancels_the_queued_cells_only_this_session_needed(sessions):
    inp = _input()
    first, second = list(np.geomspace(0.1, 0.2, 6)), [1.5]
    sessions.gate.clear()  # the workers hold their first cells: the rest stay queued
    runs.landed(inp, [METHOD], first, 0, queue=True)
    sessions.now = "b"
    runs.landed(inp, [METHOD], first[-1:], 0, queue=True)  # another session needs the last cell of the first sweep
    sessions.now = "a"
    runs.landed(inp, [METHOD], second, 0, queue=True)  # a new click: session a needs only 1.5 now
    sessions.gate.set()
    assert _complete(inp, second).pending == 0
    _complete(inp, first[-1:])
    started = set(sessions.evaluated)
    assert {1.5, first[-1]} <= started  # what some session needs lands
    assert set(first[2:-1]).isdisjoint(started)  # queued, needed by nobody any more: cancelled


def test_a_failed_cell_raises_in_the_session(sessions, monkeypatch):
    inp = _input()

    def broken(method, eps_c, hist, seed):
        raise RuntimeError("the simulation broke")

    monkeypatch.setattr(runs, "evaluate", broken)
    runs.landed(inp, [METHOD], [0.5], 0, queue=True)
    time.sleep(0.5)
    with pytest.raises(RuntimeError, match="the simulation broke"):
        runs.landed(inp, [METHOD], [0.5], 0, queue=True)


def test_the_browser_tests_wait_for_the_landing_caption():
    """e2e_support.wait_idle waits while a caption ends in runs.LANDING: the same words."""
    from e2e_support import LANDING

    assert LANDING == runs.LANDING
    assert runs.pending_note("Measuring the points", runs.Landed([None, None], 2)).endswith(f"{LANDING}.")
