"""Start the app with `streamlit run` on a free localhost port and drive Debian's Chromium."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LANDING = "the others follow as they land"  # ui.kit.runs.LANDING (test_background_cells checks they agree)
OUTPUT = ROOT / "tests" / "output" / "e2e"  # screenshots, downloads and server logs of the browser tests
# the second st.image (Reconstruct: the ESA reconstruction) shows another picture than `src`
IMAGE_CHANGED = (
    "(src) => { const imgs = document.querySelectorAll('[data-testid=\"stImage\"] img');"
    " return imgs.length > 1 && imgs[1].getAttribute('src') !== src; }"
)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    for name in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if name and Path(name).exists():
            return name
    return None


def needs_browser():
    """The pytest mark of the browser tests: skipped, with the reason, where Debian's chromium is not
    installed; an error instead when REQUIRE_BROWSER is set (.ci/run installs it)."""
    import pytest

    if chromium_path() is None and os.environ.get("REQUIRE_BROWSER"):
        raise RuntimeError("REQUIRE_BROWSER is set but Debian's chromium is not installed")
    return pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(
    port: int | None = None,
    timeout: float = 60.0,
    env: dict | None = None,
    host: str = "127.0.0.1",
    flags: tuple[str, ...] = ("--server.address", "127.0.0.1", "--server.headless", "true"),
    script: str = "app.py",
):
    """Yield (base URL, process) of `streamlit run <script>` (the app by default) on port (default: a free one),
    run from the repository's folder (its .streamlit/config.toml applies); stop it afterwards.
    env: extra environment variables for the server (e.g. cache budgets); flags: the command line's options
    besides the port (flags=() and host="localhost": the README's command, .streamlit/config.toml decides);
    the server's stdout and stderr go to OUTPUT/streamlit-<port>.log."""
    port = port or free_port()
    OUTPUT.mkdir(parents=True, exist_ok=True)
    log = open(OUTPUT / f"streamlit-{port}.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port), *flags],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})},
    )
    url = f"http://{host}:{port}"
    try:
        deadline = time.time() + timeout
        while True:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                pass
            if time.time() > deadline or proc.poll() is not None:
                raise RuntimeError(f"streamlit did not start; see {log.name}")
            time.sleep(0.3)
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@contextlib.contextmanager
def streamlit_app(timeout: float = 60.0, script: str = "app.py"):
    """Yield the base URL of `streamlit run <script>` (the app by default) on a free port; stop it afterwards."""
    with streamlit_server(timeout=timeout, script=script) as (url, _):
        yield url


def rss_mb(pid: int) -> float:
    """Resident memory of a process (MB), from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def wait_idle(page, timeout: float = 60_000) -> None:
    """Wait until Streamlit has run the script and is not running it (stApp's script state: neither 'initial',
    before the first run, nor 'running'), with no 'running' status widget, and every cell of a sweep drawn as
    it lands has landed (no caption ending in ui.kit.runs.LANDING)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    page.wait_for_function(
        "(landing) => document.querySelector('[data-testid=\"stApp\"]')"
        ".getAttribute('data-test-script-state') === 'notRunning'"
        " && !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " && document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0"
        " && !document.body.innerText.includes(landing)",
        arg=LANDING,
        timeout=timeout,
    )


def metric_value(page, label: str) -> str:
    """The displayed value of the st.metric labelled `label`."""
    return page.evaluate(
        """(label) => {
            for (const m of document.querySelectorAll('[data-testid="stMetric"]')) {
                const l = m.querySelector('[data-testid="stMetricLabel"]');
                if (l && l.innerText.trim().startsWith(label))
                    return m.querySelector('[data-testid="stMetricValue"]').innerText.trim();
            }
            return null; }""",
        label,
    )


def wait_for_metrics(page, count: int, timeout: float = 60_000) -> None:
    """Wait until the page shows at least `count` st.metric elements."""
    page.wait_for_function(
        f"() => document.querySelectorAll('[data-testid=\"stMetric\"]').length >= {count}", timeout=timeout
    )


def open_page(page, url: str, metrics: int = 0) -> None:
    """Go to url and wait until the script has run and shows at least `metrics` metrics."""
    page.goto(url)
    wait_idle(page)
    if metrics:
        wait_for_metrics(page, metrics)
        wait_idle(page)


def wait_metric_change(page, label: str, before: str, timeout: float = 60_000) -> None:
    """Wait until the st.metric labelled `label` shows another value than `before`."""
    page.wait_for_function(
        """([label, before]) => {
            for (const m of document.querySelectorAll('[data-testid="stMetric"]')) {
                const l = m.querySelector('[data-testid="stMetricLabel"]');
                if (l && l.innerText.trim().startsWith(label))
                    return m.querySelector('[data-testid="stMetricValue"]').innerText.trim() !== before;
            }
            return false; }""",
        arg=[label, before],
        timeout=timeout,
    )


def slider_input(page, key: str):
    """The keyboard-operable range input of the slider widget with this key."""
    return page.locator(f'.st-key-{key} input[type="range"]').first


def assert_no_error(page) -> None:
    """No dialog (e.g. "Page not found"), exception or st.error on the page."""
    assert page.locator('[role="dialog"]').count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0
