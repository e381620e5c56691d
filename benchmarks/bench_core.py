"""Benchmark of the core at the paper's Map scale (seeds/000 Table II).

Prints medians and ratios against baselines timed in the same process:
  - full run (simulate, estimate, metrics) vs drawing the 2d binomials alone;
  - report fragments tau = 256 vs tau = 1 (the aggregate sampler is O(d) for any tau);
  - the exact aggregate sampler vs the per-respondent randomizer on a small case.
Usage: python benchmarks/bench_core.py [--repeats R]
"""

import argparse

import numpy as np
from _common import median_seconds  # first: it puts the repository on sys.path

from ldpcore.data.datasets import load_dataset
from ldpcore.experiment.protocol.run import run
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan


def wall_seconds(fn, repeats):
    """Median wall seconds of fn() over repeats."""
    return median_seconds(fn, repeats)[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    r = args.repeats

    hist = load_dataset("map")
    print(f"Map look-alike: d = {hist.d:,} bins, n = {hist.n:,} respondents, {r} repeats each")
    spec = ProtocolSpec(eps_c=1.0, delta=5e-10)
    p = plan(spec, hist.n, hist.d).p_b
    counts, n, rng = hist.counts, hist.n, np.random.default_rng(0)

    base = wall_seconds(lambda: rng.binomial(counts, 1 - p) + rng.binomial(n - counts, p), r)
    full = wall_seconds(lambda: run(spec, hist, seed=1), r)
    print(f"baseline: 2d binomials alone          median {base:.3f} s")
    print(
        f"full run, attribute fragments         median {full:.3f} s   ratio {full / base:.2f}x baseline"
        f"   [target <= 1.0 s and <= 3x: {'ok' if full <= 1.0 and full <= 3 * base else 'MISSED'}]"
    )

    tau1 = wall_seconds(lambda: run(ProtocolSpec(eps_c=1.0, delta=5e-10, tau=1), hist, seed=1), r)
    tau256 = wall_seconds(lambda: run(ProtocolSpec(eps_c=1.0, delta=5e-10, tau=256), hist, seed=1), r)
    print(f"full run, report fragments tau = 1    median {tau1:.3f} s")
    print(
        f"full run, report fragments tau = 256  median {tau256:.3f} s   ratio {tau256 / tau1:.2f}x tau = 1"
        f"   [target <= 1.5x: {'ok' if tau256 <= 1.5 * tau1 else 'MISSED'}]"
    )

    small = load_dataset("horse", max_side=32)
    small_spec = ProtocolSpec(eps_c=1.0, delta=1e-6)
    slow = wall_seconds(lambda: run(small_spec, small, seed=1, per_respondent=True), max(3, r // 2))
    fast = wall_seconds(lambda: run(small_spec, small, seed=1), r)
    print(f"small case (horse at 32 px: d = {small.d:,}, n = {small.n:,}):")
    print(f"  per-respondent randomizer           median {slow:.4f} s")
    print(f"  exact aggregate sampler             median {fast:.4f} s   speed-up {slow / fast:.0f}x")


if __name__ == "__main__":
    main()
