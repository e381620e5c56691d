"""Trade-offs: sweep eps_c (and tau) and draw error, local epsilons and messages against it."""

from functools import partial

import numpy as np
import streamlit as st

from ldpcore.experiment.protocol.postprocess import METHODS as POSTPROCESS
from ldpcore.experiment.protocol.run import paper_methods, with_postprocessing
from ldpcore.export.reproduce import TradeoffsView
from ldpcore.export.reproduce.sweeps import fine_points
from ldpcore.export.view_records import tradeoffs_record
from ldpcore.privacy.notions import notions_differ
from ui.kit import runs
from ui.kit.chart_export import export_menu
from ui.kit.controls import EPS_C_GRID
from ui.kit.inputs import data_sidebar
from ui.kit.protocol import POSTPROCESS_HELP, compare_control, protocol_sidebar, taus_control
from ui.kit.take_home import take_home
from ui.tradeoffs import curve, tradeoff_figures, values_at

st.title("Trade-offs")
st.caption(
    "Lines are analytic (the std of every bin's raw estimate: exact for the unbiased estimators, over the "
    "hash family for sketches; faded where only an approximation is known, the count sketch's median "
    "readout); markers are measured on the data at each swept eps_c with the sidebar's seed: open for the raw "
    "estimate, filled for the estimate clipped to [0, the largest true count]. "
    "The fragmented sketch has no amplification bound: it is drawn at the one-hot eps_l of each eps_c, which "
    "does not certify that eps_c."
)
inp = data_sidebar()
spec, seed, eps_c = protocol_sidebar(inp.delta, show_tau=False)  # the tau columns choose tau

c1, c2, c3 = st.columns([2, 1, 2])
lo, hi = c1.select_slider(
    "Sweep eps_c from / to",
    options=EPS_C_GRID,
    value=(0.05, 2.0),
    key="sweep_range",
    bind="query-params",
    format_func=lambda e: f"{e:g}",
)
points = c2.number_input("Measured points", min_value=2, max_value=25, value=8, key="sweep_points", bind="query-params")
taus = taus_control(c3, spec, "sweep_taus")
c4, c5, c6 = st.columns([3, 2, 2])
compare = compare_control(c4, spec, "sweep_compare")
central = c5.checkbox(
    "Central Gaussian (no LDP)",
    value=True,
    key="sweep_central",
    bind="query-params",
    help="Include the central Gaussian baseline: no local privacy, the noise a trusted curator would add.",
)
chosen = c6.multiselect(
    "Post-processing curves",
    list(POSTPROCESS),
    key="sweep_postprocess",
    bind="query-params",
    help="A measured curve per method and column: the same runs' estimates after it (no analytic line: a "
    "post-processed estimate's error is not analytic). " + POSTPROCESS_HELP,
)

methods = paper_methods(spec, taus=taus, central=central, compare=compare)
base_methods = methods
methods = with_postprocessing(methods, chosen)
natives = sorted({runs.neighbouring_of(m) for m in methods})
one_notion = st.toggle(
    "Compare as replacement LDP",
    value=notions_differ(natives),
    key="sweep_replacement",
    bind="query-params",
    help="Zero-out numbers (one-hot, the fragmented sketch, the central Gaussian) restated under replacement "
    "(change one respondent's value): the accountant's two changed channels composed through its dominating pair, "
    "the Gaussian's noise at sensitivity √2; the whole report's local ε doubles, one message's does not. On by "
    f"default when the compared methods differ in notion. Native notions here: {', '.join(natives)}.",
)
notion = "replacement" if one_notion else "native"
eps_measured = np.geomspace(lo, hi, int(points)) if hi > lo else np.array([lo])
# the analytic lines through exact points, 24 per decade (each costs an accountant inverse of the method)
eps_fine = np.geomspace(lo, hi, fine_points(lo, hi)) if hi > lo else np.array([lo])
curves = {m.label: curve(inp, m, eps_fine, notion) for m in base_methods}
sweep = runs.landed(inp, methods, eps_measured, seed)  # the points simulated so far (by any session)


names = ("tradeoffs_error", "tradeoffs_local_eps", "tradeoffs_messages")
error_slot = st.empty()  # the one chart with measured points: drawn in the fragment below
analytic_only = tradeoff_figures(methods, [], curves, eps_c, inp.hist.unit, notion)[1:]
for name, fig in zip(names[1:], analytic_only):
    st.plotly_chart(fig, width="stretch", key=name)
    export_menu(fig, name)


@st.fragment(run_every=runs.POLL if sweep.pending else None)
def charts() -> None:
    """The error chart: its analytic lines at once, the measured points as they land (redrawn every runs.POLL s
    meanwhile, the rest of the page usable), then one full run without the redraws."""
    now = runs.landed(inp, methods, eps_measured, seed)
    if now.pending:
        st.caption(runs.pending_note("Measuring the points", now))
    elif sweep.pending:
        st.rerun()  # every point has landed: the page once more, without the timer
    undefined = sorted({f"{c.method} at eps_c = {c.eps_c:.3g}: {c.error}" for c in now.ready if c.error})
    if undefined:
        with st.expander(f"{len(undefined)} settings are undefined and left out"):
            st.write("\n".join(f"- {u}" for u in undefined))
    fig = tradeoff_figures(methods, now.ready, curves, eps_c, inp.hist.unit, notion)[0]
    st.plotly_chart(fig, width="stretch", key=names[0])
    if not now.pending:
        export_menu(fig, names[0])


with error_slot.container():
    charts()
runs.landed(inp, methods, eps_measured, seed, queue=True)  # the other points, simulated in the background

st.subheader(f"The plotted values at ε_c = {eps_c:g}")
at = {m.label: curve(inp, m, [eps_c], notion)[0] for m in base_methods}
st.table(
    values_at(methods, at, notion), border="horizontal", hide_index=True
)  # static: every column within the page, text wraps
st.caption(
    "Analytic values at the sidebar's ε_c (the methods' own notion is beside each)"
    + ("; zero-out numbers restated under replacement, native value in brackets." if one_notion else ".")
)
if inp.source is not None and not sweep.pending:  # the view as code (once measured): its script prints the record
    view = TradeoffsView(
        inp.source, spec, seed, eps_c, lo, hi, int(points), tuple(taus), central, tuple(compare), notion, tuple(chosen)
    )
    record = partial(tradeoffs_record, inp.hist, seed, notion, methods, sweep.ready, eps_fine, curves, eps_c, at)
    take_home(view, "tradeoffs", record)
