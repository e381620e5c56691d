"""Benchmark of the planner: the whole plan (every encoding x every accountant that holds for it) and the
two inverses, cold (the clone curves' caches cleared before each repetition; the bounds' inverses are shared
only within one call).

Inputs: a Zipf(1.1) histogram of 10 million respondents over d = 5,000 values (the issue's example), Horse
(d = 87,680) and Map (d = 2,795,520), each at eps_c = 1 and the dataset's delta (Zipf: 1e-8). A row per
input and question (the number of plan rows as a note); goals on this 2-core machine: benchmarks/goals.toml.
Usage: python benchmarks/bench_plan.py [--repeats R] [--skip-map] [--json]
"""

import sys

from _common import Bench, median_seconds  # first: it puts the repository on sys.path

from ldpcore.data.datasets import DATASETS, load_dataset
from ldpcore.experiment.planning import Shape, Target, plan_table, scaled_counts, solve_eps_c, solve_n
from ldpcore.privacy import clones

ROWS = ("plan-zipf", "plan-horse", "plan-map", "inverse-eps-c", "inverse-n")


def main() -> int:
    bench = Bench(__file__, ROWS, __doc__, repeats=3, width=54)
    bench.parser.add_argument("--skip-map", action="store_true", help="leave out Map (d = 2.8 million)")
    args = bench.parse()
    inputs = [("zipf", "zipf d=5,000", scaled_counts(Shape("zipf", 1.1).weights(5_000), 10_000_000), 1e-8)]
    horse = load_dataset("horse")
    inputs.append(("horse", "horse d=87,680", horse.counts, DATASETS["horse"].delta))
    if not args.skip_map:
        big = load_dataset("map")
        inputs.append(("map", f"map d={big.d:,}", big.counts, DATASETS["map"].delta))
    bench.note(f"median of {args.repeats} cold runs")

    def report(row, label, fn):
        wall, cpu, table = median_seconds(fn, args.repeats, setup=clones.clear_caches)
        bench.record(row, label, wall, cpu=cpu, repeats=args.repeats, notes={"rows": len(table.rows)})
        return table

    for key, name, counts, delta in inputs:
        table = report(
            f"plan-{key}", f"{name}: whole plan at eps_c = 1", lambda c=counts, d=delta: plan_table(c, 1.0, d)
        )
        target = 1.5 * table.recommended.rmse  # reachable below eps_c = 1 by the best rows
        report(
            "inverse-eps-c",
            f"{name}: inverse: eps_c for RMSE <= {target:.3g}",
            lambda c=counts, d=delta, t=target: solve_eps_c(c, Target("rmse", t), d),
        )
        report(
            "inverse-n",
            f"{name}: inverse: n for relative RMSE <= 0.5",
            lambda c=counts, d=delta: solve_n(c, 1.0, Target("relative_rmse", 0.5), d),
        )
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
