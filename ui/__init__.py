"""Streamlit helpers shared by the pages: widgets -> ldpcore inputs, cached calls, figures.

No privacy or estimation logic lives here; everything is computed by ldpcore.
"""
import threading
from pathlib import Path

import streamlit as st

_warming = threading.Lock()
_started = False


def warm_up() -> None:
    """Import the heavy libraries (scipy.optimize, ldpcore, plotly) once per server process in
    the background, so the first data page does not wait for them."""
    global _started
    with _warming:
        if _started:
            return
        _started = True
    threading.Thread(target=_import_heavy, name="warm-up", daemon=True).start()


def _import_heavy() -> None:
    import plotly.graph_objects  # noqa: F401
    import scipy.optimize  # noqa: F401

    import ldpcore.experiment  # noqa: F401
    import ldpcore.export  # noqa: F401


def page_config() -> None:
    """The app's page settings, applied by app.py and again by every page.

    A freshly started server runs its first script in Streamlit's legacy pages/ mode (a
    process-wide flag, set because pages/ exists, that only st.navigation clears): the page
    runs without app.py and the sidebar lists file names. Clearing the flag and rerunning
    runs app.py, whose st.navigation resolves the same URL (streamlit 1.67, pinned).
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
    # a local icon: Material icons as page icons are fetched from a font CDN
    st.set_page_config(page_title="ESA explorer", page_icon=str(Path(__file__).parent.parent / "assets" / "icon.png"),
                       layout="wide")
