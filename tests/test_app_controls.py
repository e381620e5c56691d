"""AppTest of the controls (issue 14): eps_c typed exactly and bound to the URL, one warning for a bad URL value,
controls shown only where they act, an upload carried across pages and named on each."""

import pytest
from conftest import as_read, assert_clean, captions, metric, open_page

pytestmark = pytest.mark.app  # every test here renders pages with AppTest

CSV = ("value,count\n" + "".join(f"v{i},{c}\n" for i, c in enumerate([50_000, 20_000, 9_000, 400, 3]))).encode()


def _shown_eps_c(at) -> list[str]:
    """Every place Reconstruct shows eps_c: the guarantee caption and the tight accountant's comparison."""
    text = captions(at) + "\n" + "\n".join(m.value for m in at.markdown)
    return [part.split()[0].rstrip(".*") for part in text.replace("**", "").split("ε_c = ")[1:]]


def test_typing_eps_c_gives_exactly_that_value_everywhere():
    at = open_page("app_pages/reconstruct.py")
    at.session_state["tight_box"] = True  # open "What the tight accountant buys"
    at.number_input(key="eps_c").set_value(0.3).run()
    assert_clean(at)
    assert at.number_input(key="eps_c").value == 0.3
    assert at.select_slider(key="eps_c_log").value == 0.3  # the quick-move slider shows the typed value
    assert "Certified central ε_c = 0.3 by" in captions(at)
    assert "Same ε_c = 0.3**" in " ".join(m.value for m in at.markdown)
    assert metric(at, "ε per phone") != "8.55"


def test_the_log_slider_moves_the_typed_value():
    at = open_page("app_pages/reconstruct.py")
    at.select_slider(key="eps_c_log").set_value(0.25).run()
    assert_clean(at)
    assert at.number_input(key="eps_c").value == 0.25
    assert metric(at, "ε per phone") == "5.96"


@pytest.mark.parametrize("value", ["0.3", "0.4", "1.5"])
def test_a_url_eps_c_in_range_is_reproduced_exactly(value):
    at = open_page("app_pages/reconstruct.py", eps_c=value)
    assert_clean(at)
    assert not at.warning
    assert at.number_input(key="eps_c").value == float(value)
    assert f"Certified central ε_c = {float(value):.4g} by" in captions(at)


@pytest.mark.parametrize("value", ["abc", "-1", "11", "nan"])
def test_a_bad_url_eps_c_shows_one_warning_and_the_default(value):
    at = open_page("app_pages/reconstruct.py", eps_c=value)
    assert not at.exception and not at.error
    assert len(at.warning) == 1
    assert f"eps_c='{value}'" in as_read(at.warning[0].value) and "default eps_c = 1" in as_read(at.warning[0].value)
    assert at.number_input(key="eps_c").value == 1.0
    assert metric(at, "ε per phone") == "8.55"
    at.number_input(key="eps_c").set_value(0.5).run()  # the warning is about the URL the page was opened with
    assert not at.warning


@pytest.mark.parametrize(
    "query, message",
    [
        (
            {"encoding": "foo"},
            "The URL's encoding='foo' is not a value this page's control takes: using encoding = onehot.",
        ),
        ({"tau": "3"}, "The URL's tau='3' is not used on this page with these settings: ignored."),  # fragments off
        ({"encodng": "grr"}, "The URL's encodng='grr' is not used on this page with these settings: ignored."),
        ({"accountant": "nope"}, "The URL's accountant='nope' is not a value this page's control takes: using "),
        ({"seed": "x"}, "The URL's seed='x' is not a value this page's control takes: using seed = 0."),
    ],
)
def test_a_url_value_no_control_takes_shows_one_warning(query, message):
    at = open_page("app_pages/reconstruct.py", max_side="32", **query)
    assert not at.exception and not at.error
    assert len(at.warning) == 1 and as_read(at.warning[0].value).startswith(message), [w.value for w in at.warning]
    at.number_input(key="eps_c").set_value(0.5).run()  # said once: the page's later runs do not repeat it
    assert not at.warning


def test_tau_with_fragments_is_taken_without_a_warning():
    at = open_page("app_pages/reconstruct.py", max_side="32", fragments="true", tau="3")
    assert_clean(at)
    assert not at.warning and at.number_input(key="tau").value == 3


def test_multimessage_eps_c_is_typed_and_checked_too():
    at = open_page("app_pages/multimessage.py", mm_eps="0.3")
    assert_clean(at)
    assert at.number_input(key="mm_eps").value == 0.3 and not at.warning
    bad = open_page("app_pages/multimessage.py", mm_eps="abc")
    assert len(bad.warning) == 1 and "mm_eps='abc'" in as_read(bad.warning[0].value)


def test_report_table_shows_no_sidebar_eps_c_fragments_or_tau():
    at = open_page("app_pages/report_table.py", max_side="32", table_eps="1.0")
    assert_clean(at)
    keys = {w.key for w in at.sidebar.number_input} | {w.key for w in at.sidebar.select_slider}
    keys |= {w.key for w in at.sidebar.toggle}
    assert not keys & {"eps_c", "eps_c_log", "fragments", "tau"}
    assert at.sidebar.radio(key="rule")  # the eps_f rule still sets the tau columns' fragments
    tradeoffs = open_page("app_pages/tradeoffs.py", max_side="32", sweep_points="2")
    assert_clean(tradeoffs)
    assert {w.key for w in tradeoffs.sidebar.toggle}.isdisjoint({"fragments"})
    assert tradeoffs.number_input(key="eps_c")  # it marks the chosen eps_c on the charts


def _upload(at, name: str, data: bytes, mime: str):
    at.selectbox(key="dataset").set_value("upload").run()
    at.file_uploader[0].set_value((name, data, mime))
    return at.run()


def test_image_only_controls_are_absent_for_csv_inputs():
    at = _upload(open_page("app_pages/reconstruct.py"), "hist.csv", CSV, "text/csv")
    assert_clean(at)
    keys = {w.key for w in at.sidebar.number_input}
    assert "scale" not in keys and "max_side" not in keys
    histogram = open_page("app_pages/reconstruct.py", dataset="heavy-hitters")
    assert "max_side" not in {w.key for w in histogram.number_input}
    assert "max_side" in {w.key for w in open_page("app_pages/reconstruct.py").sidebar.number_input}  # Horse


def test_an_upload_is_used_and_named_on_tradeoffs_and_report_table():
    at = _upload(open_page("app_pages/reconstruct.py"), "hist.csv", CSV, "text/csv")
    assert_clean(at)
    assert "Data: your upload **hist.csv**" in captions(at)
    for page in ("app_pages/tradeoffs.py", "app_pages/report_table.py"):
        at.switch_page(page).run()
        assert_clean(at)
        assert at.selectbox(key="dataset").value == "upload"
        assert "Data: your upload **hist.csv**" in captions(at)
        assert "stands in for the paper's Horse" not in captions(at)
    at.switch_page("app_pages/reconstruct.py").run()
    assert "d = 5 values" in captions(at)


def test_a_url_asking_for_an_upload_in_a_new_session_says_to_choose_it_again():
    at = open_page("app_pages/reconstruct.py", dataset="upload")
    assert not at.exception and not at.error
    assert "choose the file again" in at.info[0].value
