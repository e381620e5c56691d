"""Numeric: means and frequencies of a table's attributes under numeric LDP mechanisms (Wang et al., ICDE 2019)."""

from functools import partial

import numpy as np
import streamlit as st

from ldpcore.export.reproduce import NumericView
from ldpcore.export.view_records import numeric_record
from ldpcore.systems.numeric import (
    EPS_SHARP,
    EPS_STAR,
    MECHANISMS,
    duchi_worst_variance,
    pm_constants,
    pm_density,
    shuffled_eps_c,
)
from ldpcore.systems.numeric.analysis import EXPLANATION, TABLE_MECHANISMS
from ldpcore.systems.numeric.mechanisms import THEORY_NOTE
from ldpcore.systems.numeric.multidim import DUCHI_TIES_NOTE
from ui.kit.controls import EPS_GRID, delta_slider, eps_slider, noted_metric
from ui.kit.feedback import input_errors
from ui.kit.format import plain
from ui.kit.take_home import take_home
from ui.numeric import (
    comparisons,
    estimates_figure,
    mse_figure,
    pm_density_figure,
    table_estimate,
    table_sidebar,
    worst_case_figure,
)

EPS_LO = 0.05
MSE_GRID = tuple(e for e in EPS_GRID if e >= EPS_LO)  # the MSE chart's eps, the slider's values among them
THEORY_EPS = np.geomspace(0.1, 10, 200)
st.title("Numeric attributes")
st.caption(EXPLANATION)


def _mechanism_sidebar() -> tuple[str, float, float]:
    """The mechanism, its eps and the delta of the shuffled guarantee, in the sidebar."""
    with st.sidebar:
        st.header("Mechanism")
        mechanism = st.selectbox(
            "Mechanism",
            list(TABLE_MECHANISMS),
            index=list(TABLE_MECHANISMS).index("alg4-hm"),
            key="num_mech",
            bind="query-params",
        )
        st.caption(TABLE_MECHANISMS[mechanism])
        eps = eps_slider("eps per respondent (local, log scale)", "num_eps", 1.0, lo=EPS_LO)
        delta = delta_slider("delta of the shuffled central guarantee", "num_delta")
    return mechanism, eps, delta


data, (mechanism, eps, delta) = table_sidebar(then=_mechanism_sidebar)  # the mechanism whatever the data
table = data.table

with input_errors():
    est = table_estimate(data.key, table, mechanism, eps, data.seed)
    compared = comparisons(data.key, table, MSE_GRID)
    central = shuffled_eps_c(eps, table.n, delta)
best = compared[MSE_GRID.index(eps)].best

st.caption(
    f"{plain(table.name)}: n = {table.n:,} respondents, d = {table.d} attributes ({table.d_numeric} numeric, "
    f"{table.d_categorical} categorical); {mechanism}: {est.budget}; seed {data.seed}."
)
for note in table.notes:
    st.info(note)
if mechanism == "duchi-md":
    st.info(DUCHI_TIES_NOTE)

errors = [
    (label, mse)
    for label, mse in (("MSE of the means", est.numeric_mse), ("MSE of the frequencies", est.frequency_mse))
    if mse is not None
]
cols = iter(st.columns(3 + len(errors)))
next(cols).metric(
    "recommended",
    best,
    help="The mechanism with the least expected MSE on this data at this eps "
    "(numeric means; frequencies when there are no numeric attributes).",
)
for label, (measured, analytic) in errors:
    noted_metric(
        next(cols),
        label,
        f"{measured:.3g}",
        f"analytic {analytic:.3g}",
        help="Measured mean squared error (means on the [-1, 1] scale), averaged "
        "over the attributes; below it the analytic expectation.",
    )
next(cols).metric(
    "eps_c (shuffled)",
    f"{central.eps_c:.3g}" if central.valid else "not certified",
    help=f"Central eps at delta = {delta:.0e} when the n reports are shuffled: {central.citation} "
    f"({central.neighbouring} neighbours).",
)
next(cols).metric("attributes sent", f"{est.k} of {table.d}", help=est.budget)
if not central.valid:
    st.caption(f"No central guarantee from shuffling: {central.reason}")

if table.d_numeric:
    st.plotly_chart(
        estimates_figure(
            table.numeric_names, est.true_means, est.means, np.sqrt(est.mean_mse), "Means on the [-1, 1] scale", "mean"
        ),
        width="stretch",
    )
if table.d_categorical:
    names = [f"{a}={v}" for a, labels in zip(table.categorical_names, table.labels) for v in labels]
    truth, freqs, var = (np.concatenate(x) for x in (est.true_frequencies, est.frequencies, est.frequency_var))
    st.plotly_chart(
        estimates_figure(names, truth, freqs, np.sqrt(var), "Category frequencies", "share"), width="stretch"
    )
# the table is built when the expander is opened (a closed one would still import pandas and send it)
with st.expander("Every estimate (means in the data's units)", key="num_rows", on_change="rerun") as rows_box:
    if rows_box.open:
        st.dataframe(
            est.rows(),
            width="stretch",
            hide_index=True,
            column_config={
                c: st.column_config.NumberColumn(format="%.4g") for c in ("truth", "estimate", "error", "std")
            },
        )

kind = "numeric" if table.d_numeric else "categorical"
st.plotly_chart(
    mse_figure(MSE_GRID, compared, TABLE_MECHANISMS, eps, mechanism, (est.numeric_mse or est.frequency_mse)[0], kind),
    width="stretch",
)

record = partial(numeric_record, table, data.seed, est, MSE_GRID, compared, central)
take_home(NumericView(data.source, data.seed, mechanism, eps, delta, MSE_GRID), "numeric", record)

st.subheader("Theory")
st.caption(THEORY_NOTE)
a, b = st.columns(2)
with a:
    relative = st.toggle("Relative to Duchi et al.'s worst case", value=True, key="num_relative", bind="query-params")
    scale = duchi_worst_variance(THEORY_EPS) if relative else 1.0
    curves = {m.title: m.worst_variance(THEORY_EPS) / scale for m in MECHANISMS.values()}
    st.plotly_chart(worst_case_figure(THEORY_EPS, curves, EPS_STAR, EPS_SHARP, eps, relative), width="stretch")
with b:
    t = st.slider("t (the true value)", -1.0, 1.0, 0.5, 0.05, key="num_t", bind="query-params")
    x = np.linspace(-1.2, 1.2, 801) * pm_constants(eps)[0]
    st.plotly_chart(pm_density_figure(x, pm_density(x, t, eps), t, eps), width="stretch")
