"""Cached calls into ldpcore's empirical audits (ldpcore.experiment.audit) for the Adversary page, keyed on the
data's key, the spec, the observer, the trials, the confidence and the seed; a progress bar while an audit runs."""

from __future__ import annotations

import numpy as np
import streamlit as st

from ldpcore.data.loaders import Histogram
from ldpcore.errors import InputError
from ldpcore.experiment.audit import AuditReport, Demonstration, demonstrate, run_audit
from ldpcore.experiment.spec import ProtocolSpec, plan
from ui.cache import cached


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


def audit(inp, spec: ProtocolSpec, observer: str, trials: int, confidence: float, seed: int) -> AuditReport | str:
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


def demonstration(inp, spec: ProtocolSpec, draw: int) -> Demonstration | str:
    """One respondent drawn from the data with seed `draw`: their report and each observer's guess, cached."""
    try:
        return _demonstration(inp.key, inp.hist, spec.as_dict(), int(draw))
    except InputError as exc:
        return str(exc)
