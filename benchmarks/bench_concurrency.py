"""A class on one server: several browser sessions step eps_c on the Reconstruct page at once.

Starts `streamlit run app.py` (or uses --url), opens --sessions Chromium pages on the Reconstruct
page (default data: the Horse look-alike), waits until every page shows its reconstruction,
then every session steps eps_c --steps times down its log grid, each step as soon as its
previous one is on screen (or --think seconds later; all sessions walk the same values, as a class
following a teacher does). A step's latency runs from the key press to the updated reconstruction on screen.
Prints every session's median, the distribution over all steps (median, p90, max) and the
server's CPU seconds per step. Target (issue 11): median <= 1.0 s and max <= 3 s for 8 x 15.
--warm measures the same walk served from the caches: the part of a step no server-side speed-up can remove.
Usage: python benchmarks/bench_concurrency.py [--sessions 8] [--steps 15] [--warm] [--think S] [--port 8611] [--url URL]
"""

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from e2e_support import CHROMIUM_ARGS, chromium_path, streamlit_server  # noqa: E402

# Waits run in the page on a MutationObserver (no polling, which would itself load 8 pages' CPU).
WHEN = """([condition, arg]) => new Promise(resolve => {
    const check = new Function('arg', condition);
    if (check(arg)) return resolve(true);
    const observer = new MutationObserver(() => { if (check(arg)) { observer.disconnect(); resolve(true); } });
    observer.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
})"""
IDLE = (
    "return !document.querySelector('[data-testid=\"stStatusWidget\"]')"
    " && document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0"
    " && document.querySelectorAll('[data-testid=\"stImage\"] img').length > 1;"
)
NEW_IMAGE = (
    "const imgs = document.querySelectorAll('[data-testid=\"stImage\"] img');"
    " return imgs.length > 1 && imgs[1].getAttribute('src') !== arg;"
)
SRC = "() => document.querySelectorAll('[data-testid=\"stImage\"] img')[1].getAttribute('src')"


async def when(page, condition: str, arg=None, timeout: float = 120) -> None:
    """Wait until the JavaScript condition (a function body of arg) holds on the page."""
    await asyncio.wait_for(page.evaluate(WHEN, [condition, arg]), timeout)


def machine_cpu() -> float:
    """CPU seconds used by the whole machine so far (every core), from /proc/stat."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    return (sum(map(int, fields)) - int(fields[3]) - int(fields[4])) / 100  # minus idle and iowait


def browser_cpu() -> float:
    """CPU seconds used so far by the running Chromium processes (the sessions' side of the machine)."""
    total = 0.0
    for proc in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, IndexError):
            if b"chromium" in (proc / "cmdline").read_bytes().split(b"\0")[0]:
                total += cpu_seconds(int(proc.name))
    return total


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime, stime in clock ticks (100 Hz)


async def session(
    browser, url: str, steps: int, start: asyncio.Event, ready: list, latencies: list, think: float
) -> None:
    context = await browser.new_context(viewport={"width": 1500, "height": 1000})
    page = await context.new_page()
    await page.goto(url, timeout=180_000)
    await when(page, IDLE, timeout=180)
    ready.append(page)
    await start.wait()
    slider = page.locator('.st-key-eps_c_log input[type="range"]').first
    for _ in range(steps):
        src = await page.evaluate(SRC)
        await slider.focus()
        begin = time.perf_counter()
        await page.keyboard.press("ArrowLeft")
        await when(page, NEW_IMAGE, src)
        latencies.append(time.perf_counter() - begin)
        await when(page, IDLE)
        await asyncio.sleep(think)


async def measure(url: str, sessions: int, steps: int, pid: int | None, think: float = 0.0) -> list[list[float]]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        start, ready, results = asyncio.Event(), [], [[] for _ in range(sessions)]
        tasks = [
            asyncio.create_task(session(browser, url, steps, start, ready, results[i], think)) for i in range(sessions)
        ]
        opening = time.perf_counter()
        while len(ready) < sessions:  # every page shows its first view
            if any(t.done() for t in tasks):
                await asyncio.gather(*tasks)  # a session failed: raise its error
            await asyncio.sleep(0.1)
        print(f"{sessions} sessions opened the page in {time.perf_counter() - opening:.1f} s")
        cpu0, machine0, browser0, wall0 = (
            (cpu_seconds(pid) if pid else None),
            machine_cpu(),
            browser_cpu(),
            time.perf_counter(),
        )
        start.set()
        await asyncio.gather(*tasks)
        wall = time.perf_counter() - wall0
        chromium = browser_cpu() - browser0
        print(
            f"machine CPU: {machine_cpu() - machine0:.1f} s over {wall:.1f} s wall (all processes, all cores); "
            f"Chromium: {chromium:.1f} s"
        )
        # every session waits for its own step, and all of them share the machine's cores with the browsers: while
        # all sessions step, a round of steps needs at least the browsers' CPU spread over every core
        floor = chromium / steps / (os.cpu_count() or 1)
        print(
            f"browser floor: Chromium used {chromium / (sessions * steps) * 1000:.0f} ms of CPU per step; with "
            f"{sessions} sessions on {os.cpu_count()} cores a step cannot average"
            f" below {floor:.2f} s, whatever the server"
        )
        if pid:
            cpu = cpu_seconds(pid) - cpu0
            print(f"server CPU: {cpu:.1f} s over {wall:.1f} s wall ({cpu / (sessions * steps) * 1000:.0f} ms per step)")
        await browser.close()
    return results


def report(results: list[list[float]]) -> bool:
    for i, r in enumerate(results):
        print(f"  session {i + 1}: median {statistics.median(r):.3f} s, max {max(r):.3f} s over {len(r)} steps")
    every = sorted(x for r in results for x in r)
    median, p90 = statistics.median(every), every[min(len(every) - 1, int(0.9 * len(every)))]
    ok = median <= 1.0 and every[-1] <= 3.0
    print(
        f"all {len(every)} steps: min {every[0]:.3f} s, median {median:.3f} s, p90 {p90:.3f} s, "
        f"max {every[-1]:.3f} s   [target median <= 1.0 s, max <= 3 s: {'ok' if ok else 'MISSED'}]"
    )
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--port", type=int, default=8611, help="port of the server this script starts")
    parser.add_argument("--url", help="measure a server that is already running (e.g. the multi-process deployment)")
    parser.add_argument("--pid", type=int, help="with --url: the server's process id, to report its CPU")
    parser.add_argument(
        "--page", default="reconstruct", help="the page's URL path and query, e.g. 'reconstruct?dataset=child'"
    )
    parser.add_argument(
        "--warm",
        action="store_true",
        help="first walk the same steps in one session, so the measured run is served from the shared caches: "
        "what is left is the sessions' own cost (script reruns, transfer, the browsers' rendering)",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="seconds each session looks at a new view before its next step (default: none)",
    )
    args = parser.parse_args()
    if chromium_path() is None:
        sys.exit("Debian's chromium is not installed (apt-get install chromium).")

    def run(url: str, pid: int | None) -> bool:
        if args.warm:
            print("warming the caches: one session walks the same steps")
            asyncio.run(measure(url, 1, args.steps, pid))
        return report(asyncio.run(measure(url, args.sessions, args.steps, pid, args.think)))

    if args.url:
        ok = run(f"{args.url.rstrip('/')}/{args.page}", args.pid)
    else:
        with streamlit_server(args.port) as (url, proc):
            ok = run(f"{url}/{args.page}", proc.pid)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
