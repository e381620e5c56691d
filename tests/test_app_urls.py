"""Every URL value a control cannot take is named in one warning (issue 24 item 8), on every registered page.

For each page: the controls bound to the URL (their query_param_key) are collected from the page at its
defaults; then the page is opened with a value none of them takes for each (text boxes aside: they take any
text, and the page checks it with an st.error), and every such control that the page draws must be named in a
warning. Controls that only a default value of another control shows are opened in a further run.
"""

import pytest
from conftest import as_read, open_page

from ldpcore.errors import shown
from ui.registry import PAGES

pytestmark = pytest.mark.app

BAD = "zz!"  # not a number, not an option, not a boolean
KINDS = ("number_input", "selectbox", "multiselect", "slider", "select_slider", "checkbox", "toggle", "radio")


def bound_keys(at) -> set[str]:
    """The URL keys of the page's controls that take only some values."""
    return {w.proto.query_param_key for kind in KINDS for w in getattr(at, kind) if w.proto.query_param_key}


@pytest.mark.parametrize("page", [p.path for p in PAGES], ids=[p.title for p in PAGES])
def test_every_bad_url_value_is_named_in_a_warning(page):
    remaining = bound_keys(open_page(page))
    if not remaining:
        pytest.skip("no control of this page is bound to the URL")
    checked = 0
    while remaining:
        at = open_page(page, **dict.fromkeys(remaining, BAD))
        assert not at.exception, [e.value for e in at.exception]
        drawn = bound_keys(at) & remaining
        warnings = "\n".join(as_read(w.value) for w in at.warning)
        silent = sorted(key for key in drawn if f"URL's {key}=" not in warnings)
        assert not silent, (silent, warnings)
        checked += len(drawn)
        if not drawn:
            break
        remaining -= drawn
    assert checked > 0


def test_a_long_url_value_is_not_echoed_whole():
    at = open_page("app_pages/reconstruct.py", eps_c="9" * 20_000, max_side="x" * 20_000)
    warnings = [as_read(w.value) for w in at.warning]
    assert len(warnings) == 2 and all(len(w) < 300 and "(20,000 characters)" in w for w in warnings), warnings
    assert shown("9" * 20_000).endswith("(20,000 characters)")  # the library's messages shorten it the same way
