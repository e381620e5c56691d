"""The sidebar's protocol section: encoding, fragments, eps_c, delta, accountant, seed -> ProtocolSpec.

Every control is bound to the URL (bind="query-params"), so a URL reproduces a view.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from ldpcore.errors import InputError, check_delta
from ldpcore.experiment.spec import ProtocolSpec
from ldpcore.oracles import ENCODINGS, Param
from ldpcore.privacy.fragments import EPS_F_RULES
from ui.controls import seed_input
from ui.feedback import input_errors

PAPER_EPS = (0.05, 0.25, 0.5, 0.75, 1.0)
# eps_c on a log scale from 0.001 to 10 (three significant digits), plus the paper's values
EPS_GRID = sorted({float(f"{x:.3g}") for x in np.logspace(-3, 1, 81)} | set(PAPER_EPS))
TAUS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 1024)
RULE_HELP = (
    "paper: eps_f = eps_b - ln(tau) (reproduces Table IV where eps_b - ln tau >= 2.5); "
    "equal-variance: the fragment layer adds as much variance as the backstop; manual: your eps_f."
)


EPS_RANGE = (0.001, 10.0)  # eps_c the controls accept (nats)


def _nearest(grid, value: float) -> float:
    """The grid value closest to value on a log scale (where the quick-move slider sits)."""
    return min(grid, key=lambda g: abs(np.log(g / value)))


def eps_c_slider(label: str = "Central epsilon eps_c", key: str = "eps_c", container=st, default: float = 1.0) -> float:
    """The central epsilon: a box taking any value in EPS_RANGE exactly, bound to ?<key>=, with a log-scale
    slider beneath it for quick moves (key <key>_log, not in the URL: it follows the box). A URL value that is
    not a number in range shows one warning naming the parameter, and the default is used."""
    lo, hi = EPS_RANGE
    raw = st.query_params.get(key)  # before the box: Streamlit drops an invalid bound value silently
    log_key = f"{key}_log"

    def from_slider() -> None:
        st.session_state[key] = float(st.session_state[log_key])

    value = float(
        container.number_input(
            label,
            min_value=lo,
            max_value=hi,
            value=default,
            step=0.1,
            format="%g",
            key=key,
            bind="query-params",
            help=f"Any value from {lo:g} to {hi:g} nats; type it, or move the slider below (log scale).",
        )
    )
    st.session_state[log_key] = _nearest(EPS_GRID, value)  # the slider follows the box
    container.select_slider(
        f"{label}, quick moves (log scale)",
        options=EPS_GRID,
        key=log_key,
        on_change=from_slider,
        format_func=lambda e: f"{e:g}",
        label_visibility="collapsed",
    )
    if raw is not None and not _in_range(raw, lo, hi):
        container.warning(
            f"The URL's {key}={raw!r} is not a number from {lo:g} to {hi:g}: using the default {key} = {default:g}."
        )
    return value


def _in_range(text: str, lo: float, hi: float) -> bool:
    try:
        return lo <= float(text) <= hi
    except ValueError:
        return False


def parse_delta(text: str, example: str) -> float:
    """A delta typed as text; anything but a number strictly between 0 and 1 shows st.error and stops."""
    with input_errors(f"delta must be a number strictly between 0 and 1, such as {example} (got {text!r})."):
        return check_delta(text)


def param_control(param: Param):
    """One encoding parameter, bound to ?<name>= (a name means the same thing in every encoding)."""
    if param.choices:
        return st.selectbox(
            param.label,
            param.choices,
            index=param.choices.index(param.default),
            key=param.name,
            bind="query-params",
            help=param.help,
        )
    return st.number_input(
        param.label,
        min_value=param.low,
        max_value=param.high,
        value=param.default,
        key=param.name,
        bind="query-params",
        help=param.help,
    )


def protocol_sidebar(
    default_delta: float, eps_c: bool = True, fragments: bool = True, eps_c_container=None
) -> tuple[ProtocolSpec, int]:
    """Draw the protocol controls; on an invalid combination show st.error and stop. eps_c=False, fragments=False:
    pages that choose eps_c or tau themselves (rows, sweeps, columns) do not show those controls (the spec then
    holds eps_c = 1 and no tau; the eps_f rule is still shown, for the page's tau columns). eps_c_container:
    where the eps_c control goes instead of the sidebar (Reconstruct: beside what each party learns)."""
    show_eps_c, show_fragments = eps_c, fragments
    with st.sidebar:
        st.header("Protocol")
        encoding = st.selectbox("Encoding", list(ENCODINGS), key="encoding", bind="query-params")
        st.caption(ENCODINGS[encoding].title)
        params = {}
        for p in ENCODINGS[encoding].params:
            if p.name not in ENCODINGS[encoding].hidden(params):  # e.g. MURS on GRR has no hash range
                params[p.name] = param_control(p)
        eps_c = eps_c_slider(container=eps_c_container or st) if show_eps_c else 1.0
        delta_text = st.text_input(
            "Central delta",
            key="delta",
            bind="query-params",
            placeholder=f"{default_delta:g} (default for this data)",
            help="Leave empty for the paper's delta of the bundled dataset (uploads: about 1/(10 n)).",
        )
        fragments = ENCODINGS[encoding].fragments and (
            not show_fragments
            or st.toggle("Report fragments with a backstop (Algorithm 2)", key="fragments", bind="query-params")
        )
        tau, rule, eps_f = None, "paper", None
        if fragments and show_fragments:
            tau = int(
                st.number_input(
                    "tau: report fragments per respondent",
                    min_value=1,
                    max_value=4096,
                    value=16,
                    key="tau",
                    bind="query-params",
                )
            )
        if fragments:
            rule = st.radio("eps_f rule", EPS_F_RULES, key="rule", bind="query-params", horizontal=True, help=RULE_HELP)
            if rule == "manual":
                eps_f = float(
                    st.number_input(
                        "eps_f", min_value=0.001, max_value=50.0, value=2.0, step=0.1, key="eps_f", bind="query-params"
                    )
                )
        chosen = ENCODINGS[encoding]
        accountant = st.selectbox(
            "Accountant",
            chosen.accountants,
            key="accountant",
            bind="query-params",
            help="Only the bounds that hold for this encoding's reports; the first is the default."
            if chosen.certified
            else "No bound is known for these reports: eps_l is calibrated "
            "as for one-hot reports at eps_c (the paper's choice), which does NOT certify eps_c.",
        )
        st.caption(chosen.bound(accountant, params).title)
        seed = seed_input("seed")
    with input_errors():
        text = delta_text.strip()
        try:
            delta = float(text) if text else default_delta
        except ValueError:
            raise InputError(f"delta must be a number such as 1e-8 (got {text!r}).") from None
        spec = ProtocolSpec(
            eps_c=eps_c,
            delta=delta,
            encoding=encoding,
            tau=tau,
            eps_f_rule=rule,
            eps_f=eps_f,
            accountant=accountant,
            params=params,
        )
    return spec, seed


def compare_control(container, spec: ProtocolSpec, key: str) -> list[str]:
    """Other encodings to add as columns (their default parameters and accountant), bound to ?<key>=."""
    others = [name for name in ENCODINGS if name != spec.encoding]
    return container.multiselect(
        "Compare with encodings",
        others,
        key=key,
        bind="query-params",
        help="Each at its default parameters and accountant. Sketches at 1,024 x 65,536 take a few seconds per point.",
    )


def taus_control(container, spec: ProtocolSpec, key: str) -> list[int]:
    """The report-fragment tau columns (one-hot only), sorted, bound to ?<key>=."""
    return sorted(
        container.multiselect(
            "Report fragments tau",
            TAUS,
            default=[4, 16, 256],
            key=key,
            bind="query-params",
            disabled=not ENCODINGS[spec.encoding].fragments,
            help="One-hot only (Algorithm 2).",
        )
    )
