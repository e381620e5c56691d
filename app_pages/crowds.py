"""Crowd IDs: randomized report deletion (Algorithm 3), natural and data-derived crowd IDs (ESA paper, Section V)."""

from functools import partial

import numpy as np
import streamlit as st

from ldpcore.data.datasets import synthetic_heavy_hitters
from ldpcore.export.reproduce import CrowdsView
from ldpcore.export.view_records import crowds_record
from ldpcore.systems.crowds import (
    DATA_DERIVED_HELP,
    DELETION_HELP,
    EXPLANATION,
    NATURAL_IDS_HELP,
    crowd_id_split,
    data_derived_ids,
    deletion_guarantees,
    parse_sizes,
    partition_errors,
    sample_deletion,
)
from ui.crowds import drops_figure, partition_figure, split_figure
from ui.kit.controls import delta_slider, eps_slider, noted_metric, seed_input
from ui.kit.feedback import input_errors
from ui.kit.take_home import take_home

SHARES = np.linspace(0.02, 0.98, 49)  # eps_hat / eps_l on the split chart

st.title("Crowd IDs")
st.caption(EXPLANATION)
with st.sidebar:
    st.header("Crowds")
    sizes_text = st.text_input(
        "Crowd sizes (reports per crowd ID)",
        "250000, 60000, 12000, 3000, 800, 150",
        key="crowd_sizes",
        bind="query-params",
        help="Whole numbers separated by commas, e.g. reports per language setting.",
    )
    st.header("Algorithm 3")
    eps_cr = eps_slider("eps_cr of the crowd sizes (log scale)", "crowd_eps_cr", 1.0, lo=0.05)
    delta_cr = delta_slider("delta_cr", "crowd_delta_cr")
    seed = seed_input("crowd_seed")
    st.header("Reports")
    eps_l = eps_slider("eps_l of each report (log scale)", "crowd_eps_l", 4.0, lo=0.1)
    m = int(
        st.number_input(
            "Data-derived crowd IDs m",
            min_value=2,
            max_value=64,
            value=2,
            key="crowd_m",
            bind="query-params",
            help="The paper's example: m = 2, a binary ID hashed from the value.",
        )
    )
    values = int(
        st.number_input(
            "Values in the data domain",
            min_value=2,
            max_value=100_000,
            value=200,
            key="crowd_values",
            bind="query-params",
        )
    )

with input_errors():
    sizes = parse_sizes(sizes_text)
    guarantees = deletion_guarantees(sizes, eps_cr, delta_cr)
    rng = np.random.default_rng(seed)
    deletion = sample_deletion(sizes, eps_cr, delta_cr, rng)
    alone, pooled = partition_errors(sizes, eps_l)
    counts = synthetic_heavy_hitters(rng, d=values, n=int(sizes.sum()), hitters=min(10, values - 1)).counts
    split = crowd_id_split(counts, data_derived_ids(values, m, rng), eps_l, SHARES * eps_l, m)
labels = [f"{i + 1} ({n:,})" for i, n in enumerate(sizes)]

st.subheader("Randomized report deletion (Algorithm 3)")
st.caption(DELETION_HELP.format(crowds=sizes.size) + f" Seed {seed}.")
cols = st.columns(4)
cols[0].metric(
    "Theorem V.2 bound", f"{guarantees.bound:.1f}", help="Reports dropped per crowd at most, w.p. >= 1 - delta_cr."
)
noted_metric(
    cols[1],
    "most dropped (this run)",
    f"{int(deletion.dropped.max()):,}",
    f"expected {guarantees.expected_drops.max():.1f}",
    help="The largest number of reports one crowd lost in this run; below it the largest expectation.",
)
cols[2].metric(  # a short label: "P[a crowd exceeds the bound]" is cut at 1280 px
    "P[bound exceeded]",
    f"{guarantees.p_exceed:.2g}",
    help="The probability that some crowd loses more reports than the Theorem V.2 bound. Exact, for these crowd "
    "sizes; Theorem V.2 promises at most delta_cr.",
)
cols[3].metric(
    "P[the run aborts]",
    f"{guarantees.p_run_abort:.2g}",
    help=f"Each crowd aborts w.p. (delta_cr/4) e^(-eps_cr/2) = {guarantees.p_abort:.2g}; any abort releases nothing.",
)
if deletion.aborted:
    st.warning("This run aborted: a crowd's noisy size exceeded its true size, so nothing is released.")
st.plotly_chart(drops_figure(labels, deletion.dropped, guarantees.expected_drops, guarantees.bound), width="stretch")

st.subheader("Natural crowd IDs")
st.caption(NATURAL_IDS_HELP)
st.plotly_chart(partition_figure(labels, alone, pooled), width="stretch")

st.subheader("Data-derived crowd IDs")
st.caption(DATA_DERIVED_HELP.format(values=values, m=m, respondents=int(counts.sum())))
ratios = split.ratios
c1, c2 = st.columns([1, 3])
c1.metric(
    "best ratio over all splits",
    f"{split.best_ratio:.3g}",
    help="The smallest std of a split estimate relative to not splitting, over every eps_hat on the chart "
    "and every value: above 1 means no value gains from any split.",
)
c1.metric("std without a split", f"{split.whole:,.1f}", help="Std of every count with all of eps_l on the report.")
c2.plotly_chart(split_figure(SHARES, ratios.min(axis=1), np.median(ratios, axis=1)), width="stretch")
record = partial(crowds_record, sizes, seed, guarantees, deletion, alone, pooled, split)
take_home(CrowdsView(sizes_text, eps_cr, delta_cr, seed, eps_l, m, values), "crowds", record)
