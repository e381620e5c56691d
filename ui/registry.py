"""The one registry of the dashboard's pages: app.py builds the navigation from it, the Home page links to
it, and the AppTest and browser tests are parametrised from it (every registered page must render without
an exception or an st.error).

To add a page: write app_pages/<name>.py and add ONE line to PAGES below, in the order it should appear within
its section. Nothing else needs to change; tests/test_app.py fails if a file in app_pages/ is not registered.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

if TYPE_CHECKING:
    from streamlit.navigation.page import StreamlitPage  # what st.Page returns

ROOT = Path(__file__).resolve().parent.parent
ICON = ROOT / "assets" / "icon.png"  # the browser tab's icon: a local file (Material icons come from a font CDN)

# the navigation's sections, in order; a section without a registered page is not shown
SECTIONS = ("Explore", "Planning", "Privacy accounting", "Other systems")


@dataclass(frozen=True)
class PageEntry:
    """One page: its script under app_pages/, its title in the navigation, a Material icon name and its section."""

    path: str
    title: str
    icon: str
    section: str

    def __post_init__(self) -> None:
        if self.section not in SECTIONS:
            raise ValueError(f"page {self.path}: section must be one of {SECTIONS} (got {self.section!r})")

    @property
    def url_path(self) -> str:
        """The page's URL path: its file name without .py ("" for the default page, the first one)."""
        return "" if self is PAGES[0] else Path(self.path).stem

    @property
    def material_icon(self) -> str:
        return f":material/{self.icon}:"


PAGES = (
    PageEntry("app_pages/home.py", "Home", "home", "Explore"),  # the first page is the default
    PageEntry("app_pages/reconstruct.py", "Reconstruct", "image", "Explore"),
    PageEntry("app_pages/tradeoffs.py", "Trade-offs", "show_chart", "Explore"),
    PageEntry("app_pages/report_table.py", "Report table", "table", "Explore"),
    PageEntry("app_pages/plan.py", "Plan", "checklist", "Planning"),
    PageEntry("app_pages/accountant.py", "Accountant", "calculate", "Privacy accounting"),
    PageEntry("app_pages/adversary.py", "Adversary", "visibility", "Privacy accounting"),
    PageEntry("app_pages/multimessage.py", "Multi-message", "forum", "Other systems"),
    PageEntry("app_pages/numeric.py", "Numeric", "functions", "Other systems"),
    PageEntry("app_pages/longitudinal.py", "Longitudinal", "timeline", "Other systems"),
    PageEntry("app_pages/sgd.py", "LDP-SGD", "model_training", "Other systems"),
    PageEntry("app_pages/crowds.py", "Crowd IDs", "groups", "Other systems"),
)


def by_section() -> dict[str, list[PageEntry]]:
    """The registered pages grouped by section, in SECTIONS order; empty sections are left out."""
    grouped = {section: [p for p in PAGES if p.section == section] for section in SECTIONS}
    return {section: pages for section, pages in grouped.items() if pages}


def navigation() -> dict[str, list[StreamlitPage]]:
    """What app.py passes to st.navigation: every registered page as an st.Page, by section."""
    return {
        section: [
            st.Page(
                ROOT / p.path, title=p.title, icon=p.material_icon, url_path=p.url_path or None, default=p is PAGES[0]
            )
            for p in pages
        ]
        for section, pages in by_section().items()
    }
