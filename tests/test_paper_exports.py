"""Figures and tables for a paper: a Trade-offs chart as SVG and PDF through kaleido and the system Chromium
(offline), the CSV of its plotted data, and the report table as LaTeX that compiles with its images."""

import csv
import io
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import replace

import numpy as np
import pytest
from e2e_support import chromium_path

import ldpcore
from ldpcore.experiment.protocol.run import analytic, paper_methods, sweep
from ldpcore.export import TableInfo, latex_text, table_csv, table_latex, table_zip, thumbnail
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
    return tradeoff_figures(methods, measured, curves, 1.0, horse.unit)[0]


def test_the_chart_csv_round_trips_the_plotted_data(chart):
    rows = list(csv.DictReader(io.StringIO(data_csv(chart))))
    plotted = [(t.name, float(x), float(y)) for t in chart.data for x, y in zip(t.x, t.y) if x is not None]
    x_title, y_title = "central ε_c (each method's own notion)", "RMSE (gray levels per pixel)"  # as plain text
    assert (
        chart.layout.xaxis.title.text == "central ε<sub>c</sub> (each method's own notion)"
    )  # a subscript on the chart
    assert [(r["trace"], float(r[x_title]), float(r[y_title])) for r in rows] == plotted
    assert len(rows) > 10 and {r["trace"] for r in rows} >= {t.name for t in chart.data if t.x and t.x[0] is not None}


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


@pytest.mark.browser
@pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed")
@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler-utils is not installed (.ci/run installs it)")
def test_a_printed_chart_of_four_encodings_reads_in_grayscale(horse, tmp_path):
    """Four encodings on the Trade-offs error chart, exported as PDF and read in grayscale: each series has its own
    dash and marker shape besides its colour, the legend says what open and filled markers are, the eps_c label
    sits inside the plot, and the text has math (a subscript), no literal "_c". The grayscale picture is kept in
    tests/output/e2e/ to be looked at."""
    from e2e_support import OUTPUT

    methods = paper_methods(SPEC, taus=(), central=False, compare=("grr", "olh", "hadamard"))
    eps = np.geomspace(0.1, 2.0, 4)
    measured = sweep(methods, eps, horse, seed=0)
    curves = {m.label: [analytic(m, float(e), horse) for e in np.geomspace(0.1, 2.0, 12)] for m in methods}
    fig = tradeoff_figures(methods, measured, curves, 1.0, horse.unit)[0]
    entries = [t for t in fig.data if t.showlegend is not False and t.name in {m.label for m in methods}]
    assert len({(t.line.dash, t.marker.symbol) for t in entries}) == len(entries) == 4  # told apart without colour
    legend = [t.name for t in fig.data if t.showlegend is not False]
    assert "open: measured RMSE, raw estimate" in legend and "filled: measured RMSE, clipped estimate" in legend
    assert all(a.yanchor == "top" for a in fig.layout.annotations)  # inside the plot: never cut off at its top
    pdf = tmp_path / "chart.pdf"
    pdf.write_bytes(image_bytes(fig, "pdf", ExportStyle(width=624, height=380)))
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "_c" not in text and "<sub>" not in text and "εc" in text  # ε with a subscript c
    OUTPUT.mkdir(parents=True, exist_ok=True)
    gray = OUTPUT / "tradeoffs-four-encodings-gray"
    subprocess.run(["pdftoppm", "-gray", "-png", "-r", "110", "-singlefile", str(pdf), str(gray)], check=True)
    from PIL import Image

    pixels = np.asarray(Image.open(f"{gray}.png").convert("RGB"))
    assert (pixels[..., 0] == pixels[..., 1]).all() and (pixels[..., 1] == pixels[..., 2]).all()  # gray levels only


def test_latex_text_escapes_and_writes_identifiers_as_math():
    assert latex_text("Report fragments, tau=16") == r"Report fragments, $\tau=16$"
    assert latex_text("eps_f = eps_b - ln(tau) = 0.050 - ln(4) <= 0; 100% & #1") == (
        r"$\varepsilon_{f}$ = $\varepsilon_{b}$ $-$ $\ln\tau$ = 0.050 $-$ $\ln 4$ $\le$ 0; 100\% \& \#1"
    )
    assert latex_text("as replacement (2 eps, 2 delta); eps_inf=8.55, eps_1=7.16") == (
        r"as replacement ($2\varepsilon$, $2\delta$); $\varepsilon_{\ell^\infty}$=8.55, $\varepsilon_{\ell^1}$=7.16"
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


WEATHER = ldpcore.Histogram(
    np.array([53, 641, 640, 26, 101]), "weather.csv", labels=["drizzle", "rain", "sun", "snow", "fog"], cell="value"
)
NUMBERS = ("eps_c", "eps_l_inf", "eps_l_1", "sigma", "rmse_clipped", "rmse_raw", "messages", "native_eps_c",
           "native_eps_l_inf")  # fmt: skip


@pytest.mark.parametrize("n_messages", [1, 3_366_030])
def test_the_report_tables_csv_is_machine_readable(n_messages):
    """Every number of the CSV parses with Python's csv and float (no thousands separators, full precision);
    the readable exports show it for its size (3,366,030 messages, not 3,366,030.29)."""
    from ldpcore.export import table_markdown, table_rows

    cells = sweep(paper_methods(SPEC, taus=(4, 16)), [0.25, 1.0], WEATHER, seed=0)
    i = next(i for i, c in enumerate(cells) if c.error is None and c.privacy.get("expected_messages"))
    cells[i] = replace(cells[i], privacy={**cells[i].privacy, "expected_messages": n_messages + 0.29})
    records = list(csv.DictReader(io.StringIO(table_csv(cells))))
    assert len(records) == len(cells) and set(NUMBERS) <= set(records[0])
    for record in records:
        for key in NUMBERS:
            if record[key]:
                float(record[key])  # raises on "1,059.18"
    assert float(next(r for r in records if r["messages"] and float(r["messages"]) > n_messages)["messages"]) == (
        n_messages + 0.29
    )
    shown = table_rows(cells)[i]["messages"]
    assert shown == ("1.29" if n_messages == 1 else "3,366,030") and shown in table_markdown(cells)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (.ci/run installs it)")
@pytest.mark.parametrize("data", ["horse", "weather"])
def test_the_latex_zip_compiles(data, horse, tmp_path):
    hist = horse if data == "horse" else WEATHER
    cells = sweep(paper_methods(SPEC, taus=(4, 256)), [0.05, 1.0], hist, seed=0)
    zipfile.ZipFile(io.BytesIO(table_zip(cells, hist, TableInfo(hist.name, hist.n, 5e-8, 0, "cheu19")))).extractall(
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
