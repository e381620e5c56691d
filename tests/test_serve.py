"""The server's start: `streamlit run app.py` serves app.py as an st.App whose lifespan imports every library the
pages use, so a fresh server's first view waits for no import, and then freezes what it loaded for the garbage
collector."""

import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.web.server.app_discovery import discover_asgi_app

ROOT = Path(__file__).resolve().parent.parent

# after ui.serve.import_all, running these pages may import no module of these packages (the costly ones)
CHECK = """
import asyncio, gc, sys
sys.path[:0] = [{root!r}, {tests!r}]
import ui.serve


async def start():
    async with ui.serve.lifespan(None):
        pass


asyncio.run(start())
print("frozen:", gc.get_freeze_count())
from conftest import open_page
before = set(sys.modules)
for page in {pages!r}:
    at = open_page(page)
    assert not at.exception, (page, at.exception)
late = sorted(m for m in set(sys.modules) - before if m.split(".")[0] in {heavy!r})
print("late imports:", late)
"""
HEAVY = ("ldpcore", "ui", "pandas", "pyarrow", "scipy", "plotly", "dp_accounting", "PIL")


def test_streamlit_serves_app_py_as_an_asgi_app():
    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app and found.import_string == "app:app"


@pytest.mark.app
def test_the_lifespan_imports_what_the_pages_import():
    pages = ["app_pages/reconstruct.py", "app_pages/accountant.py", "app_pages/multimessage.py", "app_pages/numeric.py"]
    script = CHECK.format(root=str(ROOT), tests=str(ROOT / "tests"), pages=pages, heavy=HEAVY)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "late imports: []" in out.stdout, out.stdout
    # what the start loaded is out of the collector's sight (a full collection no longer walks it)
    frozen = int(out.stdout.split("frozen:")[1].split()[0])
    assert frozen > 100_000, out.stdout
