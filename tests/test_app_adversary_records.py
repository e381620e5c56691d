"""AppTest of the Adversary page (issue 17) and of the raw-records and points inputs (issue 16)."""

import csv
import io
import tempfile
from pathlib import Path

import numpy as np
import pytest
from conftest import as_read, assert_clean, assert_one_error, captions, metric, open_page

pytestmark = pytest.mark.app  # every test here renders pages with AppTest

ADVERSARY = "app_pages/adversary.py"
FAST = {"adv_trials": "10000"}  # the page's default is 10^6 trials per hypothesis; the tests need no more


def _eps(at, observer: str) -> tuple[float, float]:
    lower, upper = metric(at, observer).split(" / ")
    return float(lower), float(upper)


def _demo_rows(at):
    return at.dataframe[0].value


def test_adversary_page_shows_lower_beside_certified_bounds_risk_and_the_guess_on_an_image():
    at = open_page(ADVERSARY, **FAST)
    assert_clean(at)
    for observer in ("server", "shuffler", "analyst"):
        lower, upper = _eps(at, observer)
        assert 0 <= lower <= upper
    assert _eps(at, "server")[1] == 8.55  # Horse at eps_c = 1: eps_l_inf of Lemma II.6
    assert _eps(at, "server")[0] > 7  # the likelihood-ratio test nearly attains it
    table = at.table[0].value
    assert list(table["observer"]) == ["Server without a shuffler", "One captured shuffler", "Analyst after shuffling"]
    assert [c.split(" (")[1] for c in table["certified eps"]] == ["eps_l_inf)", "eps_l_1)", "cheu19)"]
    assert "None" not in table.to_numpy().ravel().tolist()  # a missing number is said in words
    for observer in ("server", "shuffler", "analyst"):
        assert metric(at, f"{observer} guesses right").startswith("1 in ")
    assert " ".join(m.value for m in at.markdown).count("guesses a person's value right") == 3
    # the bars, three trade-off curves and the respondent's pixel on the image
    assert len(at.get("plotly_chart")) == 5
    demo = _demo_rows(at)
    assert len(demo) == 3 and all(g.startswith("pixel (") for g in demo["guess"])
    assert any(as_read(m.value).startswith("Respondent #0 holds **pixel (") for m in at.markdown)


def test_a_url_reproduces_the_adversary_view():
    query = dict(adv_observer="analyst", adv_trials="100000", adv_confidence="0.99", adv_draw="3", eps_c="0.5")
    at = open_page(ADVERSARY, **query)
    assert_clean(at)
    assert [m.label for m in at.metric][:1] == ["analyst"] and "server" not in [m.label for m in at.metric]
    assert "eps lower (0.99)" in at.table[0].value
    assert at.table[0].value["trials / hypothesis"].tolist() == ["100,000"]
    again = open_page(ADVERSARY, **query)
    assert metric(again, "analyst") == metric(at, "analyst")
    assert _demo_rows(again).equals(_demo_rows(at))
    assert any(m.value.startswith("Respondent #3 holds") for m in again.markdown)


def test_the_guess_demonstration_on_a_histogram_and_the_next_respondent():
    data = "value,count\n" + "".join(f"v{i},{c}\n" for i, c in enumerate([50_000, 20_000, 9_000, 400, 3]))
    at = open_page(ADVERSARY, dataset="upload", **FAST)
    at.file_uploader[0].set_value(("hist.csv", data.encode(), "text/csv"))
    at.run()
    assert_clean(at)
    demo = _demo_rows(at)
    assert set(demo["guess"]) <= {"v0", "v1", "v2", "v3", "v4"}  # the values' own names
    assert demo["P(true value)"].notna().all()  # one-hot: every observer's posterior is exact
    first = next(m.value for m in at.markdown if m.value.startswith("Respondent #0 holds"))
    at.button[0].click().run()  # "Draw another respondent"
    assert_clean(at)
    assert at.number_input(key="adv_draw").value == 1
    assert any(m.value.startswith("Respondent #1 holds") for m in at.markdown) and first


def test_adversary_errors_are_one_line():
    at = open_page(ADVERSARY, delta="2", **FAST)
    assert_one_error(at, "delta must lie strictly between 0 and 1")
    at = open_page(ADVERSARY, encoding="cms", max_side="32", k="16", m="1024", **FAST)
    assert_one_error(at, "the audit supports the encodings")


# --- issue 16: raw records and points through the sidebar ------------------------------------------------------


def _records_csv(rows: int = 3000, users: int = 500) -> bytes:
    rng = np.random.default_rng(1)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["user", "category", "age"])
    cats = ["news", "video", "maps"]
    for i in range(rows):
        w.writerow([f"u{i % users}", cats[int(rng.integers(0, 3))], int(rng.integers(0, 90))])
    return out.getvalue().encode()


def _choose(at, name: str, data: bytes, choice: str = "records"):
    at.selectbox(key="dataset").set_value(choice).run()
    at.file_uploader(key="records_file").set_value((name, data, "application/octet-stream"))
    return at.run()


def _report(at) -> str:
    return next(m.value for m in at.sidebar.markdown if "| rows read |" in m.value)


def test_upload_raw_records_choose_the_column_and_n_is_the_number_of_rows():
    at = open_page("app_pages/reconstruct.py", max_side="32")
    at.selectbox(key="dataset").set_value("records").run()
    assert not at.exception and "Upload a CSV, TSV or Parquet file" in at.info[0].value
    at = _choose(at, "events.csv", _records_csv())
    # no column is guessed: the page asks for one and names the file's columns
    assert not at.exception and not at.error and at.selectbox(key="rec_column").value is None
    note = as_read(at.info[0].value)
    assert "events.csv: choose the column of values to count" in note and "user, category, age" in note
    assert not at.metric  # nothing simulated before a column is chosen
    at.selectbox(key="rec_column").set_value("category").run()
    assert_clean(at)
    assert "events.csv: n = 3,000 respondents over d = 3 values" in as_read(at.caption[0].value)
    assert "| rows read | 3,000 |" in _report(at) and "| kept | 3,000 |" in _report(at)
    assert "| out of domain | 0 |" in _report(at) and "| distinct values | 3 |" in _report(at)
    assert metric(at, "ε per phone") != ""
    # one row per event: the first value of each of the 500 users
    at.selectbox(key="rec_user").set_value("user").run()
    assert_clean(at)
    assert "n = 500 respondents" in as_read(at.caption[0].value) and "| users | 500 |" in _report(at)
    # a numeric column in bins over a declared range: values outside are counted, not dropped silently
    at.toggle(key="rec_numeric").set_value(True).run()
    at.selectbox(key="rec_column").set_value("age").run()
    at.text_input(key="rec_range").set_value("0,50").run()
    assert_clean(at)
    out = int(_report(at).split("| out of domain | ")[1].split(" |")[0].replace(",", ""))
    assert out > 0 and any("outside the range [0, 50]" in as_read(i.value) for i in at.info)


def test_upload_a_parquet_file_of_records():
    import duckdb

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.parquet"
        duckdb.connect().execute(
            f"COPY (SELECT 'c' || (i % 7) AS cat FROM range(4000) r(i)) TO '{path}' (FORMAT parquet)"
        )
        data = path.read_bytes()
    at = open_page("app_pages/reconstruct.py", dataset="records", rec_column="cat")  # the URL names the column
    at.file_uploader(key="records_file").set_value(("log.parquet", data, "application/octet-stream"))
    at.run()
    assert_clean(at)
    assert "log.parquet: n = 4,000 respondents over d = 7 values" in as_read(at.caption[0].value)


def test_upload_points_gives_a_map_like_image():
    rng = np.random.default_rng(2)
    lat, lon = 40.75 + 0.03 * rng.standard_normal(5000), -73.95 + 0.04 * rng.standard_normal(5000)
    data = ("Latitude,Longitude\n" + "".join(f"{a:.5f},{b:.5f}\n" for a, b in zip(lat, lon))).encode()
    at = _choose(open_page("app_pages/reconstruct.py"), "pts.csv", data, "points")
    at.number_input(key="pts_grid").set_value(64).run()
    assert_clean(at)
    assert at.selectbox(key="pts_lat").value == "Latitude" and at.selectbox(key="pts_lon").value == "Longitude"
    kept = int(_report(at).split("| kept | ")[1].split(" |")[0].replace(",", ""))
    caption = as_read(at.caption[0].value)
    assert kept > 0.99 * 5000 and f"pts.csv: n = {kept:,} respondents" in caption  # the robust box
    assert "(64x" in caption
    assert len(at.main.image) == 4  # original, no shuffler, ESA reconstruction and central baseline: map-like images
    assert "| cells with points |" in _report(at)
    at.text_input(key="pts_bbox").set_value("-74.0,40.7,-73.9,40.8").run()
    assert_clean(at)
    outside = int(_report(at).split("| out of domain | ")[1].split(" |")[0].replace(",", ""))
    assert 0 < outside < 5000 and f"n = {5000 - outside:,} respondents" in as_read(at.caption[0].value)


@pytest.mark.parametrize(
    "name,data,choice,message",
    [
        ("junk.csv", bytes(range(256)) * 4, "records", "holds binary data"),
        ("fake.parquet", b"not parquet at all", "records", "is not a Parquet file"),
        ("semi.csv", b"a;b\n1;2\n3;4\n", "points", "found no latitude column"),
        ("empty.csv", b"category\n", "records", "holds no rows"),
    ],
)
def test_bad_record_files_show_one_error(name, data, choice, message):
    at = open_page("app_pages/reconstruct.py", dataset=choice, rec_column="category")  # the URL names the column
    at.file_uploader(key="records_file").set_value((name, data, "application/octet-stream"))
    assert_one_error(at.run(), message)


def test_the_bundled_samples_open_with_their_report():
    at = open_page("app_pages/reconstruct.py", dataset="app-events")
    assert_clean(at)
    assert "app_events.csv: n = 5,998 respondents over d = 30 values" in as_read(at.caption[0].value)
    assert "| users | 5,998 |" in _report(at) and "(categorical; first)" in _report(at)
    points = open_page("app_pages/reconstruct.py", dataset="city-points")
    assert_clean(points)
    assert "city_points.csv: n = 100,000 respondents" in captions(points)
