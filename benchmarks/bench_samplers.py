"""Benchmark of every encoding's exact aggregate sampler at camera scale, against GRR on the same histogram.

The input stands in for a photograph's 512x512 grey image (scikit-image's camera: n = 33.8 M, d = 262,144):
a deterministic scene drawn here with numpy (sky, skyline, ground texture, a dark figure with a tripod),
saved as PNG and read like an upload. For each registered encoding, planned at eps_c = 1 and delta =
5e-8: the median wall and CPU seconds of sample_aggregate and of run() (plan, simulate, estimate,
metrics), with GRR timed in the same repetition (interleaved; a GRR row beside each) and each median's
ratio to GRR's (the CPU ratio as a note). Then Hadamard response's draws alone: the same half_binomial calls
replayed on the arrays it drew for (the bare binomial draws it needs), and the sampler's ratio to them.
Encodings slower than --budget seconds per draw get one repetition. Goals: benchmarks/goals.toml.
Usage: python benchmarks/bench_samplers.py [--repeats R] [--budget S] [--only NAME ...] [--json]
"""

import io
import statistics
import sys
import time

import numpy as np
from _common import Bench, median_seconds  # first: it puts the repository on sys.path
from PIL import Image

from ldpcore.data.histogram import Histogram
from ldpcore.data.loaders import load_upload
from ldpcore.experiment.protocol.run import run
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan
from ldpcore.oracles import ENCODINGS, hadamard

ROWS = ("grr-sampler", "sampler", "sampler-hadamard", "grr-run", "run", "hadamard-draws", "hadamard-sampler")


def camera_like(side: int = 512, seed: int = 0) -> bytes:
    """A grey photograph-like scene as PNG bytes (mean luminance ~ 129, like the camera image)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:side, 0:side] / side
    img = 185 - 75 * y  # sky, brighter at the top
    skyline = 0.55 - 0.08 * (np.floor(x * 9) % 3 == 0) - 0.04 * (np.floor(x * 23) % 4 == 1)
    img = np.where(y > skyline, 128 - 25 * (y - skyline), img)  # buildings
    ground = y > 0.7
    grain = rng.normal(0, 1, (side, side)).cumsum(axis=1) / np.sqrt(side)  # streaks, then smoothed
    img = np.where(ground, 100 + 30 * np.sin(40 * x + 9 * grain) * (1 - y) + 25 * grain, img)
    body = (np.abs(x - 0.42) < 0.07 - 0.04 * (y - 0.35)) & (y > 0.28) & (y < 0.8)  # a coat
    head = (x - 0.42) ** 2 + ((y - 0.21) * 1.2) ** 2 < 0.05**2
    legs = [np.abs(x - (0.6 + k * 0.05 * (y - 0.45) / 0.4)) < 0.006 for k in (-1, 0, 1)]  # a tripod
    tripod = (y > 0.45) & (y < 0.85) & (legs[0] | legs[1] | legs[2])
    camera = (np.abs(x - 0.6) < 0.035) & (np.abs(y - 0.42) < 0.025)
    img = np.where(body | head | tripod | camera, 18 + 12 * y, img)
    kernel = np.ones(3) / 3  # a light blur, as a lens would
    img = np.apply_along_axis(np.convolve, 0, np.apply_along_axis(np.convolve, 1, img, kernel, "same"), kernel, "same")
    out = io.BytesIO()
    Image.fromarray(np.clip(np.rint(img), 0, 255).astype(np.uint8), mode="L").save(out, format="PNG")
    return out.getvalue()


def interleaved(fn, base, repeats: int) -> tuple[float, float, float, float]:
    """Median wall and CPU seconds of fn() and of base(), timed alternately (base first) repeats times."""
    walls: tuple[list[float], list[float]] = ([], [])
    cpus: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for k, f in enumerate((base, fn)):
            start, start_cpu = time.perf_counter(), time.process_time()
            f()
            walls[k].append(time.perf_counter() - start)
            cpus[k].append(time.process_time() - start_cpu)
    w0, w1 = (statistics.median(w) for w in walls)
    c0, c1 = (statistics.median(c) for c in cpus)
    return w1, c1, w0, c0


def draws_alone(oracle, counts: np.ndarray, repeats: int) -> tuple[float, float]:
    """Hadamard response's bare draws: record every half_binomial call of one sample, replay them alone
    (plus the first binomial draw on the counts); median wall and CPU seconds."""
    calls = []
    original = hadamard.half_binomial

    def record(m, rng):
        calls.append(np.array(m))
        return original(m, rng)

    hadamard.half_binomial = record
    try:
        oracle.sample_aggregate(counts, np.random.default_rng(1))
    finally:
        hadamard.half_binomial = original
    rng = np.random.default_rng(2)

    def replay():
        rng.binomial(counts, 2 * oracle.p - 1)
        for m in calls:
            original(m, rng)

    wall, cpu, _ = median_seconds(replay, repeats)
    return wall, cpu


def main() -> int:
    bench = Bench(__file__, ROWS, __doc__, repeats=7, width=48)
    bench.parser.add_argument("--budget", type=float, default=3.0, help="seconds per draw above which one repetition")
    bench.parser.add_argument("--only", nargs="*", default=None, help="encodings to time (default: all)")
    args = bench.parse()

    hist: Histogram = load_upload(camera_like(), "camera-like.png")
    counts = hist.counts
    bench.note(f"camera-like 512x512 PNG: d = {hist.d:,}, n = {hist.n:,}; eps_c = 1, delta = 5e-8")
    spec = {name: ProtocolSpec(eps_c=1.0, delta=5e-8, encoding=name) for name in ENCODINGS}
    grr = plan(spec["grr"], hist.n, hist.d).oracle()
    rng = np.random.default_rng(0)
    grr_draw = lambda: grr.sample_aggregate(counts, rng)  # noqa: E731
    grr_run = lambda: run(spec["grr"], hist, seed=1)  # noqa: E731
    for name in args.only or ENCODINGS:
        p = plan(spec[name], hist.n, hist.d)
        oracle = p.oracle()
        start = time.perf_counter()
        oracle.sample_aggregate(counts, rng)  # first draw: its lazy imports and the repetitions' budget
        reps = args.repeats if time.perf_counter() - start < args.budget else 1
        wall, cpu, base, base_cpu = interleaved(lambda: oracle.sample_aggregate(counts, rng), grr_draw, reps)
        run_reps = max(1, reps // 2)
        run_wall, _, run_base, _ = interleaved(lambda: run(spec[name], hist, seed=1), grr_run, run_reps)
        grr_row = bench.record("grr-sampler", f"{name}: GRR sampler (interleaved)", base, cpu=base_cpu, repeats=reps)
        bench.record(
            "sampler-hadamard" if name == "hadamard" else "sampler",
            f"{name}: sampler",
            wall,
            cpu=cpu,
            repeats=reps,
            baseline=grr_row,
            notes={"eps_l": p.eps_b, "CPU / GRR": cpu / base_cpu},
        )
        grr_row = bench.record("grr-run", f"{name}: GRR run() (interleaved)", run_base, repeats=run_reps)
        bench.record("run", f"{name}: run()", run_wall, repeats=run_reps, baseline=grr_row)
    oracle = plan(spec["hadamard"], hist.n, hist.d).oracle()
    bare, bare_cpu = draws_alone(oracle, counts, args.repeats)
    draws = bench.record(
        "hadamard-draws", "Hadamard: its half_binomial calls replayed", bare, cpu=bare_cpu, repeats=args.repeats
    )
    bench.time("hadamard-sampler", "Hadamard: sampler", lambda: oracle.sample_aggregate(counts, rng), baseline=draws)
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
