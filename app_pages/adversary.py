"""What an adversary learns: empirical lower bounds by each observer beside the certified upper bounds, the
guessing risk in words, and one respondent followed through the protocol."""

from functools import partial

import streamlit as st

from ldpcore.experiment.audit import one_in
from ldpcore.export import fmt
from ldpcore.export.reproduce import AdversaryView
from ldpcore.export.view_records import adversary_record
from ui import adversary
from ui.adversary import attack_figure, bounds_figure, guess_figure
from ui.kit import runs
from ui.kit.format import plain
from ui.kit.inputs import data_sidebar
from ui.kit.protocol import protocol_sidebar
from ui.kit.take_home import take_home


def _record(inp, spec, report, draw: int) -> dict:
    """The page's record: the audit and the respondent of the draw (None where it cannot be drawn)."""
    demo = adversary.demonstration(inp, spec, draw)
    return adversary_record(report, draw, None if isinstance(demo, str) else demo)


OBSERVER_NAMES = {
    "server": "Server without a shuffler",
    "shuffler": "One captured shuffler",
    "analyst": "Analyst after shuffling",
}

st.title("What an adversary learns")
st.caption(
    "Every eps elsewhere is an upper bound certified by an accountant. Here attacks are run many times: their "
    "error rates give a lower bound that no (eps, delta) guarantee below it allows (Jagielski, Ullman, Oprea, "
    "Auditing differentially private machine learning: how private is private SGD?, NeurIPS 2020). A lower bound "
    "from one attack is not a proof of privacy; a lower bound above a certified bound would be a bug."
)
inp = data_sidebar()
spec, seed, _ = protocol_sidebar(inp.delta)
hist = inp.hist

c1, c4 = st.columns([3, 2])  # the segmented controls get room for every option at 1280 px
c2, c3 = st.columns([3, 2])
observer = c1.segmented_control(
    "Observer",
    ["all", "server", "shuffler", "analyst"],
    default="all",
    required=True,
    key="adv_observer",
    bind="query-params",
    help="server: no shuffler, one respondent's whole report; shuffler: one captured shuffler, one fragment; "
    "analyst: the shuffled aggregate of all n respondents.",
)
trials = c2.select_slider(
    "Trials per hypothesis",
    [10_000, 100_000, 1_000_000, 10_000_000],
    value=1_000_000,
    key="adv_trials",
    bind="query-params",
    help="More trials see rarer events: at 0.95 confidence no error rate below about 7.4 / T can be "
    "certified, so 10^6 trials show at most eps of about 11.8.",
)
confidence = c3.select_slider("Confidence", [0.9, 0.95, 0.99], value=0.95, key="adv_confidence", bind="query-params")
axes = c4.segmented_control(
    "Curve axes",
    ["auto", "linear", "log"],
    default="auto",
    required=True,
    key="adv_axes",
    bind="query-params",
    help="auto: log axes where the certified eps is above 2 (the attack's errors are then tiny), else linear.",
)

report = adversary.audit(inp, spec, observer, trials, confidence, seed)
if isinstance(report, str):
    st.error(report)
    st.stop()
plan = report.plan
st.caption(
    f"{plain(report.data)}: n = {plan.n:,} respondents over d = {plan.d:,} values; {plan.spec.encoding}, "
    f"eps_c = {fmt(plan.eps_c)} ({plan.spec.accountant}), delta = {plan.spec.delta:g}, eps_l_inf = "
    f"{fmt(plan.eps_l_inf)}, eps_l_1 = {fmt(plan.eps_l_1)}; attack seed {report.seed}."
)
for skipped in report.skipped:
    st.info(f"Not audited: {skipped}.")

# --- lower against upper, per observer ---------------------------------------------------------------------------
st.subheader("Certified eps beside what an attack shows")
cols = st.columns(len(report.observers))
for col, o in zip(cols, report.observers):
    upper = "n/a" if o.eps_upper.eps is None else fmt(o.eps_upper.eps)
    col.metric(
        o.observer,
        f"{fmt(o.eps_lower)} / {upper}",
        delta=f"lower / certified ({o.eps_upper.name})",
        delta_color="off",
        delta_arrow="off",
        help=f"{OBSERVER_NAMES[o.observer]}. Sees {o.sees}. Empirical eps lower bound at {o.confidence:g} "
        f"confidence from {o.trials:,} trials per hypothesis, and the certified bound {o.eps_upper.name}.",
    )
    unsound = o.exceeds()
    if unsound:
        st.warning(
            f"{o.observer}: the lower bound {fmt(o.eps_lower)} exceeds the certified "
            + ", ".join(f"{c.name} ({fmt(c.eps)})" for c in unsound)
            + f": at {o.confidence:g} confidence that bound does not hold here (a bug in the accountant)."
        )
st.table(  # static: every column within the page at 1280 px; what each observer sees: the metrics' help
    [
        {
            "observer": OBSERVER_NAMES[o.observer],
            f"eps lower ({o.confidence:g})": fmt(o.eps_lower),
            "certified eps": "n/a" if o.eps_upper.eps is None else f"{fmt(o.eps_upper.eps)} ({o.eps_upper.name})",
            "gap": "n/a" if o.gap is None else fmt(o.gap),
            "exact eps of the pair": "not known: no exact law of this statistic"
            if o.eps_pair is None
            else fmt(o.eps_pair),
            "best test fpr / fnr": f"{o.best[0]:.3g} / {o.best[1]:.3g}",
            "trials / hypothesis": f"{o.trials:,}",
        }
        for o in report.observers
    ],
    border="horizontal",
    hide_index=True,
)
st.plotly_chart(bounds_figure(list(report.observers)), width="stretch")
analyst = next((o for o in report.observers if o.observer == "analyst"), None)
if analyst is not None:
    invalid = [c for c in analyst.certified if not c.valid]
    st.caption(
        f"The analyst's pair: {analyst.hypotheses.rstrip('.')}; the other respondents: {analyst.others.rstrip('.')}. "
        + (
            "Accountants that do not apply here: " + "; ".join(f"{c.name} ({c.reason})" for c in invalid) + ". "
            if invalid
            else ""
        )
        + "The gap between lower and upper bound is mostly the trials: eps at a small delta is decided by events "
        "of probability near delta, which a million trials cannot see."
    )

# --- the trade-off curves -------------------------------------------------------------------------------------------
st.subheader("The attacks' trade-off curves")
st.caption(
    "Each point is a test (a threshold on the statistic the target moves): how often it says 'the target is in' "
    "when it is not (false positive) against how often it misses (false negative). A certified (eps, delta) "
    "forbids the shaded region; the closer an attack gets to it, the tighter the bound."
)
tabs = st.tabs([OBSERVER_NAMES[o.observer] for o in report.observers])
for tab, o in zip(tabs, report.observers):
    log_axes = axes == "log" or (axes == "auto" and (o.eps_upper.eps or 0.0) > 2)
    tab.plotly_chart(attack_figure(o, log_axes), width="stretch", key=f"curve_{o.observer}")
    tab.caption(
        f"Hypotheses: {o.hypotheses.rstrip('.')}. Statistic: {o.statistic.rstrip('.')}. Neighbouring: {o.neighbouring}."
    )

# --- risk in words --------------------------------------------------------------------------------------------------
st.subheader("Guessing risk: how often would each observer guess a person's value?")
risk = report.risk
st.caption(
    f"A person's value drawn from the data's own distribution ({plain(risk.prior_from)}); the other respondents "
    f"known to the observer, as differential privacy assumes. Guessing the most common value alone is right "
    f"{one_in(risk.baseline)} times."
)
cols = st.columns(len(risk.risks))
for col, r in zip(cols, risk.risks):
    col.metric(
        f"{r.observer} guesses right",
        one_in(r.p_correct) if r.p_correct is not None else "n/a",
        delta=f"allowed: at most {one_in(r.certified_at_most)}",
        delta_color="off",
        delta_arrow="off",
        help=r.note or None,
    )
st.markdown("\n".join(f"- {r.sentence}" for r in risk.risks))

# --- the guess demonstration ----------------------------------------------------------------------------------------
st.subheader("Guess the respondent's value")


def _next_draw():
    st.session_state["adv_draw"] = int(st.session_state.get("adv_draw", 0)) + 1


d1, d2 = st.columns([1, 3])
draw = int(d1.number_input("Respondent draw", 0, 2**31 - 1, 0, key="adv_draw", bind="query-params"))
if inp.source is not None:  # the view as code; the respondent's draw is made when the record is asked for
    view = AdversaryView(inp.source, spec, seed, observer, int(trials), float(confidence), draw)
    take_home(view, "adversary", partial(_record, inp, spec, report, draw))
d2.button("Draw another respondent", on_click=_next_draw)
demo = adversary.demonstration(inp, spec, draw)
if isinstance(demo, str):
    st.error(demo)
    st.stop()


def label(v):
    if v is None:
        return "no guess"
    if hist.shape is not None:  # an image: v is a pixel
        row, col = divmod(int(v), hist.shape[1])
        return f"pixel ({col}, {row})"
    return str(hist.labels[v]) if hist.labels is not None else f"value {v}"


def observed(view) -> str:
    s = view.summary
    if "ones" in s:
        ones = s["ones"]
        if ones and isinstance(ones[0], list):
            return f"{len(ones)} fragments with {sum(len(f) for f in ones):,} bits set in all"
        return f"{len(ones):,} bits set: " + ", ".join(label(v) for v in ones[:4]) + (" ..." if len(ones) > 4 else "")
    if "bit" in s:
        return f"the bit of {label(s['bin'])}: {int(s['bit'])}"
    if "count_at_value" in s:
        return f"{s['total']:,} shuffled messages, {s['count_at_value']:,} of them for the true value"
    report_value = s.get("report")
    if isinstance(report_value, int):
        return f"reports {label(report_value)}"
    return str(report_value)[:80]


st.markdown(
    f"Respondent #{draw} holds **{plain(label(demo.value))}** (drawn from the data's distribution). Guessing the "
    f"most common value, {plain(label(demo.baseline_guess))}, would be "
    f"{'right' if demo.baseline_guess == demo.value else 'wrong'}. The others: {demo.others}."
)
st.dataframe(
    [
        {
            "observer": OBSERVER_NAMES[v.observer],
            "guess": label(v.guess) if v.posterior is not None else f"— ({v.note})",
            "right?": None if v.correct is None else ("yes" if v.correct else "no"),
            "P(guess)": None if v.posterior is None else float(v.posterior[v.guess]),
            "P(true value)": None if v.posterior is None else float(v.posterior[demo.value]),
            "observed": observed(v),
        }
        for v in demo.views
    ],
    hide_index=True,
    width="stretch",
)
if hist.shape is not None:  # an image: the guesses as marks on it
    marks = [("true pixel", demo.value, "circle-open")] + [
        (f"{v.observer}'s guess", v.guess, "x") for v in demo.views if v.guess is not None
    ]
    st.plotly_chart(guess_figure(runs.original_png(inp), hist.shape, marks), width="stretch", key="guess_image")
