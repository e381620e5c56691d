"""Cached runs of the encoding without a shuffler (ldpcore.experiment.local_only), keyed like ui.runs."""

from __future__ import annotations

from ldpcore.data.loaders import Histogram
from ldpcore.experiment.histogram_view import bin_std
from ldpcore.experiment.local_only import without_shuffler
from ldpcore.experiment.run import Cell, Method
from ldpcore.experiment.spec import ProtocolSpec
from ldpcore.export import png_bytes, render
from ui.cache import cached
from ui.runs import DISPLAY_WIDTH, FAST, _fit


@cached("runs")
def _local(input_key: str, _hist: Histogram, spec: dict, seed: int) -> Cell:
    return without_shuffler(Method("", ProtocolSpec(**spec)), spec["eps_c"], _hist, seed)


def local_cell(inp, method: Method, eps_c: float, seed: int) -> Cell:
    """method's encoding without a shuffler at eps_l = eps_c, cached on the data, the spec and the seed."""
    return _local(inp.key, inp.hist, method.at(float(eps_c)).as_dict(), int(seed))


@cached("images")
def _local_png(input_key: str, _hist: Histogram, spec: dict, seed: int, max_width: int) -> bytes | None:
    c = _local(input_key, _hist, spec, seed)
    return None if c.error is not None else png_bytes(_fit(render(_hist, c.estimate), max_width), FAST)


def local_png(inp, method: Method, eps_c: float, seed: int, max_width: int = DISPLAY_WIDTH) -> bytes | None:
    """local_cell's reconstruction as a PNG at display resolution (None where undefined)."""
    return _local_png(inp.key, inp.hist, method.at(float(eps_c)).as_dict(), int(seed), int(max_width))


@cached("results")
def _bin_std(input_key: str, _hist: Histogram, spec: dict):
    return bin_std(ProtocolSpec(**spec), _hist)


def bin_std_of(inp, method: Method, eps_c: float):
    """The analytic std of every bin's raw estimate of method at eps_c (ldpcore.experiment.histogram_view)."""
    return _bin_std(inp.key, inp.hist, method.at(float(eps_c)).as_dict())
