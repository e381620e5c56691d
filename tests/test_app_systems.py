"""AppTest for the Numeric, Longitudinal, LDP-SGD and Crowd IDs pages: each renders by default, reacts to its
eps control, shows bad input with st.error, and the Numeric page takes a table CSV upload."""

import pytest
from conftest import as_read, assert_clean, assert_one_error, captions, metric, open_page

pytestmark = pytest.mark.app  # every test here renders pages with AppTest

PAGES = ["app_pages/numeric.py", "app_pages/longitudinal.py", "app_pages/sgd.py", "app_pages/crowds.py"]
TABLE_CSV = b"age,income,region\n" + b"".join(
    f"{20 + i % 60},{900 + 7 * i},{'nsew'[i % 4]}\n".encode() for i in range(2000)
)


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_by_default(page):
    at = open_page(page)
    assert_clean(at)
    assert at.title[0].value and len(at.metric) >= 4 and at.get("plotly_chart")


@pytest.mark.parametrize(
    "page, control, value, shown",
    [
        ("app_pages/numeric.py", "num_eps", 2.0, ["MSE of the means", "eps_c (shuffled)"]),
        (
            "app_pages/longitudinal.py",
            "lng_eps",
            2.0,
            ["client LDP (exact)", "eps_c (batches shuffled)", "RMSE of F_hat"],
        ),
        ("app_pages/sgd.py", "sgd_eps_c", 2.0, ["eps_l per report", "eps_c per epoch"]),
        ("app_pages/crowds.py", "crowd_eps_cr", 2.0, ["Theorem V.2 bound"]),
    ],
)
def test_the_eps_control_changes_the_numbers(page, control, value, shown):
    at = open_page(page)
    before = {label: metric(at, label) for label in shown}
    at.select_slider(key=control).set_value(value).run()
    assert_clean(at)
    assert all(metric(at, label) != before[label] for label in shown), before


def test_numeric_estimates_table_is_built_when_opened():
    at = open_page("app_pages/numeric.py")
    assert [e.label for e in at.expander] == ["Every estimate (means in the data's units)"] and not at.dataframe
    at.session_state["num_rows"] = True  # as a click on the expander does
    at.run()
    assert_clean(at)
    assert len(at.dataframe) == 1 and len(at.dataframe[0].value) == 16  # one row per numeric attribute (d = 16)


def test_numeric_upload_csv():
    at = open_page("app_pages/numeric.py")
    at.selectbox(key="num_data").set_value("upload").run()
    assert not at.error and "Upload a table CSV" in at.info[0].value
    at.file_uploader[0].set_value(("people.csv", TABLE_CSV, "text/csv"))
    at.run()
    assert_clean(at)
    assert at.multiselect(key="num_categorical").value == ["region"]  # guessed: it holds text
    assert "people.csv: n = 2,000 respondents, d = 3 attributes (2 numeric, 1 categorical)" in captions(at)
    assert metric(at, "MSE of the frequencies") and metric(at, "MSE of the means")
    assert any("taken from the data" in i.value for i in at.info)  # the loader's note on the ranges
    assert len(at.get("plotly_chart")) == 5  # means, frequencies, MSE against eps, two theory charts


@pytest.mark.parametrize(
    "data, message",
    [
        (b"a,b\n1,2\n3\n", "line 3: expected 2 columns"),
        (b"a\n\xff\xfe\n", "not a UTF-8 text file"),
        (b"a,b\n1,x\n1,y\n", "column 'a' holds the single value 1"),
    ],
)
def test_numeric_bad_upload_shows_an_error(data, message):
    at = open_page("app_pages/numeric.py")
    at.selectbox(key="num_data").set_value("upload").run()
    at.file_uploader[0].set_value(("bad.csv", data, "text/csv"))
    assert_one_error(at.run(), message)


def test_numeric_n_beyond_what_is_simulated_at_once_warns_and_the_page_stays():
    """num_n=1e6 with d = 16 is 16 million values: n's control goes up to 5,000,000 / 16, says the URL's value is
    not taken, and the page (its Mechanism section too) is drawn at the default n."""
    at = open_page("app_pages/numeric.py", num_n="1e6", num_d="16")
    assert_clean(at)
    assert at.number_input(key="num_n").value <= 5_000_000 // 16
    assert [w for w in at.warning if "num_n" in as_read(w.value)] and len(at.warning) == 1
    assert at.selectbox(key="num_mech").value == "alg4-hm" and at.metric  # the Mechanism section and the results


def test_numeric_url_reproduces_the_view_and_notes_duchi_ties():
    query = dict(num_data="gauss-2/3", num_n="20000", num_d="4", num_mech="duchi-md", num_eps="2", num_seed="3")
    at = open_page("app_pages/numeric.py", **query)
    assert_clean(at)
    assert "gauss-2/3: n = 20,000 respondents, d = 4 attributes" in captions(at)
    assert "duchi-md: the 4 numeric attributes together at eps d_num/d = 2; seed 3" in captions(at)
    assert any("ln(1 + e^eps)-LDP" in i.value for i in at.info)
    again = open_page("app_pages/numeric.py", **query)
    assert metric(again, "MSE of the means") == metric(at, "MSE of the means")


def test_longitudinal_modes_and_bad_horizon():
    at = open_page("app_pages/longitudinal.py")
    assert metric(at, "client LDP (exact)") == "1" and metric(at, "messages / respondent") == "18.14"  # 127/7
    at.radio(key="lng_mode").set_value("paper").run()
    assert_clean(at)
    assert metric(at, "client LDP (exact)") == "0.5"  # the seed's a = eps/2
    at.number_input(key="lng_d").set_value(100).run()
    assert_one_error(at, "T (periods) must be a power of two")


def test_sgd_targets_eps_l_warns_on_small_samples_and_refuses_bad_batches():
    at = open_page("app_pages/sgd.py", sgd_target="eps_l", sgd_eps_l="4")
    assert_clean(at)
    assert metric(at, "eps_l per report") == "4" and not at.warning
    at.select_slider(key="sgd_eps_l").set_value(0.05).run()
    assert_clean(at)
    assert "too few for LDP learning" in at.warning[0].value  # the library's sample-size warning
    at.number_input(key="sgd_batch").set_value(50_000).run()
    assert_one_error(at, "batch_size must be at most n=20,000")


def test_crowds_split_never_pays_and_bad_sizes():
    at = open_page("app_pages/crowds.py")
    assert float(metric(at, "best ratio over all splits")) > 1
    at.text_input(key="crowd_sizes").set_value("1200, x").run()
    assert_one_error(at, "'x' is not")


def test_the_systems_pages_show_the_explanations_kept_in_ldpcore():
    """The pages hold no explanation of their own: the texts live beside what they describe in ldpcore."""
    from ldpcore.systems import crowds, longitudinal, multiparty, sgd
    from ldpcore.systems.numeric import analysis, mechanisms

    shown = {
        "app_pages/numeric.py": [analysis.EXPLANATION, mechanisms.THEORY_NOTE],
        "app_pages/longitudinal.py": [longitudinal.EXPLANATION],
        "app_pages/sgd.py": [sgd.EXPLANATION, sgd.MECHANISM_HELP["sphere"]],
        "app_pages/crowds.py": [crowds.EXPLANATION, crowds.NATURAL_IDS_HELP],
        "app_pages/multimessage.py": [multiparty.MULTI_MESSAGE_HELP, multiparty.THREAT_HELP],
    }
    for page, texts in shown.items():
        text = captions(open_page(page))
        assert all(t in text for t in texts), page
    for text in [longitudinal.MODE_HELP, *sgd.MECHANISM_HELP.values(), crowds.DELETION_HELP]:
        assert "seeds/" not in text and "spec/" not in text
