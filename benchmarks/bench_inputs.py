"""Large and hostile inputs through the command line: seconds and peak memory of each.

Writes, in a temporary folder, a 10^7-line count CSV, a 10^7-row value,count CSV, a 101-million-row
CSV (192 MiB, beyond the 20-million-row limit) and a 7072x7072 PNG (beyond the 50-megapixel limit),
then times `python -m ldpcore run --input FILE` on each (median of --repeats), with its peak resident memory
(VmHWM, the largest over the repetitions) as a row of its own and the outcome (ran, or the refusal) as a note.
A count CSV that the command refuses is a failed row. Goals: benchmarks/goals.toml.
Usage: python benchmarks/bench_inputs.py [--repeats R] [--lines 10000000] [--json]
"""

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import ROOT, Bench  # first: it puts the repository on sys.path

sys.path.insert(0, str(ROOT / "tests"))
from conftest import cli_measured, huge_png  # noqa: E402

ROWS = (
    "count-csv",
    "count-csv-peak",
    "labelled-csv",
    "labelled-csv-peak",
    "rows-csv",
    "rows-csv-peak",
    "png",
    "png-peak",
)


def measure(path: Path) -> tuple[float, float, int, str]:
    """Seconds, peak resident MB, status and the stderr line of one `run --input path`."""
    start = time.perf_counter()
    status, err, peak = cli_measured(
        "run", "--input", path, "--delta", "1e-8", "--eps-c", "1", "--json", limit_bytes=16 * 2**30
    )
    return time.perf_counter() - start, peak / 2**20, status, err.strip()


def main() -> int:
    bench = Bench(__file__, ROWS, __doc__, repeats=1, width=44)
    bench.parser.add_argument("--lines", type=int, default=10_000_000)
    args = bench.parse()
    counts = np.random.default_rng(0).integers(0, 1000, args.lines).tolist()
    with tempfile.TemporaryDirectory() as tmp:
        files = {
            "count-csv": (
                f"{args.lines:,}-line count CSV",
                "counts.csv",
                lambda p: p.write_text("\n".join(map(str, counts)) + "\n"),
            ),
            "labelled-csv": (
                f"{args.lines:,}-row value,count CSV",
                "labelled.csv",
                lambda p: p.write_text("value,count\n" + "".join(f"v{i},{c}\n" for i, c in enumerate(counts))),
            ),
            "rows-csv": ("101,000,000-row CSV (192 MiB)", "rows.csv", lambda p: p.write_bytes(b"1\n" * 101_000_000)),
            "png": ("7072x7072 PNG (50.01 megapixels)", "big.png", lambda p: p.write_bytes(huge_png(7072, 7072, 255))),
        }
        for row, (label, name, write) in files.items():
            path = Path(tmp) / name
            write(path)
            runs = [measure(path) for _ in range(args.repeats)]
            seconds, peak = statistics.median(r[0] for r in runs), max(r[1] for r in runs)
            status, err = runs[-1][2], runs[-1][3]
            outcome = "ran" if status == 0 else f"refused (status {status}): {err[:110]}"
            error = None if status == 0 or row != "count-csv" else outcome  # the count CSV must run
            bench.record(row, label, seconds, repeats=args.repeats, notes={"outcome": outcome}, error=error)
            bench.record(f"{row}-peak", f"{label}, peak RSS", peak, unit="MB", error=error)
            path.unlink()
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
