"""Benchmark of ldpcore.heavy_hitters.compare at the paper's heavy-hitter scale (seeds/000
Table I: d=1,778,120, n=203,950,512, eps_c=1, delta=5e-10; Apple sketch 1,024 x 65,536).

Prints recall@100/1000/10000, expected messages per respondent, RMSE and seconds
(simulate+estimate) per method, and flags the targets: sketch <= 10 s, one-hot <= 2 s.
Usage: python benchmarks/bench_heavy_hitters.py [--seed S] [--eps-c E] [--delta D]
"""

import argparse
import sys
import time

import _common  # noqa: F401  (puts the repository on sys.path)
import numpy as np

from ldpcore.data.datasets import synthetic_heavy_hitters
from ldpcore.systems.heavy_hitters import compare

LIMITS = {"onehot": 2.0, "sketch": 10.0}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eps-c", type=float, default=1.0)
    ap.add_argument("--delta", type=float, default=5e-10)
    args = ap.parse_args(argv)

    hist = synthetic_heavy_hitters(np.random.default_rng(args.seed))
    cpu = time.process_time()
    res = compare(hist, args.eps_c, args.delta, np.random.default_rng(args.seed))
    cpu = time.process_time() - cpu
    print(
        f"heavy hitters: d={res.d:,}, n={res.n:,}, eps_c={res.eps_c:g}, delta={res.delta:g}, "
        f"eps_l={res.onehot.eps_l:.4f} (cheu19, k=2; sketch at the same eps_l)"
    )
    head = f"{'method':<52}" + "".join(f"{'recall@' + str(k):>14}" for k in res.ks)
    print(head + f"{'messages':>12}{'RMSE':>12}{'seconds':>10}  target")
    failed = False
    for key, m in (("onehot", res.onehot), ("sketch", res.sketch)):
        ok = m.seconds <= LIMITS[key]
        failed |= not ok
        print(
            f"{m.name:<52}"
            + "".join(f"{r:>14.4f}" for _, r in m.recall)
            + f"{m.messages:>12.3f}{m.rmse:>12.1f}{m.seconds:>10.2f}  "
            + f"{'OK' if ok else 'OVER'} (<= {LIMITS[key]:g} s)"
        )
    print(f"CPU seconds over all threads (compare, incl. scoring): {cpu:.1f}")
    print("note (sketch):", res.sketch.note)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
