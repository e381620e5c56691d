"""Take a view home, on the Numeric and LDP-SGD pages: the page's script and notebook, downloaded as the page
offers them, run in a fresh interpreter (the notebook through nbclient) and print a record equal to the page's
Record (JSON); an uploaded table CSV is read from a file of the same name beside the script. Small data: 1,000
respondents with 4 attributes, 2,000 training examples."""

import pytest
from conftest import assert_clean, open_page
from reproduce_support import Downloads, record_of, run_script, script_and_notebook

pytestmark = pytest.mark.app

TABLE = "age,income,region\n" + "".join(f"{20 + i % 60},{900 + 7 * i},{'nsew'[i % 4]}\n" for i in range(600))


@pytest.fixture
def downloads(monkeypatch):
    return Downloads(monkeypatch)


def test_numeric(downloads, tmp_path, monkeypatch):
    at = open_page("app_pages/numeric.py", num_n="1000", num_d="4", num_seed="2", num_mech="pm")
    assert_clean(at)
    page = downloads.json("numeric.json")
    script, notebook = script_and_notebook(downloads, "numeric", tmp_path, monkeypatch)
    assert script == page and notebook == page
    assert page["n"] == 1000 and page["mechanism"] == "pm" and len(page["estimates"]) == 4


def test_numeric_upload(downloads, tmp_path):
    at = open_page("app_pages/numeric.py", num_data="upload")
    at.file_uploader[0].set_value(("people.csv", TABLE.encode(), "text/csv")).run()
    assert_clean(at)
    page = downloads.json("numeric.json")
    (tmp_path / "people.csv").write_text(TABLE)
    text = downloads.text("numeric.py")
    assert 'HERE / "people.csv"' in text and 'categorical=("region",)' in text
    assert record_of(run_script(text, tmp_path)) == page and page["input"] == "people.csv"


def test_sgd(downloads, tmp_path, monkeypatch):
    at = open_page("app_pages/sgd.py", sgd_n="2000", sgd_batch="500", sgd_epochs="2", sgd_seed="1")
    assert_clean(at)
    page = downloads.json("sgd.json")
    script, notebook = script_and_notebook(downloads, "sgd", tmp_path, monkeypatch)
    assert script == page and notebook == page
    assert (
        page["config"]["epochs"] == 2
        and page["accounting"]["valid"]
        and len(page["private"]["epoch_test_accuracy"]) == 2
    )
