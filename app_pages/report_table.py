"""Report table: reconstructions at several eps_c for several methods, as Table IV of the paper."""

from dataclasses import replace
from functools import partial

import streamlit as st

from ldpcore.experiment.protocol.compare import cell_on_notion, cells_on_notion
from ldpcore.experiment.protocol.run import paper_methods
from ldpcore.export import TableInfo, cell_caption, table_csv, table_latex, table_markdown, table_rows
from ldpcore.export.reproduce import ReportTableView
from ldpcore.export.view_records import report_table_record
from ldpcore.privacy.notions import notions_differ
from ui import report_table
from ui.kit import runs
from ui.kit.controls import EPS_C_GRID, PAPER_EPS
from ui.kit.format import plain
from ui.kit.inputs import data_sidebar
from ui.kit.protocol import compare_control, postprocess_control, protocol_sidebar, taus_control
from ui.kit.take_home import take_home

THUMB = 640  # px: the widest a cell's reconstruction is sent (a column is far narrower)

st.title("Report table")
st.caption(
    "Rows are ε_c, columns are methods; each cell shows the reconstruction with eps_inf (ε per phone), eps_1 "
    "(ε per captured shuffler; zero-out LDP for one-hot, replacement for most others) and the RMSE beneath, "
    "as in Table IV of Erlingsson et al. (2020); with a post-processing, each cell shows its estimate after it "
    "and that estimate's RMSE."
)
inp = data_sidebar()
spec, seed, _ = protocol_sidebar(inp.delta, show_eps_c=False, show_tau=False)  # rows and columns choose them

c1, c2, c3 = st.columns([3, 2, 1])
eps_rows = c1.multiselect(
    "Rows: eps_c",
    EPS_C_GRID,
    default=list(PAPER_EPS),
    key="table_eps",
    bind="query-params",
    format_func=lambda e: f"{e:g}",
)
taus = taus_control(c2, spec, "table_taus")
central = c3.checkbox("Central Gaussian", value=True, key="table_central", bind="query-params")
c4, c5 = st.columns([3, 1])
compare = compare_control(c4, spec, "table_compare")
post = postprocess_control(c5, "table_postprocess")
if not eps_rows:
    st.error("Choose at least one eps_c row.")
    st.stop()

methods = paper_methods(spec, taus=taus, central=central, compare=compare)
if post is not None:  # every column after it (the central baseline only for the methods that need no law)
    methods = [replace(m, label=f"{m.label} + {post}", postprocess=post) for m in methods]
eps_rows = sorted(eps_rows)
natives = sorted({runs.neighbouring_of(m) for m in methods})
notion = (
    "replacement"
    if st.toggle(
        "Compare as replacement LDP",
        value=notions_differ(natives),
        key="table_replacement",
        bind="query-params",
        help="Zero-out cells (one-hot, the fragmented sketch, the central Gaussian) restated under replacement "
        "(change one respondent's value): the accountant's two changed channels composed, the whole report's local "
        "ε doubled (one message's kept), the Gaussian's noise at sensitivity √2; the native numbers beneath. On by "
        f"default when the columns differ in notion. Native notions here: {', '.join(natives)}.",
    )
    else "native"
)
image = inp.hist.is_image
if not image:
    st.caption(
        f"Each cell: the estimate clipped to [0, the largest true count] as bars ({inp.hist.unit}), values ranked by "
        "their true count (largest first), the true counts as black ticks; one scale in every cell."
    )
widths = [1.1] + [3] * len(methods)
png_width = THUMB if image else None  # an image's cell lands with its picture; a histogram's chart is made once
sweep = runs.landed(inp, methods, eps_rows, seed, png_width=png_width)  # the cells simulated so far (by any session)


@st.fragment(run_every=runs.POLL if sweep.pending else None)
def table() -> None:
    """The table's frame at once, each cell's picture (or chart) and numbers as it lands (redrawn every runs.POLL s
    meanwhile, the rest of the page usable), then one full run without the redraws."""
    now = runs.landed(inp, methods, eps_rows, seed, png_width=png_width)
    if now.pending:
        st.caption(runs.pending_note("Filling the table (cells)", now))
    elif sweep.pending:
        st.rerun()  # every cell has landed: the page once more, with its exports and without the timer
    header = st.columns(widths)
    header[0].markdown("**ε_c**")
    for col, m in zip(header[1:], methods):
        col.markdown(f"**{m.label}**")
    for i, e in enumerate(eps_rows):
        line = st.columns(widths)
        line[0].markdown(f"**{e:g}**")
        for col, m, c in zip(line[1:], methods, now.cells[i * len(methods) : (i + 1) * len(methods)]):
            if c is None:
                col.caption("simulating…")
                continue
            if c.error:  # the reason in the tooltip (and in every export): a row's tau columns often share it
                col.markdown("not defined", help=c.error)
                continue
            png = runs.cell_png(inp, m, c.eps_c, seed, max_width=THUMB) if image else None
            if png is not None:
                col.image(png, width="stretch", output_format="PNG")
            elif not image:
                col.plotly_chart(
                    report_table.cell_chart(inp, m, c.eps_c, seed),
                    width="stretch",
                    config={"displayModeBar": False},
                    key=f"cell_{i}_{m.label}",
                )
            col.markdown("  \n".join(cell_caption(table_rows([cell_on_notion(c, notion)])[0])))


table()
runs.landed(inp, methods, eps_rows, seed, png_width=png_width, queue=True)  # the other cells, in the background
if sweep.pending:
    st.caption("The exports appear when every cell has been simulated.")
    st.stop()
cells = cells_on_notion([c for c in sweep.cells if c is not None], notion)  # the page and every export agree

st.subheader("Export")
info = TableInfo(inp.hist.name, inp.hist.n, spec.delta, seed, spec.accountant_name)
st.caption(f"Title of the exports: {plain(info.title(), None)}.")
e1, e2, e3, e4, e5 = st.columns(5)
e1.download_button(
    "Table (PNG)",
    partial(report_table.table_png, inp, methods, eps_rows, seed, info, notion),
    "report_table.png",
    "image/png",
    on_click="ignore",
)  # made on a click, from the cached runs (not held meanwhile)
e2.download_button("CSV", table_csv(cells), "report_table.csv", "text/csv", on_click="ignore")
e3.download_button("Markdown", table_markdown(cells), "report_table.md", "text/markdown", on_click="ignore")
e4.download_button("LaTeX", table_latex(cells, info), "report_table.tex", "application/x-tex", on_click="ignore")
e5.download_button(
    "LaTeX + images (ZIP)",
    partial(report_table.table_zip, inp, methods, eps_rows, seed, info, notion),
    "report_table.zip",
    "application/zip",
    on_click="ignore",
    help="report_table.tex (a table environment with caption and label, cells via \\includegraphics), "
    "main.tex (compiles it with pdflatex), cells/*.png and report_table.csv.",
)
if inp.source is not None:  # the table as code: its script and notebook print the record below
    view = ReportTableView(
        inp.source, spec, seed, tuple(sorted(eps_rows)), tuple(taus), central, tuple(compare), notion, post
    )
    take_home(view, "report_table", partial(report_table_record, info, notion, cells))
