"""Latency of the dashboard in a real browser, page by page: time from a control change (or from opening a
page) to the updated view, in headless Chromium driven by Playwright against `streamlit run app.py`.

A view counts as updated when the page's visible content (text, images, chart paths) differs from before
the change and Streamlit has finished running the script: the first usable view. It is complete when, in
addition, every cell of a sweep drawn as it lands has landed (no caption ends in ui.kit.runs.LANDING). Steps
use values not computed before, so nothing is served from the cache; "fresh server" rows start a server for
every repetition (the worst case: empty caches, first session).

Three floor rows come first, without any code of this project: a fresh server's first view of a page with one
metric, and with one metric and one small Plotly chart (what no first view can beat), and one step of a
slider with a metric beneath (what no step can beat). A row per interaction, by kind: a step or single change
(its median to the usable view, as a ratio to the step floor), a first view (its median to the complete view, as
a ratio to the chart floor) or a sweep (two rows: to the usable and to the complete view); the other median and
the maximum as notes. Goals (issue 29): benchmarks/goals.toml. A row that cannot be driven is reported as
failed; the others still run.

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
from _common import ROOT, Bench, Row  # first: it puts the repository on sys.path

sys.path.insert(0, str(ROOT / "tests"))
from e2e_support import (  # noqa: E402
    CHROMIUM_ARGS,
    chromium_path,
    slider_input,
    streamlit_app,
    wait_idle,
)

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
# the floor of a step: a slider keyed like the pages' eps_c slider, and a metric that follows it
FLOOR_STEP = (
    "import streamlit as st\n"
    "stops = [round(0.01 * 1.2**i, 4) for i in range(60)]\n"
    "st.metric('eps_c', st.select_slider('eps_c', stops, value=stops[30], key='eps_c_log'))\n"
)
TIMEOUT = 180_000  # ms: the slowest views (Map report table) take tens of seconds today


USABLE = (
    "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
    " && document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0"
)


def settled(page, before: str | None = None) -> tuple[float, float]:
    """Wait until the view differs from `before` (if given), something is drawn and the script has finished (the
    usable view), then until it is complete (wait_idle: no cell still to land): the two perf_counter times."""
    if before is not None:
        page.wait_for_function(f"(b) => ({SIGNATURE})() !== b", arg=before, polling=20, timeout=TIMEOUT)
    page.wait_for_function(DRAWN, polling=20, timeout=TIMEOUT)
    page.wait_for_function(USABLE, polling=20, timeout=TIMEOUT)
    usable = time.perf_counter()
    wait_idle(page, timeout=TIMEOUT)
    return usable, time.perf_counter()


Seconds = tuple[float, float]  # (to the usable view, to the complete view)


def timed_change(page, action: Callable[[], None]) -> Seconds:
    """Seconds from doing `action` on a settled page to the updated view, usable and complete."""
    before = page.evaluate(SIGNATURE)
    start = time.perf_counter()
    action()
    usable, complete = settled(page, before)
    return usable - start, complete - start


def timed_open(page, url: str) -> Seconds:
    """Seconds from navigating to url to its first view, usable and complete."""
    start = time.perf_counter()
    page.goto(url, timeout=TIMEOUT)
    usable, complete = settled(page)
    return usable - start, complete - start


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

    def steps(
        self, path: str, action: Callable[[Page, int], Callable[[], None]], reps: int, url: str | None = None
    ) -> list[Seconds]:
        """A warm page at path (of the app's server, or of url's): the change action(page, i) for i = 0, 1, ..."""
        with self.page((url or self.url) + path) as page:
            return [timed_change(page, action(page, i)) for i in range(reps)]

    def cold(
        self,
        path: str,
        reps: int,
        then: Callable[[Page], Callable[[], None]] | None = None,
        script: str = "app.py",
    ) -> list[Seconds]:
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

    def floor(self, name: str, reps: int) -> list[Seconds]:
        """The first view of a fresh server running the FLOORS script `name` (no code of this project)."""
        script = self.tmp / f"floor_{name.replace(' ', '_')}.py"
        script.write_text(FLOORS[name])
        return self.cold("/", reps, script=str(script))

    def floor_step(self, reps: int) -> list[Seconds]:
        """Steps of FLOOR_STEP's slider on its own server (no code of this project)."""
        script = self.tmp / "floor_step.py"
        script.write_text(FLOOR_STEP)
        with streamlit_app(script=str(script)) as url:
            return self.steps("/", step_eps_c, reps, url=url)

    def uploaded(self, reps: int, action: Callable[[Page, int], Callable[[], None]]) -> list[Seconds]:
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


# the row ids: the floors, then the kinds of interaction (each kind has its goal in goals.toml)
ROWS = ("floor-first", "floor-chart", "floor-step", "step", "first-view", "sweep-usable", "sweep-complete")
STEP, FIRST, SWEEP = "step", "first-view", "sweep"
FLOOR_OF = {STEP: "floor-step", FIRST: "floor-chart", SWEEP: "floor-chart"}  # the floor a kind's ratio is to


def rows(b: Driver, reps: int) -> list[tuple[str, str, Callable[[], list[Seconds]]]]:
    """(interaction, kind (or the floor's row id), measure) for every row of the issue's table, after the floors
    that the first views and the steps cannot go below."""
    compare = ("grr", "oue", "sue", "olh", "hadamard", "solh")

    def step(name: str, path: str, action=step_eps_c):
        return name, STEP, lambda: b.steps(path, action, reps)

    def cold(name: str, path: str, kind: str = FIRST, then=None):
        return name, kind, lambda: b.cold(path, reps, then=then)

    return [
        ("Floor (fresh server, no project code): metric", "floor-first", lambda: b.floor("metric", reps)),
        (
            "Floor (fresh server, no project code): metric and chart",
            "floor-chart",
            lambda: b.floor("metric and chart", reps),
        ),
        ("Floor (no project code): slider step, metric", "floor-step", lambda: b.floor_step(reps)),
        step("Reconstruct, eps_c step, Horse", "/reconstruct?dataset=horse"),
        step("Reconstruct, eps_c step, Child", "/reconstruct?dataset=child"),
        step("Reconstruct, eps_c step, Map", "/reconstruct?dataset=map"),
        step("Reconstruct, eps_c step, Map, fragments tau=16", "/reconstruct?dataset=map&fragments=true&tau=16"),
        (
            "Reconstruct, switch encoding, CSV d=5,000 n=1e7",
            STEP,
            lambda: b.uploaded(reps, lambda page, i: choose(page, "Encoding", ENCODINGS[i % len(ENCODINGS)])),
        ),
        ("Reconstruct, eps_c step, CSV d=5,000 n=1e7", STEP, lambda: b.uploaded(reps, step_eps_c)),
        cold("Reconstruct, first view (fresh server), Horse", "/reconstruct?dataset=horse"),
        cold("Reconstruct, first view (fresh server), Map", "/reconstruct?dataset=map"),
        cold("Trade-offs, default (fresh server)", "/tradeoffs", SWEEP),
        step(
            "Trade-offs, adding one encoding",
            "/tradeoffs",
            lambda page, i: choose(page, "Compare with", compare[i % len(compare)]),
        ),
        cold(
            "Trade-offs, adding cms (fresh server)",
            "/tradeoffs",
            SWEEP,
            then=lambda page: choose(page, "Compare with", "cms"),
        ),
        cold("Report table, Horse (fresh server)", "/report_table?dataset=horse", SWEEP),
        cold("Report table, Child (fresh server)", "/report_table?dataset=child", SWEEP),
        cold("Report table, Map (fresh server)", "/report_table?dataset=map", SWEEP),
        cold("Accountant, first view (fresh server)", "/accountant"),
        step(
            "Accountant, change n",
            "/accountant",
            lambda page, i: type_into(page, "acc_n", f"{100_000 + 7_919 * (i + 1)}"),
        ),
        cold("Multi-message, first view (fresh server)", "/multimessage"),
        step("Multi-message, eps_c step", "/multimessage", lambda page, i: step_eps_c(page, i, "mm_eps")),
        cold("Adversary, first view (fresh server)", "/adversary"),
        step("Adversary, eps_c step", "/adversary"),
        cold("LDP-SGD, n = 200,000 (fresh server)", "/sgd?sgd_n=200000"),
        cold("Numeric, first view (fresh server)", "/numeric"),
        cold("Longitudinal, first view (fresh server)", "/longitudinal"),
        cold("Crowd IDs, first view (fresh server)", "/crowds"),
    ]


def record(bench: Bench, name: str, kind: str, seconds: list[Seconds], floors: dict[str, Row]) -> None:
    """The row(s) of one interaction (or floor) measured `seconds`, the floors kept for the rows after them."""
    usable = statistics.median(u for u, _ in seconds)
    complete = statistics.median(c for _, c in seconds)
    notes = {"usable": usable, "complete": complete, "max": max(c for _, c in seconds)}
    reps = len(seconds)
    if kind in ROWS[:3]:  # a floor: a step's is to the usable view, a first view's to the complete one
        floors[kind] = bench.record(kind, name, usable if kind == "floor-step" else complete, repeats=reps, notes=notes)
    elif kind == SWEEP:
        bench.record("sweep-usable", f"{name}: usable", usable, repeats=reps, notes=notes)
        floor = floors[FLOOR_OF[kind]]
        bench.record("sweep-complete", f"{name}: complete", complete, repeats=reps, baseline=floor, notes=notes)
    else:
        median = usable if kind == STEP else complete
        bench.record(kind, name, median, repeats=reps, baseline=floors[FLOOR_OF[kind]], notes=notes)


def main() -> int:
    bench = Bench(__file__, ROWS, __doc__, repeats=5, width=56)
    bench.parser.add_argument("--only", nargs="*", default=(), help="run the rows whose name contains one of these")
    args = bench.parse()
    if chromium_path() is None:
        sys.exit("Debian's chromium is not installed (apt-get install chromium).")
    from playwright.sync_api import sync_playwright

    floors: dict[str, Row] = {}
    with tempfile.TemporaryDirectory() as tmp, streamlit_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        driver = Driver(browser, url, Path(tmp))
        for name, kind, measure in rows(driver, args.repeats):
            if args.only and not any(s.lower() in name.lower() for s in (*args.only, "floor")):
                continue  # the floors always run: the other rows are compared with them
            try:
                seconds = measure()
            except Exception as exc:  # a row that cannot be driven is reported, the others still run
                error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
                for row in ("sweep-usable", "sweep-complete") if kind == SWEEP else (kind,):
                    failed = bench.record(row, name, error=error, baseline=floors.get(FLOOR_OF.get(kind, "")))
                    if kind in ROWS[:3]:
                        floors[kind] = failed
                continue
            record(bench, name, kind, seconds, floors)
        browser.close()
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
