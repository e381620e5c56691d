"""AppTest of the Plan page: renders by default, reacts to eps_c, solves a target per row, a row's link opens
Reconstruct with that configuration and the same eps_l, a URL reproduces the view, errors are one st.error."""

from urllib.parse import parse_qsl, urlparse

import pytest
from conftest import assert_clean, metric, metric_exact, open_page

from ldpcore.export import fmt


def _table(at):
    return at.dataframe[0].value


def test_default_renders_with_a_recommendation():
    at = open_page("pages/plan.py")
    assert_clean(at)
    table = _table(at)
    assert len(table) == 50 and table["rank"].iloc[0] == "1"
    assert at.success and "Recommended: onehot with tight-binary-rr" in at.success[0].value
    assert metric(at, "eps_c") == "1" and metric(at, "RMSE") == "11.22"
    assert {"simulate", "sweep", "eps_l (replacement)", "eps_l (native)", "RMSE without shuffler"} <= set(table)


def test_changing_eps_c_changes_the_table():
    at = open_page("pages/plan.py")
    before = _table(at)
    at.number_input(key="eps_c").set_value(0.25).run()
    assert_clean(at)
    after = _table(at)
    certified = after["eps_c"].dropna()
    assert certified.max() <= 0.25 and certified.median() == 0.25  # a capped accountant certifies less
    assert after["RMSE"].min() > before["RMSE"].min()


def test_a_target_rmse_gives_eps_c_per_row():
    at = open_page("pages/plan.py", plan_solve="eps_c", target_kind="rmse", target="20")
    assert_clean(at)
    table = _table(at)
    reached = table[~table["why not ranked"].str.startswith("not reachable")]
    assert len(reached) >= 20 and reached["eps_c"].nunique() > 10
    assert (reached["RMSE"] <= 20).all()
    assert "lowest eps_c meeting raw RMSE per bin <= 20" in at.success[0].value


def test_a_rows_link_opens_reconstruct_with_that_configuration_and_the_same_eps_l():
    at = open_page("pages/plan.py", eps_c="0.5")
    table = _table(at)
    for encoding in ("onehot", "grr"):
        row = table[(table["encoding"] == encoding) & table["certified"]].iloc[0]
        url = urlparse(row["simulate"])
        assert url.path == "/reconstruct"
        query = dict(parse_qsl(url.query))
        assert query["encoding"] == encoding and query["accountant"] == row["accountant"]
        rec = open_page("pages/reconstruct.py", **query)
        assert_clean(rec)
        assert fmt(float(metric_exact(rec, "ε per phone"))) == fmt(row["eps_l (native)"])  # the tooltip: exact


def test_a_solved_rows_link_keeps_its_eps_l_off_the_grid():
    at = open_page("pages/plan.py", plan_solve="eps_c", target_kind="rmse", target="30", plan_encodings="grr")
    table = _table(at)
    row = table[table["rank"] == "1"].iloc[0]
    query = dict(parse_qsl(urlparse(row["simulate"]).query))
    rec = open_page("pages/reconstruct.py", **query)
    assert_clean(rec)
    assert fmt(float(metric_exact(rec, "ε per phone"))) == fmt(row["eps_l (native)"])  # the tooltip: exact


def test_a_url_reproduces_the_view():
    query = dict(eps_c="0.25", plan_notion="native", plan_encodings="onehot", max_bits="200", dataset="child")
    at = open_page("pages/plan.py", **query)
    assert_clean(at)
    again = open_page("pages/plan.py", **query)
    assert _table(at).equals(_table(again))
    assert set(_table(at)["encoding"]) == {"onehot"}
    assert at.success[0].value == again.success[0].value


@pytest.mark.parametrize(
    "query, message",
    [
        (dict(delta="abc"), "delta must be a number"),
        (dict(delta="2"), "delta"),
    ],
)
def test_invalid_input_is_one_st_error(query, message):
    at = open_page("pages/plan.py", **query)
    assert not at.exception
    assert len(at.error) == 1 and message in at.error[0].value
