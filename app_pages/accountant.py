"""Accountant: every amplification bound side by side, local <-> central epsilon."""

from functools import partial

import numpy as np
import streamlit as st

from ldpcore.export.reproduce import AccountantView
from ldpcore.export.view_records import accountant_record
from ldpcore.privacy.bounds import BOUNDS, BoundName
from ldpcore.privacy.rounds import MAX_ROUNDS
from ui import accountant
from ui.kit.axes import log_lines
from ui.kit.controls import parse_delta
from ui.kit.format import or_reason
from ui.kit.take_home import take_home

st.title("Accountant")
st.caption(
    "How much a crowd of n shuffled reports amplifies a local eps0 into a central (eps_c, delta) guarantee, "
    "by every bound we know. Invalid bounds say why instead of giving a number."
)

c1, c2, c3, c4, c5 = st.columns([2, 2, 2, 2, 1])
n = int(
    c1.number_input(
        "Respondents n", min_value=2, max_value=10**12, value=1_914_589, step=1000, key="acc_n", bind="query-params"
    )
)
delta_text = c2.text_input("delta", value="5e-8", key="acc_delta", bind="query-params")
direction = c3.radio(
    "Given",
    ["eps_c", "eps0"],
    key="acc_given",
    bind="query-params",
    horizontal=True,
    help="eps_c: the largest local eps0 each bound certifies; eps0: the central eps_c it gives.",
)
value = float(
    c4.number_input(
        f"{direction} (nats)",
        min_value=1e-4,
        max_value=50.0,
        value=1.0,
        step=0.25,
        format="%.4g",
        key="acc_value",
        bind="query-params",
    )
)
k = int(
    c5.number_input(
        "Domain k",
        min_value=2,
        max_value=10**9,
        value=2,
        key="acc_k",
        bind="query-params",
        help="Values of the k-RR / GRR channel (2 for one attribute-fragment bit).",
    )
)
delta = parse_delta(delta_text, "1e-8")
r1, r2 = st.columns([2, 3])
rounds = int(
    r1.number_input(
        "Collections from the same people (rounds)",
        min_value=1,
        max_value=MAX_ROUNDS,
        value=1,
        step=1,
        key="acc_rounds",
        bind="query-params",
        help="The table's eps_c and delta are the total over this many collections (e.g. 365 daily ones), each at "
        "the local eps0, composed through each bound's dominating pair (its privacy curve, or its closed form at "
        "several deltas); the charts show one collection.",
    )
)
notion = r2.radio(
    "Notion of eps_c",
    ["native", "replacement"],
    key="acc_notion",
    bind="query-params",
    horizontal=True,
    help="native: each bound's own (zero-out for Lemma II.6, Theorem III.1 and the tight curve: one attribute "
    "fragment's channel, the respondent's bit 1 rather than 0); replacement: those three over the two channels a "
    "one-hot respondent's replaced value changes, composed through the bound's dominating pair (as `ldpcore "
    "amplify --notion replacement`). The other bounds are replacement bounds already. The charts show each "
    "bound's own notion.",
)

rows = accountant.table(n, delta, k, direction, value, rounds, notion)
shown = "eps0" if direction == "eps_c" else "eps_c"
by_name = {r["bound"]: r for r in rows}
cols = st.columns(3)
for col, (name, label) in zip(
    cols,
    [
        (BoundName.CHEU19, "Lemma II.6 (the paper's)"),
        (BoundName.TIGHT_BINARY_RR, "exact binary RR (tight)"),
        (BoundName.FMT21_NUMERIC, "numerical clones (any eps0-LDP)"),
    ],
):
    r = by_name[name]
    col.metric(f"{shown}: {label}", "not valid" if r[shown] is None else f"{r[shown]:.4g}", help=r["note"] or None)
    if r[shown] is None:
        col.caption(r["note"])

st.subheader("Every bound at these inputs" + (f", {rounds:,} collections" if rounds > 1 else ""))
# the reason sits in the number's own cell where a bound gives no number, and the note comes right after
st.dataframe(
    [{**r, "eps0": or_reason(r["eps0"], r["note"]), "eps_c": or_reason(r["eps_c"], r["note"])} for r in rows],
    hide_index=True,
    width="stretch",
    key="acc_table",
    height=36 * (len(rows) + 1) + 3,  # every bound without scrolling
    column_config={
        "bound": st.column_config.TextColumn(width="medium", pinned=True),
        "eps0": st.column_config.TextColumn("ε0 (local)", width="medium"),
        "eps_c": st.column_config.TextColumn("ε_c (central)", width="medium"),
        "note": st.column_config.TextColumn("why / note", width="large"),
    },
)

eps0_grid = tuple(np.geomspace(0.05, 20, 20))
n_grid = tuple(int(x) for x in np.geomspace(1e3, 1e9, 10))
target = value if direction == "eps_c" else 1.0
left, right = st.columns(2)
charts = left.empty(), right.empty()
# closed forms first (drawn at once), then the bounds that solve a privacy curve (each point certified to
# CURVE_RTOL); every bound keeps its legend place and colour, empty until its curve is in
curves = {name: np.full(len(eps0_grid), np.nan) for name in BOUNDS}
per_n = {name: np.full(len(n_grid), np.nan) for name in BOUNDS}
for names in ([name for name, b in BOUNDS.items() if not b.solves], [name for name, b in BOUNDS.items() if b.solves]):
    for name in names:
        curves[name] = accountant.eps_c_against_eps0(name, eps0_grid, n, delta, k)
        per_n[name] = accountant.eps0_against_n(name, target, n_grid, delta, k)
    charts[0].plotly_chart(
        log_lines(
            eps0_grid, curves, f"eps_c against eps0 (n = {n:,}, delta = {delta:g})", "local eps0", "central eps_c"
        ),
        width="stretch",
    )
    charts[1].plotly_chart(
        log_lines(
            n_grid, per_n, f"Largest eps0 for eps_c = {target:g} against n", "respondents n", "local eps0", log_y=False
        ),
        width="stretch",
    )

rows_of = accountant.amplifications(n, delta, k, direction, value, rounds, notion)
setting = (n, delta, k, direction, value, rounds, notion)
record = partial(accountant_record, *setting, rows_of, eps0_grid, curves, target, n_grid, per_n)
take_home(AccountantView(*setting), "accountant", record)

st.subheader("The bounds")
for name, b in BOUNDS.items():
    with st.expander(f"{name}: {b.title}"):
        st.markdown(
            f"{b.explanation}\n\n**Applies to:** {b.applies_to}. **Neighbouring:** {b.neighbouring}.\n\n*{b.citation}*"
        )
