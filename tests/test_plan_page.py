"""AppTest of the Plan page: renders by default, reacts to eps_c, solves a target per row, a row's link opens
Reconstruct with that configuration and the same eps_l, a URL reproduces the view, a shape without data plans
(and follows d), the top-k recall column, a bad URL value warns once, errors are one st.error."""

from urllib.parse import parse_qsl, urlparse

import pytest
from conftest import as_read, assert_clean, metric, metric_exact, open_page

from ldpcore.export import fmt

pytestmark = pytest.mark.app  # every test here renders pages with AppTest


def _table(at):
    return at.dataframe[0].value


def test_default_renders_with_a_recommendation():
    at = open_page("app_pages/plan.py")
    assert_clean(at)
    table = _table(at)
    assert len(table) == 50 and table["rank"].iloc[0] == "1"
    assert at.success and "Recommended: onehot with tight-binary-rr" in at.success[0].value
    # the tight accountant over the two changed channels' dominating pair (11.22 by basic composition, (2 eps, 2 delta))
    assert metric(at, "eps_c") == "1" and metric(at, "RMSE") == "8.06"
    assert {"simulate", "sweep", "eps_l (replacement)", "eps_l (native)", "RMSE without shuffler"} <= set(table)


def test_changing_eps_c_changes_the_table():
    at = open_page("app_pages/plan.py")
    before = _table(at)
    at.number_input(key="eps_c").set_value(0.25).run()
    assert_clean(at)
    after = _table(at)
    certified = after["eps_c"].dropna()
    assert certified.max() <= 0.25 and certified.median() == 0.25  # a capped accountant certifies less
    assert after["RMSE"].min() > before["RMSE"].min()


def test_a_target_rmse_gives_eps_c_per_row():
    at = open_page("app_pages/plan.py", plan_solve="eps_c", target_kind="rmse", target="20")
    assert_clean(at)
    table = _table(at)
    reached = table[~table["why not ranked"].str.startswith("not reachable")]
    assert len(reached) >= 20 and reached["eps_c"].nunique() > 10
    assert (reached["RMSE"] <= 20).all()
    assert "lowest eps_c meeting raw RMSE per bin <= 20" in at.success[0].value


def test_a_rows_link_opens_reconstruct_with_that_configuration_and_the_same_eps_l():
    at = open_page("app_pages/plan.py", eps_c="0.5")
    table = _table(at)
    for encoding in ("onehot", "grr"):
        row = table[(table["encoding"] == encoding) & table["certified"]].iloc[0]
        url = urlparse(row["simulate"])
        assert url.path == "/reconstruct"
        query = dict(parse_qsl(url.query))
        assert query["encoding"] == encoding and query["accountant"] == row["accountant"]
        rec = open_page("app_pages/reconstruct.py", **query)
        assert_clean(rec)
        assert fmt(float(metric_exact(rec, "ε per phone"))) == fmt(row["eps_l (native)"])  # the tooltip: exact


def test_a_solved_rows_link_keeps_its_eps_l_off_the_grid():
    at = open_page("app_pages/plan.py", plan_solve="eps_c", target_kind="rmse", target="30", plan_encodings="grr")
    table = _table(at)
    row = table[table["rank"] == "1"].iloc[0]
    query = dict(parse_qsl(urlparse(row["simulate"]).query))
    rec = open_page("app_pages/reconstruct.py", **query)
    assert_clean(rec)
    assert fmt(float(metric_exact(rec, "ε per phone"))) == fmt(row["eps_l (native)"])  # the tooltip: exact


def test_a_url_reproduces_the_view():
    query = dict(eps_c="0.25", plan_notion="native", plan_encodings="onehot", max_bits="200", dataset="child")
    at = open_page("app_pages/plan.py", **query)
    assert_clean(at)
    again = open_page("app_pages/plan.py", **query)
    assert _table(at).equals(_table(again))
    assert set(_table(at)["encoding"]) == {"onehot"}
    assert at.success[0].value == again.success[0].value


def test_a_shape_without_data_plans_and_follows_d():
    at = open_page("app_pages/plan.py", plan_source="shape")
    assert_clean(at)
    table = _table(at)
    assert len(table) == 50 and "simulate" not in table and "sweep" not in table
    assert (table["n"] == 10_000_000).all() and table["top-k recall"].notna().all()  # Zipf(1.1) has heavy hitters
    assert "zipf:1.1 (n=10,000,000, d=5,000)" in as_read(at.caption[1].value)
    assert any("a shape without data has none that a link could carry" in as_read(c.value) for c in at.caption)
    smaller = open_page("app_pages/plan.py", plan_source="shape", d="200", shape="geometric", geometric_r="0.9")
    assert_clean(smaller)
    assert "geometric:0.9 (n=10,000,000, d=200)" in as_read(smaller.caption[1].value)
    assert not _table(smaller)["RMSE"].equals(table["RMSE"])


def test_the_top_k_recall_column():
    shape = {"plan_source": "shape", "n": "20000", "d": "300", "shape": "zipf", "zipf_s": "0.8"}
    at = open_page("app_pages/plan.py", **shape, eps_c="0.3")
    recall = _table(at)["top-k recall"].dropna()  # a row whose accountant is not valid has none
    assert len(recall) >= 45 and recall.between(0, 1).all() and recall.min() < 0.5 < recall.max()  # k = 10 of 15
    assert any("k = 10" in as_read(c.value) for c in at.caption)
    assert _table(open_page("app_pages/plan.py"))["top-k recall"].isna().all()  # Horse: no pixel holds 1%


@pytest.mark.parametrize(
    "query, shown",
    [
        (dict(d="abc"), "The URL's d='abc' is not a whole number: using d = 5,000."),
        (dict(shape="nope"), "The URL's shape='nope' is not one of uniform, zipf, geometric: using shape = zipf."),
        (dict(zipf_s="x"), "The URL's zipf_s='x' is not a number: using zipf_s = 1.1."),
    ],
)
def test_a_bad_url_value_warns_once_and_falls_back(query, shown):
    at = open_page("app_pages/plan.py", plan_source="shape", **query)
    assert not at.exception and not at.error
    assert [as_read(w.value) for w in at.warning] == [shown]
    assert len(_table(at)) == 50


@pytest.mark.parametrize(
    "query, message",
    [
        (dict(delta="abc"), "delta must be a number"),
        (dict(delta="2"), "delta"),
        (dict(plan_source="shape", d="1"), "the domain size d must be a whole number >= 2"),
        (dict(plan_source="shape", n="0"), "n (respondents) must be a whole number >= 1"),
        (dict(plan_source="shape", shape="geometric", geometric_r="1.5"), "geometric ratio must lie strictly"),
        (dict(plan_source="shape", zipf_s="11"), "Zipf exponent must lie in [0, 10]"),
    ],
)
def test_invalid_input_is_one_st_error(query, message):
    at = open_page("app_pages/plan.py", **query)
    assert not at.exception
    assert len(at.error) == 1 and message in as_read(at.error[0].value)
