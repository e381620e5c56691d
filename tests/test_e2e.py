"""End-to-end: `streamlit run app.py` driven by a real headless Chromium (Playwright).

Screenshots of every page go to tests/output/e2e/. Skipped, with the reason, where
Debian's chromium is not installed (.ci/run installs it). The server (app_url) and the
browser are conftest's, shared with test_e2e_systems.py.
"""

import csv
import io

import numpy as np
import pytest
from e2e_support import (
    IMAGE_CHANGED,
    OUTPUT,
    assert_no_error,
    metric_value,
    needs_browser,
    open_page,
    slider_input,
    streamlit_app,
    wait_for_metrics,
    wait_idle,
)
from PIL import Image

from ldpcore.export.table import fmt
from ui.registry import PAGES as REGISTRY
from ui.registry import by_section

pytestmark = [pytest.mark.browser, needs_browser()]
PAGES = {p.url_path or "home": p for p in REGISTRY}  # every registered page (ui/registry.py)


@pytest.mark.parametrize("name", PAGES)
def test_every_page_opens_without_error_and_offline(app_url, page, name):
    outside = []
    page.on("request", lambda r: None if r.url.startswith((app_url, "data:", "blob:")) else outside.append(r.url))
    page.goto(f"{app_url}/{PAGES[name].url_path}")
    page.locator("h1").first.wait_for(timeout=60_000)  # the script has run (wait_idle alone may precede it)
    wait_idle(page)
    page.wait_for_timeout(500)
    page.screenshot(path=str(OUTPUT / f"page-{name}.png"), full_page=True)
    assert outside == []  # no CDN, font or telemetry request leaves the machine
    assert_no_error(page)
    assert page.locator("h1").first.inner_text()
    nav = page.locator('[data-testid="stSidebarNav"]')  # the registry's sections and titles
    for section, entries in by_section().items():
        assert nav.get_by_text(section, exact=True).count() == 1
        for entry in entries:
            assert nav.get_by_text(entry.title, exact=True).count() == 1


def test_moving_eps_c_updates_the_reconstruction(app_url, page):
    open_page(page, f"{app_url}/reconstruct", metrics=5)
    before = metric_value(page, "ε per phone")
    image_before = page.locator('[data-testid="stImage"] img').nth(1).get_attribute("src")
    slider_input(page, "eps_c_log").focus()
    page.keyboard.press("ArrowLeft")  # one step down the log grid: eps_c 1 -> 0.891
    page.wait_for_function(IMAGE_CHANGED, arg=image_before, timeout=30_000)
    wait_idle(page)
    after = metric_value(page, "ε per phone")
    assert before == "8.55" and after != before and float(after) < float(before)
    page.wait_for_url("**eps_c=0.891**")  # the URL now reproduces the view
    page.screenshot(path=str(OUTPUT / "reconstruct-after-eps-change.png"), full_page=True)
    # opening that URL shows the same numbers
    open_page(page, page.url, metrics=5)
    assert metric_value(page, "ε per phone") == after


def _choose_upload(page):
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Input").click()
    page.get_by_role("option", name="upload", exact=True).click()
    wait_idle(page)


def test_a_url_reproduces_the_view(app_url, page):
    open_page(page, f"{app_url}/reconstruct?dataset=child&eps_c=0.5&fragments=true&tau=16&seed=4", metrics=6)
    assert page.get_by_text("child: n = 50,409,435 respondents").count() == 1
    assert metric_value(page, "ε per captured shuffler") == "7.60"  # Table IX: Child, eps_c = 0.5, tau = 16


def test_upload_an_image_through_the_page(app_url, page, tmp_path):
    path = tmp_path / "gradient.png"
    Image.fromarray(np.tile(np.arange(0, 250, 2, dtype=np.uint8), (90, 1))).save(path)
    open_page(page, f"{app_url}/reconstruct")
    _choose_upload(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    page.get_by_text("gradient.png: n = ").wait_for(timeout=30_000)
    wait_for_metrics(page, 5)  # drawn right after the caption, possibly in the browser's next render
    wait_idle(page)
    assert_no_error(page)
    assert metric_value(page, "ε per phone")
    page.screenshot(path=str(OUTPUT / "reconstruct-upload-image.png"), full_page=True)


def test_corrupt_upload_shows_one_error(app_url, page, tmp_path):
    path = tmp_path / "broken.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)
    open_page(page, f"{app_url}/reconstruct")
    _choose_upload(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    page.locator('[data-testid="stAlertContentError"]').wait_for(timeout=30_000)
    assert "broken.png" in page.locator('[data-testid="stAlertContentError"]').first.inner_text()
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(OUTPUT / "reconstruct-corrupt-upload.png"), full_page=True)


def test_report_table_csv_download_matches_the_page(app_url, page):
    open_page(page, f"{app_url}/report_table")
    page.get_by_role("button", name="CSV").wait_for(timeout=60_000)
    with page.expect_download() as info:
        page.get_by_role("button", name="CSV").click()
    target = OUTPUT / "report_table.csv"
    info.value.save_as(str(target))
    rows = list(csv.DictReader(io.StringIO(target.read_text())))
    assert len(rows) == 25
    text = page.locator('[data-testid="stMainBlockContainer"]').inner_text()
    for r in rows:  # the CSV at full precision (a script reads it), the page as ldpcore.export.fmt shows it
        if not r["note"]:
            shown = {k: fmt(float(r[k])) for k in ("sigma", "eps_l_inf", "eps_l_1", "rmse_clipped") if r[k]}
            label = (
                f"sigma={shown['sigma']}" if r["sigma"] else f"eps_inf={shown['eps_l_inf']}, eps_1={shown['eps_l_1']}"
            )
            assert label in text and f"clipped RMSE={shown['rmse_clipped']}" in text, r


def test_accountant_page_reacts_to_its_inputs(app_url, page):
    open_page(page, f"{app_url}/accountant", metrics=3)
    assert metric_value(page, "eps0: exact binary RR") == "10.68"  # Horse, eps_c = 1 (spec)
    box = page.locator(".st-key-acc_value input")
    box.fill("0.05")
    box.press("Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stMetricValue\"]')]"
        ".some(e => e.innerText.trim().startsWith('5.61'))",
        timeout=60_000,
    )
    wait_idle(page)
    assert metric_value(page, "eps0: Lemma II.6") == "2.943"
    page.screenshot(path=str(OUTPUT / "accountant-eps-0.05.png"), full_page=True)


def test_multimessage_page_reacts_to_its_controls(app_url, page):
    open_page(page, f"{app_url}/multimessage")
    box = page.locator(".st-key-mp_colluding input")
    box.fill("5")
    box.press("Enter")
    page.locator('[data-testid="stAlertContentError"]').wait_for(timeout=30_000)
    assert "colluding shufflers must lie in [0, 2]" in page.locator('[data-testid="stAlertContentError"]').inner_text()
    page.screenshot(path=str(OUTPUT / "multimessage-colluding.png"), full_page=True)


def test_choosing_a_sketch_and_its_size_in_the_sidebar(app_url, page):
    open_page(page, f"{app_url}/reconstruct?max_side=64", metrics=5)
    box = page.locator('.st-key-encoding [data-testid="stSelectbox"]')
    box.scroll_into_view_if_needed()  # the sidebar scrolling during the click would close the dropdown
    page.wait_for_timeout(300)
    box.click()
    page.get_by_role("option", name="cms", exact=True).click()
    page.get_by_text("65,546 bits each").wait_for(timeout=60_000)  # 1,024 rows: 10 bits + 65,536 entries
    wait_idle(page)
    assert metric_value(page, "messages per phone") == "1.00"
    assert page.get_by_text("Certified central ε_c = ").count() == 1  # fmt21-numeric, one report each
    page.wait_for_url("**encoding=cms**")
    box = page.locator(".st-key-k input")
    box.fill("16")
    box.press("Enter")
    page.wait_for_url("**k=16**", timeout=60_000)
    page.get_by_text("65,540 bits each").wait_for(timeout=60_000)  # a row index of log2(16) bits + 65,536 entries
    wait_idle(page)
    assert_no_error(page)
    page.screenshot(path=str(OUTPUT / "reconstruct-count-mean-sketch.png"), full_page=True)


def test_a_fresh_servers_first_deep_link_gets_the_apps_navigation(page):
    """A shared URL as the first request a new server gets opens with the app's navigation (app.py's, from the
    registry: no legacy pages mode, whose navigation lists file names) and the URL's own settings."""
    with streamlit_app() as url:
        page.goto(f"{url}/tradeoffs?encoding=olh&max_side=64")
        wait_idle(page)
        nav = page.locator('[data-testid="stSidebarNav"]')
        nav.get_by_text("Trade-offs", exact=True).wait_for(timeout=60_000)
        assert nav.get_by_text("report_table", exact=True).count() == 0  # not the legacy mode's file names
        assert all(nav.get_by_text(section, exact=True).count() == 1 for section in by_section())  # its sections
        page.get_by_text("Optimized local hashing").first.wait_for(timeout=60_000)
        page.locator('[data-testid="stPlotlyChart"]').first.wait_for(timeout=60_000)
        wait_idle(page)
        assert "encoding=olh" in page.url and "max_side=64" in page.url and page.title() == "ESA explorer"
        assert page.locator(".st-key-max_side input").input_value() == "64"
        page.screenshot(path=str(OUTPUT / "fresh-server-deep-link.png"), full_page=True)
