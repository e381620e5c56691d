"""Server memory under heavy views: resident memory (RSS) of `streamlit run app.py` when idle, after
stepping the Map look-alike through 150 distinct (eps_c, seed) views on the Reconstruct page (eps_c down and up
its grid between 1.78 and about 0.06, where Lemma II.6 is not capped, a new seed every 30 views), and
after uploading an all-white 7000x7000 PNG (49 megapixels, just under the 50-megapixel limit), then a 24 MB
PNG of random pixels (just under the 25 MB upload limit).

Drives one Chromium session (Playwright). Target (issue 11): each "after" at most 2 GB above idle.
The caches' budgets (ui/kit/cache.py) can be set with LDPCORE_CACHE_<NAME>_MB before running.
Usage: python benchmarks/bench_memory.py [--steps 150] [--port 8621]
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from conftest import huge_png  # noqa: E402
from e2e_support import CHROMIUM_ARGS, IMAGE_CHANGED, chromium_path, rss_mb, slider_input, streamlit_server, wait_idle  # noqa: E402

LIMIT_MB = 2048
LEG = 30  # views per seed


def step(page, press) -> float:
    """Press a key (a new view) and wait for the new reconstruction; seconds taken."""
    src = page.locator('[data-testid="stImage"] img').nth(1).get_attribute("src")
    start = time.perf_counter()
    press()
    page.wait_for_function(IMAGE_CHANGED, arg=src, polling=100, timeout=300_000)
    wait_idle(page, timeout=300_000)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--port", type=int, default=8621)
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an environment variable for the server, e.g. LDPCORE_CACHE_RUNS_MB=256",
    )
    args = parser.parse_args()
    if chromium_path() is None:
        sys.exit("Debian's chromium is not installed (apt-get install chromium).")
    from playwright.sync_api import sync_playwright

    env = dict(pair.split("=", 1) for pair in args.env)
    with (
        streamlit_server(args.port, env=env) as (url, proc),
        sync_playwright() as p,
        tempfile.TemporaryDirectory() as tmp,
    ):
        time.sleep(2)
        idle = rss_mb(proc.pid)
        print(f"idle server: RSS {idle:,.0f} MB")
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        page.goto(f"{url}/reconstruct?dataset=map&eps_c=1.78")
        wait_idle(page, timeout=300_000)
        page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=\"stImage\"] img').length > 1", timeout=300_000
        )
        seconds = []
        for i in range(args.steps):  # legs of LEG views, eps_c down then up its grid, a new seed each leg
            leg, j = divmod(i, LEG)
            if j == 0 and leg > 0:
                seed = page.locator(".st-key-seed input")
                seconds.append(step(page, lambda: (seed.fill(str(leg)), seed.press("Enter"))))
            else:
                slider_input(page, "eps_c_log").focus()
                key = "ArrowLeft" if leg % 2 == 0 else "ArrowRight"
                seconds.append(step(page, lambda: page.keyboard.press(key)))
            if (i + 1) % 25 == 0:
                print(f"  {i + 1} views: RSS {rss_mb(proc.pid):,.0f} MB (last view {seconds[-1]:.2f} s)")
        after_map = rss_mb(proc.pid)
        print(
            f"after {args.steps} Map views: RSS {after_map:,.0f} MB, {after_map - idle:+,.0f} MB above idle "
            f"(median view {sorted(seconds)[len(seconds) // 2]:.2f} s)"
        )

        path = Path(tmp) / "white-7000.png"
        path.write_bytes(huge_png(7000, 7000, 255))
        page.goto(f"{url}/reconstruct?dataset=upload")
        wait_idle(page, timeout=300_000)
        start = time.perf_counter()
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
        page.get_by_text("white-7000.png: n = ").wait_for(timeout=600_000)
        page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=\"stImage\"] img').length > 1", timeout=600_000
        )
        wait_idle(page, timeout=600_000)
        upload = time.perf_counter() - start
        after_upload = rss_mb(proc.pid)
        print(
            f"after uploading a {path.stat().st_size / 1024:.0f} KB all-white 7000x7000 PNG ({upload:.1f} s to its "
            f"reconstruction): RSS {after_upload:,.0f} MB, {after_upload - idle:+,.0f} MB above idle"
        )

        noise = Path(tmp) / "noise-4900.png"  # random pixels do not compress: 24 MB, under the 25 MB upload limit
        Image.fromarray(np.random.default_rng(0).integers(0, 256, (4900, 4900), dtype=np.uint8)).save(noise)
        page.goto(f"{url}/reconstruct?dataset=upload")
        wait_idle(page, timeout=300_000)
        start = time.perf_counter()
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(noise))
        page.get_by_text("noise-4900.png: n = ").wait_for(timeout=600_000)
        wait_idle(page, timeout=600_000)
        after_noise = rss_mb(proc.pid)
        print(
            f"after uploading a {noise.stat().st_size / 2**20:.1f} MB noise 4900x4900 PNG "
            f"({time.perf_counter() - start:.1f}"
            f" s to its reconstruction): RSS {after_noise:,.0f} MB, {after_noise - idle:+,.0f} MB above idle"
        )
        browser.close()
    worst = max(after_map, after_upload, after_noise) - idle
    print(
        f"largest rise above the idle server: {worst:,.0f} MB   "
        f"[target <= {LIMIT_MB:,} MB: {'ok' if worst <= LIMIT_MB else 'MISSED'}]"
    )
    sys.exit(0 if worst <= LIMIT_MB else 1)


if __name__ == "__main__":
    main()
