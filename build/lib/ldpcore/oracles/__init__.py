"""Encodings (frequency oracles). Each module has one small shared shape: an oracle
object built from a Plan with sample_aggregate(counts, rng), randomize(values, rng),
aggregate(reports), estimate(aggregate, n), variance(n), expected_messages() and
bits_per_message; report_log_prob(value, reports) where an exact audit is possible.

To add an encoding: write its module and register it in ENCODINGS with its parameters
(Param), the accountants that hold for its shuffled reports and the alphabet k of one
shuffled channel. The multi-message protocols of seeds/001 are not registered here: they
have no local eps and are calibrated from eps_c by their own analysis (the Multi-message
page, ldpcore.systems.multiparty).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ldpcore.errors import InputError, require
from ldpcore.oracles.direct import GRR
from ldpcore.oracles.fake_reports import MURS, murs_bound
from ldpcore.oracles.hadamard import Hadamard
from ldpcore.oracles.hashing import OLH, SOLH
from ldpcore.oracles.onehot import OneHot
from ldpcore.oracles.sketches import CountMeanSketch, CountSketch, FragmentedSketch, HadamardCountMeanSketch
from ldpcore.oracles.unary import OUE, SUE
from ldpcore.privacy.bounds import ALIASES, BOUNDS, Bound, get_bound


@dataclass(frozen=True)
class Param:
    """A parameter of an encoding: a whole number in [low, high] or one of choices."""

    name: str
    label: str
    default: int | str
    help: str
    low: int | None = None
    high: int | None = None
    choices: tuple = ()

    def check(self, value):
        """The value as the parameter's type, or InputError naming the parameter and its range."""
        require(not isinstance(value, bool), f"{self.label} must not be a boolean (got {value}).")
        if self.choices and isinstance(self.choices[0], str):
            require(value in self.choices, f"{self.label} must be one of {', '.join(self.choices)} (got {value}).")
            return value
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        whole = math.isfinite(number) and number == int(number)
        if self.choices:
            require(
                whole and int(number) in self.choices,
                f"{self.label} must be one of {', '.join(map(str, self.choices))} (got {value}).",
            )
        else:
            require(
                whole and self.low <= number <= self.high,
                f"{self.label} must be a whole number in [{self.low:,}, {self.high:,}] (got {value}).",
            )
        return int(number)


HASH_RANGE = Param(
    "g",
    "hash range g",
    0,
    "Buckets of the local hash; 0 chooses it from eps "
    "(OLH: round(e^eps) + 1; SOLH and MURS on SOLH: the bound's d', near the variance-optimal "
    "(A+2)/3).",
    0,
    2**31 - 1,
)
SKETCH_ROWS = Param(
    "k",
    "hash functions k",
    1024,
    "Rows of the sketch; each respondent reports on one row drawn at random (Apple and seeds/000: 1,024).",
    1,
    4096,
)
SKETCH_WIDTH = Param(
    "m",
    "sketch width m",
    65_536,
    "Cells per row (Apple and seeds/000: 65,536).",
    choices=tuple(2**i for i in range(6, 21)),
)
SKETCH_CELLS = 2**27  # k m: the aggregate table of one run stays below 1 GB
COMBINE = Param(
    "combine",
    "row combination",
    "median",
    "Count sketch: median of the rows' estimates (robust to collisions) or their mean (unbiased).",
    choices=("median", "mean"),
)
SHUFFLERS = Param("r", "shufflers r", 3, "MURS: shufflers in the chain, each adding fake reports.", 1, 100)
FAKES = Param(
    "n_r",
    "fakes per shuffler n_r",
    10_000,
    "MURS: fake reports each shuffler adds (uniform inputs through the respondents' randomizer).",
    0,
    10**9,
)
MURS_BASE = Param(
    "base",
    "respondents' randomizer",
    "solh",
    "MURS: SOLH on a hash range (seeds/003's choice) or GRR on the whole domain.",
    choices=("solh", "grr"),
)


@dataclass(frozen=True)
class Encoding:
    """A registered encoding: its title for people, how a Plan builds its oracle, its
    parameters, the amplification bounds that hold for its shuffled channels and the
    alphabet size k of one channel (what a k-RR bound must be told, None if none).

    certified=False: no bound is known for the reports; the plan then uses the one-hot
    calibration (seeds/000's choice for its fragmented sketch) and eps_c is only the paper's
    lower end (privacy_note). bound(accountant, params) gives the Bound (MURS: one of its
    own); details(plan) adds encoding-specific numbers to the record (d may be None);
    validate(values) checks the parameters together; hidden(values) names the parameters
    that do not apply to these values (a form need not ask for them); eps_limit(d, params)
    is the largest local eps the oracle takes (ldpcore.oracles.limits; d=None: the limit at
    the smallest domain, d = 2, where it depends on d).
    """

    name: str
    title: str
    build: Callable  # (plan, d) -> oracle
    accountants: tuple[str, ...]  # the first is the default
    channel_k: Callable = lambda d, params: None  # (d, params) -> k or None
    neighbouring: str = "replacement"
    fragments: bool = False  # report fragments with a backstop (Algorithm 2) apply
    params: tuple[Param, ...] = ()
    certified: bool = True
    privacy_note: str = ""
    bound: Callable[[str, dict], Bound] = lambda accountant, params: get_bound(accountant)
    details: Callable = lambda plan: {}  # plan -> encoding-specific numbers for the record
    validate: Callable[[dict], None] = lambda values: None
    hidden: Callable[[dict], set] = lambda values: set()
    eps_limit: Callable[[int | None, dict], float] = lambda d, params: math.inf

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def check_params(self, given) -> dict:
        """Every parameter's value (given, else its default); unknown names are refused."""
        given = dict(given or {})
        known = {p.name: p for p in self.params}
        unknown = sorted(set(given) - set(known))
        require(
            not unknown,
            f"the {self.name} encoding has no parameter {', '.join(unknown)}; its parameters: "
            f"{', '.join(known) or 'none'}.",
        )
        values = {name: p.check(given.get(name, p.default)) for name, p in known.items()}
        self.validate(values)
        return values


def _check_range(values: dict) -> None:
    require(values["g"] != 1, "the hash range g must be 0 or >= 2 (got 1).")


def _check_cells(values: dict) -> None:
    cells = values["k"] * values["m"]
    require(cells <= SKETCH_CELLS, f"the sketch k x m = {cells:,} cells exceeds {SKETCH_CELLS:,}; lower k or m.")


def _check_murs(values: dict) -> None:
    _check_range(values)
    require(
        values["base"] != "grr" or not values["g"],
        f"the hash range g applies to MURS on SOLH only, not with base grr (got g={values['g']}).",
    )


# One attribute-fragment channel is binary randomized response (k = 2): the bounds
# for binary RR, for RR-type and for any eps0-LDP randomizer all hold for it.
BINARY_RR_ACCOUNTANTS = (
    "cheu19",
    "esa-thm3.1",
    "tight-binary-rr",
    "efmrtt19",
    "fmt21-closed",
    "fmt21-numeric",
    "stronger-clone",
    "blanket-krr",
    "blanket-hoeffding",
    "blanket-bennett",
)


# Any eps0-LDP randomizer: the generic bounds. GRR is also k-RR (k = d) and RR-type.
GENERIC_ACCOUNTANTS = ("fmt21-numeric", "fmt21-closed", "efmrtt19")
GRR_ACCOUNTANTS = ("stronger-clone", "blanket-krr", "blanket-bennett", "blanket-hoeffding") + GENERIC_ACCOUNTANTS
SKETCH = (SKETCH_ROWS, SKETCH_WIDTH)


def _single(cls, accountants, **kw) -> Encoding:
    """An oracle calibrated from the plan's local eps: cls.from_eps(eps_b, d, **its parameters); its
    eps_limit is cls.largest_eps() unless given."""
    kw.setdefault("eps_limit", lambda d, params: cls.largest_eps())
    return Encoding(
        cls.name,
        cls.title,
        lambda plan, d: cls.from_eps(plan.eps_b, d, **plan.spec.param_dict),
        accountants,
        neighbouring=cls.neighbouring,
        **kw,
    )


def _murs_limit(d, params) -> float:
    """GRR's limit on d values, or OLH's on the hash range (the bound's own range, g = 0, keeps 1 - p near
    1/3 at any eps)."""
    return GRR.largest_eps(d or 2) if params["base"] == "grr" else OLH.largest_eps(params["g"])


def _whole_report(plan) -> dict:
    """The fragmented sketch at the one-hot calibration: seeds/000's range for eps_c, and what a generic
    bound certifies for a respondent's whole report, 2 eps_b-LDP under replacement."""
    generic = get_bound("fmt21-numeric").forward(2 * plan.eps_b, plan.n, plan.spec.delta)
    return {
        "eps_c_range": [plan.eps_c, plan.eps_l_inf],
        "eps_c_whole_report_replacement": generic.eps_c if generic.valid else math.inf,
    }


def _bound_range(plan) -> int:
    """SOLH's (or MURS-on-SOLH's) hash range: the bound's, which is g when given (solh_hash_range)."""
    return plan.amplification.extra["hash_range"]


def _olh_range(plan) -> dict:
    return {} if plan.d is None else {"hash_range": plan.oracle().g}


def _murs_details(plan) -> dict:
    """eps against the server + all other respondents (eps_2) and the server + all shufflers (eps_l)."""
    out = {} if plan.spec.param_dict["base"] == "grr" else {"hash_range": _bound_range(plan)}
    if plan.d is not None:
        privacy = plan.oracle().epsilons(plan.n, plan.spec.delta)
        out.update(
            {
                "eps_vs_server_and_respondents": privacy.eps_users,
                "eps_vs_server_and_shufflers": privacy.eps_shufflers,
                "fake_reports": privacy.hidden_fakes,
            }
        )
    return out


def _murs(plan, d):
    kw = plan.spec.param_dict
    return MURS.from_eps(plan.eps_b, d, kw["r"], kw["n_r"], g=None if kw["base"] == "grr" else _bound_range(plan))


def _murs_alphabet(d, params):
    """k of the MURS bound: d for GRR (needed), else the given hash range or None (the bound picks it)."""
    if params["base"] == "grr":
        require(d is not None, "MURS with base grr needs the domain size d (--domain): its blanket bound uses it.")
        return d
    return params["g"] or None


ENCODINGS: dict[str, Encoding] = {
    e.name: e
    for e in (
        Encoding(
            "onehot",
            "One-hot (k-RAPPOR), attribute fragments",
            lambda plan, d: OneHot(d=d, p_b=plan.p_b, tau=plan.spec.tau, p_f=plan.p_f),
            BINARY_RR_ACCOUNTANTS,
            lambda d, params: 2,
            neighbouring="removal",
            fragments=True,
            eps_limit=lambda d, params: OneHot.largest_eps(),
        ),
        _single(
            GRR, GRR_ACCOUNTANTS, channel_k=lambda d, params: d, eps_limit=lambda d, params: GRR.largest_eps(d or 2)
        ),
        _single(OUE, GENERIC_ACCOUNTANTS),
        _single(SUE, GENERIC_ACCOUNTANTS),
        _single(
            OLH,
            GENERIC_ACCOUNTANTS,
            params=(HASH_RANGE,),
            validate=_check_range,
            details=_olh_range,
            eps_limit=lambda d, params: OLH.largest_eps(params["g"]),
        ),
        Encoding(
            SOLH.name,
            SOLH.title,
            lambda plan, d: SOLH.from_eps(plan.eps_b, d, _bound_range(plan)),
            ("solh",),
            lambda d, params: params["g"] or None,
            params=(HASH_RANGE,),
            validate=_check_range,
            details=lambda plan: {"hash_range": _bound_range(plan)},
            eps_limit=lambda d, params: OLH.largest_eps(params["g"]),
            privacy_note="SOLH (seeds/003 Theorem 3): the k-RR privacy blanket on the hash range d'; with g = 0 "
            "the bound picks d' with eps_l (close to the variance-optimal (A+2)/3).",
        ),
        _single(Hadamard, GENERIC_ACCOUNTANTS),
        Encoding(
            MURS.name,
            MURS.title,
            _murs,
            ("murs",),
            _murs_alphabet,
            params=(SHUFFLERS, FAKES, MURS_BASE, HASH_RANGE),
            validate=_check_murs,
            hidden=lambda values: {"g"} if values.get("base") == "grr" else set(),
            privacy_note="MURS (seeds/003 Theorem 4): eps_c is eps_1 against the server, from the blanket of the "
            "other reports and the fakes; against the server and all other respondents only the "
            "fakes hide a report (eps_2); if every shuffler colludes, eps_l is what is left.",
            bound=lambda accountant, params: murs_bound(params["r"] * params["n_r"]),
            details=_murs_details,
            eps_limit=_murs_limit,
        ),
        _single(
            FragmentedSketch,
            BINARY_RR_ACCOUNTANTS,
            channel_k=lambda d, params: 2,
            params=SKETCH,
            validate=_check_cells,
            certified=False,
            privacy_note=FragmentedSketch.privacy_note,
            details=_whole_report,
        ),
        # one eps_b-LDP report (replacement) per respondent, so the generic bounds certify eps_c: at the Horse's
        # n and eps_c = 1 fmt21-numeric allows eps_l = 9.76, more than seeds/000's one-hot 8.55 for its sketches
        _single(CountMeanSketch, GENERIC_ACCOUNTANTS, params=SKETCH, validate=_check_cells),
        _single(HadamardCountMeanSketch, GENERIC_ACCOUNTANTS, params=SKETCH, validate=_check_cells),
        _single(CountSketch, GENERIC_ACCOUNTANTS, params=SKETCH + (COMBINE,), validate=_check_cells),
    )
}


# every name an accountant may be given by: the registered bounds, their aliases and the encodings' own (murs)
ACCOUNTANT_NAMES = tuple(sorted(set(BOUNDS) | set(ALIASES) | {a for e in ENCODINGS.values() for a in e.accountants}))


def get_encoding(name: str) -> Encoding:
    if name not in ENCODINGS:
        raise InputError(f"unknown encoding {name!r}; choose one of {', '.join(ENCODINGS)}.")
    return ENCODINGS[name]
