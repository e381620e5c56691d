"""Cached calls into ldpcore for the Numeric, Longitudinal and LDP-SGD pages, keyed on plain values (ui.cache).

Each page's system is imported where it is called, so a page's first view imports only its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import streamlit as st

from ui.cache import cached

if TYPE_CHECKING:
    from ldpcore.systems.longitudinal import Tracking
    from ldpcore.systems.numeric import NumericTable
    from ldpcore.systems.numeric.analysis import MechanismComparison, TableEstimate
    from ldpcore.systems.sgd import Dataset, TrainResult

PROGRESS_STEPS = 50  # progress-bar updates per training run


@cached("results", spinner="Simulating the reports...")
def table_estimate(table_key: str, _table: NumericTable, mechanism: str, eps: float, seed: int) -> TableEstimate:
    """One collection of the table (reports from stream [seed, 1])."""
    from ldpcore.systems.numeric.analysis import estimate_table

    return estimate_table(_table, mechanism, eps, np.random.default_rng([seed, 1]))


@cached("results")
def comparisons(table_key: str, _table: NumericTable, eps_grid: tuple[float, ...]) -> list[MechanismComparison]:
    """Every mechanism's analytic MSE on the table at each eps of the grid."""
    from ldpcore.systems.numeric.analysis import compare_mechanisms

    return [compare_mechanisms(_table, e) for e in eps_grid]


@cached("results", spinner="Simulating the reports...")
def tracking(n: int, d: int, k: int, eps: float, mode: str, initial: float, rate: float, seed: int) -> Tracking:
    """Trajectories, then the protocol's reports, from one stream of the seed (the data do not depend on eps)."""
    from ldpcore.systems.longitudinal import TreeProtocol, synthetic_trajectories

    rng = np.random.default_rng(seed)
    trajectories = synthetic_trajectories(n, d, k, rng, initial=initial, rate=rate)
    return TreeProtocol(d, k, eps, mode).track(trajectories, rng)


@cached("data", spinner="Drawing the data...")
def dataset(n: int, p: int, classes: int, separation: float, seed: int) -> Dataset:
    """Synthetic classification data from stream [seed, 0]."""
    from ldpcore.systems.sgd import make_classification

    return make_classification(n, p, np.random.default_rng([seed, 0]), classes=classes, separation=separation)


@cached("results")
def training(data_key: str, _data: Dataset, config: dict, seed: int) -> TrainResult:
    """One training run (stream [seed, 1]) of SGDConfig(**config), private or a baseline (nonprivate_config), with
    a progress bar while it runs (in the session that computes it)."""
    from ldpcore.systems.sgd import NONPRIVATE_MECHANISMS, SGDConfig, train

    baseline = config["mechanism"] in NONPRIVATE_MECHANISMS
    label = "Training the non-private baseline" if baseline else "Training with LDP reports"
    bar = st.progress(0.0, text=label)

    def progress(done: int, total: int) -> None:
        if done == total or done % max(1, total // PROGRESS_STEPS) == 0:
            bar.progress(done / total, text=f"{label}: iteration {done:,} of {total:,}")

    result = train(_data, SGDConfig(**config), np.random.default_rng([seed, 1]), progress=progress)
    bar.empty()
    return result
