"""End-to-end in Chromium: the Adversary page (issue 17) and raw-records / points uploads on Reconstruct (issue 16).

The server (app_url) and the browser are conftest's; screenshots go to tests/output/e2e/.
"""

import csv

import numpy as np
import pytest
from e2e_support import OUTPUT, assert_no_error, metric_value, needs_browser, open_page, wait_for_metrics, wait_idle

pytestmark = [pytest.mark.browser, needs_browser()]


def test_adversary_page_guess_demonstration_and_url(app_url, page):
    outside = []
    page.on("request", lambda r: None if r.url.startswith((app_url, "data:", "blob:")) else outside.append(r.url))
    open_page(page, f"{app_url}/adversary?adv_trials=10000", metrics=6)
    page.get_by_text("Respondent #0 holds").wait_for(timeout=60_000)
    assert_no_error(page)
    lower, upper = metric_value(page, "server").split(" / ")
    assert upper == "8.55" and 7 < float(lower) <= 8.55  # Horse at eps_c = 1: eps_l_inf, nearly attained
    assert metric_value(page, "analyst guesses right").startswith("1 in ")
    assert page.locator('[data-testid="stPlotlyChart"]').count() >= 3
    page.get_by_role("button", name="Draw another respondent").click()
    page.wait_for_url("**adv_draw=1**", timeout=60_000)
    page.get_by_text("Respondent #1 holds").wait_for(timeout=60_000)
    wait_idle(page)
    said = page.get_by_text("Respondent #1 holds").inner_text()
    page.screenshot(path=str(OUTPUT / "adversary.png"), full_page=True)
    # the URL reproduces the view: the same respondent, the same numbers
    url = page.url
    open_page(page, url, metrics=6)
    page.get_by_text("Respondent #1 holds").wait_for(timeout=60_000)
    assert page.get_by_text("Respondent #1 holds").inner_text() == said
    assert metric_value(page, "server").split(" / ") == [lower, upper]
    assert outside == []  # offline


def _choose(page, key: str, option: str):
    """Pick an option of the selectbox with this key: type it into the combobox and click it."""
    box = page.locator(f'.st-key-{key} input[role="combobox"]')
    box.click()
    box.fill(option)
    page.get_by_role("option", name=option, exact=True).click()


def test_upload_raw_records_choose_the_column_reconstruct_with_n_rows(app_url, page, tmp_path):
    path = tmp_path / "events.csv"
    rng = np.random.default_rng(3)
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["user", "category"])
        for i in range(2500):
            out.writerow([f"u{i % 400}", ["news", "video", "maps", "mail"][int(rng.integers(0, 4))]])
    open_page(page, f"{app_url}/reconstruct?dataset=records")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    page.get_by_text("choose the column of values to count").wait_for(timeout=60_000)  # no column is guessed
    assert "user, category" in page.locator('[data-testid="stAlertContentInfo"]').first.inner_text()
    assert page.locator('[data-testid="stMetric"]').count() == 0  # nothing simulated before a column is chosen
    _choose(page, "rec_column", "category")
    page.get_by_text("events.csv: n = 2,500 respondents over d = 4 values").wait_for(timeout=60_000)
    wait_for_metrics(page, 5)
    wait_idle(page)
    assert_no_error(page)
    assert metric_value(page, "ε per phone")
    assert page.locator('[data-testid="stSidebar"]').get_by_text("rows read").count() == 1
    page.wait_for_url("**rec_column=category**")
    page.screenshot(path=str(OUTPUT / "reconstruct-raw-records.png"), full_page=True)


def test_upload_points_gives_a_map_like_image(app_url, page, tmp_path):
    path = tmp_path / "points.csv"
    rng = np.random.default_rng(4)
    lat, lon = 40.75 + 0.03 * rng.standard_normal(8000), -73.95 + 0.04 * rng.standard_normal(8000)
    path.write_text("lat,lon\n" + "".join(f"{a:.5f},{b:.5f}\n" for a, b in zip(lat, lon)))
    open_page(page, f"{app_url}/reconstruct?dataset=points&pts_grid=64")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    caption = page.get_by_text("points.csv: n = ").first  # the robust box leaves the cloud's farthest points out
    caption.wait_for(timeout=60_000)
    wait_for_metrics(page, 5)
    wait_idle(page)
    assert_no_error(page)
    said = caption.inner_text()
    assert int(said.split("n = ")[1].split(" ")[0].replace(",", "")) > 0.99 * 8000 and "(64x" in said
    images = page.locator('[data-testid="stImage"] img')
    assert images.count() == 4  # original, no shuffler, ESA reconstruction, central baseline
    assert images.nth(1).get_attribute("src") != images.nth(0).get_attribute("src")
    page.screenshot(path=str(OUTPUT / "reconstruct-points.png"), full_page=True)
