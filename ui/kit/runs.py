"""Cached runs shared by the protocol pages (Reconstruct, Trade-offs, Report table, Adversary), keyed on what
determines the result: the data's key, the spec that runs (the central baseline: only eps_c and delta) and the
seed; never a method's label or anything else that differs between sessions, so that sessions looking at the
same view share one result.

Results live in ui.kit.cache's shared caches (runs: the full estimates; images: PNGs at display resolution, at
most DISPLAY_WIDTH pixels wide).
"""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import NamedTuple

import numpy as np
import streamlit as st
from PIL import Image
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ldpcore.data.histogram import Histogram
from ldpcore.errors import Cancelled, checkpoint, stop_when
from ldpcore.experiment.protocol.run import Cell, Failed, Method, evaluate, postprocess_cell, without_estimate
from ldpcore.experiment.protocol.spec import Plan, ProtocolSpec
from ldpcore.export import png_bytes, render
from ldpcore.oracles import ENCODINGS
from ldpcore.privacy.guarantee import Neighbouring
from ui.kit.cache import MISSING, cached, frozen
from ui.kit.inputs import Input

DISPLAY_WIDTH = 800  # px: the widest image sent for display (a column of the wide layout is narrower)
FAST = 1  # PNG compression level of displayed images (downloads keep the default)
WORKERS = 2  # a grid's cells run at once: numpy releases the GIL while drawing, so two cores fill it together


def run_spec(method: Method, eps_c: float) -> tuple[dict, bool]:
    """The spec a method runs at eps_c (as a dict) and whether it is the central baseline: the key of its run."""
    spec = ProtocolSpec(eps_c=float(eps_c), delta=method.spec.delta) if method.central else method.at(float(eps_c))
    return spec.as_dict(), method.central


def neighbouring_of(method: Method) -> str:
    """The notion a method's numbers are stated in: the encoding's, zero-out for the central Gaussian (one count
    removed)."""
    return Neighbouring.ZERO_OUT if method.central else ENCODINGS[method.spec.encoding].neighbouring


@cached("runs")
def cell_of(
    input_key: str, _hist: Histogram, spec: dict, central: bool, seed: int, postprocess: str | None = None
) -> Cell:
    """The cached evaluation of the method (ProtocolSpec(**spec), or the central baseline) on the input named
    input_key: what cell() returns, keyed as run_spec() gives it; a post-processed cell is the cached raw cell's
    estimate post-processed (ldpcore.experiment.protocol.run.postprocess_cell), not a second run."""
    if postprocess is not None:
        return postprocess_cell(cell_of(input_key, _hist, spec, central, seed), postprocess, _hist)
    return evaluate(Method("", ProtocolSpec(**spec), central), spec["eps_c"], _hist, seed)


def cell(inp: Input, method: Method, eps_c: float, seed: int) -> Cell:
    """One cached evaluation of method at eps_c on the input (after its post-processing), labelled with the
    method's label."""
    c = cell_of(inp.key, inp.hist, *run_spec(method, eps_c), int(seed), method.postprocess)
    return replace(c, method=method.label)


@cached("results")
def summary_of(
    input_key: str, _hist: Histogram, spec: dict, central: bool, seed: int, postprocess: str | None = None
) -> Cell:
    """cell_of without its estimate: what a sweep keeps of a cell (small, so that it stays cached however large
    the estimates of a grid are)."""
    return without_estimate(cell_of(input_key, _hist, spec, central, seed, postprocess))


class Ran(NamedTuple):
    """What a cell holds where its method ran (Measured) with its estimate kept."""

    estimate: np.ndarray
    metrics: dict
    privacy: dict


def ran(c: Cell) -> Ran:
    """The estimate, metrics and privacy record of a cell whose method ran (a page shows c.error, and offers
    nothing made from the run, where it did not); ValueError naming the reason otherwise."""
    if isinstance(c, Failed) or c.estimate is None:
        raise ValueError(f"{c.method} at eps_c = {c.eps_c:g} did not run: {c.error or 'its estimate was left out'}")
    return Ran(c.estimate, c.metrics, c.privacy)


def plan_of(c: Cell) -> Plan:
    """The plan of a protocol's cell that ran (the central baseline has none); ValueError otherwise."""
    if isinstance(c, Failed) or c.plan is None:
        raise ValueError(f"{c.method} at eps_c = {c.eps_c:g} has no plan: {c.error or 'the central baseline'}")
    return c.plan


def analytic_rmse_of(c: Cell) -> tuple[float | None, str]:
    """The analytic raw RMSE of a protocol's cell that ran and what it is short of exact; ValueError otherwise."""
    if isinstance(c, Failed):
        raise ValueError(f"{c.method} at eps_c = {c.eps_c:g} did not run: {c.error}")
    return c.analytic_rmse_raw, c.analytic_rmse_raw_note


def fit(img: Image.Image, max_width: int) -> Image.Image:
    """img at most max_width pixels wide (box-averaged), the aspect ratio kept."""
    if img.width <= max_width:
        return img
    return img.resize((max_width, max(1, round(img.height * max_width / img.width))), Image.Resampling.BOX)


@cached("images")
def _cell_png(
    input_key: str, _hist: Histogram, spec: dict, central: bool, seed: int, max_width: int, postprocess: str | None
) -> bytes | None:
    c = cell_of(input_key, _hist, spec, central, seed, postprocess)
    return None if isinstance(c, Failed) else png_bytes(fit(render(_hist, ran(c).estimate), max_width), FAST)


def cell_png(inp: Input, method: Method, eps_c: float, seed: int, max_width: int = DISPLAY_WIDTH) -> bytes | None:
    """The reconstruction of cell(...) as a PNG on the input's scale, at most max_width pixels wide (None where
    undefined), made once (st.image would otherwise downscale a wide image on every rerun)."""
    return _cell_png(inp.key, inp.hist, *run_spec(method, eps_c), int(seed), int(max_width), method.postprocess)


@cached("images")
def _original_png(input_key: str, _hist: Histogram, max_width: int) -> bytes:
    return png_bytes(fit(render(_hist), max_width), FAST)


def original_png(inp: Input, max_width: int = DISPLAY_WIDTH) -> bytes:
    """The input rendered once per data set (it does not change with eps_c), at display resolution."""
    return _original_png(inp.key, inp.hist, int(max_width))


POLL = 0.5  # s between the redraws of a view whose cells are still being simulated (an st.fragment's run_every)
LANDING = "the others follow as they land"  # the end of a view's caption while some of its cells are pending


class Landed(NamedTuple):
    """A sweep as it stands: its cells in grid order (eps_c by eps_c, every method; None: not simulated yet), without
    their estimates, and how many are still to come."""

    cells: list[Cell | None]
    pending: int

    @property
    def ready(self) -> list[Cell]:
        """The cells that have landed."""
        return [c for c in self.cells if c is not None]


def pending_note(what: str, landed: Landed) -> str:
    """The caption of a view with pending cells: what it is doing, how far, and LANDING."""
    total = len(landed.cells)
    return f"{what}: {total - landed.pending} of {total} simulated; {LANDING}."


# the cells being simulated in the background, shared by every session: a cell's job (its key: what determines
# its result) is queued once, whoever needs it; _WANTED: the sessions that still need a queued cell; _ASKED: the
# cells each session's last sweep still needed
_WORKERS = ThreadPoolExecutor(WORKERS, thread_name_prefix="cells")
_LOCK = threading.Lock()
_QUEUED: dict[tuple, Future] = {}
_WANTED: dict[tuple, set[str]] = {}
_ASKED: dict[str, set[tuple]] = {}


def _session() -> str:
    """This browser session's name for the background jobs: Streamlit's session id (what its runtime knows as
    active or not), or a name kept in the session state where no runtime serves it (AppTest)."""
    ctx = get_script_run_ctx()
    if ctx is not None and Runtime.exists():
        return ctx.session_id
    return st.session_state.setdefault("_cells_session", uuid.uuid4().hex)


def _connected(session: str) -> bool:
    """Whether the session is still connected (its tab open): always, where no Streamlit runtime serves pages."""
    return not Runtime.exists() or Runtime.instance().is_active_session(session)


def _abandoned(key: tuple) -> bool:
    """No connected session needs the cell any more: its job stops at its next checkpoint (ldpcore.errors)."""
    with _LOCK:
        return not any(_connected(session) for session in _WANTED.get(key, ()))


def _landed(inp: Input, m: Method, e: float, seed: int, png_width: int | None) -> Cell | None:
    """The cell (labelled, without its estimate) if it and, with png_width, its picture are cached; else None."""
    spec, central = run_spec(m, e)
    c = summary_of.peek(inp.key, inp.hist, spec, central, int(seed), m.postprocess)
    if c is MISSING:
        return None
    picture = (inp.key, inp.hist, spec, central, int(seed), int(png_width or 0), m.postprocess)
    if png_width is not None and _cell_png.peek(*picture) is MISSING:
        return None
    return replace(c, method=m.label)


def _job(key: tuple, inp: Input, m: Method, e: float, seed: int, png_width: int | None) -> None:
    """Simulate one cell into the shared caches, its summary and, with png_width, its picture, while a connected
    session needs it: a job nobody needs any more (every session that asked left, or asked for another sweep)
    stops at its next checkpoint, or before it starts. A job that raises otherwise stays queued, done, with its
    error, for landed() to find."""
    spec, central = run_spec(m, e)
    try:
        with stop_when(lambda: _abandoned(key)):
            checkpoint()
            summary_of(inp.key, inp.hist, spec, central, seed, m.postprocess)
            if png_width is not None:
                cell_png(inp, m, e, seed, max_width=png_width)
    except Cancelled:
        pass  # forgotten below: a session that asks again queues it again
    with _LOCK:
        _QUEUED.pop(key, None)
        _WANTED.pop(key, None)


def _release(key: tuple, session: str) -> None:
    """This session no longer needs the cell: its job is cancelled if no session needs it and it has not started;
    a running one stops at its next checkpoint (_abandoned). Under _LOCK."""
    wanted = _WANTED.get(key)
    if wanted is None:
        return
    wanted.discard(session)
    if not wanted and _QUEUED[key].cancel():
        del _QUEUED[key], _WANTED[key]


def landed(inp: Input, methods, eps_cs, seed: int, png_width: int | None = None, queue: bool = False) -> Landed:
    """Every method at every eps_c, without waiting: the cells already simulated (by any session), in grid order.
    png_width: a cell lands with its picture (cell_png), made right after its run (the runs cache may not keep
    every estimate of a large grid).

    queue=True also queues the others on WORKERS background threads, in grid order, each once for every session
    that needs it, and cancels this session's cells of its previous sweep that this one no longer needs (a new
    click), where no other session needs them; a job that failed is run here, so that its error shows. A page
    draws what has landed first, then queues the rest (the workers would otherwise slow its first drawing), and
    draws again what lands (an st.fragment with run_every=POLL) while some are pending."""
    cells, jobs = [], {}
    for e in eps_cs:
        for m in methods:
            c = _landed(inp, m, e, seed, png_width)
            if c is None:
                spec, central = run_spec(m, e)
                jobs[(inp.key, frozen(spec), central, int(seed), png_width, m.postprocess)] = (m, e)
            cells.append(c)
    if queue:
        session = _session()
        with _LOCK:
            for gone in [other for other in _ASKED if not _connected(other)]:
                del _ASKED[gone]  # its jobs stop by themselves (_abandoned)
            for key in _ASKED.get(session, set()) - jobs.keys():
                _release(key, session)
            failed = [key for key in jobs if key in _QUEUED and _QUEUED[key].done()]  # done, not landed: it raised
            for key in failed:
                del _QUEUED[key], _WANTED[key]
            for key, (m, e) in jobs.items():
                _WANTED.setdefault(key, set()).add(session)
                if key not in _QUEUED:
                    _QUEUED[key] = _WORKERS.submit(_job, key, inp, m, e, int(seed), png_width)
            _ASKED[session] = set(jobs)
        for key in failed:
            _job(key, inp, *jobs[key], int(seed), png_width)  # the job's error, raised in this session (or the cell)
    return Landed(cells, len(jobs))
