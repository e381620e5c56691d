"""The Adversary page's views: cached calls into ldpcore's empirical audits (ldpcore.experiment.audit), keyed
on the data's key, the spec, the observer, the trials, the confidence and the seed, with a progress bar while an
audit runs; and the figures: an attack's trade-off curve against the region its certified (eps, delta) allows,
the lower and upper bounds of every observer side by side, and the guess demonstration on an image."""

from __future__ import annotations

import base64

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ldpcore.data.histogram import Histogram
from ldpcore.errors import InputError
from ldpcore.experiment.audit import AuditReport, Demonstration, ObserverAudit, demonstrate, dp_tradeoff, run_audit
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan
from ui.kit.axes import COLORS
from ui.kit.cache import cached
from ui.kit.inputs import Input

FPR_GRID = np.unique(np.concatenate([np.logspace(-12, 0, 600), np.linspace(0, 1, 201)]))


def _certified_regions(o: ObserverAudit) -> list[tuple[str, float, float]]:
    """(name, eps, delta) of the certified bounds an attack figure shades: the observer's headline bound, then the
    tightest valid one where it is another."""
    upper = o.eps_upper
    shown = [(upper.name, upper.eps, upper.delta)] if upper.valid and upper.eps is not None else []
    valid = [(c.name, c.eps, c.delta) for c in o.certified if c.valid and c.eps is not None]
    tightest = min(valid, key=lambda c: c[1], default=None)
    if tightest is not None and tightest[0] not in [name for name, _, _ in shown]:
        shown.append(tightest)
    return shown


def attack_figure(o: ObserverAudit, log_axes: bool = True) -> go.Figure:
    """False negative against false positive rate: the region the certified (eps, delta) forbids (shaded), the
    exact curve of the audited pair where known, the attack's measured curve and its chosen test."""
    fig = go.Figure()
    delta = o.bound.delta
    for i, (name, eps, eps_delta) in enumerate(_certified_regions(o)):
        fig.add_trace(
            go.Scatter(
                x=FPR_GRID,
                y=dp_tradeoff(eps, eps_delta, FPR_GRID),
                mode="lines",
                fill="tozeroy" if i == 0 else None,
                fillcolor="rgba(214, 39, 40, 0.12)",
                line=dict(color="#d62728", dash=None if i == 0 else "dash"),
                name=f"certified {name}: eps = {eps:.4g}" + (f", delta = {eps_delta:g}" if eps_delta else "")
                + (" (shaded: no test can get here)" if i == 0 else ""),
            )
        )  # fmt: skip
    if o.exact_curve is not None:
        fig.add_trace(
            go.Scatter(
                x=o.exact_curve.fpr,
                y=o.exact_curve.fnr,
                mode="lines",
                line=dict(color=COLORS[2]),
                name=f"exact curve of the audited pair (eps = {o.eps_pair:.4g})"
                if o.eps_pair is not None
                else "exact curve of the audited pair",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=o.curve.fpr,
            y=o.curve.fnr,
            mode="lines+markers",
            marker=dict(size=3),
            line=dict(color=COLORS[0]),
            name=f"the attack, {o.trials:,} trials per hypothesis",
        )
    )
    fpr, fnr = o.best
    fig.add_trace(
        go.Scatter(
            x=[fpr],
            y=[fnr],
            mode="markers",
            marker=dict(size=11, symbol="x", color="black"),
            name=f"chosen test: eps_lower = {o.eps_lower:.4g} at {o.confidence:g} confidence",
        )
    )
    fig.update_layout(
        title=f"{o.observer}: what the attack achieves against what delta = {delta:g} allows",
        xaxis_title="false positive rate (says 'target in' when it is not)",
        yaxis_title="false negative rate",
        height=460,
        margin=dict(l=10, r=10, t=50, b=10),
        legend=dict(orientation="h", yanchor="top", y=-0.18),
    )
    _rate_axes(fig, log_axes)
    return fig


def _rate_axes(fig: go.Figure, log_axes: bool) -> None:
    """Both error rates on log axes down to 10^-7 (where a strong attack's errors are), or linear from 0 to 1."""
    if log_axes:
        fig.update_xaxes(type="log", range=[-7, 0.05], exponentformat="power")
        fig.update_yaxes(type="log", range=[-7, 0.05], exponentformat="power")
    else:
        fig.update_xaxes(range=[0, 1])
        fig.update_yaxes(range=[0, 1])


def bounds_figure(observers: list[ObserverAudit]) -> go.Figure:
    """Per observer, the empirical lower bound beside every certified upper bound (one bar per accountant; the
    ones that do not apply are listed without a bar) and the exact eps of the audited pair where known."""
    fig = go.Figure()
    rows = []
    for o in observers:
        rows.append((o.observer, "attack: empirical lower bound", o.eps_lower, COLORS[1]))
        if o.eps_pair is not None:
            rows.append((o.observer, "exact eps of the audited pair", o.eps_pair, COLORS[2]))
        for c in o.certified:
            if c.valid and c.eps is not None:
                rows.append((o.observer, f"certified: {c.name}", c.eps, COLORS[0]))
    for kind, color in (("attack", COLORS[1]), ("exact", COLORS[2]), ("certified", COLORS[0])):
        mine = [r for r in rows if r[1].startswith(kind)]
        fig.add_trace(
            go.Bar(
                y=[f"{r[0]} · {r[1].split(': ', 1)[-1]}" for r in mine],
                x=[r[2] for r in mine],
                orientation="h",
                marker_color=color,
                name={"attack": "empirical lower bound", "exact": "exact pair", "certified": "certified upper bound"}[
                    kind
                ],
                text=[f"{r[2]:.3g}" for r in mine],
                textposition="outside",
            )
        )
    order = [f"{r[0]} · {r[1].split(': ', 1)[-1]}" for r in rows]
    fig.update_yaxes(categoryorder="array", categoryarray=order[::-1])
    fig.update_layout(
        title="eps: what an attack shows (lower) against what is certified (upper)",
        xaxis_title="eps (nats)",
        height=max(260, 34 * len(rows) + 120),
        margin=dict(l=10, r=40, t=50, b=10),
        legend=dict(orientation="h", yanchor="top", y=-0.12),
        barmode="overlay",
    )
    return fig


def guess_figure(png: bytes, shape: tuple[int, int], marks: list[tuple[str, int, str]]) -> go.Figure:
    """The image (a display-resolution PNG of a height x width input) with marks (label, cell index, symbol):
    the respondent's true pixel and each observer's guess."""
    height, width = shape
    fig = go.Figure()
    source = "data:image/png;base64," + base64.b64encode(png).decode()
    fig.add_layout_image(
        dict(source=source, x=0, y=0, sizex=width, sizey=height, xref="x", yref="y", layer="below", sizing="stretch")
    )
    for i, (label, cell, symbol) in enumerate(marks):
        row, col = divmod(int(cell), width)
        fig.add_trace(
            go.Scatter(
                x=[col + 0.5],
                y=[row + 0.5],
                mode="markers",
                marker=dict(size=16 - 2 * i, symbol=symbol, color=COLORS[(i + 3) % len(COLORS)], line=dict(width=2)),
                name=f"{label}: ({col}, {row})",
            )
        )
    fig.update_xaxes(range=[0, width], showgrid=False, zeroline=False, constrain="domain")
    fig.update_yaxes(range=[height, 0], showgrid=False, zeroline=False, scaleanchor="x")
    fig.update_layout(height=460, margin=dict(l=10, r=10, t=30, b=10), legend=dict(orientation="h"))
    return fig


@cached("results")
def _audit(
    input_key: str, _hist: Histogram, spec: dict, observer: str, trials: int, confidence: float, seed: int, _progress
) -> AuditReport:
    return run_audit(
        ProtocolSpec(**spec),
        _hist,
        observer=observer,
        trials=trials,
        confidence=confidence,
        seed=seed,
        progress=_progress,
    )


def audit(
    inp: Input, spec: ProtocolSpec, observer: str, trials: int, confidence: float, seed: int
) -> AuditReport | str:
    """The audit of the protocol on the input (or the one-sentence reason it cannot run), cached; a progress bar
    counts the observers attacked while it runs."""
    bar = st.progress(0.0, text=f"Attacking: {trials:,} trials per hypothesis and observer...")

    def progress(done: int, total: int) -> None:
        step = "the guessing risk" if done == total else f"observer {done} of {total - 1}"
        bar.progress(done / total, text=f"Attacking: {step} done")

    try:
        return _audit(inp.key, inp.hist, spec.as_dict(), observer, int(trials), float(confidence), int(seed), progress)
    except InputError as exc:
        return str(exc)
    finally:
        bar.empty()


@cached("results", spinner="Following one respondent...")
def _demonstration(input_key: str, _hist: Histogram, spec: dict, draw: int) -> Demonstration:
    p = plan(ProtocolSpec(**spec), _hist.n, _hist.d)
    return demonstrate(p, _hist.counts, np.random.default_rng(draw))


def demonstration(inp: Input, spec: ProtocolSpec, draw: int) -> Demonstration | str:
    """One respondent drawn from the data with seed `draw`: their report and each observer's guess, cached."""
    try:
        return _demonstration(inp.key, inp.hist, spec.as_dict(), int(draw))
    except InputError as exc:
        return str(exc)
