"""What the benchmarks share: the repository on sys.path (importing this module puts it there)
and a median timer."""

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def median_seconds(fn, repeats, setup=None):
    """Median wall and CPU seconds (over all threads) of fn() over repeats, and its last result;
    setup(), if given, runs untimed before each call."""
    wall, cpu, result = [], [], None
    for _ in range(repeats):
        if setup is not None:
            setup()
        start, start_cpu = time.perf_counter(), time.process_time()
        result = fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu), result
