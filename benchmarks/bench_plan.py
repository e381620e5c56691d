"""Benchmark of the planner: the whole plan (every encoding x every accountant that holds for it) and the
two inverses, cold (the clone curves' caches cleared before each repetition; the bounds' inverses are shared
only within one call).

Inputs: a Zipf(1.1) histogram of 10 million respondents over d = 5,000 values (the issue's example), Horse
(d = 87,680) and Map (d = 2,795,520), each at eps_c = 1 and the dataset's delta (Zipf: 1e-8). Goals on this
2-core machine: the whole plan <= 0.5 s, 1 s and 3 s; each inverse (all rows) <= 2 s. Prints medians, the
ratio to the goal and the load average (other work on the machine inflates every time).
Usage: python benchmarks/bench_plan.py [--repeats R] [--skip-map]
"""

import argparse
import os

from _common import median_seconds  # first: it puts the repository on sys.path

from ldpcore.data.datasets import DATASETS, load_dataset
from ldpcore.experiment.planning import Shape, Target, plan_table, scaled_counts, solve_eps_c, solve_n
from ldpcore.privacy import clones


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-map", action="store_true", help="leave out Map (d = 2.8 million)")
    args = parser.parse_args()
    inputs = [("zipf d=5,000", scaled_counts(Shape("zipf", 1.1).weights(5_000), 10_000_000), 1e-8, 0.5)]
    horse = load_dataset("horse")
    inputs.append(("horse d=87,680", horse.counts, DATASETS["horse"].delta, 1.0))
    if not args.skip_map:
        big = load_dataset("map")
        inputs.append((f"map d={big.d:,}", big.counts, DATASETS["map"].delta, 3.0))
    print(f"load average before: {os.getloadavg()[0]:.2f}; median of {args.repeats} cold runs")
    print(f"{'input':18} {'what':34} {'rows':>5} {'median s':>9} {'cpu s':>7} {'goal s':>7} {'ratio':>6}")
    over = []

    def report(name, what, fn, goal):
        wall, cpu, table = median_seconds(fn, args.repeats, setup=clones.clear_caches)
        ratio = wall / goal
        flag = "" if ratio <= 1 else "  OVER"
        print(f"{name:18} {what:34} {len(table.rows):>5} {wall:>9.3f} {cpu:>7.3f} {goal:>7.1f} {ratio:>6.2f}{flag}")
        if ratio > 1:
            over.append((name, what))
        return table

    for name, counts, delta, goal in inputs:
        table = report(name, "whole plan at eps_c = 1", lambda c=counts, d=delta: plan_table(c, 1.0, d), goal)
        target = 1.5 * table.recommended.rmse  # reachable below eps_c = 1 by the best rows
        report(
            name,
            f"inverse: eps_c for RMSE <= {target:.3g}",
            lambda c=counts, d=delta, t=target: solve_eps_c(c, Target("rmse", t), d),
            2.0,
        )
        report(
            name,
            "inverse: n for relative RMSE <= 0.5",
            lambda c=counts, d=delta: solve_n(c, 1.0, Target("relative_rmse", 0.5), d),
            2.0,
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print("all within goal" if not over else f"over goal: {over}")


if __name__ == "__main__":
    main()
