"""The one registry of the dashboard's pages: app.py builds the navigation from it, the Home page links to
it, and the AppTest and browser tests are parametrised from it (every registered page must render without
an exception or an st.error).

To add a page: write pages/<name>.py (it starts with `page_config()`, like the others) and add ONE line to
PAGES below, in the order it should appear within its section. Nothing else needs to change; tests/test_app.py
fails if a file in pages/ is not registered.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# the navigation's sections, in order; a section without a registered page is not shown
SECTIONS = ("Explore", "Plan", "Privacy accounting", "Other systems")


@dataclass(frozen=True)
class PageEntry:
    """One page: its file under pages/, its title in the navigation, a Material icon name and its section."""

    path: str
    title: str
    icon: str
    section: str

    def __post_init__(self) -> None:
        if self.section not in SECTIONS:
            raise ValueError(f"page {self.path}: section must be one of {SECTIONS} (got {self.section!r})")

    @property
    def url_path(self) -> str:
        """The page's URL path: its file name without .py ("" for the default page, the first one). It must
        stay the file name: a fresh server's first deep link is resolved from pages/ by file name before
        app.py's navigation takes over (ui.page_config)."""
        return "" if self is PAGES[0] else Path(self.path).stem

    @property
    def material_icon(self) -> str:
        return f":material/{self.icon}:"


PAGES = (
    PageEntry("pages/home.py", "Home", "home", "Explore"),  # the first page is the default
    PageEntry("pages/reconstruct.py", "Reconstruct", "image", "Explore"),
    PageEntry("pages/tradeoffs.py", "Trade-offs", "show_chart", "Explore"),
    PageEntry("pages/report_table.py", "Report table", "table", "Explore"),
    PageEntry("pages/accountant.py", "Accountant", "calculate", "Privacy accounting"),
    PageEntry("pages/adversary.py", "Adversary", "visibility", "Privacy accounting"),
    PageEntry("pages/multimessage.py", "Multi-message", "forum", "Other systems"),
    PageEntry("pages/numeric.py", "Numeric", "functions", "Other systems"),
    PageEntry("pages/longitudinal.py", "Longitudinal", "timeline", "Other systems"),
    PageEntry("pages/sgd.py", "LDP-SGD", "model_training", "Other systems"),
    PageEntry("pages/crowds.py", "Crowd IDs", "groups", "Other systems"),
)


def by_section() -> dict[str, list[PageEntry]]:
    """The registered pages grouped by section, in SECTIONS order; empty sections are left out."""
    grouped = {section: [p for p in PAGES if p.section == section] for section in SECTIONS}
    return {section: pages for section, pages in grouped.items() if pages}
