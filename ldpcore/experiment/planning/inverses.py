"""The planner's inverses (docs/plan.md): ``solve_eps_c`` (a target error -> the smallest certified eps_c per
row) and ``solve_n`` (a target error at a fixed eps_c -> the smallest number of respondents with the same
shape), monotone one-dimensional searches (search) that land on the conservative side: the returned value
meets the target. The inverses never build a d-length array; ``error_curve`` is a row's predicted error
along eps_c."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Unpack

from ldpcore.errors import InputError
from ldpcore.experiment.planning.choice import DEFAULT_RULE
from ldpcore.experiment.planning.error_model import error_of, variances
from ldpcore.experiment.planning.search import SOLVE_RTOL, search
from ldpcore.experiment.planning.shapes import Groups, groups_of, scaled_groups
from ldpcore.experiment.planning.table import (
    TARGET_WORDS,
    PlanRow,
    PlanTable,
    RowOptions,
    Target,
    check_counts,
    evaluate_row,
    local_cache,
    row_options,
    row_spec,
    rows_wanted,
    shared,
    table_of,
)
from ldpcore.experiment.protocol.spec import default_delta, plan
from ldpcore.oracles import get_encoding
from ldpcore.privacy.bounds import search_precision

EPS_C_MAX = 10.0  # the inverse searches eps_c in [EPS_C_MIN, EPS_C_MAX]
EPS_C_MIN = 1e-3
N_MAX = 10**12  # the inverse in n searches up to this many respondents
SEARCH_RTOL = 1e-5  # the inverses' trial points solve the accountants to this relative precision (conservative)


def metric_at_eps(
    enc, acc, ps, groups: Groups, delta, notion, kind, rounds: int = 1, capped_counts: bool = False
) -> Callable[[float], float | None]:
    """eps_c (table notion, total over the rounds) -> the row's predicted error there (None where the accountant
    certifies nothing, or is capped below eps_c: then a larger eps_c buys nothing). capped_counts: a capped plan
    is a row all the same (the inverse in n at a fixed eps_c: it certifies a smaller eps_c, at least as private as
    asked, and its error is what it is). Without it the n-search's predicate was not monotone: MURS on SOLH at
    eps_c = 1, the blanket bound's limit, is capped at 35% of the n in [5e6, 3e7] (its forward map jumps where the
    rounded hash range changes, so the top of its region certifies up to 2e-5 below 1), at no pattern in n, and
    the search landed on any capped-to-uncapped edge, up to 300x above the smallest n."""

    def value(eps: float) -> float | None:
        try:
            with search_precision(SEARCH_RTOL):  # a trial point; the answer's row is evaluated exactly
                p = plan(row_spec(enc, acc, ps, eps, delta, notion, rounds), groups.n, groups.d)
            if p.amplification.capped and not capped_counts:
                return None
            return error_of(variances(p.oracle(), groups), groups, kind)
        except InputError:
            return None

    return value


def _smallest_eps_l(enc: str, ps: tuple, groups: Groups, kind: str, target: float):
    """The smallest local eps_l (the encoding's own) whose predicted error meets target, or None: the oracle at
    eps_l (ldpcore.oracles.Encoding.oracle_at) does not depend on the accountant or n."""
    e = get_encoding(enc)
    params = dict(ps)

    def value(eps_l: float) -> float | None:
        try:
            return error_of(variances(e.oracle_at(eps_l, groups.d, params), groups), groups, kind)
        except InputError:
            return None

    return search(value, 1e-4, min(e.eps_limit(groups.d, params), 60.0), target)


def _row_eps_c_search(enc, acc, ps, groups: Groups, target: Target, delta, notion, rounds, eps_l_star):
    """The smallest eps_c of a row: from the smallest eps_l meeting the target (eps_l_star, shared by the rows
    of an encoding), the accountant's forward map gives the eps_c that certifies exactly that eps_l; it is
    checked through plan() (its inverse allows eps_l >= eps_l_star there) and stepped up if rounding left
    it short. An encoding without an oracle at a local eps alone (its parameters come from its bound) and a
    forward map that is not valid there: the monotone search in eps_c."""
    f = metric_at_eps(enc, acc, ps, groups, delta, notion, target.kind, rounds)
    guess = None
    if eps_l_star is not None:
        e = get_encoding(enc)
        bound = row_spec(enc, acc, ps, 1.0, delta, notion, rounds).bound  # in the table's notion, over the rounds
        try:
            amp = bound.forward(eps_l_star, groups.n, delta, e.channel_k(groups.d, dict(ps)))
        except InputError:
            amp = None
        if amp is not None and amp.valid and amp.eps_c is not None:
            x = amp.eps_c
            if EPS_C_MIN <= x <= EPS_C_MAX:
                for _ in range(8):  # minimal: a smaller eps_c certifies only a smaller eps_l than eps_l_star
                    if (v := f(x)) is not None and v <= target.value:
                        return x, v
                    x *= 1 + SOLVE_RTOL / 2
                guess = x
    return search(f, EPS_C_MIN, EPS_C_MAX, target.value, guess=guess)


def _local_slope(seen: dict[float, float | None], x: float) -> float | None:
    """The slope in (log x, log value) between x and the nearest other point evaluated (None if there is none
    with a positive value, or the value does not fall)."""
    at = seen.get(x)
    points = [(abs(math.log(y / x)), y, v) for y, v in seen.items() if y != x and v is not None and v > 0]
    if not points or at is None or not at > 0:
        return None
    _, y, v = min(points)
    s = (math.log(v) - math.log(at)) / (math.log(y) - math.log(x))
    return s if s < 0 else None


def _finish(rows, target: Target, why_prefix: str, found_flags) -> list[PlanRow]:
    out = []
    for row, found in zip(rows, found_flags, strict=True):
        if not found:
            why = why_prefix + (
                row.error or f"the predicted {TARGET_WORDS[target.kind]} there is {row.metric(target.kind):.4g}"
            )
            row = replace(row, within_constraints=False, reason="; ".join(x for x in (why, row.reason) if x))
        out.append(row)
    return out


@shared
def solve_eps_c(counts, target: Target, delta: float, **options: Unpack[RowOptions]) -> PlanTable:
    """For each row (options: RowOptions) the smallest certified eps_c in [EPS_C_MIN, EPS_C_MAX] whose predicted
    error meets the target (the row evaluated there; 0.998 x it does not meet it), or the row at EPS_C_MAX
    marked 'not reachable' with the reason."""
    notion, rounds, encodings, constraints, params, name = row_options(options)
    counts = check_counts(counts, None, delta, notion, rounds)
    groups = groups_of(counts)
    rows, flags, stars = [], [], {}
    for enc, acc, ps in rows_wanted(encodings, params):
        if (enc, ps) not in stars:
            found_l = (
                _smallest_eps_l(enc, ps, groups, target.kind, target.value) if get_encoding(enc).fixed_by_eps else None
            )
            stars[(enc, ps)] = None if found_l is None else found_l[0]
        found = _row_eps_c_search(enc, acc, ps, groups, target, delta, notion, rounds, stars[(enc, ps)])
        at = EPS_C_MAX if found is None else found[0]
        rows.append(evaluate_row(enc, acc, groups, at, delta, notion, constraints, ps, rounds=rounds))
        flags.append(found is not None)
    rows = _finish(rows, target, f"not reachable below eps_c = {EPS_C_MAX:g}: ", flags)
    reached = [r for r, ok in zip(rows, flags, strict=True) if ok]
    ranked = (
        lambda r: (not r.ranked, not r.certified, math.inf if r.eps_c is None else r.eps_c),
        lambda r: math.inf if r.eps_c is None else r.eps_c,
        "eps_c",
        f"certified rows within the constraints meeting {target}",
        reached,
    )
    query = (delta, notion, rounds, constraints, target, "eps_c", name)
    return table_of(rows, counts, ranked, query, rule=options.get("rule", DEFAULT_RULE))


@shared
def solve_n(
    counts,
    eps_c: float,
    target: Target,
    delta: float,
    n_max: int = N_MAX,
    delta_with_n: bool = False,
    **options: Unpack[RowOptions],
) -> PlanTable:
    """For each row (options: RowOptions) the smallest n (whole; counts scaled to n with the same shape) whose
    predicted error at eps_c meets the target, searched in [d, n_max] to SOLVE_RTOL; 'not reachable' with the
    reason otherwise. delta: held fixed at every n (delta_with_n False), or the rule delta = about 1/(10 n)
    (default_delta) applied afresh at each n tried (delta_with_n True; each row then states its own delta). A raw
    RMSE target may be out of reach at any n (one-hot's raw RMSE hardly changes with n at a fixed eps_c); a
    relative RMSE falls with n.

    From the data's own n, relative errors fall about as 1/n at first; raw ones hardly move: no guess. The
    encoding's answer under its previous accountant, else another encoding's under this accountant, with the
    slope found there, is a closer guess (accountants, and one-hot and its sketch, often nearly agree)."""
    notion, rounds, encodings, constraints, params, name = row_options(options)
    counts = check_counts(counts, eps_c, delta, notion, rounds)
    start = groups_of(counts)
    weights, total = start.values / start.n, float((counts / start.n).sum())
    memo: dict[int, Groups] = {}

    def at(n):  # the Groups of scaled_counts(counts / counts.sum(), n), without its O(d) arrays
        n = int(n)
        if n not in memo:
            memo[n] = scaled_groups(weights, start.bins, total, n)
        return memo[n]

    def delta_at(n: int) -> float:
        return default_delta(n) if delta_with_n else delta

    rows, flags = [], []
    answers: dict = {}  # (encoding, params) and accountant -> (the last answer there, the slope at it)
    locals_at: dict = {}  # n -> local_cache there
    for enc, acc, ps in rows_wanted(encodings, params):
        seen: dict[float, float | None] = {}

        def value(x, enc=enc, acc=acc, ps=ps, seen=seen):
            n = int(round(x))
            seen[x] = metric_at_eps(enc, acc, ps, at(n), delta_at(n), notion, target.kind, rounds, True)(eps_c)
            return seen[x]

        guess, slope = (float(start.n), -1.0) if target.kind != "rmse" else (None, None)
        guess, slope = answers.get((enc, ps), answers.get(acc, (guess, slope)))
        found = search(value, max(start.d, 2), n_max, target.value, guess, slope)
        n = n_max if found is None else int(round(found[0]))
        if found is not None:
            answers[(enc, ps)] = answers[acc] = (found[0], _local_slope(seen, found[0]) or slope)
        local = locals_at.setdefault(n, local_cache(notion, eps_c, at(n), rounds))  # rows at the same n share it
        rows.append(evaluate_row(enc, acc, at(n), eps_c, delta_at(n), notion, constraints, ps, local(enc, ps), rounds))
        flags.append(found is not None)
    rows = _finish(rows, target, f"not reachable with up to n = {n_max:,} respondents: ", flags)
    reached = [r for r, ok in zip(rows, flags, strict=True) if ok]
    words = f"certified rows within the constraints meeting {target}"
    ranked = (lambda r: (not r.ranked, not r.certified, r.n), lambda r: float(r.n), "n", words, reached)
    query = (delta, notion, rounds, constraints, target, "n", name)
    return table_of(rows, counts, ranked, query, eps_c, options.get("rule", DEFAULT_RULE))


@shared
def error_curve(
    counts,
    encoding: str,
    accountant: str,
    eps_cs,
    delta: float,
    kind: str = "rmse",
    notion: str = "replacement",
    params: tuple = (),
    rounds: int = 1,
) -> list[float | None]:
    """A row's predicted error at every eps_c of eps_cs (None where its accountant certifies nothing there)."""
    counts = check_counts(counts, None, delta, notion, rounds)
    params = tuple(sorted(get_encoding(encoding).check_params(dict(params)).items()))
    value = metric_at_eps(encoding, accountant, params, groups_of(counts), delta, notion, kind, rounds)
    return [value(float(e)) for e in eps_cs]
