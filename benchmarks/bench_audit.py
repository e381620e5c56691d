"""Benchmark of the empirical audits (ldpcore.audit) at the paper's Map scale.

The goal row: the analyst's attack on one-hot attribute fragments with 10^6 trials per hypothesis at
n = 236,559,063 (Map, delta = 5e-10, eps_c = 1, the tight accountant), fast because only the target's bin is
drawn, whatever n and d. A timing includes everything the attack needs: the tight accountant's worst case over
the others' data (its cache is cleared before each call), the draws, the threshold chosen on one half and the
bound on the other. The other rows (the server, a captured shuffler, report fragments, GRR and OUE) are for
information, and the last one is a whole audit_observer call with every accountant that holds for one-hot.
Goals: benchmarks/goals.toml.
Usage: python benchmarks/bench_audit.py [--repeats R] [--trials T] [--json]
"""

import sys

import numpy as np
from _common import Bench, median_seconds  # first: it puts the repository on sys.path

from ldpcore.experiment import audit
from ldpcore.experiment.audit.certified import forward as cached_forward
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan
from ldpcore.privacy import clones

ROWS = ("onehot-analyst", "attack", "audit-observer")
MAP_N, MAP_D, MAP_DELTA = 236_559_063, 2_795_520, 5e-10


def cold() -> None:
    cached_forward.cache_clear()
    clones.clear_caches()


def main() -> int:
    bench = Bench(__file__, ROWS, __doc__, repeats=5, width=36)
    bench.parser.add_argument("--trials", type=int, default=1_000_000)
    args = bench.parse()
    onehot = plan(ProtocolSpec(eps_c=1.0, delta=MAP_DELTA, accountant="tight"), MAP_N, MAP_D)
    rows = [
        ("onehot-analyst", "one-hot, analyst", onehot, "analyst"),
        ("attack", "one-hot, server", onehot, "server"),
        ("attack", "one-hot, captured shuffler", onehot, "shuffler"),
        (
            "attack",
            "one-hot tau = 16, analyst",
            plan(ProtocolSpec(eps_c=1.0, delta=MAP_DELTA, accountant="tight", tau=16), MAP_N, MAP_D),
            "analyst",
        ),
        (
            "attack",
            "GRR d = 1,024, analyst",
            plan(ProtocolSpec(eps_c=1.0, delta=MAP_DELTA, encoding="grr"), MAP_N, 1024),
            "analyst",
        ),
        (
            "attack",
            "OUE d = 1,024, analyst",
            plan(ProtocolSpec(eps_c=1.0, delta=MAP_DELTA, encoding="oue"), MAP_N, 1024),
            "analyst",
        ),
    ]
    bench.note(
        f"n = {MAP_N:,}, delta = {MAP_DELTA:g}, eps_c = 1, {args.trials:,} trials per hypothesis, "
        f"median of {args.repeats}"
    )
    for row, label, p, observer in rows:
        wall, cpu, (bound, _, _) = median_seconds(
            lambda: audit.attack(p, observer, np.random.default_rng(0), args.trials), args.repeats, setup=cold
        )
        certified = audit.certified_bounds(p, observer, (p.spec.accountant_name,) if observer == "analyst" else None)[0]
        notes = {"eps_l": p.eps_b, "eps_lower": bound.eps_lower, "certified": certified.eps}
        bench.record(row, label, wall, cpu=cpu, repeats=args.repeats, notes=notes)
    wall, cpu, whole = median_seconds(
        lambda: audit.audit_observer(onehot, "analyst", np.random.default_rng(0), args.trials), args.repeats, setup=cold
    )
    valid = len([c for c in whole.certified if c.valid])
    notes = {"eps_l": onehot.eps_b, "eps_lower": whole.eps_lower, "valid accountants": valid}
    bench.record(
        "audit-observer", "one-hot analyst, every accountant", wall, cpu=cpu, repeats=args.repeats, notes=notes
    )
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
