"""Cached runs shared by the protocol pages (Reconstruct, Trade-offs, Report table, Adversary), keyed on what
determines the result: the data's key, the spec that runs (the central baseline: only eps_c and delta) and the
seed; never a method's label or anything else that differs between sessions, so that sessions looking at the
same view share one result.

Results live in ui.kit.cache's shared caches (runs: the full estimates; images: PNGs at display resolution, at
most DISPLAY_WIDTH pixels wide).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
from dataclasses import replace
from typing import NamedTuple

import numpy as np
import streamlit as st
from PIL import Image

from ldpcore.data.histogram import Histogram
from ldpcore.errors import checkpoint, stop_when
from ldpcore.experiment.protocol.run import (
    Cell,
    Failed,
    Method,
    evaluate,
    postprocess_cell,
    sweep,
    without_estimate,
)
from ldpcore.experiment.protocol.spec import Plan, ProtocolSpec
from ldpcore.export import png_bytes, render
from ui.kit.cache import cached
from ui.kit.inputs import Input

DISPLAY_WIDTH = 800  # px: the widest image sent for display (a column of the wide layout is narrower)
FAST = 1  # PNG compression level of displayed images (downloads keep the default)
WORKERS = 2  # a grid's cells run at once: numpy releases the GIL while drawing, so two cores fill it together
POLL_SECONDS = 0.2  # how often a page waiting for cells yields to Streamlit (where a left or rerun session stops)
GRID_SECONDS = 600  # the longest one view (a sweep, a report table) computes: then it stops with a warning


def run_spec(method: Method, eps_c: float) -> tuple[dict, bool]:
    """The spec a method runs at eps_c (as a dict) and whether it is the central baseline: the key of its run."""
    spec = ProtocolSpec(eps_c=float(eps_c), delta=method.spec.delta) if method.central else method.at(float(eps_c))
    return spec.as_dict(), method.central


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


@cached("results")
def _slim_cell_of(
    input_key: str, _hist: Histogram, spec: dict, central: bool, seed: int, postprocess: str | None
) -> Cell:
    return without_estimate(cell_of(input_key, _hist, spec, central, seed, postprocess))


def slim_cell(inp: Input, method: Method, eps_c: float, seed: int) -> Cell:
    """cell() without its estimate (metrics, privacy, plan: what a sweep keeps), cached on its own in the small
    results cache, so that a repeat of a sweep larger than the runs cache is served without running it again."""
    slim = _slim_cell_of(inp.key, inp.hist, *run_spec(method, eps_c), int(seed), method.postprocess)
    return replace(slim, method=method.label)


def grid(inp: Input, methods, eps_cs, seed: int, label: str, png_width: int | None = None) -> list[Cell]:
    """Every method at every eps_c as slim_cell()s, cached per cell, with a progress bar naming the cell being
    waited for (get a cell's estimate with cell() or cell_png()). png_width: also make each cell's picture
    (cell_png) right after its run, while its estimate is certainly in the runs cache (a grid larger than that
    cache would otherwise simulate the cells it evicted a second time to draw them).

    The cells are independent runs: WORKERS threads compute them into the shared caches in the grid's order
    (the caches run each once, whichever session asks first), while the page waits for them in that order,
    yielding to Streamlit every POLL_SECONDS: a session that left or reran stops there, and then its cells not
    yet started are never started and the running ones stop at their next checkpoint (ldpcore.errors).
    A grid that takes longer than GRID_SECONDS stops with a warning (the cells done are kept)."""
    bar = st.progress(0.0, text=label)
    total = len(methods) * len(eps_cs)
    stop = threading.Event()

    def ahead(m: Method, e: float) -> Cell:
        with stop_when(stop.is_set):
            checkpoint()  # a cell not started before its page left is never started
            if png_width is not None:
                cell_png(inp, m, e, seed, max_width=png_width)  # runs the cell first (an undefined one has none)
            return slim_cell(inp, m, e, seed)

    pool = ThreadPoolExecutor(WORKERS)
    futures = {(id(m), e): pool.submit(ahead, m, e) for e in eps_cs for m in methods}
    start, done = time.monotonic(), 0

    def one(m: Method, e: float, _h, s: int) -> Cell:
        nonlocal done
        text = f"{label}: {m.label} at eps_c = {e:.3g} ({done + 1} of {total})"
        while True:
            bar.progress(done / total, text=text)  # a yield to Streamlit: a session that left or reran stops here
            try:
                found = futures[(id(m), e)].result(timeout=POLL_SECONDS)
                break
            except FuturesTimeout:
                if time.monotonic() - start > GRID_SECONDS:
                    stop.set()
                    st.warning(
                        f"{label} stopped after {GRID_SECONDS} s, the most one view computes ({done} of {total} "
                        "cells done, kept for the next view): choose fewer points or encodings, or a smaller "
                        "max side."
                    )
                    st.stop()
        done += 1
        return replace(found, method=m.label)

    try:
        cells = sweep(methods, eps_cs, inp.hist, seed, evaluate_cell=one)
    finally:
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
    bar.empty()
    return cells
