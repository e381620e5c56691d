"""The JSON record of every dashboard view that computes: what its page offers as a JSON download and what the
view's script and notebook print (ldpcore.export.reproduce). Each is made by one function here from the same
typed results, so a page and its script are compared number by number; to_json writes it (NaN and infinities
as null).

Arrays become lists; a cell of a sweep or report table becomes cell_record; every other result its as_dict or
its fields by name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ldpcore.experiment.protocol.run import Failed
from ldpcore.export.estimates import std_errors, uncertainty
from ldpcore.export.table import TableInfo, table_rows

if TYPE_CHECKING:  # types only: a page or the command line imports this module without the systems it records
    from ldpcore.data.histogram import Histogram
    from ldpcore.data.ingest import IngestReport
    from ldpcore.experiment.audit import AuditReport, Demonstration
    from ldpcore.experiment.protocol.run import Cell, CentralResult, Measured, Method, Result
    from ldpcore.experiment.protocol.spec import ProtocolSpec
    from ldpcore.privacy.bounds import Amplification
    from ldpcore.systems.crowds import Deletion, DeletionGuarantees, SplitComparison
    from ldpcore.systems.longitudinal import ShuffledCentral, Tracking, TreeProtocol
    from ldpcore.systems.numeric import NumericTable
    from ldpcore.systems.numeric.analysis import MechanismComparison, TableEstimate
    from ldpcore.systems.sgd import Dataset, SGDConfig, TrainResult


def _list(x) -> list:
    return np.asarray(x).tolist()


def _ran(cell: Cell) -> Measured:
    if isinstance(cell, Failed):
        raise ValueError(f"{cell.method} at eps_c = {cell.eps_c:g} did not run: {cell.reason}")
    return cell


def cell_record(cell: Cell) -> dict:
    """One cell of a sweep or a report table: its method and eps_c, then the reason it is not defined
    (error) or its privacy record and error metrics (the estimate left out)."""
    head = {"method": cell.method, "eps_c": cell.eps_c}
    if isinstance(cell, Failed):
        return {**head, "error": cell.reason}
    return {**head, **cell.privacy, **cell.metrics}


def reconstruct_record(
    hist: Histogram, spec: ProtocolSpec, seed: int, esa: Cell, central: Cell, alone: Cell, post: Cell | None = None
) -> dict:
    """Reconstruct's run record (run.json): the ESA run's privacy numbers and metrics, the data's name, the
    seed and the spec, the central Gaussian baseline and the run without a shuffler (None where undefined),
    and the summary of the estimate's per-bin standard errors (ldpcore.export.uncertainty); post: the ESA run
    after the page's post-processing, whose method and metrics go under "postprocess" (as `ldpcore run
    --postprocess` writes them)."""
    ran, base = _ran(esa), _ran(central)
    assert ran.estimate is not None, "the record needs the ESA run's estimate"
    shown = _ran(post) if post is not None else None
    return {
        **ran.privacy,
        **ran.metrics,
        **({} if shown is None else {"postprocess": {"method": shown.postprocess, **shown.metrics}}),
        "input": hist.name,
        "seed": seed,
        "spec": spec.as_dict(),
        "central": {**base.privacy, **base.metrics},
        "without_shuffler": None if isinstance(alone, Failed) else {**alone.privacy, **alone.metrics},
        "uncertainty": uncertainty(std_errors(hist, ran.estimate, ran.plan)),
    }


def _method_record(m: Method) -> dict:
    """A column: its label, whether it is the central baseline, its spec and its post-processing (where any)."""
    head = {"label": m.label, "central": m.central, "spec": m.spec.as_dict()}
    return head if m.postprocess is None else {**head, "postprocess": m.postprocess}


def tradeoffs_record(
    hist: Histogram,
    seed: int,
    notion: str,
    methods: Sequence[Method],
    measured: Sequence[Cell],
    eps_fine: Sequence[float] | np.ndarray,
    curves: Mapping[str, Sequence[dict | None]],
    eps_c: float,
    at: Mapping[str, dict | None],
) -> dict:
    """Trade-offs: every measured cell (in the methods' native notions; the columns after a post-processing among
    them), the analytic curves of every column without one on the fine grid of eps_c and the analytic values at
    the chosen eps_c (the page's table), in `notion` (each restated value with its native one beside it)."""
    return {
        "input": hist.name,
        "seed": seed,
        "notion": notion,
        "eps_c": eps_c,
        "methods": [_method_record(m) for m in methods],
        "measured": [cell_record(c) for c in measured],
        "analytic": {"eps_c": _list(eps_fine), "curves": {k: list(v) for k, v in curves.items()}},
        "at_eps_c": dict(at),
    }


def report_table_record(info: TableInfo, notion: str, cells: Sequence[Cell]) -> dict:
    """The report table: its title, the notion of its cells, every cell as displayed (table_rows: the CSV
    export's strings) and with its numbers in full (cell_record)."""
    return {
        "title": info.title(),
        "notion": notion,
        "rows": table_rows(cells),
        "cells": [cell_record(c) for c in cells],
    }


def adversary_record(report: AuditReport, draw: int, demonstration: Demonstration | None) -> dict:
    """What an adversary learns: the audit (AuditReport.as_dict: every observer's lower and certified bounds,
    curves and the guessing risk) and the respondent of the draw followed through the protocol."""
    return {
        "audit": report.as_dict(),
        "draw": draw,
        "demonstration": None if demonstration is None else demonstration.as_dict(),
    }


def accountant_record(
    n: int,
    delta: float,
    k: int,
    given: str,
    value: float,
    rounds: int,
    notion: str,
    rows: Sequence[Amplification],
    eps0_grid: Sequence[float],
    eps_c_curves: Mapping,
    target: float,
    n_grid: Sequence[int],
    eps0_curves: Mapping,
) -> dict:
    """The Accountant page: every bound at the inputs (given "eps_c" or "eps0" = value; over `rounds`
    collections, eps_c the total; in `notion`), eps_c against eps0 at n, and the largest eps0 for eps_c = target
    against n (one collection, each bound's own notion; NaN where a bound gives nothing)."""
    return {
        "n": n,
        "delta": delta,
        "k": k,
        "given": given,
        "value": value,
        "rounds": rounds,
        "notion": notion,
        "bounds": [a.as_dict() for a in rows],
        "eps_c_against_eps0": {"eps0": _list(eps0_grid), "curves": {k: _list(v) for k, v in eps_c_curves.items()}},
        "eps0_against_n": {
            "eps_c": target,
            "n": _list(n_grid),
            "curves": {k: _list(v) for k, v in eps0_curves.items()},
        },
    }


def multimessage_record(
    eps: float,
    delta: float,
    d: int,
    shape: str,
    n_grid: Sequence[int],
    curves: Mapping[str, Mapping],
    n: int,
    eps_l: float,
    shufflers: int,
    fakes: int,
    colluding: int,
    rows: Sequence[dict],
) -> dict:
    """Multi-message: each protocol's error, messages and bits against n (ldpcore.systems.multiparty.
    error_against_n), and who can see what at n respondents (threat_table's inputs and rows)."""
    return {
        "eps_c": eps,
        "delta": delta,
        "d": d,
        "shape": shape,
        "n_grid": _list(n_grid),
        "curves": {name: {k: _list(v) for k, v in c.items()} for name, c in curves.items()},
        "who_can_see_what": {
            "n": n,
            "eps_l": eps_l,
            "shufflers": shufflers,
            "fakes_per_shuffler": fakes,
            "colluding": colluding,
            "rows": list(rows),
        },
    }


def numeric_record(
    table: NumericTable,
    seed: int,
    est: TableEstimate,
    eps_grid: Sequence[float],
    compared: Sequence[MechanismComparison],
    central: Amplification,
) -> dict:
    """Numeric: the collection (every estimate with its truth and analytic std, the measured and analytic
    MSE), every mechanism's analytic MSE on the grid of eps, and the central guarantee when shuffled."""
    return {
        "input": table.name,
        "n": table.n,
        "d": table.d,
        "seed": seed,
        "mechanism": est.mechanism,
        "eps": est.eps,
        "budget": est.budget,
        "numeric_mse": est.numeric_mse,
        "frequency_mse": est.frequency_mse,
        "estimates": est.rows(),
        "comparison": [
            {"eps": c.eps, "numeric": c.numeric, "categorical": c.categorical, "best": c.best} for c in compared
        ],
        "eps_grid": _list(eps_grid),
        "shuffled": central.as_dict(),
    }


def longitudinal_record(
    protocol: TreeProtocol, n: int, seed: int, run: Tracking, central: ShuffledCentral, data: Mapping[str, float]
) -> dict:
    """Longitudinal: the protocol's numbers, the data it tracked (data: initial share and change rate), the
    central guarantee of the shuffled batches and the running counts with their exact std."""
    return {
        "n": n,
        "periods": protocol.d,
        "k": protocol.k,
        "eps": protocol.eps,
        "mode": protocol.mode,
        "seed": seed,
        **dict(data),
        "a": protocol.a,
        "levels": protocol.levels,
        "expected_messages": protocol.expected_messages(),
        "max_messages": protocol.max_messages(),
        "shuffled": {
            "eps_c": central.eps_c,
            "delta": central.delta,
            "batch_n": central.batch_n,
            "bound": central.bound,
            "neighbouring": central.neighbouring,
            "valid": central.valid,
            "reason": central.reason,
        },
        "rmse": run.rmse,
        "analytic_rmse": run.analytic_rmse,
        "truth": _list(run.truth),
        "estimate": _list(run.estimate),
        "std": _list(run.std),
    }


def _training(r: TrainResult) -> dict:
    return {
        "iterations": r.iterations,
        "batches_per_epoch": r.batches_per_epoch,
        "batch_size": r.batch_size,
        "final_accuracy": r.final_accuracy,
        "curve_iterations": _list(r.curve_x),
        "test_accuracy": _list(r.test_accuracy),
        "epoch_test_accuracy": _list(r.epoch_test_accuracy),
        "epoch_test_loss": _list(r.epoch_test_loss),
        "epoch_train_loss": _list(r.epoch_train_loss),
        "warning": r.warning,
    }


def sgd_record(data: Dataset, seed: int, config: SGDConfig, result: TrainResult, baseline: TrainResult) -> dict:
    """LDP-SGD: the data, the (calibrated) configuration, the accounting, and both trainings (private and
    the non-private baseline) epoch by epoch."""
    return {
        "data": data.description,
        "seed": seed,
        "bayes_accuracy": data.reference_accuracy,
        "config": config.as_dict(),
        "accounting": None if result.accounting is None else result.accounting.as_dict(),
        "private": _training(result),
        "baseline": _training(baseline),
    }


def crowds_record(
    sizes: np.ndarray,
    seed: int,
    guarantees: DeletionGuarantees,
    deletion: Deletion,
    alone: np.ndarray,
    pooled: float,
    split: SplitComparison,
) -> dict:
    """Crowd IDs: Algorithm 3's guarantees and this run's drops, the std of a count within each natural crowd
    against the whole data set, and the data-derived crowd ID's split against not splitting."""
    ratios = split.ratios
    return {
        "sizes": _list(sizes),
        "seed": seed,
        "eps_cr": guarantees.eps_cr,
        "delta_cr": guarantees.delta_cr,
        "bound": guarantees.bound,
        "expected_drops": _list(guarantees.expected_drops),
        "p_abort": guarantees.p_abort,
        "p_run_abort": guarantees.p_run_abort,
        "p_exceed": guarantees.p_exceed,
        "noisy_sizes": _list(deletion.n_hat),
        "dropped": _list(deletion.dropped),
        "aborted": deletion.aborted,
        "std_within_crowd": _list(alone),
        "std_whole": pooled,
        "eps_l": split.eps_l,
        "eps_hat": _list(split.eps_hat),
        "std_without_split": split.whole,
        "best_ratio": split.best_ratio,
        "ratio_best_value": _list(ratios.min(axis=1)),
        "ratio_median": _list(np.median(ratios, axis=1)),
    }


def run_std_errors(result: Result) -> np.ndarray | None:
    """A run's per-bin standard errors (ldpcore.export.std_errors), or None where its estimate is post-processed:
    a post-processed estimate has no analytic interval (the CSV leaves them empty and the record says why)."""
    if result.postprocessed is not None:
        return None
    return std_errors(result.histogram, result.estimate, result.plan)


def run_command_record(
    result: Result, central: CentralResult, report: IngestReport | None = None, seconds=None
) -> dict:
    """`ldpcore run --json`'s record: the run (Result.as_dict, with the estimate's uncertainty), the central
    Gaussian baseline at the run's (eps_c, delta) and, for raw records or points, what was read and kept
    (report). seconds: the command's timing, in the run's place (None: left out, as a script prints it)."""
    record = result.as_dict()
    if seconds is None:
        del record["seconds"]
    else:
        record["seconds"] = seconds
    record["uncertainty"] = uncertainty(run_std_errors(result))
    record["central"] = {
        "mechanism": "analytic Gaussian",
        "sigma": central.sigma,
        "std_error": central.sigma,  # every bin's, as for uncertainty above
        **central.metrics,
    }
    if report is not None:
        record["ingest"] = dataclasses.asdict(report)
    return record
