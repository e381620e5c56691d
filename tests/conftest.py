"""Shared test helpers: AppTest page helpers, upload builders, and the browser fixtures."""

import contextlib
import io
import os
import re
import resource
import struct
import subprocess
import sys
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
# `python -m ldpcore` that writes its peak resident memory (VmHWM, which starts afresh at exec, unlike the
# rusage maximum, which keeps the forking parent's) to the file named by LDPCORE_PEAK_FILE when it exits
_MEASURED_CLI = """import atexit, os, runpy, sys
def report():
    with open("/proc/self/status") as status:
        peak = next(line for line in status if line.startswith("VmHWM:")).split()[1]
    with open(os.environ["LDPCORE_PEAK_FILE"], "w") as out:
        out.write(peak)
atexit.register(report)
sys.argv[0] = "ldpcore"
runpy.run_module("ldpcore", run_name="__main__")
"""


def cli_measured(*args, limit_bytes: int) -> tuple[int, str, int]:
    """Run `python -m ldpcore ARGS` (stdout discarded) with at most limit_bytes of address space (RLIMIT_AS):
    (status, stderr, its peak resident memory in bytes)."""
    with tempfile.TemporaryDirectory() as tmp:
        peak_file = Path(tmp) / "peak"
        out = subprocess.run(
            [sys.executable, "-c", _MEASURED_CLI, *map(str, args)],
            cwd=ROOT,
            text=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, "LDPCORE_PEAK_FILE": str(peak_file), "OPENBLAS_NUM_THREADS": "1"},
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes)),
        )
        return out.returncode, out.stderr, int(peak_file.read_text()) * 1024


@dataclass(frozen=True)
class CliResult:
    """What `python -m ldpcore ARGS` gave: its status and what it printed."""

    returncode: int
    stdout: str
    stderr: str


def cli(*args) -> CliResult:
    """`python -m ldpcore ARGS` in this process, from the repository's folder (as a subprocess would run it, at a
    fraction of the cost: the library is imported once per test worker). Argparse's usage errors exit with their
    status; everything else is main()'s return value."""
    from ldpcore.cli import main

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main([str(a) for a in args])
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else 2
    finally:
        os.chdir(here)
    return CliResult(status, out.getvalue(), err.getvalue())


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def huge_png(width: int, height: int, level: int = 0) -> bytes:
    """A valid grayscale PNG of width x height, every pixel of luminance level (default black), built
    without holding it decoded."""
    comp = zlib.compressobj(9)
    row = b"\x00" + bytes([level]) * width
    idat = b"".join(comp.compress(row) for _ in range(height)) + comp.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


@pytest.fixture
def small_png(tmp_path):
    """A 6x4 gradient PNG (path) with n = sum of luminance."""
    arr = np.arange(24, dtype=np.uint8).reshape(4, 6) * 10
    path = tmp_path / "small.png"
    Image.fromarray(arr, mode="L").save(path)
    return path


def open_page(page: str, **query):
    """Run app.py's navigation on `page` (a registered app_pages/ file) with the given URL query parameters."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=180)
    for k, v in query.items():
        at.query_params[k] = v
    if page != "app_pages/home.py":
        at.switch_page(page)
    return at.run()


def metric(at, label: str) -> str:
    """The value of the st.metric labelled `label`."""
    return next(m.value for m in at.metric if m.label == label)


def metric_exact(at, label: str) -> str:
    """The exact value a metric's tooltip gives first ("Exact: 3,366,030.29. ..."), without separators."""
    help_text = next(m.proto.help for m in at.metric if m.label == label)
    return help_text.removeprefix("Exact: ").split(" ")[0].rstrip(".").replace(",", "")


def as_read(markdown: str) -> str:
    """Markdown's text as the browser shows it, as far as the pages' escapes go: a backslash-escaped
    character (ui.kit.format.plain: a file name, a label) is the character itself."""
    return re.sub(r"\\(.)", r"\1", markdown)


def captions(at) -> str:
    """Every st.caption of the page, one per line, as read."""
    return "\n".join(as_read(c.value) for c in at.caption)


def assert_clean(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def assert_one_error(at, message: str):
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) == 1 and message in as_read(at.error[0].value), [e.value for e in at.error]


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium driven by Playwright, shared by the browser tests."""
    from e2e_support import CHROMIUM_ARGS, chromium_path
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def app_url():
    """One `streamlit run app.py` server for every browser test of the session."""
    from e2e_support import streamlit_app

    with streamlit_app() as url:
        yield url


@pytest.fixture
def page(browser):
    """A fresh browser context (downloads allowed) and page per test."""
    context = browser.new_context(viewport={"width": 1500, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    yield pg
    context.close()
