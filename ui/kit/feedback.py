"""How the pages show bad input: an ldpcore InputError becomes one st.error line and the page stops there.

    with input_errors():
        result = ldpcore_call(...)

Only InputError is caught: it is the library's one clear message naming the field and the allowed range.
Anything else is a bug and propagates; with client.showErrorDetails = "none" (.streamlit/config.toml)
Streamlit then shows a generic message, never a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from ldpcore.errors import InputError
from ui.kit.format import plain

MAX_MESSAGE = 600  # characters of a library message shown (a message quoting a 5,000-character file name)


@contextmanager
def input_errors(message: str | None = None, where=st) -> Iterator[None]:
    """Run the block; an InputError in it is shown as one st.error (its own message, or `message` when given)
    in `where` (default: where the page is drawing at that point), and the page stops there."""
    try:
        yield
    except InputError as exc:
        where.error(message or plain(exc, MAX_MESSAGE))  # it quotes the user's file names and values: as text
        st.stop()


def file_upload(where, label: str, *, key: str, types: list[str], help: str | None = None, larger: str = ""):
    """where.file_uploader(label) for files named *.<one of types>, or None, with a caption stating the upload
    limit and what to do with a larger file (larger). The name is checked here, not by Streamlit's type= (which
    refuses a file name holding a NUL byte with an exception before the page runs): a NUL byte or another type
    is one st.error, and the page stops."""
    f = where.file_uploader(label, key=key, help=help)
    limit = st.get_option("server.maxUploadSize")
    where.caption(  # the browser refuses a larger file itself, marked only by a red icon: the page never gets it
        f"Up to {limit} MB per file; a file marked in red is larger and was not uploaded"
        + (f": {larger}" if larger else ".")
    )
    if f is None:
        return None
    if "\0" in f.name:
        where.error("The file's name holds a NUL byte, which no file name may: rename the file and upload it again.")
        st.stop()
    if os.path.splitext(f.name)[1].lower().lstrip(".") not in types:
        where.error(f"{plain(f.name)} is not one of the types this upload takes: {', '.join(types)}.")
        st.stop()
    return f
