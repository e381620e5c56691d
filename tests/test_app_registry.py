"""The README's table of pages (section "The dashboard") is the registry's navigation: the same sections, the
same page titles, in the same order (ui/registry.py). No page is rendered here."""

from conftest import ROOT

from ui.registry import by_section


def readme_pages() -> list[tuple[str, str]]:
    """(section, page title) of every row of the README's page table; an empty section cell continues the last."""
    dashboard = (ROOT / "README.md").read_text().split("\n## The dashboard\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in dashboard.splitlines() if line.startswith("|")]
    assert [cell.strip() for cell in rows[0].strip("|").split("|")] == ["section", "page", "what it shows"]
    pages, section = [], ""
    for line in rows[2:]:  # after the header and its rule
        cells = [cell.strip() for cell in line.strip("|").split("|", 2)]
        section = cells[0] or section
        pages.append((section, cells[1]))
    return pages


def test_the_readme_lists_every_registered_page_in_the_navigations_order():
    assert readme_pages() == [(section, p.title) for section, pages in by_section().items() for p in pages]
