"""Issue 15 (readable, teachable, publishable) on the pages, through AppTest: numbers that fit with the exact
value in the tooltip, epsilon as a symbol with whom it is about, units, collapsed duplicates, warnings for
impractical settings, one notion for comparisons, and every formerly-None cell showing its reason."""

import math

import numpy as np
import pytest
from conftest import as_read, assert_clean, metric, open_page

from ldpcore.data.datasets import load_dataset
from ldpcore.experiment.protocol.run import analytic, paper_methods
from ldpcore.experiment.protocol.spec import ProtocolSpec
from ui.kit.format import exact, short


def _metrics(at) -> dict:
    return {m.label: (m.value, m.proto.help) for m in at.metric}


@pytest.mark.parametrize(
    "x,shown,full",
    [
        (3_366_030.29, "3.37 M", "3,366,030.29"),
        (16_190, "16.2 k", "16,190"),
        (8.547, "8.55", "8.547"),
        (41.06, "41.1", "41.06"),
        (0.252, "0.252", "0.252"),
        (math.inf, "∞", "∞"),
        (None, "not defined", "not defined"),
    ],
)
def test_numbers_fit_and_keep_their_exact_value(x, shown, full):
    assert short(x) == shown and exact(x) == full


@pytest.mark.app
def test_reconstruct_horse_tau_256_reads():
    """Horse at tau = 256 and eps_c = 0.5: 3,366,030 messages per phone shown as 3.37 M (exact in the tooltip),
    the three parties' epsilons, units on the errors, and a warning that this many messages is impractical."""
    at = open_page("app_pages/reconstruct.py", eps_c="0.5", fragments="true", tau="256")
    assert_clean(at)
    m = _metrics(at)
    assert m["messages per phone"][0] == "3.37 M" and "Exact: 3,366,030.29" in m["messages per phone"][1]
    assert {"ε per phone", "ε per captured shuffler", "ε analyst after shuffling"} <= set(m)
    assert m["ε analyst after shuffling"][0] == "0.5"
    assert all(len(value) <= 7 for value, _ in m.values())  # fits a metric column at 1280 px
    assert not any("eps_b / eps_f" in label or label.startswith("eps_") for label in m)
    assert next(x for x in at.metric if x.label == "clipped RMSE").proto.delta == "gray levels per pixel"
    assert any("3,366,030 anonymous messages per respondent" in w.value for w in at.warning)
    assert len(at.image) == 4  # original, no shuffler at eps_c, ESA, central
    tight = next(e for e in at.expander if e.label == "What the tight accountant buys")
    assert not tight.proto.expanded  # collapsed: the images stay above the fold


@pytest.mark.app
def test_reconstruct_collapses_eps_l_1_into_eps_l_inf_without_fragments():
    at = open_page("app_pages/reconstruct.py")
    assert_clean(at)
    m = _metrics(at)
    assert "ε per captured shuffler" not in m and m["ε per phone"][0] == "8.55"
    assert next(x for x in at.metric if x.label == "ε per phone").proto.delta == "= per captured shuffler"


@pytest.mark.app
def test_delta_at_least_one_over_n_is_warned():
    at = open_page("app_pages/reconstruct.py", delta="0.5")
    assert not at.exception
    assert any("protects nobody" in w.value for w in at.warning)


@pytest.mark.app
@pytest.mark.parametrize(
    "dataset, unit",
    [
        ("heavy-hitters", "respondents per value"),
        ("app-events", "respondents per category"),
        ("city-points", "respondents per cell"),  # a grid of points: counts, not gray levels
        ("horse", "gray levels per pixel"),
    ],
)
def test_errors_carry_the_datas_unit(dataset, unit):
    at = open_page("app_pages/reconstruct.py", dataset=dataset, max_side="64")
    assert_clean(at)
    assert next(x for x in at.metric if x.label.endswith("RMSE")).proto.delta == unit
    if dataset == "heavy-hitters":
        assert len(at.get("plotly_chart")) == 1


@pytest.mark.app
def test_a_capped_eps_c_is_said_above_the_pictures_and_every_panel_uses_it():
    """Horse at 64 px, eps_c = 3: Lemma II.6 stops at eps_l 6.401 (n = 76,876), so the certified eps_c is 1.902; the
    warning says so first on the page, and the no-shuffler and central panels are drawn at 1.902, not at 3."""
    at = open_page("app_pages/reconstruct.py", max_side="64", eps_c="3")
    assert_clean(at)
    first = as_read(at.warning[0].value)
    assert "the certified eps_c is 1.902, below the 3 asked for" in first and "ε_c = 1.902" in first
    alone, central = (at.image[i].proto.imgs[0].caption for i in (1, 3))
    assert alone.startswith("No shuffler, ε_l = 1.90:") and "ε_c = 1.90" in central and "ε_c = 3" not in central
    assert metric(at, "ε analyst after shuffling") == "1.90"
    assert not [i for i in at.info if "asked for" in i.value]  # said once, above


@pytest.mark.app
def test_each_values_relative_error_is_offered():
    """The histogram view offers each value's own relative error (estimate - true) / true, ranked by true count:
    the rare values' is larger than the table's relative RMSE (RMSE / mean count) suggests."""
    import base64

    import plotly.io as pio

    at = open_page("app_pages/reconstruct.py", dataset="heavy-hitters", reconstruct_view="relative error",
                   reconstruct_top_k="0")  # fmt: skip
    assert_clean(at)
    fig = pio.from_json(at.get("plotly_chart")[0].proto.spec)
    assert fig.layout.yaxis.title.text == "relative error"
    line = next(t for t in fig.data if t.name.endswith("relative error"))
    y = line.y if not isinstance(line.y, dict) else np.frombuffer(base64.b64decode(line.y["bdata"]), line.y["dtype"])
    y = np.asarray(y, dtype=float)
    assert np.isfinite(y[:50]).all() and np.nanmax(np.abs(y)) > 100 * abs(y[0])  # the rare values' is larger


@pytest.mark.app
def test_tradeoffs_onehot_with_grr_on_one_notion():
    """Trade-offs comparing one-hot (zero-out) with GRR (replacement): the switch is on by default and every
    plotted epsilon is ldpcore's analytic curve in that notion; with the switch off the native values are drawn."""
    import json

    at = open_page("app_pages/tradeoffs.py", max_side="64", sweep_compare=["grr"], sweep_taus=[], sweep_central="false")
    assert_clean(at)
    assert at.toggle(key="sweep_replacement").value is True
    hist = load_dataset("horse", max_side=64)
    methods = paper_methods(ProtocolSpec(eps_c=1.0, delta=5e-8), taus=(), central=False, compare=["grr"])
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    per_phone = {t["name"]: t for t in figs[1]["data"] if t["mode"] == "lines" and t["x"][0] is not None}
    for m in methods:
        trace = next(t for name, t in per_phone.items() if name.startswith(m.label))
        first = analytic(m, 0.05, hist, "replacement")
        assert trace["x"][0] == pytest.approx(first["eps_c"]) and trace["y"][0] == pytest.approx(first["eps_l_inf"])
        if m.spec.encoding == "onehot":  # the whole report: both changed bits; eps_c through the two channels
            assert first["eps_l_inf"] == 2 * first["native_eps_l_inf"] and first["converted"]
            assert first["native_eps_c"] < first["eps_c"] < 2 * first["native_eps_c"]
    onehot = next(t for name, t in per_phone.items() if name.startswith("Attribute fragments"))
    assert onehot["name"].endswith("[zero-out, restated]")
    table = at.table[0].value
    assert "(zero-out" in table[table["method"] == "Attribute fragments"].iloc[0]["ε per phone"]
    at.toggle(key="sweep_replacement").set_value(False).run()
    assert_clean(at)
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    onehot = next(t for t in figs[1]["data"] if t["name"] == "Attribute fragments" and t["x"][0] is not None)
    assert onehot["y"][0] == pytest.approx(analytic(methods[0], 0.05, hist)["eps_l_inf"])


@pytest.mark.app
def test_tradeoffs_same_notion_leaves_the_switch_off():
    at = open_page("app_pages/tradeoffs.py", max_side="64")
    assert_clean(at)
    assert at.toggle(key="sweep_replacement").value is False


@pytest.mark.app
def test_accountant_missing_values_show_their_reason():
    at = open_page("app_pages/accountant.py", acc_n="500", acc_delta="1e-6")
    assert_clean(at)
    table = at.dataframe[0].value.set_index("bound")
    assert list(at.dataframe[0].value.columns[:4]) == ["bound", "eps0", "eps_c", "note"]  # the reason on screen
    cell = table.loc["efmrtt19", "eps0"]
    assert cell.startswith("not defined: ") and "too few respondents" in cell
    assert not any(str(v) in ("None", "nan") for v in table.to_numpy().ravel())


@pytest.mark.app
def test_multimessage_missing_values_show_their_reason():
    at = open_page("app_pages/multimessage.py", mm_d="4096", mm_table_n="1000")
    assert_clean(at)
    first = at.table[0].value
    assert not any(str(v) in ("None", "nan") for v in first.to_numpy().ravel())
    assert any(str(v).startswith("not defined: ") for v in first.to_numpy().ravel())
    threat = at.table[1].value
    peos = threat[threat["protocol"].str.startswith("PEOS")]
    assert len(peos) == 1  # kept at d = 4096, with why it does not apply
    assert "does not apply" in peos.iloc[0]["why / note"]
    assert not any(str(v) in ("None", "nan", "inf") for v in threat.to_numpy().ravel())
    assert any("learns the report" in str(v) for v in threat.to_numpy().ravel())


@pytest.mark.app
def test_longitudinal_names_periods_t_and_clips_the_band():
    at = open_page("app_pages/longitudinal.py", lng_n="1000")
    assert_clean(at)
    assert "T = 64 periods" in " ".join(c.value for c in at.caption)
    assert at.get("plotly_chart")
    from ui.longitudinal import running_counts_figure

    band = running_counts_figure(np.array([5.0, 1.0]), np.array([4.0, 0.5]), np.array([3.0, 3.0])).data[0]
    assert min(band.y) == 0 and max(band.y) == 10.0


@pytest.mark.app
def test_reconstruct_compare_as_replacement():
    """GRR (replacement) against the central baseline (zero-out): the switch is on by default and the central
    caption restates its eps_c (the same noise at sensitivity sqrt(2)); one-hot (zero-out) with the switch on shows
    2 eps_l (the whole report) with the native beside it."""
    grr = open_page("app_pages/reconstruct.py", encoding="grr", max_side="64")
    assert_clean(grr)
    assert grr.toggle(key="replacement").value is True
    assert any("no LDP, replacement ε_c = 1.45 (natively zero-out 1.00)" in i.proto.imgs[0].caption for i in grr.image)
    onehot = open_page("app_pages/reconstruct.py", replacement="true")
    assert_clean(onehot)
    phone = next(x for x in onehot.metric if x.label == "ε per phone")
    assert phone.value == short(2 * 8.547) == "17.1"
    assert phone.proto.delta == "zero-out 8.55, restated" and "natively zero-out: 8.5" in phone.proto.help
    plain = open_page("app_pages/reconstruct.py")
    assert plain.toggle(key="replacement").value is False


@pytest.mark.app
def test_report_table_compare_as_replacement():
    """One-hot (zero-out) beside GRR (replacement): on by default; one-hot's cells show 2 eps_l (the whole report)
    with the native numbers beneath, in the page and in the CSV export alike."""
    import csv
    import io

    from ldpcore.experiment.protocol.compare import cells_on_notion
    from ldpcore.experiment.protocol.run import sweep
    from ldpcore.export import cell_caption, table_csv, table_rows

    at = open_page("app_pages/report_table.py", max_side="64", table_eps="1.0", table_compare=["grr"], table_taus=[])
    assert_clean(at)
    assert at.toggle(key="table_replacement").value is True
    hist = load_dataset("horse", max_side=64)
    methods = paper_methods(ProtocolSpec(eps_c=1.0, delta=5e-8), taus=(), compare=["grr"])
    native = sweep(methods, [1.0], hist, seed=0)
    cells = cells_on_notion(native)
    onehot = next(c for c in cells if c.method == "Attribute fragments")
    plain = next(n for n in native if n.method == "Attribute fragments")
    assert onehot.privacy["eps_l_inf"] == 2 * plain.privacy["eps_l_inf"]
    assert onehot.privacy["eps_l_1"] == plain.privacy["eps_l_1"]  # one message: one bit
    grr = next(c for c in cells if c.method.startswith("Generalized"))
    assert grr.privacy["neighbouring"] == "replacement" and "native_eps_l_inf" not in grr.privacy
    shown = [m.value for m in at.markdown]
    for r in table_rows(cells):
        assert "  \n".join(cell_caption(r)) in shown
    attr = next(r for r in table_rows(cells) if r["method"] == "Attribute fragments")
    assert attr["neighbouring"] == "replacement" and attr["native"].startswith("zero-out: eps_c=1, eps_inf=")
    record = next(r for r in csv.DictReader(io.StringIO(table_csv(cells))) if r["method"] == "Attribute fragments")
    assert record["neighbouring"] == "replacement" and record["native_neighbouring"] == "zero-out"
    assert float(record["native_eps_c"]) == pytest.approx(1.0, rel=1e-12)
    assert float(record["eps_l_inf"]) == pytest.approx(2 * float(record["native_eps_l_inf"]), rel=1e-12)


@pytest.mark.app
def test_tradeoffs_values_table_says_why_a_method_is_missing():
    at = open_page("app_pages/tradeoffs.py", max_side="64", eps_c="0.1")
    assert_clean(at)
    table = at.table[0].value
    assert not any(str(v) in ("None", "nan") for v in table.to_numpy().ravel())
    tau256 = table[table["method"] == "Report fragments, tau=256"].iloc[0]
    assert tau256["ε per phone"] == "not defined at this ε_c"
