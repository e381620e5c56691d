"""How the pages show bad input: an ldpcore InputError becomes one st.error line and the page stops there.

    with input_errors():
        result = ldpcore_call(...)

Only InputError is caught: it is the library's one clear message naming the field and the allowed range.
Anything else is a bug and propagates; with client.showErrorDetails = "none" (.streamlit/config.toml)
Streamlit then shows a generic message, never a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from ldpcore.errors import InputError


@contextmanager
def input_errors(message: str | None = None, where=st) -> Iterator[None]:
    """Run the block; an InputError in it is shown as one st.error (its own message, or `message` when given)
    in `where` (default: where the page is drawing at that point), and the page stops there."""
    try:
        yield
    except InputError as exc:
        where.error(message or str(exc))
        st.stop()
