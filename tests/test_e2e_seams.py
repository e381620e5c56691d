"""Issue 28 in a real headless Chromium, on conftest's shared server: a Plan row opens on Reconstruct in the same
tab with the data uploaded on Plan (raw records with their column, points with their grid, a histogram CSV) and
the row's protocol, at 1280x720 and 1920x1080; a URL value no control takes warns (tests/test_e2e_print.py: the
Report table of a histogram and text cut on a page). Screenshots in tests/output/e2e/seams/."""

import csv
import re

import numpy as np
import pytest
from e2e_support import OUTPUT, assert_no_error, needs_browser, wait_for_metrics, wait_idle

pytestmark = [pytest.mark.browser, needs_browser()]
SHOTS = OUTPUT / "seams"
SIZES = {"1280x720": (1280, 720), "1920x1080": (1920, 1080)}
WEATHER = ("drizzle", "rain", "sun", "snow", "fog")


def _records(path):
    rng = np.random.default_rng(28)
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["date", "temp_max", "weather"])
        for i in range(1461):
            out.writerow([f"day{i}", round(float(rng.normal(16, 7)), 1), WEATHER[int(rng.integers(0, 5))]])


def _points(path):
    rng = np.random.default_rng(29)
    lat, lon = rng.uniform(25, 49, 3000), rng.uniform(-124, -67, 3000)
    lat, lon = np.r_[lat, [13.5] * 6], np.r_[lon, [144.8] * 6]  # six points across the Pacific: out of the box
    path.write_text("latitude,longitude\n" + "".join(f"{a:.4f},{b:.4f}\n" for a, b in zip(lat, lon)))


def _histogram(path):
    path.write_text("weather,count\n" + "".join(f"{w},{c}\n" for w, c in zip(WEATHER, (53, 641, 640, 26, 101))))


DATA = {  # kind: (file maker, file name, the Plan URL's query, what Reconstruct's caption must say)
    "records": (_records, "weather.csv", "dataset=records", "weather.csv: n = 1,461 respondents over d = 5 values"),
    "points": (_points, "airports.csv", "dataset=points&pts_grid=64", "airports.csv: n = 3,000 respondents"),
    "histogram": (_histogram, "counts.csv", "dataset=upload", "counts.csv: n = 1,461 respondents over d = 5 values"),
}


def _open(browser, size):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport=dict(zip(("width", "height"), SIZES[size])), accept_downloads=True)
    return context, context.new_page()


def _selected(page, key: str) -> str:
    """The option a selectbox with this key shows."""
    return page.locator(f'[data-testid="stSidebar"] .st-key-{key}').first.evaluate(
        "e => [...e.querySelectorAll('*')].map(x => x.getAttribute('value')).filter(Boolean).join('|')"
    )


def _choose(page, key: str, option: str):
    box = page.locator(f'.st-key-{key} input[role="combobox"]')
    box.click()
    box.fill(option)
    page.get_by_role("option", name=option, exact=True).click()


def _caption_with(page, text: str) -> str:
    page.get_by_text(text).first.wait_for(timeout=180_000)
    return next(c for c in page.locator('[data-testid="stCaptionContainer"]').all_inner_texts() if text in c)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("kind", DATA)
def test_a_plan_row_opens_on_reconstruct_in_the_same_tab_with_the_data(app_url, browser, tmp_path, kind, size):
    make, name, query, expected = DATA[kind]
    make(tmp_path / name)
    context, page = _open(browser, size)
    try:
        page.goto(f"{app_url}/plan?{query}")
        wait_idle(page, 180_000)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(tmp_path / name))
        if kind == "records":  # no column is guessed: the page names the file's columns and waits for one
            page.get_by_text("choose the column of values to count").wait_for(timeout=120_000)
            assert "date, temp_max, weather" in page.locator('[data-testid="stAlertContentInfo"]').first.inner_text()
            _choose(page, "rec_column", "weather")
        wait_for_metrics(page, 6, timeout=180_000)
        wait_idle(page, 180_000)
        shown = _caption_with(page, expected.split(":")[0] + ": n = ")
        assert expected in shown, shown
        recommended = page.locator('[data-testid="stAlertContentSuccess"]').first.inner_text()
        encoding, accountant = re.match(r"Recommended: (\S+) with ([^.]+)\.", recommended).groups()
        page.get_by_role("button", name="Simulate it on Reconstruct").first.click()
        page.wait_for_url("**/reconstruct**", timeout=120_000)
        wait_for_metrics(page, 5, timeout=180_000)
        wait_idle(page, 180_000)
        page.screenshot(path=str(SHOTS / f"plan-to-reconstruct-{kind}-{size}.png"))
        assert len(context.pages) == 1  # the same tab: no new one was opened
        assert_no_error(page)
        assert not page.locator('[data-testid="stAlertContentWarning"]').count()  # every value the row set is taken
        assert expected in _caption_with(page, expected)  # the same n and d (and the same file)
        assert _selected(page, "encoding") == encoding and _selected(page, "accountant") == accountant  # the protocol
        if kind == "records":  # the column chosen on Plan
            assert _selected(page, "rec_column") == "weather"
        if kind == "points":  # the grid chosen on Plan: 64 cells wide
            assert "(64x" in _caption_with(page, "airports.csv: n = ")
    finally:
        context.close()


@pytest.mark.parametrize(
    "query, said",
    [
        ("encoding=foo", "The URL's encoding='foo' is not a value this page's control takes: using encoding = onehot."),
        ("tau=3", "The URL's tau='3' is not used on this page with these settings: ignored."),
    ],
)
def test_a_url_value_no_control_takes_warns(app_url, browser, query, said):
    context, page = _open(browser, "1280x720")
    try:
        page.goto(f"{app_url}/reconstruct?max_side=64&{query}")
        wait_for_metrics(page, 5, timeout=180_000)
        wait_idle(page, 180_000)
        warnings = page.locator('[data-testid="stAlertContentWarning"]').all_inner_texts()
        assert said in warnings, warnings
        assert_no_error(page)
    finally:
        context.close()
