"""Benchmark of the sketch oracles: one exact aggregate simulation and one estimate.

Prints the median wall time (and CPU time over all threads, which a busy machine does not
inflate) of sample_aggregate and of estimate for the Apple CMS
(k=1024, m=65,536) at the Horse scale (d=87,680, n~1.9M) and at the heavy-hitter scale of
seeds/000 Table I (d=1,778,120, n=203,950,512), plus the other sketches at the Horse scale,
and flags a heavy-hitter simulation over 10 s.
Usage: python benchmarks/bench_sketches.py [--repeats R] [--eps E] [--skip-heavy]
"""
import argparse

import numpy as np

from _common import median_seconds  # first: it puts the repository on sys.path
from ldpcore.data import load_dataset
from ldpcore.metrics import error_metrics
from ldpcore.oracles.sketches import CountMeanSketch, CountSketch, FragmentedSketch, HadamardCountMeanSketch

LIMIT = 10.0  # seconds for the heavy-hitter simulation


def bench(name, sketch, counts, repeats):
    rng = np.random.default_rng(0)
    sim, sim_cpu, agg = median_seconds(lambda: sketch.sample_aggregate(counts, rng), repeats)
    est, est_cpu, estimate = median_seconds(lambda: sketch.estimate(agg, int(counts.sum())), repeats)
    rmse = error_metrics(counts, estimate, counts.max())["rmse_raw"]
    print(f"{name:32} d={counts.size:>9,} n={int(counts.sum()):>11,}  simulate {sim:6.2f} s "
          f"(cpu {sim_cpu:6.2f})  estimate {est:6.2f} s (cpu {est_cpu:6.2f})  rmse {rmse:9.2f}")
    return sim


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--eps", type=float, default=8.55, help="local eps (Horse eps_c=1 in the paper)")
    parser.add_argument("--skip-heavy", action="store_true")
    args = parser.parse_args()
    print(f"median of {args.repeats} runs, k=1024, m=65,536, eps_l={args.eps}")
    horse = load_dataset("horse").counts
    for cls in (CountMeanSketch, FragmentedSketch, HadamardCountMeanSketch, CountSketch):
        bench(f"{cls.__name__} (Horse)", cls.from_eps(args.eps, horse.size), horse, args.repeats)
    if not args.skip_heavy:
        heavy = load_dataset("heavy-hitters").counts
        sim = bench("CountMeanSketch (heavy hitters)", CountMeanSketch.from_eps(args.eps, heavy.size), heavy,
                    args.repeats)
        if sim > LIMIT:
            print(f"SLOW: the heavy-hitter simulation takes {sim:.1f} s > {LIMIT:.0f} s")


if __name__ == "__main__":
    main()
