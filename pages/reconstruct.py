"""Reconstruct: the data, the protocol, and what the analyzer recovers from shuffled reports."""

from dataclasses import replace
from functools import partial

import streamlit as st

from ldpcore.experiment.run import Method
from ldpcore.export import fmt, to_json
from ldpcore.oracles import ENCODINGS
from ui import page_config, runs
from ui.figures import histogram_figure
from ui.inputs import data_sidebar
from ui.protocol import protocol_sidebar

page_config()  # also when this page is a fresh server's first deep link

st.title("Reconstruct")
inp = data_sidebar()
spec, seed = protocol_sidebar(inp.delta)
hist = inp.hist

# everything is computed (or fetched from the shared caches) first, then drawn in one burst: the browser
# renders the page once per step instead of once per element that waited for a computation
esa_method, central_method = Method("ESA", spec), Method("Central Gaussian", spec, central=True)
esa = runs.cell(inp, esa_method, spec.eps_c, seed)
if esa.error:
    st.error(esa.error)
    st.stop()
central = runs.cell(inp, central_method, spec.eps_c, seed)
p, m = esa.privacy, esa.metrics
encoding = ENCODINGS[spec.encoding]
TIGHT = "tight-binary-rr"
show_tight = spec.accountant != TIGHT and TIGHT in encoding.accountants and encoding.certified
if hist.is_image:  # at display resolution; the downloads below are at the input's
    pngs = (
        runs.original_png(inp),
        runs.cell_png(inp, esa_method, spec.eps_c, seed),
        runs.cell_png(inp, central_method, spec.eps_c, seed),
    )

st.caption(
    f"{hist.name}: n = {hist.n:,} respondents over d = {hist.d:,} values"
    + (f" ({hist.shape[1]}x{hist.shape[0]} px)" if hist.is_image else "")
    + f"; delta = {spec.delta:g}; seed {seed}; {p['neighbouring']} neighbours."
)
for note in list(hist.notes) + [n for n in p["notes"] if n != encoding.privacy_note]:  # the warning below says it
    st.info(note)

cols = st.columns(6)
cols[0].metric("eps_l_inf", fmt(p["eps_l_inf"]), help="Local DP of everything one respondent sends (removal).")
cols[1].metric("eps_l_1", fmt(p["eps_l_1"]), help="Local DP of one report fragment (a captured shuffler).")
cols[2].metric(
    "eps_b / eps_f",
    fmt(p["eps_b"]) + (f" / {fmt(p['eps_f'])}" if p["eps_f"] is not None else ""),
    help="Backstop and fragment epsilons (Algorithm 2); without report fragments eps_b is the only one.",
)
cols[3].metric(
    "messages / respondent",
    f"{m['expected_messages']:,.2f}",
    delta=f"{p['bits_per_message']} bits each",
    delta_color="off",
    delta_arrow="off",
    help="Expected anonymous messages per respondent (one-hot: one per set bit) and the bits of one.",
)
cols[4].metric(
    "RMSE",
    fmt(m["rmse"]),
    delta=f"central: {fmt(central.metrics['rmse'])}",
    delta_color="off",
    delta_arrow="off",
    help="Per-bin RMSE after clipping the estimate to [0, input maximum].",
)
cols[5].metric("l_inf error", fmt(m["linf"]), help="Largest per-bin error of the clipped estimate.")
if p["certified"]:
    guarantee = f"Certified central eps_c = {p['eps_c']:.4g} by {p['citation']}."
else:
    low, high = p["eps_c_range"]
    st.warning(
        f"eps_c is NOT certified for {p['encoding']} reports: the ESA paper (Erlingsson et al., 2020, Section III) "
        f"gives no amplification bound for them and runs them at the one-hot eps_l of eps_c = {low:.4g}, placing "
        "the central guarantee only "
        f"between {low:.4g} and eps_l_inf = {high:.4g}. Treated as one 2 eps_l-LDP report per respondent, "
        f"a generic bound certifies eps_c = {fmt(p['eps_c_whole_report_replacement'])} (replacement)."
    )
    guarantee = f"eps_l calibrated as for one-hot reports by {p['citation']}."
extra = []
if "hash_range" in p:
    extra.append(f"hash range g = {p['hash_range']:,}")
if "fake_reports" in p:
    users = p["eps_vs_server_and_respondents"]
    extra.append(
        f"{p['fake_reports']:,} fake reports; eps vs the server + all other respondents = "
        + (fmt(users) if users != float("inf") else "inf (too few fakes for the blanket bound)")
        + f", vs the server + all shufflers = {fmt(p['eps_vs_server_and_shufflers'])}"
    )
analytic = (
    f"analytic {fmt(p['analytic_rmse_raw'])}"
    if not p["analytic_rmse_raw_note"]
    else f"analytic approximation {fmt(p['analytic_rmse_raw'])}: {p['analytic_rmse_raw_note']}"
)
st.caption(
    f"{guarantee} {'; '.join(extra) + '. ' if extra else ''}Raw RMSE {fmt(m['rmse_raw'])} "
    f"({analytic}); total variation {m['tv']:.4f}"
    + (f"; PSNR {m['psnr']:.2f} dB" if "psnr" in m else "")
    + f". Central baseline: analytic Gaussian, sigma = {fmt(central.privacy['sigma'])}."
)

# the tight accountant's comparison costs a second run and two exact solves (seconds at n = 1e7): made only while
# its expander is open, as the error map below
tight_box = st.expander("What the tight accountant buys", key="tight_box", on_change="rerun") if show_tight else None
if tight_box is not None and tight_box.open:
    tight = runs.cell(inp, Method("ESA, tight accountant", replace(spec, accountant=TIGHT)), spec.eps_c, seed)
    same = runs.certified_eps_c(inp, spec, p["eps_b"], TIGHT)  # what the tight accountant certifies for these reports
    same_reports = (
        same
        if isinstance(same, str)
        else (
            f"- **Same reports** (eps_b = {fmt(p['eps_b'])}): they satisfy eps_c = **{same:.3g}**, "
            f"not {p['eps_c']:.3g}, at delta = {spec.delta:g}."
        )
    )
    with tight_box:
        st.markdown(
            tight.error
            or (
                f"- **Same eps_c = {spec.eps_c:g}**: the exact privacy curve of shuffled binary RR allows "
                f"eps_l_inf = **{fmt(tight.privacy['eps_l_inf'])}** instead of {fmt(p['eps_l_inf'])}, "
                f"for an RMSE of **{fmt(tight.metrics['rmse'])}** instead of {fmt(m['rmse'])} (same seed).\n"
                + same_reports
            )
        )

if hist.is_image:  # output_format: sent as made (else Streamlit decodes each grey PNG and re-encodes it as a JPEG)
    a, b, c = st.columns(3)
    a.image(pngs[0], caption="Original", width="stretch", output_format="PNG")
    b.image(pngs[1], width="stretch", caption=f"ESA reconstruction: RMSE {fmt(m['rmse'])}", output_format="PNG")
    c.image(
        pngs[2],
        width="stretch",
        output_format="PNG",
        caption=f"Central Gaussian, no LDP (sigma "
        f"{fmt(central.privacy['sigma'])}): RMSE {fmt(central.metrics['rmse'])}",
    )
    errors = st.expander("Error map of the ESA reconstruction", key="error_map", on_change="rerun")
    if errors.open:  # drawn only while open
        errors.image(
            runs.error_png(inp, esa_method, spec.eps_c, seed),
            width="stretch",
            output_format="PNG",
            caption="Clipped estimate minus truth: red over, blue under, white exact (full scale = input maximum).",
        )
else:
    log_y = st.toggle("Log scale", value=True, key="log_y", bind="query-params")
    st.plotly_chart(
        histogram_figure(
            hist.counts,
            {"ESA reconstruction": esa.estimate, "central Gaussian": central.estimate},
            labels=hist.labels,
            log_y=log_y,
        ),
        width="stretch",
    )

record = {
    **esa.privacy,
    **esa.metrics,
    "input": hist.name,
    "seed": seed,
    "spec": spec.as_dict(),
    "central": {**central.privacy, **central.metrics},
}
d1, d2, d3 = st.columns(3)
# files are made only when a button is clicked, by functions that hold the view's settings, not its results: a
# function made in this page would keep all of its variables (the runs' estimates) alive until the next rerun
d1.download_button(
    "Reconstruction (PNG)",
    partial(runs.full_png, inp, esa_method, spec.eps_c, seed),
    "reconstruction.png",
    "image/png",
    on_click="ignore",
)
d2.download_button(
    "Estimate (CSV)",
    partial(runs.estimate_csv, inp, esa_method, spec.eps_c, seed),
    "estimate.csv",
    "text/csv",
    on_click="ignore",
)
d3.download_button("Run record (JSON)", partial(to_json, record), "run.json", "application/json", on_click="ignore")
