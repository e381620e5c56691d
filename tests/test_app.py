"""AppTest per page: renders by default, reacts to eps_c, uploads, errors, URLs, exports."""

import csv
import io

import numpy as np
import pytest
from conftest import APP, ROOT, as_read, assert_clean, captions, metric, open_page
from PIL import Image
from streamlit.testing.v1 import AppTest

from ldpcore.export import png_bytes
from ui.registry import PAGES, SECTIONS, by_section

pytestmark = pytest.mark.app  # every test here renders pages with AppTest


@pytest.mark.parametrize("page", [p.path for p in PAGES])
def test_every_registered_page_renders_by_default(page):
    at = open_page(page)
    assert_clean(at)
    assert at.title[0].value


def test_the_registry_holds_every_page_once_and_the_navigation_shows_its_sections():
    """Adding a page is one line in ui/registry.py: every file in app_pages/ is registered, once, with a URL path
    that is its file name (the URLs stay those of the files); app.py's navigation is built from the registry."""
    files = sorted(f"app_pages/{f.name}" for f in (ROOT / "app_pages").glob("*.py"))
    assert sorted(p.path for p in PAGES) == files
    assert len({p.title for p in PAGES}) == len(PAGES) and PAGES[0].url_path == ""
    assert all(p.url_path == p.path.removeprefix("app_pages/").removesuffix(".py") for p in PAGES[1:])
    sections = by_section()
    assert list(sections) == [s for s in SECTIONS if s in sections] and sum(map(len, sections.values())) == len(PAGES)
    assert not (ROOT / "pages").exists()  # it would start Streamlit in its legacy pages mode (app.py)
    built = AppTest.from_function(_navigation_pages, default_timeout=60).run()  # st.Page needs a script run
    assert_clean(built)
    assert [t.value for t in built.text] == [
        repr((section, [(p.title, p.url_path, p.material_icon) for p in pages])) for section, pages in sections.items()
    ]
    at = AppTest.from_file(APP, default_timeout=180).run()
    assert_clean(at)
    assert at.title[0].value == "What anonymous local differential privacy costs and buys"  # the default page


def _navigation_pages():
    """What app.py passes to st.navigation: (section, [(title, url path, icon)]) as st.text lines."""
    import streamlit as st

    from ui.registry import navigation

    for section, pages in navigation().items():
        st.text(repr((section, [(p.title, p.url_path, p.icon) for p in pages])))


def test_moving_eps_c_changes_eps_l_inf():
    at = open_page("app_pages/reconstruct.py")
    assert metric(at, "ε per phone") == "8.55"  # Horse look-alike at eps_c = 1, Lemma II.6
    at.number_input(key="eps_c").set_value(0.25).run()
    assert_clean(at)
    assert metric(at, "ε per phone") == "5.96"


def test_url_reproduces_the_view():
    at = open_page("app_pages/reconstruct.py", eps_c="0.5", fragments="true", tau="16", seed="3")
    assert_clean(at)
    assert metric(at, "ε per phone") == "7.28" and metric(at, "ε per captured shuffler") == "4.45"
    again = open_page("app_pages/reconstruct.py", eps_c="0.5", fragments="true", tau="16", seed="3")
    assert metric(again, "clipped RMSE") == metric(at, "clipped RMSE")


def test_error_map_is_drawn_only_when_opened():
    at = open_page("app_pages/reconstruct.py")
    errors = next(e for e in at.expander if e.label.startswith("Error map"))
    assert not errors.proto.expanded and len(errors.image) == 0
    at.session_state["error_map"] = True  # as a click on the expander does
    at.run()
    assert_clean(at)
    assert len(next(e for e in at.expander if e.label.startswith("Error map")).image) == 1


def exact_of(at, label: str) -> str:
    """The exact value a metric's tooltip gives ("Exact: 3,366,030.29 ..."), without separators."""
    help_text = next(m.proto.help for m in at.metric if m.label == label)
    return help_text.removeprefix("Exact: ").split(" ")[0].rstrip(".").replace(",", "")


def _png(arr) -> bytes:
    return png_bytes(Image.fromarray(np.asarray(arr, dtype=np.uint8)))


def _upload(at: AppTest, name: str, data: bytes, mime: str) -> AppTest:
    at.selectbox(key="dataset").set_value("upload").run()
    at.file_uploader[0].set_value((name, data, mime))
    return at.run()


def test_upload_png():
    rng = np.random.default_rng(0)
    noise = _png(rng.integers(0, 256, (120, 160)))
    at = _upload(open_page("app_pages/reconstruct.py"), "noise.png", noise, "image/png")
    assert_clean(at)
    assert "noise.png: n = " in captions(at) and "d = 19,200" in captions(at)
    assert metric(at, "ε per phone") != ""


def test_upload_histogram_csv():
    data = "value,count\n" + "".join(f"v{i},{c}\n" for i, c in enumerate([50_000, 20_000, 9_000, 400, 3]))
    at = _upload(open_page("app_pages/reconstruct.py"), "hist.csv", data.encode(), "text/csv")
    assert_clean(at)
    assert "d = 5 values" in captions(at)


@pytest.mark.parametrize(
    "name,data,message",
    [
        ("broken.png", _png(np.full((50, 50), 9))[:70], "truncated or corrupt"),
        ("notes.png", b"plain text, not pixels", "is not an image"),
        ("bad.csv", b"10\n-4\n", "is negative"),
        ("black.png", _png(np.zeros((8, 8))), "every pixel is black"),
    ],
)
def test_bad_upload_shows_an_error_not_an_exception(name, data, message):
    at = _upload(open_page("app_pages/reconstruct.py"), name, data, "application/octet-stream")
    assert not at.exception
    assert len(at.error) == 1 and message in as_read(at.error[0].value)


def test_invalid_parameters_show_an_error():
    at = open_page("app_pages/reconstruct.py")
    at.text_input(key="delta").set_value("2").run()
    assert not at.exception and "delta must lie strictly between 0 and 1" in as_read(at.error[0].value)
    at.text_input(key="delta").set_value("5e-8").run()
    at.number_input(key="max_side").set_value(16).run()  # Horse at 16 px: about 5,000 respondents
    at.number_input(key="eps_c").set_value(0.001).run()  # below what Lemma II.6 certifies for them
    assert not at.exception and not at.error  # the trivial bound eps_l = eps_c holds, and the page says so
    infos = [as_read(i.value) for i in at.info]
    assert any("trivial bound" in i and "cannot certify eps_c=0.001" in i for i in infos)


def test_tradeoffs_draws_three_charts():
    at = open_page("app_pages/tradeoffs.py")
    assert_clean(at)
    charts = at.get("plotly_chart")
    assert len(charts) == 3


def test_report_table_exports_hold_the_displayed_numbers():
    """The page's captions equal the Markdown and LaTeX exports of the same cells, and the CSV holds their numbers
    at full precision (recomputed here with the page's defaults: every run is determined by its seed)."""
    from ldpcore.data.datasets import load_dataset
    from ldpcore.experiment.protocol.run import paper_methods, sweep
    from ldpcore.experiment.protocol.spec import ProtocolSpec
    from ldpcore.export import cell_caption, fmt, table_csv, table_latex, table_markdown, table_rows

    at = open_page("app_pages/report_table.py")
    assert_clean(at)
    captions = [m.value for m in at.markdown if m.value.startswith(("eps_inf=", "sigma="))]
    undefined = [m for m in at.markdown if m.value == "not defined"]
    assert len(captions) + len(undefined) == 5 * 5  # 5 eps_c rows x (central, attribute, tau 4/16/256), as Table IV
    assert all(m.help for m in undefined)  # each says why in its tooltip
    assert {b.label for b in at.download_button} >= {"Table (PNG)", "CSV", "Markdown", "LaTeX"}

    cells = sweep(
        paper_methods(ProtocolSpec(eps_c=1.0, delta=5e-8)), [0.05, 0.25, 0.5, 0.75, 1.0], load_dataset("horse"), seed=0
    )
    rows = table_rows(cells)
    assert ["  \n".join(cell_caption(r)) for r in rows if not r["note"]] == captions
    markdown, latex = table_markdown(cells), table_latex(cells)
    for r in rows:
        for key in ("eps_l_inf", "eps_l_1", "sigma", "rmse"):
            if r[key] and r[key] != "inf":
                assert r[key] in markdown and r[key] in latex
    # the CSV: the same numbers at full precision, machine-readable
    records = list(csv.DictReader(io.StringIO(table_csv(cells))))
    assert len(records) == len(rows)
    for r, record in zip(rows, records):
        if r["note"]:
            assert record["rmse_clipped"] == "" and record["note"] == r["note"]
        else:
            assert fmt(float(record["rmse_clipped"])) == r["rmse"] and float(record["rmse_raw"]) > 0
    # Horse look-alike at eps_c = 1: the attribute column is Table IV's eps_l_inf = 8.55
    attr = next(r for r in rows if r["eps_c"] == "1" and r["method"] == "Attribute fragments")
    assert attr["eps_l_inf"] == "8.55" and attr["eps_l_1"] == "8.55"


def test_a_histograms_report_table_draws_bar_charts_named_by_category():
    """A 5-bin histogram's cells are small bar charts (not a 5 x 320 picture stretched to a column), one y scale,
    the categories named on the x axis, the clipped estimate's unit said."""
    import json

    data = b"weather,count\ndrizzle,53\nrain,641\nsun,640\nsnow,26\nfog,101\n"
    at = open_page("app_pages/report_table.py", dataset="upload")
    at.file_uploader[0].set_value(("weather.csv", data, "text/csv"))
    at.run()
    assert_clean(at)
    assert not at.main.image  # no pictures: a histogram's cells are charts
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    defined = [m for m in at.markdown if m.value.startswith(("eps_inf=", "sigma="))]
    assert len(charts) == len(defined) >= 5
    for chart in charts:
        bars = chart["data"][0]
        assert bars["type"] == "bar" and bars["x"] == ["rain", "sun", "fog", "drizzle", "snow"]  # by true count
        assert chart["layout"]["yaxis"]["range"] == charts[0]["layout"]["yaxis"]["range"]  # one scale
        assert chart["layout"]["height"] <= 200
    assert any("respondents per value" in c.value for c in at.caption)


def test_reconstruct_shows_what_the_tight_accountant_buys():
    at = open_page("app_pages/reconstruct.py")
    tight = next(e for e in at.expander if e.label == "What the tight accountant buys")
    assert not tight.proto.expanded and not tight.markdown  # computed only while open (a second run, two solves)
    at.session_state["tight_box"] = True  # as a click on the expander does
    at.run()
    text = " ".join(m.value for m in at.markdown)
    # spec/amplification.md, Horse: eps_c = 1 -> eps_l 10.68; eps_l = 8.547 -> eps_c ~ 0.252
    assert "ε_l = **10.68** instead of 8.55" in text and "ε_c = **0.252**, not 1" in text
    at.selectbox(key="accountant").set_value("tight-binary-rr").run()
    assert_clean(at)
    assert metric(at, "ε per phone") == "10.7" and exact_of(at, "ε per phone").startswith("10.68")


def test_accountant_page_table_follows_the_inputs():
    at = open_page("app_pages/accountant.py")
    table = at.dataframe[0].value
    row = table[table["bound"] == "cheu19"].iloc[0]
    assert round(float(row["eps0"]), 2) == 8.55  # Table IV: Horse, eps_c = 1
    tight = table[table["bound"] == "tight-binary-rr"].iloc[0]
    assert round(float(tight["eps0"]), 2) == 10.68
    at.number_input(key="acc_value").set_value(0.05).run()
    assert_clean(at)
    table = at.dataframe[0].value
    assert round(float(table[table["bound"] == "cheu19"].iloc[0]["eps0"]), 2) == 2.94
    assert round(float(table[table["bound"] == "tight-binary-rr"].iloc[0]["eps0"]), 2) == 5.61
    assert len(at.get("plotly_chart")) == 2 and len(at.expander) == len(table)


def test_accountant_page_bad_delta_and_invalid_bounds():
    at = open_page("app_pages/accountant.py", acc_delta="2")
    assert not at.exception and "delta must be a number strictly between 0 and 1" in as_read(at.error[0].value)
    at = open_page("app_pages/accountant.py", acc_n="500", acc_delta="1e-6")
    assert_clean(at)
    notes = at.dataframe[0].value.set_index("bound")["note"]
    assert "too few respondents" in notes["efmrtt19"]  # n >= 1000 needed


def test_every_encoding_is_selectable_on_reconstruct_and_report_table():
    from ldpcore.oracles import ENCODINGS

    at = open_page("app_pages/reconstruct.py", max_side="64", k="64", m="4096")  # small sketches: fast, same checks
    for name in ENCODINGS:
        at.selectbox(key="encoding").set_value(name).run()
        assert_clean(at)
        assert at.selectbox(key="accountant").value == ENCODINGS[name].accountants[0]
        messages = float(exact_of(at, "messages per phone"))
        assert messages == 1.0 if name not in ("onehot", "sketch-fragments") else messages > 1
        assert [w.label for w in at.sidebar.number_input if w.key in ("k", "g", "r", "n_r")] == [
            p.label for p in ENCODINGS[name].params if p.name in ("k", "g", "r", "n_r")
        ]
        certified = [w.value for w in at.warning if "NOT certified" in w.value]
        assert bool(certified) != ENCODINGS[name].certified
        # only the count sketch's (default) median readout has an approximate analytic RMSE, and says so
        assert ("analytic approximation" in captions(at)) == (name == "count-sketch")
    table = open_page("app_pages/report_table.py", encoding="grr")
    assert_clean(table)
    assert any(m.value == f"**{ENCODINGS['grr'].title}**" for m in table.markdown)


def test_encoding_parameters_change_the_run_and_live_in_the_url():
    at = open_page("app_pages/reconstruct.py", max_side="64", encoding="cms", k="16", m="1024")
    assert_clean(at)
    assert at.number_input(key="k").value == 16 and at.selectbox(key="m").value == 1024
    bits = metric(at, "messages per phone")
    rmse = metric(at, "clipped RMSE")
    at.selectbox(key="m").set_value(4096).run()
    assert_clean(at)
    assert metric(at, "clipped RMSE") != rmse
    assert bits == "1.00" and not at.warning  # one eps_l-LDP report: certified by fmt21-numeric
    fragments = open_page("app_pages/reconstruct.py", max_side="64", encoding="sketch-fragments", k="16", m="1024")
    assert_clean(fragments)
    assert "NOT certified" in fragments.warning[0].value and "a generic bound certifies" in fragments.warning[0].value
    mixed = open_page("app_pages/reconstruct.py", max_side="64", encoding="murs", base="grr")
    # GRR on 3,520 values
    assert not mixed.exception and "too few respondents and fakes" in as_read(mixed.error[0].value)
    assert "g" not in [w.key for w in mixed.sidebar.number_input]  # MURS on GRR has no hash range
    solh = open_page("app_pages/reconstruct.py", max_side="64", encoding="solh", eps_c="0.5")
    assert_clean(solh)
    assert any("hash range g = " in c.value for c in solh.caption)
    murs = open_page("app_pages/reconstruct.py", encoding="murs", r="3", n_r="20000", eps_c="1.0")
    assert_clean(murs)
    assert any("60,000 fake reports" in c.value for c in murs.caption)
    huge = open_page("app_pages/reconstruct.py", max_side="64", encoding="cms", k="4096", m="1048576")
    assert not huge.exception and "cells exceeds" in as_read(huge.error[0].value)


def test_report_table_compares_encodings():
    at = open_page("app_pages/report_table.py", max_side="64", table_eps="1.0", table_compare=["grr", "olh"])
    assert_clean(at)
    titles = [m.value for m in at.markdown]
    assert "**Attribute fragments**" in titles and "**Optimized local hashing**" in titles
    assert "**Generalized randomized response (k-RR, direct encoding)**" in titles


def test_multimessage_page_follows_its_controls():
    at = open_page("app_pages/multimessage.py")
    first = at.table[0].value
    at.number_input(key="mm_eps").set_value(0.25).run()
    assert_clean(at)
    assert not first["RMSE (respondents per value)"].equals(at.table[0].value["RMSE (respondents per value)"])
    at.number_input(key="mp_colluding").set_value(3).run()  # all 3 shufflers collude
    assert not at.exception and "colluding shufflers must lie in [0, 2]" in as_read(at.error[0].value)
    bad = open_page("app_pages/multimessage.py", mm_delta="7")
    assert not bad.exception and "delta must be a number strictly between 0 and 1" in as_read(bad.error[0].value)
