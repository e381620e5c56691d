"""The server's start (app.py is served as an `st.App`): before it accepts its first browser, the server
imports every library the pages use, so no first view waits for an import, then hides what it loaded from the
garbage collector. Memory: the modules only, no data and no cache (on this machine 236 MB resident after start
instead of 70 MB; after a first view of eight pages 303 MB, as before, 306 MB). Its middleware lets browsers keep
Streamlit's media files (ImmutableMedia)."""

import asyncio
import contextlib
import gc
import importlib
import pkgutil
from collections.abc import AsyncIterator

# imported inside functions of ours (dp_accounting, scipy's) or by Streamlit on a page's first chart (plotly's)
_LAZY = ("dp_accounting", "scipy.optimize", "scipy.stats", "plotly.offline", "plotly.tools")


@contextlib.asynccontextmanager
async def lifespan(_app: object) -> AsyncIterator[None]:
    """st.App's lifespan: import everything, then serve."""
    await asyncio.to_thread(import_all)
    settle()
    yield


def settle() -> None:
    """Move everything alive now (the modules, for the server's whole life) out of the garbage collector's
    sight: a full collection would otherwise walk these ~180,000 objects again and again (about 170 ms each
    time on this machine, inside whichever step triggers it). Collected first, so nothing freed stays."""
    gc.collect()
    gc.freeze()


def import_all() -> None:
    """Import the pages' libraries: every module of ldpcore and ui, the lazily imported ones, plotly's
    figure classes (each is imported on first use) and Pillow's image plugins."""
    import pandas
    import plotly.graph_objects as go
    import plotly.io
    import pyarrow
    from PIL import Image

    import ldpcore
    import ui

    for package in (ldpcore, ui):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if not module.name.endswith(".__main__"):  # `python -m ldpcore`: running it is the CLI
                importlib.import_module(module.name)
    for name in _LAZY:
        importlib.import_module(name)
    Image.init()
    # plotly imports a property's class when a figure first sets it, and its JSON encoder on first use;
    # Streamlit converts tables through pandas to Arrow
    figure = go.Figure(
        [
            go.Scatter(x=[1, 2], y=[1, 2], error_y={"array": [0.1, 0.1]}, line={"dash": "dot"}),
            go.Scattergl(x=[1], y=[1]),
            go.Bar(x=[1], y=[1]),
            go.Heatmap(z=[[1]]),
        ]
    )
    figure.update_layout(
        title={"text": "t"},
        legend={"font": {"size": 10}},
        margin={"t": 10},
        shapes=[{"type": "line", "line": {"width": 1}}],
        xaxis={"title": {"text": "x"}, "minor": {"ticks": "outside"}},
        yaxis={"title": {"text": "y"}, "minor": {"ticks": "outside"}},
    )
    plotly.io.to_json(figure)
    pyarrow.Table.from_pandas(pandas.DataFrame({"a": [1]}))


IMMUTABLE = b"public, max-age=31536000, immutable"


def is_media(path: str) -> bool:
    """Whether path is a file of Streamlit's media route, [<base URL>]/media/<file id> (not the frontend's own
    /static/media/ assets, which Streamlit already marks)."""
    parts = path.strip("/").split("/")
    return len(parts) >= 2 and parts[-2] == "media" and (len(parts) == 2 or parts[-3] != "static")


class ImmutableMedia:
    """ASGI middleware (st.App's middleware=): Streamlit names a file under /media/ by a hash of its content, its
    type and name, so a name never holds other bytes and a browser may keep the file for good: a 200 answer there
    gets Cache-Control: public, max-age=31536000, immutable (Streamlit sends none, and the browser fetched the
    unchanged original image again on every step)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or not is_media(scope["path"]):
            await self.app(scope, receive, send)
            return

        async def send_cached(message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"cache-control"]
                message = {**message, "headers": [*headers, (b"cache-control", IMMUTABLE)]}
            await send(message)

        await self.app(scope, receive, send_cached)
