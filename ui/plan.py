"""The Plan page's views: the shape input without data (n respondents spread over d values by a uniform, Zipf or
geometric shape; ldpcore.experiment.planning.Shape), the cached planner calls, the table's rows and row links,
and the figures. No privacy logic: every number is an attribute of ldpcore's PlanTable / PlanRow.

A shape's URL value the controls cannot take as given (not a number, not a whole number, not a shape's name)
shows one st.warning naming the parameter and the value used instead; a number out of range shows one st.error
naming the field and its range."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ldpcore.data.datasets import DATASETS
from ldpcore.data.histogram import Histogram
from ldpcore.errors import check_n, check_whole
from ldpcore.experiment import planning as planner
from ldpcore.experiment.planning import Shape, scaled_counts
from ldpcore.experiment.protocol.spec import default_delta
from ldpcore.export.reproduce import Shape as ShapeSource
from ldpcore.oracles import ENCODINGS
from ui.kit import url
from ui.kit.axes import log_ticks, look
from ui.kit.cache import cached
from ui.kit.feedback import input_errors
from ui.kit.inputs import Input

SHAPE = "shape"  # the Plan page's source option for this input
KINDS = ("uniform", "zipf", "geometric")
PARAMETERS = {"zipf": ("Zipf exponent s", "zipf_s", 1.1), "geometric": ("Geometric ratio r", "geometric_r", 0.99)}
MAX_D = 10_000_000  # bins of a shape (the largest bundled input, Map, has 2.8 million)
DEFAULTS = {"n": 10_000_000, "d": 5_000}
UNITS = {"rmse": "raw RMSE per bin", "relative_rmse": "relative RMSE", "linf": "expected l_inf error"}


@cached("results", spinner="Planning...")
def _answer(input_key: str, settings: tuple, _query: planner.PlanQuery) -> planner.PlanTable:
    return planner.answer(_query)


def table(
    inp: Input,
    solve: str,
    eps_c: float | None,
    target: tuple[str, float] | None,
    delta: tuple[float, str],
    notion: str,
    encodings: list[str],
    constraints: tuple[float | None, float | None],
    rule: str,
    delta_with_n: bool,
    rounds: int = 1,
    postprocess: str | None = None,
) -> tuple[planner.PlanQuery, planner.PlanTable]:
    """The planner's question for the page's settings and its answer, cached on the input's key and the settings:
    solve "error" at eps_c, or the smallest "eps_c" or "n" that meets the target; delta and how it was chosen
    (planner.DELTA_FROM); constraints (messages, bits; None: no limit); the rule of the recommendation; whether
    delta follows n (solving for n); rounds: collections from the same respondents, eps_c their total;
    postprocess: rank on each row's simulated error after it (the table at eps_c only)."""
    settings = (
        solve,
        eps_c,
        target,
        delta,
        notion,
        tuple(encodings),
        constraints,
        rule,
        delta_with_n,
        rounds,
        postprocess,
    )
    query = planner.PlanQuery(
        inp.hist.counts,
        inp.hist.name,
        delta[0],
        delta_from=delta[1],
        eps_c=None if solve == "eps_c" else eps_c,
        target=None if target is None else planner.Target(*target),
        solve="table" if solve == "error" else solve,
        notion=notion,
        rounds=rounds,
        encodings=tuple(encodings),
        constraints=planner.Constraints(*constraints),
        rule=rule,
        delta_with_n=delta_with_n and solve == "n",
        postprocess=postprocess,
    )
    return query, _answer(inp.key, settings, query)


def delta_source(inp: Input, typed: bool) -> str:
    """How the page's delta was chosen (planner.DELTA_FROM): typed, a bundled dataset's own (the paper's), or the
    default of about 1/(10 n) (uploads, records, shapes)."""
    if typed:
        return "given"
    return "the dataset's" if inp.values.get("dataset") in DATASETS else "about 1/(10 n)"


@cached("results", spinner="Drawing the error curves...")
def _curve(input_key: str, _hist: Histogram, encoding, accountant, params, eps_cs, delta, kind, notion, rounds):
    return planner.error_curve(_hist.counts, encoding, accountant, eps_cs, delta, kind, notion, params, rounds)


def curve(inp: Input, row: planner.PlanRow, eps_cs: tuple, kind: str) -> list:
    return _curve(
        inp.key, inp.hist, row.encoding, row.accountant, row.params, eps_cs, row.delta, kind, row.notion, row.rounds
    )


def _up(x: float) -> float:
    """x rounded up to 6 significant digits (as {:g} writes it): the link's eps_c certifies at least the row's
    eps_l, and reads as a person types it."""
    text = f"{x:g}"
    if float(text) < x:
        digits = 5 - math.floor(math.log10(abs(x)))
        text = f"{math.ceil(x * 10**digits) / 10**digits:g}"
    return float(text)


def typed(x: float) -> str:
    """A delta as a person types it: 12 significant digits, so 2 x 3e-05 = 6.000000000000001e-05 reads 6e-05."""
    return f"{x:.12g}"


PAGES = {"reconstruct": "app_pages/reconstruct.py", "tradeoffs": "app_pages/tradeoffs.py"}


def link(row: planner.PlanRow, data: Mapping[str, object], page: str = "reconstruct") -> dict[str, object] | None:
    """The controls of Reconstruct or Trade-offs (page, a key of PAGES) that open the row there, by key: the data
    as chosen on Plan (`data`: ui.kit.inputs.Input.values) and the row's encoding, parameters and accountant at the
    accountant's own eps_c and delta for one channel and one collection (eps_c_native, delta_native), so the same
    eps_l; report fragments off; on Reconstruct, the post-processing the table ranks on (its Post-processing
    control). None where the row has no configuration (it says why)."""
    spec = row.spec
    if spec is None or spec.eps_c is None or row.eps_c_native is None:
        return None
    values: dict[str, object] = {**data, "encoding": spec.encoding, "accountant": str(spec.accountant)}
    delta = spec.delta if row.delta_native is None else row.delta_native
    values |= {"eps_c": _up(row.eps_c_native), "delta": typed(delta)}
    if ENCODINGS[spec.encoding].fragments:  # the page's fragments switch is drawn for this encoding only
        values["fragments"] = spec.tau is not None
    if spec.tau is not None:
        values["tau"] = spec.tau
    values |= dict(spec.params)
    if page == "reconstruct" and row.postprocess is not None:  # Reconstruct's Post-processing control
        values["postprocess"] = row.postprocess
    return values


def _num(x, digits: int = 4):
    return None if x is None else float(f"{x:.{digits}g}")


def topk_words(table: planner.PlanTable) -> str:
    """Which k the table's top-k recall uses, in words."""
    ks = sorted({r.topk for r in table.rows if r.topk is not None})
    if not ks:
        return "none here: " + planner.NO_TOPK.removeprefix("no top-k recall: ")
    return "k = " + " to ".join(dict.fromkeys(str(k) for k in (ks[0], ks[-1])))


def row_label(rank: int, row: planner.PlanRow) -> str:
    """A row as the table's rank column and the row chooser name it."""
    return f"{rank if row.ranked else 'not ranked'}: {row.encoding} / {row.accountant}"


def rows(table: planner.PlanTable) -> list[dict]:
    """One dict per row for st.dataframe (numbers, not strings, so the columns sort; the rank column says
    "not ranked" where the row is not ranked, and which row is recommended; Pareto: on the Pareto set)."""
    out = []
    for rank, r in enumerate(table.rows, 1):
        record = {
            "rank": (f"{rank}" if r.ranked else "not ranked") + (" ★" if r is table.recommended else ""),
            "Pareto": r.pareto,
            "encoding": r.encoding,
            "accountant": r.accountant,
            "certified": r.certified and not r.error,
            "eps_c": _num(r.eps_c),
            "n": r.n,
            f"eps_l ({table.notion})": _num(r.eps_l_replacement if table.notion == "replacement" else r.eps_l),
            "eps_l (native)": _num(r.eps_l),
            "native notion": r.local_neighbouring,
            "eps_l_1 (one message)": _num(r.eps_l if r.eps_l_1 is None else r.eps_l_1),  # one report: eps_l
            "messages": _num(r.messages),
            "bits / message": r.bits_per_message,
            "bits / respondent": _num(r.bits_per_respondent),
            "RMSE": _num(r.rmse),
            "95% CI +-": _num(r.ci95),
            **_postprocessed_columns(table, r),
            "relative RMSE": _num(r.relative_rmse),
            "l_inf": _num(r.linf),
            "top-k recall": _num(r.topk_recall, 3),
            "RMSE without shuffler": _num(r.rmse_local_only),
            "conversion": r.conversion,
            "over hash draws": _tail_words(r),
            "why not ranked": r.reason,
        }
        out.append(record)
    return out


def _postprocessed_columns(table: planner.PlanTable, r: planner.PlanRow) -> dict:
    """The simulated RMSE after the table's post-processing, its standard error and the per-bin errors' percentile
    interval (none without a post-processing)."""
    if table.postprocess is None:
        return {}
    sim = r.postprocessed
    name = table.postprocess
    return {
        f"RMSE after {name} (simulated)": None if sim is None else _num(sim.rmse),
        "std error": None if sim is None else _num(sim.std_error, 2),
        "per-bin errors, 95% (simulated)": None if sim is None else f"[{sim.interval[0]:.4g}, {sim.interval[1]:.4g}]",
    }


def _tail_words(r: planner.PlanRow) -> str:
    """How a heavy-tailed sketch row's error spreads over hash draws, in a few words ("" where it does not)."""
    t = r.hash_tail
    if t is None:
        return ""
    if t.median is None or t.q95 is None:
        return f"heavy-tailed (MSE varies {t.cv:.2g}x its mean; not simulated)"
    return f"heavy-tailed: median run {t.median:.2g}x, 95th percentile {t.q95:.2g}x the RMSE"


def compact_columns(table: planner.PlanTable) -> list[str]:
    """The columns of rows() that fit the page at 1280 px (the others are a toggle away; with a post-processing,
    the RMSE after it and its standard error too)."""
    eps_l = f"eps_l ({table.notion})"
    posted = [] if table.postprocess is None else [f"RMSE after {table.postprocess} (simulated)", "std error"]
    return ["rank", "Pareto", "encoding", "accountant", "eps_c", eps_l, "messages", "bits / respondent", "RMSE",
            *posted, "RMSE without shuffler", "why not ranked"]  # fmt: skip


def csv_text(table: planner.PlanTable) -> str:
    """Every field of every row (ldpcore's as_dict), one CSV line each."""
    records = [r.as_dict() for r in table.rows]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(records[0]))
    writer.writeheader()
    for record in records:
        writer.writerow({k: v if not isinstance(v, dict | list) else str(v) for k, v in record.items()})
    return buffer.getvalue()


def _pareto_front(rows) -> list[tuple[float, float]]:
    """(bits per respondent, the RMSE the table ranks on) of the ranked rows that no ranked row beats on both,
    cheapest first."""
    points = sorted(
        (r.bits_per_respondent, r.ranked_rmse)
        for r in rows
        if r.ranked and r.ranked_rmse is not None and r.bits_per_respondent
    )
    front: list[tuple[float, float]] = []
    for bits, rmse in points:
        if not front or rmse < front[-1][1]:
            front.append((bits, rmse))
    return front


def pareto_figure(table: planner.PlanTable, unit: str) -> go.Figure:
    """The RMSE the table ranks on (predicted raw, or simulated after its post-processing) against bits per
    respondent, one point per valid row; the Pareto front (no certified row is both cheaper and more accurate)
    drawn as a line."""
    valid = [r for r in table.rows if r.ranked_rmse is not None and r.bits_per_respondent]
    fig = go.Figure()
    for i, name in enumerate(dict.fromkeys(r.encoding for r in valid)):
        mine = [r for r in valid if r.encoding == name]
        series = look(i)
        fig.add_trace(
            go.Scatter(
                x=[r.bits_per_respondent for r in mine],
                y=[r.ranked_rmse for r in mine],
                mode="markers",
                name=name,
                marker=dict(color=series.color, size=9, symbol=[series.symbol if r.ranked else "x" for r in mine]),
                text=[f"{r.encoding} / {r.accountant}" for r in mine],
                hovertemplate="%{text}<br>%{x:.4g} bits, RMSE %{y:.4g}<extra></extra>",
            )
        )
    front = _pareto_front(table.rows)
    fig.add_trace(
        go.Scatter(
            x=[bits for bits, _ in front],
            y=[rmse for _, rmse in front],
            mode="lines",
            line=dict(color="black", dash="dot"),
            name="Pareto front (certified)",
        )
    )
    fig.update_layout(
        title="Predicted error against communication (x: not ranked)",
        xaxis_title="bits per respondent",
        yaxis_title=f"predicted raw RMSE ({unit})"
        if table.postprocess is None
        else f"simulated RMSE after {table.postprocess} ({unit})",
        height=440,
        margin=dict(l=10, r=10, t=50, b=10),
    )
    log_ticks(fig, "x")  # labelled in plain numbers, minor ticks unlabelled
    log_ticks(fig, "y")
    return fig


def curves_figure(curves: dict, eps_cs, kind: str, target: float | None, current: float | None) -> go.Figure:
    """Predicted error against eps_c for the top rows; the target as a horizontal line when solving."""
    fig = go.Figure()
    for i, (label, values) in enumerate(curves.items()):
        y = [np.nan if v is None else v for v in values]
        series = look(i)
        fig.add_trace(
            go.Scatter(
                x=list(eps_cs),
                y=y,
                mode="lines+markers",
                name=label,
                line=dict(color=series.color, dash=series.dash, width=series.width),
                marker=dict(symbol=series.symbol, size=6),
            )
        )
    if target is not None:
        fig.add_hline(y=target, line_dash="dash", line_color="red", name=f"target {target:g}", showlegend=True)
    if current is not None:
        fig.add_vline(
            x=current, line_dash="dot", line_color="gray", name=f"ε<sub>c</sub> = {current:g}", showlegend=True
        )
    fig.update_layout(
        title=f"Predicted {UNITS[kind]} against ε<sub>c</sub>",
        xaxis_title="central ε<sub>c</sub>",
        yaxis_title=UNITS[kind],
        height=440,
        margin=dict(l=10, r=10, t=50, b=10),
    )
    log_ticks(fig, "x")
    log_ticks(fig, "y")
    return fig


@cached("data", spinner="Spreading n over the shape...")
def _histogram(kind: str, parameter: float | None, n: int, d: int) -> Histogram:
    shape = Shape(kind, parameter)
    return Histogram(scaled_counts(shape.weights(d), n), f"{shape} (n={n:,}, d={d:,})")


def _taken(text: str | None, value) -> bool:
    """Whether the URL's text (None: not in the URL) is the value the control holds."""
    try:
        return text is None or float(text) == float(value)
    except ValueError:
        return False


def shape_sidebar() -> Input:
    """Draw the shape controls in the sidebar; the Input of n respondents spread over d values by the shape
    (whole counts by largest remainders, delta about 1/(10 n)). Bad input: one st.error, and the page stops."""
    raw = {key: st.query_params.get(key) for key in ("n", "d", SHAPE, *(p[1] for p in PARAMETERS.values()))}
    bad = []  # (key, what it should be, the value used) where the control did not take the URL's value as given
    with st.sidebar:
        st.header("Shape without data")
        values = {}
        for key, label in (("n", "Respondents n"), ("d", "Domain size d (values)")):
            values[key] = st.number_input(label, value=DEFAULTS[key], step=1, key=key, bind="query-params")
            if not _taken(raw[key], values[key]):
                bad.append((key, "a whole number", f"{values[key]:,}"))
        kind = st.selectbox(
            "Shape",
            KINDS,
            index=1,
            key=SHAPE,
            bind="query-params",
            help="uniform: every value equally likely; zipf: the i-th value in proportion to i^-s; geometric: in "
            "proportion to r^i.",
        )
        if raw[SHAPE] not in (None, kind):
            bad.append((SHAPE, f"one of {', '.join(KINDS)}", kind))
        parameter = None
        if kind in PARAMETERS:
            label, key, default = PARAMETERS[kind]
            parameter = float(st.number_input(label, value=default, format="%g", key=key, bind="query-params"))
            if not _taken(raw[key], parameter):
                bad.append((key, "a number", f"{parameter:g}"))
        for key, what, used in bad:
            st.warning(f"The URL's {key}={url.shown(str(raw[key]))} is not {what}: using {key} = {used}.")
            url.warned(key)
    with input_errors():
        n = check_n(values["n"])
        d = check_whole(values["d"], 2, "the domain size d", MAX_D)
        hist = _histogram(kind, parameter, n, d)
    source = ShapeSource(kind, parameter, n, d)
    return Input(hist, f"{SHAPE}:{kind}:{parameter}:{n}:{d}", default_delta(n), source=source)
