"""Streamlit helpers shared by the pages: widgets -> ldpcore inputs, cached calls, figures.

No privacy or estimation logic lives here; everything is computed by ldpcore.
"""
import threading

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
