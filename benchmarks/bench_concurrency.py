"""A class on one server: several browser sessions step eps_c on the Reconstruct page at once.

Starts `streamlit run app.py` (or uses --url), opens --sessions Chromium pages on the Reconstruct
page (default data: the Horse look-alike), waits until every page shows its reconstruction,
then every session steps eps_c --steps times down its log grid, each step as soon as its
previous one is on screen (or --think seconds later; all sessions walk the same values, as a class
following a teacher does). A step's latency runs from the key press to the updated reconstruction on screen.
Rows: every session's median step, the median and the slowest of all steps (goals: benchmarks/goals.toml),
Chromium's floor (its CPU per step spread over the cores: what no server can go below) and the server's CPU
seconds per step.
--warm measures the same walk served from the caches: the part of a step no server-side speed-up can remove.
Usage: python benchmarks/bench_concurrency.py [--sessions 8] [--steps 15] [--warm] [--think S] [--port 8611]
       [--url URL [--pid PID]] [--json]
"""

import asyncio
import contextlib
import os
import statistics
import sys
import time
from pathlib import Path

from _common import ROOT, Bench  # first: it puts the repository on sys.path

sys.path.insert(0, str(ROOT / "tests"))
from e2e_support import CHROMIUM_ARGS, chromium_path, streamlit_server  # noqa: E402

ROWS = ("session", "step", "slowest-step", "browser-floor", "server-cpu")

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


async def measure(
    bench: Bench, url: str, sessions: int, steps: int, pid: int | None, think: float = 0.0, walk: str = ""
) -> list[list[float]]:
    """Open the sessions, then walk; the walk's CPU rows (Chromium's floor, the server's) labelled `walk`."""
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        start, ready = asyncio.Event(), list[object]()
        results: list[list[float]] = [[] for _ in range(sessions)]
        tasks = [
            asyncio.create_task(session(browser, url, steps, start, ready, results[i], think)) for i in range(sessions)
        ]
        opening = time.perf_counter()
        while len(ready) < sessions:  # every page shows its first view
            if any(t.done() for t in tasks):
                await asyncio.gather(*tasks)  # a session failed: raise its error
            await asyncio.sleep(0.1)
        bench.note(f"{sessions} sessions opened the page in {time.perf_counter() - opening:.1f} s")
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
        bench.note(
            f"machine CPU: {machine_cpu() - machine0:.1f} s over {wall:.1f} s wall (all processes, all cores); "
            f"Chromium: {chromium:.1f} s"
        )
        # every session waits for its own step, and all of them share the machine's cores with the browsers: while
        # all sessions step, a round of steps needs at least the browsers' CPU spread over every core
        bench.record(
            "browser-floor",
            f"{walk}browser floor: {sessions} sessions on {os.cpu_count()} cores",
            chromium / steps / (os.cpu_count() or 1),
            unit="s",
            notes={"Chromium CPU ms per step": chromium / (sessions * steps) * 1000},
        )
        if pid and cpu0 is not None:
            cpu = cpu_seconds(pid) - cpu0
            bench.record("server-cpu", f"{walk}server CPU per step", cpu / (sessions * steps), unit="s")
        await browser.close()
    return results


def report(bench: Bench, results: list[list[float]]) -> None:
    for i, r in enumerate(results):
        bench.record("session", f"session {i + 1}", statistics.median(r), repeats=len(r), notes={"max": max(r)})
    every = sorted(x for r in results for x in r)
    p90 = every[min(len(every) - 1, int(0.9 * len(every)))]
    bench.record(
        "step",
        f"all {len(every)} steps",
        statistics.median(every),
        repeats=len(every),
        notes={"min": every[0], "p90": p90},
    )
    bench.record("slowest-step", "the slowest step", every[-1], unit="s")


def main() -> int:
    bench = Bench(__file__, ROWS, __doc__)
    parser = bench.parser
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
    args = bench.parse()
    if chromium_path() is None:
        sys.exit("Debian's chromium is not installed (apt-get install chromium).")

    def run(url: str, pid: int | None) -> None:
        if args.warm:
            bench.note("warming the caches: one session walks the same steps")
            asyncio.run(measure(bench, url, 1, args.steps, pid, walk="warm-up: "))
        report(bench, asyncio.run(measure(bench, url, args.sessions, args.steps, pid, args.think)))

    if args.url:
        run(f"{args.url.rstrip('/')}/{args.page}", args.pid)
    else:
        with streamlit_server(args.port) as (url, proc):
            run(f"{url}/{args.page}", proc.pid)
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
