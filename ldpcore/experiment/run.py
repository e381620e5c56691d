"""Moved to ldpcore.experiment.protocol.run: this path re-exports it while the rest of the code base still
imports it here (to be removed once nothing does)."""

from ldpcore.experiment.protocol.run import (
    Cell,
    CentralResult,
    Failed,
    Measured,
    Method,
    Result,
    analytic,
    evaluate,
    method_label,
    paper_methods,
    respondents,
    run,
    run_central,
    sweep,
    without_estimate,
)

__all__ = [
    "Cell",
    "CentralResult",
    "Failed",
    "Measured",
    "Method",
    "Result",
    "analytic",
    "evaluate",
    "method_label",
    "paper_methods",
    "respondents",
    "run",
    "run_central",
    "sweep",
    "without_estimate",
]
