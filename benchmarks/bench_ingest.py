"""Benchmark of ldpcore.ingest on files larger than the memory it may use.

1. A generated 100-million-row Parquet file of categorical records (d = 10,000 skewed
   categories "cat00000".."cat09999") -> read_categorical.
2. A generated 10-million-point latitude/longitude Parquet file -> read_points on a
   1024 x 1024 grid over a fixed box.
3. With --per-user RULE: a generated Parquet file of --events events (default 30 million) of
   users "u0".."u2999999" -> read_categorical with that per-user rule (no baseline).
Each run is a fresh subprocess that prints its own peak RSS (ru_maxrss), so the peak is
the whole process's. Rows: median seconds (seconds per million rows as a note) and peak RSS (the file's size
on disk and in memory as a note), each with its ratio to a baseline on the same file: pyarrow
(Parquet row batches of 1,048,576 rows) with pyarrow.compute.value_counts per batch, or
numpy.histogram2d per batch, summed. pyarrow is not a dependency of ldpcore (pandas is
not installed either): install it for the baseline with `python -m pip install pyarrow`;
without it the baseline is skipped. The two results are compared (a note: same counts). Measurements only:
benchmarks/goals.toml sets no goal here.

The files are generated once into --dir (default: a folder in the system's temporary
directory) by DuckDB from a hash of the row number, so they are the same on every machine.
Usage: python benchmarks/bench_ingest.py [--repeats R] [--rows N] [--points N] [--dir DIR]
       [--memory-limit 1GB] [--per-user first|mode|distinct:K [--events N]] [--json]
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, Bench, Note  # first: it puts the repository on sys.path

ROWS = ("ingest", "ingest-peak", "baseline", "baseline-peak")
D = 10_000
GRID = 1024
BBOX = (-74.10, 40.60, -73.80, 40.90)  # west, south, east, north
BATCH = 1 << 20
USERS = 3_000_000


def uniform(salt: int) -> str:
    """SQL: a uniform number in (0, 1) from a hash of the row number i (reproducible)."""
    return f"((hash(i * 4 + {salt}) % 4294967291)::DOUBLE + 0.5) / 4294967291"


def generate(bench: Bench, dirpath: Path, rows: int, points: int, events: int) -> tuple[Path, Path, Path]:
    import duckdb

    cats, pts = dirpath / f"categories_{rows}.parquet", dirpath / f"points_{points}.parquet"
    log = dirpath / f"events_{events}.parquet"
    con = duckdb.connect()
    if events and not log.exists():
        t = time.perf_counter()
        con.execute(
            f"COPY (SELECT 'u' || (hash(i * 7) % {USERS}) AS user_id, "
            f"printf('cat%05d', (hash(i * 7 + 1) % {D})::INT) AS category FROM range({events}) t(i)) "
            f"TO '{log}' (FORMAT PARQUET)"
        )
        bench.note(f"generated {log.name} in {time.perf_counter() - t:.0f} s")
    if not cats.exists():
        t = time.perf_counter()
        # a skewed law over d categories: floor(d * u^2.5), u uniform
        con.execute(
            f"COPY (SELECT printf('cat%05d', floor({D} * pow({uniform(0)}, 2.5))::INT) AS category "
            f"FROM range({rows}) t(i)) TO '{cats}' (FORMAT PARQUET)"
        )
        bench.note(f"generated {cats.name} in {time.perf_counter() - t:.0f} s")
    if not pts.exists():
        t = time.perf_counter()
        # a city: 8 centres (Box-Muller normals around them), a few points outside the box
        radius = f"sqrt(-2 * ln({uniform(1)}))"
        con.execute(
            f"COPY (SELECT 40.75 + 0.02 * (i % 8 - 3.5) + 0.03 * {radius} * cos(2 * pi() * {uniform(2)}) AS lat, "
            f"-73.95 + 0.025 * ((i // 8) % 8 - 3.5) + 0.03 * {radius} * sin(2 * pi() * {uniform(2)}) AS lon "
            f"FROM range({points}) t(i)) TO '{pts}' (FORMAT PARQUET)"
        )
        bench.note(f"generated {pts.name} in {time.perf_counter() - t:.0f} s")
    con.close()
    return cats, pts, log


# --- what each subprocess runs ------------------------------------------------------------


def child(task: str, path: str, memory_limit: str, per_user: str) -> dict:
    import resource

    import numpy as np

    if task.startswith("ingest"):
        from ldpcore.data.ingest import read_categorical, read_points
    else:
        import pyarrow.compute as pc
        import pyarrow.parquet as pq
    start = time.perf_counter()  # the imports above are not timed
    if task == "ingest-categorical":
        hist, _ = read_categorical(path, "category", memory_limit=memory_limit)
        result: Any = dict(zip(hist.labels or (), hist.counts.tolist()))
    elif task == "ingest-per-user":
        hist, _ = read_categorical(
            path, "category", user_column="user_id", per_user=per_user, memory_limit=memory_limit
        )
        result = dict(zip(hist.labels or (), hist.counts.tolist()))
    elif task == "ingest-points":
        hist, _ = read_points(path, "lat", "lon", width=GRID, height=GRID, bbox=BBOX, memory_limit=memory_limit)
        result = hist.counts
    elif task == "baseline-categorical":
        result = {}
        for batch in pq.ParquetFile(path).iter_batches(batch_size=BATCH, columns=["category"]):
            counts = pc.value_counts(batch.column(0))
            for value, n in zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist()):
                result[value] = result.get(value, 0) + n
    else:
        west, south, east, north = BBOX
        grid = np.zeros((GRID, GRID), dtype=np.int64)
        for batch in pq.ParquetFile(path).iter_batches(batch_size=BATCH, columns=["lat", "lon"]):
            lat, lon = (batch.column(j).to_numpy() for j in (0, 1))
            grid += np.histogram2d(lat, lon, bins=[GRID, GRID], range=[[south, north], [west, east]])[0].astype(
                np.int64
            )
        result = np.flipud(grid).ravel()
    seconds = time.perf_counter() - start
    digest: list[Any]
    if isinstance(result, dict):
        digest = sorted(result.items())
    else:
        digest = [int(result.sum()), int((result * np.arange(result.size)).sum() % 1_000_000_007)]
    return {"seconds": seconds, "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "digest": digest}


def measure(task: str, path: Path, repeats: int, memory_limit: str, per_user: str) -> dict:
    runs = []
    for _ in range(repeats):
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                task,
                str(path),
                "--memory-limit",
                memory_limit,
                "--per-user",
                per_user,
            ],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "peak_rss": max(r["peak_rss"] for r in runs),
        "digest": runs[0]["digest"],
    }


def has_pyarrow() -> bool:
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return False
    return True


def mb(nbytes: float) -> str:
    return f"{nbytes / 2**20:,.0f} MB"


def main(argv: list[str] | None = None) -> int:
    bench = Bench(__file__, ROWS, __doc__, repeats=3, width=40)
    ap = bench.parser
    ap.add_argument("--rows", type=int, default=100_000_000)
    ap.add_argument("--points", type=int, default=10_000_000)
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "ldpcore-bench-ingest")
    ap.add_argument("--memory-limit", default="1GB")
    ap.add_argument("--per-user", default="", help="also time this per-user rule on an event log")
    ap.add_argument("--events", type=int, default=30_000_000)
    ap.add_argument("--child", nargs=2, metavar=("TASK", "FILE"), help=argparse.SUPPRESS)
    args = bench.parse(argv)
    if args.child:
        task, path = args.child
        print(json.dumps(child(task, path, args.memory_limit, args.per_user)))
        return 0

    import duckdb

    args.dir.mkdir(parents=True, exist_ok=True)
    cats, pts, log = generate(bench, args.dir, args.rows, args.points, args.events if args.per_user else 0)
    con = duckdb.connect()
    sizes = con.execute(f"SELECT sum(strlen(category)), count(DISTINCT category) FROM '{cats}'").fetchone()
    assert sizes is not None  # an aggregate returns one row
    chars, distinct = sizes
    con.close()
    baseline = has_pyarrow()
    bench.note(
        f"DuckDB {duckdb.__version__}, memory_limit {args.memory_limit}, {args.repeats} runs each "
        f"(medians; peak RSS is the largest run's), baseline: "
        f"{'pyarrow row batches + value_counts / numpy.histogram2d' if baseline else 'skipped (no pyarrow)'}"
    )
    cases = (
        (
            "categorical",
            cats,
            args.rows,
            f"{args.rows:,} rows, d = {distinct:,}; file {mb(cats.stat().st_size)} on disk, in memory "
            f"{mb(chars + 4 * args.rows)} as an Arrow string column, {mb(args.rows * (8 + sys.getsizeof('cat00000')))} "
            "as Python strings (pandas object column)",
        ),
        (
            "points",
            pts,
            args.points,
            f"{args.points:,} points -> {GRID} x {GRID} grid; file {mb(pts.stat().st_size)} on disk, "
            f"{mb(16 * args.points)} in memory as two float64 columns",
        ),
    ) + (
        (
            (
                "per-user",
                log,
                args.events,
                f"{args.events:,} events of up to {USERS:,} users, per_user={args.per_user}; "
                f"file {mb(log.stat().st_size)} "
                "on disk",
            ),
        )
        if args.per_user
        else ()
    )
    for kind, path, rows, what in cases:
        bench.note(f"{kind}: {what}")
        ours = measure(f"ingest-{kind}", path, args.repeats, args.memory_limit, args.per_user)
        seconds = peak = None
        notes: dict[str, Note] = {}
        if baseline and kind != "per-user":
            theirs = measure(f"baseline-{kind}", path, args.repeats, args.memory_limit, args.per_user)
            label = f"{kind}: pyarrow+numpy"
            per_million = {"s per million rows": theirs["seconds"] / rows * 1e6}
            seconds = bench.record("baseline", label, theirs["seconds"], repeats=args.repeats, notes=per_million)
            peak = bench.record("baseline-peak", f"{label}, peak RSS", theirs["peak_rss"] / 2**20, unit="MB")
            notes = {"same counts": theirs["digest"] == ours["digest"]}
        label = f"{kind}: ldpcore.ingest"
        per_million = {"s per million rows": ours["seconds"] / rows * 1e6}
        bench.record(
            "ingest", label, ours["seconds"], repeats=args.repeats, baseline=seconds, notes=per_million | notes
        )
        bench.record("ingest-peak", f"{label}, peak RSS", ours["peak_rss"] / 2**20, unit="MB", baseline=peak)
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
