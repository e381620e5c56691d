"""The planner's simulated predictions (docs/plan.md): a post-processed estimate's error has no closed form, so
the planner predicts it by simulating the row with the encoding's exact aggregate sampler (the same draws as a
run: ldpcore.experiment.protocol.run), RUNS runs from seed FIRST_SEED, and states the mean RMSE, its standard
error and a percentile interval of the per-bin errors. A row whose simulation would cost more than BUDGET
random numbers (the encoding's own estimate, ldpcore.oracles.base.simulation_draws), or whose encoding has no
law for the method, gets the reason instead."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldpcore.errors import InputError
from ldpcore.experiment.protocol.postprocess import METHODS, postprocess, why_not
from ldpcore.experiment.protocol.spec import Plan
from ldpcore.oracles.base import simulation_draws, support_law
from ldpcore.oracles.laws import Unsupported

RUNS = 8  # runs per row: the standard error of the mean RMSE is stated beside it
FIRST_SEED = 0  # the runs' seeds are FIRST_SEED, FIRST_SEED + 1, ... (a run on Reconstruct with one of them matches)
BUDGET = 2e8  # random numbers the planner draws for one row's runs (about 2 to 5 s)
INTERVAL_NOTE = (
    "a percentile interval from simulation: the mean over the runs of each run's 2.5th and 97.5th percentiles of "
    "the per-bin errors (post-processed estimate minus truth); a post-processed estimate is biased, so the "
    "normal interval of the raw estimate does not apply to it"
)


@dataclass(frozen=True)
class Simulated:
    """A row's error after post-processing by method, from `runs` simulated runs (seeds first_seed, ...): rmse is
    the mean over the runs of each run's RMSE per bin, std_error that mean's standard error (the runs' standard
    deviation over sqrt(runs)), interval the percentile interval of the per-bin errors (INTERVAL_NOTE)."""

    method: str
    rmse: float
    std_error: float
    runs: int
    first_seed: int
    interval: tuple[float, float]

    @property
    def title(self) -> str:
        return METHODS[self.method].title

    def as_dict(self) -> dict:
        return {
            "method": self.method,
            "rmse": self.rmse,
            "std_error": self.std_error,
            "runs": self.runs,
            "first_seed": self.first_seed,
            "interval": list(self.interval),
            "interval_note": INTERVAL_NOTE,
        }


def simulate_postprocessed(
    p: Plan, counts: np.ndarray, method: str, runs: int = RUNS, first_seed: int = FIRST_SEED
) -> Simulated | Unsupported:
    """The error of the plan's encoding on these counts after post-processing by method (Simulated), or why it is
    not simulated (Unsupported). The cap of clip and simplex is the counts' maximum, as a run's."""
    oracle, n = p.oracle(), int(counts.sum())
    law = support_law(oracle, n)
    reason = why_not(method, law)
    if reason:
        return Unsupported(reason)
    draws = runs * simulation_draws(oracle, counts)
    if draws > BUDGET:
        return Unsupported(
            f"not simulated: {runs} exact runs would draw about {draws:.2g} random numbers, above the planner's "
            f"{BUDGET:.0e} (lower the sketch's k or m, or run the row on Reconstruct)"
        )
    upper, truth = int(counts.max()), counts.astype(np.float64)
    rmse, low, high = np.empty(runs), np.empty(runs), np.empty(runs)
    try:
        for i in range(runs):
            rng = np.random.default_rng(first_seed + i)
            raw = oracle.estimate(oracle.sample_aggregate(counts, rng), n)
            error = postprocess(method, raw, n, upper=upper, law=law) - truth
            rmse[i] = math.sqrt(float(np.mean(np.square(error))))
            low[i], high[i] = np.percentile(error, [2.5, 97.5])
    except InputError as exc:  # the sampler refuses these counts, or ibu does not converge
        return Unsupported(f"not simulated: {exc}")
    std_error = float(rmse.std(ddof=1) / math.sqrt(runs)) if runs > 1 else math.inf
    return Simulated(method, float(rmse.mean()), std_error, runs, first_seed, (float(low.mean()), float(high.mean())))
