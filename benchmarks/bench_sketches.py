"""Benchmark of the sketch oracles: one exact aggregate simulation and one estimate.

Prints the median wall time (and CPU time over all threads, which a busy machine does not
inflate) of sample_aggregate and of estimate for the Apple CMS
(k=1024, m=65,536) at the Horse scale (d=87,680, n~1.9M) and at the heavy-hitter scale of
Erlingsson et al. 2020, Table I (d=1,778,120, n=203,950,512), plus the other sketches at the Horse scale,
and flags a heavy-hitter simulation over 10 s. Then the CMS on a Zipf(1.1) histogram (d=5,000,
n=1e7, the browser benchmark's upload) drawing the whole k x m table and only the k d cells its
estimator reads (the default for d <= m/8). Then one huge count, the histogram
[2^40, 5, 0], run end to end (run(): plan, simulation, estimate, metrics) with HCMS, the count
sketch and Hadamard response at their defaults, each in a fresh subprocess: median wall and CPU
seconds of run() (after a run on [50, 5, 0] has made the encoding's first-use imports) and the subprocess's
peak RSS, flagged against 2 s and 500 MB.
Usage: python benchmarks/bench_sketches.py [--repeats R] [--eps E] [--skip-heavy] [--huge-only]
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from _common import median_seconds  # first: it puts the repository on sys.path

from ldpcore.data.datasets import load_dataset
from ldpcore.experiment.protocol.metrics import error_metrics
from ldpcore.oracles.sketches import CountMeanSketch, CountSketch, FragmentedSketch, HadamardCountMeanSketch

LIMIT = 10.0  # seconds for the heavy-hitter simulation
HUGE_SECONDS, HUGE_MB = 2.0, 500  # one run of [2^40, 5, 0]
HUGE_RUN = """
import json, sys, time
sys.path.insert(0, {root!r})
import numpy as np
from ldpcore.data.histogram import Histogram
from ldpcore.experiment.protocol.run import run
from ldpcore.experiment.protocol.spec import ProtocolSpec
spec = ProtocolSpec(eps_c=1.0, delta=5e-8, encoding={encoding!r})
run(spec, Histogram(counts=np.array([50, 5, 0]), name="small"), seed=0)  # the encoding's lazy imports, not timed
hist = Histogram(counts=np.array([2**40, 5, 0]), name="huge")
wall, cpu = time.perf_counter(), time.process_time()
result = run(spec, hist, seed={seed})
peak = next(line for line in open("/proc/self/status") if line.startswith("VmHWM"))  # this image's own peak:
print(json.dumps({{"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,  # ru_maxrss would count
                  "rss_mb": int(peak.split()[1]) / 1024, "eps_l": result.plan.eps_b}}))  # the forked parent
"""


def bench(name, sketch, counts, repeats, table=False):
    rng = np.random.default_rng(0)
    sim, sim_cpu, agg = median_seconds(lambda: sketch.sample_aggregate(counts, rng, table=table), repeats)
    est, est_cpu, estimate = median_seconds(lambda: sketch.estimate(agg, int(counts.sum())), repeats)
    rmse = error_metrics(counts, estimate, counts.max())["rmse_raw"]
    print(
        f"{name:32} d={counts.size:>9,} n={int(counts.sum()):>11,}  simulate {sim:6.2f} s "
        f"(cpu {sim_cpu:6.2f})  estimate {est:6.2f} s (cpu {est_cpu:6.2f})  rmse {rmse:9.2f}"
    )
    return sim


def bench_huge(encoding, repeats):
    """run() on [2^40, 5, 0] in fresh subprocesses: median wall and CPU seconds, largest peak RSS."""
    root = str(Path(__file__).resolve().parent.parent)
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", HUGE_RUN.format(root=root, encoding=encoding, seed=s)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        for s in range(repeats)
    ]
    wall, cpu = (float(np.median([r[key] for r in runs])) for key in ("wall", "cpu"))
    rss = max(r["rss_mb"] for r in runs)
    ok = wall <= HUGE_SECONDS and rss <= HUGE_MB
    print(
        f"[2^40, 5, 0] {encoding:13} eps_l={runs[0]['eps_l']:.4g}  run {wall:5.2f} s (cpu {cpu:5.2f})  "
        f"peak RSS {rss:6.0f} MB  [target <= {HUGE_SECONDS:g} s and <= {HUGE_MB} MB: {'ok' if ok else 'MISSED'}]"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--eps", type=float, default=8.55, help="local eps (Horse eps_c=1 in the paper)")
    parser.add_argument("--skip-heavy", action="store_true")
    parser.add_argument("--huge-only", action="store_true", help="only the [2^40, 5, 0] runs")
    args = parser.parse_args()
    if args.huge_only:
        for encoding in ("hcms", "count-sketch", "hadamard"):
            bench_huge(encoding, args.repeats)
        return
    print(f"median of {args.repeats} runs, k=1024, m=65,536, eps_l={args.eps}")
    horse = load_dataset("horse").counts
    for cls in (CountMeanSketch, FragmentedSketch, HadamardCountMeanSketch, CountSketch):
        bench(f"{cls.__name__} (Horse)", cls.from_eps(args.eps, horse.size), horse, args.repeats)
    weights = 1.0 / np.arange(1, 5_001) ** 1.1  # as bench_browser.zipf_csv
    zipf = np.floor(weights / weights.sum() * 10_000_000).astype(np.int64)
    zipf[0] += 10_000_000 - zipf.sum()
    for table in (True, False):
        name = f"CountMeanSketch (Zipf, {'table' if table else 'read cells'})"
        bench(name, CountMeanSketch.from_eps(args.eps, zipf.size), zipf, args.repeats, table)
    if not args.skip_heavy:
        heavy = load_dataset("heavy-hitters").counts
        sim = bench(
            "CountMeanSketch (heavy hitters)", CountMeanSketch.from_eps(args.eps, heavy.size), heavy, args.repeats
        )
        if sim > LIMIT:
            print(f"SLOW: the heavy-hitter simulation takes {sim:.1f} s > {LIMIT:.0f} s")
    for encoding in ("hcms", "count-sketch", "hadamard"):
        bench_huge(encoding, args.repeats)


if __name__ == "__main__":
    main()
