"""Benchmark of the amplification bounds: one inverse (eps_c -> eps0) per bound and n.

Times, for every registered bound, one inverse at n = 1e4, 1e6 and 1e9 for each target eps_c: a row per
inverse with the eps0 found (capped: at the top of the bound's validity region, certifying less than the
target); an inverse outside the bound's validity region is its own row, without a goal. The tight accountant
(tight-binary-rr) has its own row id and goal, since its worst case over the others' data is searched anew on
every call. blanket-krr, which needs a domain, runs with k = 2 (binary randomized response); the others use
their defaults (generic blanket, SOLH choosing its hash range). Nothing is cached between calls
(ldpcore.clones' caches are cleared before each), so each timing is a cold inverse.
--curves: instead, the Accountant page's curves (eps_c at 20 eps0, largest eps0 at 10 n) for every
bound that solves, exact (rtol = 0, as before the charts' precision) and at CURVE_RTOL, in this
process: median wall and CPU seconds of each curve (the CPU speed-up as a note).
--rounds: instead, repeated collection and replacement through dominating pairs (ldpcore.privacy.rounds,
ldpcore.privacy.notions.replacement_bound) with the tight accountant: the total after T = 1, 365 and 10,000 rounds
(caches cleared before every run), the per-round eps0 for eps = 4 over 365 rounds, and the replacement eps_c of
one-hot both ways; median wall and CPU seconds.
Goals: benchmarks/goals.toml.
Usage: python benchmarks/bench_accountant.py [--repeats R] [--delta D] [--eps-c E ...] [--curves [--n N]] [--rounds]
       [--json]
"""

import sys

import numpy as np
from _common import Bench, Note, median_seconds  # first: it puts the repository on sys.path

from ldpcore.privacy import clones, dominating
from ldpcore.privacy.accountant import CURVE_RTOL, eps0_curve, eps_c_curve
from ldpcore.privacy.bounds import BOUNDS, BoundName, get_bound
from ldpcore.privacy.notions import replacement_bound
from ldpcore.privacy.rounds import rounds_forward, rounds_inverse

ROWS = (
    "inverse",
    "inverse-tight",
    "inverse-not-valid",
    "curve-exact",
    "curve-rtol",
    "rounds-total",
    "rounds-inverse",
    "replacement-forward",
    "replacement-inverse",
)
DOMAIN = {"blanket-krr": 2}  # bounds that require k


def curves(bench: Bench, n: int, delta: float) -> None:
    """The page's two curves per solving bound, exact and at CURVE_RTOL (k = 2, eps_c = 1 against n)."""
    eps0_grid = tuple(np.geomspace(0.05, 20, 20))
    n_grid = tuple(int(x) for x in np.geomspace(1e3, 1e9, 10))
    bench.note(f"n = {n:,}, delta = {delta:g}, median of {bench.repeats}, exact (rtol 0) and rtol {CURVE_RTOL:g}")
    for name, bound in BOUNDS.items():
        if not bound.solves:
            continue
        for label, curve in (
            ("eps_c(eps0)", lambda rtol: eps_c_curve(name, eps0_grid, n, delta, 2, rtol)),
            ("eps0(n)", lambda rtol: eps0_curve(name, 1.0, n_grid, delta, 2, rtol)),
        ):
            exact, _ = bench.time("curve-exact", f"{name} {label} exact", lambda: curve(0.0), setup=clones.clear_caches)
            wall, cpu, _ = median_seconds(lambda: curve(CURVE_RTOL), bench.repeats, setup=clones.clear_caches)
            bench.record(
                "curve-rtol",
                f"{name} {label} rtol {CURVE_RTOL:g}",
                wall,
                cpu=cpu,
                repeats=bench.repeats,
                baseline=exact,
                notes={"CPU speed-up": (exact.cpu or 0.0) / max(cpu, 1e-9)},
            )


def _cold() -> None:
    """Forget every cached profile and composed evaluation (each timing starts from scratch)."""
    clones.clear_caches()
    dominating.clear_caches()


def rounds(bench: Bench) -> None:
    """Repeated collection and replacement with the tight accountant (n = 1e4 and Horse's n), cold each run."""
    tight = get_bound("tight")
    r = bench.repeats
    bench.note(f"tight accountant, delta = 1e-6 (Horse: 5e-8), median of {r}")
    for n, eps0, delta in ((10_000, 1.0, 1e-6), (1_914_589, 10.0, 5e-8)):
        for t in (1, 365, 10_000):
            w, c, total = median_seconds(lambda: rounds_forward(tight, eps0, n, delta, t), r, setup=_cold)
            label = f"n = {n:,} eps0 = {eps0:g} T = {t:,}: total"
            bench.record("rounds-total", label, w, cpu=c, repeats=r, notes={"eps_c total": total.eps_c_total})
        w, c, inverse = median_seconds(lambda: rounds_inverse(tight, 4.0, n, delta, 365), r, setup=_cold)
        label = f"n = {n:,} eps = 4 over 365 rounds: eps0 per round"
        bench.record("rounds-inverse", label, w, cpu=c, repeats=r, notes={"eps0": inverse.eps0})
        both = replacement_bound(tight)
        w, c, forward = median_seconds(lambda: both.forward(eps0, n, delta), r, setup=_cold)
        label = f"n = {n:,} replacement forward eps0 = {eps0:g}"
        bench.record("replacement-forward", label, w, cpu=c, repeats=r, notes={"eps_c": forward.eps_c})
        w, c, back = median_seconds(lambda: both.inverse(1.0, n, delta), r, setup=_cold)
        label = f"n = {n:,} replacement inverse eps_c = 1"
        bench.record("replacement-inverse", label, w, cpu=c, repeats=r, notes={"eps0": back.eps0})


def main() -> int:
    bench = Bench(__file__, ROWS, __doc__, repeats=5, width=48)
    bench.parser.add_argument("--delta", type=float, default=1e-8)
    bench.parser.add_argument("--eps-c", type=float, nargs="+", default=[1e-4, 0.01, 1.0])
    bench.parser.add_argument(
        "--curves", action="store_true", help="the Accountant page's curves, exact and at CURVE_RTOL"
    )
    bench.parser.add_argument("--n", type=int, default=1_914_589, help="respondents for --curves (the page's default)")
    bench.parser.add_argument(
        "--rounds", action="store_true", help="repeated collection and replacement (dominating pairs)"
    )
    args = bench.parse()
    if args.rounds:
        rounds(bench)
        return bench.finish()
    if args.curves:
        curves(bench, args.n, args.delta)
        return bench.finish()
    bench.note(f"median of {args.repeats} cold inverses, delta = {args.delta:g}")
    for name, bound in BOUNDS.items():
        for eps_c in args.eps_c:
            for n in (10**4, 10**6, 10**9):
                secs, cpu, amp = median_seconds(
                    lambda: bound.inverse(eps_c, n, args.delta, DOMAIN.get(name)),
                    args.repeats,
                    setup=clones.clear_caches,
                )
                label = f"{name} eps_c = {eps_c:g}, n = {n:.0e}"
                if not amp.valid:
                    bench.record("inverse-not-valid", label, secs, cpu=cpu, repeats=args.repeats)
                    continue
                row = "inverse-tight" if name == BoundName.TIGHT_BINARY_RR else "inverse"
                notes: dict[str, Note] = {"eps0": amp.eps0}
                if amp.capped:  # at the top of the validity region: certifies less than the target
                    notes["capped"] = True
                bench.record(row, label, secs, cpu=cpu, repeats=args.repeats, notes=notes)
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
