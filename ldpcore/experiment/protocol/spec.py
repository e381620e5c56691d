"""A protocol from a plain, serialisable spec: encoding + fragmentation + accountant.

``plan(spec, n, d)`` turns (eps_c or eps_l, delta, tau, rules) into every privacy number
the paper reports (Erlingsson, Feldman, Mironov, Raghunathan, Song, Talwar, Thakurta,
Encode, Shuffle, Analyze Privacy Revisited, 2020, Tables I, IV, VIII, IX): eps_b and eps_f,
the local guarantees eps_l_inf and eps_l_1 (Theorem IV.1), the central eps_c certified by
the accountant, the expected messages per respondent and the encoding's own numbers (hash
range, MURS adversaries, the fragmented sketch's eps_c range), each a typed field of Plan.
"""

from __future__ import annotations

import copy
import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ldpcore.errors import MAX_D, MAX_EPS, MAX_TAU, InputError, check_delta, check_eps, check_n, check_whole, require
from ldpcore.oracles import DEFAULT_ENCODING, get_encoding
from ldpcore.oracles.base import FrequencyOracle
from ldpcore.oracles.extras import PlanExtras
from ldpcore.oracles.limits import too_large
from ldpcore.oracles.onehot import flip_probability
from ldpcore.privacy.bounds import Amplification, Bound, get_bound
from ldpcore.privacy.fragments import EPS_F_RULES, choose_eps_f, eps_of_t
from ldpcore.privacy.guarantee import Guarantee, Neighbouring
from ldpcore.privacy.notions import COMPOSED, NOTIONS, OnNotion, Seen, channels, local_on_notion
from ldpcore.privacy.rounds import MAX_ROUNDS, Rounds, collection_bound, rounds_at


def default_delta(n: int) -> float:
    """A delta for data without one of its own: about 1/(10 n), rounded down to one
    significant digit (the paper's datasets use 5e-8 at n = 1.9 million)."""
    x = 0.1 / n
    mag = 10.0 ** math.floor(math.log10(x))
    return float(int(x / mag) * mag)


@dataclass(frozen=True)
class ProtocolSpec:
    """What to run. Exactly one of eps_c (central target) and eps_l (local eps_b) is set.

    tau=None: attribute fragments only (Algorithm 1); tau >= 1: report fragments with a
    backstop (Algorithm 2), eps_f from eps_f_rule ('paper', 'equal-variance', 'manual').
    notion: of eps_c, 'native' (the encoding's own relation) or 'replacement' (a zero-out encoding through the
    two changed channels, ldpcore.privacy.notions); rounds: eps_c (at delta) is the total over this many
    collections from the same respondents, eps_l the local eps of each (ldpcore.privacy.rounds).
    """

    eps_c: float | None = 1.0
    delta: float = 5e-8
    tau: int | None = None
    eps_f_rule: str = "paper"
    eps_f: float | None = None
    accountant: str | None = None  # None: the encoding's default (one-hot: cheu19, the paper's)
    encoding: str = DEFAULT_ENCODING
    eps_l: float | None = None
    params: Any = ()  # the encoding's parameters: a dict or (name, value) pairs; stored as sorted pairs
    notion: str = "native"
    rounds: int = 1

    def __post_init__(self):
        require((self.eps_c is None) != (self.eps_l is None), "give exactly one of eps_c and eps_l.")
        if self.eps_c is not None:
            check_eps(self.eps_c, "eps_c", MAX_EPS)
        if self.eps_l is not None:
            check_eps(self.eps_l, "eps_l", MAX_EPS)
        check_delta(self.delta)
        require(self.notion in NOTIONS, f"the notion must be one of {', '.join(NOTIONS)} (got {self.notion!r}).")
        object.__setattr__(self, "rounds", check_whole(self.rounds, 1, "rounds", MAX_ROUNDS))
        if self.tau is not None:
            object.__setattr__(self, "tau", check_whole(self.tau, 1, "tau (report fragments)", MAX_TAU))
        require(self.eps_f_rule in EPS_F_RULES, f"eps_f_rule must be one of {', '.join(EPS_F_RULES)}.")
        encoding = get_encoding(self.encoding)
        object.__setattr__(self, "params", tuple(sorted(encoding.check_params(self.params).items())))
        require(
            self.tau is None or encoding.fragments,
            f"report fragments (tau) apply to the one-hot encoding only, not to {self.encoding}.",
        )
        given: str = self.accountant or encoding.accountants[0]
        name = given if given in encoding.accountants else str(get_bound(given).name)
        require(
            name in encoding.accountants,
            f"the accountant {name} does not hold for the {self.encoding} encoding; choose one of "
            f"{', '.join(encoding.accountants)}.",
        )
        object.__setattr__(self, "accountant", name)

    def at(self, eps_c: float) -> ProtocolSpec:
        """This spec at the central target eps_c (eps_l unset). Only eps_c is checked: every other field was
        checked when this spec was made, so a sweep or a cached run does not validate them again."""
        if self.eps_c == eps_c and self.eps_l is None:
            return self
        spec = copy.copy(self)  # a frozen dataclass's copy does not run __post_init__
        check_eps(eps_c, "eps_c", MAX_EPS)
        object.__setattr__(spec, "eps_c", eps_c)
        object.__setattr__(spec, "eps_l", None)
        return spec

    @property
    def param_dict(self) -> dict:
        return dict(self.params)

    @property
    def accountant_name(self) -> str:
        """The accountant's name (the encoding's default filled in by the constructor)."""
        assert self.accountant is not None  # __post_init__ always sets it
        return self.accountant

    @property
    def channel_bound(self) -> Bound:
        """The accountant's bound for one channel and one round (for MURS one built for its fake reports)."""
        return get_encoding(self.encoding).bound(self.accountant_name, self.param_dict)

    @property
    def channels(self) -> int:
        """How many of the accountant's channels a neighbouring change in the spec's notion reaches (2: a zero-out
        encoding under replacement)."""
        return channels(get_encoding(self.encoding).neighbouring, self.notion)

    @property
    def bound(self) -> Bound:
        """The bound that certifies eps_c: the accountant's, over the changed channels and the rounds."""
        return collection_bound(self.channel_bound, self.rounds, self.channels)

    def as_dict(self) -> dict:
        return {**asdict(self), "params": self.param_dict}


@dataclass(frozen=True)
class PlanOnNotion:
    """A plan's epsilons in one notion, each with its native value and the words of its conversion: eps_c (the
    accountant through the two changed channels for a zero-out encoding under replacement), eps_l_inf (the
    whole report), eps_l_1 (one message), and no_shuffler: the same encoding without a shuffler at eps_l = the
    spec's eps_c (the whole report)."""

    eps_c: OnNotion
    eps_l_inf: OnNotion
    eps_l_1: OnNotion
    no_shuffler: OnNotion


@dataclass(frozen=True)
class Plan:
    """The privacy numbers of a spec at n respondents over d bins (d=None: no messages), each a field
    computed by plan(); as_dict only serialises them.

    extras: the encoding family's own numbers, a typed object of ldpcore.oracles.extras (None where the
    family has none): the hash range (OLH, SOLH, MURS on SOLH); for MURS with d, the fake reports and a
    respondent's eps against the server and all other respondents and against the server and all
    shufflers (T. Wang et al. 2019, Theorem 4); for the fragmented sketch (not certified) the ESA paper's
    range [eps_c, eps_l_inf] and what a generic bound certifies for the whole report.
    neighbouring: the encoding's own relation (its local eps); central_neighbouring: eps_c's (replacement when the
    spec's notion is). collection: with spec.rounds > 1, the per-round eps_c and what basic and advanced
    composition would certify over the rounds (eps_c is the total).
    """

    spec: ProtocolSpec
    n: int
    d: int | None
    amplification: Amplification
    eps_b: float
    eps_f: float | None
    eps_l_inf: float
    eps_l_1: float
    p_b: float
    p_f: float | None
    notes: tuple[str, ...] = field(default=())
    certified: bool = True
    neighbouring: Neighbouring = Neighbouring.ZERO_OUT
    expected_messages: float | None = None
    bits_per_message: int | None = None
    extras: PlanExtras | None = None
    collection: Rounds | None = None

    @property
    def eps_c(self) -> float:
        """The central eps_c certified by the accountant (<= the target); for an encoding with
        certified=False (sketches) the one-hot eps_c at the same eps_l, only a lower end."""
        assert self.amplification.eps_c is not None  # plan() refuses a result that is not valid
        return self.amplification.eps_c

    @property
    def guarantee(self) -> Guarantee:
        """The certified central eps_c as a Guarantee (the accountant's bound, eps_c's relation and delta)."""
        return replace(self.amplification.guarantee, neighbouring=self.central_neighbouring)

    @property
    def central_neighbouring(self) -> Neighbouring:
        """The relation eps_c is stated under: replacement in that notion, else the encoding's."""
        return Neighbouring.REPLACE_ONE if self.spec.notion == "replacement" else self.neighbouring

    @property
    def eps_c_per_round(self) -> float:
        """One round's certified eps_c (at delta / rounds with several rounds; eps_c itself with one)."""
        if self.collection is None:
            return self.eps_c
        return self.collection.per_round.or_inf

    def on_notion(self, notion: str) -> PlanOnNotion:
        """The plan's epsilons restated in `notion` (PlanOnNotion). A zero-out plan read under replacement: its
        accountant over the two changed channels (and the plan's rounds) at the plan's eps_b and delta; a plan
        whose eps_c is already in that notion keeps it; the local eps follow the one rule (ldpcore.privacy.notions)."""
        native, eps_c, delta = self.central_neighbouring, self.eps_c, self.spec.delta
        central = OnNotion(eps_c, delta, native, eps_c, delta, native, "")
        if channels(native, notion) == 2:
            k = get_encoding(self.spec.encoding).channel_k(self.d, self.spec.param_dict)
            both = collection_bound(self.spec.channel_bound, self.spec.rounds, 2).forward(self.eps_b, self.n, delta, k)
            central = OnNotion(both.guarantee.or_inf, delta, Neighbouring.REPLACE_ONE, eps_c, delta, native, COMPOSED)
        local = "native" if self.spec.notion == notion else notion
        target = self.spec.eps_c if self.spec.eps_c is not None else eps_c
        return PlanOnNotion(
            central,
            local_on_notion(self.eps_l_inf, self.neighbouring, local, Seen.REPORT),
            local_on_notion(self.eps_l_1, self.neighbouring, local, Seen.MESSAGE),
            local_on_notion(target, self.neighbouring, local, Seen.REPORT),
        )

    def eps_l_t(self, t: int) -> float:
        """LDP of any t captured fragments (Theorem IV.1)."""
        if self.spec.tau is None or self.eps_f is None:
            return self.eps_b
        return eps_of_t(self.eps_b, self.eps_f, min(t, self.spec.tau))

    @property
    def domain(self) -> int:
        """d, for the uses that need one (InputError where the plan has none)."""
        if self.d is None:
            raise InputError("the domain size d is needed for the encoding.")
        return self.d

    def oracle(self) -> Any:
        """The encoding's oracle with this plan's parameters (a FrequencyOracle, ldpcore.oracles), built once."""
        if self.d is None:
            raise InputError("the domain size d is needed for the encoding.")
        if "_oracle" not in self.__dict__:  # frozen: cache beside the fields
            self.__dict__["_oracle"] = get_encoding(self.spec.encoding).build(self, self.d)
        return self.__dict__["_oracle"]

    def as_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready record (the CLI's documented fields); nothing is computed."""
        out: dict[str, Any] = {
            "eps_c": self.eps_c,
            "certified": self.certified,
            "delta": self.spec.delta,
            "n": self.n,
            "d": self.d,
            "tau": self.spec.tau,
            "eps_b": self.eps_b,
            "eps_f": self.eps_f,
            "eps_f_rule": None if self.spec.tau is None else self.spec.eps_f_rule,
            "eps_l_inf": self.eps_l_inf,
            "eps_l_1": self.eps_l_1,
            "p_b": self.p_b,
            "p_f": self.p_f,
            "accountant": self.amplification.bound,
            "citation": self.amplification.citation,
            "notion": self.spec.notion,
            "neighbouring": self.central_neighbouring,
            "local_neighbouring": self.neighbouring,
            "rounds": self.spec.rounds,
            "eps_c_total": self.eps_c,
            "delta_total": self.spec.delta,
            "eps_c_per_round": self.eps_c_per_round,
            "encoding": self.spec.encoding,
            "params": self.spec.param_dict,
            "target_eps_c": self.spec.eps_c,
            "capped": self.amplification.capped,
            "notes": list(self.notes),
        }
        if self.d is not None:
            out["expected_messages"] = self.expected_messages
            out["bits_per_message"] = self.bits_per_message
        if self.extras is not None:
            out.update(self.extras.as_dict())
        if self.collection is not None:
            basic, advanced = self.collection.basic, self.collection.advanced
            out["eps_c_total_basic"] = None if basic is None else basic.eps
            out["eps_c_total_advanced"] = None if advanced is None else advanced.eps
        if self.amplification.pair is not None:
            out["pair"] = self.amplification.pair
        return out


def plan(spec: ProtocolSpec, n: int, d: int | None = None) -> Plan:
    """Privacy numbers for n respondents (at most errors.MAX_N, for every accountant) over d bins (at most
    errors.MAX_D); raises InputError where the accountant is not valid.

    The local eps stays within what the encoding's probabilities realise in float64
    (Encoding.eps_limit, ldpcore.oracles.limits): a larger eps_l is refused; an accountant's eps_l
    above the limit is lowered to it and the plan says so (capped, with a note), certifying less
    than the eps_c asked for."""
    n = check_n(n)
    if d is not None:
        d = check_whole(d, 2, "the domain size d", MAX_D)
    encoding = get_encoding(spec.encoding)
    notes = [] if encoding.certified else [encoding.privacy_note]
    limit = encoding.eps_limit(d, spec.param_dict)
    what = encoding.title + ("" if d is None else f" on d={d:,} values")
    k = encoding.channel_k(d, spec.param_dict)
    amp, eps_b = _local_eps(spec, n, k, limit, what, notes)
    eps_f, p_f, eps_l_inf, eps_l_1 = _fragments(spec, eps_b, limit, what, notes)
    require(eps_b > 1e-9, f"the accountant gives eps_l = {eps_b:.3g}, too small to report anything; raise eps_c.")
    p = Plan(
        spec,
        int(n),
        d,
        amp,
        eps_b,
        eps_f,
        eps_l_inf,
        eps_l_1,
        flip_probability(eps_b),
        p_f,
        tuple(notes),
        certified=encoding.certified,
        neighbouring=encoding.neighbouring,
        collection=(
            None
            if spec.rounds == 1
            else rounds_at(spec.channel_bound, spec.rounds, spec.channels, eps_b, n, spec.delta, k, amp.guarantee)
        ),
    )
    oracle: FrequencyOracle | None = None
    if d is not None:
        oracle = p.oracle()
        p = replace(p, expected_messages=oracle.expected_messages(), bits_per_message=oracle.bits_per_message)
        p.__dict__["_oracle"] = oracle
    extras = encoding.extras(p)
    if extras is not None:
        p = replace(p, extras=extras)
        if oracle is not None:
            p.__dict__["_oracle"] = oracle
    return p


def _local_eps(
    spec: ProtocolSpec, n: int, k: int | None, limit: float, what: str, notes: list[str]
) -> tuple[Amplification, float]:
    """(the accountant's result, the local eps_b) for the spec's eps_c (the inverse, capped at the float64
    limit) or eps_l (the forward, refused above the limit); k: the alphabet of one shuffled channel. Notes
    are appended to `notes`."""
    bound = spec.bound
    if spec.eps_l is not None:
        require(spec.eps_l <= limit, too_large(what, spec.eps_l, limit, "eps_l"))
        amp = bound.forward(spec.eps_l, n, spec.delta, k)
        notes += [amp.note] if amp.note else []
        return amp, _certified_eps0(amp)
    assert spec.eps_c is not None  # ProtocolSpec: exactly one of eps_c and eps_l
    amp = bound.inverse(spec.eps_c, n, spec.delta, k)
    eps_b = _certified_eps0(amp)
    notes += [amp.note] if amp.note else []
    if eps_b > limit:
        amp = replace(bound.forward(limit, n, spec.delta, k), capped=True, target_eps_c=spec.eps_c)
        eps_b = _certified_eps0(amp)
        notes.append(
            f"float64 realises the probabilities of {what} only up to eps_l = {limit:.4f}; "
            f"the certified eps_c there is {amp.eps_c:.4g}, below the {spec.eps_c:g} asked for."
        )
    elif amp.capped:
        notes.append(
            f"{bound.title} is valid only up to eps_l = {amp.eps0:.4g} at n={n:,}; "
            f"the certified eps_c is {amp.eps_c:.4g}, below the {spec.eps_c:g} asked for."
        )
    return amp, eps_b


def _fragments(
    spec: ProtocolSpec, eps_b: float, limit: float, what: str, notes: list[str]
) -> tuple[float | None, float | None, float, float]:
    """(eps_f, p_f, eps_l_inf, eps_l_1): with report fragments (tau) eps_f by the spec's rule and the local
    guarantees of Theorem IV.1; without, eps_b for both and no fragment."""
    if spec.tau is None:
        return None, None, eps_b, eps_b
    fragment = choose_eps_f(eps_b, spec.tau, spec.eps_f_rule, spec.eps_f)
    require(fragment <= limit, too_large(what, fragment, limit, "eps_f"))
    if spec.eps_f_rule == "paper" and fragment < 2.5:
        notes.append(
            f"eps_b - ln(tau) = {fragment:.3g} < 2.5: the paper's printed eps_l_1 departs from "
            "this rule here (docs/departures.md); consider the equal-variance rule."
        )
    return fragment, flip_probability(fragment), eps_of_t(eps_b, fragment, spec.tau), eps_of_t(eps_b, fragment, 1)


def _certified_eps0(amp: Amplification) -> float:
    """The local eps of a valid result; InputError with the bound's reason where it certifies nothing."""
    if not amp.valid or amp.eps0 is None:
        raise InputError(amp.reason)
    return amp.eps0
