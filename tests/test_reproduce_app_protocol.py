"""Take a view home, on Reconstruct and Trade-offs: the page's script and notebook, downloaded as the page offers
them, run in a fresh interpreter (the notebook through nbclient) and print a record equal to the page's JSON record
(same seed, same calls: equal as printed). An upload is read from a file of the same name beside the script. The
data are small (Horse downsampled, a few thousand records)."""

import pytest
from conftest import assert_clean, open_page
from reproduce_support import Downloads, record_of, run_script, script_and_notebook

pytestmark = pytest.mark.app

POINTS = "lat,lon\n" + "".join(f"{40.6 + (i * 7 % 100) / 400},{-74.0 + (i * 13 % 100) / 500}\n" for i in range(3000))
EVENTS = "user,app\n" + "".join(f"u{i % 900},{'abcdefg'[i * i % 7]}\n" for i in range(4000))


@pytest.fixture
def downloads(monkeypatch):
    return Downloads(monkeypatch)


def test_reconstruct_an_image(downloads, tmp_path, monkeypatch):
    at = open_page("app_pages/reconstruct.py", max_side="24", eps_c="0.5", fragments="true", tau="4", seed="3")
    assert_clean(at)
    page = downloads.json("run.json")
    script, notebook = script_and_notebook(downloads, "reconstruct", tmp_path, monkeypatch)
    assert script == page and notebook == page
    assert page["input"] == "horse" and page["seed"] == 3 and page["spec"]["tau"] == 4
    pictures = {p.name for p in (tmp_path / "script").glob("*.png")}
    assert pictures == {"original.png", "no_shuffler.png", "esa.png", "central.png"}


def test_reconstruct_uploaded_records_per_user(downloads, tmp_path):
    """Raw records with a user column and the mode rule: the script reads events.csv from its own folder with the
    page's column and rule, and its record equals the page's (n = 900 users)."""
    at = open_page("app_pages/reconstruct.py", dataset="records", encoding="grr", seed="5")
    at.file_uploader(key="records_file").set_value(("events.csv", EVENTS.encode(), "text/csv")).run()
    at.selectbox(key="rec_column").set_value("app").run()
    at.selectbox(key="rec_user").set_value("user").run()
    at.radio(key="rec_rule").set_value("mode").run()
    assert_clean(at)
    page = downloads.json("run.json")
    (tmp_path / "events.csv").write_text(EVENTS)
    text = downloads.text("reconstruct.py")
    assert 'HERE / "events.csv"' in text and 'per_user="mode"' in text
    assert record_of(run_script(text, tmp_path)) == page and page["n"] == 900
    assert (tmp_path / "reconstruct.html").stat().st_size > 0  # a histogram: the ranked chart


def test_reconstruct_uploaded_points_in_a_box(downloads, tmp_path):
    """Points counted on a grid 16 cells wide in a fixed box: the script reads trips.csv with the page's grid and
    box, saves the pictures, and its record equals the page's."""
    at = open_page("app_pages/reconstruct.py", dataset="points", pts_grid="16", pts_bbox="-74.0,40.6,-73.8,40.85")
    at.file_uploader(key="records_file").set_value(("trips.csv", POINTS.encode(), "text/csv")).run()
    assert_clean(at)
    page = downloads.json("run.json")
    (tmp_path / "trips.csv").write_text(POINTS)
    text = downloads.text("reconstruct.py")
    assert 'bbox="-74.0,40.6,-73.8,40.85"' in text and "width=16" in text
    assert record_of(run_script(text, tmp_path)) == page and page["input"] == "trips.csv"
    assert (tmp_path / "esa.png").read_bytes().startswith(b"\x89PNG")


def test_tradeoffs(downloads, tmp_path, monkeypatch):
    query = dict(max_side="16", sweep_range=["0.5", "1"], sweep_points="2", sweep_taus=["4"], sweep_compare=["grr"])
    at = open_page("app_pages/tradeoffs.py", **query)
    assert_clean(at)
    page = downloads.json("tradeoffs.json")
    script, notebook = script_and_notebook(downloads, "tradeoffs", tmp_path, monkeypatch)
    assert script == page and notebook == page
    labels = [m["label"] for m in page["methods"]]
    assert (
        labels == ["Central Gaussian (no LDP)", "Attribute fragments", "Report fragments, tau=4"] + [labels[-1]]
        and len(page["measured"]) == 2 * 4
    )
    assert len(page["analytic"]["eps_c"]) == 12 and page["notion"] == "replacement"


def test_reconstruct_after_a_post_processing(downloads, tmp_path):
    """?postprocess=norm-sub: the script post-processes the same run's estimate, and its record (the raw run and,
    under "postprocess", the method and its metrics) equals the page's run.json."""
    at = open_page("app_pages/reconstruct.py", max_side="16", eps_c="0.5", seed="2", postprocess="norm-sub")
    assert_clean(at)
    page = downloads.json("run.json")
    text = downloads.text("reconstruct.py")
    assert 'POSTPROCESS = "norm-sub"' in text
    assert record_of(run_script(text, tmp_path)) == page and page["postprocess"]["method"] == "norm-sub"
    assert page["postprocess"]["rmse"] < page["rmse"]  # Norm-Sub helps here (the record keeps the clipped one)


def test_tradeoffs_with_post_processing_curves(downloads, tmp_path):
    """Post-processing curves chosen: the script measures every column again after each (no analytic line for
    them), and its record, those cells and columns included, equals the page's."""
    query = dict(max_side="16", sweep_range=["0.5", "1"], sweep_points="2", sweep_taus=["4"])
    at = open_page("app_pages/tradeoffs.py", **query, sweep_postprocess=["norm-sub", "mle"])
    assert_clean(at)
    page = downloads.json("tradeoffs.json")
    assert record_of(run_script(downloads.text("tradeoffs.py"), tmp_path)) == page
    post = [m["label"] for m in page["methods"] if "postprocess" in m]
    assert "Attribute fragments + mle" in post and "Central Gaussian (no LDP) + mle" not in post
    assert len(page["measured"]) == 2 * len(page["methods"]) and set(page["analytic"]["curves"]).isdisjoint(post)
    assert (tmp_path / "tradeoffs.html").stat().st_size > 0
