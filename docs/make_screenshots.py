"""Regenerate the README's screenshots from the running app in headless Chromium.

    python docs/make_screenshots.py            # docs/<name>.png at 1280x720 and docs/<name>-1920.png at 1920x1080

Starts `streamlit run app.py` on a free localhost port (as the browser tests do, tests/e2e_support.py), opens
each view below in Debian's Chromium (/usr/bin/chromium, driven by Playwright: `pip install -r
requirements-dev.txt`), waits until the script has finished and every image and chart is drawn, and saves
what the window shows. The Plan page is included when it is registered (ui/registry.py).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from e2e_support import CHROMIUM_ARGS, assert_no_error, chromium_path, streamlit_server, wait_idle  # noqa: E402

from ui.registry import PAGES  # noqa: E402

SIZES = {"": (1280, 720), "-1920": (1920, 1080)}
# every <img> has loaded and every plotly chart has drawn its traces
DRAWN = """(n) => {
    const imgs = [...document.querySelectorAll('[data-testid="stImage"] img')];
    const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')];
    return imgs.length + charts.length >= n
        && imgs.every(i => i.complete && i.naturalWidth > 0)
        && charts.every(c => c.querySelector('.main-svg .trace'));
}"""


# scroll the page until the bottom of the selector's i-th element is in view (4 px above the window's bottom)
SCROLL_TO = """([selector, i]) => {
    const el = document.querySelectorAll(selector)[i];
    el.style.scrollMarginBottom = '4px';
    el.scrollIntoView({block: 'end'});
}"""


@dataclass(frozen=True)
class Shot:
    """A view to photograph: its file name, the page's url path and query, how many images + charts it draws,
    and (optionally) the element (selector, index) that must be in the window: the page is scrolled down to
    it when the window is too short to show it under the title."""

    name: str
    path: str
    figures: int
    anchor: tuple[str, int] | None = None


SHOTS = [
    # the metrics, the original, the ESA reconstruction and the central baseline
    Shot("reconstruct", "reconstruct?dataset=horse", 3, ('[data-testid="stImage"]', 2)),
    # the error against eps_c, under the sweep's controls
    Shot("tradeoffs", "tradeoffs?dataset=horse", 3, ('[data-testid="stPlotlyChart"]', 0)),
    Shot("plan", "plan", 0),  # when registered; every image and chart it draws is waited for, however many
]


def take(page, url: str, shot: Shot, target: Path) -> None:
    page.goto(f"{url}/{shot.path}")
    page.locator("h1").first.wait_for(timeout=300_000)
    wait_idle(page, timeout=300_000)
    page.wait_for_function(DRAWN, arg=shot.figures, polling=250, timeout=300_000)
    wait_idle(page, timeout=300_000)
    assert_no_error(page)
    if shot.anchor:
        page.evaluate(SCROLL_TO, list(shot.anchor))
    page.wait_for_timeout(1_500)  # plotly's and the images' fade-in
    page.screenshot(path=str(target))
    print(f"wrote {target.relative_to(ROOT)}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DOCS, help="folder to write the PNGs in (default: docs/)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    if chromium_path() is None:
        sys.exit("Debian's chromium is not installed (apt-get install chromium)")
    registered = {p.url_path for p in PAGES}
    shots = [s for s in SHOTS if s.path.split("?")[0] in registered]
    args.out.mkdir(parents=True, exist_ok=True)
    with streamlit_server(timeout=120) as (url, _), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            for suffix, (width, height) in SIZES.items():
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                for shot in shots:
                    take(page, url, shot, args.out / f"{shot.name}{suffix}.png")
                context.close()
        finally:
            browser.close()


if __name__ == "__main__":
    main()
