"""Post-processing on the pages (AppTest): Reconstruct shows the ESA estimate after the chosen method with the raw
RMSE kept, Trade-offs a measured curve per method, the Report table its cells after it, and the Plan page ranks on
a method's simulated error; every choice lives in the URL."""

import csv
import io
import json

import numpy as np
import pytest
from conftest import assert_clean, assert_one_error, captions, metric_exact, open_page

from ldpcore.data.datasets import load_dataset
from ldpcore.experiment.protocol.run import paper_methods, sweep
from ldpcore.experiment.protocol.spec import ProtocolSpec
from ldpcore.export import fmt, table_csv

pytestmark = pytest.mark.app  # every test here renders pages with AppTest

SMALL = dict(dataset="horse", max_side="64")


def test_reconstruct_shows_the_estimate_after_the_chosen_method_and_keeps_the_raw_one():
    from ldpcore.experiment.protocol.run import run

    at = open_page("app_pages/reconstruct.py", **SMALL, eps_c="0.25", postprocess="norm-sub")
    assert_clean(at)
    result = run(ProtocolSpec(eps_c=0.25, delta=5e-8), load_dataset("horse", max_side=64), 0, postprocess="norm-sub")
    assert result.postprocessed is not None
    assert float(metric_exact(at, "RMSE")) == pytest.approx(result.postprocessed.metrics["rmse"], rel=1e-5)
    assert f"Raw RMSE {result.metrics['rmse_raw']:.3g}"[:12] in captions(at).replace(",", "")
    # a method the encoding has no law for: one clear error, no traceback
    assert_one_error(open_page("app_pages/reconstruct.py", **SMALL, postprocess="ibu"), "mle maximises")


def test_reconstruct_lists_every_method_on_the_same_run_when_opened():
    at = open_page("app_pages/reconstruct.py", **SMALL, eps_c="0.25")
    every = next(e for e in at.expander if "after every post-processing" in e.label)
    assert not every.proto.expanded and not at.dataframe  # drawn only while open
    at.session_state["every_method"] = True  # as a click on the expander does
    at.run()
    assert_clean(at)
    table = at.dataframe[0].value
    names = list(table["post-processing"])
    assert names[0].startswith("none: raw") and names[1].startswith("none: clipped")
    rmse = dict(zip(names, table["RMSE"], strict=True))
    assert rmse["norm-sub: Norm-Sub"] < rmse["none: clipped to [0, input maximum]"] < rmse["none: raw (unbiased)"]
    ibu = table[table["post-processing"].str.startswith("ibu")]
    assert "each name one value" in ibu["not defined"].iloc[0]


def test_tradeoffs_draws_a_measured_curve_per_method():
    at = open_page("app_pages/tradeoffs.py", **SMALL, sweep_points="3", sweep_postprocess=["norm-sub", "mle"])
    assert_clean(at)
    data = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    post = {t["name"]: t for t in data if t["name"].endswith("(measured)")}
    assert "Attribute fragments + norm-sub (measured)" in post and "Attribute fragments + mle (measured)" in post
    assert "Central Gaussian (no LDP) + mle (measured)" not in post  # mle needs the reports' law
    raw = next(t for t in data if t["name"] == "Attribute fragments" and t.get("mode") == "markers")
    sub = post["Attribute fragments + norm-sub (measured)"]
    assert len(sub["y"]) == 3 and all(a < b for a, b in zip(sorted(sub["y"]), sorted(raw["y"]), strict=True))


def test_report_table_shows_its_cells_after_the_chosen_method():
    at = open_page("app_pages/report_table.py", **SMALL, table_eps=["1"], table_postprocess="norm-sub")
    assert_clean(at)
    shown = [m.value for m in at.markdown if "RMSE norm-sub=" in m.value]
    assert len(shown) == 4  # the central baseline, attribute fragments, tau = 4 and 16 (256 is not defined here)
    hist = load_dataset("horse", max_side=64)
    methods = paper_methods(ProtocolSpec(eps_c=1.0, delta=5e-8))
    from dataclasses import replace

    cells = sweep([replace(m, postprocess="norm-sub") for m in methods], [1.0], hist, seed=0)
    rows = list(csv.DictReader(io.StringIO(table_csv(cells))))
    assert all(r["postprocess"] == "norm-sub" and not r["rmse_clipped"] for r in rows if not r["note"])
    attr = next(r for r in rows if r["method"] == "Attribute fragments")
    assert f"RMSE norm-sub={fmt(float(attr['rmse_postprocessed']))}" in "\n".join(shown)


def test_plan_page_ranks_on_a_post_processing_and_links_it():
    at = open_page(
        "app_pages/plan.py", **SMALL, eps_c="0.5", plan_postprocess="norm-sub", plan_encodings=["onehot", "grr"]
    )
    assert_clean(at)
    assert any(m.label == "RMSE after norm-sub" for m in at.metric)
    table = at.dataframe[0].value
    simulated = table["RMSE after norm-sub (simulated)"]
    ranked = table[table["rank"] != "not ranked"]
    assert list(ranked["RMSE after norm-sub (simulated)"]) == sorted(ranked["RMSE after norm-sub (simulated)"])
    assert bool((simulated.dropna() < table.loc[simulated.notna(), "RMSE"]).all())  # Norm-Sub helps every row here
    assert np.isfinite(table["std error"].dropna()).all()
    rec = at.button(key="open_recommended_reconstruct").click().run()  # the row opens after the same method
    assert_clean(rec)
    assert rec.title[0].value == "Reconstruct" and rec.selectbox(key="postprocess").value == "norm-sub"
    assert not rec.warning, [w.value for w in rec.warning]  # every value the button set is taken
    again = open_page("app_pages/plan.py", **SMALL, eps_c="0.5", plan_postprocess="norm-sub", plan_encodings=["grr"])
    sweep_page = again.button(key="open_recommended_tradeoffs").click().run()  # Trade-offs has no such control
    assert_clean(sweep_page)
    assert sweep_page.title[0].value == "Trade-offs" and not sweep_page.warning, [w.value for w in sweep_page.warning]
