"""Benchmark of chart exports for a paper (ui.kit.chart_export.image_bytes), as the server makes them.

One process exports a Trade-offs-like chart (six lines on log axes) as PNG, SVG and PDF in turn, --repeats times:
the first export starts the process's kaleido browser, every later one reuses it. Rows: the first export's
seconds, then per format the median of the later ones (their maximum as a note; goals: benchmarks/goals.toml).
Usage: python benchmarks/bench_exports.py [--repeats R] [--json]
"""

import statistics
import sys
import time

import numpy as np
from _common import Bench  # first: it puts the repository (and its ui package) on sys.path

from ui.kit.axes import log_lines
from ui.kit.chart_export import image_bytes

ROWS = ("first-export", "later-export")


def main() -> int:
    bench = Bench(__file__, ROWS, __doc__, repeats=3)
    args = bench.parse()
    x = np.geomspace(0.05, 2, 40)
    fig = log_lines(x, {f"method {i}": 100 * (i + 1) / x for i in range(6)}, "Error against ε_c", "ε_c", "RMSE")
    start = time.perf_counter()
    image_bytes(fig, "png")
    bench.record("first-export", "first export, PNG (starts the browser)", time.perf_counter() - start, repeats=1)
    later: dict[str, list[float]] = {"png": [], "svg": [], "pdf": []}
    for _ in range(args.repeats):  # rounds of PNG, SVG and PDF after the first export
        for fmt, times in later.items():
            start = time.perf_counter()
            data = image_bytes(fig, fmt)
            times.append(time.perf_counter() - start)
            assert len(data) > 1000
    for fmt, times in later.items():
        label = f"later exports, {fmt.upper()}"
        bench.record("later-export", label, statistics.median(times), repeats=len(times), notes={"max": max(times)})
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
