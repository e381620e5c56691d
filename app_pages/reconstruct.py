"""Reconstruct: the data, the protocol, and what each party learns: the same reports without a shuffler,
shuffled (ESA), and the central baseline, side by side."""

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial

import streamlit as st

from ldpcore.experiment.protocol.advice import impractical
from ldpcore.experiment.protocol.postprocess import METHODS as POSTPROCESS
from ldpcore.experiment.protocol.run import Method
from ldpcore.export import fmt
from ldpcore.export.reproduce import ReconstructView
from ldpcore.oracles import ENCODINGS
from ldpcore.oracles.extras import FakeReports, HashRange, UncertifiedRange
from ldpcore.privacy.bounds import BoundName
from ldpcore.privacy.guarantee import Neighbouring
from ldpcore.privacy.notions import Seen, local_on_notion, notions_differ
from ui import reconstruct
from ui.kit import runs
from ui.kit.format import EPS, PARTY_HELP, eps_label, exact, plain, short, with_exact
from ui.kit.inputs import data_sidebar
from ui.kit.protocol import postprocess_control, protocol_sidebar
from ui.kit.take_home import take_home

st.title("Reconstruct")
inp = data_sidebar()
hist = inp.hist
head = st.container()  # the data's caption, filled once the spec is known
control, *party = st.columns([1.3, 1, 1.35, 1.45])  # the eps_c control beside what each party learns
spec, seed, eps_c = protocol_sidebar(inp.delta, eps_c_container=control)
post = postprocess_control()
shown = st.container()  # the three reconstructions (or the histogram view)
*costs, switch = st.columns([1, 1, 1, 1.4])  # messages, RMSE, largest error, and the notion of the epsilons
native = ENCODINGS[spec.encoding].neighbouring
notion = (
    "replacement"
    if switch.toggle(
        "Compare as replacement LDP",
        value=notions_differ([native, Neighbouring.ZERO_OUT]),  # the central baseline is zero-out (a count removed)
        key="replacement",
        bind="query-params",
        help="Restate every ε under replacement (change one respondent's value), by ldpcore's conversion: the "
        "one-hot report's central ε through its accountant's two changed channels, its whole report's local ε "
        "doubled (one message's kept), the Gaussian's noise at sensitivity √2. On by default when the encoding's "
        f"notion ({native}) differs from the central baseline's (zero-out). The native value stays in each tooltip.",
    )
    else "native"
)

# everything is computed (or fetched from the shared caches) first, then drawn in one burst: the browser
# renders the page once per step instead of once per element that waited for a computation
esa_method, central_method = Method("ESA", spec, postprocess=post), Method("Central Gaussian", spec, central=True)
# the central baseline and the run without a shuffler (and, for images, their pictures) are independent of the ESA
# run: two threads make them meanwhile (numpy releases the GIL while drawing), into the same shared caches
pool = ThreadPoolExecutor(runs.WORKERS)
try:
    cells = [
        pool.submit(runs.cell, inp, central_method, eps_c, seed),
        pool.submit(reconstruct.local_cell, inp, Method("ESA", spec), eps_c, seed),
    ]
    pictures = (
        [
            pool.submit(reconstruct.local_png, inp, Method("ESA", spec), eps_c, seed),
            pool.submit(runs.cell_png, inp, central_method, eps_c, seed),
        ]
        if hist.is_image
        else []
    )
    esa = runs.cell(inp, esa_method, eps_c, seed)
    if esa.error:
        st.error(esa.error)
        st.stop()
    pngs = (  # images at display resolution; the downloads below are at the input's
        [
            runs.original_png(inp),
            pictures[0].result(),
            runs.cell_png(inp, esa_method, eps_c, seed),
            pictures[1].result(),
        ]
        if hist.is_image
        else []
    )
    central, alone = cells[0].result(), cells[1].result()
finally:
    pool.shutdown(wait=False, cancel_futures=True)  # after st.stop: what runs finishes into the caches
p, m = runs.plan_of(esa), runs.ran(esa).metrics
encoding = ENCODINGS[spec.encoding]
TIGHT = BoundName.TIGHT_BINARY_RR
show_tight = spec.accountant != TIGHT and TIGHT in encoding.accountants and encoding.certified
unit = hist.unit  # gray levels per pixel, respondents per category, per cell of a grid, ...

head.caption(
    f"{plain(hist.name)}: n = {hist.n:,} respondents over d = {hist.d:,} values"
    + (f" ({hist.shape[1]}x{hist.shape[0]} px)" if hist.shape is not None else "")
    + f"; δ = {spec.delta:g}; seed {seed}; {p.neighbouring} neighbours ({encoding.title})."
)
# an accountant valid only up to some eps_l certifies less than asked (capped): said above the pictures, and the
# reports without a shuffler drawn at the certified eps_c, the one the ESA run has
capped = p.certified and p.amplification.capped
alone_at = p.eps_c if capped else eps_c
if capped:  # the comparisons at the certified eps_c too (cached runs)
    alone, central = (
        reconstruct.local_cell(inp, esa_method, alone_at, seed),
        runs.cell(inp, central_method, alone_at, seed),
    )
    if hist.is_image:
        pngs[1] = reconstruct.local_png(inp, esa_method, alone_at, seed)
        pngs[3] = runs.cell_png(inp, central_method, alone_at, seed)
    for note in (n for n in p.notes if "asked for" in n):
        head.warning(
            f"{note} Every number below, the reports without a shuffler and the central baseline are at the certified "
            f"ε_c = {p.eps_c:.4g}."
        )
alone_run = None if alone.error else runs.ran(alone)
central_run = runs.ran(central)

# what each party learns: the strip beside the eps_c control; eps_l_1 collapses into eps_l_inf when they agree
fragments = p.spec.tau is not None
one_number = exact(p.eps_l_inf) == exact(p.eps_l_1)
view = reconstruct.on_notion(p, notion)
eps = {"eps_l_inf": view.eps_l_inf, "eps_l_1": view.eps_l_1, "eps_c": view.eps_c}


def _chip(key: str, words: str) -> str:
    """The metric's caption: whom it is about, or the native value where the switch restated it."""
    e = eps[key]
    return f"{e.native_neighbouring} {short(e.native_eps)}, restated" if e.converted else words


def _help(key: str, text: str) -> str:
    e = eps[key]
    said = (
        f" Shown under replacement; natively {e.native_neighbouring}: {exact(e.native_eps)} ({e.conversion})."
        if e.converted
        else f" {e.neighbouring.capitalize()} LDP."
    )
    return with_exact(text + said, e.eps)


backstop = f" Backstop ε_b = {exact(p.eps_b)}, fragment ε_f = {exact(p.eps_f)} (Algorithm 2)." if fragments else ""
metrics = [
    (
        eps_label("eps_l_inf"),
        short(eps["eps_l_inf"].eps),
        _chip("eps_l_inf", "= per captured shuffler" if one_number else "server without shuffler"),
        _help("eps_l_inf", PARTY_HELP["eps_l_inf"] + (" " + PARTY_HELP["eps_l_1"] if one_number else "") + backstop),
    )
]
if not one_number:
    metrics.append(
        (
            eps_label("eps_l_1"),
            short(eps["eps_l_1"].eps),
            _chip("eps_l_1", "one fragment"),
            _help("eps_l_1", PARTY_HELP["eps_l_1"] + backstop),
        )
    )
metrics.append(
    (
        eps_label("eps_c"),
        short(eps["eps_c"].eps),
        _chip("eps_c", "certified" if encoding.certified else "NOT certified"),
        _help("eps_c", PARTY_HELP["eps_c"] + f" At δ = {short(eps['eps_c'].delta or spec.delta)}."),
    )
)
metrics.append(
    (
        "messages per phone",
        short(m["expected_messages"]),
        f"{p.bits_per_message:,} bits each",
        with_exact("Expected anonymous messages per respondent (one-hot: one per set bit).", m["expected_messages"]),
    )
)
shown_as = "after clipping the estimate to [0, input maximum]" if post is None else f"after {POSTPROCESS[post].title}"
metrics.append(
    (
        "clipped RMSE" if post is None else "RMSE",
        short(m["rmse"]),
        unit if post is None else f"{unit}, {post}",
        with_exact(
            f"Per-bin RMSE in {unit}, {shown_as}. Largest per-bin error (l_inf): {exact(m['linf'])} "
            f"{hist.count_unit}. The raw (unbiased) estimate's RMSE is in the caption below.",
            m["rmse"],
            unit,
        ),
    )
)
# the costs row beneath the images: messages, RMSE, largest error
metrics.append(
    (
        "largest error",
        short(m["linf"]),
        hist.count_unit,
        with_exact("Largest per-bin error (l_inf) of the clipped estimate.", m["linf"], hist.count_unit),
    )
)


def _draw(columns, rows) -> None:
    for col, (label, value, note, help_text) in zip(columns, rows):
        col.metric(label, value, delta=note, delta_color="off", delta_arrow="off", help=help_text)


n_party = 3 if not one_number else 2
_draw(party, metrics[:n_party])

alone_eps = (  # the same encoding without a shuffler at eps_l = the eps_c it is drawn at (capped: the certified one)
    local_on_notion(alone_at, p.neighbouring, "native" if p.spec.notion == notion else notion, Seen.REPORT)
    if capped
    else view.no_shuffler
)
central_eps = reconstruct.central_on_notion(central, notion)
if hist.is_image:  # output_format: sent as made (else Streamlit decodes each grey PNG and re-encodes it as a JPEG)
    columns = shown.columns(4)
    captions = (
        "Original",
        (
            f"No shuffler, ε_l = {short(alone_eps.eps)}: clipped RMSE {short(alone_run.metrics['rmse'])}"
            if alone_run is not None
            else alone.error
        ),
        f"ESA, shuffled{'' if post is None else ', ' + post}: {'clipped RMSE' if post is None else 'RMSE'} "
        f"{short(m['rmse'])}",
        f"Central Gaussian, no LDP, {central_eps.neighbouring} ε_c = {short(central_eps.eps)}"
        + (
            f" (natively {central_eps.native_neighbouring} {short(central_eps.native_eps)})"
            if central_eps.converted
            else ""
        )
        + f": clipped RMSE {short(central_run.metrics['rmse'])}",
    )
    for column, png, caption in zip(columns, pngs, captions):
        if png is not None:
            column.image(png, caption=caption, width="stretch", output_format="PNG")
        else:
            column.caption(caption)
else:
    with shown:
        drawn = reconstruct.histogram_view(
            hist,
            {
                "ESA reconstruction": (  # a post-processed estimate has no analytic band: none drawn
                    runs.ran(esa).estimate,
                    None if post is not None else reconstruct.bin_std_of(inp, esa_method, eps_c),
                ),
                f"no shuffler at {EPS}_l = {short(alone_eps.eps)}": (
                    None if alone_run is None else alone_run.estimate,
                    None,
                ),
            },
            central=central_run.estimate,
            key="reconstruct",
        )

_draw(costs, metrics[n_party:])
for warning in impractical(hist.n, spec.delta, m["expected_messages"]):
    st.warning(warning)
said = [n for n in p.notes if n != encoding.privacy_note and not (capped and "asked for" in n)]  # not said above
for note in list(hist.notes) + said:
    st.info(plain(note, None))  # a data note may quote the data's values
if alone_run is not None and alone_run.privacy["note"]:
    st.caption(f"No-shuffler image: {alone_run.privacy['note']}.")

if p.certified:
    guarantee = f"Certified central ε_c = {p.eps_c:.4g} by {p.amplification.citation}."
else:
    if isinstance(p.extras, UncertifiedRange):  # the fragmented sketch: the paper's range, not a bound
        low, high = p.extras.eps_c_range
        st.warning(
            f"ε_c is NOT certified for {p.spec.encoding} reports: the ESA paper (Erlingsson et al., 2020, Section III) "
            f"gives no amplification bound for them and runs them at the one-hot ε_l of ε_c = {low:.4g}, placing "
            "the central guarantee only "
            f"between {low:.4g} and ε_l = {high:.4g}. Treated as one 2 ε_l-LDP report per respondent, "
            f"a generic bound certifies ε_c = {short(p.extras.eps_c_whole_report.or_inf)} (replacement)."
        )
    guarantee = f"ε_l calibrated as for one-hot reports by {p.amplification.citation}."
extra = []
if isinstance(p.extras, HashRange | FakeReports) and p.extras.hash_range is not None:
    extra.append(f"hash range g = {p.extras.hash_range:,}")
if isinstance(p.extras, FakeReports):
    users = p.extras.eps_vs_server_and_respondents
    extra.append(
        f"{p.extras.fake_reports:,} fake reports; ε vs the server + all other respondents = "
        + (short(users.value) if users.valid else "∞ (too few fakes for the blanket bound)")
        + f", vs the server + all shufflers = {short(p.extras.eps_vs_server_and_shufflers)}"
    )
raw, raw_note = runs.analytic_rmse_of(esa)
analytic = f"analytic {short(raw)}" if not raw_note else f"analytic approximation {short(raw)}: {raw_note}"
st.caption(
    f"{guarantee} {'; '.join(extra) + '. ' if extra else ''}Raw RMSE {short(m['rmse_raw'])} {unit} "
    f"({analytic}); largest error {short(m['linf'])}; total variation {m['tv']:.4f}"
    + (f"; PSNR {m['psnr']:.2f} dB" if "psnr" in m else "")
    + f". Central baseline: analytic Gaussian, σ = {short(central_run.privacy['sigma'])}."
)

# the tight accountant's comparison costs a second run and two exact solves (seconds at n = 1e7): made only while
# its expander is open, as the error map below
tight_box = st.expander("What the tight accountant buys", key="tight_box", on_change="rerun") if show_tight else None
if tight_box is not None and tight_box.open:
    tight = runs.cell(inp, Method("ESA, tight accountant", replace(spec, accountant=TIGHT)), eps_c, seed)
    same = reconstruct.certified_eps_c(inp, spec, p.eps_b, TIGHT)  # what the tight accountant certifies for the reports
    same_reports = (
        same
        if isinstance(same, str)
        else (
            f"- **Same reports** (ε_b = {fmt(p.eps_b)}): they satisfy ε_c = **{same:.3g}**, "
            f"not {p.eps_c:.3g}, at δ = {spec.delta:g}."
        )
    )
    with tight_box:
        st.markdown(
            tight.error
            or (
                f"- **Same ε_c = {eps_c:g}**: the exact privacy curve of shuffled binary RR allows "
                f"ε_l = **{fmt(runs.plan_of(tight).eps_l_inf)}** instead of {fmt(p.eps_l_inf)}, for an RMSE of "
                f"**{fmt(runs.ran(tight).metrics['rmse'])}** instead of {fmt(m['rmse'])} {unit} (same seed).\n"
                + same_reports
            )
        )

methods = st.expander("The ESA run after every post-processing", key="every_method", on_change="rerun")
if methods.open:  # the cached run post-processed by each method: no new simulation, made only while open
    methods.dataframe(reconstruct.every_method(inp, esa_method, eps_c, seed), hide_index=True, width="stretch")
    methods.caption(
        f"Per-bin errors in {unit} of this run's estimate after each method (seed {seed}); the raw estimate is "
        "unbiased, the others are not, and trade that bias for less error. Citations: the Post-processing "
        "control's help."
    )

if hist.is_image:
    errors = st.expander("Error map of the ESA reconstruction", key="error_map", on_change="rerun")
    if errors.open:  # drawn only while open
        errors.image(
            reconstruct.error_png(inp, esa_method, eps_c, seed),
            width="stretch",
            output_format="PNG",
            caption="Clipped estimate minus truth: red over, blue under, white exact (full scale = input maximum).",
        )

d1, d2, d3 = st.columns(3)
# files are made only when a button is clicked, by functions that hold the view's settings, not its results: a
# function made in this page would keep all of its variables (the runs' estimates) alive until the next rerun
d1.download_button(
    "Reconstruction (PNG)",
    partial(reconstruct.full_png, inp, esa_method, eps_c, seed),
    "reconstruction.png",
    "image/png",
    on_click="ignore",
)
d2.download_button(
    "Estimate (CSV)",
    partial(reconstruct.estimate_csv, inp, esa_method, eps_c, seed),
    "estimate.csv",
    "text/csv",
    on_click="ignore",
)
d3.download_button(
    "Run record (JSON)",
    partial(reconstruct.record_json, inp, esa_method, eps_c, seed),
    "run.json",
    "application/json",
    on_click="ignore",
)
if inp.source is not None:  # the view as code: its script and notebook print run.json's numbers
    as_code = (
        ReconstructView(inp.source, spec, seed, postprocess=post)
        if hist.is_image
        else ReconstructView(inp.source, spec, seed, drawn.top_k, drawn.log_y, drawn.view, False, post)
    )
    take_home(as_code, "reconstruct", None)
