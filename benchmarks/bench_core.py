"""Benchmark of the core at the paper's Map scale (Erlingsson et al. 2020, Table II).

Medians and ratios against baselines timed in the same process:
  - full run (simulate, estimate, metrics) vs drawing the 2d binomials alone;
  - report fragments tau = 256 vs tau = 1 (the aggregate sampler is O(d) for any tau);
  - the exact aggregate sampler vs the per-respondent randomizer on a small case.
Goals: benchmarks/goals.toml.
Usage: python benchmarks/bench_core.py [--repeats R] [--json]
"""

import sys

import numpy as np
from _common import Bench  # first: it puts the repository on sys.path

from ldpcore.data.datasets import load_dataset
from ldpcore.experiment.protocol.run import run
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan

ROWS = ("binomials", "full-run", "fragments-tau1", "fragments-tau256", "per-respondent", "aggregate-small")


def main() -> int:
    bench = Bench(__file__, ROWS, __doc__, repeats=7)
    r = bench.parse().repeats

    hist = load_dataset("map")
    bench.note(f"Map look-alike: d = {hist.d:,} bins, n = {hist.n:,} respondents, {r} repeats each")
    spec = ProtocolSpec(eps_c=1.0, delta=5e-10)
    p = plan(spec, hist.n, hist.d).p_b
    counts, n, rng = hist.counts, hist.n, np.random.default_rng(0)

    base, _ = bench.time(
        "binomials", "baseline: 2d binomials alone", lambda: rng.binomial(counts, 1 - p) + rng.binomial(n - counts, p)
    )
    bench.time("full-run", "full run, attribute fragments", lambda: run(spec, hist, seed=1), baseline=base)

    tau1, _ = bench.time(
        "fragments-tau1",
        "full run, report fragments tau = 1",
        lambda: run(ProtocolSpec(eps_c=1.0, delta=5e-10, tau=1), hist, seed=1),
    )
    bench.time(
        "fragments-tau256",
        "full run, report fragments tau = 256",
        lambda: run(ProtocolSpec(eps_c=1.0, delta=5e-10, tau=256), hist, seed=1),
        baseline=tau1,
    )

    small = load_dataset("horse", max_side=32)
    small_spec = ProtocolSpec(eps_c=1.0, delta=1e-6)
    bench.note(f"small case (horse at 32 px: d = {small.d:,}, n = {small.n:,}):")
    slow, _ = bench.time(
        "per-respondent",
        "  per-respondent randomizer",
        lambda: run(small_spec, small, seed=1, per_respondent=True),
        repeats=max(3, r // 2),
    )
    bench.time("aggregate-small", "  exact aggregate sampler", lambda: run(small_spec, small, seed=1), baseline=slow)
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
