"""The benchmarks' goals and harness (benchmarks/_common.py, benchmarks/goals.toml), without running a benchmark:
every goal belongs to a row a script declares, no script keeps a goal of its own, and the verdicts, the table
and the JSON document are what the harness's docstring says."""

import ast
import io
import json
import re
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from conftest import ROOT

BENCHMARKS = ROOT / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
from _common import Bench, Goal, GoalError, Row, load_goals  # noqa: E402

SCRIPTS = sorted(BENCHMARKS.glob("bench_*.py"))


def declared_rows(script: Path) -> tuple[str, ...]:
    """The script's module-level ROWS, read from its source (it must be a tuple of string literals)."""
    for node in ast.parse(script.read_text()).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["ROWS"]:
            return ast.literal_eval(node.value)
    raise AssertionError(f"{script.name} declares no ROWS")


def test_every_benchmark_declares_its_rows_and_reports_through_the_harness():
    assert len(SCRIPTS) >= 12
    for script in SCRIPTS:
        rows = declared_rows(script)
        assert rows and len(set(rows)) == len(rows) and all(isinstance(r, str) for r in rows), script.name
        source = script.read_text()
        assert "Bench(__file__, ROWS" in source and "bench.finish()" in source, script.name
        # no goal or verdict of its own: those come from goals.toml through the harness
        assert not re.search(r"MISSED|SLOW|\bOVER\b|\[target|\[goal|\bGOAL\b|\bLIMITS?\b", source), script.name


def test_every_goal_names_a_script_and_a_row_it_declares():
    goals = load_goals()
    assert goals
    for bench, entries in goals.items():
        script = BENCHMARKS / f"{bench}.py"
        assert script.exists(), f"goals.toml: [{bench}] names no script"
        rows = declared_rows(script)
        for row_id, goal in entries.items():
            assert row_id in rows, f"goals.toml: [{bench}.{row_id}]: {bench}.py declares no such row"
            assert goal.baseline is None or goal.baseline in rows, f"[{bench}.{row_id}]: unknown baseline"
            assert re.match(r"Issue \d+: ", goal.why), f"[{bench}.{row_id}]: why names no issue"


def goals_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "goals.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "entry, message",
    [
        ('seconds = 1.0\nwhy = "x"\nfoo = 2', "unknown keys"),
        ("seconds = 1.0", "no 'why'"),
        ('ratio = 2.0\nwhy = "x"', "'ratio' and 'over' go with 'baseline'"),
        ('over = 1.0\nwhy = "x"', "'ratio' and 'over' go with 'baseline'"),
        ('baseline = "b"\nseconds = 1.0\nwhy = "x"', "'ratio' and 'over' go with 'baseline'"),
        ('max = 2.0\nwhy = "x"', "'max' with 'unit'"),
        ('why = "x"', "no bound"),
        ('seconds = -1\nwhy = "x"', "positive"),
    ],
)
def test_a_malformed_goal_is_refused_with_its_place(tmp_path, entry, message):
    with pytest.raises(GoalError, match=re.escape(message)) as err:
        load_goals(goals_file(tmp_path, f"[bench_x.a-row]\n{entry}\n"))
    assert "[bench_x.a-row]" in str(err.value)


def test_a_goal_for_an_undeclared_row_stops_the_benchmark(tmp_path):
    path = goals_file(tmp_path, '[bench_x.gone]\nseconds = 1\nwhy = "Issue 1: x"\n')
    with pytest.raises(GoalError, match="gone"):
        Bench("bench_x.py", ("a",), "x", goals=path)
    bench = Bench("bench_y.py", ("a",), "x", goals=path)  # another benchmark's goals do not concern it
    with pytest.raises(GoalError, match="'b'"):
        bench.record("b", "b", 1.0)


def test_verdicts_on_synthetic_rows():
    base = Row("base", "baseline", 0.5)
    seconds = Goal("w", seconds=1.0)
    ratio = Goal("w", seconds=1.0, ratio=3.0, baseline="base")
    memory = Goal("w", max=1024, unit="MB")
    assert Row("a", "a", 1.0, goal=seconds).verdict == "meets"  # the bound itself meets it
    assert Row("a", "a", 1.2, goal=seconds).missed == ["median 1.2 s > 1 s"]
    assert Row("a", "a", 1.0, baseline=base, goal=ratio).verdict == "meets"  # 1 s, 2x
    over = Row("a", "a", 1.6, baseline=base, goal=ratio)
    assert over.ratio == pytest.approx(3.2) and over.missed == ["median 1.6 s > 1 s", "ratio 3.2x > 3x"]
    assert Row("a", "a", 0.9, baseline=Row("base", "b", 0.2), goal=ratio).missed == ["ratio 4.5x > 3x"]
    floor = Row("floor", "floor", 2.5)
    above = Goal("w", over=1.0, baseline="floor")
    assert Row("a", "a", 3.5, baseline=floor, goal=above).verdict == "meets"  # 1 s over the floor
    assert Row("a", "a", 3.75, baseline=floor, goal=above).missed == ["1.25 over floor > 1"]
    failed_floor = Row("floor", "floor", error="Timeout")
    assert Row("a", "a", 0.1, baseline=failed_floor, goal=above).missed == ["baseline floor not measured"]
    assert Row("m", "m", 1000, unit="MB", goal=memory).verdict == "meets"
    assert Row("m", "m", 1500, unit="MB", goal=memory).verdict == "MISSES"
    assert Row("a", "a", 9.0).verdict == "measured only"  # no goal
    assert Row("a", "a", error="Timeout").verdict == "failed"
    assert Row("a", "a", error="Timeout", goal=seconds).missed == ["not measured: Timeout"]
    for row in (
        Row("m", "m", 1.0, unit="MB", goal=seconds),  # a time goal on a memory row
        Row("a", "a", 1.0, goal=memory),  # a memory goal on a time row
        Row("a", "a", 1.0, goal=ratio),  # a ratio goal without its baseline
        Row("a", "a", 1.0, baseline=Row("other", "o", 1.0), goal=ratio),  # against another baseline
    ):
        with pytest.raises(GoalError):
            row.verdict  # noqa: B018


SYNTHETIC = """
[bench_synthetic.work]
seconds = 10.0
ratio = 1.5
baseline = "floor"
why = "Issue 0: the work within 1.5x its floor."

[bench_synthetic.memory]
max = 100
unit = "MB"
why = "Issue 0: a small footprint."
"""


def synthetic(tmp_path: Path, argv: list[str], work: float) -> tuple[int, str]:
    """A benchmark of two sums (the work `work` times the floor's size) and a memory row: its exit status and
    what it prints."""
    bench = Bench(
        "bench_synthetic.py", ("floor", "work", "memory"), "Synthetic.", 3, goals=goals_file(tmp_path, SYNTHETIC)
    )
    bench.parser.add_argument("--size", type=int, default=1000)
    out = io.StringIO()
    with redirect_stdout(out):
        args = bench.parse(argv)
        bench.note(f"size {args.size}")
        floor, _ = bench.time("floor", "sum of a range", lambda: sum(range(args.size)))
        bench.record("work", "the work", floor.median * work, cpu=floor.cpu, repeats=3, baseline=floor)
        bench.record("memory", "its memory", 12.5, unit="MB")
        status = bench.finish()
    return status, out.getvalue()


def test_json_document_of_a_synthetic_benchmark(tmp_path):
    status, out = synthetic(tmp_path, ["--json", "--repeats", "3", "--size", "200"], work=1.2)
    doc = json.loads(out)  # the whole output is one JSON document
    assert status == 0 and doc["benchmark"] == "bench_synthetic" and doc["options"] == {"repeats": 3, "size": 200}
    assert doc["notes"] == ["size 200"] and doc["goals_met"] == 2 and doc["goals_missed"] == 0
    machine = doc["machine"]
    assert machine["cores"] >= 1 and len(machine["load_before"]) == len(machine["load_after"]) == 3
    assert {"cpu", "python", "numpy"} <= set(machine)
    floor, work, memory = doc["rows"]
    assert floor["verdict"] == "measured only" and floor["goal"] is None and floor["repeats"] == 3
    assert floor["median_seconds"] > 0 and floor["cpu_seconds"] >= 0 and floor["value"] is None
    assert work["baseline"] == "floor" and work["ratio"] == pytest.approx(1.2) and work["verdict"] == "meets"
    assert work["goal"] == {
        "why": "Issue 0: the work within 1.5x its floor.",
        "seconds": 10.0,
        "ratio": 1.5,
        "baseline": "floor",
    }
    assert memory["value"] == 12.5 and memory["unit"] == "MB" and memory["median_seconds"] is None
    assert memory["verdict"] == "meets"


def test_a_missed_goal_exits_1_and_the_table_says_so(tmp_path):
    status, out = synthetic(tmp_path, ["--size", "200"], work=2.0)
    assert status == 1
    line = next(x for x in out.splitlines() if x.startswith("the work"))
    assert "2x floor" in line and "<= 10 s and <= 1.5x floor" in line and "MISSES; ratio 2x > 1.5x" in line
    assert re.search(r"^sum of a range .* - +measured only$", out, re.M)
    assert "load average before: " in out and "load average after: " in out
    assert "goals met: 1 of 2 (missed: the work); measurements only (no goal in benchmarks/goals.toml): 1 rows" in out


def test_the_readme_says_how_to_run_every_benchmark():
    section = (ROOT / "README.md").read_text().split("## Benchmarks\n")[1].split("\n## ")[0]
    assert "`--json`" in section and "`--repeats`" in section and "`benchmarks/goals.toml`" in section
    assert "status 1" in section
    for script in SCRIPTS:
        assert f"python benchmarks/{script.name}" in section, script.name


def test_a_real_benchmark_at_tiny_size_prints_one_json_document():
    out = subprocess.run(
        [sys.executable, "benchmarks/bench_randomizers.py", "--n", "300", "--d", "8", "--only", "grr", "--repeats", "1"]
        + ["--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    doc = json.loads(out.stdout)
    assert out.returncode == (1 if doc["goals_missed"] else 0), out.stderr
    assert doc["benchmark"] == "bench_randomizers" and doc["options"]["n"] == 300 and doc["options"]["only"] == ["grr"]
    loop, randomize = doc["rows"]
    assert loop["id"] == "loop" and loop["label"] == "grr: per-respondent loop" and loop["verdict"] == "measured only"
    assert randomize["baseline"] == "loop" and randomize["goal"]["ratio"] == 0.2
    assert randomize["ratio"] == pytest.approx(randomize["median_seconds"] / loop["median_seconds"])
    assert randomize["verdict"] == ("meets" if randomize["ratio"] <= 0.2 else "MISSES")
