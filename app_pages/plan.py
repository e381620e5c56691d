"""Plan: every encoding with every accountant side by side on the chosen data, analytically; forward at an
eps_c, or solving for the smallest eps_c or number of respondents that meets a target error."""

from functools import partial

import numpy as np
import streamlit as st

from ldpcore.experiment import planning as planner
from ldpcore.experiment.protocol.postprocess import METHODS as POSTPROCESS
from ldpcore.export import fmt, to_json
from ldpcore.export.reproduce import PlanView
from ldpcore.oracles import ENCODINGS
from ldpcore.privacy.rounds import MAX_ROUNDS
from ui import plan
from ui.kit.controls import central_delta_input, delta_or_default, eps_c_slider
from ui.kit.feedback import input_errors
from ui.kit.format import plain, short
from ui.kit.inputs import data_sidebar
from ui.kit.navigation import open_button, remember, restore
from ui.kit.take_home import take_home
from ui.plan import SHAPE, shape_sidebar


def _fit(x: float | None, pattern: str = "{:,.2f}", below: float = 1e4) -> str:
    """A metric's value that fits its column at 1280 px: pattern below `below`, else 3 digits and a suffix."""
    return short(x) if x is None or abs(x) >= below else pattern.format(x)


SOLVES = {"error": "error at eps_c", "eps_c": "smallest eps_c for a target", "n": "smallest n for a target"}
KINDS = {"rmse": "raw RMSE per bin", "relative_rmse": "relative RMSE (RMSE / mean count)", "linf": "expected l_inf"}

st.title("Plan")
st.caption(
    "Every encoding with every accountant that holds for it, on your data, from the analytic variance of each "
    "estimator (no simulation; ranked on a post-processing, each row's error after it is simulated): which "
    "encoding to deploy, the local epsilon each respondent gets, how many messages of how many bits it sends, and "
    "the error to expect. Open a row on Reconstruct to simulate it."
)
restore("protocol", ("eps_c", "delta"))  # eps_c and delta as last chosen on another page, unless the URL names them
with st.sidebar:
    source = st.radio(
        "Plan for",
        ["data", SHAPE],
        captions=["a dataset or an upload", "n, d and a shape, without data"],
        key="plan_source",
        bind="query-params",
        horizontal=True,
    )
inp = shape_sidebar() if source == SHAPE else data_sidebar()
hist = inp.hist
with st.sidebar:
    st.header("Plan")
    # options are short names: a bound widget writes the displayed option into the URL
    solve = st.radio(
        "Solve for",
        list(SOLVES),
        captions=list(SOLVES.values()),
        key="plan_solve",
        bind="query-params",
        horizontal=True,
    )
    eps_c = None if solve == "eps_c" else eps_c_slider()
    target = None
    if solve != "error":
        kind = st.selectbox(
            "Target error",
            list(KINDS),
            key="target_kind",
            bind="query-params",
            help="; ".join(f"{k}: {v}" for k, v in KINDS.items()),
        )
        value = st.number_input(
            "Target value",
            min_value=1e-6,
            max_value=1e12,
            value=20.0 if kind != "relative_rmse" else 0.5,
            key="target",
            bind="query-params",
            format="%g",
        )
        target = (kind, float(value))
    delta_text = central_delta_input(inp.delta)
    notion = st.radio(
        "eps_c neighbouring notion",
        ["replacement", "native"],
        key="plan_notion",
        bind="query-params",
        horizontal=True,
        help="replacement: every row certifies eps_c when one respondent's value is replaced (one-hot's "
        "zero-out accounting through its two changed channels, each row says how); native: each encoding's own "
        "notion (zero-out for one-hot: its value replaced by the null report).",
    )
    rounds = st.number_input(
        "Collections from the same people (rounds)",
        min_value=1,
        max_value=MAX_ROUNDS,
        value=1,
        step=1,
        key="plan_rounds",
        bind="query-params",
        help="eps_c and delta are the total over this many collections (e.g. 365 for a year of daily ones), "
        "composed through each accountant's dominating pair; every row's eps_l is then each collection's.",
    )
    encodings = st.multiselect("Encodings (empty: all)", list(ENCODINGS), key="plan_encodings", bind="query-params")
    max_messages = st.number_input(
        "At most messages per respondent (0: no limit)",
        min_value=0.0,
        value=0.0,
        key="max_messages",
        bind="query-params",
    )
    max_bits = st.number_input(
        "At most bits per respondent (0: no limit)", min_value=0.0, value=0.0, key="max_bits", bind="query-params"
    )
    rule = st.selectbox(
        "Recommend by",
        list(planner.RULES),
        key="plan_rule",
        bind="query-params",
        help="The rule that picks the recommendation among the Pareto rows (no other row better in every respect: "
        "error, eps_l in both notions, messages, bits). "
        + "; ".join(f"{r.name}: {r.words.format(objective='error')}" for r in planner.RULES.values())
        + ". When solving, the error is the eps_c or n found.",
    )
    delta_with_n = solve == "n" and (
        st.radio(
            "delta while n changes",
            ["fixed", "1/(10 n)"],
            key="plan_delta_n",
            bind="query-params",
            horizontal=True,
            help="fixed: the delta above (or the data's default) at every n tried; 1/(10 n): the rule about "
            "1/(10 n) applied afresh at each n, as a deployment of that size would choose it.",
        )
        == "1/(10 n)"
    )
    rank_on = st.selectbox(
        "Rank on",
        ["raw", *POSTPROCESS],
        key="plan_postprocess",
        bind="query-params",
        disabled=solve != "error",
        help="raw: the unbiased estimate's analytic RMSE. A post-processing (ldpcore's "
        + ", ".join(f"{k}: {m.title}" for k, m in POSTPROCESS.items())
        + f") has no analytic error: each row is simulated {planner.RUNS} times with the exact sampler (seeds "
        f"{planner.FIRST_SEED} to {planner.FIRST_SEED + planner.RUNS - 1}) and ranked on the mean RMSE, shown with "
        "its standard error. The inverses (a target) search the raw prediction.",
    )
    postprocess = None if rank_on == "raw" or solve != "error" else rank_on

with input_errors():
    delta = delta_or_default(delta_text, inp.delta)
    query, table = plan.table(
        inp,
        solve,
        eps_c,
        target,
        (delta, plan.delta_source(inp, bool(delta_text.strip()))),
        notion,
        encodings,
        (max_messages or None, max_bits or None),
        rule,
        delta_with_n,
        int(rounds),
        postprocess,
    )

notions = "eps_c and eps_l in the replacement notion" if table.notion == "replacement" else "eps_c in the native notion"
if table.rounds > 1:
    notions += f"; over {table.rounds:,} collections (eps_c and delta their total, eps_l each collection's)"
st.caption(
    f"{plain(hist.name)}: n = {table.n:,} respondents over d = {table.d:,} values; delta = {table.delta:g} "
    f"({query.delta_from}); {notions}"
    + (f"; target {KINDS[target[0]]} <= {target[1]:g}" if target else "")
    + (f". Solving for n holds {query.held_fixed}" if query.held_fixed else "")
    + "."
)
linked = source != SHAPE  # Reconstruct and Trade-offs simulate a histogram: a shape without data has none to link
if eps_c is not None:
    remember("protocol", {"eps_c": eps_c, "delta": delta_text}, part=True)
records = plan.rows(table)
rec = table.recommended


def _open_buttons(row, key: str) -> None:
    """Buttons opening the row on Reconstruct (with the post-processing ranked on) and on Trade-offs, in this tab
    with the data chosen here."""
    values, sweep = plan.link(row, inp.values), plan.link(row, inp.values, "tradeoffs")
    if values is None or sweep is None:
        st.caption(f"{row.encoding} / {row.accountant} has no configuration to open: {row.reason}")
        return
    buttons = st.container(horizontal=True)
    open_button(buttons, "Simulate it on Reconstruct", plan.PAGES["reconstruct"], values, f"{key}_reconstruct")
    open_button(buttons, "Sweep it on Trade-offs", plan.PAGES["tradeoffs"], sweep, f"{key}_tradeoffs")


if rec is None:
    st.warning(f"No recommendation: {table.reason}")
else:
    st.success(f"**Recommended: {rec.encoding} with {rec.accountant}.** {table.reason}")
    if linked:
        _open_buttons(rec, "open_recommended")
    cols = st.columns(6)
    cols[0].metric("eps_c", f"{rec.eps_c:.4g}", help=f"Certified, {table.notion} notion. {rec.conversion}.")
    replacement = table.notion == "replacement"
    cols[1].metric(  # the notion is in the caption above and the native value under the number: at 1280 px a
        # label "eps_l (replacement)" or a delta "replacement; native 9.63" is cut off
        "eps_l",
        _fit(rec.eps_l_replacement if replacement else rec.eps_l),
        delta=f"native {_fit(rec.eps_l)}" if replacement else rec.local_neighbouring,
        help=f"Local epsilon of a respondent's reports; native notion: {rec.local_neighbouring}, {fmt(rec.eps_l)}.",
        delta_color="off",
        delta_arrow="off",
    )
    cols[2].metric(
        "messages", _fit(rec.messages), help=f"Expected messages per respondent, {rec.bits_per_message} bits each."
    )
    cols[3].metric(
        "bits / respondent", _fit(rec.bits_per_respondent, "{:,.0f}", 1e6), help=f"{rec.bits_per_respondent:,.0f}"
    )
    sim = rec.postprocessed
    if sim is None:
        cols[4].metric(
            "raw RMSE",
            _fit(rec.rmse, below=1e3),
            delta=f"95% CI ±{_fit(rec.ci95)}",
            delta_color="off",
            delta_arrow="off",
            help="Predicted raw RMSE per bin (the estimator's analytic variance); the 95% confidence half-width of "
            "a bin of that variance." + (f" {rec.rmse_note}" if rec.rmse_note else ""),
        )
    else:
        cols[4].metric(
            f"RMSE after {sim.method}",
            _fit(sim.rmse, below=1e3),
            delta=f"± {_fit(sim.std_error)} (std error)",
            delta_color="off",
            delta_arrow="off",
            help=f"Mean RMSE per bin after {sim.title} over {sim.runs} simulated runs (seeds {sim.first_seed} to "
            f"{sim.first_seed + sim.runs - 1}) and its standard error; the raw prediction is {fmt(rec.rmse)}. "
            f"Per-bin errors: [{sim.interval[0]:.4g}, {sim.interval[1]:.4g}], {planner.INTERVAL_NOTE}.",
        )
    cols[5].metric(
        "without shuffler",
        _fit(rec.rmse_local_only, below=1e3),  # 2,738.77 is cut off at 1280 px, 2.74 k is not
        help="The same encoding as plain local DP at eps_l = eps_c: what the shuffler buys. "
        f"Predicted RMSE {fmt(rec.rmse_local_only)}.",
    )
    if table.central_rmse is not None:
        st.caption(
            f"Central Gaussian baseline at the same (eps_c, delta) in the {table.notion} notion, no LDP: raw RMSE "
            f"{fmt(table.central_rmse)} ({table.central_note})."
        )
    if solve == "n":
        st.caption(f"Recommended row needs n = {rec.n:,} respondents with this data's shape.")


every_column = st.toggle(
    "Every column",
    key="plan_columns",
    bind="query-params",
    help="Off: the columns that fit the page (rank, encoding, accountant, eps_c, eps_l, messages, bits, RMSE with and "
    "without the shuffler, why not ranked); on: also the native notion, eps_l_1, the 95% interval, relative RMSE, "
    "l_inf, top-k recall and the conversion (the table then scrolls sideways). The CSV has every field.",
)
st.dataframe(
    records,
    hide_index=True,
    width="stretch",
    key="plan_table",
    column_order=None if every_column else plan.compact_columns(table),
    column_config={  # short headers: the compact table fits 1280 px (the notion is in the caption above)
        f"eps_l ({table.notion})": st.column_config.NumberColumn("eps_l", help=f"eps_l, {table.notion} notion"),
        "bits / respondent": st.column_config.NumberColumn("bits", help="bits per respondent"),
        "RMSE without shuffler": st.column_config.NumberColumn(
            "no shuffler", help="RMSE of the same encoding without a shuffler (local DP at eps_l = eps_c)"
        ),
        "RMSE": st.column_config.NumberColumn(
            "raw RMSE", help=f"Predicted RMSE per bin of the raw estimate ({hist.unit})"
        ),
        "relative RMSE": st.column_config.NumberColumn(
            help="Raw RMSE / mean count (n / d). A value holding a share p of the respondents has its own relative "
            "error of about RMSE / (p n): larger than this for the rare values"
        ),
        "certified": st.column_config.CheckboxColumn("certified"),
        "Pareto": st.column_config.CheckboxColumn(
            "Pareto",
            help="No other ranked row is better in every respect (error, eps_l, messages, bits); ★: recommended",
        ),
        "top-k recall": st.column_config.NumberColumn(
            "top-k recall",
            help=f"{plan.topk_words(table)}: {planner.TOPK_NOTE}.",
        ),
        "why not ranked": st.column_config.TextColumn("why not ranked", width="medium"),
    },
)
if linked:
    labels = {plan.row_label(rank, r): r for rank, r in enumerate(table.rows, 1) if r.spec is not None}
    if labels:
        chosen = st.selectbox(
            "Open a row of the table",
            list(labels),
            key="plan_row",
            bind="query-params",
            help="Opens it on Reconstruct or Trade-offs in this tab, with the data chosen here and the row's encoding, "
            "parameters and accountant at its own eps_c and delta (the same eps_l).",
        )
        _open_buttons(labels[chosen], "open_row")
st.download_button("Table (CSV)", partial(plan.csv_text, table), "plan.csv", "text/csv", on_click="ignore")
st.download_button(
    "Table (JSON)", partial(to_json, table.as_dict()), "plan.json", "application/json", on_click="ignore"
)
if inp.source is not None:  # the question as code: its script and notebook print the Table (JSON)
    asked = "table" if solve == "error" else solve
    limits = (max_messages or None, max_bits or None)
    question = (inp.source, delta, eps_c, asked, target, notion, tuple(encodings), *limits)
    view = PlanView(*question, rounds=int(rounds), rule=rule, delta_with_n=delta_with_n, postprocess=postprocess)
    take_home(view, "plan", None)
st.plotly_chart(plan.pareto_figure(table, hist.unit), width="stretch")

curves = st.expander("Error against eps_c for the top rows", key="plan_curves", on_change="rerun")
if curves.open:  # drawn only while open: each point solves the accountants afresh
    kind = target[0] if target else "rmse"
    top = [r for r in table.rows if r.ranked][:4]
    eps_cs = tuple(float(f"{x:.3g}") for x in np.geomspace(0.05, 10, 14))
    lines = {f"{r.encoding} / {r.accountant}": plan.curve(inp, r, eps_cs, kind) for r in top}
    current = eps_c if eps_c is not None else (rec.eps_c if rec else None)
    curves.plotly_chart(
        plan.curves_figure(lines, eps_cs, kind, target[1] if target else None, current), width="stretch"
    )
st.caption(
    "Predicted RMSE is exact for the unbiased estimators (the count sketch's median readout: an approximation); "
    f"l_inf is the {planner.LINF_NOTE}. Top-k recall ({plan.topk_words(table)}) is the "
    f"{planner.TOPK_NOTE}. "
    + (
        "A row opens with the accountant's own eps_c and delta (the same eps_l), with the data chosen here"
        + ("" if postprocess is None else f" (on Reconstruct, after {postprocess})")
        + "."
        if linked
        else "No row opens on Reconstruct or Trade-offs here: they simulate respondents from a histogram, and a "
        "shape without data has none to carry. Choose a dataset or upload a histogram CSV to simulate a row."
    )
)
