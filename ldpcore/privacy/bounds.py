"""Amplification by shuffling: local eps0 of n shuffled reports -> central (eps_c, delta).

A ``Bound`` is separate from any mechanism's parameters (as in Balle et al.'s
shuffleddp): it has a forward map eps0 -> eps_c, a validity region in eps0 (a reason
instead of a number outside it), the neighbouring notion, a citation and a paragraph
for the UI. The inverse (eps_c -> the largest valid eps0 whose certified eps_c <=
target) is generic: bracket and bisect, then step to the conservative side; a bound
with a closed form or a privacy curve brings its own fast inverse. Results are frozen
``Amplification`` objects, never bare floats. docs/accountants.md lists the bounds;
the numeric curves live in ldpcore.privacy.clones and ldpcore.privacy.tight.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from ldpcore.errors import InputError, check_delta, check_eps, check_whole, require
from ldpcore.privacy import clones, solver, tight
from ldpcore.privacy.guarantee import Guarantee, Neighbouring

EPS0_MIN, EPS0_MAX = 1e-6, 100.0  # numeric bounds are evaluated for eps0 in [EPS0_MIN, EPS0_MAX]
CAP_RTOL = 1e-9  # an inverse at the top of the region is capped when it certifies < target (1 - CAP_RTOL)


class BoundName(StrEnum):
    """The name of every amplification bound (the CLI's --accountant/--bound values, the URLs')."""

    CHEU19 = "cheu19"
    ESA_THM31 = "esa-thm3.1"
    TIGHT_BINARY_RR = "tight-binary-rr"
    EFMRTT19 = "efmrtt19"
    FMT21_CLOSED = "fmt21-closed"
    FMT21_NUMERIC = "fmt21-numeric"
    STRONGER_CLONE = "stronger-clone"
    BLANKET_KRR = "blanket-krr"
    BLANKET_HOEFFDING = "blanket-hoeffding"
    BLANKET_BENNETT = "blanket-bennett"
    SOLH = "solh"
    MURS = "murs"  # built per protocol for its fake reports (ldpcore.oracles.fake_reports.murs_bound)


class Randomizer(StrEnum):
    """The family of local randomizers a bound holds for, and an encoding's shuffled channel belongs to.

    Binary randomized response is k-RR with k = 2, and k-RR is an eps0-LDP randomizer, so a bound for
    a wider family holds for the narrower ones (``within``). Local hashing whose range the accountant
    chooses (SOLH) takes its parameters from its own bound, so only that bound applies to it.
    """

    BINARY_RR = "binary randomized response"
    K_RR = "k-ary randomized response"
    ANY_LDP = "any eps0-LDP randomizer"
    SOLH = "local hashing on the range the bound chooses"

    @property
    def within(self) -> tuple[Randomizer, ...]:
        """This family and every wider one, narrowest first."""
        return {
            Randomizer.BINARY_RR: (Randomizer.BINARY_RR, Randomizer.K_RR, Randomizer.ANY_LDP),
            Randomizer.K_RR: (Randomizer.K_RR, Randomizer.ANY_LDP),
            Randomizer.ANY_LDP: (Randomizer.ANY_LDP,),
            Randomizer.SOLH: (Randomizer.SOLH,),
        }[self]


@dataclass(frozen=True)
class Amplification:
    """One evaluation of a bound: eps0 local, eps_c central at (n, delta).

    valid is False (and reason says why) where the bound certifies nothing; eps_c is
    then None. capped is True when an inverse hit the top of the validity region and the
    eps_c certified there is below the target asked for (by more than CAP_RTOL). note says
    when the trivial bound was used instead (an eps0-LDP report is eps0-DP after shuffling,
    so eps_c <= eps0 always holds). extra holds bound-specific details (SOLH's hash range,
    the tight accountant's worst case).
    """

    bound: str
    eps0: float | None
    eps_c: float | None
    n: int
    delta: float
    neighbouring: Neighbouring
    citation: str
    valid: bool = True
    reason: str = ""
    capped: bool = False
    target_eps_c: float | None = None
    note: str = ""
    extra: dict = field(default_factory=dict, hash=False)

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    @property
    def guarantee(self) -> Guarantee:
        """The certified eps_c (or why there is none) as a Guarantee."""
        if self.eps_c is None:
            return Guarantee.invalid(self.bound, self.neighbouring, self.delta, self.reason)
        return Guarantee(self.eps_c, self.bound, self.neighbouring, self.delta)


@dataclass(frozen=True)
class Bound:
    """A shuffle amplification bound.

    forward(eps0, n, delta, k) -> eps_c, increasing in eps0.
    region(n, delta, k) -> (lo, hi, reason): the eps0 interval where the bound holds,
    or reason != "" if it holds nowhere for these (n, delta, k). k is the domain size
    (or SOLH's hash range) for bounds that use one.
    inverse_fn(eps_c, n, delta, k) -> eps0, optional: the largest eps0 in the region
    with forward <= eps_c, called only when the region's ends bracket eps_c.
    certify_fn(eps_c, eps0, n, delta, k) -> bool, optional: whether eps0 certifies eps_c
    (forward <= eps_c) without computing the forward; a bound given by a privacy curve
    checks delta(eps_c; eps0) <= delta in one evaluation, and its inverse reports eps_c itself.
    extra_fn(eps0, n, delta, k) -> dict, optional: details of a valid result.
    open_top: the region is [lo, hi) (the theorem needs eps0 < hi).
    exact_forward(eps0, n, delta) -> (eps_c, extra) and exact_inverse(eps_c, n, delta, hi) ->
    (eps0, extra), optional: solvers whose answers are already certified (the tight accountant).
    solves: forward_fn and inverse_fn (or exact_forward and exact_inverse) take a last argument
    rtol > 0, for a curve's points: certified, but up to a relative rtol on the safe side of the
    exact answer (forward and inverse pass it on; other bounds are exact at no extra cost).
    holds_for: the widest randomizer family the bound holds for as an encoding's accountant (the
    encodings' accountants are derived from it, accountants_for); rank: its place when offered for
    a family other than binary RR (tightest first at typical parameters).
    Every result respects the trivial bound eps_c <= eps0 (and says so in note when it is used).
    """

    name: BoundName
    title: str
    citation: str
    applies_to: str
    neighbouring: Neighbouring
    forward_fn: Callable[..., float]
    region_fn: Callable[[int, float, int | None], tuple[float, float, str]]
    inverse_fn: Callable[..., float] | None = None
    certify_fn: Callable[[float, float, int, float, int | None], bool] | None = None
    extra_fn: Callable[[float, int, float, int | None], dict] | None = None
    open_top: bool = False
    exact_forward: Callable[..., tuple[float, dict]] | None = None
    exact_inverse: Callable[..., tuple[float, dict]] | None = None
    solves: bool = False
    explanation: str = ""
    holds_for: Randomizer = Randomizer.ANY_LDP
    rank: int = 0

    def _result(self, eps0, eps_c, n, delta, k, **kw) -> Amplification:
        if eps_c is not None and self.extra_fn is not None and not kw.get("extra"):
            kw["extra"] = self.extra_fn(eps0, n, delta, k)
        return Amplification(self.name, eps0, eps_c, n, delta, self.neighbouring, self.citation, **kw)

    def region(self, n: int, delta: float, k=None) -> tuple[float, float, str]:
        """The closed interval of eps0 where the bound holds (or a reason it holds nowhere)."""
        lo, hi, reason = self.region_fn(n, delta, k)
        return lo, (math.nextafter(hi, 0.0) if self.open_top else hi), reason

    def _region_text(self, n: int, delta: float, k) -> str:
        lo, hi, _ = self.region_fn(n, delta, k)
        return f"[{lo:.4g}, {hi:.4g}{')' if self.open_top else ']'}"

    def forward(self, eps0: float, n: int, delta: float, k: int | None = None, rtol: float = 0.0) -> Amplification:
        """Central eps_c of n shuffled eps0-LDP reports, or not valid with a reason. rtol > 0: for a
        curve, an eps_c that still holds but may lie up to a relative rtol above the smallest one."""
        rtol = rtol or getattr(_SHARED, "rtol", 0.0)  # search_precision()
        eps0, n, delta = check_eps(eps0, "eps0"), check_whole(n, 1, "n (respondents)"), check_delta(delta)
        lo, hi, reason = self.region(n, delta, k)
        if not reason and not lo <= eps0 <= hi:
            reason = (
                f"{self.title} holds for eps0 in {self._region_text(n, delta, k)} at n={n:,}, "
                f"delta={delta:g}; eps0={eps0:.4g} is outside."
            )
        if reason:
            return self._result(eps0, None, n, delta, k, valid=False, reason=reason)
        extra: dict = {}
        coarse = (rtol,) if rtol > 0 and self.solves else ()
        if self.exact_forward is not None:
            eps_c, extra = self.exact_forward(eps0, n, delta, *coarse)
        else:
            eps_c = self.forward_fn(eps0, n, delta, k, *coarse)
        if eps_c > eps0:
            return self._result(eps0, eps0, n, delta, k, note=TRIVIAL, extra=extra)
        return self._result(eps0, eps_c, n, delta, k, **({"extra": extra} if extra else {}))

    def inverse(self, eps_c: float, n: int, delta: float, k: int | None = None, rtol: float = 0.0) -> Amplification:
        """The largest eps0 the bound certifies at eps_c (conservative side), at least eps_c (trivial).
        rtol > 0: for a curve, an eps0 the bound certifies that may lie up to a relative rtol below the largest.
        Inside shared_inverses() the results (frozen) are memoised: encodings that share a bound share it."""
        rtol = rtol or getattr(_SHARED, "rtol", 0.0)  # search_precision()
        memo = getattr(_SHARED, "memo", None)
        if memo is None:
            return self._inverse(eps_c, n, delta, k, rtol)
        key = (self, eps_c, n, delta, k, rtol)
        if key not in memo:
            memo[key] = self._inverse(eps_c, n, delta, k, rtol)
        return memo[key]

    def _inverse(self, eps_c: float, n: int, delta: float, k: int | None = None, rtol: float = 0.0) -> Amplification:
        eps_c, n, delta = check_eps(eps_c), check_whole(n, 1, "n (respondents)"), check_delta(delta)
        lo, hi, reason = self.region(n, delta, k)
        if reason:
            return self._result(None, None, n, delta, k, valid=False, reason=reason, target_eps_c=eps_c)
        f = lambda e: self.forward_fn(e, n, delta, k)  # noqa: E731
        certify = self.certify_fn
        if certify is None:
            ok = lambda e: f(e) <= eps_c  # noqa: E731
        else:
            ok = lambda e: certify(eps_c, e, n, delta, k)  # noqa: E731
        if not ok(lo):
            alone = (
                f"{self.title} alone cannot certify eps_c={eps_c:g} at n={n:,}, delta={delta:g}: its "
                f"smallest certified value is {f(lo):.4g} (at eps0={lo:.4g})."
            )
            return self._result(eps_c, eps_c, n, delta, k, target_eps_c=eps_c, note=f"{TRIVIAL} {alone}")
        if ok(hi):
            top = f(hi)
            if hi < eps_c:
                return self._result(eps_c, eps_c, n, delta, k, target_eps_c=eps_c, note=TRIVIAL)
            return self._result(hi, top, n, delta, k, capped=top < eps_c * (1 - CAP_RTOL), target_eps_c=eps_c)
        coarse = (rtol,) if rtol > 0 and self.solves else ()
        if self.exact_inverse is not None:
            eps0, extra = self.exact_inverse(eps_c, n, delta, hi, *coarse)
            return self._result(eps0, eps_c, n, delta, k, target_eps_c=eps_c, extra=extra)
        if self.inverse_fn is None:
            eps0 = solver.root(f, eps_c, lo, hi, xtol=1e-13, rtol=1e-15)
        else:
            eps0 = self.inverse_fn(eps_c, n, delta, k, *coarse)
        eps0 = solver.settle(ok, eps0, lo, single_steps=0)  # land on the conservative side; ok(lo) holds
        if eps0 < eps_c:
            return self._result(eps_c, eps_c, n, delta, k, target_eps_c=eps_c, note=TRIVIAL)
        return self._result(eps0, eps_c if self.certify_fn else f(eps0), n, delta, k, target_eps_c=eps_c)


_SHARED = threading.local()


@contextlib.contextmanager
def shared_inverses():
    """Within this block (in this thread) Bound.inverse remembers its results: a caller evaluating many
    encodings that share bounds (the planner) computes each inverse once. Outside it nothing is kept."""
    outer = getattr(_SHARED, "memo", None)
    if outer is None:
        _SHARED.memo = {}
    try:
        yield
    finally:
        if outer is None:
            _SHARED.memo = None


@contextlib.contextmanager
def search_precision(rtol: float):
    """Within this block (in this thread) Bound.inverse and Bound.forward solve privacy curves to a relative rtol
    instead of adjacent floats: each eps0 is still certified, at most a relative rtol below the largest, and
    each eps_c still holds, at most a relative rtol above the smallest. For a search that evaluates many
    trial points (the planner's inverses) and then evaluates its answer exactly."""
    outer = getattr(_SHARED, "rtol", 0.0)
    _SHARED.rtol = rtol
    try:
        yield
    finally:
        _SHARED.rtol = outer


TRIVIAL = (
    "the trivial bound: an eps0-LDP report is eps0-DP after shuffling (delta = 0), which is tighter "
    "than this bound here."
)


def _check_k(k, bound: str = "", required: bool = False) -> int | None:
    """The domain size k: a whole number >= 2, or None unless the bound requires it."""
    if k is None:
        require(not required, f"{bound} needs the domain size k (--domain).")
        return None
    return check_whole(k, 2, "the domain size k")


# --- EFMRTT'19 (Erlingsson et al. 2019 Theorem 8): any eps0-LDP randomizers, shuffled before randomizing ---


def _efmrtt_forward(eps0, n, delta, k):
    return 12 * eps0 * math.sqrt(math.log(1 / delta) / n)


def _efmrtt_inverse(eps_c, n, delta, k):
    return eps_c / (12 * math.sqrt(math.log(1 / delta) / n))


def _efmrtt_region(n, delta, k):
    if n < 1000:
        return 0.0, 0.0, f"too few respondents for amplification: Theorem 8 needs n >= 1000 (n={n:,})."
    if delta >= 0.01:
        return 0.0, 0.0, f"Theorem 8 needs delta < 1/100 (delta={delta:g})."
    return 0.0, 0.5, ""  # 0 < eps0 < 1/2 (open_top)


# --- Cheu et al. (Erlingsson et al. 2020 Lemma II.6): binary RR with flip probability lambda/(2n) ---


def cheu_eps_of_lambda(lam: float, n: int, delta: float) -> float:
    """eps_c of shuffled binary RR flipping w.p. lambda/(2n), lambda in [14 ln(4/delta), n]."""
    m = lam - math.sqrt(2 * lam * math.log(2 / delta))
    return math.sqrt(32 * math.log(4 / delta) / m) * (1 - m / n)


def _cheu_forward(eps0, n, delta, k):
    return cheu_eps_of_lambda(2 * n / (math.exp(eps0) + 1), n, delta)


def _cheu_inverse(eps_c, n, delta, k):
    """Lemma II.6 solved exactly: with m = lambda - sqrt(2 lambda ln(2/delta)) and C = 32 ln(4/delta),
    eps_c^2 m = C (1 - m/n)^2 is a quadratic in m (take the root in (0, n]); then sqrt(lambda)
    solves s^2 - sqrt(2 ln(2/delta)) s - m = 0, and eps0 = ln(2n/lambda - 1)."""
    c, b2 = 32 * math.log(4 / delta), 2 * math.log(2 / delta)
    b = 2 * c / n + eps_c**2
    m = 2 * c / (b + math.sqrt(b * b - 4 * c * c / n**2))  # the smaller root, stably
    s = (math.sqrt(b2) + math.sqrt(b2 + 4 * m)) / 2
    return math.log(2 * n / (s * s) - 1)


def _cheu_region(n, delta, k):
    lam_min = 14 * math.log(4 / delta)
    if n <= lam_min:
        return (
            0.0,
            0.0,
            (
                f"too few respondents for amplification: Lemma II.6 needs n > 14 ln(4/delta) = "
                f"{lam_min:.1f} at delta={delta:g} (n={n:,})."
            ),
        )
    # eps0 = ln(2n/lambda - 1); lambda = n gives eps0 = 0 (coin flips) with eps_c > 0.
    return 0.0, math.log(2 * n / lam_min - 1), ""


# --- ESA Theorem III.1: the closed form of the same lemma ---


def _thm31_forward(eps0, n, delta, k):
    return math.sqrt(64 * math.exp(eps0) * math.log(4 / delta) / n)


def _thm31_region(n, delta, k):
    hi = math.log(n) - math.log(14 * math.log(4 / delta))
    if hi < 1:
        return (
            0.0,
            0.0,
            (
                f"too few respondents for amplification: Theorem III.1 needs ln n - ln(14 ln(4/delta)) >= 1 "
                f"(n={n:,}, delta={delta:g} give {hi:.3g})."
            ),
        )
    return 1.0, hi, ""


# --- FMT'21 closed form (docs/accountants.md) ---


def _fmt_closed_forward(eps0, n, delta, k):
    e = math.exp(eps0)
    return math.log1p(math.tanh(eps0 / 2) * (8 * math.sqrt(e * math.log(4 / delta) / n) + 8 * e / n))


def _fmt_closed_region(n, delta, k):
    hi = math.log(n / (16 * math.log(2 / delta)))
    if hi <= 0:
        return (
            0.0,
            0.0,
            (
                f"too few respondents for amplification: the clones closed form needs "
                f"n > 16 ln(2/delta) = {16 * math.log(2 / delta):.1f} (n={n:,})."
            ),
        )
    return 0.0, hi, ""


# --- Balle et al. k-RR closed form = shuffled GRR; SOLH is GRR on the hash range d' ---


def blanket_a(eps_c: float, n: int, delta: float) -> float:
    """A = (n-1) eps_c^2/(14 ln(2/delta)) = e^eps0 + k - 1 at eps_c (docs/encodings.md)."""
    return (n - 1) * eps_c**2 / (14 * math.log(2 / delta))


def blanket_limit(delta: float) -> float:
    """The largest eps_c of the k-RR blanket closed form: min(1, 14 ln(2/delta)/27) (Balle et al. 2019
    Theorem 3.1 needs eps_c <= 1 and gamma >= 27k/((n-1) eps_c))."""
    return min(1.0, 14 * math.log(2 / delta) / 27)


def _krr_forward(eps0, n, delta, k):
    return math.sqrt(14 * math.log(2 / delta) * (math.exp(eps0) + k - 1) / (n - 1))


def krr_eps0(eps_c: float, n: int, delta: float, k: int | None) -> float:
    """The k-RR blanket closed form solved for eps0: ln(A - k + 1) (T. Wang et al. 2019, Theorem 1); A > k is
    the caller's, and so is k (the k-RR bound requires it)."""
    if k is None:
        raise InputError("the k-RR blanket bound needs the domain size k (--domain).")
    return math.log(blanket_a(eps_c, n, delta) - k + 1)


def _blanket_region(n, delta, k, floor_k, what, inverse):
    """[0, inverse at blanket_limit] for a k-RR blanket bound, or why it is empty: with A at the limit
    <= floor_k (the alphabet at eps0 = 0), even eps0 = 0 exceeds the limit."""
    cap = blanket_limit(delta)
    if n < 2 or blanket_a(cap, n, delta) <= floor_k:
        floor = math.sqrt(14 * math.log(2 / delta) * floor_k / max(n - 1, 1))
        return (
            0.0,
            0.0,
            (
                f"too few respondents for amplification: {what} gives eps_c >= sqrt(14 ln(2/delta) "
                f"{floor_k}/(n-1)) = {floor:.4g} even at eps0 = 0, above its limit {cap:.4g} (n={n:,})."
            ),
        )
    return 0.0, inverse(cap, n, delta, k), ""


def _krr_region(n, delta, k):
    k = _check_k(k, BoundName.BLANKET_KRR, required=True)
    return _blanket_region(n, delta, k, k, "the k-RR blanket", krr_eps0)


def solh_hash_range(x: float, k: int | None) -> int:
    """Hash range d' at e^eps0 = x: k if fixed, else ceil((x-1)/2) >= 2.

    At fixed eps_c the variance-optimal range is d' = (A+2)/3 with e^eps0 = A - d' + 1
    (T. Wang et al. 2019), i.e. d' = (e^eps0 + 1)/2; this rule stays within 1 below it and is
    non-decreasing, so the forward is monotone and has an exact inverse.
    """
    return k if k is not None else max(2, math.ceil((x - 1) / 2))


def _solh_forward(eps0, n, delta, k):
    return _krr_forward(eps0, n, delta, solh_hash_range(math.exp(eps0), k))


def _solh_inverse(eps_c, n, delta, k):
    """Largest x = e^eps0 with x + d'(x) - 1 <= A: d' = ceil((A+2)/3) - 1 (= floor((A+2)/3) unless an integer)."""
    if k is not None:
        return krr_eps0(eps_c, n, delta, k)
    a = blanket_a(eps_c, n, delta)
    d = max(2, math.ceil((a + 2) / 3) - 1)
    return math.log(min(a - d + 1, 2 * d + 1))  # x in (2d-1, 2d+1] maps to d


def _solh_region(n, delta, k):
    k = _check_k(k)
    return _blanket_region(n, delta, k, k or 2, "SOLH", _solh_inverse)


def _solh_extra(eps0, n, delta, k):
    return {"hash_range": solh_hash_range(math.exp(eps0), k)}


# --- bounds given as a privacy curve delta(eps; eps0, n): ldpcore.privacy.clones, ldpcore.privacy.tight ---


def _curve_bound(curve: Callable[[float, float, int, int | None], float], uses_k: bool = False) -> dict:
    """forward_fn, region_fn, inverse_fn and certify_fn of a bound given by its privacy curve delta(eps; eps0, n, k).

    The region is [EPS0_MIN, EPS0_MAX]: below, eps0-LDP alone already gives eps_c < 1e-6;
    above, nothing is left to amplify. uses_k: k (optional) selects a k-specific curve, else it
    is ignored.
    """

    def forward(eps0, n, delta, k, rtol=0.0):
        return tight.smallest_eps(lambda e: curve(e, eps0, n, k), eps0, delta, rtol)

    def inverse(eps_c, n, delta, k, rtol=0.0):
        if rtol > 0:
            return tight.largest_eps0(lambda e0: curve(eps_c, e0, n, k), eps_c, EPS0_MAX, delta, rtol, rtol / 4)
        return tight.largest_eps0(lambda e0: curve(eps_c, e0, n, k), eps_c, EPS0_MAX, delta)

    def certify(eps_c, eps0, n, delta, k):
        return curve(eps_c, eps0, n, k) <= delta

    def region(n, delta, k):
        if uses_k:
            _check_k(k)
        return EPS0_MIN, EPS0_MAX, ""

    return dict(forward_fn=forward, region_fn=region, inverse_fn=inverse, certify_fn=certify, solves=True)


def _clones_curve(p_clone: Callable[[float], float]):
    return lambda eps, eps0, n, k: clones.clones_delta(eps, eps0, n, p_clone(eps0))


BOUNDS: dict[BoundName, Bound] = {}
ALIASES = {
    "paper": BoundName.CHEU19,
    "lemma-ii.6": BoundName.CHEU19,
    "thm3.1": BoundName.ESA_THM31,
    "tight": BoundName.TIGHT_BINARY_RR,
    "grr-shuffle": BoundName.BLANKET_KRR,
    "clones": BoundName.FMT21_NUMERIC,
}


def register(bound: Bound) -> Bound:
    BOUNDS[bound.name] = bound
    return bound


_ESA = "Erlingsson et al., Encode, Shuffle, Analyze Privacy Revisited (2020)"
_BALLE = "Balle, Bell, Gascon, Nissim, The privacy blanket of the shuffle model (CRYPTO 2019)"
_FMT21 = "Feldman, McMillan, Talwar, Hiding among the clones (FOCS 2021)"
_FMT23 = (
    "Feldman, McMillan, Talwar, Stronger privacy amplification by shuffling for Renyi and "
    "approximate differential privacy (SODA 2023)"
)

register(
    Bound(
        BoundName.CHEU19,
        "Lemma II.6 (Cheu et al.)",
        f"{_ESA}, Lemma II.6, from "
        "Cheu, Smith, Ullman, Zeber, Zhilyaev, Distributed differential privacy via shuffling (EUROCRYPT 2019)",
        "binary randomized response (one attribute-fragment channel)",
        Neighbouring.ADD_OR_REMOVE_ONE,
        _cheu_forward,
        _cheu_region,
        inverse_fn=_cheu_inverse,
        explanation="The bound the ESA paper uses for attribute fragments: binary randomized response that "
        "flips each bit with probability lambda/(2n) is (eps_c, delta)-DP once shuffled, for "
        "lambda >= 14 ln(4/delta). The paper's tables are computed with it.",
        holds_for=Randomizer.BINARY_RR,
        rank=8,
    )
)
register(
    Bound(
        BoundName.ESA_THM31,
        "Theorem III.1 closed form",
        f"{_ESA}, Theorem III.1",
        "binary randomized response (one attribute-fragment channel)",
        Neighbouring.ADD_OR_REMOVE_ONE,
        _thm31_forward,
        _thm31_region,
        explanation="A simpler closed form of Lemma II.6, eps_c = sqrt(64 e^eps0 ln(4/delta)/n), for eps0 "
        "between 1 and ln n - ln(14 ln(4/delta)); looser than the lemma it comes from.",
        holds_for=Randomizer.BINARY_RR,
        rank=9,
    )
)


def _tight_region(n, delta, k):
    if n < 2:
        return 0.0, 0.0, f"the exact curve needs n >= 2 respondents: one alone has nobody to hide among (n={n:,})."
    if n > tight.N_MAX:
        return 0.0, 0.0, f"the exact curve takes n <= {tight.N_MAX:,} respondents (n={n:,})."
    return EPS0_MIN, EPS0_MAX, ""


def _worst(worst, n) -> dict:
    """How many of the other n-1 respondents hold the target's value in the worst case found (a range when
    a block of such counts was bounded at once)."""
    return {"worst_c": [worst.ones, worst.ones + (n - 1 - worst.crowd)]}


def _tight_forward(eps0, n, delta, rtol=0.0):
    eps_c, worst = tight.removal_forward(eps0, n, delta, rtol)
    return eps_c, _worst(worst, n)


def _tight_inverse(eps_c, n, delta, hi, rtol=0.0):
    eps0, worst = tight.removal_inverse(eps_c, n, delta, hi, rtol)
    return eps0, _worst(worst, n)


register(
    Bound(
        BoundName.TIGHT_BINARY_RR,
        "exact shuffled binary RR",
        f"{_ESA}; the exact privacy curve of one attribute-fragment channel, in the worst case over the other "
        "respondents' data (this project's tight accountant)",
        "binary randomized response (one attribute-fragment channel)",
        Neighbouring.ADD_OR_REMOVE_ONE,
        lambda eps0, n, delta, k: _tight_forward(eps0, n, delta)[0],
        _tight_region,
        certify_fn=lambda eps_c, eps0, n, delta, k: tight.certifies(eps_c, eps0, n, delta),
        exact_forward=_tight_forward,
        exact_inverse=_tight_inverse,
        solves=True,
        explanation="Each bin of an attribute-fragmented report is shuffled binary randomized response, whose "
        "privacy curve can be computed exactly from binomial probabilities; the worst case over how "
        "many of the other respondents hold the same value is searched. No bound is tighter: at the "
        "same eps_c it allows eps_l about 2 nats above Lemma II.6 (Horse: 10.68 instead of 8.55), "
        "i.e. several times lower error. worst_c is how many of the others hold the target's value "
        "in the worst case found (a range where a block of counts was bounded together).",
        holds_for=Randomizer.BINARY_RR,
        rank=0,
    )
)
register(
    Bound(
        BoundName.EFMRTT19,
        "Theorem 8 (Erlingsson et al. 2019)",
        "Erlingsson, Feldman, Mironov, Raghunathan, Talwar, Thakurta, Amplification by shuffling: from local to "
        "central differential privacy via anonymity (SODA 2019), Theorem 8",
        "any eps0-LDP randomizers (also adaptive), shuffled before randomizing; eps0 < 1/2",
        Neighbouring.REPLACE_ONE,
        _efmrtt_forward,
        _efmrtt_region,
        inverse_fn=_efmrtt_inverse,
        open_top=True,
        explanation="The first amplification-by-shuffling theorem: n shuffled reports of eps0-LDP randomizers "
        "are (12 eps0 sqrt(ln(1/delta)/n), delta)-DP. It needs n >= 1000, eps0 < 1/2 and "
        "delta < 1/100, and its constant 12 makes it the loosest bound here.",
        holds_for=Randomizer.ANY_LDP,
        rank=7,
    )
)
register(
    Bound(
        BoundName.FMT21_CLOSED,
        "clones closed form (Feldman et al. 2021)",
        f"{_FMT21}, closed-form amplification bound as published (prefactor (e^eps0-1)/(e^eps0+1), region "
        "eps0 <= ln(n/(16 ln(2/delta))))",
        "any eps0-LDP randomizers",
        Neighbouring.REPLACE_ONE,
        _fmt_closed_forward,
        _fmt_closed_region,
        explanation="Every other respondent's report is, with probability e^-eps0, a 'clone' of the target's, "
        "so the target hides among about n e^-eps0 clones: eps_c = ln(1 + (e^eps0-1)/(e^eps0+1) "
        "(8 sqrt(e^eps0 ln(4/delta)/n) + 8 e^eps0/n)), for eps0 <= ln(n/(16 ln(2/delta))).",
        holds_for=Randomizer.ANY_LDP,
        rank=6,
    )
)
register(
    Bound(
        BoundName.FMT21_NUMERIC,
        "numerical clones (Feldman et al. 2021)",
        f"{_FMT21}, numerical bound from the clone reduction",
        "any eps0-LDP randomizers",
        Neighbouring.REPLACE_ONE,
        **_curve_bound(_clones_curve(lambda e0: math.exp(-e0))),
        explanation="The clone reduction computed exactly instead of bounded in closed form: the shuffled "
        "output is a post-processing of two counts decided by Bin(n-1, e^-eps0) clones, whose "
        "privacy curve is summed numerically. Holds for any eps0-LDP randomizer.",
        holds_for=Randomizer.ANY_LDP,
        rank=5,
    )
)
register(
    Bound(
        BoundName.STRONGER_CLONE,
        "stronger clone (Feldman et al. 2023)",
        f"{_FMT23}, stronger clone reduction",
        "randomized-response-type randomizers (binary RR, k-RR)",
        Neighbouring.REPLACE_ONE,
        **_curve_bound(_clones_curve(lambda e0: 2 / (math.exp(e0) + 1))),
        explanation="For randomized-response-type randomizers each other report is a clone with probability "
        "2/(e^eps0+1) instead of e^-eps0, so more clones hide the target; same numeric curve as "
        "the numerical clones.",
        holds_for=Randomizer.K_RR,
        rank=1,
    )
)
register(
    Bound(
        BoundName.BLANKET_KRR,
        "k-RR privacy blanket (Balle et al. 2019)",
        f"{_BALLE}, Theorem 3.1 (k-ary randomized response)",
        "k-ary randomized response / generalized RR on k values",
        Neighbouring.REPLACE_ONE,
        _krr_forward,
        _krr_region,
        inverse_fn=krr_eps0,
        explanation="k-RR reports a uniformly random value with probability gamma = k/(e^eps0+k-1); these "
        "reports form a 'blanket' of binomial noise over every value, giving eps_c = "
        "sqrt(14 ln(2/delta)(e^eps0+k-1)/(n-1)) for eps_c <= 1. Even eps0 = 0 cannot beat "
        "sqrt(14 ln(2/delta) k/(n-1)), so large domains need many respondents.",
        holds_for=Randomizer.K_RR,
        rank=2,
    )
)
_GENERIC_BLANKET = (
    "without k, a generic variant for any eps0-LDP randomizer derived in this project "
    "(docs/accountants.md, 'The generic privacy blanket'), with constants of its own"
)

register(
    Bound(
        BoundName.BLANKET_HOEFFDING,
        "privacy blanket, Hoeffding (Balle et al. 2019; generic variant: this project)",
        f"{_BALLE}, amplification bound with Hoeffding's inequality (with k: k-ary randomized response); "
        f"{_GENERIC_BLANKET}",
        "k-RR on k values (with k), or any eps0-LDP randomizer (blanket mass e^-eps0; this project's derivation)",
        Neighbouring.REPLACE_ONE,
        **_curve_bound(lambda *a: clones.blanket_hoeffding_delta(*a), uses_k=True),
        explanation="The privacy blanket bound evaluated numerically: the blanket of the other reports has "
        "mass gamma (k/(e^eps0+k-1) for k-RR, e^-eps0 for any randomizer) and Hoeffding's "
        "inequality bounds the tail of the privacy-amplification sum. With k it is Balle et al.'s "
        "k-RR bound; without k the constants of the privacy-amplification variable are this "
        "project's own derivation for any eps0-LDP randomizer (valid, looser than Balle et al.'s "
        "generic code by up to 41%).",
        holds_for=Randomizer.K_RR,
        rank=4,
    )
)
register(
    Bound(
        BoundName.BLANKET_BENNETT,
        "privacy blanket, Bennett (Balle et al. 2019; generic variant: this project)",
        f"{_BALLE}, amplification bound with Bennett's inequality (with k: k-ary randomized response); "
        f"{_GENERIC_BLANKET}",
        "k-RR on k values (with k), or any eps0-LDP randomizer (blanket mass e^-eps0; this project's derivation)",
        Neighbouring.REPLACE_ONE,
        **_curve_bound(lambda *a: clones.blanket_bennett_delta(*a), uses_k=True),
        explanation="The same privacy blanket bound with Bennett's inequality, which also uses the variance "
        "of the privacy-amplification variable and is usually tighter than Hoeffding's. Without k "
        "the range and variance bounds are this project's derivation (valid, looser than Balle et "
        "al.'s generic code by up to 50%).",
        holds_for=Randomizer.K_RR,
        rank=3,
    )
)
register(
    Bound(
        BoundName.SOLH,
        "shuffled local hashing",
        "Wang et al., Practical and robust privacy amplification with multi-party differential privacy (2019), "
        f"Theorem 3 (SOLH), from {_BALLE}, Theorem 3.1",
        "optimized local hashing: GRR on a hash range d' (k fixes d', else the bound chooses it)",
        Neighbouring.REPLACE_ONE,
        _solh_forward,
        _solh_region,
        inverse_fn=_solh_inverse,
        extra_fn=_solh_extra,
        explanation="Each respondent hashes the value into d' buckets and runs GRR there, so the k-RR blanket "
        "bound applies with d' in place of the domain: the variance no longer grows with the "
        "domain. Without a fixed range the bound picks d' close to the variance-optimal "
        "(A+2)/3, A = (n-1) eps_c^2/(14 ln(2/delta)), and reports it as hash_range.",
        holds_for=Randomizer.SOLH,
        rank=0,
    )
)


def accountants_for(family: Randomizer) -> tuple[BoundName, ...]:
    """The registered bounds that hold for a randomizer of this family (Bound.holds_for): for binary RR,
    the ESA paper's channel, in the order the paper and docs/accountants.md present them (its Lemma II.6
    first); for the other families tightest first (Bound.rank)."""
    names = [b.name for b in BOUNDS.values() if b.holds_for in family.within]
    if family is not Randomizer.BINARY_RR:
        names.sort(key=lambda name: BOUNDS[name].rank)
    return tuple(names)


def get_bound(name: str) -> Bound:
    """A bound by name or alias (see BOUNDS)."""
    key = ALIASES.get(name, name)
    if key not in BOUNDS:
        raise InputError(f"unknown accountant {name!r}; choose one of {', '.join(sorted(BOUNDS))}.")
    return BOUNDS[BoundName(key)]
