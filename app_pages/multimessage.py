"""Multi-message: single vs multiple anonymous messages against n, and who can see what."""

from functools import partial

import streamlit as st

from ldpcore.export.reproduce import MultiMessageView
from ldpcore.export.view_records import multimessage_record
from ldpcore.systems.multiparty import DATA_SHAPES, MULTI_MESSAGE_HELP, THREAT_HELP, threat_table
from ui import multimessage
from ui.kit.axes import log_lines
from ui.kit.controls import eps_c_slider, parse_delta
from ui.kit.feedback import input_errors
from ui.kit.format import or_reason
from ui.kit.take_home import take_home

st.title("Multiple anonymous messages")
st.caption(MULTI_MESSAGE_HELP)

c1, c2, c3, c4 = st.columns(4)
eps = eps_c_slider("Central eps_c", "mm_eps", c1)
delta_text = c2.text_input("delta", value="1e-6", key="mm_delta", bind="query-params")
d = int(c3.number_input("Domain size d", min_value=2, max_value=4096, value=64, key="mm_d", bind="query-params"))
shape = c4.radio(
    "Data",
    DATA_SHAPES,
    key="mm_shape",
    bind="query-params",
    horizontal=True,
    help="peaked: everyone holds one value (worst for B-ary RR); uniform: spread over all values.",
)
delta = parse_delta(delta_text, "1e-6")


n_grid, curves = multimessage.curves(eps, delta, d, shape)
left, right = st.columns(2)
left.plotly_chart(
    log_lines(
        n_grid,
        {k: v["rmse"] for k, v in curves.items()},
        f"Error against n (eps_c = {eps:g}, delta = {delta:g}, d = {d})",
        "respondents n",
        "RMSE per value (counts)",
    ),
    width="stretch",
)
right.plotly_chart(
    log_lines(
        n_grid,
        {k: v["messages"] for k, v in curves.items() if "messages" in v},
        "Messages per respondent",
        "respondents n",
        "expected messages",
    ),
    width="stretch",
)
at = int(
    st.select_slider(
        "Table at n respondents",
        options=[int(x) for x in n_grid],
        value=int(n_grid[len(n_grid) // 2]),
        key="mm_table_n",
        bind="query-params",
        format_func=lambda x: f"{x:,}",
    )
)
i = [int(x) for x in n_grid].index(at)
st.table(  # a static table: every reason is read whole, in its row
    [
        {
            "protocol": k,
            "RMSE (respondents per value)": or_reason(v["rmse"][i], v["reason"][i]),
            "messages / respondent": or_reason(v["messages"][i], "cannot reach (ε_c, δ) at this n"),
            "bits / message": or_reason(v["bits"][i], "cannot reach (ε_c, δ) at this n"),
        }
        for k, v in curves.items()
        if "messages" in v
    ],
    hide_index=True,
)
st.caption(f"At n = {at:,}; where a protocol cannot reach (ε_c, δ) with that many respondents, the cell says why.")

st.header("Who can see what")
st.caption(THREAT_HELP)
t1, t2, t3, t4, t5 = st.columns(5)
n = int(
    t1.number_input(
        "Respondents n", min_value=1000, max_value=10**10, value=1_000_000, step=10_000, key="mp_n", bind="query-params"
    )
)
eps_l = float(
    t2.number_input(
        "Local eps_l", min_value=0.1, max_value=20.0, value=7.0, step=0.5, key="mp_eps_l", bind="query-params"
    )
)
shufflers = int(t3.number_input("Shufflers r", min_value=1, max_value=20, value=3, key="mp_r", bind="query-params"))
fakes = int(
    t4.number_input(
        "Fakes per shuffler n_r",
        min_value=0,
        max_value=10**8,
        value=20_000,
        step=1000,
        key="mp_fakes",
        bind="query-params",
    )
)
colluding = int(
    t5.number_input("Colluding shufflers", min_value=0, max_value=19, value=0, key="mp_colluding", bind="query-params")
)
with input_errors():
    rows = threat_table(n, d, delta, eps_l, shufflers, fakes, colluding)
ADVERSARIES = ("vs server", "vs server + other respondents", "vs server + shufflers")
st.table(  # a static table: the note is read whole, in its row
    [
        {
            "protocol": r["protocol"],
            **{
                c: "learns the report (ε = ∞)" if r[c] == float("inf") else or_reason(r[c], "does not apply")
                for c in ADVERSARIES
            },
            "why / note": r["note"],
        }
        for r in rows
    ],
    hide_index=True,
)
st.caption(f"At n = {n:,} respondents (the box above), d = {d:,} values, δ = {delta:g}; ε in nats, replacement.")
record = partial(multimessage_record, eps, delta, d, shape, n_grid, curves, n, eps_l, shufflers, fakes, colluding, rows)
take_home(MultiMessageView(eps, delta, d, shape, n, eps_l, shufflers, fakes, colluding), "multimessage", record)
