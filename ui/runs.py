"""Cached calls into ldpcore: a run is keyed on the data's key, the method and the seed."""
from __future__ import annotations

import streamlit as st

from ldpcore.data import Histogram
from ldpcore.experiment import Cell, Method, evaluate, sweep
from ldpcore.export import png_bytes, render
from ldpcore.protocol import ProtocolSpec


@st.cache_data(max_entries=256, show_spinner=False)
def _cell(input_key: str, _hist: Histogram, label: str, spec: dict, central: bool, eps_c: float, seed: int) -> Cell:
    return evaluate(Method(label, ProtocolSpec(**spec), central), eps_c, _hist, seed)


def cell(inp, method: Method, eps_c: float, seed: int) -> Cell:
    """One cached evaluation of method at eps_c on the input."""
    return _cell(inp.key, inp.hist, method.label, method.spec.as_dict(), method.central, float(eps_c), int(seed))


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
