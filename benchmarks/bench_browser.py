"""Latency of the dashboard in a real browser, page by page: time from a control change (or from opening a
page) to the updated view, in headless Chromium driven by Playwright against `streamlit run app.py`.

A view counts as updated when the page's visible content (text, images, chart paths) differs from before
the change and Streamlit has finished running the script. Steps use values not computed before, so nothing
is served from the cache; "cold" rows start a fresh server for every repetition (the worst case: empty
caches, first session). Prints, per row, the median and maximum over the repetitions and the median's ratio
to the goal (<= 1 meets it). Two floor rows come first: a fresh server's first view of a page with one metric,
and with one metric and one small Plotly chart, without any code of this project (what no first view can beat).

Usage: python benchmarks/bench_browser.py [--reps 5] [--only SUBSTRING ...]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from e2e_support import CHROMIUM_ARGS, chromium_path, slider_input, streamlit_app, wait_idle  # noqa: E402

# the page's output (not its widgets): texts, metrics and tables, image sources (their lengths and ends)
# and the size of every chart path
SIGNATURE = """() => {
    const main = document.querySelector('[data-testid="stMain"]') || document.body;
    const sel = '[data-testid="stMetric"], [data-testid="stMarkdown"], [data-testid="stCaptionContainer"], '
        + '[data-testid="stDataFrame"], [data-testid="stTable"], [data-testid="stAlert"], [data-testid="stHeading"]';
    const text = [...main.querySelectorAll(sel)].map(e => e.innerText).join('|');
    const imgs = [...main.querySelectorAll('img')].map(i => (i.src || '').length + ':' + (i.src || '').slice(-24));
    const paths = [...main.querySelectorAll('.js-plotly-plot path')].map(p => (p.getAttribute('d') || '').length);
    return text + '|' + imgs.join(',') + '|' + paths.join(',');
}"""
# something drawn: an image, a chart, a metric or a table in the main area
DRAWN = (
    "() => document.querySelector('"
    + ", ".join(
        f'[data-testid="stMain"] {x}'
        for x in (
            "img",
            ".js-plotly-plot",
            '[data-testid="stMetric"]',
            '[data-testid="stDataFrame"]',
            '[data-testid="stTable"]',
        )
    )
    + "') !== null"
)
# the floor of a fresh server's first view, without any of this project's code: Streamlit and its frontend with
# one metric, and with one metric and one small Plotly chart (the chart pages also load Plotly's renderer)
FLOORS = {
    "metric": "import streamlit as st\nst.metric('x', 1)\n",
    "metric and chart": "import plotly.graph_objects as go\nimport streamlit as st\nst.metric('x', 1)\n"
    "st.plotly_chart(go.Figure(go.Scatter(x=[1, 2, 3], y=[1, 3, 2])))\n",
}
TIMEOUT = 180_000  # ms: the slowest views (Map report table) take tens of seconds today


def settled(page, before: str | None = None) -> None:
    """Wait until the view differs from `before` (if given), something is drawn and the script has finished."""
    if before is not None:
        page.wait_for_function(f"(b) => ({SIGNATURE})() !== b", arg=before, polling=20, timeout=TIMEOUT)
    page.wait_for_function(DRAWN, polling=20, timeout=TIMEOUT)
    wait_idle(page, timeout=TIMEOUT)


def timed_change(page, action: Callable[[], None]) -> float:
    """Seconds from doing `action` on a settled page to the updated view."""
    before = page.evaluate(SIGNATURE)
    start = time.perf_counter()
    action()
    settled(page, before)
    return time.perf_counter() - start


def timed_open(page, url: str) -> float:
    """Seconds from navigating to url to its first complete view."""
    start = time.perf_counter()
    page.goto(url, timeout=TIMEOUT)
    settled(page)
    return time.perf_counter() - start


def step_eps_c(page, _i: int = 0, key: str = "eps_c") -> Callable[[], None]:
    """The action that moves eps_c one stop down its log slider (a value not computed before)."""

    def act() -> None:
        slider_input(page, f"{key}_log").focus()
        page.keyboard.press("ArrowLeft")

    return act


def choose(page, label: str, option: str) -> Callable[[], None]:
    """The action that picks `option` in the selectbox or multiselect labelled `label`."""

    def act() -> None:
        widget = page.locator('[data-testid="stSelectbox"], [data-testid="stMultiSelect"]').filter(has_text=label)
        widget.first.locator("input").first.click()
        page.keyboard.type(option)
        # click the exact option: Enter takes the first fuzzy match ("oue" also matches c-o-unt-sk-e-tch)
        page.get_by_role("option", name=option, exact=True).first.click(timeout=TIMEOUT)
        page.keyboard.press("Escape")

    return act


def type_into(page, key: str, value: str) -> Callable[[], None]:
    """The action that types value into the text or number input with widget key `key` and presses Enter."""

    def act() -> None:
        box = page.locator(f".st-key-{key} input").first
        box.fill(value)
        box.press("Enter")

    return act


def zipf_csv(folder: Path, d: int = 5_000, n: int = 10_000_000) -> Path:
    """A histogram CSV (value,count) of n respondents over d values with Zipf(1.1) frequencies."""
    weights = 1.0 / np.arange(1, d + 1) ** 1.1
    counts = np.floor(weights / weights.sum() * n).astype(np.int64)
    counts[0] += n - counts.sum()
    path = folder / "zipf_5000.csv"
    path.write_text("value,count\n" + "".join(f"v{i},{c}\n" for i, c in enumerate(counts)))
    return path


@dataclass
class Bench:
    """A browser and a server shared by the warm rows; cold rows get their own server each time."""

    browser: object
    url: str
    tmp: Path

    @contextlib.contextmanager
    def page(self, url: str | None = None) -> Iterator[object]:
        context = self.browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()
        try:
            if url is not None:
                page.goto(url, timeout=TIMEOUT)
                settled(page)
            yield page
        finally:
            context.close()

    def steps(self, path: str, action: Callable[[object, int], Callable[[], None]], reps: int) -> list[float]:
        """A warm page at path: the change action(page, i) for i = 0, 1, ..."""
        with self.page(self.url + path) as page:
            return [timed_change(page, action(page, i)) for i in range(reps)]

    def cold(
        self,
        path: str,
        reps: int,
        then: Callable[[object], Callable[[], None]] | None = None,
        script: str = "app.py",
    ) -> list[float]:
        """A fresh server of script per repetition: the first view of path (or, with then, the change after it)."""
        out = []
        for _ in range(reps):
            with streamlit_app(script=script) as url, self.page() as page:
                if then is None:
                    out.append(timed_open(page, url + path))
                else:
                    page.goto(url + path, timeout=TIMEOUT)
                    settled(page)
                    out.append(timed_change(page, then(page)))
        return out

    def floor(self, name: str, reps: int) -> list[float]:
        """The first view of a fresh server running the FLOORS script `name` (no code of this project)."""
        script = self.tmp / f"floor_{name.replace(' ', '_')}.py"
        script.write_text(FLOORS[name])
        return self.cold("/", reps, script=str(script))

    def uploaded(self, reps: int, action: Callable[[object, int], Callable[[], None]]) -> list[float]:
        """Reconstruct on the uploaded Zipf CSV (d = 5,000, n = 1e7): the change action(page, i) each time."""
        csv = zipf_csv(self.tmp)
        with self.page(self.url + "/reconstruct") as page:
            choose(page, "Input", "upload")()
            wait_idle(page, timeout=TIMEOUT)
            page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(csv))
            page.get_by_text(f"{csv.name}: n = ").wait_for(timeout=TIMEOUT)
            settled(page)
            return [timed_change(page, action(page, i)) for i in range(reps)]


ENCODINGS = ("grr", "oue", "olh", "hadamard", "cms", "count-sketch", "sue", "solh")


def rows(b: Bench, reps: int) -> list[tuple[str, float | None, Callable[[], list[float]]]]:
    """(interaction, goal in seconds or None for a floor, measure) for every row of the issue's table, after the
    floors that the first views cannot go below."""
    compare = ("grr", "oue", "sue", "olh", "hadamard", "solh")
    return [
        *((f"Floor (fresh server, no project code): {name}", None, lambda n=name: b.floor(n, reps)) for name in FLOORS),
        ("Reconstruct, eps_c step, Horse", 0.3, lambda: b.steps("/reconstruct?dataset=horse", step_eps_c, reps)),
        ("Reconstruct, eps_c step, Child", 0.4, lambda: b.steps("/reconstruct?dataset=child", step_eps_c, reps)),
        ("Reconstruct, eps_c step, Map", 0.8, lambda: b.steps("/reconstruct?dataset=map", step_eps_c, reps)),
        (
            "Reconstruct, eps_c step, Map, fragments tau=16",
            0.8,
            lambda: b.steps("/reconstruct?dataset=map&fragments=true&tau=16", step_eps_c, reps),
        ),
        (
            "Reconstruct, switch encoding, CSV d=5,000 n=1e7",
            1.5,
            lambda: b.uploaded(reps, lambda page, i: choose(page, "Encoding", ENCODINGS[i % len(ENCODINGS)])),
        ),
        ("Reconstruct, eps_c step, CSV d=5,000 n=1e7", 0.4, lambda: b.uploaded(reps, step_eps_c)),
        ("Reconstruct, first view (fresh server), Horse", 2.0, lambda: b.cold("/reconstruct?dataset=horse", reps)),
        ("Reconstruct, first view (fresh server), Map", 3.0, lambda: b.cold("/reconstruct?dataset=map", reps)),
        ("Trade-offs, default (fresh server)", 2.0, lambda: b.cold("/tradeoffs", reps)),
        (
            "Trade-offs, adding one encoding",
            2.0,
            lambda: b.steps(
                "/tradeoffs",
                lambda page, i: choose(page, "Compare with", compare[i % len(compare)]),
                reps,
            ),
        ),
        (
            "Trade-offs, adding cms (fresh server)",
            5.0,
            lambda: b.cold("/tradeoffs", reps, then=lambda page: choose(page, "Compare with", "cms")),
        ),
        ("Report table, Horse (fresh server)", 3.0, lambda: b.cold("/report_table?dataset=horse", reps)),
        ("Report table, Child (fresh server)", 4.0, lambda: b.cold("/report_table?dataset=child", reps)),
        ("Report table, Map (fresh server)", 8.0, lambda: b.cold("/report_table?dataset=map", reps)),
        ("Accountant, first view (fresh server)", 2.0, lambda: b.cold("/accountant", reps)),
        (
            "Accountant, change n",
            0.5,
            lambda: b.steps(
                "/accountant",
                lambda page, i: type_into(page, "acc_n", f"{100_000 + 7_919 * (i + 1)}"),
                reps,
            ),
        ),
        ("Multi-message, first view (fresh server)", 2.0, lambda: b.cold("/multimessage", reps)),
        (
            "Multi-message, eps_c step",
            1.0,
            lambda: b.steps("/multimessage", lambda page, i: step_eps_c(page, i, "mm_eps"), reps),
        ),
        ("LDP-SGD, n = 200,000 (fresh server)", 10.0, lambda: b.cold("/sgd?sgd_n=200000", reps)),
        ("Numeric, first view (fresh server)", 2.0, lambda: b.cold("/numeric", reps)),
        ("Longitudinal, first view (fresh server)", 2.0, lambda: b.cold("/longitudinal", reps)),
        ("Crowd IDs, first view (fresh server)", 2.0, lambda: b.cold("/crowds", reps)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions per row (default 5)")
    parser.add_argument("--only", nargs="*", default=(), help="run the rows whose name contains one of these")
    args = parser.parse_args()
    if chromium_path() is None:
        sys.exit("Debian's chromium is not installed (apt-get install chromium).")
    from playwright.sync_api import sync_playwright

    results = []
    with tempfile.TemporaryDirectory() as tmp, streamlit_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        bench = Bench(browser, url, Path(tmp))
        print(f"{'interaction':<56} {'median':>8} {'max':>8} {'goal':>6} {'ratio':>6}")
        for name, goal, measure in rows(bench, args.reps):
            if args.only and not any(s.lower() in name.lower() for s in args.only):
                continue
            try:
                seconds = measure()
            except Exception as exc:  # a row that cannot be driven is reported, the others still run
                print(f"{name:<56} failed: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}")
                continue
            median = statistics.median(seconds)
            if goal is None:
                print(f"{name:<56} {median:7.2f}s {max(seconds):7.2f}s {'-':>6} {'-':>6}", flush=True)
                continue
            results.append((name, median, goal))
            print(f"{name:<56} {median:7.2f}s {max(seconds):7.2f}s {goal:5.1f}s {median / goal:6.2f}", flush=True)
        browser.close()
    met = sum(m <= g for _, m, g in results)
    print(f"{met} of {len(results)} rows meet their goal (median <= goal)")


if __name__ == "__main__":
    main()
