"""Large and hostile inputs through the command line: seconds and peak memory of each.

Writes, in a temporary folder, a 10^7-line count CSV, a 10^7-row value,count CSV, a 101-million-row
CSV (192 MiB, beyond the 20-million-row limit) and a 7072x7072 PNG (beyond the 50-megapixel limit),
then times `python -m ldpcore run --input FILE` on each, with its peak resident memory (VmHWM).
Targets (issue 11): the 10^7-line CSV in <= 10 s and <= 1 GB; the refusals early.
Usage: python benchmarks/bench_inputs.py [--lines 10000000]
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from conftest import cli_measured, huge_png  # noqa: E402


def measure(path: Path) -> tuple[float, float, int, str]:
    """Seconds, peak resident MB, status and the stderr line of one `run --input path`."""
    start = time.perf_counter()
    status, err, peak = cli_measured(
        "run", "--input", path, "--delta", "1e-8", "--eps-c", "1", "--json", limit_bytes=16 * 2**30
    )
    return time.perf_counter() - start, peak / 2**20, status, err.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000_000)
    args = parser.parse_args()
    counts = np.random.default_rng(0).integers(0, 1000, args.lines).tolist()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files = {
            f"{args.lines:,}-line count CSV": (
                "counts.csv",
                lambda p: p.write_text("\n".join(map(str, counts)) + "\n"),
                True,
            ),
            f"{args.lines:,}-row value,count CSV": (
                "labelled.csv",
                lambda p: p.write_text("value,count\n" + "".join(f"v{i},{c}\n" for i, c in enumerate(counts))),
                False,
            ),
            "101,000,000-row CSV (192 MiB)": ("rows.csv", lambda p: p.write_bytes(b"1\n" * 101_000_000), False),
            "7072x7072 PNG (50.01 megapixels)": ("big.png", lambda p: p.write_bytes(huge_png(7072, 7072, 255)), False),
        }
        ok = True
        for label, (name, write, target) in files.items():
            path = tmp / name
            write(path)
            seconds, peak, status, err = measure(path)
            verdict = ""
            if target:
                hit = status == 0 and seconds <= 10 and peak <= 1024
                ok &= hit
                verdict = f"   [target <= 10 s and <= 1,024 MB: {'ok' if hit else 'MISSED'}]"
            outcome = "ran" if status == 0 else f"refused (status {status}): {err[:110]}"
            print(f"{label:36} {seconds:6.2f} s  peak {peak:7,.0f} MB  {outcome}{verdict}")
            path.unlink()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
