"""Benchmark of the Multi-message page's curves: error_against_n (16 n from 1e3 to 1e8) per eps_c.

Its three calibrations per n solved the exact way (each n alone: the tight accountant to adjacent
floats, rho by doubling from 1, Count-Min's q at the default discretization 1e-4, as the page did
before; hadamard_delta is the vectorised one in both) against the chart's way (CURVE_RTOL, searches
from the previous n, discretization 1e-3, plus the RMSE of every protocol), in this process: median wall and
CPU seconds, the chart's way as a ratio to the exact way. Goals: benchmarks/goals.toml (none today).
Usage: python benchmarks/bench_multimessage.py [--repeats R] [--eps E ...] [--d D] [--delta DELTA] [--json]
"""

import math
import sys

import numpy as np
from _common import Bench  # first: it puts the repository on sys.path

from ldpcore.oracles.multimessage import count_min_q_min, hadamard_rho_min
from ldpcore.privacy.bounds import BoundName, get_bound
from ldpcore.systems.multiparty import error_against_n

ROWS = ("exact-calibrations", "error-against-n")
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


def main() -> int:
    bench = Bench(__file__, ROWS, __doc__, repeats=3)
    bench.parser.add_argument("--eps", type=float, nargs="+", default=[1.0, 0.5, 2.0])
    bench.parser.add_argument("--d", type=int, default=64)
    bench.parser.add_argument("--delta", type=float, default=1e-6)
    args = bench.parse()
    error_against_n(1.0, args.delta, args.d, N_GRID[:1])  # imports (dp_accounting) out of the timings
    bench.note(f"16 n in [1e3, 1e8], d = {args.d}, delta = {args.delta:g}, median of {args.repeats}")
    for eps in args.eps:
        exact, _ = bench.time(
            "exact-calibrations",
            f"eps_c = {eps:g}: exact calibrations (before)",
            lambda: exact_calibrations(eps, args.delta, args.d),
        )
        bench.time(
            "error-against-n",
            f"eps_c = {eps:g}: error_against_n (chart, after)",
            lambda: error_against_n(eps, args.delta, args.d, N_GRID),
            baseline=exact,
        )
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
