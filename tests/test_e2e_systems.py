"""End-to-end: the Numeric, Longitudinal, LDP-SGD and Crowd IDs pages in a real headless Chromium (Playwright).

Screenshots go to tests/output/e2e/page-<name>.png. Skipped, with the reason, where Debian's chromium is not
installed (.ci/run installs it). The server (app_url) and the browser are conftest's, shared with test_e2e.py.
"""

import pytest
from e2e_support import (
    OUTPUT,
    assert_no_error,
    metric_value,
    needs_browser,
    open_page,
    slider_input,
    wait_idle,
    wait_metric_change,
)

pytestmark = [pytest.mark.browser, needs_browser()]

# page name -> (url path, its eps control, a metric that follows it)
PAGES = {
    "numeric": ("numeric", "num_eps", "MSE of the means"),
    "longitudinal": ("longitudinal", "lng_eps", "client LDP (exact)"),
    "ldp-sgd": ("sgd", "sgd_eps_c", "eps_l per report"),
    "crowd-ids": ("crowds", "crowd_eps_cr", "Theorem V.2 bound"),
}


@pytest.mark.parametrize("name", PAGES)
def test_page_opens_offline_and_follows_its_eps_control(app_url, page, name):
    path, control, label = PAGES[name]
    outside = []
    page.on("request", lambda r: None if r.url.startswith((app_url, "data:", "blob:")) else outside.append(r.url))
    open_page(page, f"{app_url}/{path}", metrics=4)
    page.wait_for_timeout(500)
    page.screenshot(path=str(OUTPUT / f"page-{name}.png"), full_page=True)
    assert_no_error(page)
    assert page.locator("h1").first.inner_text() and page.locator('[data-testid="stPlotlyChart"]').count() >= 1
    before = metric_value(page, label)
    assert before
    slider_input(page, control).focus()
    page.keyboard.press("ArrowRight")  # one step up the eps grid
    wait_metric_change(page, label, before)
    wait_idle(page)
    assert metric_value(page, label) != before
    page.wait_for_url(f"**{control}=**")  # the URL now reproduces the view
    assert_no_error(page)
    assert outside == []  # no CDN, font or telemetry request leaves the machine


def test_numeric_upload_csv(app_url, page, tmp_path):
    path = tmp_path / "people.csv"
    path.write_text(
        "age,income,region\n" + "".join(f"{20 + i % 60},{900 + 7 * i},{'nsew'[i % 4]}\n" for i in range(2000))
    )
    open_page(page, f"{app_url}/numeric", metrics=4)
    page.locator(".st-key-num_data").click()
    page.get_by_role("option", name="upload", exact=True).click()
    wait_idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    page.get_by_text("people.csv: n = 2,000 respondents, d = 3 attributes (2 numeric, 1 categorical)").wait_for(
        timeout=60_000
    )
    wait_idle(page)
    assert_no_error(page)
    assert metric_value(page, "MSE of the frequencies")
    page.screenshot(path=str(OUTPUT / "numeric-upload-csv.png"), full_page=True)
