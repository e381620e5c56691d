"""AppTest of the Plan page: renders by default, reacts to eps_c, solves a target per row, a row's link opens
Reconstruct with that configuration and the same eps_l, a URL reproduces the view, a shape without data plans
(and follows d), the top-k recall column, a bad URL value warns once, errors are one st.error."""

import pytest
from conftest import as_read, assert_clean, captions, metric, metric_exact, open_page

from ldpcore.export import fmt

pytestmark = pytest.mark.app  # every test here renders pages with AppTest


def _table(at):
    return at.dataframe[0].value


def test_default_renders_with_a_recommendation():
    at = open_page("app_pages/plan.py")
    assert_clean(at)
    table = _table(at)
    assert len(table) == 50 and table["rank"].iloc[0] == "1 ★"  # the lowest predicted RMSE, recommended
    assert at.success and "Recommended: onehot with tight-binary-rr" in at.success[0].value
    # the tight accountant over the two changed channels' dominating pair (11.22 by basic composition, (2 eps, 2 delta))
    assert metric(at, "eps_c") == "1" and metric(at, "raw RMSE") == "8.06"
    assert {"eps_l (replacement)", "eps_l (native)", "RMSE without shuffler"} <= set(table)
    assert at.button(key="open_recommended_reconstruct").label == "Simulate it on Reconstruct"


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
    assert (
        at.success[0].value.startswith("**Recommended: ")
        and "By the lowest eps_c on the Pareto set" in at.success[0].value
    )
    assert "meeting raw RMSE per bin <= 20" in at.success[0].value


def _open_row(at, label_start: str, page: str = "reconstruct"):
    """Choose the row whose label starts with label_start and click its button: the app switches page in the
    same session (AppTest follows st.switch_page)."""
    options = at.selectbox(key="plan_row").options
    at.selectbox(key="plan_row").set_value(next(o for o in options if o.startswith(label_start))).run()
    return at.button(key=f"open_row_{page}").click().run()


def test_a_rows_button_opens_reconstruct_with_that_configuration_and_the_same_eps_l():
    for encoding in ("onehot", "grr"):
        at = open_page("app_pages/plan.py", eps_c="0.5")
        table = _table(at)
        row = table[(table["encoding"] == encoding) & table["certified"]].iloc[0]
        rec = _open_row(at, f"{row['rank'].split()[0]}: {encoding} / {row['accountant']}")
        assert_clean(rec)
        assert rec.title[0].value == "Reconstruct"
        assert rec.selectbox(key="encoding").value == encoding
        assert rec.selectbox(key="accountant").value == row["accountant"]
        assert not rec.warning, [w.value for w in rec.warning]  # every value the button set is taken
        assert fmt(float(metric_exact(rec, "ε per phone"))) == fmt(row["eps_l (native)"])  # the tooltip: exact


def test_the_recommended_rows_button_carries_the_data_and_a_delta_as_typed():
    at = open_page("app_pages/plan.py", dataset="child", eps_c="0.5")
    assert "child" in at.caption[1].value
    rec = at.button(key="open_recommended_reconstruct").click().run()
    assert_clean(rec)
    assert rec.title[0].value == "Reconstruct" and rec.selectbox(key="dataset").value == "child"
    assert "child" in rec.caption[0].value
    delta = rec.text_input(key="delta").value
    assert delta == f"{float(delta):.12g}" and len(delta) <= 8, delta  # 6e-05, not 6.000000000000001e-05


def test_a_solved_rows_button_keeps_its_eps_l_off_the_grid():
    at = open_page("app_pages/plan.py", plan_solve="eps_c", target_kind="rmse", target="30", plan_encodings="grr")
    table = _table(at)
    row = table[table["rank"] == "1 ★"].iloc[0]
    rec = _open_row(at, "1: grr")
    assert_clean(rec)
    assert fmt(float(metric_exact(rec, "ε per phone"))) == fmt(row["eps_l (native)"])  # the tooltip: exact


def test_a_rows_button_opens_trade_offs():
    at = open_page("app_pages/plan.py", plan_encodings="grr", dataset="child")
    tradeoffs = _open_row(at, "1: grr", "tradeoffs")
    assert_clean(tradeoffs)
    assert tradeoffs.title[0].value == "Trade-offs" and tradeoffs.selectbox(key="encoding").value == "grr"


def test_the_rule_picks_the_recommendation_on_the_pareto_set():
    """Horse at eps_c = 1 by the lowest eps_l within 10% of the best RMSE: the page recommends the library's pick
    (GRR, RMSE 11.35, eps_l 10.89, 17 bits, over one-hot's 11.22, 19.26, 115 bits on main at this writing) and
    says what both it and the runner-up cost; the table marks the Pareto rows and the pick (★)."""
    from ldpcore.data.datasets import DATASETS, load_dataset
    from ldpcore.experiment import planning

    at = open_page("app_pages/plan.py", plan_rule="lowest-eps-l")
    assert_clean(at)
    library = planning.plan_table(load_dataset("horse").counts, 1.0, DATASETS["horse"].delta, rule="lowest-eps-l")
    best, said = library.recommended, as_read(at.success[0].value)
    assert said == f"**Recommended: {best.encoding} with {best.accountant}.** {library.reason}"
    assert "the runner-up" in said and said.count("(predicted RMSE") == 2 and said.count("bits per respondent") == 2
    table = _table(at)
    assert table["Pareto"].any() and (table["rank"].str.endswith(" ★")).sum() == 1
    pick = table[table["rank"].str.endswith(" ★")].iloc[0]
    assert (pick["encoding"], pick["accountant"]) == (best.encoding, best.accountant) and pick["Pareto"]


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
    assert len(table) == 50
    assert not [b for b in at.button if b.key and b.key.startswith("open_")]
    assert (table["n"] == 10_000_000).all() and table["top-k recall"].notna().all()  # Zipf(1.1) has heavy hitters
    assert "zipf:1.1 (n=10,000,000, d=5,000)" in as_read(at.caption[1].value)
    assert any("a shape without data has none to carry" in as_read(c.value) for c in at.caption)
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


def test_solving_for_n_says_what_it_holds_and_lets_delta_follow_n():
    """Solving for the smallest n says what stays fixed: Horse's delta at every n (the default), or the rule
    delta = about 1/(10 n) applied afresh at each n, which the page offers when solving for n only."""
    ask = dict(plan_solve="n", eps_c="1", target_kind="relative_rmse", target="0.05", plan_encodings="grr")
    fixed = open_page("app_pages/plan.py", **ask)
    assert_clean(fixed)
    assert "Solving for n holds the data's shape, eps_c and delta = 5e-08 (the dataset's) at every n" in captions(fixed)
    follows = open_page("app_pages/plan.py", plan_delta_n="1/(10 n)", **ask)
    assert_clean(follows)
    assert "the rule delta = about 1/(10 n), applied afresh at each row's n" in captions(follows)
    assert _table(follows)["n"].tolist() != _table(fixed)["n"].tolist()  # another delta, another n
    assert not [r for r in open_page("app_pages/plan.py").radio if r.key == "plan_delta_n"]  # only when solving n
