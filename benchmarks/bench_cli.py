"""Benchmark of the command line's start: `ldpcore --help` and a privacy plan, each in fresh processes.

Runs each command --repeats times (python -m ldpcore from this checkout, so that the code measured is
this repository's), with `python -c pass` timed alternately as the floor: rows of the median wall seconds of
each, the command's as a ratio to the floor's (goals: benchmarks/goals.toml). With --importtime, the slowest
imports of each command (python -X importtime, cumulative seconds, indented by depth) as notes.
Usage: python benchmarks/bench_cli.py [--repeats R] [--importtime] [--json]
"""

import statistics
import subprocess
import sys
import time

from _common import ROOT, Bench  # first: it puts the repository on sys.path

ROWS = ("floor", "help", "privacy-json")
COMMANDS = {  # row id: the command's arguments
    "help": ["--help"],
    "privacy-json": ["privacy", "--n", "1e6", "--delta", "1e-8", "--eps-c", "1", "--json"],
}
FLOOR = [sys.executable, "-c", "pass"]


def seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def imports(command: list[str], top: int = 12) -> list[tuple[int, str]]:
    """The slowest imports of a command: (cumulative microseconds, module indented by its depth)."""
    err = subprocess.run(
        [sys.executable, "-X", "importtime", *command[1:]], cwd=ROOT, capture_output=True, text=True, check=True
    ).stderr
    rows = []
    for line in err.splitlines():
        fields = line.split("|")
        if line.startswith("import time:") and len(fields) == 3 and fields[1].strip().isdigit():
            rows.append((int(fields[1]), fields[2][1:]))
    return sorted(rows, reverse=True)[:top]


def main() -> int:
    bench = Bench(__file__, ROWS, __doc__, repeats=7, width=60)
    bench.parser.add_argument("--importtime", action="store_true")
    args = bench.parse()
    bench.note(f"{args.repeats} fresh processes per command, python -c pass alternately")
    for row, arguments in COMMANDS.items():
        command = [sys.executable, "-m", "ldpcore", *arguments]
        seconds(command)  # the first run fills the page cache, not timed
        runs, floor = [], []
        for _ in range(args.repeats):
            floor.append(seconds(FLOOR))
            runs.append(seconds(command))
        name = f"ldpcore {' '.join(arguments)}"
        base = bench.record("floor", f"python -c pass (beside {name})", statistics.median(floor), repeats=args.repeats)
        bench.record(row, name, statistics.median(runs), repeats=args.repeats, baseline=base)
        if args.importtime:
            for micro, module in imports(command):
                bench.note(f"    {micro / 1e6:6.3f} s  import {module}")
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
