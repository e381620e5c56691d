"""Take a view home, on the Report table and Plan pages: the page's script and notebook, downloaded as the page
offers them, run in a fresh interpreter (the notebook through nbclient) and print a record equal to the page's
JSON record (the Report table's Record (JSON), the Plan's Table (JSON)). Small data: Horse downsampled, a shape of
n = 100,000 over d = 64 values."""

import pytest
from conftest import assert_clean, open_page
from reproduce_support import Downloads, record_of, run_script, script_and_notebook

pytestmark = pytest.mark.app


@pytest.fixture
def downloads(monkeypatch):
    return Downloads(monkeypatch)


def test_report_table(downloads, tmp_path, monkeypatch):
    at = open_page("app_pages/report_table.py", max_side="16", table_eps=["0.5", "1"], table_taus=["4"], seed="2")
    assert_clean(at)
    page = downloads.json("report_table.json")
    script, notebook = script_and_notebook(downloads, "report_table", tmp_path, monkeypatch)
    assert script == page and notebook == page
    assert len(page["rows"]) == 2 * 3 and page["title"].startswith("horse: n = ")
    assert (tmp_path / "script" / "report_table.png").read_bytes().startswith(b"\x89PNG")


def test_report_table_and_plan_after_a_post_processing(downloads, tmp_path):
    """A post-processing chosen on the Report table (every column after it) and on the Plan page (ranked on it):
    each script carries it, and its record equals the page's."""
    at = open_page("app_pages/report_table.py", max_side="16", table_eps=["1"], table_postprocess="simplex", seed="2")
    assert_clean(at)
    page = downloads.json("report_table.json")
    assert record_of(run_script(downloads.text("report_table.py"), tmp_path)) == page
    assert {r["postprocess"] for r in page["rows"] if not r["note"]} == {"simplex"}
    query = dict(max_side="16", eps_c="0.5", plan_encodings=["onehot", "grr"], plan_postprocess="norm-sub")
    at = open_page("app_pages/plan.py", **query)
    assert_clean(at)
    page = downloads.json("plan.json")
    assert record_of(run_script(downloads.text("plan.py"), tmp_path, "plan.py")) == page
    assert page["postprocess"] == "norm-sub"


def test_plan_on_a_dataset(downloads, tmp_path, monkeypatch):
    query = dict(max_side="16", eps_c="0.5", plan_rounds="12")
    at = open_page("app_pages/plan.py", **query, plan_encodings=["onehot", "grr", "olh"])
    assert_clean(at)
    page = downloads.json("plan.json")
    script, notebook = script_and_notebook(downloads, "plan", tmp_path, monkeypatch)
    assert script == page and notebook == page
    assert page["eps_c"] == 0.5 and {r["encoding"] for r in page["rows"]} == {"onehot", "grr", "olh"}
    assert page["rounds"] == 12 and page["eps_c_total"] == 0.5


def test_plan_for_a_shape_solving_for_eps_c(downloads, tmp_path):
    query = dict(plan_source="shape", n="100000", d="64", plan_solve="eps_c", target_kind="rmse", target="300")
    at = open_page("app_pages/plan.py", **query, plan_encodings=["grr", "oue"], max_bits="100")
    assert_clean(at)
    page = downloads.json("plan.json")
    assert record_of(run_script(downloads.text("plan.py"), tmp_path)) == page
    assert page["solve"] == "eps_c" and page["target"] == {"kind": "rmse", "value": 300.0}
    assert page["constraints"]["max_bits"] == 100.0 and page["input"].startswith("zipf")
