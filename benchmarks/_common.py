"""What the benchmarks share: the repository on sys.path (importing this module puts it there), a median
timer and the harness every benchmark reports through (`Bench`).

A benchmark declares the ids of its rows in a module-level tuple `ROWS` of string literals (tests read it
without running anything) and records each measurement as a `Row`: an id from ROWS, a label, either the median
wall (and CPU) seconds over its repetitions or another quantity with its unit, optionally a baseline row of the
same run (the row's ratio is its median over the baseline's). The goals live in benchmarks/goals.toml, one table
per script, one entry per row id: `seconds` (a bound on the median wall seconds), `ratio` or `over` with
`baseline` (a bound on the ratio to that baseline row, or on the excess over it in the row's unit), `max` with
`unit` (a bound on another quantity), and `why`. Several
rows may share an id (the same goal over several cases); a row whose id has no entry is a measurement only, and an
entry whose id is not in ROWS is an error (the benchmark refuses to start).

Every benchmark takes `--json` (one JSON document on stdout instead of the table: the benchmark, the machine,
its load averages before and after, and every row with its goal and verdict) and, where repetitions make sense,
`--repeats`. It exits with status 1 when a row misses its goal (or a row with a goal could not be measured),
0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GOALS = ROOT / "benchmarks" / "goals.toml"
T = TypeVar("T")
Note = float | int | str | bool | None


def median_seconds(
    fn: Callable[[], T], repeats: int, setup: Callable[[], object] | None = None
) -> tuple[float, float, T]:
    """Median wall and CPU seconds (over all threads) of fn() over repeats, and its last result;
    setup(), if given, runs untimed before each call."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeats):
        if setup is not None:
            setup()
        start, start_cpu = time.perf_counter(), time.process_time()
        result = fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu), result


class GoalError(ValueError):
    """goals.toml does not fit the benchmarks: an unknown key, a bound without its unit or baseline, a goal
    for a row id the benchmark does not declare, or a goal that does not fit the row it is checked on."""


@dataclass(frozen=True)
class Goal:
    """Upper bounds on one row id's measurement, and where they come from."""

    why: str
    seconds: float | None = None  # the median wall seconds
    ratio: float | None = None  # the median over the baseline row's median
    over: float | None = None  # the median minus the baseline row's median, in the row's unit
    baseline: str | None = None  # the baseline row's id
    max: float | None = None  # a quantity other than seconds ...
    unit: str | None = None  # ... in this unit

    def text(self) -> str:
        parts = []
        if self.seconds is not None:
            parts.append(f"<= {self.seconds:g} s")
        if self.ratio is not None:
            parts.append(f"<= {self.ratio:g}x {self.baseline}")
        if self.over is not None:
            parts.append(f"<= {self.baseline} + {self.over:g} {self.unit or 's'}")
        if self.max is not None:
            parts.append(f"<= {self.max:,g} {self.unit}")
        return " and ".join(parts)

    def check(self, row: Row) -> None:
        """GoalError unless the goal fits the row: seconds for a timed row, the row's baseline, its unit."""
        if self.seconds is not None and row.unit is not None:
            raise GoalError(f"row {row.id!r} measures {row.unit}, its goal bounds seconds")
        if self.baseline is not None and (row.baseline is None or row.baseline.id != self.baseline):
            have = None if row.baseline is None else row.baseline.id
            raise GoalError(f"row {row.id!r}: its goal's baseline is {self.baseline!r}, the row's {have!r}")
        if self.max is not None and row.unit != self.unit:
            raise GoalError(f"row {row.id!r} measures {row.unit or 'seconds'}, its goal {self.unit}")

    def missed(self, row: Row) -> list[str]:
        """The bounds the row exceeds (empty: it meets the goal); GoalError if the goal does not fit the row."""
        self.check(row)
        if row.error is not None:
            return [f"not measured: {row.error}"]
        if self.baseline is not None and row.baseline is not None and row.baseline.error is not None:
            return [f"baseline {self.baseline} not measured"]
        out = []
        if self.seconds is not None and not row.median <= self.seconds:
            out.append(f"median {row.median:.3g} s > {self.seconds:g} s")
        ratio = row.ratio
        if self.ratio is not None and ratio is not None and not ratio <= self.ratio:
            out.append(f"ratio {ratio:.3g}x > {self.ratio:g}x")
        if self.over is not None and row.baseline is not None and not row.median - row.baseline.median <= self.over:
            out.append(f"{row.median - row.baseline.median:.3g} over {self.baseline} > {self.over:g}")
        if self.max is not None and not row.median <= self.max:
            out.append(f"{row.median:,.4g} {self.unit} > {self.max:,g} {self.unit}")
        return out


def load_goals(path: Path = GOALS) -> dict[str, dict[str, Goal]]:
    """goals.toml as {benchmark: {row id: Goal}}, every entry checked for its keys."""
    with path.open("rb") as f:
        raw = tomllib.load(f)
    out: dict[str, dict[str, Goal]] = {}
    for bench, entries in raw.items():
        out[bench] = {}
        for row_id, entry in entries.items():
            where = f"{path.name}: [{bench}.{row_id}]"
            unknown = set(entry) - {"why", "seconds", "ratio", "over", "baseline", "max", "unit"}
            if unknown:
                raise GoalError(f"{where}: unknown keys {sorted(unknown)}")
            if not str(entry.get("why", "")).strip():
                raise GoalError(f"{where}: no 'why'")
            if bool({"ratio", "over"} & set(entry)) != ("baseline" in entry) or ("max" in entry) != ("unit" in entry):
                raise GoalError(f"{where}: 'ratio' and 'over' go with 'baseline', 'max' with 'unit'")
            if not {"seconds", "ratio", "over", "max"} & set(entry):
                raise GoalError(f"{where}: no bound ('seconds', 'ratio', 'over' or 'max')")
            for key in ("seconds", "ratio", "over", "max"):
                if key in entry and not (isinstance(entry[key], int | float) and entry[key] > 0):
                    raise GoalError(f"{where}: {key} must be a positive number")
            out[bench][row_id] = Goal(**entry)
    return out


@dataclass
class Row:
    """One measurement: the median wall (and CPU) seconds, or a value in a unit; or why it could not be made."""

    id: str
    label: str
    median: float = math.nan  # the median wall seconds, or (with unit) the measured value
    cpu: float | None = None
    repeats: int | None = None
    unit: str | None = None  # None: median is wall seconds
    baseline: Row | None = None
    notes: dict[str, Note] = field(default_factory=dict)
    error: str | None = None
    goal: Goal | None = None

    @property
    def ratio(self) -> float | None:
        if self.baseline is None or self.error is not None or self.baseline.error is not None:
            return None
        return self.median / self.baseline.median

    @property
    def missed(self) -> list[str]:
        return [] if self.goal is None else self.goal.missed(self)

    @property
    def verdict(self) -> str:
        if self.goal is None:
            return "measured only" if self.error is None else "failed"
        return "MISSES" if self.missed else "meets"

    def as_json(self) -> dict[str, Any]:
        goal = None if self.goal is None else {k: v for k, v in vars(self.goal).items() if v is not None}
        return {
            "id": self.id,
            "label": self.label,
            "median_seconds": None if self.error or self.unit else self.median,
            "cpu_seconds": self.cpu,
            "repeats": self.repeats,
            "value": None if self.error or not self.unit else self.median,
            "unit": self.unit,
            "baseline": None if self.baseline is None else self.baseline.id,
            "baseline_label": None if self.baseline is None else self.baseline.label,
            "ratio": self.ratio,
            "notes": self.notes,
            "error": self.error,
            "goal": goal,
            "verdict": self.verdict,
            "missed": self.missed,
        }


def machine() -> dict[str, Any]:
    """What the times depend on: the processor, its cores, the software versions."""
    model = platform.processor() or platform.machine()
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
        model = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    import numpy

    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "platform": platform.platform(),
    }


def _seconds(x: float) -> str:
    return f"{x:.1e}" if x < 1e-3 else f"{x:.4f}" if x < 100 else f"{x:,.1f}"


class Bench:
    """A benchmark's options, rows, goals and report (see the module's docstring)."""

    def __init__(
        self,
        script: str,
        rows: tuple[str, ...],
        description: str,
        repeats: int | None = None,
        width: int = 44,
        goals: Path = GOALS,
    ):
        self.name, self.rows, self.width = Path(script).stem, rows, width
        self.description = " ".join(description.strip().split("\n\n")[0].split())  # the first paragraph
        self.goals = load_goals(goals).get(self.name, {})
        stale = sorted(set(self.goals) - set(rows))
        if stale:
            raise GoalError(f"{goals.name} has goals for {self.name} rows it does not declare: {stale}")
        self.parser = argparse.ArgumentParser(description=self.description)
        if repeats is not None:
            self.parser.add_argument("--repeats", type=int, default=repeats, help=f"repetitions (default {repeats})")
        self.parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
        self.repeats, self.json, self.options = repeats or 1, False, argparse.Namespace()
        self.recorded: list[Row] = []
        self.notes: list[str] = []
        self.load_before = os.getloadavg()
        self.started = datetime.now(UTC)
        self._header = False

    def parse(self, argv: list[str] | None = None) -> argparse.Namespace:
        """The command line (the script's own options added to self.parser first)."""
        self.options = self.parser.parse_args(argv)
        self.json = self.options.json
        self.repeats = getattr(self.options, "repeats", self.repeats)
        self.load_before = os.getloadavg()
        return self.options

    def _print_header(self) -> None:
        if self.json or self._header:
            return
        self._header = True
        print(f"{self.name}: {self.description}")
        print(f"load average before: {' '.join(f'{x:.2f}' for x in self.load_before)} ({os.cpu_count()} cores)")
        print(f"{'row':<{self.width}} {'median':>11} {'cpu s':>8} {'ratio':>26}  {'goal':<28} verdict", flush=True)

    def note(self, text: str) -> None:
        """A line of context (the inputs, a progress line): printed now, or kept for the JSON document."""
        self.notes.append(text)
        if not self.json:
            self._print_header()
            print(text, flush=True)

    def record(
        self,
        id: str,
        label: str,
        median: float = math.nan,
        *,
        cpu: float | None = None,
        repeats: int | None = None,
        unit: str | None = None,
        baseline: Row | None = None,
        notes: Mapping[str, Note] | None = None,
        error: str | None = None,
    ) -> Row:
        """Record a measured row (median wall seconds, or a value in unit) or one that failed (error); print it."""
        if id not in self.rows:
            raise GoalError(f"{self.name} records row {id!r}, which its ROWS do not declare")
        if baseline is not None and baseline.unit != unit:
            raise ValueError(f"row {id!r} in {unit or 's'} against a baseline in {baseline.unit or 's'}")
        row = Row(id, label, median, cpu, repeats, unit, baseline, dict(notes or {}), error, self.goals.get(id))
        if row.goal is not None:
            row.goal.check(row)  # a goal that does not fit its row fails at the row, not at the end
        self.recorded.append(row)
        if not self.json:
            self._print_header()
            print(self._line(row), flush=True)
        return row

    def time(
        self,
        id: str,
        label: str,
        fn: Callable[[], T],
        *,
        repeats: int | None = None,
        setup: Callable[[], object] | None = None,
        baseline: Row | None = None,
        notes: Mapping[str, Note] | None = None,
    ) -> tuple[Row, T]:
        """Time fn() (median of repeats, default --repeats) and record it; the row and fn's last result."""
        repeats = repeats or self.repeats
        wall, cpu, result = median_seconds(fn, repeats, setup)
        return self.record(id, label, wall, cpu=cpu, repeats=repeats, baseline=baseline, notes=notes), result

    def _line(self, row: Row) -> str:
        if row.error is not None:
            median, cpu, ratio = "-", "", ""
        else:
            median = f"{row.median:,.4g} {row.unit}" if row.unit else f"{_seconds(row.median)} s"
            cpu = "" if row.cpu is None else _seconds(row.cpu)
            ratio = "" if row.ratio is None or row.baseline is None else f"{row.ratio:.3g}x {row.baseline.id}"
        goal = "-" if row.goal is None else row.goal.text()
        verdict = row.verdict + "".join(f"; {m}" for m in row.missed)
        if row.error is not None and row.goal is None:
            verdict += f": {row.error}"
        notes = "  ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in row.notes.items())
        return f"{row.label:<{self.width}} {median:>11} {cpu:>8} {ratio:>26}  {goal:<28} {verdict}  {notes}".rstrip()

    def finish(self) -> int:
        """Print the summary (or the JSON document); the exit status: 1 if a row missed its goal, else 0."""
        missed = [r for r in self.recorded if r.verdict == "MISSES"]
        goaled = [r for r in self.recorded if r.goal is not None]
        load_after = os.getloadavg()
        if self.json:
            options = {k: v for k, v in vars(self.options).items() if k != "json"}
            doc = {
                "benchmark": self.name,
                "description": self.description,
                "started": self.started.isoformat(timespec="seconds"),
                "options": options,
                "machine": {**machine(), "load_before": self.load_before, "load_after": load_after},
                "notes": self.notes,
                "rows": [r.as_json() for r in self.recorded],
                "goals_met": len(goaled) - len(missed),
                "goals_missed": len(missed),
            }
            print(json.dumps(doc, indent=1, default=str))
        else:
            self._print_header()
            print(f"load average after: {' '.join(f'{x:.2f}' for x in load_after)} (other work inflates times)")
            print(
                f"goals met: {len(goaled) - len(missed)} of {len(goaled)}"
                f"{' (missed: ' + '; '.join(r.label for r in missed) + ')' if missed else ''}; "
                f"measurements only (no goal in benchmarks/goals.toml): {len(self.recorded) - len(goaled)} rows"
            )
        return 1 if missed else 0
