"""Every dashboard view as code: a typed description of a view (a frozen dataclass per page kind, built by the
page from its own state) -> a Python script and a Jupyter notebook that recompute the view with the public
ldpcore API, print its numbers and its record (ldpcore.export.view_records, the page's JSON download) and draw
its charts.

code       Python source as ruff formats it; Program -> script text and notebook JSON
sources    where a view's data come from (a bundled dataset, an upload by its file name, raw records, points)
protocol   Reconstruct and `ldpcore run`
sweeps     Trade-offs and the Report table
planning   Plan (and `ldpcore plan`), the Accountant and the Adversary
systems    Multi-message, Longitudinal and Crowd IDs; systems_learning: Numeric and LDP-SGD
"""

from __future__ import annotations

from typing import Protocol

from ldpcore.export.reproduce.code import RECORD_MARK, Program
from ldpcore.export.reproduce.code import notebook as _notebook
from ldpcore.export.reproduce.code import script as _script
from ldpcore.export.reproduce.planning import AccountantView, AdversaryView, PlanView
from ldpcore.export.reproduce.protocol import ReconstructView, RunCommand
from ldpcore.export.reproduce.sources import Dataset, Points, Records, Sample, Shape, Source, Upload
from ldpcore.export.reproduce.sweeps import ReportTableView, TradeoffsView
from ldpcore.export.reproduce.systems import CrowdsView, LongitudinalView, MultiMessageView
from ldpcore.export.reproduce.systems_learning import NumericView, SGDView, SyntheticTable, TableUpload


class View(Protocol):
    """A view that can be written as code."""

    def program(self) -> Program: ...


def script(view: View) -> str:
    """The view as a Python script (formatted as ruff format writes it)."""
    return _script(view.program())


def notebook(view: View) -> str:
    """The view as a Jupyter notebook (nbformat 4.5 JSON, without outputs)."""
    return _notebook(view.program())


__all__ = [
    "RECORD_MARK",
    "AccountantView",
    "AdversaryView",
    "CrowdsView",
    "Dataset",
    "LongitudinalView",
    "MultiMessageView",
    "NumericView",
    "PlanView",
    "SGDView",
    "SyntheticTable",
    "TableUpload",
    "Points",
    "Records",
    "ReconstructView",
    "ReportTableView",
    "RunCommand",
    "Sample",
    "Shape",
    "Source",
    "TradeoffsView",
    "Upload",
    "View",
    "notebook",
    "script",
]
