"""Browser tests of the controls (issue 14): eps_c typed into its box is the eps_c shown and in the URL, the URL
reproduces it, a bad URL value warns once; an upload follows the person from page to page through the
navigation; long work shows a progress bar saying what it does."""

import pytest
from e2e_support import assert_no_error, metric_value, needs_browser, open_page, wait_idle

pytestmark = [pytest.mark.browser, needs_browser()]


def _type_eps_c(page, value: str) -> None:
    box = page.locator(".st-key-eps_c input").first
    box.fill(value)
    box.press("Enter")


def test_typing_eps_c_shows_it_everywhere_and_in_the_url(app_url, page):
    open_page(page, f"{app_url}/reconstruct", metrics=5)
    assert metric_value(page, "ε per phone") == "8.55"
    _type_eps_c(page, "0.3")
    page.wait_for_url("**eps_c=0.3**", timeout=60_000)
    page.get_by_text("Certified central ε_c = 0.3 by").wait_for(timeout=60_000)
    wait_idle(page)
    assert_no_error(page)
    page.get_by_text("What the tight accountant buys").click()
    page.get_by_text("Same ε_c = 0.3").wait_for(timeout=60_000)
    shown = metric_value(page, "ε per phone")
    open_page(page, f"{app_url}/reconstruct?eps_c=0.3", metrics=5)  # the URL reproduces it
    assert page.locator(".st-key-eps_c input").first.input_value() == "0.3"
    assert metric_value(page, "ε per phone") == shown


@pytest.mark.parametrize("value", ["abc", "-1"])
def test_a_bad_url_eps_c_warns_once_and_uses_the_default(app_url, page, value):
    open_page(page, f"{app_url}/reconstruct?eps_c={value}", metrics=5)
    warnings = page.locator('[data-testid="stAlertContentWarning"]')
    assert warnings.count() == 1 and "eps_c=" in warnings.first.inner_text()
    assert page.locator(".st-key-eps_c input").first.input_value() == "1"
    assert metric_value(page, "ε per phone") == "8.55"


def test_an_upload_follows_through_the_navigation(app_url, page, tmp_path):
    path = tmp_path / "counts.csv"
    path.write_text("value,count\n" + "".join(f"v{i},{c}\n" for i, c in enumerate([50_000, 20_000, 9_000, 400])))
    open_page(page, f"{app_url}/reconstruct")
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Input").click()
    page.get_by_role("option", name="upload", exact=True).click()
    wait_idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    page.get_by_text("counts.csv: n = ").wait_for(timeout=60_000)
    assert page.locator(".st-key-max_side").count() == 0 and page.locator(".st-key-scale").count() == 0
    for title in ("Trade-offs", "Report table"):
        page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
        page.get_by_text("Data: your upload counts.csv").wait_for(timeout=120_000)
        wait_idle(page, timeout=120_000)
        assert_no_error(page)
    page.reload()  # a reload starts a new session: the file must be chosen again, and the page says so
    page.get_by_text("choose the file again").wait_for(timeout=60_000)


def test_the_report_table_shows_what_it_is_filling(app_url, page):
    page.goto(f"{app_url}/report_table?dataset=child&seed=17")  # a seed no other test computes
    page.get_by_text("Filling the table (cells): ").first.wait_for(timeout=60_000)  # how many of how many landed
    wait_idle(page, timeout=180_000)
    assert_no_error(page)
