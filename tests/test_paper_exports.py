"""Figures and tables for a paper: a Trade-offs chart as SVG and PDF through kaleido and the system Chromium
(offline), the CSV of its plotted data, and the report table as LaTeX that compiles with its images."""

import csv
import io
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
import zipfile

import numpy as np
import pytest
from e2e_support import chromium_path

import ldpcore
from ldpcore.experiment.protocol.run import analytic, paper_methods, sweep
from ldpcore.export import TableInfo, latex_text, table_latex, table_zip, thumbnail
from ui.kit.chart_export import ExportStyle, data_csv, for_print, image_bytes
from ui.tradeoffs import tradeoff_figures

SPEC = ldpcore.ProtocolSpec(eps_c=1.0, delta=5e-8)


@pytest.fixture(scope="module")
def horse():
    return ldpcore.load_dataset("horse", max_side=64)


@pytest.fixture(scope="module")
def chart(horse):
    """The Trade-offs error chart of one-hot attribute fragments and GRR, as the page draws it."""
    methods = paper_methods(SPEC, taus=(), central=True, compare=("grr",))
    eps = np.geomspace(0.1, 2.0, 4)
    measured = sweep(methods, eps, horse, seed=0)
    curves = {m.label: [analytic(m, float(e), horse) for e in eps] for m in methods}
    return tradeoff_figures(methods, measured, curves, 1.0)[0]


def test_the_chart_csv_round_trips_the_plotted_data(chart):
    rows = list(csv.DictReader(io.StringIO(data_csv(chart))))
    plotted = [(t.name, float(x), float(y)) for t in chart.data for x, y in zip(t.x, t.y) if x is not None]
    x_title, y_title = chart.layout.xaxis.title.text, chart.layout.yaxis.title.text
    assert [(r["trace"], float(r[x_title]), float(r[y_title])) for r in rows] == plotted
    assert len(rows) > 10 and {r["trace"] for r in rows} >= {t.name for t in chart.data}


def test_the_printed_chart_has_no_screen_chrome(chart):
    printed = for_print(chart, ExportStyle(width=624, height=380, font_size=10))
    assert printed.layout.title.text is None and printed.layout.width == 624 and printed.layout.font.size == 10
    assert chart.layout.title.text  # the figure on screen keeps its title


@pytest.mark.browser
@pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed")
def test_svg_and_pdf_of_a_tradeoffs_chart_are_valid(chart, tmp_path):
    svg = image_bytes(chart, "svg", ExportStyle(width=624, height=380))
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg") and root.get("width") == "624"
    assert b"RMSE" in svg or b"error" in svg.lower()
    pdf = image_bytes(chart, "pdf")
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    assert len(re.findall(rb"/Type\s*/Page(?!s)", pdf)) == 1
    (tmp_path / "chart.pdf").write_bytes(pdf)


def test_latex_text_escapes_and_writes_identifiers_as_math():
    assert latex_text("Report fragments, tau=16") == r"Report fragments, $\tau=16$"
    assert latex_text("eps_f = eps_b - ln(tau) <= 0; 100% & #1") == (
        r"$\varepsilon_{f}$ = $\varepsilon_{b}$ - ln(tau) $\le$ 0; 100\% \& \#1"
    )


def test_histogram_thumbnails_are_bar_charts_with_the_heavy_hitters():
    counts = np.zeros(10_000, dtype=np.int64)
    counts[[17, 5_003]] = [1_000, 400]  # two heavy hitters among 10,000 bins, 400 px wide
    hist = ldpcore.Histogram(counts, "hh")
    img = np.asarray(thumbnail(hist, None, 400).convert("L"))
    dark = img < 128
    columns = np.flatnonzero(dark[:-1].any(axis=0))  # the baseline row aside
    assert list(columns) == [0, 200] and dark[:, 0].sum() > 2 * dark[:, 200].sum() * 0.9
    assert img[0, 100] == 255  # white background, not a black strip


def test_the_latex_table_names_the_data_and_every_image(horse):
    cells = sweep(paper_methods(SPEC, taus=(4, 256)), [0.05, 1.0], horse, seed=0)
    info = TableInfo("Horse", horse.n, 5e-8, 0, "cheu19")
    archive = zipfile.ZipFile(io.BytesIO(table_zip(cells, horse, info)))
    tex = archive.read("report_table.tex").decode()
    assert tex.startswith(r"\begin{table}") and tex.rstrip().endswith(r"\end{table}")
    assert r"\caption{" in tex and r"\label{tab:ldp}" in tex and r"\delta=5\times10^{-8}" in tex
    images = [n for n in archive.namelist() if n.endswith(".png")]
    defined = [c for c in cells if c.error is None]
    assert len(images) == len(defined) and all(r"\includegraphics[" in tex and n in tex for n in images)
    assert tex.count("not defined:") == len(cells) - len(defined) >= 1  # e.g. tau = 256 at eps_c = 0.05, with why
    assert r"$\tau=4$" in tex and "tau=4" not in tex.replace(r"\tau=4", "")
    assert r"\includegraphics" not in table_latex(cells, info)  # the .tex alone (no images) is a table too


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (.ci/run installs it)")
def test_the_latex_zip_compiles(horse, tmp_path):
    cells = sweep(paper_methods(SPEC, taus=(4, 256)), [0.05, 1.0], horse, seed=0)
    zipfile.ZipFile(io.BytesIO(table_zip(cells, horse, TableInfo("Horse", horse.n, 5e-8, 0, "cheu19")))).extractall(
        tmp_path
    )
    out = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout[-2000:]
    assert (tmp_path / "main.pdf").read_bytes().startswith(b"%PDF-")
    assert "File `cells/" not in out.stdout  # every included image was found


def test_the_dashboards_downloads_carry_the_intervals_of_the_run_they_describe():
    """Reconstruct's Estimate (CSV) and Run record (JSON): per-bin intervals in the CSV, their summary in the JSON,
    both from the same cached run (the JSON's mean standard error is the CSV's)."""
    import json

    from ldpcore.data.datasets import load_dataset
    from ldpcore.experiment.protocol.run import Method
    from ldpcore.experiment.protocol.spec import ProtocolSpec
    from ui import reconstruct
    from ui.kit.inputs import Input

    inp = Input(load_dataset("child"), "child-exports-test", 5e-8)
    method = Method("ESA", ProtocolSpec(eps_c=1.0, delta=5e-8, encoding="grr"))
    rows = list(csv.DictReader(io.StringIO(reconstruct.estimate_csv(inp, method, 1.0, 3))))
    record = json.loads(reconstruct.record_json(inp, method, 1.0, 3))
    std = np.array([float(r["std_error"]) for r in rows])
    assert len(rows) == inp.hist.d and record["input"] == "child"
    assert record["uncertainty"]["mean_std_error"] == pytest.approx(std.mean(), rel=1e-5)
    low, high, est = (np.array([float(r[k]) for r in rows]) for k in ("ci95_low", "ci95_high", "estimate"))
    assert np.allclose(high - est, est - low, rtol=1e-4) and np.allclose(high - low, 2 * 1.959964 * std, rtol=1e-4)
