"""Latency in a real browser: from moving the eps_c slider on the Reconstruct page to the
updated reconstruction on screen (default sample: the Horse look-alike).

Starts `streamlit run app.py` on a free port, drives Debian's Chromium with Playwright,
steps eps_c down its log grid (each step a value not computed before, so nothing is
served from the cache) and prints the median. Usage: python benchmarks/bench_browser.py [--steps N]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from e2e_support import (  # noqa: E402
    CHROMIUM_ARGS,
    IMAGE_CHANGED,
    chromium_path,
    metric_value,
    slider_input,
    streamlit_app,
    wait_idle,
)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=15)
    args = parser.parse_args()
    if chromium_path() is None:
        sys.exit("Debian's chromium is not installed (apt-get install chromium).")
    from playwright.sync_api import sync_playwright

    with streamlit_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        start = time.perf_counter()
        page.goto(f"{url}/reconstruct")
        wait_idle(page)
        page.wait_for_function("() => document.querySelectorAll('[data-testid=\"stImage\"] img').length > 1")
        print(
            f"first view of the Reconstruct page (cold, includes loading the data): {time.perf_counter() - start:.2f} s"
        )
        latencies = []
        for _ in range(args.steps):
            before = metric_value(page, "eps_l_inf")
            src = page.locator('[data-testid="stImage"] img').nth(1).get_attribute("src")
            slider_input(page, "eps_c").focus()
            start = time.perf_counter()
            page.keyboard.press("ArrowLeft")
            page.wait_for_function(IMAGE_CHANGED, arg=src, polling="raf", timeout=30_000)
            latencies.append(time.perf_counter() - start)
            wait_idle(page)
            print(f"  eps_l_inf {before} -> {metric_value(page, 'eps_l_inf')}: {latencies[-1] * 1000:.0f} ms")
        browser.close()
    median = statistics.median(latencies)
    print(
        f"median time from changing eps_c to the updated reconstruction: {median:.3f} s over {len(latencies)} "
        f"changes (max {max(latencies):.3f} s)   [target <= 1 s: {'ok' if median <= 1 else 'MISSED'}]"
    )


if __name__ == "__main__":
    main()
