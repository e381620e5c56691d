"""Issue 15 in a real headless Chromium: no metric value cut off with an ellipsis at 1280x720 and 1920x1080,
the three reconstructions and the eps_c control above the fold at 1280x720, and a screenshot of every
registered page at 1280x720 (tests/output/readable/)."""

import pytest
from e2e_support import OUTPUT, assert_no_error, needs_browser, wait_for_metrics, wait_idle

from ui.registry import PAGES as REGISTRY

pytestmark = [pytest.mark.browser, needs_browser()]
SHOTS = OUTPUT.parent / "readable"
SIZES = {"1280x720": (1280, 720), "1920x1080": (1920, 1080)}
VIEWS = {
    "horse-tau256-eps0.5": "reconstruct?eps_c=0.5&fragments=true&tau=256",
    "map-fragments": "reconstruct?dataset=map&fragments=true&tau=16",
}
# every metric's value: its text, and whether the browser cut it (text-overflow: ellipsis leaves the text whole)
METRICS = """() => [...document.querySelectorAll('[data-testid="stMetric"]')].map(m => {
    const label = m.querySelector('[data-testid="stMetricLabel"]').innerText.trim();
    const v = m.querySelector('[data-testid="stMetricValue"]');
    const cut = [v, ...v.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1);
    return [label, v.innerText.trim(), cut]; })"""


def _open(browser, url: str, size: tuple[int, int]):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.goto(url)
    page.locator("h1").first.wait_for(timeout=120_000)
    wait_idle(page, 180_000)
    return context, page


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("view", VIEWS)
def test_no_metric_value_is_cut(app_url, browser, view, size):
    context, page = _open(browser, f"{app_url}/{VIEWS[view]}", SIZES[size])
    try:
        wait_for_metrics(page, 6, timeout=180_000)
        wait_idle(page, 180_000)
        page.wait_for_timeout(500)
        page.screenshot(path=str(SHOTS / f"reconstruct-{view}-{size}.png"))
        assert_no_error(page)
        values = page.evaluate(METRICS)
        assert len(values) == 6, values
        for label, value, cut in values:
            assert not value.endswith(("…", "...")) and not cut, (label, value)
        shown = dict((label, value) for label, value, _ in values)
        if view.startswith("horse"):
            assert shown["messages per phone"] == "3.37 M"
    finally:
        context.close()


def test_three_reconstructions_and_the_eps_c_control_above_the_fold(app_url, browser):
    context, page = _open(browser, f"{app_url}/reconstruct", SIZES["1280x720"])
    try:
        wait_for_metrics(page, 5, timeout=180_000)
        page.locator('[data-testid="stImage"] img').nth(3).wait_for(timeout=120_000)
        wait_idle(page, 180_000)
        page.wait_for_timeout(500)
        page.screenshot(path=str(SHOTS / "reconstruct-above-the-fold-1280x720.png"))
        assert page.evaluate("() => window.scrollY") == 0
        images = page.locator('[data-testid="stImage"] img')
        assert images.count() == 4  # original, no shuffler at eps_c, ESA, central
        for i in range(4):
            box = images.nth(i).bounding_box()
            assert box and box["height"] > 50 and 0 <= box["y"] and box["y"] + box["height"] <= 720, (i, box)
        captions = page.locator('[data-testid="stImage"]').all_inner_texts()
        assert any("No shuffler" in c for c in captions) and any("ESA" in c for c in captions)
        assert any("Central" in c for c in captions)
        box = page.locator(".st-key-eps_c").first.bounding_box()  # the eps_c control: label, track and thumb
        assert box and 0 <= box["y"] and box["y"] + box["height"] <= 720 and box["x"] + box["width"] <= 1280, box
        assert page.locator(".st-key-eps_c").first.is_visible()
    finally:
        context.close()


@pytest.mark.parametrize("entry", REGISTRY, ids=[p.url_path or "home" for p in REGISTRY])
def test_screenshot_of_every_page_at_1280x720(app_url, browser, entry):
    context, page = _open(browser, f"{app_url}/{entry.url_path}", SIZES["1280x720"])
    try:
        page.wait_for_timeout(1500)  # charts settle
        wait_idle(page, 180_000)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"page-{entry.url_path or 'home'}-1280x720.png"))
        assert_no_error(page)
        page.set_viewport_size({"width": 1280, "height": 3200})  # the app scrolls inside: a tall window shows all
        page.wait_for_timeout(1500)
        wait_idle(page, 180_000)
        page.screenshot(path=str(SHOTS / f"page-{entry.url_path or 'home'}-1280-tall.png"))
    finally:
        context.close()
