"""Cached calls into ldpcore, keyed on what determines the result: the data's key, the spec that
runs (the central baseline: only eps_c and delta) and the seed; never a method's label."""
from __future__ import annotations

from dataclasses import replace

import streamlit as st
from PIL import Image

from ldpcore.data import Histogram
from ldpcore.experiment import Cell, Method, analytic, evaluate, sweep
from ldpcore.export import png_bytes, render
from ldpcore.protocol import ProtocolSpec


def _runs(method: Method, eps_c: float) -> tuple[dict, bool]:
    """The spec a method runs at eps_c (as a dict) and whether it is the central baseline."""
    spec = ProtocolSpec(eps_c=float(eps_c), delta=method.spec.delta) if method.central else method.at(float(eps_c))
    return spec.as_dict(), method.central


@st.cache_data(max_entries=256, show_spinner=False)
def _cell(input_key: str, _hist: Histogram, spec: dict, central: bool, seed: int) -> Cell:
    return evaluate(Method("", ProtocolSpec(**spec), central), spec["eps_c"], _hist, seed)


def cell(inp, method: Method, eps_c: float, seed: int) -> Cell:
    """One cached evaluation of method at eps_c on the input, labelled with the method's label."""
    return replace(_cell(inp.key, inp.hist, *_runs(method, eps_c), int(seed)), method=method.label)


@st.cache_data(max_entries=64, show_spinner=False)
def _cell_png(input_key: str, _hist: Histogram, spec: dict, central: bool, seed: int,
              max_width: int | None) -> bytes | None:
    estimate = _cell(input_key, _hist, spec, central, seed).estimate
    if estimate is None:
        return None
    img = render(_hist, estimate)
    if max_width and img.width > max_width:
        img = img.resize((max_width, max(1, round(img.height * max_width / img.width))), Image.Resampling.BOX)
    return png_bytes(img)


def cell_png(inp, method: Method, eps_c: float, seed: int, max_width: int | None = None) -> bytes | None:
    """The reconstruction of cell(...) as a PNG on the input's scale (None where undefined), encoded once;
    max_width: a thumbnail at most that wide (st.image otherwise downscales a wide image on every rerun)."""
    return _cell_png(inp.key, inp.hist, *_runs(method, eps_c), int(seed), max_width)


@st.cache_data(max_entries=64, show_spinner=False)
def _curve(input_key: str, _hist: Histogram, spec: dict, central: bool, eps_grid: tuple) -> list[dict | None]:
    method = Method("", ProtocolSpec(**spec), central)
    return [analytic(method, e, _hist) for e in eps_grid]


def curve(inp, method: Method, eps_grid) -> list[dict | None]:
    """The analytic curves of method at every eps_c of eps_grid (ldpcore.experiment.analytic), cached."""
    grid = tuple(float(e) for e in eps_grid)
    return _curve(inp.key, inp.hist, *_runs(method, grid[0]), grid)


@st.cache_data(max_entries=8, show_spinner=False)
def _original_png(input_key: str, _hist: Histogram) -> bytes:
    return png_bytes(render(_hist))


def original_png(inp) -> bytes:
    """The input rendered once per data set (it does not change with eps_c)."""
    return _original_png(inp.key, inp.hist)


def grid(inp, methods, eps_cs, seed: int, label: str) -> list[Cell]:
    """Every method at every eps_c, cached per cell, with a progress bar."""
    bar = st.progress(0.0, text=label)
    cells = sweep(methods, eps_cs, inp.hist, seed,
                  progress=lambda done, total: bar.progress(done / total, text=f"{label} {done}/{total}"),
                  evaluate_cell=lambda m, e, h, s: cell(inp, m, e, s))
    bar.empty()
    return cells
