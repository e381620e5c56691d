"""Longitudinal: how many respondents are in state 1, period by period (SODA 2019 shuffling paper, Sec. 3)."""

from functools import partial

import streamlit as st

from ldpcore.export.reproduce import LongitudinalView
from ldpcore.export.view_records import longitudinal_record
from ldpcore.systems.longitudinal import EXPLANATION, MODE_HELP, MODES, TreeProtocol
from ui.kit.controls import delta_slider, eps_slider, noted_metric, seed_input
from ui.kit.feedback import input_errors
from ui.kit.take_home import take_home
from ui.longitudinal import running_counts_figure, tracking

st.title("Longitudinal tracking")
st.caption(EXPLANATION)
with st.sidebar:
    st.header("Respondents")
    n = int(
        st.number_input(
            "n (respondents)",
            min_value=100,
            max_value=1_000_000,
            value=100_000,
            step=10_000,
            key="lng_n",
            bind="query-params",
        )
    )
    d = int(  # the library's d is the number of periods; the page calls it T (d is the domain size elsewhere)
        st.number_input(
            "T (periods, a power of two)", min_value=1, max_value=4096, value=64, key="lng_d", bind="query-params"
        )
    )
    k = int(st.number_input("k (changes at most)", min_value=1, max_value=8, value=2, key="lng_k", bind="query-params"))
    initial = st.slider("Share in state 1 at period 1", 0.0, 1.0, 0.3, 0.05, key="lng_initial", bind="query-params")
    rate = st.slider(
        "Chance of a change per period",
        0.01,
        0.5,
        0.05,
        0.01,
        key="lng_rate",
        bind="query-params",
        help="Each respondent changes state with this probability per period until its k changes are used.",
    )
    seed = seed_input("lng_seed")
    st.header("Protocol")
    eps = eps_slider("eps per respondent (local, log scale)", "lng_eps", 1.0, lo=0.05)
    mode = st.radio(
        "Mode", MODES, index=MODES.index("tight"), key="lng_mode", bind="query-params", horizontal=True, help=MODE_HELP
    )
    delta = delta_slider("delta of the shuffled central guarantee", "lng_delta")

with input_errors():
    protocol = TreeProtocol(d, k, eps, mode)
    run = tracking(n, d, k, eps, mode, initial, rate, seed)
    central = protocol.shuffled_eps(n, delta)

st.caption(
    f"n = {n:,} synthetic respondents over T = {d} periods (L = {protocol.levels} tree levels), at most "
    f"k = {k} changes each; mode {mode}: node parameter a = {protocol.a:g}; seed {seed}."
)
cols = st.columns(4)
cols[0].metric(
    "client LDP (exact)",
    f"{protocol.a:.3g}",
    help="Every respondent's whole transcript is exactly a-LDP (replacement of its trajectory). " + MODE_HELP,
)
cols[1].metric(
    "eps_c (batches shuffled)",
    f"{central.eps_c:.3g}" if central.valid else "not certified",
    help=f"Each (period, level) batch shuffled on its own: a neighbouring data set changes at most 2 "
    f"batches of about n/L = {central.batch_n:,} a-LDP reports, so eps_c <= 2 eps_amp(a, n/L, "
    f"delta/2) by {central.bound} ({central.neighbouring} neighbours) at delta = {delta:.0e}.",
)
noted_metric(
    cols[2],
    "messages / respondent",
    f"{protocol.expected_messages():.2f}",
    f"at most {protocol.max_messages():,}",
    help="A respondent at level h sends one message at the end of each of its T/2^(h-1) nodes: "
    "(2T - 1)/L on average, T at the leaves.",
)
noted_metric(
    cols[3],
    "RMSE of F_hat",
    f"{run.rmse:,.0f}",
    f"analytic {run.analytic_rmse:,.0f}",
    help="Measured over the T periods; below it sqrt(mean_t Var(F_hat_t)), with "
    "Var(F_hat_t) = c_a^2 k^2 L n popcount(t) - F_t exactly.",
)
if not central.valid:
    st.caption(f"No central guarantee from shuffling: {central.reason}")
st.plotly_chart(running_counts_figure(run.truth, run.estimate, run.std), width="stretch")
record = partial(longitudinal_record, protocol, n, seed, run, central, {"initial": initial, "rate": rate})
take_home(LongitudinalView(n, d, k, initial, rate, seed, eps, mode, delta), "longitudinal", record)
