"""Benchmark of the Multi-message page's curves: error_against_n (16 n from 1e3 to 1e8) per eps_c.

Its three calibrations per n solved the exact way (each n alone: the tight accountant to adjacent
floats, rho by doubling from 1, Count-Min's q at the default discretization 1e-4, as the page did
before; hadamard_delta is the vectorised one in both) against the chart's way (CURVE_RTOL, searches
from the previous n, discretization 1e-3, plus the RMSE of every protocol), in this process.
Prints median wall and CPU seconds and the load average.
Usage: python benchmarks/bench_multimessage.py [--repeats R] [--eps E ...] [--d D] [--delta DELTA]
"""

import argparse
import math
import os

import numpy as np
from _common import median_seconds  # first: it puts the repository on sys.path

from ldpcore.oracles.multimessage import count_min_q_min, hadamard_rho_min
from ldpcore.privacy.bounds import BoundName, get_bound
from ldpcore.systems.multiparty import error_against_n

N_GRID = np.geomspace(1e3, 1e8, 16).astype(np.int64)  # the page's


def exact_calibrations(eps: float, delta: float, d: int) -> None:
    """The three tight calibrations at every n, each solved alone and exactly (the page's cost before)."""
    tau = max(1, math.ceil(math.log2(d)))
    for n in (int(x) for x in N_GRID):
        get_bound(BoundName.TIGHT_BINARY_RR).inverse(eps, n, delta, 2)
        hadamard_rho_min(eps, delta, n)
        try:
            count_min_q_min(eps, delta, n, tau)
        except Exception:  # n too small for the blanket: the page shows the reason
            pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--eps", type=float, nargs="+", default=[1.0, 0.5, 2.0])
    parser.add_argument("--d", type=int, default=64)
    parser.add_argument("--delta", type=float, default=1e-6)
    args = parser.parse_args()
    error_against_n(1.0, args.delta, args.d, N_GRID[:1])  # imports (dp_accounting) out of the timings
    print(f"16 n in [1e3, 1e8], d = {args.d}, delta = {args.delta:g}, median of {args.repeats}; load {os.getloadavg()}")
    print(f"{'eps_c':>6} {'exact calibrations (before)':>30} {'error_against_n (chart, after)':>32}")
    for eps in args.eps:
        w0, c0, _ = median_seconds(lambda: exact_calibrations(eps, args.delta, args.d), args.repeats)
        w1, c1, _ = median_seconds(lambda: error_against_n(eps, args.delta, args.d, N_GRID), args.repeats)
        print(f"{eps:6g} {w0:14.2f} s wall {c0:6.2f} s CPU {w1:16.2f} s wall {c1:6.2f} s CPU")
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
