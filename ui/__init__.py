"""Streamlit helpers shared by the pages: widgets -> ldpcore inputs, cached calls, figures.

No privacy or estimation logic lives here; everything is computed by ldpcore.
"""

import ctypes
import runpy
from pathlib import Path

import streamlit as st

APP = Path(__file__).resolve().parent.parent / "app.py"
# the pages, their sections and icons: ui/registry.py


def _release_freed_memory() -> None:
    """Have glibc give freed arrays back to the system (the server's memory then follows its caches):
    every allocation of 1 MB or more gets its own pages, returned when freed (by default the threshold
    grows to 32 MB, so freed arrays of a few MB stay in the heap), in at most two malloc arenas (else
    each session's script thread may keep one of its own). Other C libraries are left as they are."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD
        libc.mallopt(-8, 2)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass


_release_freed_memory()


def page_config(entry: bool = False) -> None:
    """The app's page settings, applied by app.py (entry=True) and again by every page.

    A freshly started server runs its first script in Streamlit's legacy pages/ mode (a
    process-wide flag, set because pages/ exists, that only st.navigation clears): a deep link
    runs its page without app.py and the sidebar lists file names. A page that finds itself
    run that way clears the flag and runs app.py in its place, whose st.navigation resolves the
    same URL and runs the page properly (streamlit 1.67, pinned); "/" runs app.py anyway.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory and not entry:
        PagesManager.uses_pages_directory = False
        runpy.run_path(str(APP), run_name="__main__")
        st.stop()
    # a local icon: Material icons as page icons are fetched from a font CDN
    st.set_page_config(page_title="ESA explorer", page_icon=str(APP.parent / "assets" / "icon.png"), layout="wide")
