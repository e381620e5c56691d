"""The planner: every encoding with every accountant that holds for it, side by side, analytically,
in both directions (docs/plan.md).

For a histogram (or n, d and a shape without data) and a central (eps_c, delta), ``plan_table``
returns one typed ``PlanRow`` per (encoding, accountant): the certified eps_c in one neighbouring
notion (replacement by default; removal accountants converted and the conversion named), the local
eps in the encoding's own notion and under replacement, messages and bits, the predicted raw RMSE
per bin (the oracle's analytic variance), the 95% confidence half-width, the predicted expected
l_inf error (Gaussian approximation), the same encoding without a shuffler at eps_l = eps_c, and
whether the row is certified and within the constraints, with the reason when not. The
recommendation is the certified row within the constraints with the least predicted error.

``solve_eps_c`` (a target error -> the smallest certified eps_c per row) and ``solve_n`` (a target
error at a fixed eps_c -> the smallest number of respondents with the same shape) are monotone
one-dimensional searches that land on the conservative side: the returned value meets the target.

Every number comes from ``plan()`` and the oracles' own variance: nothing here re-derives a bound
or a variance. The cost is independent of n (the analytic variances are evaluated once per distinct count,
Groups; the bounds are O(1) in d), and the inverses never build a d-length array.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np
from scipy.special import erfc

from ldpcore.errors import MAX_D, MAX_N, InputError, check_delta, check_eps, check_n, check_whole, require
from ldpcore.experiment.spec import Plan, ProtocolSpec, plan
from ldpcore.oracles import ENCODINGS, get_encoding
from ldpcore.oracles.direct import SupportAnalyzer
from ldpcore.oracles.onehot import OneHot
from ldpcore.privacy.bounds import search_precision, shared_inverses
from ldpcore.privacy.central import analytic_gaussian_sigma
from ldpcore.privacy.notions import on_notion, replacement_eps

NOTIONS = ("replacement", "native")


def _shared(fn):
    """Run fn with the bounds' inverses shared between the encodings that use the same bound."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        with shared_inverses():
            return fn(*args, **kwargs)

    return call


TARGETS = ("rmse", "relative_rmse", "linf")
TARGET_WORDS = {"rmse": "raw RMSE per bin", "relative_rmse": "relative RMSE (RMSE / mean count)", "linf": "l_inf"}
EPS_C_MAX = 10.0  # the inverse searches eps_c in [EPS_C_MIN, EPS_C_MAX]
EPS_C_MIN = 1e-3
N_MAX = 10**12  # the inverse in n searches up to this many respondents
SOLVE_RTOL = 2e-3  # relative precision of both inverses (the answer meets the target; 0.998 x it does not)
SEARCH_RTOL = 1e-5  # the inverses' trial points solve the accountants to this relative precision (conservative)
Z95 = 1.959963984540054  # the two-sided 95% normal quantile
LINF_NOTE = (
    "expected largest per-bin error of the raw estimate, from independent Gaussian errors with the "
    "analytic per-bin variances: E max_j |e_j| = integral of 1 - prod_j P(|e_j| <= t) dt"
)
NO_TOPK = "no top-k recall: no bin holds 1% of the respondents, or the largest counts tie beyond 10 bins"
HEAVY_SHARE = 0.01  # a heavy hitter holds at least this share of the respondents
TOPK_MAX = 10  # top-k recall: k = the heavy hitters, at most this many
TOPK_NOTE = (
    "expected fraction of the true top k bins (k: the bins holding at least 1% of the respondents, at most 10, "
    "fewer where the k-th and (k+1)-th counts tie) that are among the k largest estimates, with every bin's "
    "estimate an independent normal of its count and the oracle's analytic variance: P(bin i in the estimated "
    "top k) = E P(fewer than k other estimates exceed X_i), counted exactly over the 2k largest bins and as a "
    "Poisson count over the others"
)


@dataclass(frozen=True)
class Shape:
    """A distribution over d values without data: uniform, zipf (exponent s) or geometric (ratio r)."""

    kind: str
    parameter: float | None = None

    def __post_init__(self):
        require(
            self.kind in ("uniform", "zipf", "geometric"),
            f"shape must be uniform, zipf:S or geometric:R (got {self.kind!r}).",
        )
        if self.kind == "zipf":
            require(
                self.parameter is not None and math.isfinite(self.parameter) and 0 <= self.parameter <= 10,
                f"the Zipf exponent must lie in [0, 10] (got {self.parameter}).",
            )
        if self.kind == "geometric":
            require(
                self.parameter is not None and 0 < self.parameter < 1,
                f"the geometric ratio must lie strictly between 0 and 1 (got {self.parameter}).",
            )

    @classmethod
    def parse(cls, text: str) -> Shape:
        """'uniform', 'zipf:1.1' or 'geometric:0.99'."""
        kind, _, value = str(text).strip().partition(":")
        if kind == "uniform":
            require(not value, f"uniform takes no parameter (got {text!r}).")
            return cls("uniform")
        require(
            kind in ("zipf", "geometric") and bool(value),
            f"shape must be uniform, zipf:S or geometric:R (got {text!r}).",
        )
        try:
            number = float(value)
        except ValueError:
            raise InputError(f"the {kind} parameter must be a number (got {value!r}).") from None
        return cls(kind, number)

    def weights(self, d: int) -> np.ndarray:
        """The shape's probabilities over d values, largest first."""
        d = check_whole(d, 2, "the domain size d", MAX_D)
        i = np.arange(1, d + 1, dtype=np.float64)
        parameter = float(self.parameter) if self.parameter is not None else 0.0  # set for zipf and geometric
        if self.kind == "uniform":
            w = np.ones(d)
        elif self.kind == "zipf":
            w = i**-parameter
        else:
            w = parameter ** (i - 1)
        return w / w.sum()

    def __str__(self) -> str:
        return self.kind if self.parameter is None else f"{self.kind}:{self.parameter:g}"


def scaled_counts(weights: np.ndarray, n: int) -> np.ndarray:
    """Whole counts summing to n in proportion to weights (largest remainders; of equal remainders the larger
    shares first, so that bins of equal weight are interchangeable: _scaled_groups gives the same counts)."""
    n = check_n(n)
    w = np.asarray(weights, dtype=np.float64)
    exact = w / w.sum() * n
    counts = np.floor(exact).astype(np.int64)
    short = n - int(counts.sum())
    if short > 0:
        rem = exact - counts
        cut = np.partition(rem, rem.size - short)[rem.size - short]  # the short-th largest remainder
        above = rem > cut
        tied = np.flatnonzero(rem == cut)
        need = short - int(np.count_nonzero(above))  # >= 1: fewer than short remainders exceed the cut
        counts[above] += 1
        counts[tied[np.argpartition(-exact[tied], need - 1)[:need]]] += 1
    return counts


class Groups(NamedTuple):
    """A histogram by its distinct counts: values (ascending, int64), bins (how many of the d bins hold each,
    float64), n = sum(values x bins) and d = sum(bins). Every predicted error is a function of these."""

    values: np.ndarray
    bins: np.ndarray
    n: int
    d: int


def _groups(counts: np.ndarray) -> Groups:
    """The Groups of a histogram."""
    top = int(counts.max())
    if top <= 4 * counts.size + 1_000_000:  # small counts (images): bincount, O(d + top)
        mult = np.bincount(counts)
        values = np.flatnonzero(mult)
        bins = mult[values]
    else:
        values, bins = np.unique(counts, return_counts=True)
    return Groups(values.astype(np.int64), bins.astype(np.float64), int(counts.sum()), int(counts.size))


def _scaled_groups(weights: np.ndarray, bins: np.ndarray, total: float, n: int) -> Groups:
    """The Groups of scaled_counts(w, n) for a w holding bins[i] entries equal to weights[i] (distinct) and
    summing to total (w.sum(), as numpy adds it), in O(len(weights)) instead of O(d): the entries of one weight
    get the same exact share and remainder, so the largest-remainder split is made on the groups in
    scaled_counts' order (remainder, then share, descending), a group cut at most once."""
    exact = weights / total * n  # the same floats as scaled_counts' exact
    floor = np.floor(exact)
    base, held = floor.astype(np.int64), bins.astype(np.int64)
    short = n - int(np.dot(base, held))
    plus = np.zeros_like(held)
    if short > 0:
        order = np.lexsort((-exact, -(exact - floor)))
        before = np.cumsum(held[order]) - held[order]
        plus[order] = np.clip(short - before, 0, held[order])
    values, held = np.concatenate([base, base + 1]), np.concatenate([held - plus, plus])
    values, inverse = np.unique(values[held > 0], return_inverse=True)
    return Groups(values, np.bincount(inverse, weights=held[held > 0]), n, int(bins.sum()))


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


@dataclass(frozen=True)
class PlanRow:
    """One (encoding, accountant) at n respondents.

    eps_c: the central eps certified in the table's notion (None where the accountant is not valid);
    eps_c_native, delta_native, neighbouring: what the accountant itself certifies and in which notion;
    conversion: how eps_c was obtained from it. eps_l: local eps in the encoding's own notion
    (local_neighbouring), eps_l_replacement: under replacement for every encoding, eps_l_1: one attribute
    fragment (None where the encoding sends no fragments). rmse: predicted raw RMSE per bin (exact for
    unbiased estimators; rmse_note says what it is short of exact), ci95: the half-width of the 95%
    normal confidence interval of a bin of typical variance, linf: predicted expected l_inf error of the
    raw estimate, topk_recall: the predicted share of the true top topk bins among the estimated top topk
    (None without heavy hitters; topk_note says how, or why there is none), rmse_local_only: the same
    encoding without a shuffler at eps_l = eps_c (in the table's notion). certified: eps_c is certified and
    no error; within_constraints; reason: why the row is not ranked ("" if it is). plan: the underlying
    ldpcore Plan (None on error).
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
    reason: str = ""
    error: str = ""
    notes: tuple[str, ...] = ()
    params: tuple = ()
    plan: Plan | None = field(default=None, repr=False, compare=False)

    @property
    def ranked(self) -> bool:
        """Eligible for the recommendation: certified, valid and within the constraints."""
        return self.certified and not self.error and self.within_constraints

    @property
    def relative_rmse(self) -> float | None:
        return None if self.rmse is None else self.rmse * self.d / self.n

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
        return out


@dataclass(frozen=True)
class PlanTable:
    """Every row, the central Gaussian baseline at (eps_c, delta) in the table's notion, the
    recommendation (None if no row qualifies) and one sentence saying why. solve: None (forward at
    eps_c), 'eps_c' (each row at its smallest eps_c meeting target) or 'n' (each at its smallest n)."""

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

    def as_dict(self) -> dict:
        return {
            "input": self.name,
            "n": self.n,
            "d": self.d,
            "delta": self.delta,
            "notion": self.notion,
            "eps_c": self.eps_c,
            "solve": self.solve,
            "target": None if self.target is None else {"kind": self.target.kind, "value": self.target.value},
            "constraints": {"max_messages": self.constraints.max_messages, "max_bits": self.constraints.max_bits},
            "central_rmse": self.central_rmse,
            "central_note": self.central_note,
            "recommended": None if self.recommended is None else self.recommended.encoding,
            "recommended_accountant": None if self.recommended is None else self.recommended.accountant,
            "reason": self.reason,
            "linf_note": LINF_NOTE,
            "rows": [r.as_dict() for r in self.rows],
        }


# --- the pieces of a row ---------------------------------------------------------------------------


def _native(eps_c: float, delta: float, neighbouring: str, notion: str) -> tuple[float, float, str]:
    """(eps_c, delta) to ask the accountant for so that the row holds in the table's notion, and the words.

    A removal encoding (one-hot, the fragmented sketch) is accounted per shuffled channel: the accountant
    bounds one bin's channel when the respondent's bit there is 1 rather than 0. Replacing the respondent's
    value changes two bins, independent channels, so basic composition gives (2 eps, 2 delta); this is
    tighter than group privacy over remove-then-add, (2 eps, (1 + e^eps) delta)."""
    if notion == "native" or neighbouring == "replacement":
        return eps_c, delta, f"none: the encoding's own notion ({neighbouring})"
    return eps_c / 2, delta / 2, "replacement: the two changed bins' channels composed, (2 eps, 2 delta)"


def _certified_eps_c(p: Plan, neighbouring: str, notion: str) -> float:
    """The plan's certified eps_c in the table's notion (the inverse of _native): ldpcore.privacy.notions, the
    one conversion the dashboard's comparisons use too."""
    return on_notion(p.eps_c, neighbouring, notion).eps


def _variances(oracle, groups: Groups) -> np.ndarray:
    """Each distinct count's per-bin variance, at a cost independent of d. The variance of GRR, the unary
    encodings, local hashing, Hadamard response, MURS and one-hot is a function of the bin's own count (and
    n); a sketch's also depends on the other counts (collisions), through their distinct values
    (grouped_variance)."""
    values = groups.values
    if isinstance(getattr(oracle, "oracle", oracle), SupportAnalyzer | OneHot):
        var = oracle.variance(groups.n, values)
    else:
        var = oracle.grouped_variance(groups.n, values, groups.bins)
    return np.broadcast_to(np.asarray(var, dtype=np.float64), values.shape)


def _spread(var: np.ndarray, groups: Groups) -> tuple[float, float]:
    """(root mean variance, expected max |error|) from each distinct count's variance (_variances) and how
    many bins hold it: the l_inf integral runs over distinct counts only."""
    mult = groups.bins
    rmse = math.sqrt(float(np.dot(var, mult)) / float(mult.sum()))
    sd = np.sqrt(np.maximum(var, 0.0))
    keep = sd > 0
    sd, mult = sd[keep], mult[keep]
    if sd.size == 0:
        return rmse, 0.0
    # quantise the standard deviations upwards on a log grid (<= 0.2% each): few distinct values to integrate
    q = np.exp(np.ceil(np.log(sd) / 0.002) * 0.002)
    sd, inverse = np.unique(q, return_inverse=True)
    mult = np.bincount(inverse, weights=mult)
    top = float(sd.max())
    t = np.linspace(0.0, top * (math.sqrt(2 * math.log(2 * mult.sum())) + 7.0), 801)[1:]
    with np.errstate(divide="ignore"):
        log_cdf = (mult[:, None] * np.log1p(-erfc(t[None, :] / (sd[:, None] * math.sqrt(2))))).sum(axis=0)
    tail = -np.expm1(log_cdf)  # P(max > t)
    dt = t[1] - t[0]
    linf = float(dt * (1.0 + tail[0]) / 2 + np.trapezoid(tail, t))
    return rmse, linf


# the normal upper tail on a table (linear interpolation, error < 4e-6): np.interp is many times cheaper than erfc
_TAIL_Z = np.linspace(-9.0, 9.0, 3601)
_TAIL = 0.5 * erfc(_TAIL_Z / math.sqrt(2))
_NODES = np.linspace(-6.0, 6.0, 41)  # a top bin's standardised estimate: equally spaced quadrature nodes
_WEIGHTS = np.exp(-(_NODES**2) / 2) / np.exp(-(_NODES**2) / 2).sum()
_SURE = 8.0  # standard deviations beyond which a normal estimate is taken as certainly above or below (1e-15)
_CLUSTER = 0.2  # the other bins are pooled by count in widths of this many of their smallest standard deviation,
_POOLS = 256  # into at most about this many pools


def _upper(z):
    """P(Z > z) for a standard normal Z."""
    return np.interp(z, _TAIL_Z, _TAIL)


def _heavy_k(groups: Groups) -> int | None:
    """The k of the top-k recall (TOPK_NOTE), None without heavy hitters."""
    values, mult, n = groups.values, groups.bins, groups.n  # ascending
    if values[-1] < HEAVY_SHARE * n:
        return None
    cap = min(int(mult[values >= HEAVY_SHARE * n].sum()), TOPK_MAX, groups.d - 1)
    ends = np.cumsum(mult[::-1])  # bins down to each distinct count, largest first: a true top k ends at one
    fits = ends[ends <= cap]
    return int(fits[-1]) if fits.size else None


def _topk_recall(var: np.ndarray, groups: Groups, k: int) -> float:
    """The predicted top-k recall of TOPK_NOTE from each distinct count's variance (_variances). A top bin whose
    estimate is 8 standard deviations clear of every bin outside the top k is in the estimated top k (error
    < 1e-8 at d = 10^7); for each other top bin, the mean over its estimate x (quadrature) of P(fewer than k
    of the other bins exceed x), with the 2k largest bins counted one by one (Poisson-binomial), the rest
    pooled by count into a Poisson count. Nothing here is O(d)."""
    values = groups.values[::-1].astype(np.float64)  # largest first
    sd = np.sqrt(np.maximum(var[::-1], 0.0)) + 1e-9 * (1.0 + values)  # > 0: a zero variance is a step
    mult = groups.bins[::-1]
    head = min(2 * k, groups.d)
    ends = np.cumsum(mult)
    last = int(np.searchsorted(ends, head))  # the head's bins lie in the distinct counts [0, last]
    take = np.minimum(mult[: last + 1], head - np.r_[0.0, ends[:last]]).astype(np.int64)
    at = np.repeat(np.arange(last + 1), take)
    c, s = values[at], sd[at]
    rest = mult.copy()
    rest[: last + 1] -= take
    tail = np.flatnonzero(rest > 0)
    outside = max(
        (c[k:] + _SURE * s[k:]).max(initial=-math.inf), (values[tail] + _SURE * sd[tail]).max(initial=-math.inf)
    )
    unsure = np.flatnonzero(c[:k] - _SURE * s[:k] <= outside)
    if not unsure.size:
        return 1.0
    x = c[unsure, None] + s[unsure, None] * _NODES  # (unsure, nodes): their estimates
    lo, hi = x.min(), x.max()
    room = k - int(np.count_nonzero(c - _SURE * s > hi))  # fewer than room of the others may exceed x
    mid = np.flatnonzero((c - _SURE * s <= hi) & (c + _SURE * s >= lo))  # the head bins that may or may not
    p = _upper((x[None] - c[mid, None, None]) / s[mid, None, None])  # (mid, unsure, nodes): mid bin above x
    p[np.searchsorted(mid, unsure), np.arange(unsure.size)] = 0.0  # a bin does not compete with itself
    below = np.zeros(x.shape + (room,))  # P(exactly r of the mid bins exceed x), r < room
    below[..., 0] = 1.0
    for pj in p:
        moved = below * pj[..., None]
        below -= moved
        below[..., 1:] += moved[..., :-1]
    tail = tail[(lo - values[tail]) / sd[tail] < _SURE]  # the pooled bins that may exceed x
    lam = np.zeros(x.shape)
    if tail.size:
        m, ct, st = rest[tail], values[tail], sd[tail]
        width = max(_CLUSTER * st.min(), (ct[0] - ct[-1]) / _POOLS)
        key = np.floor((ct[0] - ct) / width).astype(np.int64)  # ct descending: key ascending
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        weight = np.add.reduceat(m, starts)
        centre = np.add.reduceat(m * ct, starts) / weight
        spread = np.sqrt(np.add.reduceat(m * st**2, starts) / weight)
        reach = x < (centre + spread * _SURE).max()
        z = (x[reach][None] - centre[:, None]) / spread[:, None]
        lam[reach] = weight @ _upper(z)
    term = np.empty(x.shape + (room,))  # P(Poisson(lam) = j), j < room
    term[..., 0] = np.exp(-lam)
    for j in range(1, room):
        term[..., j] = term[..., j - 1] * lam / j
    at_most = np.cumsum(term, axis=-1)[..., ::-1]  # at_most[..., r] = P(Poisson(lam) <= room - 1 - r)
    inside = (below * at_most).sum(axis=-1) @ _WEIGHTS  # P(each unsure top bin is in the estimated top k)
    return float(np.clip((k - unsure.size + inside.sum()) / k, 0.0, 1.0))


def _rmse(var: np.ndarray, groups: Groups) -> float:
    return math.sqrt(float(np.dot(var, groups.bins)) / float(groups.bins.sum()))


def _local_only(encoding: str, params: tuple, eps: float, groups: Groups) -> tuple[float | None, str]:
    """RMSE of the encoding as plain LDP at local eps (no shuffler). SOLH and MURS have no hash range without
    their shuffle bound: OLH at g = round(e^eps) + 1 (MURS on GRR: GRR) stands in; one-hot's eps is its
    removal eps_b."""
    name, note = encoding, ""
    if encoding in ("solh", "murs"):
        name = "grr" if dict(params).get("base") == "grr" else "olh"
        note = f"{'GRR' if name == 'grr' else 'OLH'} without a shuffler stands in for {encoding}"
        params = ()
    e = get_encoding(name)
    eps = min(eps, e.eps_limit(groups.d, e.check_params(dict(params))))
    try:
        oracle = _oracle_at_eps_l(name, params, eps, groups.d)
    except InputError as exc:
        return None, str(exc)
    return _rmse(_variances(oracle, groups), groups), note


def _row_numbers(
    encoding: str, accountant: str, params: tuple, n: int, d: int, eps_c: float, delta: float, notion: str
) -> tuple[Plan, float, str, float, str]:
    """(plan, eps_c in the table's notion, the accountant's notion, the native delta, conversion) or InputError."""
    e = get_encoding(encoding)
    native_eps, native_delta, conversion = _native(eps_c, delta, e.neighbouring, notion)
    spec = ProtocolSpec(eps_c=native_eps, delta=native_delta, encoding=encoding, accountant=accountant, params=params)
    p = plan(spec, n, d)
    return p, _certified_eps_c(p, e.neighbouring, notion), e.neighbouring, native_delta, conversion


def evaluate_row(
    encoding: str,
    accountant: str,
    counts: np.ndarray | Groups,
    eps_c: float,
    delta: float,
    notion: str = "replacement",
    constraints: Constraints = Constraints(),
    params: tuple = (),
    local_only: tuple[float | None, str] | None = None,
) -> PlanRow:
    """One row at n = sum(counts) (counts: the histogram or its Groups); an accountant that is not valid here
    gives a row with error set."""
    e = get_encoding(encoding)
    params = tuple(sorted(e.check_params(dict(params)).items()))
    groups = counts if isinstance(counts, Groups) else _groups(counts)
    n, d = groups.n, groups.d
    title = e.bound(accountant, dict(params)).title
    base: dict[str, Any] = dict(
        encoding=encoding, title=e.title, accountant=accountant, accountant_title=title, n=n, d=d
    )
    base.update(delta=delta, notion=notion, params=params)
    try:
        p, eps_c_cert, neighbouring, native_delta, conversion = _row_numbers(
            encoding, accountant, params, n, d, eps_c, delta, notion
        )
        oracle = p.oracle()
        var = _variances(oracle, groups)
        rmse, linf = _spread(var, groups)
        k = _heavy_k(groups)
        recall = None if k is None else _topk_recall(var, groups, k)
    except InputError as exc:
        return PlanRow(**base, certified=False, error=str(exc), reason=str(exc), within_constraints=False)
    replacement = replacement_eps(p.eps_b, e.neighbouring)
    messages, bpm = float(oracle.expected_messages()), int(oracle.bits_per_message)
    bits = messages * bpm
    broken = constraints.broken(messages, bits)
    reasons = []
    if not e.certified:
        reasons.append(f"eps_c is not certified for {encoding}: {e.privacy_note}")
    if broken:
        reasons.append(f"outside the constraints: {broken}")
    if local_only is None:
        local_eps = eps_c / 2 if (e.neighbouring == "removal" and notion == "replacement") else eps_c
        local_only = _local_only(encoding, params, local_eps, groups)
    return PlanRow(
        **base,
        certified=e.certified,
        eps_c=eps_c_cert,
        eps_c_native=p.eps_c,
        delta_native=native_delta,
        neighbouring=neighbouring,
        conversion=conversion,
        eps_l=p.eps_l_inf,
        eps_l_replacement=replacement,
        eps_l_1=p.eps_b if e.channel_k(d, dict(params)) == 2 else None,
        local_neighbouring=e.neighbouring,
        messages=messages,
        bits_per_message=bpm,
        bits_per_respondent=bits,
        rmse=rmse,
        rmse_note=oracle.variance_note,
        ci95=Z95 * rmse,
        linf=linf,
        topk=k,
        topk_recall=recall,
        topk_note=TOPK_NOTE if k is not None else NO_TOPK,
        rmse_local_only=local_only[0],
        local_only_note=local_only[1],
        within_constraints=not broken,
        reason="; ".join(reasons),
        notes=tuple(x for x in p.notes if x != e.privacy_note),
        plan=p,
    )


def _rows_wanted(encodings) -> list[tuple[str, str]]:
    names = list(ENCODINGS) if not encodings else list(dict.fromkeys(encodings))
    for name in names:
        get_encoding(name)  # an unknown name is refused with the list
    return [(name, acc) for name in names for acc in ENCODINGS[name].accountants]


def _check(counts, eps_c, delta, notion) -> np.ndarray:
    counts = np.asarray(counts)
    require(counts.ndim == 1 and counts.size >= 2, "the planner needs a histogram of at least 2 bins.")
    require(np.issubdtype(counts.dtype, np.integer) and bool((counts >= 0).all()), "counts must be whole numbers >= 0.")
    check_whole(counts.size, 2, "the domain size d", MAX_D)
    check_n(int(counts.sum()))
    if eps_c is not None:
        check_eps(eps_c, "eps_c")
    check_delta(delta)
    require(notion in NOTIONS, f"the notion must be one of {', '.join(NOTIONS)} (got {notion!r}).")
    return counts.astype(np.int64, copy=False)


def central_rmse(eps_c: float, delta: float, notion: str) -> tuple[float, str]:
    """The analytic Gaussian mechanism's sigma (= its RMSE per bin) at (eps_c, delta): L2 sensitivity 1
    under removal, sqrt(2) under replacement (one count down, another up)."""
    if notion == "replacement":
        return analytic_gaussian_sigma(
            eps_c, delta, math.sqrt(2)
        ), "analytic Gaussian, L2 sensitivity sqrt(2) (replacement)"
    return analytic_gaussian_sigma(eps_c, delta), "analytic Gaussian, L2 sensitivity 1 (removal)"


def _recommend(rows, key, words: str) -> tuple[PlanRow | None, str]:
    ranked = sorted((r for r in rows if r.ranked and math.isfinite(key(r))), key=key)
    if not ranked:
        return None, "no certified row meets the constraints" + (
            " and the target" if words != "predicted RMSE" else ""
        ) + "."
    best = ranked[0]
    other = next((r for r in ranked[1:] if r.encoding != best.encoding), None)
    why = (
        f"{best.encoding} with {best.accountant} has the lowest {words} ({key(best):.4g}) among the "
        f"certified rows within the constraints"
    )
    if other is None:
        return best, why + "; no other encoding qualifies."
    cost = f"{best.bits_per_respondent:,.0f} bits per respondent against {other.bits_per_respondent:,.0f}"
    return best, (
        f"{why}; the runner-up {other.encoding} with {other.accountant} gives {key(other):.4g} "
        f"({key(other) / key(best):.2f}x), at {cost}."
    )


def _local_cache(notion, eps_c, groups: Groups):
    cache = {}

    def get(encoding, params):
        key = (encoding, params)
        if key not in cache:
            e = get_encoding(encoding)
            local_eps = eps_c / 2 if (e.neighbouring == "removal" and notion == "replacement") else eps_c
            cache[key] = _local_only(encoding, params, local_eps, groups)
        return cache[key]

    return get


@_shared
def plan_table(
    counts,
    eps_c: float,
    delta: float,
    notion: str = "replacement",
    encodings=None,
    constraints: Constraints = Constraints(),
    params: dict | None = None,
    name: str = "",
) -> PlanTable:
    """Every (encoding, accountant) at eps_c on these counts; params: {encoding: {parameter: value}}."""
    counts = _check(counts, eps_c, delta, notion)
    groups = _groups(counts)
    local = _local_cache(notion, eps_c, groups)
    rows = []
    for enc, acc in _rows_wanted(encodings):
        ps = tuple(sorted(get_encoding(enc).check_params((params or {}).get(enc, {})).items()))
        rows.append(evaluate_row(enc, acc, groups, eps_c, delta, notion, constraints, ps, local(enc, ps)))
    rows.sort(key=lambda r: (not r.ranked, not r.certified, r.metric("rmse")))
    best, reason = _recommend(rows, lambda r: r.metric("rmse"), "predicted RMSE")
    central, note = central_rmse(eps_c, delta, notion)
    n, d = int(counts.sum()), int(counts.size)
    return PlanTable(tuple(rows), n, d, delta, notion, eps_c, central, note, best, reason, constraints, name=name)


def plan_shape(n: int, d: int, shape: Shape | str, eps_c: float, delta: float, **kw) -> PlanTable:
    """plan_table on n respondents spread over d values by a shape (no data needed)."""
    shape = Shape.parse(shape) if isinstance(shape, str) else shape
    return plan_table(
        scaled_counts(shape.weights(d), n), eps_c, delta, name=kw.pop("name", f"{shape} (n={n:,}, d={d:,})"), **kw
    )


# --- the inverses ------------------------------------------------------------------------------------


def _search(value_at, lo: float, hi: float, target: float, guess: float | None = None, slope: float | None = None):
    """The smallest x in [lo, hi] with value_at(x) <= target, for value_at non-increasing in x (inf where x is
    not valid, i.e. not meeting); (x, value) on the meeting side, or None if hi does not meet it.

    From a guess the bracket grows outwards along the secant through the last two values in (log x, log value)
    (the first step along slope, where given), aiming a little past the target (more after every miss), or by
    factors 2, 4, 16, ... where there is no secant, or to the edge of the tolerance where the secant puts the
    target within it; then the Illinois variant of regula falsi in the same
    coordinates narrows it to SOLVE_RTOL, testing the edge of the tolerance instead where the estimate falls
    within it of an end, and bisecting where a value is infinite."""
    memo: dict = {}

    def f(x):
        if x not in memo:
            memo[x] = value_at(x)
        return memo[x]

    def g(x):  # ln f(x) - ln target: <= 0 meets
        v = f(x)
        return math.inf if not math.isfinite(v) else (math.log(v) - math.log(target) if v > 0 else -math.inf)

    def along_secant(x, before):
        """Where the line through (before, x) in (log x, log value), or slope at x, meets the target (or None)."""
        gx, s = g(x), slope
        if before is not None:
            gb = g(before)
            s = (gx - gb) / (math.log(x) - math.log(before)) if math.isfinite(gb) and math.isfinite(gx) else None
        if s is None or not s < 0 or not math.isfinite(gx):
            return None
        return x * math.exp(min(-gx / s, 700.0))

    if guess is not None and lo < guess < hi:  # bracket outwards from the guess
        x, before, step, aim = guess, None, 2.0, SOLVE_RTOL / 4
        up = not f(x) <= target  # the crossing lies above x
        while True:
            y = along_secant(x, before)
            if y is not None and (x < y <= x * (1 + SOLVE_RTOL) if up else x / (1 + SOLVE_RTOL) <= y < x):
                y = x * (1 + 0.999 * SOLVE_RTOL) if up else x / (1 + 0.999 * SOLVE_RTOL)  # x is about the answer
            elif y is not None:
                y = y * (1 + aim) if up else y / (1 + aim)
            if y is None or (y <= x if up else y >= x):
                y, step = (x * step if up else x / step), step * step
            y = min(hi, y) if up else max(lo, y)
            if (f(y) <= target) == up:
                good, bad = (y, x) if up else (x, y)
                break
            if y == (hi if up else lo):
                return None if up else (lo, f(lo))
            before, x, aim = x, y, 4 * aim
    else:
        if not f(hi) <= target:
            return None
        if f(lo) <= target:
            return lo, f(lo)
        good, bad = hi, lo

    # the Illinois variant of regula falsi on g(u) = ln f(e^u) - ln target: superlinear, and both ends move
    gg, gb, side = g(good), g(bad), 0
    while not good / bad <= 1 + SOLVE_RTOL:
        if math.isfinite(gb) and math.isfinite(gg) and gb != gg:
            x = bad * (good / bad) ** (gb / (gb - gg))
        else:
            x = math.sqrt(good * bad)
        if x >= good / (1 + SOLVE_RTOL):  # within the tolerance of an end: its edge settles it if on the other side
            x = good / (1 + 0.999 * SOLVE_RTOL)
        elif x <= bad * (1 + SOLVE_RTOL):
            x = bad * (1 + 0.999 * SOLVE_RTOL)
        gx = g(x)
        if f(x) <= target:  # not gx <= 0: the logarithms may round a value just above the target to 0
            good, gg = x, min(gx, 0.0)
            if side == -1:
                gb /= 2
            side = -1
        else:
            bad, gb = x, gx
            if side == 1:
                gg /= 2
            side = 1
    return good, f(good)


def _error_of(var, groups: Groups, kind: str) -> float:
    if kind == "linf":
        return _spread(var, groups)[1]
    rmse = _rmse(var, groups)
    return rmse if kind == "rmse" else rmse * groups.d / groups.n


def _metric_at_eps(enc, acc, ps, groups: Groups, delta, notion, kind):
    """eps_c (table notion) -> the row's predicted error there (inf where the accountant certifies nothing, or
    is capped below eps_c: then a larger eps_c buys nothing)."""

    def value(eps):
        try:
            with search_precision(SEARCH_RTOL):  # a trial point; the answer's row is evaluated exactly
                p, *_ = _row_numbers(enc, acc, ps, groups.n, groups.d, eps, delta, notion)
            if p.amplification.capped:
                return math.inf
            return _error_of(_variances(p.oracle(), groups), groups, kind)
        except InputError:
            return math.inf

    return value


def _oracle_at_eps_l(encoding: str, params: tuple, eps_l: float, d: int):
    """The encoding's oracle at local eps_l: its accountant does not change the oracle (except SOLH's and
    MURS's hash range, which the callers exclude), and neither does n, so plan() is asked at the largest n
    and a loose delta, where the closed-form generic bound is valid for any eps_l the oracle takes."""
    spec = ProtocolSpec(eps_c=None, eps_l=eps_l, encoding=encoding, params=params, accountant="fmt21-closed", delta=0.1)
    return plan(spec, MAX_N, d).oracle()


def _smallest_eps_l(enc: str, ps: tuple, groups: Groups, kind: str, target: float):
    """The smallest local eps_l (the encoding's own) whose predicted error meets target, or None."""
    e = get_encoding(enc)
    limit = e.eps_limit(groups.d, dict(ps))

    def value(eps_l):
        try:
            return _error_of(_variances(_oracle_at_eps_l(enc, ps, eps_l, groups.d), groups), groups, kind)
        except InputError:
            return math.inf

    return _search(value, 1e-4, min(limit, 60.0), target)


def _row_eps_c_search(enc, acc, ps, groups: Groups, target: Target, delta, notion, eps_l_star):
    """The smallest eps_c of a row: from the smallest eps_l meeting the target (eps_l_star, shared by the rows
    of an encoding), the accountant's forward map gives the eps_c that certifies exactly that eps_l; it is
    checked through plan() (its inverse allows eps_l >= eps_l_star there) and stepped up if rounding left
    it short. SOLH, MURS and a forward map that is not valid there: the monotone search in eps_c."""
    f = _metric_at_eps(enc, acc, ps, groups, delta, notion, target.kind)
    guess = None
    if eps_l_star is not None:
        e = get_encoding(enc)
        bound = e.bound(acc, dict(ps))
        native_delta = _native(1.0, delta, e.neighbouring, notion)[1]
        try:
            amp = bound.forward(eps_l_star, groups.n, native_delta, e.channel_k(groups.d, dict(ps)))
        except InputError:
            amp = None
        if amp is not None and amp.valid and amp.eps_c is not None:
            x = amp.eps_c * (2 if (notion == "replacement" and e.neighbouring == "removal") else 1)
            if EPS_C_MIN <= x <= EPS_C_MAX:
                for _ in range(8):  # minimal: a smaller eps_c certifies only a smaller eps_l than eps_l_star
                    if f(x) <= target.value:
                        return x, f(x)
                    x *= 1 + SOLVE_RTOL / 2
                guess = x
    return _search(f, EPS_C_MIN, EPS_C_MAX, target.value, guess=guess)


def _local_slope(seen: dict[float, float], x: float) -> float | None:
    """The slope in (log x, log value) between x and the nearest other point evaluated (None if there is none
    with finite positive values, or the value does not fall)."""
    points = [(abs(math.log(y / x)), y) for y, v in seen.items() if y != x and 0 < v < math.inf]
    if not points or not 0 < seen.get(x, 0.0) < math.inf:
        return None
    y = min(points)[1]
    s = (math.log(seen[y]) - math.log(seen[x])) / (math.log(y) - math.log(x))
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


@_shared
def solve_eps_c(
    counts,
    target: Target,
    delta: float,
    notion: str = "replacement",
    encodings=None,
    constraints: Constraints = Constraints(),
    params: dict | None = None,
    name: str = "",
) -> PlanTable:
    """For each row the smallest certified eps_c in [EPS_C_MIN, EPS_C_MAX] whose predicted error meets the
    target (the row evaluated there; 0.998 x it does not meet it), or the row at EPS_C_MAX marked 'not
    reachable' with the reason."""
    counts = _check(counts, None, delta, notion)
    groups = _groups(counts)
    rows, flags, stars = [], [], {}
    for enc, acc in _rows_wanted(encodings):
        ps = tuple(sorted(get_encoding(enc).check_params((params or {}).get(enc, {})).items()))
        if (enc, ps) not in stars:
            shared = enc not in ("solh", "murs")
            found_l = _smallest_eps_l(enc, ps, groups, target.kind, target.value) if shared else None
            stars[(enc, ps)] = None if found_l is None else found_l[0]
        found = _row_eps_c_search(enc, acc, ps, groups, target, delta, notion, stars[(enc, ps)])
        at = EPS_C_MAX if found is None else found[0]
        rows.append(evaluate_row(enc, acc, groups, at, delta, notion, constraints, ps))
        flags.append(found is not None)
    rows = _finish(rows, target, f"not reachable below eps_c = {EPS_C_MAX:g}: ", flags)
    reached = [r for r, ok in zip(rows, flags, strict=True) if ok]
    rows.sort(key=lambda r: (not r.ranked, not r.certified, math.inf if r.eps_c is None else r.eps_c))
    best, reason = _recommend(reached, lambda r: math.inf if r.eps_c is None else r.eps_c, f"eps_c meeting {target}")
    n, d = int(counts.sum()), int(counts.size)
    return PlanTable(tuple(rows), n, d, delta, notion, None, None, "", best, reason, constraints, target, "eps_c", name)


@_shared
def solve_n(
    counts,
    eps_c: float,
    target: Target,
    delta: float,
    notion: str = "replacement",
    encodings=None,
    constraints: Constraints = Constraints(),
    params: dict | None = None,
    name: str = "",
    n_max: int = N_MAX,
) -> PlanTable:
    """For each row the smallest n (whole; counts scaled to n with the same shape, delta fixed) whose predicted
    error at eps_c meets the target, searched in [d, n_max] to SOLVE_RTOL; 'not reachable' with the reason
    otherwise. A raw RMSE target may be out of reach at any n (one-hot's raw RMSE hardly changes with n at
    a fixed eps_c); a relative RMSE falls with n."""
    counts = _check(counts, eps_c, delta, notion)
    start = _groups(counts)
    weights, total, d = start.values / start.n, float((counts / start.n).sum()), start.d
    memo: dict[int, Groups] = {}

    def at(n):  # the Groups of scaled_counts(counts / counts.sum(), n), without its O(d) arrays
        n = int(n)
        if n not in memo:
            memo[n] = _scaled_groups(weights, start.bins, total, n)
        return memo[n]

    rows, flags = [], []
    answers: dict = {}  # (encoding, params) and accountant -> (the last answer there, the slope at it)
    locals_at: dict = {}  # n -> _local_cache there
    for enc, acc in _rows_wanted(encodings):
        ps = tuple(sorted(get_encoding(enc).check_params((params or {}).get(enc, {})).items()))

        seen: dict[float, float] = {}

        def value(x, enc=enc, acc=acc, ps=ps, seen=seen):
            seen[x] = _metric_at_eps(enc, acc, ps, at(int(round(x))), delta, notion, target.kind)(eps_c)
            return seen[x]

        # from the data's own n, relative errors fall about as 1/n at first; raw ones hardly move: no guess.
        # The encoding's answer under its previous accountant, else another encoding's under this accountant,
        # with the slope found there, is a closer guess (accountants, and one-hot and its sketch, often nearly
        # agree).
        guess, slope = (float(start.n), -1.0) if target.kind != "rmse" else (None, None)
        guess, slope = answers.get((enc, ps), answers.get(acc, (guess, slope)))
        found = _search(value, max(d, 2), n_max, target.value, guess, slope)
        n = n_max if found is None else int(round(found[0]))
        if found is not None:
            answers[(enc, ps)] = answers[acc] = (found[0], _local_slope(seen, found[0]) or slope)
        local = locals_at.setdefault(n, _local_cache(notion, eps_c, at(n)))  # rows at the same n share it
        rows.append(evaluate_row(enc, acc, at(n), eps_c, delta, notion, constraints, ps, local(enc, ps)))
        flags.append(found is not None)
    rows = _finish(rows, target, f"not reachable with up to n = {n_max:,} respondents: ", flags)
    reached = [r for r, ok in zip(rows, flags, strict=True) if ok]
    rows.sort(key=lambda r: (not r.ranked, not r.certified, r.n))
    best, reason = _recommend(reached, lambda r: float(r.n), f"number of respondents meeting {target}")
    central, note = central_rmse(eps_c, delta, notion)
    n0 = int(counts.sum())
    return PlanTable(
        tuple(rows), n0, d, delta, notion, eps_c, central, note, best, reason, constraints, target, "n", name
    )


def standard_errors(oracle, n: int, estimate: np.ndarray, upper: float | None = None) -> np.ndarray:
    """Per-bin standard errors of an unbiased estimate by plug-in: the oracle's analytic variance at the
    estimate clipped to [0, upper] (default n) and rounded to whole counts."""
    upper = n if upper is None else upper
    plug = np.rint(np.clip(np.asarray(estimate, dtype=np.float64), 0, upper)).astype(np.int64)
    return np.sqrt(np.maximum(np.broadcast_to(oracle.variance(n, plug), plug.shape), 0.0))


def confidence_intervals(oracle, n: int, estimate: np.ndarray, level_z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) normal confidence intervals of every bin: estimate -+ z x plug-in standard error."""
    se = standard_errors(oracle, n, estimate)
    estimate = np.asarray(estimate, dtype=np.float64)
    return estimate - level_z * se, estimate + level_z * se


@_shared
def error_curve(
    counts,
    encoding: str,
    accountant: str,
    eps_cs,
    delta: float,
    kind: str = "rmse",
    notion: str = "replacement",
    params: tuple = (),
) -> list[float | None]:
    """A row's predicted error at every eps_c of eps_cs (None where its accountant certifies nothing there)."""
    counts = _check(counts, None, delta, notion)
    params = tuple(sorted(get_encoding(encoding).check_params(dict(params)).items()))
    value = _metric_at_eps(encoding, accountant, params, _groups(counts), delta, notion, kind)
    return [None if not math.isfinite(v := value(float(e))) else v for e in eps_cs]
