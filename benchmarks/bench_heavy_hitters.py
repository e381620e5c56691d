"""Benchmark of ldpcore.heavy_hitters.compare at the paper's heavy-hitter scale (Erlingsson et al.
2020, Table I: d=1,778,120, n=203,950,512, eps_c=1, delta=5e-10; Apple sketch 1,024 x 65,536).

A row per method: the seconds of simulate+estimate (median over --repeats calls of compare, as compare
measures them), with recall@100/1000/10000, expected messages per respondent and RMSE as notes.
Goals: benchmarks/goals.toml.
Usage: python benchmarks/bench_heavy_hitters.py [--repeats R] [--seed S] [--eps-c E] [--delta D] [--json]
"""

import statistics
import sys
import time

import numpy as np
from _common import Bench, Note  # first: it puts the repository on sys.path

from ldpcore.data.datasets import synthetic_heavy_hitters
from ldpcore.systems.heavy_hitters import compare

ROWS = ("onehot", "sketch")


def main(argv: list[str] | None = None) -> int:
    bench = Bench(__file__, ROWS, __doc__, repeats=1, width=52)
    bench.parser.add_argument("--seed", type=int, default=0)
    bench.parser.add_argument("--eps-c", type=float, default=1.0)
    bench.parser.add_argument("--delta", type=float, default=5e-10)
    args = bench.parse(argv)

    hist = synthetic_heavy_hitters(np.random.default_rng(args.seed))
    results, cpus = [], []
    for _ in range(args.repeats):
        cpu = time.process_time()
        results.append(compare(hist, args.eps_c, args.delta, np.random.default_rng(args.seed)))
        cpus.append(time.process_time() - cpu)
    res = results[-1]
    bench.note(
        f"heavy hitters: d={res.d:,}, n={res.n:,}, eps_c={res.eps_c:g}, delta={res.delta:g}, "
        f"eps_l={res.onehot.eps_l:.4f} (cheu19, k=2; sketch at the same eps_l)"
    )
    bench.note(f"CPU seconds over all threads (compare, incl. scoring), median: {statistics.median(cpus):.1f}")
    for key in ROWS:
        m = getattr(res, key)
        notes: dict[str, Note] = {f"recall@{k}": r for k, r in m.recall}
        notes |= {"messages": m.messages, "RMSE": m.rmse}
        seconds = statistics.median(getattr(r, key).seconds for r in results)
        bench.record(key, m.name, seconds, repeats=args.repeats, notes=notes)
    bench.note(f"note (sketch): {res.sketch.note}")
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
