"""Cached calls into ldpcore, keyed on what determines the result: the data's key, the spec that
runs (the central baseline: only eps_c and delta) and the seed; never a method's label or anything
else that differs between sessions, so that sessions looking at the same view share one result.

Results live in ui.cache's shared caches (runs: the full estimates; images: PNGs at display
resolution, at most DISPLAY_WIDTH pixels wide; results: analytic curves).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import streamlit as st
from PIL import Image

from ldpcore import export
from ldpcore.data.loaders import Histogram
from ldpcore.errors import InputError
from ldpcore.experiment.compare import cells_on_notion
from ldpcore.experiment.run import Cell, Method, analytic, evaluate, sweep, without_estimate
from ldpcore.experiment.spec import ProtocolSpec, plan
from ldpcore.export import error_map, png_bytes, render
from ui.cache import cached

DISPLAY_WIDTH = 800  # px: the widest image sent for display (a column of the wide layout is narrower)
FAST = 1  # PNG compression level of displayed images (downloads keep the default)
WORKERS = 2  # a grid's cells run at once: numpy releases the GIL while drawing, so two cores fill it together


def _runs(method: Method, eps_c: float) -> tuple[dict, bool]:
    """The spec a method runs at eps_c (as a dict) and whether it is the central baseline."""
    spec = ProtocolSpec(eps_c=float(eps_c), delta=method.spec.delta) if method.central else method.at(float(eps_c))
    return spec.as_dict(), method.central


@cached("runs")
def _cell(input_key: str, _hist: Histogram, spec: dict, central: bool, seed: int) -> Cell:
    return evaluate(Method("", ProtocolSpec(**spec), central), spec["eps_c"], _hist, seed)


def cell(inp, method: Method, eps_c: float, seed: int) -> Cell:
    """One cached evaluation of method at eps_c on the input, labelled with the method's label."""
    return replace(_cell(inp.key, inp.hist, *_runs(method, eps_c), int(seed)), method=method.label)


def _fit(img: Image.Image, max_width: int) -> Image.Image:
    """img at most max_width pixels wide (box-averaged), the aspect ratio kept."""
    if img.width <= max_width:
        return img
    return img.resize((max_width, max(1, round(img.height * max_width / img.width))), Image.Resampling.BOX)


@cached("images")
def _cell_png(input_key: str, _hist: Histogram, spec: dict, central: bool, seed: int, max_width: int) -> bytes | None:
    c = _cell(input_key, _hist, spec, central, seed)
    return None if c.error is not None else png_bytes(_fit(render(_hist, c.estimate), max_width), FAST)


def cell_png(inp, method: Method, eps_c: float, seed: int, max_width: int = DISPLAY_WIDTH) -> bytes | None:
    """The reconstruction of cell(...) as a PNG on the input's scale, at most max_width pixels wide (None where
    undefined), made once (st.image would otherwise downscale a wide image on every rerun)."""
    return _cell_png(inp.key, inp.hist, *_runs(method, eps_c), int(seed), int(max_width))


def full_png(inp, method: Method, eps_c: float, seed: int) -> bytes:
    """The reconstruction at the input's own resolution (for a download: made when it is asked for)."""
    return png_bytes(render(inp.hist, cell(inp, method, eps_c, seed).estimate))


def _std_errors(inp, c: Cell):
    return export.std_errors(inp.hist, c.estimate, c.plan, (c.privacy or {}).get("sigma"))


def estimate_csv(inp, method: Method, eps_c: float, seed: int) -> str:
    """The estimate of cell(...) as CSV with every bin's standard error and 95% interval
    (ldpcore.export.estimate_csv), made when it is asked for."""
    c = cell(inp, method, eps_c, seed)
    return export.estimate_csv(inp.hist, c.estimate, _std_errors(inp, c))


def record_json(inp, method: Method, eps_c: float, seed: int, record: dict) -> str:
    """The page's run record as JSON with the summary of cell(...)'s per-bin intervals (ldpcore.export.
    uncertainty, as `ldpcore run --out` writes it), made when it is asked for."""
    c = cell(inp, method, eps_c, seed)
    return export.to_json({**record, "uncertainty": export.uncertainty(_std_errors(inp, c))})


@cached("images")
def _error_png(input_key: str, _hist: Histogram, spec: dict, central: bool, seed: int, max_width: int) -> bytes:
    return png_bytes(_fit(error_map(_hist, _cell(input_key, _hist, spec, central, seed).estimate), max_width), FAST)


def error_png(inp, method: Method, eps_c: float, seed: int, max_width: int = DISPLAY_WIDTH) -> bytes:
    """The signed error map of cell(...) (ldpcore.export.error_map) at display resolution."""
    return _error_png(inp.key, inp.hist, *_runs(method, eps_c), int(seed), int(max_width))


@cached("results")
def _curve(input_key: str, _hist: Histogram, spec: dict, central: bool, eps_grid: tuple) -> list[dict | None]:
    method = Method("", ProtocolSpec(**spec), central)
    return [analytic(method, e, _hist) for e in eps_grid]


def curve(inp, method: Method, eps_grid) -> list[dict | None]:
    """The analytic curves of method at every eps_c of eps_grid (ldpcore.experiment.analytic), cached."""
    grid = tuple(float(e) for e in eps_grid)
    return _curve(inp.key, inp.hist, *_runs(method, grid[0]), grid)


@cached("results")
def _certified(input_key: str, _hist: Histogram, spec: dict) -> float | str:
    try:
        return plan(ProtocolSpec(**spec), _hist.n, _hist.d).eps_c
    except InputError as exc:
        return str(exc)


def certified_eps_c(inp, spec: ProtocolSpec, eps_l: float, accountant: str) -> float | str:
    """The eps_c that accountant certifies for reports at local eps_l on the input (or why it cannot), cached."""
    return _certified(inp.key, inp.hist, replace(spec, eps_c=None, eps_l=float(eps_l), accountant=accountant).as_dict())


@cached("images")
def _original_png(input_key: str, _hist: Histogram, max_width: int) -> bytes:
    return png_bytes(_fit(render(_hist), max_width), FAST)


def original_png(inp, max_width: int = DISPLAY_WIDTH) -> bytes:
    """The input rendered once per data set (it does not change with eps_c), at display resolution."""
    return _original_png(inp.key, inp.hist, int(max_width))


def grid(inp, methods, eps_cs, seed: int, label: str, png_width: int | None = None) -> list[Cell]:
    """Every method at every eps_c, cached per cell, with a progress bar naming the cell being computed; the
    cells' estimates are left out (a sweep's list would otherwise hold all of them at once: get one with
    cell() or cell_png()). png_width: also make each cell's picture (cell_png) right after its run, while its
    estimate is certainly in the runs cache (a grid larger than that cache would otherwise simulate the cells
    it evicted a second time to draw them).

    The cells are independent runs: WORKERS threads compute them into the shared caches in the grid's order
    while the progress bar takes them in that order as they land (the cache runs each once); cells a rerun no
    longer needs are cancelled, a running one finishes into the cache."""
    bar = st.progress(0.0, text=label)
    total = len(methods) * len(eps_cs)
    done = 0

    def ahead(m: Method, e: float) -> None:  # cell_png runs the cell first (an undefined one has no picture)
        if png_width is None:
            cell(inp, m, e, seed)
        else:
            cell_png(inp, m, e, seed, max_width=png_width)

    def one(m: Method, e: float, _h, s: int) -> Cell:
        nonlocal done
        bar.progress(done / total, text=f"{label}: {m.label} at eps_c = {e:.3g} ({done + 1} of {total})")
        done += 1
        ahead(m, e)  # the cell (and its picture) as the pool makes it: whichever comes first, the cache runs it once
        return without_estimate(cell(inp, m, e, s))

    pool = ThreadPoolExecutor(WORKERS)
    try:
        for e in eps_cs:
            for m in methods:
                pool.submit(ahead, m, e)
        cells = sweep(methods, eps_cs, inp.hist, seed, evaluate_cell=one)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    bar.empty()
    return cells


def _table_cells(inp, methods, eps_cs, seed: int, notion: str = "native"):
    """The report table's cells from the cache without their estimates (in `notion`: ldpcore.experiment.compare),
    and a function fetching (or simulating again) one cell's estimate as its picture is drawn."""
    cells = sweep(
        methods, eps_cs, inp.hist, seed, evaluate_cell=lambda m, e, h, s: without_estimate(cell(inp, m, e, s))
    )
    cells = cells_on_notion(cells, notion)
    by_label = {m.label: m for m in methods}
    return cells, lambda c: cell(inp, by_label[c.method], c.eps_c, seed).estimate


def table_png(inp, methods, eps_cs, seed: int, info: export.TableInfo, notion: str = "native") -> bytes:
    """The report table as one PNG with its title (ldpcore.export.table_png), made when it is asked for."""
    cells, estimate_of = _table_cells(inp, methods, eps_cs, seed, notion)
    return export.table_png(cells, inp.hist, estimate_of=estimate_of, info=info)


def table_zip(inp, methods, eps_cs, seed: int, info: export.TableInfo, notion: str = "native") -> bytes:
    """The report table for a paper: LaTeX, images and CSV in one ZIP (ldpcore.export.table_zip)."""
    cells, estimate_of = _table_cells(inp, methods, eps_cs, seed, notion)
    return export.table_zip(cells, inp.hist, info, estimate_of=estimate_of)
