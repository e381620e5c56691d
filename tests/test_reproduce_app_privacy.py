"""Take a view home, on the Accountant and Adversary pages: the page's script and notebook, downloaded as the page
offers them, run in a fresh interpreter (the notebook through nbclient) and print a record equal to the page's
Record (JSON). The audit runs 10,000 trials per hypothesis on Horse downsampled."""

import pytest
from conftest import assert_clean, open_page
from reproduce_support import Downloads, script_and_notebook

pytestmark = pytest.mark.app


@pytest.fixture
def downloads(monkeypatch):
    return Downloads(monkeypatch)


def test_accountant(downloads, tmp_path, monkeypatch):
    at = open_page(
        "app_pages/accountant.py",
        acc_n="100000",
        acc_given="eps0",
        acc_value="3",
        acc_k="4",
        acc_rounds="30",
        acc_notion="replacement",
    )
    assert_clean(at)
    page = downloads.json("accountant.json")
    script, notebook = script_and_notebook(downloads, "accountant", tmp_path, monkeypatch)
    assert script == page and notebook == page
    assert page["given"] == "eps0" and page["value"] == 3.0 and page["k"] == 4 and page["rounds"] == 30
    assert page["notion"] == "replacement" and {b["neighbouring"] for b in page["bounds"]} == {"replacement"}
    assert len(page["bounds"]) == len(page["eps_c_against_eps0"]["curves"]) >= 10


def test_adversary(downloads, tmp_path, monkeypatch):
    at = open_page("app_pages/adversary.py", max_side="16", adv_trials="10000", seed="4", adv_draw="9")
    assert_clean(at)
    page = downloads.json("adversary.json")
    script, notebook = script_and_notebook(downloads, "adversary", tmp_path, monkeypatch)
    assert script == page and notebook == page
    audit = page["audit"]
    assert audit["seed"] == 4 and page["draw"] == 9 and page["demonstration"] is not None
    assert [o["observer"] for o in audit["observers"]] == ["server", "shuffler", "analyst"]
