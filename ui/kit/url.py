"""The URL's values: every one that a control bound to it could not take gets one warning naming it.

Streamlit drops a bound control's URL value that the control cannot take (not a number, out of range, not an
option) and shows the control's default, silently. app.py runs every page inside url_warnings(): the query
parameters before the page ran that are gone after it are named in one warning each, at the top of the page.
A control that explains its own URL value better (eps_c's range, the Plan page's n and d) warns itself and
calls warned(key), so that the value is named once.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from ui.kit.format import plain

MAX_VALUE_CHARS = 40  # of a URL value quoted in a warning: a 20,000-character value is not echoed whole
_WARNED = "_url_warned"  # session_state: the keys whose URL value a control has warned about in this run


def shown(value: str) -> str:
    """A URL value as a warning quotes it: as text, at most MAX_VALUE_CHARS characters, with its length."""
    if len(value) <= MAX_VALUE_CHARS:
        return plain(repr(value), None)
    return plain(f"{value[: MAX_VALUE_CHARS - 16]!r}... ({len(value):,} characters)", None)


def warned(key: str) -> None:
    """A control has warned about the URL's value for key: url_warnings() does not name it again."""
    st.session_state.setdefault(_WARNED, set()).add(key)


@contextmanager
def url_warnings() -> Iterator[None]:
    """Run the page; then name, in one warning each at the top of the page, every URL value that a bound
    control left out (also when the page stopped early at an error)."""
    before = st.query_params.to_dict()
    st.session_state[_WARNED] = set()
    slot = st.container()
    try:
        yield
    finally:
        after = st.query_params.to_dict()
        for key, value in before.items():
            if key not in after and key not in st.session_state[_WARNED]:
                slot.warning(
                    f"The URL's {plain(key, MAX_VALUE_CHARS)}={shown(value)} is not a value its control takes, so "
                    "it was left out: the control shows its default."
                )
