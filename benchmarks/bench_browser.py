"""Latency of the dashboard in a real browser, page by page: time from a control change (or from opening a
page) to the updated view, in headless Chromium driven by Playwright against `streamlit run app.py`.

A view counts as updated when the page's visible content (text, images, chart paths) differs from before
the change and Streamlit has finished running the script. Steps use values not computed before, so nothing
is served from the cache; "cold" rows start a fresh server for every repetition (the worst case: empty
caches, first session). A row per interaction: the median over the repetitions (the maximum as a note) and
its goal (benchmarks/goals.toml). Two floor rows come first: a fresh server's first view of a page with one
metric, and with one metric and one small Plotly chart, without any code of this project (what no first view
can beat). A row that cannot be driven is reported as failed; the others still run.

Usage: python benchmarks/bench_browser.py [--repeats 5] [--only SUBSTRING ...] [--json]
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from _common import ROOT, Bench  # first: it puts the repository on sys.path

sys.path.insert(0, str(ROOT / "tests"))
from e2e_support import CHROMIUM_ARGS, chromium_path, slider_input, streamlit_app, wait_idle  # noqa: E402

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

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
class Driver:
    """A browser and a server shared by the warm rows; cold rows get their own server each time."""

    browser: Browser
    url: str
    tmp: Path

    @contextlib.contextmanager
    def page(self, url: str | None = None) -> Iterator[Page]:
        context = self.browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()
        try:
            if url is not None:
                page.goto(url, timeout=TIMEOUT)
                settled(page)
            yield page
        finally:
            context.close()

    def steps(self, path: str, action: Callable[[Page, int], Callable[[], None]], reps: int) -> list[float]:
        """A warm page at path: the change action(page, i) for i = 0, 1, ..."""
        with self.page(self.url + path) as page:
            return [timed_change(page, action(page, i)) for i in range(reps)]

    def cold(
        self,
        path: str,
        reps: int,
        then: Callable[[Page], Callable[[], None]] | None = None,
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

    def uploaded(self, reps: int, action: Callable[[Page, int], Callable[[], None]]) -> list[float]:
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
ROWS = (
    "floor-metric",
    "floor-chart",
    "reconstruct-step-horse",
    "reconstruct-step-child",
    "reconstruct-step-map",
    "reconstruct-step-map-fragments",
    "reconstruct-switch-encoding-csv",
    "reconstruct-step-csv",
    "reconstruct-first-horse",
    "reconstruct-first-map",
    "tradeoffs-first",
    "tradeoffs-add-encoding",
    "tradeoffs-add-cms-first",
    "report-table-horse",
    "report-table-child",
    "report-table-map",
    "accountant-first",
    "accountant-change-n",
    "multimessage-first",
    "multimessage-step",
    "sgd-first",
    "numeric-first",
    "longitudinal-first",
    "crowds-first",
)


def rows(b: Driver, reps: int) -> list[tuple[str, str, Callable[[], list[float]]]]:
    """(row id, interaction, measure) for every row of the issue's table, after the floors that the first views
    cannot go below."""
    compare = ("grr", "oue", "sue", "olh", "hadamard", "solh")
    return [
        ("floor-metric", "Floor (fresh server, no project code): metric", lambda: b.floor("metric", reps)),
        (
            "floor-chart",
            "Floor (fresh server, no project code): metric and chart",
            lambda: b.floor("metric and chart", reps),
        ),
        (
            "reconstruct-step-horse",
            "Reconstruct, eps_c step, Horse",
            lambda: b.steps("/reconstruct?dataset=horse", step_eps_c, reps),
        ),
        (
            "reconstruct-step-child",
            "Reconstruct, eps_c step, Child",
            lambda: b.steps("/reconstruct?dataset=child", step_eps_c, reps),
        ),
        (
            "reconstruct-step-map",
            "Reconstruct, eps_c step, Map",
            lambda: b.steps("/reconstruct?dataset=map", step_eps_c, reps),
        ),
        (
            "reconstruct-step-map-fragments",
            "Reconstruct, eps_c step, Map, fragments tau=16",
            lambda: b.steps("/reconstruct?dataset=map&fragments=true&tau=16", step_eps_c, reps),
        ),
        (
            "reconstruct-switch-encoding-csv",
            "Reconstruct, switch encoding, CSV d=5,000 n=1e7",
            lambda: b.uploaded(reps, lambda page, i: choose(page, "Encoding", ENCODINGS[i % len(ENCODINGS)])),
        ),
        ("reconstruct-step-csv", "Reconstruct, eps_c step, CSV d=5,000 n=1e7", lambda: b.uploaded(reps, step_eps_c)),
        (
            "reconstruct-first-horse",
            "Reconstruct, first view (fresh server), Horse",
            lambda: b.cold("/reconstruct?dataset=horse", reps),
        ),
        (
            "reconstruct-first-map",
            "Reconstruct, first view (fresh server), Map",
            lambda: b.cold("/reconstruct?dataset=map", reps),
        ),
        ("tradeoffs-first", "Trade-offs, default (fresh server)", lambda: b.cold("/tradeoffs", reps)),
        (
            "tradeoffs-add-encoding",
            "Trade-offs, adding one encoding",
            lambda: b.steps(
                "/tradeoffs",
                lambda page, i: choose(page, "Compare with", compare[i % len(compare)]),
                reps,
            ),
        ),
        (
            "tradeoffs-add-cms-first",
            "Trade-offs, adding cms (fresh server)",
            lambda: b.cold("/tradeoffs", reps, then=lambda page: choose(page, "Compare with", "cms")),
        ),
        (
            "report-table-horse",
            "Report table, Horse (fresh server)",
            lambda: b.cold("/report_table?dataset=horse", reps),
        ),
        (
            "report-table-child",
            "Report table, Child (fresh server)",
            lambda: b.cold("/report_table?dataset=child", reps),
        ),
        ("report-table-map", "Report table, Map (fresh server)", lambda: b.cold("/report_table?dataset=map", reps)),
        ("accountant-first", "Accountant, first view (fresh server)", lambda: b.cold("/accountant", reps)),
        (
            "accountant-change-n",
            "Accountant, change n",
            lambda: b.steps(
                "/accountant",
                lambda page, i: type_into(page, "acc_n", f"{100_000 + 7_919 * (i + 1)}"),
                reps,
            ),
        ),
        ("multimessage-first", "Multi-message, first view (fresh server)", lambda: b.cold("/multimessage", reps)),
        (
            "multimessage-step",
            "Multi-message, eps_c step",
            lambda: b.steps("/multimessage", lambda page, i: step_eps_c(page, i, "mm_eps"), reps),
        ),
        ("sgd-first", "LDP-SGD, n = 200,000 (fresh server)", lambda: b.cold("/sgd?sgd_n=200000", reps)),
        ("numeric-first", "Numeric, first view (fresh server)", lambda: b.cold("/numeric", reps)),
        ("longitudinal-first", "Longitudinal, first view (fresh server)", lambda: b.cold("/longitudinal", reps)),
        ("crowds-first", "Crowd IDs, first view (fresh server)", lambda: b.cold("/crowds", reps)),
    ]


def main() -> int:
    bench = Bench(__file__, ROWS, __doc__, repeats=5, width=52)
    bench.parser.add_argument("--only", nargs="*", default=(), help="run the rows whose name contains one of these")
    args = bench.parse()
    if chromium_path() is None:
        sys.exit("Debian's chromium is not installed (apt-get install chromium).")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, streamlit_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        driver = Driver(browser, url, Path(tmp))
        for row, name, measure in rows(driver, args.repeats):
            if args.only and not any(s.lower() in name.lower() for s in args.only):
                continue
            try:
                seconds = measure()
            except Exception as exc:  # a row that cannot be driven is reported, the others still run
                bench.record(row, name, error=f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}")
                continue
            bench.record(row, name, statistics.median(seconds), repeats=len(seconds), notes={"max": max(seconds)})
        browser.close()
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
