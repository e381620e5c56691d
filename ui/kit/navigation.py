"""Moving between pages in the same session (the same browser tab), with the data and the protocol.

A link to another page (Plan's "Simulate it on Reconstruct") is a button: its click sets the target page's
controls and app.py then switches to that page (st.switch_page), so the session keeps what is only in it (an
upload, raw records). Streamlit refuses a URL parameter that a control of the current page is bound to (a link's
?eps_c= would be dropped, and st.switch_page raises), so values for keys the current page has a bound control of
are set as that control's state (the target's control of the same key takes it, and writes it into the URL), and
the others go into the target's URL, where its controls read them.

Navigating with the sidebar keeps the data and the protocol: the sidebars remember their controls' values
(remember), and on the next page of the session (app.py tells: arrived) they take them back (restore) before
their controls are drawn, unless that page's URL names them (a link, a shared URL).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import streamlit as st
from streamlit.errors import StreamlitAPIException

_REQUEST = "_open_page"  # session state: (page script, URL parameters) of the page a click asked for
_PAGE = "_page"  # session state: (the page of this run, whether it came from another page by the navigation, and
# whether it is the page's first run: the URL as the browser asked for it; later runs see a stale copy of it)


def url_text(value: object) -> str:
    """A control's value as its URL parameter: true/false, whole numbers plainly, other numbers as typed (the
    shortest text that reads back as the same float), text as it is."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value) and value == int(value) and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _request(page: str, values: Mapping[str, object]) -> None:
    query = {}
    for key, value in values.items():
        text = url_text(value)
        try:
            st.query_params[key] = text  # refused where a control of this page is bound to the key
            query[key] = text
        except StreamlitAPIException:  # the target's control of the same key takes it from the session state
            st.session_state[key] = value
    st.session_state[_REQUEST] = (page, query)


def open_button(container, label: str, page: str, values: Mapping[str, object], key: str, help: str | None = None):
    """A button that opens `page` (an app_pages/ script) in this session with its controls at `values` (by key):
    the data and the protocol of a row, say. Nothing is computed until it is clicked."""
    container.button(
        label, key=key, on_click=_request, args=(page, dict(values)), help=help, icon=":material/arrow_forward:"
    )


def follow_request() -> None:
    """Switch to the page a button asked for (app.py calls this before running the page; a no-op otherwise)."""
    request = st.session_state.pop(_REQUEST, None)
    if request is not None:
        page, query = request
        st.session_state[_PAGE] = (None, False, True)  # the link sets every control it names: nothing to restore
        st.switch_page(page, query_params=query)


def arrived(page: str) -> None:
    """Note which page this run shows (app.py, every run): restore() acts only on the first run of a page
    reached from another page of the session, first_run() tells the page's first run."""
    previous = st.session_state.get(_PAGE, ("", False, True))[0]
    st.session_state[_PAGE] = (page, bool(previous) and previous != page, previous != page)


def first_run() -> bool:
    """Whether this run is the page's first in the session (a new tab, a reload, another page before): its URL is
    the one the browser asked for (Streamlit's copy of the URL is not refreshed on the page's later runs)."""
    return bool(st.session_state.get(_PAGE, ("", False, True))[2])


def remember(group: str, values: Mapping[str, object], part: bool = False) -> None:
    """Keep the values of a group of controls (the data, the protocol) for the next page that draws them; part:
    the page draws only some of the group's controls (Plan: eps_c and delta), the others stay as remembered."""
    key = f"_carried_{group}"
    st.session_state[key] = {**(st.session_state.get(key, {}) if part else {}), **values}


def restore(group: str, keys: tuple[str, ...]) -> None:
    """On the first run of a page reached from another page: set the group's controls to the values last chosen
    in this session, before they are drawn; not where the URL names any of the group's keys (a link, a shared
    URL: it wins), nor on later runs of the page (the user's own changes win)."""
    remembered = st.session_state.get(f"_carried_{group}")
    if not remembered or not st.session_state.get(_PAGE, ("", False, True))[1]:
        return
    if any(key in st.query_params for key in keys):
        return
    for key, value in remembered.items():
        st.session_state[key] = value
