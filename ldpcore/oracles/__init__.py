"""Encodings (frequency oracles): one contract (ldpcore.oracles.base.FrequencyOracle), one
module per family, one registry (ENCODINGS).

To add an encoding: write its module, a class implementing CalibratedOracle (name, title,
neighbouring, randomizer family, from_eps(eps, d) and the FrequencyOracle methods), and add
one line ``single(MyOracle)`` to ENCODINGS (with params=... if it takes parameters). The
accountants that hold for it follow from its randomizer family and the bounds' own
declarations (ldpcore.privacy.bounds.accountants_for). The multi-message protocols of Ghazi,
Golowich, Kumar, Pagh and Velingker (On the power of multiple anonymous messages, 2021) are
not registered here: they have no local eps and are calibrated from eps_c by their own
analysis (the Multi-message page, ldpcore.systems.multiparty).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ldpcore.errors import InputError, check_eps, require
from ldpcore.oracles.base import CalibratedOracle, FrequencyOracle
from ldpcore.oracles.direct import GRR
from ldpcore.oracles.extras import FakeReports, HashRange, PlanExtras, UncertifiedRange
from ldpcore.oracles.fake_reports import MURS, murs_bound
from ldpcore.oracles.hadamard import Hadamard
from ldpcore.oracles.hashing import OLH, SOLH
from ldpcore.oracles.laws import Unsupported
from ldpcore.oracles.limits import too_large
from ldpcore.oracles.onehot import OneHot, flip_probability
from ldpcore.oracles.sketches import CountMeanSketch, CountSketch, FragmentedSketch, HadamardCountMeanSketch
from ldpcore.oracles.unary import OUE, SUE
from ldpcore.privacy.bounds import ALIASES, BOUNDS, Bound, BoundName, Randomizer, accountants_for, get_bound
from ldpcore.privacy.guarantee import Guarantee, Neighbouring

# A plan is an ldpcore.experiment.protocol.spec.Plan (a layer above: typed Any here)
Plan = Any


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
            low, high = self.low or 0, self.high if self.high is not None else math.inf
            require(
                whole and low <= number <= high,
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
    "Rows of the sketch; each respondent reports on one row drawn at random (Apple and Erlingsson et al. 2020: 1,024).",
    1,
    4096,
)
SKETCH_WIDTH = Param(
    "m",
    "sketch width m",
    65_536,
    "Cells per row (Apple and Erlingsson et al. 2020: 65,536).",
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
    "MURS: SOLH on a hash range (T. Wang et al. 2019's choice) or GRR on the whole domain.",
    choices=("solh", "grr"),
)


@dataclass(frozen=True)
class Encoding:
    """A registered encoding: its title for people, how a Plan builds its oracle, its randomizer family
    (the accountants that hold for it follow from it: accountants_for), its parameters and the alphabet
    size k of one shuffled channel (what a k-RR bound must be told, None if none).

    own_bound: the encoding brings its own bound (MURS: bound(accountant, params) builds it for its
    fakes), the only accountant offered. certified=False: no bound is known for the reports; the plan
    then uses the one-hot calibration (the ESA paper's choice for its fragmented sketch) and eps_c is
    only the paper's lower end (privacy_note). extras(plan) computes the family's own plan numbers, a
    typed ldpcore.oracles.extras object or None (hash range, the MURS adversaries, the sketch's eps_c
    range; d may be None); validate(values) checks the parameters together; hidden(values) names the
    parameters that do not apply to these values (a form need not ask for them); eps_limit(d, params) is
    the largest local eps the oracle takes (ldpcore.oracles.limits; d=None: the limit at the smallest
    domain, d = 2, where it depends on d).

    Two capabilities for protocols without a shuffler: at_eps(eps_l, d, params), the oracle of one
    report per respondent at local eps_l (Unsupported, with the reason, where the encoding's parameters
    come from its shuffle bound: oracle_at); stand_in(params), the (encoding name, parameters) that
    runs in its place without a shuffler (None: the encoding itself; without_shuffler).
    """

    name: str
    title: str
    build: Callable[[Plan, int], FrequencyOracle]
    randomizer: Randomizer
    channel_k: Callable[[int | None, dict], int | None] = lambda d, params: None
    neighbouring: Neighbouring = Neighbouring.REPLACE_ONE
    fragments: bool = False  # report fragments with a backstop (Algorithm 2) apply
    params: tuple[Param, ...] = ()
    certified: bool = True
    privacy_note: str = ""
    own_bound: BoundName | None = None
    bound_fn: Callable[[str, dict], Bound] = lambda accountant, params: get_bound(accountant)
    extras: Callable[[Plan], PlanExtras | None] = lambda plan: None
    validate: Callable[[dict], None] = lambda values: None
    hidden: Callable[[dict], set] = lambda values: set()
    eps_limit: Callable[[int | None, dict], float] = lambda d, params: math.inf
    at_eps: Callable[[float, int, dict], FrequencyOracle] | Unsupported = Unsupported(
        "the encoding states no oracle at a given local eps"
    )
    stand_in: Callable[[dict], tuple[str, dict]] | None = None

    @property
    def accountants(self) -> tuple[str, ...]:
        """The bounds that hold for this encoding's shuffled channels; the first is the default."""
        names = (self.own_bound,) if self.own_bound is not None else accountants_for(self.randomizer)
        return tuple(str(name) for name in names)

    def bound(self, accountant: str, params: dict) -> Bound:
        """The Bound of an accountant for these parameters (an encoding's own bound is built for them)."""
        return self.bound_fn(accountant, params)

    @property
    def fixed_by_eps(self) -> bool:
        """Whether the oracle is fixed by its local eps and parameters alone (at_eps is supported), whatever
        the accountant and n."""
        return not isinstance(self.at_eps, Unsupported)

    def oracle_at(self, eps_l: float, d: int, params: dict) -> FrequencyOracle:
        """The oracle of one report per respondent at local eps_l on d values (params checked); InputError
        where the encoding has none (the reason) or eps_l exceeds eps_limit."""
        if isinstance(self.at_eps, Unsupported):
            raise InputError(f"{self.title}: {self.at_eps.reason}.")
        limit = self.eps_limit(d, params)
        require(eps_l <= limit, too_large(f"{self.title} on d={d:,} values", eps_l, limit, "eps_l"))
        return self.at_eps(check_eps(eps_l, "eps_l"), d, params)

    def without_shuffler(self, params: dict) -> tuple[Encoding, dict]:
        """The encoding (and its checked parameters) that runs in this one's place without a shuffler."""
        if self.stand_in is None:
            return self, self.check_params(params)
        name, given = self.stand_in(params)
        other = get_encoding(name)
        return other, other.check_params(given)

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


def single(cls: type[CalibratedOracle], **kw) -> Encoding:
    """The registry entry of an oracle class calibrated from the plan's local eps alone:
    cls.from_eps(eps_b, d, **its parameters), with its name, title, neighbouring relation and
    randomizer family; eps_limit is cls.largest_eps() unless given. Adding an encoding is one
    module with such a class and one line ``single(MyOracle)`` in ENCODINGS."""
    kw.setdefault("eps_limit", lambda d, params: cls.largest_eps())  # type: ignore[attr-defined]

    def at_eps(eps: float, d: int, params: dict) -> FrequencyOracle:
        return cls.from_eps(eps, d, **params)

    return Encoding(
        cls.name,
        cls.title,
        lambda plan, d: at_eps(plan.eps_b, d, plan.spec.param_dict),
        cls.randomizer,
        neighbouring=cls.neighbouring,
        at_eps=at_eps,
        **kw,
    )


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


SKETCH = (SKETCH_ROWS, SKETCH_WIDTH)
NO_BOUND_RANGE = "its hash range (and fakes) come from its shuffle bound, so it has no oracle at a local eps alone"


def _murs_limit(d, params) -> float:
    """GRR's limit on d values, or OLH's on the hash range (the bound's own range, g = 0, keeps 1 - p near
    1/3 at any eps)."""
    return GRR.largest_eps(d or 2) if params["base"] == "grr" else OLH.largest_eps(params["g"])


def _whole_report(plan: Plan) -> UncertifiedRange:
    """The fragmented sketch at the one-hot calibration: the ESA paper's range for eps_c (Erlingsson et
    al. 2020, Table III), and what a generic bound certifies for a respondent's whole report,
    2 eps_b-LDP under replacement."""
    generic = get_bound(BoundName.FMT21_NUMERIC).forward(2 * plan.eps_b, plan.n, plan.spec.delta)
    return UncertifiedRange((plan.eps_c, plan.eps_l_inf), generic.guarantee)


def _bound_range(plan: Plan) -> int:
    """SOLH's (or MURS-on-SOLH's) hash range: the bound's, which is g when given (solh_hash_range)."""
    return plan.amplification.extra["hash_range"]


def _olh_range(plan: Plan) -> HashRange | None:
    return None if plan.d is None else HashRange(plan.oracle().g)


def _murs_extras(plan: Plan) -> PlanExtras | None:
    """eps against the server + all other respondents (eps_2) and the server + all shufflers (eps_l)
    (T. Wang et al. 2019, Theorem 4); without d only the hash range (on SOLH)."""
    hash_range = None if plan.spec.param_dict["base"] == "grr" else _bound_range(plan)
    if plan.d is None:
        return None if hash_range is None else HashRange(hash_range)
    privacy = plan.oracle().epsilons(plan.n, plan.spec.delta)
    users = (
        Guarantee(privacy.eps_users, BoundName.MURS, privacy.neighbouring, privacy.delta)
        if math.isfinite(privacy.eps_users)
        else Guarantee.invalid(
            BoundName.MURS,
            privacy.neighbouring,
            privacy.delta,
            f"{privacy.hidden_fakes:,} fake reports are too few for the blanket bound against the server "
            "and all other respondents.",
        )
    )
    return FakeReports(hash_range, privacy.hidden_fakes, users, privacy.eps_shufflers)


def _murs(plan: Plan, d: int) -> MURS:
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
            OneHot.name,
            OneHot.title,
            lambda plan, d: OneHot(d=d, p_b=plan.p_b, tau=plan.spec.tau, p_f=plan.p_f),
            OneHot.randomizer,
            lambda d, params: 2,
            neighbouring=OneHot.neighbouring,
            fragments=True,
            eps_limit=lambda d, params: OneHot.largest_eps(),
            at_eps=lambda eps, d, params: OneHot(d=d, p_b=flip_probability(eps)),
        ),
        single(GRR, channel_k=lambda d, params: d, eps_limit=lambda d, params: GRR.largest_eps(d or 2)),
        single(OUE),
        single(SUE),
        single(
            OLH,
            params=(HASH_RANGE,),
            validate=_check_range,
            extras=_olh_range,
            eps_limit=lambda d, params: OLH.largest_eps(params["g"]),
        ),
        Encoding(
            SOLH.name,
            SOLH.title,
            lambda plan, d: SOLH.from_eps(plan.eps_b, d, _bound_range(plan)),
            SOLH.randomizer,
            lambda d, params: params["g"] or None,
            params=(HASH_RANGE,),
            validate=_check_range,
            extras=lambda plan: HashRange(_bound_range(plan)),
            eps_limit=lambda d, params: OLH.largest_eps(params["g"]),
            at_eps=Unsupported(NO_BOUND_RANGE),
            stand_in=lambda params: (OLH.name, {}),
            privacy_note="SOLH (T. Wang et al. 2019, Theorem 3): the k-RR privacy blanket on the hash range d'; with "
            "g = 0 the bound picks d' with eps_l (close to the variance-optimal (A+2)/3).",
        ),
        single(Hadamard),
        Encoding(
            MURS.name,
            MURS.title,
            _murs,
            MURS.randomizer,
            _murs_alphabet,
            params=(SHUFFLERS, FAKES, MURS_BASE, HASH_RANGE),
            validate=_check_murs,
            hidden=lambda values: {"g"} if values.get("base") == "grr" else set(),
            privacy_note="MURS (T. Wang et al. 2019, Theorem 4): eps_c is eps_1 against the server, from the blanket "
            "of the other reports and the fakes; against the server and all other respondents only the "
            "fakes hide a report (eps_2); if every shuffler colludes, eps_l is what is left.",
            own_bound=BoundName.MURS,
            bound_fn=lambda accountant, params: murs_bound(params["r"] * params["n_r"]),
            extras=_murs_extras,
            eps_limit=_murs_limit,
            at_eps=Unsupported(NO_BOUND_RANGE),
            stand_in=lambda params: (GRR.name if params["base"] == GRR.name else OLH.name, {}),
        ),
        single(
            FragmentedSketch,
            channel_k=lambda d, params: 2,
            params=SKETCH,
            validate=_check_cells,
            certified=False,
            privacy_note=FragmentedSketch.privacy_note,
            extras=_whole_report,
        ),
        # one eps_b-LDP report (replacement) per respondent, so the generic bounds certify eps_c: at the Horse's
        # n and eps_c = 1 fmt21-numeric allows eps_l = 9.76, more than the ESA paper's one-hot 8.55 for its sketches
        single(CountMeanSketch, params=SKETCH, validate=_check_cells),
        single(HadamardCountMeanSketch, params=SKETCH, validate=_check_cells),
        single(CountSketch, params=SKETCH + (COMBINE,), validate=_check_cells),
    )
}


DEFAULT_ENCODING = OneHot.name  # the ESA paper's

# every name an accountant may be given by: the registered bounds, their aliases and the encodings' own (murs)
ACCOUNTANT_NAMES = tuple(
    sorted({str(name) for name in BOUNDS} | set(ALIASES) | {str(a) for e in ENCODINGS.values() for a in e.accountants})
)


def get_encoding(name: str) -> Encoding:
    if name not in ENCODINGS:
        raise InputError(f"unknown encoding {name!r}; choose one of {', '.join(ENCODINGS)}.")
    return ENCODINGS[name]
