"""Benchmark of the command line's start: `ldpcore --help` and a privacy plan, each in fresh processes.

Runs each command --repeats times (python -m ldpcore from this checkout, so that the code measured is
this repository's), with `python -c pass` timed alternately as the floor, and prints the median wall
seconds, the ratio to the floor and the goal (--help <= 0.5 s, privacy --json <= 1.0 s). With
--importtime, the slowest imports of each command (python -X importtime, cumulative seconds, indented
by depth).
Usage: python benchmarks/bench_cli.py [--repeats R] [--importtime]
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {  # name: (arguments, goal in seconds)
    "ldpcore --help": (["--help"], 0.5),
    "ldpcore privacy --n 1e6 --delta 1e-8 --eps-c 1 --json": (
        ["privacy", "--n", "1e6", "--delta", "1e-8", "--eps-c", "1", "--json"],
        1.0,
    ),
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--importtime", action="store_true")
    args = parser.parse_args()
    print(f"{args.repeats} fresh processes per command, python -c pass alternately; load {os.getloadavg()}")
    for name, (arguments, goal) in COMMANDS.items():
        command = [sys.executable, "-m", "ldpcore", *arguments]
        seconds(command)  # the first run fills the page cache, not timed
        runs, floor = [], []
        for _ in range(args.repeats):
            floor.append(seconds(FLOOR))
            runs.append(seconds(command))
        median, base = statistics.median(runs), statistics.median(floor)
        print(
            f"{name:56} median {median:6.3f} s   python -c pass {base:5.3f} s   ratio {median / base:5.1f}x"
            f"   [goal <= {goal:g} s: {'ok' if median <= goal else 'MISSED'}]"
        )
        if args.importtime:
            for micro, module in imports(command):
                print(f"    {micro / 1e6:6.3f} s  import {module}")


if __name__ == "__main__":
    main()
