"""Benchmark of the amplification bounds: one inverse (eps_c -> eps0) per bound and n.

Prints, for every registered bound, the median time of one inverse at n = 1e4, 1e6 and
1e9 (where the bound is valid) for each target eps_c, and flags any median over its limit
(1 s; 0.1 s for the tight accountant, whose worst case over the others' data is searched
anew on every call).
blanket-krr, which needs a domain, runs with k = 2 (binary randomized response); the
others use their defaults (generic blanket, SOLH choosing its hash range). Nothing is
cached between calls (ldpcore.clones' caches are cleared before each), so each timing is a
cold inverse; * marks an inverse capped at the top of the bound's validity region (certifying
less than the target).
--rounds: instead, repeated collection and replacement through dominating pairs (ldpcore.privacy.rounds,
ldpcore.privacy.notions.replacement_bound) with the tight accountant: the total after T = 1, 365 and 10,000 rounds
(limit 1 s each, caches cleared before every run), the per-round eps0 for eps = 4 over 365 rounds, and the
replacement eps_c of one-hot both ways; median wall and CPU seconds.
--curves: instead, the Accountant page's curves (eps_c at 20 eps0, largest eps0 at 10 n) for every
bound that solves, exact (rtol = 0, as before the charts' precision) and at CURVE_RTOL, in this
process: median wall and CPU seconds of each curve, and the load average.
Usage: python benchmarks/bench_accountant.py [--repeats R] [--delta D] [--eps-c E ...] [--curves [--n N]] [--rounds]
"""

import argparse
import os

import numpy as np
from _common import median_seconds  # first: it puts the repository on sys.path

from ldpcore.privacy import clones, dominating
from ldpcore.privacy.accountant import CURVE_RTOL, eps0_curve, eps_c_curve
from ldpcore.privacy.bounds import BOUNDS, get_bound
from ldpcore.privacy.notions import replacement_bound
from ldpcore.privacy.rounds import rounds_forward, rounds_inverse

LIMIT = 1.0  # seconds per inverse
LIMITS = {"tight-binary-rr": 0.1}
DOMAIN = {"blanket-krr": 2}  # bounds that require k


def curves(n: int, delta: float, repeats: int) -> None:
    """The page's two curves per solving bound, exact and at CURVE_RTOL (k = 2, eps_c = 1 against n)."""
    eps0_grid = tuple(np.geomspace(0.05, 20, 20))
    n_grid = tuple(int(x) for x in np.geomspace(1e3, 1e9, 10))
    print(f"n = {n:,}, delta = {delta:g}, median of {repeats}; wall s / CPU s; load average {os.getloadavg()}")
    print(f"{'bound':18} {'curve':12} {'exact':>15} {f'rtol {CURVE_RTOL:g}':>15} {'speed-up (CPU)':>15}")
    for name, bound in BOUNDS.items():
        if not bound.solves:
            continue
        for label, curve in (
            ("eps_c(eps0)", lambda rtol: eps_c_curve(name, eps0_grid, n, delta, 2, rtol)),
            ("eps0(n)", lambda rtol: eps0_curve(name, 1.0, n_grid, delta, 2, rtol)),
        ):
            (w0, c0, _), (w1, c1, _) = (
                median_seconds(lambda: curve(rtol), repeats, setup=clones.clear_caches) for rtol in (0.0, CURVE_RTOL)
            )
            print(f"{name:18} {label:12} {w0:7.2f} /{c0:6.2f} {w1:7.2f} /{c1:6.2f} {c0 / max(c1, 1e-9):14.1f}x")
    print(f"load average {os.getloadavg()}")


def _cold():
    """Forget every cached profile and composed evaluation (each timing starts from scratch)."""
    clones.clear_caches()
    dominating.clear_caches()


def rounds(repeats: int) -> None:
    """Repeated collection and replacement with the tight accountant (n = 1e4 and Horse's n), cold each run."""
    tight = get_bound("tight")
    print(f"tight accountant, delta = 1e-6 (Horse: 5e-8), median of {repeats}; wall s / CPU s; load {os.getloadavg()}")
    slow = []
    for n, eps0, delta in ((10_000, 1.0, 1e-6), (1_914_589, 10.0, 5e-8)):
        for t in (1, 365, 10_000):
            w, c, r = median_seconds(lambda: rounds_forward(tight, eps0, n, delta, t), repeats, setup=_cold)
            slow += [f"T={t} n={n:,}"] if w > LIMIT else []
            flag = " SLOW" if w > LIMIT else ""
            print(
                f"n = {n:>9,} eps0 = {eps0:4g} T = {t:>6,}: eps_c total {r.eps_c_total:9.4f}  {w:6.3f} /{c:6.3f}" + flag
            )
        w, c, r = median_seconds(lambda: rounds_inverse(tight, 4.0, n, delta, 365), repeats, setup=_cold)
        print(f"n = {n:>9,} eps = 4 over 365 rounds: eps0 per round {r.eps0:8.4f}  {w:6.3f} /{c:6.3f}")
        both = replacement_bound(tight)
        w, c, r = median_seconds(lambda: both.forward(eps0, n, delta), repeats, setup=_cold)
        print(f"n = {n:>9,} replacement forward eps0 = {eps0:g}: eps_c {r.eps_c:8.4f}  {w:6.3f} /{c:6.3f}")
        w, c, r = median_seconds(lambda: both.inverse(1.0, n, delta), repeats, setup=_cold)
        print(f"n = {n:>9,} replacement inverse eps_c = 1: eps0 {r.eps0:8.4f}  {w:6.3f} /{c:6.3f}")
    print("every total took <= 1 s" if not slow else f"over 1 s: {', '.join(slow)}")
    print(f"load average {os.getloadavg()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--delta", type=float, default=1e-8)
    parser.add_argument("--eps-c", type=float, nargs="+", default=[1e-4, 0.01, 1.0])
    parser.add_argument("--curves", action="store_true", help="the Accountant page's curves, exact and at CURVE_RTOL")
    parser.add_argument("--n", type=int, default=1_914_589, help="respondents for --curves (the page's default)")
    parser.add_argument("--rounds", action="store_true", help="repeated collection and replacement (dominating pairs)")
    args = parser.parse_args()
    if args.rounds:
        rounds(args.repeats)
        return
    if args.curves:
        curves(args.n, args.delta, args.repeats)
        return
    sizes = (10**4, 10**6, 10**9)
    print(f"median of {args.repeats} inverses, delta = {args.delta:g}; cell = seconds (eps0 found)")
    print(f"{'bound':18} {'eps_c':>6} " + " ".join(f"{f'n = {n:.0e}':>23}" for n in sizes))
    slow = []
    for name, bound in BOUNDS.items():
        for eps_c in args.eps_c:
            cells = []
            for n in sizes:
                secs, _, amp = median_seconds(
                    lambda: bound.inverse(eps_c, n, args.delta, DOMAIN.get(name)),
                    args.repeats,
                    setup=clones.clear_caches,
                )
                if not amp.valid:
                    cells.append(f"{'not valid':>23}")
                    continue
                limit = LIMITS.get(name, LIMIT)
                flag = " SLOW" if secs > limit else ""
                cells.append(f"{secs:9.4f} ({amp.eps0:7.3f}{'*' if amp.capped else ' '}){flag:5}")
                if secs > limit:
                    slow.append((name, eps_c, n, secs))
            print(f"{name:18} {eps_c:6g} " + " ".join(cells))
    if slow:
        print(
            f"{len(slow)} inverse(s) over the limit: "
            + "; ".join(f"{b} eps_c={e:g} n={n:.0e} {s:.2f} s" for b, e, n, s in slow)
        )
    else:
        print(f"every inverse took <= its limit ({LIMIT} s; tight-binary-rr {LIMITS['tight-binary-rr']} s)")


if __name__ == "__main__":
    main()
