"""Benchmark of chart exports for a paper (ui.kit.chart_export.image_bytes), as the server makes them.

One process exports a Trade-offs-like chart (six lines on log axes) as PNG, SVG and PDF in turn, --repeats times:
the first export starts the process's kaleido browser, every later one reuses it. Prints the first export's
seconds, then the median and maximum of the later ones against the goal (a second export within 1 s).
Usage: python benchmarks/bench_exports.py [--repeats R]
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository's ui package

from ui.kit.axes import log_lines  # noqa: E402
from ui.kit.chart_export import image_bytes  # noqa: E402

GOAL = 1.0  # seconds for an export after the first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="rounds of PNG, SVG and PDF after the first export")
    args = parser.parse_args()
    x = np.geomspace(0.05, 2, 40)
    fig = log_lines(x, {f"method {i}": 100 * (i + 1) / x for i in range(6)}, "Error against ε_c", "ε_c", "RMSE")
    print(f"load {os.getloadavg()}")
    start = time.perf_counter()
    image_bytes(fig, "png")
    first = time.perf_counter() - start
    later: dict[str, list[float]] = {"png": [], "svg": [], "pdf": []}
    for _ in range(args.repeats):
        for fmt, times in later.items():
            start = time.perf_counter()
            data = image_bytes(fig, fmt)
            times.append(time.perf_counter() - start)
            assert len(data) > 1000
    print(f"first export (starts the browser): {first:6.2f} s")
    for fmt, times in later.items():
        median = statistics.median(times)
        print(
            f"later exports, {fmt.upper()}: median {median:5.2f} s, max {max(times):5.2f} s"
            f"   [goal <= {GOAL:g} s: {'ok' if median <= GOAL else 'MISSED'}]"
        )


if __name__ == "__main__":
    main()
