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
    """The app's page settings, applied by app.py and again by every page: on a freshly
    started server the first deep link runs its page without app.py (Streamlit's legacy
    pages/ mode) until a visit to / has run st.navigation."""
    # a local icon: Material icons as page icons are fetched from a font CDN
    st.set_page_config(page_title="ESA explorer", page_icon=str(Path(__file__).parent.parent / "assets" / "icon.png"),
                       layout="wide")
