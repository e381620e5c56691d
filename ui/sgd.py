"""The LDP-SGD page's views: the cached synthetic data and training runs (with a progress bar) and the figures of
accuracy and composition (Erlingsson et al. 2020, Section VI; Wang et al., ICDE 2019, Section V)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ldpcore.systems.sgd import NONPRIVATE_MECHANISMS, Dataset, SGDConfig, TrainResult, make_classification, train
from ui.kit.axes import COLORS, TRUTH, line, style
from ui.kit.cache import cached

PROGRESS_STEPS = 50  # progress-bar updates per training run


@cached("data", spinner="Drawing the data...")
def dataset(n: int, p: int, classes: int, separation: float, seed: int) -> Dataset:
    """Synthetic classification data from stream [seed, 0]."""
    return make_classification(n, p, np.random.default_rng([seed, 0]), classes=classes, separation=separation)


@cached("results")
def training(data_key: str, _data: Dataset, config: dict, seed: int) -> TrainResult:
    """One training run (stream [seed, 1]) of SGDConfig(**config), private or a baseline (nonprivate_config), with
    a progress bar while it runs (in the session that computes it)."""
    baseline = config["mechanism"] in NONPRIVATE_MECHANISMS
    label = "Training the non-private baseline" if baseline else "Training with LDP reports"
    bar = st.progress(0.0, text=label)

    def progress(done: int, total: int) -> None:
        if done == total or done % max(1, total // PROGRESS_STEPS) == 0:
            bar.progress(done / total, text=f"{label}: iteration {done:,} of {total:,}")

    result = train(_data, SGDConfig(**config), np.random.default_rng([seed, 1]), progress=progress)
    bar.empty()
    return result


def accuracy_figure(private, baseline, bayes: float, label: str) -> go.Figure:
    """Test accuracy after the iterations of curve_x (0 = the initial model) of two ldpcore.systems.sgd.TrainResult,
    private vs the non-private baseline, epoch ends marked."""
    fig = go.Figure(line(baseline.curve_x, baseline.test_accuracy, "non-private baseline", TRUTH, dash="dash"))
    fig.add_trace(line(private.curve_x, private.test_accuracy, label, COLORS[0]))
    ends = private.epoch_ends
    fig.add_trace(
        go.Scatter(
            x=ends,
            y=private.epoch_test_accuracy,
            mode="markers",
            name="end of an epoch",
            marker=dict(color=COLORS[0], size=8),
        )
    )
    fig.add_hline(y=bayes, line_dash="dot", line_color="gray", annotation_text=f"Bayes rule {bayes:.3f}")
    return style(fig, "Test accuracy per iteration", "iteration", "test accuracy", height=400)


def composition_figure(epochs, basic, advanced, eps_c: float | None) -> go.Figure:
    """Central eps after each epoch: basic and advanced (Theorem II.7) composition of the per-epoch bound."""
    fig = go.Figure(line(epochs, basic, "basic composition", COLORS[0], "lines+markers"))
    fig.add_trace(line(epochs, advanced, "advanced (Theorem II.7)", COLORS[1], "lines+markers"))
    if eps_c is not None:
        fig.add_hline(y=eps_c, line_dash="dot", line_color="gray", annotation_text=f"certified eps_c = {eps_c:.3g}")
    return style(fig, "Central eps after each epoch", "epochs", "eps_c", height=400)
