"""The sidebar's protocol section (Reconstruct, Trade-offs, Report table, Adversary): encoding and its
parameters, fragments, eps_c, delta, accountant, seed -> ProtocolSpec; and the columns a page compares.

Every control is bound to the URL (bind="query-params"), so a URL reproduces a view. What each encoding offers
(its parameters, whether it fragments, its accountants) is read from ldpcore's registry, never by name.
"""

from __future__ import annotations

from typing import NamedTuple

import streamlit as st

from ldpcore.experiment.protocol.postprocess import METHODS as POSTPROCESS
from ldpcore.experiment.protocol.spec import ProtocolSpec
from ldpcore.oracles import ENCODINGS, Encoding, Param
from ldpcore.privacy.fragments import EPS_F_RULES
from ui.kit.controls import central_delta_input, delta_or_default, eps_c_slider, seed_input
from ui.kit.feedback import input_errors
from ui.kit.navigation import remember, restore

TAUS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 1024)
RULE_HELP = (
    "paper: eps_f = eps_b - ln(tau) (reproduces Table IV where eps_b - ln tau >= 2.5); "
    "equal-variance: the fragment layer adds as much variance as the backstop; manual: your eps_f."
)


# the protocol controls' keys besides the encodings' parameters: a URL naming any of them sets the protocol
KEYS = ("encoding", "eps_c", "delta", "fragments", "tau", "rule", "eps_f", "accountant", "seed")


class Protocol(NamedTuple):
    """What the protocol sidebar chose: the spec, the seed, and the spec's eps_c as a number (a ProtocolSpec may
    hold an eps_l instead; the sidebar always chooses eps_c)."""

    spec: ProtocolSpec
    seed: int
    eps_c: float


def param_control(param: Param) -> int | str:
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
        value=int(param.default),  # a parameter without choices is a whole number
        key=param.name,
        bind="query-params",
        help=param.help,
    )


def _encoding_controls() -> tuple[Encoding, dict[str, int | str]]:
    """The encoding and the values of its parameters that apply (e.g. MURS on GRR has no hash range)."""
    encoding = ENCODINGS[st.selectbox("Encoding", list(ENCODINGS), key="encoding", bind="query-params")]
    st.caption(encoding.title)
    params: dict[str, int | str] = {}
    for p in encoding.params:
        if p.name not in encoding.hidden(params):
            params[p.name] = param_control(p)
    return encoding, params


def _fragment_controls(encoding: Encoding, show_tau: bool) -> tuple[int | None, str, float | None]:
    """tau (None: attribute fragments or an encoding without fragments), the eps_f rule and a manual eps_f."""
    fragments = encoding.fragments and (
        not show_tau
        or st.toggle("Report fragments with a backstop (Algorithm 2)", key="fragments", bind="query-params")
    )
    tau, rule, eps_f = None, "paper", None
    if fragments and show_tau:
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
    return tau, rule, eps_f


def protocol_sidebar(
    default_delta: float, show_eps_c: bool = True, show_tau: bool = True, eps_c_container=None
) -> Protocol:
    """Draw the protocol controls; on an invalid combination show st.error and stop. show_eps_c=False,
    show_tau=False: pages that choose eps_c or tau themselves (rows, sweeps, columns) do not show those controls
    (the spec then holds eps_c = 1 and no tau; the eps_f rule is still shown, for the page's tau columns).
    eps_c_container: where the eps_c control goes instead of the sidebar (Reconstruct: beside what each party
    learns). The controls' values are carried to the next page of the session (ui.kit.navigation)."""
    restore("protocol", KEYS + tuple(p.name for e in ENCODINGS.values() for p in e.params))
    with st.sidebar:
        st.header("Protocol")
        encoding, params = _encoding_controls()
        eps_c = eps_c_slider(container=eps_c_container or st) if show_eps_c else 1.0
        delta_text = central_delta_input(default_delta)
        tau, rule, eps_f = _fragment_controls(encoding, show_tau)
        accountant = st.selectbox(
            "Accountant",
            encoding.accountants,
            key="accountant",
            bind="query-params",
            help="Only the bounds that hold for this encoding's reports; the first is the default."
            if encoding.certified
            else "No bound is known for these reports: eps_l is calibrated "
            "as for one-hot reports at eps_c (the paper's choice), which does NOT certify eps_c.",
        )
        st.caption(encoding.bound(accountant, params).title)
        seed = seed_input("seed")
    values: dict[str, object] = {"encoding": encoding.name, **params, "delta": delta_text, "accountant": accountant}
    values["seed"] = seed
    values |= {"eps_c": eps_c} if show_eps_c else {}
    values |= {"fragments": tau is not None} | ({"tau": tau} if tau is not None else {}) if show_tau else {}
    values |= {"rule": rule} | ({"eps_f": eps_f} if eps_f is not None else {}) if encoding.fragments else {}
    remember("protocol", values, part=True)
    with input_errors():
        spec = ProtocolSpec(
            eps_c=eps_c,
            delta=delta_or_default(delta_text, default_delta),
            encoding=encoding.name,
            tau=tau,
            eps_f_rule=rule,
            eps_f=eps_f,
            accountant=accountant,
            params=params,
        )
    return Protocol(spec, seed, eps_c)


POSTPROCESS_HELP = (
    "What the analyst knows beyond the reports, applied to the raw (unbiased) estimate: "
    + "; ".join(f"{name}: {m.title} ({m.citation})" for name, m in POSTPROCESS.items())
    + ". The raw estimate's RMSE stays in the caption. ibu and mle need the encoding's law of its support counts "
    "(a sketch or report fragments have none; ibu needs reports that each name one value: GRR, MURS on GRR)."
)


def postprocess_control(container=None, key: str = "postprocess") -> str | None:
    """The post-processing of the estimate a page shows (None: the raw estimate, clipped to [0, input maximum] as
    the paper's RMSE), bound to ?postprocess= (the Plan page's row links carry it; another page's key: key)."""
    choice = (container or st.sidebar).selectbox(
        "Post-processing",
        ["none", *POSTPROCESS],
        key=key,
        bind="query-params",  # the options are the short names: a bound widget writes the displayed option
        help="none: the raw estimate (its picture and RMSE clipped to [0, input maximum]). " + POSTPROCESS_HELP,
    )
    return None if choice == "none" else choice


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
