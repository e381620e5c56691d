"""Issue 28 in a real headless Chromium, on conftest's shared server: a 5-bin histogram's Report table fits 3,000 px
at 1280x720 and exports a CSV that parses and LaTeX that compiles; no text is cut on any page at 1280x720 (metrics,
segmented controls, table headers, labels). Screenshots in tests/output/e2e/seams/."""

import csv
import io
import shutil
import subprocess

import numpy as np
import pytest
from e2e_support import needs_browser, wait_idle
from test_e2e_seams import SHOTS, _histogram, _open

from ldpcore.export import LATEX_DOCUMENT
from ui.registry import PAGES as REGISTRY

pytestmark = [pytest.mark.browser, needs_browser()]


def test_a_5_bin_histograms_report_table_fits_and_exports(app_url, browser, tmp_path):
    _histogram(tmp_path / "counts.csv")
    context, page = _open(browser, "1280x720")
    try:
        page.goto(f"{app_url}/report_table?dataset=upload")
        wait_idle(page, 180_000)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(tmp_path / "counts.csv"))
        page.get_by_role("button", name="LaTeX", exact=True).wait_for(timeout=240_000)
        wait_idle(page, 240_000)
        page.wait_for_timeout(1500)  # the charts settle
        height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
        assert height <= 3000, height
        assert page.locator('[data-testid="stImage"]').count() == 0  # bar charts, not stretched pictures
        page.set_viewport_size({"width": 1280, "height": height})
        page.wait_for_timeout(1500)
        page.screenshot(path=str(SHOTS / "report-table-5-bins-1280.png"))
        with page.expect_download() as download:
            page.get_by_role("button", name="CSV", exact=True).click()
        rows = list(csv.DictReader(io.StringIO(open(download.value.path()).read())))
        numbers = [k for k in rows[0] if k not in ("method", "neighbouring", "native_neighbouring", "note")]
        parsed = [float(r[k]) for r in rows for k in numbers if r[k]]  # csv + float: no "1,059.18"
        assert len(parsed) > 20 and all(np.isfinite(parsed) | np.isinf(parsed))
        with page.expect_download() as download:
            page.get_by_role("button", name="LaTeX", exact=True).click()
        tex = open(download.value.path()).read()
        assert "ln(tau)" not in tex and r"$\ln" in tex and "$-$" in tex
        if shutil.which("pdflatex"):
            (tmp_path / "report_table.tex").write_text(tex)
            (tmp_path / "main.tex").write_text(LATEX_DOCUMENT)
            out = subprocess.run(
                ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex"],
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert out.returncode == 0, out.stdout[-2000:]
    finally:
        context.close()


# every element of these kinds whose text the browser cut: wider than its own box (an ellipsis), or reaching past
# the right edge of an ancestor that clips (a segmented control's last option beyond its column)
CUT = """() => {
    const kinds = {
        metric: '[data-testid="stMetric"]',
        segmented: '[data-testid="stButtonGroup"] button',
        header: '[data-testid="stTable"] th, [data-testid="stTableStyledTable"] th',
        label: '[data-testid="stWidgetLabel"]',
    };
    const clipper = (x) => {
        for (let a = x.parentElement; a; a = a.parentElement)
            if (getComputedStyle(a).overflowX !== 'visible') return a;
        return null;
    };
    const out = [];
    for (const [kind, selector] of Object.entries(kinds))
        for (const e of document.querySelectorAll(selector)) {
            for (const x of [e, ...e.querySelectorAll('*')])
                if (x.clientWidth > 0 && x.scrollWidth > x.clientWidth + 1 && x.innerText.trim())
                    out.push([kind, x.innerText.trim().slice(0, 80), 'wider than its box']);
            const a = clipper(e);
            if (a && e.getBoundingClientRect().right > a.getBoundingClientRect().right + 1)
                out.push([kind, e.innerText.trim().slice(0, 80), 'past the edge of its container']);
        }
    return out; }"""


@pytest.mark.parametrize("entry", REGISTRY, ids=[p.url_path or "home" for p in REGISTRY])
def test_no_text_is_cut_on_any_page_at_1280(app_url, browser, entry):
    context, page = _open(browser, "1280x720")
    try:
        page.goto(f"{app_url}/{entry.url_path}")
        page.locator("h1").first.wait_for(timeout=180_000)
        wait_idle(page, 240_000)
        page.wait_for_timeout(1500)
        wait_idle(page, 240_000)
        page.set_viewport_size({"width": 1280, "height": 3200})  # every part of the page laid out at this width
        page.wait_for_timeout(1000)
        cut = page.evaluate(CUT)
        page.screenshot(path=str(SHOTS / f"page-{entry.url_path or 'home'}-1280.png"))
        assert cut == [], cut
    finally:
        context.close()
