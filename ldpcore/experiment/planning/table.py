"""The planner's table: every encoding with every accountant that holds for it, at one eps_c, side by side
(docs/plan.md). One typed PlanRow per (encoding, accountant): the certified eps_c in one neighbouring notion
(replacement by default; a zero-out encoding's two changed channels composed, the conversion named), over one
or several collections (rounds: eps_c their total), the local eps in the encoding's own notion and under
replacement, messages and bits, the predicted errors (error_model), the same
encoding without a shuffler at eps_l = eps_c, and whether the row is certified and within the constraints,
with the reason when not, and whether it is on the Pareto set of the ranked rows. The recommendation is the row a
stated rule picks within that set (choice: the lowest predicted error by default; or the lowest eps_l within 10%
of it, the fewest bits, the fewest messages). Every number comes from plan() and the oracles' own variance."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, TypedDict, Unpack

import numpy as np

from ldpcore.errors import MAX_D, MAX_EPS, InputError, check_delta, check_eps, check_n, check_whole, require
from ldpcore.experiment.planning.choice import DEFAULT_RULE, check_rule, pareto, recommend
from ldpcore.experiment.planning.error_model import (
    LINF_NOTE,
    NO_TOPK,
    TOPK_NOTE,
    Z95,
    central_rmse,
    heavy_k,
    rmse_of,
    spread,
    topk_recall,
    variances,
)
from ldpcore.experiment.planning.shapes import Groups, Shape, groups_of, scaled_counts
from ldpcore.experiment.planning.simulate import FIRST_SEED, Simulated, simulate_postprocessed
from ldpcore.experiment.protocol.postprocess import METHODS, check_method
from ldpcore.experiment.protocol.spec import Plan, ProtocolSpec, plan
from ldpcore.oracles import ENCODINGS, Encoding, get_encoding
from ldpcore.oracles.base import hash_tail, prediction_limit
from ldpcore.oracles.laws import Unsupported
from ldpcore.oracles.sketches.tail import HashTail
from ldpcore.privacy.bounds import shared_inverses
from ldpcore.privacy.notions import COMPOSED, NOTIONS, Seen, channels, local_on_notion, replacement_eps
from ldpcore.privacy.rounds import COMPARE_RTOL, MAX_ROUNDS

TARGETS = ("rmse", "relative_rmse", "linf")
TARGET_WORDS = {"rmse": "raw RMSE per bin", "relative_rmse": "relative RMSE (RMSE / mean count)", "linf": "l_inf"}


def shared(fn):
    """Run fn with the bounds' inverses shared between the encodings that use the same bound."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        with shared_inverses():
            return fn(*args, **kwargs)

    return call


@dataclass(frozen=True)
class Target:
    """An error to reach: kind 'rmse' (raw RMSE per bin), 'relative_rmse' (RMSE / mean count) or 'linf'."""

    kind: str
    value: float

    def __post_init__(self):
        require(self.kind in TARGETS, f"the target must be one of {', '.join(TARGETS)} (got {self.kind!r}).")
        require(
            isinstance(self.value, int | float) and math.isfinite(self.value) and self.value > 0,
            f"the target {TARGET_WORDS[self.kind]} must be a number > 0 (got {self.value}).",
        )

    def __str__(self) -> str:
        return f"{TARGET_WORDS[self.kind]} <= {self.value:g}"


@dataclass(frozen=True)
class Constraints:
    """At most max_messages messages and max_bits bits per respondent (None: no limit)."""

    max_messages: float | None = None
    max_bits: float | None = None

    def __post_init__(self):
        for name in ("max_messages", "max_bits"):
            value = getattr(self, name)
            require(
                value is None or (math.isfinite(value) and value > 0),
                f"{name.replace('_', ' ')} must be a number > 0 (got {value}).",
            )

    def broken(self, messages: float, bits: float) -> str:
        """Why (messages, bits) breaks the constraints, "" if it does not."""
        out = []
        if self.max_messages is not None and messages > self.max_messages:
            out.append(f"{messages:,.3g} messages per respondent > {self.max_messages:g}")
        if self.max_bits is not None and bits > self.max_bits:
            out.append(f"{bits:,.4g} bits per respondent > {self.max_bits:g}")
        return "; ".join(out)


NO_CONSTRAINTS = Constraints()


class RowOptions(TypedDict, total=False):
    """Which rows a planner table holds and how they are judged, the keywords of plan_table, solve_eps_c and
    solve_n: notion of eps_c ('replacement', the default, or 'native'), rounds (collections from the same
    respondents; eps_c and delta are their total, 1 by default), encodings (None: all), their params
    ({encoding: {parameter: value}}), constraints, the table's name, and the rule of its recommendation
    (choice.RULES; default choice.DEFAULT_RULE)."""

    notion: str
    rounds: int
    encodings: Sequence[str] | None
    constraints: Constraints
    params: Mapping[str, Mapping[str, Any]] | None
    name: str
    rule: str


def row_options(options: RowOptions) -> tuple[str, int, Sequence[str] | None, Constraints, Mapping | None, str]:
    """(notion, rounds, encodings, constraints, params, name) with their defaults."""
    return (
        options.get("notion", "replacement"),
        options.get("rounds", 1),
        options.get("encodings"),
        options.get("constraints", NO_CONSTRAINTS),
        options.get("params"),
        options.get("name", ""),
    )


@dataclass(frozen=True)
class PlanRow:
    """One (encoding, accountant) at n respondents.

    eps_c: the central eps certified in the table's notion, the total over `rounds` collections (None where the
    accountant is not valid); eps_c_per_round: one collection's (at delta / rounds); eps_c_native, delta_native,
    neighbouring: what the accountant itself certifies for one channel and one collection at the row's eps_l, and
    in which notion; conversion: how eps_c follows from it. eps_l: local eps (each round's) in the encoding's own notion
    (local_neighbouring), eps_l_replacement: under replacement for every encoding, eps_l_1: one attribute
    fragment (None where the encoding sends no fragments). rmse: predicted raw RMSE per bin (exact for
    unbiased estimators; rmse_note says what it is short of exact), ci95: the half-width of the 95%
    normal confidence interval of a bin of typical variance, linf: predicted expected l_inf error of the
    raw estimate, topk_recall: the predicted share of the true top topk bins among the estimated top topk
    (None without heavy hitters; topk_note says how, or why there is none), rmse_local_only: the same
    encoding without a shuffler at eps_l = eps_c (in the table's notion). certified: eps_c is certified and
    no error; within_constraints; prediction_limit: why the predicted errors do not hold for these counts (the
    encoding's own capability, ldpcore.oracles.base.prediction_limit; "" where they do); reason: why the row is
    not ranked ("" if it is); pareto: no other ranked row beats it in every respect (choice.pareto). plan: the
    underlying ldpcore Plan (None on error). postprocess: the post-processing the table ranks on (None: the raw
    estimate), postprocessed its simulated error (planning.simulate.Simulated), or None with postprocessed_note
    saying why. hash_tail: where the predicted RMSE is a mean over hash draws carried by rare collisions (a sketch
    with few values and large counts), how a run's error spreads, simulated (the sentence is among the notes); None
    elsewhere.
    """

    encoding: str
    title: str
    accountant: str
    accountant_title: str
    n: int
    d: int
    delta: float
    notion: str
    certified: bool
    eps_c: float | None = None
    eps_c_per_round: float | None = None
    rounds: int = 1
    eps_c_native: float | None = None
    delta_native: float | None = None
    neighbouring: str = ""
    conversion: str = ""
    eps_l: float | None = None
    eps_l_replacement: float | None = None
    eps_l_1: float | None = None
    local_neighbouring: str = ""
    messages: float | None = None
    bits_per_message: int | None = None
    bits_per_respondent: float | None = None
    rmse: float | None = None
    rmse_note: str = ""
    ci95: float | None = None
    linf: float | None = None
    topk: int | None = None
    topk_recall: float | None = None
    topk_note: str = ""
    rmse_local_only: float | None = None
    local_only_note: str = ""
    within_constraints: bool = True
    prediction_limit: str = ""
    reason: str = ""
    pareto: bool = False
    error: str = ""
    notes: tuple[str, ...] = ()
    params: tuple = ()
    plan: Plan | None = field(default=None, repr=False, compare=False)
    postprocess: str | None = None
    postprocessed: Simulated | None = None
    postprocessed_note: str = ""
    hash_tail: HashTail | None = None

    @property
    def ranked(self) -> bool:
        """Eligible for the recommendation: certified, valid, within the constraints, and its predicted errors
        hold for these counts (with a post-processing: simulated)."""
        simulated = self.postprocess is None or self.postprocessed is not None
        return self.certified and not self.error and self.within_constraints and not self.prediction_limit and simulated

    @property
    def relative_rmse(self) -> float | None:
        return None if self.rmse is None else self.rmse * self.d / self.n

    @property
    def ranked_rmse(self) -> float | None:
        """The RMSE the table ranks on: the simulated post-processed one where the table has a post-processing,
        else the predicted raw RMSE."""
        if self.postprocess is None:
            return self.rmse
        return None if self.postprocessed is None else self.postprocessed.rmse

    def metric(self, kind: str) -> float:
        """The predicted error of a target kind (inf where the row has no number)."""
        value = {"rmse": self.rmse, "relative_rmse": self.relative_rmse, "linf": self.linf}[kind]
        return math.inf if value is None else value

    @property
    def spec(self) -> ProtocolSpec | None:
        """The spec that runs this row (the accountant's native eps_c and delta): ldpcore.run(row.spec, hist)."""
        return None if self.plan is None else self.plan.spec

    def as_dict(self) -> dict:
        """JSON-ready (the Plan left out; params as a dict)."""
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "plan"}
        out["params"] = dict(self.params)
        out["notes"] = list(self.notes)
        out["relative_rmse"] = self.relative_rmse
        out["ranked"] = self.ranked
        out["postprocessed"] = None if self.postprocessed is None else self.postprocessed.as_dict()
        out["hash_tail"] = None if self.hash_tail is None else asdict(self.hash_tail)
        return out


@dataclass(frozen=True)
class PlanTable:
    """Every row, the central Gaussian baseline at (eps_c, delta) in the table's notion, the
    recommendation (None if no row qualifies) by the rule (choice.RULES) and one sentence saying why and what it
    costs against the runner-up. solve: None (forward at eps_c), 'eps_c' (each row at its smallest eps_c meeting
    target) or 'n' (each at its smallest n). rounds: collections from the same respondents (eps_c and delta are
    their total)."""

    rows: tuple[PlanRow, ...]
    n: int
    d: int
    delta: float
    notion: str
    eps_c: float | None
    central_rmse: float | None
    central_note: str
    recommended: PlanRow | None
    reason: str
    constraints: Constraints
    target: Target | None = None
    solve: str | None = None
    name: str = ""
    rounds: int = 1
    rule: str = DEFAULT_RULE
    postprocess: str | None = None

    def as_dict(self) -> dict:
        return {
            "input": self.name,
            "postprocess": self.postprocess,
            "n": self.n,
            "d": self.d,
            "delta": self.delta,
            "notion": self.notion,
            "eps_c": self.eps_c,
            "rounds": self.rounds,
            "eps_c_total": self.eps_c,
            "delta_total": self.delta,
            "solve": self.solve,
            "target": None if self.target is None else {"kind": self.target.kind, "value": self.target.value},
            "constraints": {"max_messages": self.constraints.max_messages, "max_bits": self.constraints.max_bits},
            "central_rmse": self.central_rmse,
            "central_note": self.central_note,
            "recommended": None if self.recommended is None else self.recommended.encoding,
            "recommended_accountant": None if self.recommended is None else self.recommended.accountant,
            "reason": self.reason,
            "rule": self.rule,
            "linf_note": LINF_NOTE,
            "rows": [r.as_dict() for r in self.rows],
        }


# --- the pieces of a row ---------------------------------------------------------------------------


def row_spec(
    encoding: str, accountant: str, params: tuple, eps_c: float, delta: float, notion: str, rounds: int = 1
) -> ProtocolSpec:
    """The spec of a row: eps_c (at delta) certified in the table's notion, the total over `rounds` collections
    (ldpcore.privacy.notions: a zero-out encoding under replacement through the two changed channels)."""
    return ProtocolSpec(
        eps_c=eps_c, delta=delta, encoding=encoding, accountant=accountant, params=params, notion=notion, rounds=rounds
    )


def conversion(encoding: Encoding, notion: str, rounds: int) -> str:
    """How a row's eps_c follows from its accountant's own guarantee for one channel and one collection."""
    own = f"none: the encoding's own notion ({encoding.neighbouring})"
    words = COMPOSED if channels(encoding.neighbouring, notion) == 2 else own
    if rounds == 1:
        return words
    return f"{words}; {rounds:,} collections composed through the same dominating pair (eps_c is their total)"


def local_eps(encoding: Encoding, eps_c: float, notion: str, rounds: int = 1) -> float:
    """The local eps of the no-shuffler row at eps_c, each round's: the whole report in the table's notion (a
    zero-out encoding's report is 2 eps-LDP under replacement: local_on_notion), rounds composed basically."""
    whole = local_on_notion(1.0, encoding.neighbouring, notion, Seen.REPORT).eps
    return eps_c / whole / rounds


def local_only(encoding: str, params: tuple, eps: float, groups: Groups) -> tuple[float | None, str]:
    """RMSE of the encoding as plain LDP at local eps (no shuffler), or None with the reason. Where the
    encoding's parameters come from its shuffle bound, the encoding that stands in for it without a shuffler
    runs instead (ldpcore.oracles.Encoding.without_shuffler: OLH for SOLH, GRR or OLH for MURS)."""
    e = get_encoding(encoding)
    stand_in, ps = e.without_shuffler(dict(params))
    note = "" if stand_in is e else f"{stand_in.name.upper()} without a shuffler stands in for {encoding}"
    eps = min(eps, stand_in.eps_limit(groups.d, ps))
    try:
        oracle = stand_in.oracle_at(eps, groups.d, ps)
    except InputError as exc:
        return None, str(exc)
    return rmse_of(variances(oracle, groups), groups), note


def evaluate_row(
    encoding: str,
    accountant: str,
    counts: np.ndarray | Groups,
    eps_c: float,
    delta: float,
    notion: str = "replacement",
    constraints: Constraints = NO_CONSTRAINTS,
    params: tuple = (),
    local: tuple[float | None, str] | None = None,
    rounds: int = 1,
) -> PlanRow:
    """One row at n = sum(counts) (counts: the histogram or its Groups); an accountant that is not valid here
    gives a row with error set. local: the no-shuffler (RMSE, note), computed here when not given. (Over 60
    lines only for the row's thirty named fields.)"""
    e = get_encoding(encoding)
    params = tuple(sorted(e.check_params(dict(params)).items()))
    groups = counts if isinstance(counts, Groups) else groups_of(counts)
    n, d = groups.n, groups.d
    title = e.bound(accountant, dict(params)).title
    base: dict[str, Any] = dict(encoding=encoding, title=e.title, accountant=accountant, accountant_title=title)
    base.update(n=n, d=d, delta=delta, notion=notion, params=params, rounds=rounds)
    try:
        p = plan(row_spec(encoding, accountant, params, eps_c, delta, notion, rounds), n, d)
        native = p.eps_c
        if p.spec.channels > 1 or rounds > 1:  # the accountant's own guarantee: one channel, one collection
            k = e.channel_k(d, dict(params))
            native = p.spec.channel_bound.forward(p.eps_b, n, delta, k, COMPARE_RTOL).guarantee.or_inf
        oracle = p.oracle()
        var = variances(oracle, groups)
        rmse, linf = spread(var, groups)
        k = heavy_k(groups)
        recall = None if k is None else topk_recall(var, groups, k)
    except InputError as exc:
        return PlanRow(**base, certified=False, error=str(exc), reason=str(exc), within_constraints=False)
    messages, bpm = float(oracle.expected_messages()), int(oracle.bits_per_message)
    broken = constraints.broken(messages, messages * bpm)
    limit = prediction_limit(oracle, n, groups.values, groups.bins)
    tail = hash_tail(oracle, n, groups.values, groups.bins, np.random.default_rng(FIRST_SEED))
    reasons = [f"eps_c is not certified for {encoding}: {e.privacy_note}"] if not e.certified else []
    reasons += [f"outside the constraints: {broken}"] if broken else []
    reasons += [limit] if limit else []
    local = local if local is not None else local_only(encoding, params, local_eps(e, eps_c, notion, rounds), groups)
    return PlanRow(
        **base,
        certified=e.certified,
        eps_c=p.eps_c,
        eps_c_per_round=p.eps_c_per_round,
        eps_c_native=native,
        delta_native=delta,
        neighbouring=e.neighbouring,
        conversion=conversion(e, notion, rounds),
        eps_l=p.eps_l_inf,
        eps_l_replacement=replacement_eps(p.eps_b, e.neighbouring),
        eps_l_1=p.eps_b if e.channel_k(d, dict(params)) == 2 else None,
        local_neighbouring=e.neighbouring,
        messages=messages,
        bits_per_message=bpm,
        bits_per_respondent=messages * bpm,
        rmse=rmse,
        rmse_note=oracle.variance_note,
        ci95=Z95 * rmse,
        linf=linf,
        topk=k,
        topk_recall=recall,
        topk_note=TOPK_NOTE if k is not None else NO_TOPK,
        rmse_local_only=local[0],
        local_only_note=local[1],
        within_constraints=not broken,
        prediction_limit=limit,
        reason="; ".join(reasons),
        notes=tuple(x for x in p.notes if x != e.privacy_note) + (() if tail is None else (tail.sentence(),)),
        plan=p,
        hash_tail=tail,
    )


def rows_wanted(encodings, params: Mapping | None) -> list[tuple[str, str, tuple]]:
    """(encoding, accountant, its checked parameters as sorted pairs) of every row asked for (all encodings
    when none are named); params: {encoding: {parameter: value}}."""
    names = list(ENCODINGS) if not encodings else list(dict.fromkeys(encodings))
    out = []
    for name in names:
        e = get_encoding(name)  # an unknown name is refused with the list
        ps = tuple(sorted(e.check_params((params or {}).get(name, {})).items()))
        out += [(name, acc, ps) for acc in e.accountants]
    return out


def check_counts(counts, eps_c, delta, notion, rounds: int = 1) -> np.ndarray:
    counts = np.asarray(counts)
    require(counts.ndim == 1 and counts.size >= 2, "the planner needs a histogram of at least 2 bins.")
    require(np.issubdtype(counts.dtype, np.integer) and bool((counts >= 0).all()), "counts must be whole numbers >= 0.")
    check_whole(counts.size, 2, "the domain size d", MAX_D)
    check_n(int(counts.sum()))
    if eps_c is not None:
        check_eps(eps_c, "eps_c", MAX_EPS)
    check_delta(delta)
    require(notion in NOTIONS, f"the notion must be one of {', '.join(NOTIONS)} (got {notion!r}).")
    check_whole(rounds, 1, "rounds", MAX_ROUNDS)
    return counts.astype(np.int64, copy=False)


def local_cache(notion, eps_c, groups: Groups, rounds: int = 1):
    """local_only per (encoding, parameters) at eps_c, computed once (rows of one encoding share it)."""
    cache = {}

    def get(encoding, params):
        if (encoding, params) not in cache:
            cache[(encoding, params)] = local_only(
                encoding, params, local_eps(get_encoding(encoding), eps_c, notion, rounds), groups
            )
        return cache[(encoding, params)]

    return get


def table_of(
    rows: list[PlanRow],
    counts: np.ndarray,
    ranked: tuple,
    query: tuple,
    eps_c: float | None = None,
    rule: str = DEFAULT_RULE,
) -> PlanTable:
    """The PlanTable of the rows, sorted, the Pareto set marked and the recommendation by the rule: ranked = (sort
    key, the objective's key, its words, what the eligible rows are in words, the rows eligible); query = (delta,
    notion, rounds, constraints, target, solve, name); the central baseline at eps_c where given."""
    sort_key, key, objective, words, eligible = ranked
    delta, notion, rounds, constraints, target, solve, name = query
    rows.sort(key=sort_key)
    front = {id(r) for r in pareto(eligible, key)}
    marked = {id(r): replace(r, pareto=True) for r in rows if id(r) in front}
    rows = [marked.get(id(r), r) for r in rows]
    eligible = [marked.get(id(r), r) for r in eligible]
    best, reason, _ = recommend(eligible, key, objective, check_rule(rule), notion, words)
    central, note = central_rmse(eps_c, delta, notion, rounds) if eps_c is not None else (None, "")
    n, d = int(counts.sum()), int(counts.size)
    return PlanTable(
        tuple(rows),
        n,
        d,
        delta,
        notion,
        eps_c,
        central,
        note,
        best,
        reason,
        constraints,
        target,
        solve,
        name,
        rounds,
        rule,
    )


def with_postprocessed(row: PlanRow, counts: np.ndarray, method: str) -> PlanRow:
    """The row ranked on a post-processing: its error after it, simulated (planning.simulate), or why not."""
    if row.plan is None:
        return replace(row, postprocess=method, postprocessed_note=row.error)
    sim = simulate_postprocessed(row.plan, counts, method)
    if isinstance(sim, Unsupported):
        reason = "; ".join(x for x in (row.reason, f"no {METHODS[method].title} prediction: {sim.reason}") if x)
        return replace(row, postprocess=method, postprocessed_note=sim.reason, reason=reason)
    return replace(row, postprocess=method, postprocessed=sim)


@shared
def plan_table(
    counts, eps_c: float, delta: float, postprocess: str | None = None, **options: Unpack[RowOptions]
) -> PlanTable:
    """Every (encoding, accountant) at eps_c on these counts (options: RowOptions), ranked on the predicted raw
    RMSE, or with postprocess (a method's name, ldpcore.experiment.protocol.postprocess.METHODS) on each row's
    simulated RMSE after it (planning.simulate)."""
    notion, rounds, encodings, constraints, params, name = row_options(options)
    counts = check_counts(counts, eps_c, delta, notion, rounds)
    if postprocess is not None:
        check_method(postprocess)
    groups = groups_of(counts)
    local = local_cache(notion, eps_c, groups, rounds)
    rows = [
        evaluate_row(enc, acc, groups, eps_c, delta, notion, constraints, ps, local(enc, ps), rounds)
        for enc, acc, ps in rows_wanted(encodings, params)
    ]
    if postprocess is not None:
        rows = [with_postprocessed(r, counts, postprocess) for r in rows]

    def key(r: PlanRow) -> float:
        return math.inf if r.ranked_rmse is None else r.ranked_rmse

    objective = "predicted RMSE" if postprocess is None else f"simulated RMSE after {METHODS[postprocess].title}"
    ranked = (
        lambda r: (not r.ranked, not r.certified, key(r)),
        key,
        objective,
        "certified rows within the constraints",
        rows,
    )
    query = (delta, notion, rounds, constraints, None, None, name)
    table = table_of(rows, counts, ranked, query, eps_c, options.get("rule", DEFAULT_RULE))
    return replace(table, postprocess=postprocess)


def plan_shape(n: int, d: int, shape: Shape | str, eps_c: float, delta: float, **kw) -> PlanTable:
    """plan_table on n respondents spread over d values by a shape (no data needed)."""
    shape = Shape.parse(shape) if isinstance(shape, str) else shape
    return plan_table(
        scaled_counts(shape.weights(d), n), eps_c, delta, name=kw.pop("name", f"{shape} (n={n:,}, d={d:,})"), **kw
    )
