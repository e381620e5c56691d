"""Benchmark of the sketch oracles: one exact aggregate simulation and one estimate.

Rows: the median wall time (and CPU time over all threads, which a busy machine does not
inflate) of sample_aggregate and of estimate for the Apple CMS
(k=1024, m=65,536) at the Horse scale (d=87,680, n~1.9M) and at the heavy-hitter scale of
Erlingsson et al. 2020, Table I (d=1,778,120, n=203,950,512), plus the other sketches at the Horse scale.
Then the CMS on a Zipf(1.1) histogram (d=5,000, n=1e7, the browser benchmark's upload) drawing the whole
k x m table and only the k d cells its estimator reads (the default for d <= m/8; its ratio to the table).
Then one huge count, the histogram
[2^40, 5, 0], run end to end (run(): plan, simulation, estimate, metrics) with HCMS, the count
sketch and Hadamard response at their defaults, each in a fresh subprocess: median wall and CPU
seconds of run() (after a run on [50, 5, 0] has made the encoding's first-use imports) and the subprocess's
peak RSS. Goals: benchmarks/goals.toml.
Usage: python benchmarks/bench_sketches.py [--repeats R] [--eps E] [--skip-heavy] [--huge-only] [--json]
"""

import json
import subprocess
import sys

import numpy as np
from _common import ROOT, Bench, Row, median_seconds  # first: it puts the repository on sys.path

from ldpcore.data.datasets import load_dataset
from ldpcore.experiment.protocol.metrics import error_metrics
from ldpcore.oracles.sketches import CountMeanSketch, CountSketch, FragmentedSketch, HadamardCountMeanSketch

ROWS = ("simulate", "estimate", "simulate-heavy", "estimate-heavy", "huge-run", "huge-peak")
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


def sketch_rows(bench: Bench, name, sketch, counts, heavy=False, table=False, baseline: Row | None = None) -> Row:
    """Rows for one sketch's simulation and estimate on counts; the simulation's row."""
    rng = np.random.default_rng(0)
    label = f"{name} d={counts.size:,} n={int(counts.sum()):,}"
    suffix = "-heavy" if heavy else ""
    sim, agg = bench.time(
        f"simulate{suffix}",
        f"{label}: simulate",
        lambda: sketch.sample_aggregate(counts, rng, table=table),
        baseline=baseline,
    )
    wall, cpu, estimate = median_seconds(lambda: sketch.estimate(agg, int(counts.sum())), bench.repeats)
    rmse = error_metrics(counts, estimate, counts.max())["rmse_raw"]
    bench.record(f"estimate{suffix}", f"{label}: estimate", wall, cpu=cpu, repeats=bench.repeats, notes={"rmse": rmse})
    return sim


def bench_huge(bench: Bench, encoding: str) -> None:
    """run() on [2^40, 5, 0] in fresh subprocesses: median wall and CPU seconds, largest peak RSS."""
    root, repeats = str(ROOT), bench.repeats
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
    label = f"[2^40, 5, 0] {encoding}"
    bench.record("huge-run", f"{label}: run", wall, cpu=cpu, repeats=repeats, notes={"eps_l": runs[0]["eps_l"]})
    bench.record("huge-peak", f"{label}: peak RSS", max(r["rss_mb"] for r in runs), unit="MB")


def main() -> int:
    bench = Bench(__file__, ROWS, __doc__, repeats=3, width=64)
    bench.parser.add_argument("--eps", type=float, default=8.55, help="local eps (Horse eps_c=1 in the paper)")
    bench.parser.add_argument("--skip-heavy", action="store_true")
    bench.parser.add_argument("--huge-only", action="store_true", help="only the [2^40, 5, 0] runs")
    args = bench.parse()
    if not args.huge_only:
        bench.note(f"median of {args.repeats} runs, k=1024, m=65,536, eps_l={args.eps}")
        horse = load_dataset("horse").counts
        for cls in (CountMeanSketch, FragmentedSketch, HadamardCountMeanSketch, CountSketch):
            sketch_rows(bench, f"{cls.__name__} (Horse)", cls.from_eps(args.eps, horse.size), horse)
        weights = 1.0 / np.arange(1, 5_001) ** 1.1  # as bench_browser.zipf_csv
        zipf = np.floor(weights / weights.sum() * 10_000_000).astype(np.int64)
        zipf[0] += 10_000_000 - zipf.sum()
        cms = CountMeanSketch.from_eps(args.eps, zipf.size)
        whole = sketch_rows(bench, "CountMeanSketch (Zipf, table)", cms, zipf, table=True)
        sketch_rows(bench, "CountMeanSketch (Zipf, read cells)", cms, zipf, baseline=whole)
        if not args.skip_heavy:
            heavy = load_dataset("heavy-hitters").counts
            cms = CountMeanSketch.from_eps(args.eps, heavy.size)
            sketch_rows(bench, "CountMeanSketch (heavy hitters)", cms, heavy, heavy=True)
    for encoding in ("hcms", "count-sketch", "hadamard"):
        bench_huge(bench, encoding)
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
