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
import functools
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from ldpcore.errors import InputError, check_delta, check_eps, check_whole
from ldpcore.privacy import clones, formulas, solver, tight
from ldpcore.privacy.guarantee import Guarantee, Neighbouring, PairKind

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
    the tight accountant's worst case). pair: for a composed guarantee (several channels or rounds), where its
    dominating pair came from.
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
    pair: PairKind | None = None

    def as_dict(self) -> dict:
        """The fields (pair only where the result is composed)."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "pair" or self.pair is not None}

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
    folds: how many eps0-LDP channels (or rounds) one neighbouring change reaches; the trivial bound is folds eps0
    (ldpcore.privacy.dominating.composed_bound builds such bounds); pair: where their dominating pair came from.
    curve_fn(eps, eps0, n, k, floor) -> upper bounds of the privacy profile delta(eps) at an array of eps (tight down
    to floor; below it they may be loose), optional: for a bound given by its privacy curve (composition builds a
    dominating pair from it; ldpcore.privacy.dominating); proxy_fn: the same for a cheap curve close to it, for
    searches whose answer curve_fn then certifies.
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
    curve_fn: Callable[[np.ndarray, float, int, int | None, float], np.ndarray] | None = None
    proxy_fn: Callable[[np.ndarray, float, int, int | None, float], np.ndarray] | None = None
    folds: int = 1
    pair: PairKind | None = None

    def _result(self, eps0, eps_c, n, delta, k, **kw) -> Amplification:
        if eps_c is not None and self.extra_fn is not None and not kw.get("extra"):
            kw["extra"] = self.extra_fn(eps0, n, delta, k)
        return Amplification(self.name, eps0, eps_c, n, delta, self.neighbouring, self.citation, pair=self.pair, **kw)

    @property
    def trivial(self) -> str:
        """The note of a result that falls back on the trivial bound, folds eps0 with delta = 0."""
        if self.folds == 1:
            return TRIVIAL
        return (
            f"the trivial bound: each of the {self.folds} composed eps0-LDP channels is eps0-DP after shuffling, so "
            f"together {self.folds} eps0 with delta = 0, which is tighter than this bound here."
        )

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
        if eps_c > self.folds * eps0:
            return self._result(eps0, self.folds * eps0, n, delta, k, note=self.trivial, extra=extra)
        return self._result(eps0, eps_c, n, delta, k, **({"extra": extra} if extra else {}))

    def inverse(self, eps_c: float, n: int, delta: float, k: int | None = None, rtol: float = 0.0) -> Amplification:
        """The largest eps0 the bound certifies at eps_c (conservative side), at least eps_c / folds (trivial).
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
        trivial = eps_c / self.folds
        if not ok(lo):
            alone = (
                f"{self.title} alone cannot certify eps_c={eps_c:g} at n={n:,}, delta={delta:g}: its "
                f"smallest certified value is {f(lo):.4g} (at eps0={lo:.4g})."
            )
            return self._result(trivial, eps_c, n, delta, k, target_eps_c=eps_c, note=f"{self.trivial} {alone}")
        if ok(hi):
            top = f(hi)
            if hi < trivial:
                return self._result(trivial, eps_c, n, delta, k, target_eps_c=eps_c, note=self.trivial)
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
        if eps0 < trivial:
            return self._result(trivial, eps_c, n, delta, k, target_eps_c=eps_c, note=self.trivial)
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
        Neighbouring.ZERO_OUT,
        formulas.cheu_forward,
        formulas.cheu_region,
        inverse_fn=formulas.cheu_inverse,
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
        Neighbouring.ZERO_OUT,
        formulas.thm31_forward,
        formulas.thm31_region,
        explanation="A simpler closed form of Lemma II.6, eps_c = sqrt(64 e^eps0 ln(4/delta)/n), for eps0 "
        "between 1 and ln n - ln(14 ln(4/delta)); looser than the lemma it comes from.",
        holds_for=Randomizer.BINARY_RR,
        rank=9,
    )
)


register(
    Bound(
        BoundName.TIGHT_BINARY_RR,
        "exact shuffled binary RR",
        f"{_ESA}; the exact privacy curve of one attribute-fragment channel, in the worst case over the other "
        "respondents' data (this project's tight accountant)",
        "binary randomized response (one attribute-fragment channel)",
        Neighbouring.ZERO_OUT,
        lambda eps0, n, delta, k: formulas.tight_forward(eps0, n, delta)[0],
        formulas.tight_region,
        certify_fn=lambda eps_c, eps0, n, delta, k: tight.certifies(eps_c, eps0, n, delta),
        exact_forward=formulas.tight_forward,
        exact_inverse=formulas.tight_inverse,
        solves=True,
        curve_fn=lambda eps, eps0, n, k, floor: tight.curve_on_grid(eps, eps0, n, floor=floor),
        proxy_fn=lambda eps, eps0, n, k, floor: tight.curve_on_grid(eps, eps0, n, first_block=True, floor=floor),
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
        formulas.efmrtt_forward,
        formulas.efmrtt_region,
        inverse_fn=formulas.efmrtt_inverse,
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
        formulas.fmt_closed_forward,
        formulas.fmt_closed_region,
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
        **formulas.clones_curve(lambda e0: math.exp(-e0)),
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
        **formulas.clones_curve(lambda e0: 2 / (math.exp(e0) + 1)),
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
        formulas.krr_forward,
        functools.partial(formulas.krr_region, name=BoundName.BLANKET_KRR),
        inverse_fn=formulas.krr_eps0,
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
        **formulas.curve_bound(lambda *a: clones.blanket_hoeffding_delta(*a), uses_k=True),
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
        **formulas.curve_bound(lambda *a: clones.blanket_bennett_delta(*a), uses_k=True),
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
        formulas.solh_forward,
        formulas.solh_region,
        inverse_fn=formulas.solh_inverse,
        extra_fn=formulas.solh_extra,
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
