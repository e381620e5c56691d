"""Take a view home, on the Multi-message, Longitudinal and Crowd IDs pages: the page's script and notebook,
downloaded as the page offers them, run in a fresh interpreter (the notebook through nbclient) and print a record
equal to the page's Record (JSON). Small settings: d = 4 values at delta = 1e-3, 1,000 respondents over 16
periods."""

import pytest
from conftest import assert_clean, open_page
from reproduce_support import Downloads, script_and_notebook

pytestmark = pytest.mark.app


@pytest.fixture
def downloads(monkeypatch):
    return Downloads(monkeypatch)


@pytest.mark.parametrize(
    "page, name, query",
    [
        ("app_pages/multimessage.py", "multimessage", dict(mm_d="4", mm_delta="1e-3", mm_shape="uniform", mp_r="2")),
        ("app_pages/longitudinal.py", "longitudinal", dict(lng_n="1000", lng_d="16", lng_seed="7")),
        ("app_pages/crowds.py", "crowds", dict(crowd_sizes="5000, 800, 150", crowd_seed="3", crowd_m="3")),
    ],
)
def test_script_and_notebook_print_the_pages_record(downloads, tmp_path, monkeypatch, page, name, query):
    at = open_page(page, **query)
    assert_clean(at)
    shown = downloads.json(f"{name}.json")
    script, notebook = script_and_notebook(downloads, name, tmp_path, monkeypatch)
    assert script == shown and notebook == shown
    assert (tmp_path / "script" / f"{name}.html").stat().st_size > 1_000_000  # plotly.js inlined: opens offline
