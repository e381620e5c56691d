"""Dominating pairs built from privacy profiles, composed by their privacy loss distributions (docs/composition.md).

- A mechanism's privacy profile, H(a) = sup over neighbouring datasets in both orders of the hockey-stick
  divergence H_a(M(D) || M(D')) = sum_y [M(D)(y) - a M(D')(y)]_+ at a = e^eps >= 1, is convex and
  non-increasing in a (a supremum of such functions). Upper bounds u_i of it at eps_i = i step (i = 0..K)
  have a lower convex envelope in a that still lies above the profile: every supporting line of the
  profile lies below every u_i.
- The envelope (its value at a = 1 capped, below) is the curve of a symmetric pair of distributions whose
  privacy loss takes the values -K step .. K step and +infinity (the value at the top): the pessimistic
  "connect the dots" distribution of Doroshenko, Ghazi, Kamath, Kumar, Manurangsi, Connect the dots: tighter
  discrete approximations of privacy loss distributions (PETS 2022), Algorithm 1. Its curve is at
  least the profile at every eps, negative eps included (H_a(P || Q) = 1 - a + a H_{1/a}(Q || P)), so it
  dominates every pair of neighbouring datasets (Zhu, Dong, Wang, Optimal accounting of differential
  privacy via characteristic function, AISTATS 2022).
- Dominating pairs compose: mechanisms each dominated by (P, Q), applied to pairs of neighbouring (or equal)
  inputs, are dominated together by (P^k, Q^k) (the same paper), whose privacy loss is the sum of k
  independent losses. ``DominatingPair.delta`` computes that sum's curve by one FFT of the exponentially
  tilted loss distribution and adds a bound on the FFT's rounding, so that small deltas keep their digits.

``profile_pair(bound, eps0, n, k, level)`` builds the pair of a registered bound: from its privacy curve where it
has one (the tight curve, the clones, the blanket sums), else from its closed form at several deltas.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

import numpy as np

from ldpcore.errors import InputError
from ldpcore.privacy import solver
from ldpcore.privacy.bounds import Bound
from ldpcore.privacy.guarantee import Neighbouring, PairKind

U = 2.0**-52  # float64 relative spacing
STEPS = 32  # grid intervals of a profile between 0 and its top (each costs one evaluation of the curve)
TAIL_SHARE = 1e-3  # the grid's top is where the profile falls to this share of delta per fold (kept as infinite loss)
DELTAS_PER_DECADE = 4  # deltas at which a closed form is evaluated
SLACK = 1e-9  # upper bounds are raised by this relative amount: the pair as computed must keep within half of it
CACHE_SIZE = 64  # profiles and certified evaluations kept (an inverse revisits its points)
REUSE = 0.05  # a composition tilted within this relative distance of eps serves it
FFT_ERROR = 64.0  # relative l2 error of one FFT of length L is charged FFT_ERROR log2(L) U (docs/composition.md)


def _hull(alpha: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The lower convex envelope of the points (alpha_i, u_i) (alpha increasing), evaluated at every alpha_i."""
    keep: list[int] = []
    for i in range(len(alpha)):
        while len(keep) >= 2:
            j, k = keep[-2], keep[-1]  # drop k when it lies on or above the chord from j to i
            if (u[k] - u[j]) * (alpha[i] - alpha[j]) >= (u[i] - u[j]) * (alpha[k] - alpha[j]):
                keep.pop()
            else:
                break
        keep.append(i)
    return np.interp(alpha, alpha[keep], u[keep])


@dataclass(frozen=True)
class DominatingPair:
    """A symmetric pair whose hockey-stick curve is ``curve[i]`` at eps = i step (i = 0..K), linear in e^eps in
    between and constant above K step (an infinite privacy loss of mass curve[K]; 0 when K step is eps0);
    kind: where the upper bounds it was built from came from."""

    step: float
    curve: tuple[float, ...]
    kind: PairKind

    @classmethod
    def from_upper_bounds(cls, step: float, upper, kind: PairKind) -> DominatingPair:
        """The pair of the convex envelope of upper bounds of a privacy profile at 0, step, 2 step, ...

        The profile of a symmetric pair satisfies H(1) <= 1 + 2 H'(1+) (its curve extended to a < 1 is convex at
        a = 1), and H'(1+) <= (H(a_j) - H(1))/(a_j - 1) by convexity, so H(1) <= (a_j - 1 + 2 u_j)/(a_j + 1) for
        every j: capping u_0 there keeps it an upper bound and leaves the 0-loss atom a mass >= 0. The bounds are
        first raised by the relative SLACK, which the rounding of the pair's masses may use up to half of."""
        u = np.minimum(np.asarray(upper, dtype=np.float64) * (1 + SLACK), 1.0)
        alpha = np.exp(step * np.arange(len(u)))
        if len(u) > 1:
            u[0] = min(u[0], float(np.min((np.expm1(step * np.arange(1, len(u))) + 2 * u[1:]) / (alpha[1:] + 1))))
        return cls(step, tuple(float(x) for x in _hull(alpha, u)), kind)

    @property
    def top(self) -> float:
        return self.step * (len(self.curve) - 1)

    @cached_property
    def masses(self) -> tuple[np.ndarray, float]:
        """(P's masses at the losses -K step .. K step, P's mass at +infinity).

        With Q-masses w_i at the loss +i step (P-mass e^(i step) w_i) and the mirror images at -i step, the curve
        at a >= 1 is inf + sum_i w_i (a_i - a)_+: w_i is the envelope's change of slope at a_i (w_K its last
        slope), inf its value at the top, and the 0 loss takes the rest of the mass. The curve of the masses as
        computed is checked at every grid point against the envelope less SLACK/2 (both are linear in a in
        between); were it short anywhere (it is not, on every input tried: the slopes' rounding is ~1e-13
        relative), the largest shortfall d is made up by mixing in an infinite loss, (1 - e) P + e infinity
        with e = d/(1 - curve[0]), whose curve is (1 - e) H + e >= H + d."""
        g = np.array(self.curve)
        k = len(g) - 1
        probs = np.zeros(2 * k + 1)
        if k == 0:
            probs[0] = 1.0 - g[0]
            return probs, float(g[0])
        alpha = np.exp(self.step * np.arange(k + 1))
        slope = np.diff(g) / np.diff(alpha)
        w = np.maximum(np.diff(np.append(slope, 0.0)), 0.0)  # the changes of slope at a_1 .. a_k
        inf = float(g[-1])
        probs[k + 1 :] = alpha[1:] * w
        probs[:k][::-1] = w
        probs[k] = max(0.0, 1.0 - inf - float(np.sum(w * (alpha[1:] + 1))))
        built = inf + np.array([np.sum(w[j:] * (alpha[j + 1 :] - alpha[j])) for j in range(k + 1)])
        short = float(np.max(g * (1 - SLACK / 2) - built * (1 - 4 * (k + 2) * U)))
        if short > 0:
            e = min(1.0, short / max(1.0 - g[0], U))
            probs *= 1 - e
            inf = (1 - e) * inf + e
        return probs, inf

    def pld(self):
        """The pair's privacy loss distribution as dp_accounting's PrivacyLossDistribution (symmetric: both orders
        of the pair have the same one), for its estimates and for comparisons."""
        from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

        probs, inf = self.masses
        k = len(self.curve) - 1
        return PrivacyLossDistribution.create_from_rounded_probability(
            {i - k: float(p) for i, p in enumerate(probs) if p > 0}, inf, self.step
        )

    def delta(self, eps: float, folds: int = 1) -> float:
        """An upper bound of the curve of the folds-fold product of the pair at eps (rounding included)."""
        return self._composition(folds, eps).delta(eps)

    def _composition(self, folds: int, aim: float) -> _Composition:
        """The folds-fold composition tilted near aim: the last one built for folds if its aim is within REUSE of
        this one (any tilt gives an upper bound; a near one keeps the digits), else a new one, kept."""
        kept = self.__dict__.setdefault("_compositions", {})
        comp = kept.get(folds)
        if comp is None or abs(comp.aim - aim) > REUSE * max(abs(aim), abs(comp.aim), self.step):
            comp = kept[folds] = _Composition(self, folds, aim)
        return comp

    def epsilon(self, delta: float, folds: int = 1) -> float:
        """The smallest eps (to 1e-10 relative, on the certified side) at which delta(eps, folds) <= delta; inf if
        the infinite losses alone exceed delta. A first solve on the untilted composition places the tilt, which
        moves (at most a few times) until the answer lies within REUSE of it: delta(answer) is then this bound."""
        _, inf = self.masses
        if -math.expm1(folds * math.log1p(-inf)) > delta * (1 - 1e-9):
            return math.inf
        ceiling = folds * self.top

        def solve(value: Callable[[float], float]) -> float:
            if value(0.0) <= delta:
                return 0.0
            return solver.boundary(value, delta, ceiling, 0.0, rtol=1e-10)

        x = solve(_Composition(self, folds, 0.0).estimate)
        for _ in range(4):
            comp = self._composition(folds, x)
            x, before = solve(comp.delta), x
            if abs(x - comp.aim) <= REUSE * max(abs(x), abs(comp.aim), self.step) or x == before:
                break
        return x


@dataclass
class _Composition:
    """The folds-fold sum of the pair's finite losses, tilted at the saddle point of `aim`: Q = the losses'
    distribution reweighted by e^(theta loss)/M(theta) with mean aim/folds, so that its folds-fold convolution
    (one FFT) is largest near `aim` and the FFT's rounding is small beside the curve there."""

    pair: DominatingPair
    folds: int
    aim: float

    def __post_init__(self):
        probs, inf = self.pair.masses
        k = len(self.pair.curve) - 1
        self.inf = -math.expm1(self.folds * math.log1p(-inf)) if inf < 1 else 1.0
        loss = self.pair.step * np.arange(-k, k + 1)
        keep = probs > 0
        log_p = np.log(probs[keep])
        self.theta = _saddle(loss[keep], log_p, self.aim / self.folds)
        tilted = log_p + self.theta * loss[keep]
        self.log_m = float(np.logaddexp.reduce(tilted))
        q = np.zeros(len(probs))
        q[keep] = np.exp(tilted - self.log_m)
        size = self.folds * 2 * k + 1
        from scipy import fft

        length = fft.next_fast_len(size, real=True)
        big_q = np.maximum(fft.irfft(fft.rfft(q, length) ** self.folds, length)[:size], 0.0)
        self.sums = self.pair.step * (np.arange(size) - self.folds * k)
        # l2 error of Q: rfft (relative e, |X| <= 1), the power (T e, and 4 T U for pow), irfft; 2 for half spectra
        e = FFT_ERROR * math.log2(length) * U
        self.l2_error = 2.04 * (self.folds + 1) * (e + 4 * U)
        # relative: each q_i's exp (T of them multiply), the sums of positive terms
        self.rel_error = (4 * self.folds * (float(np.abs(tilted).max()) + abs(self.log_m) + 1) + 2 * size + 16) * U
        # suffix sums of e^(-theta (s - aim)) Q(s) and e^(-(1 + theta)(s - aim)) Q(s), from s >= the cut on
        # (below it the factors could overflow; delta is then reported as 1)
        self.cut = self.aim - 600.0 / (1.0 + self.theta)
        first = int(np.searchsorted(self.sums, self.cut, side="left"))
        rel = self.sums[first:] - self.aim
        self.first = first
        self.suffix_a = np.append(np.cumsum((np.exp(-self.theta * rel) * big_q[first:])[::-1])[::-1], 0.0)
        self.suffix_b = np.append(np.cumsum((np.exp(-(1 + self.theta) * rel) * big_q[first:])[::-1])[::-1], 0.0)

    def estimate(self, eps: float) -> float:
        """delta(eps) without the rounding charges (a first estimate to place the tilt; never certified)."""
        return self._delta(eps, charged=False)

    def delta(self, eps: float) -> float:
        """An upper bound of the composed curve at eps (``_delta`` with every rounding charged)."""
        return self._delta(eps, charged=True)

    def _delta(self, eps: float, charged: bool) -> float:
        """inf + sum over sums s > eps of (1 - e^(eps - s)) P_folds(s), with P_folds(s) = M^T e^(-theta s) Q(s):
        M^T e^(-theta eps) [e^(theta (eps - aim)) A - e^((1 + theta)(eps - aim)) B] from the suffix sums A, B
        (their difference's rounding charged), plus the FFT's error (Cauchy-Schwarz with Q's l2 error and the
        weights' l2 norm, at most 1 / (1 - e^(-2 theta step)), or the number of points when theta = 0)."""
        if eps < self.cut:
            return 1.0
        at = int(np.searchsorted(self.sums, eps, side="right"))  # the first sum above eps
        if at == len(self.sums):
            return self.inf
        j = at - self.first
        base = self.folds * self.log_m - self.theta * self.aim  # M^T e^(-theta eps) e^(theta (eps - aim))
        logs = (
            base + math.log(self.suffix_a[j]) if self.suffix_a[j] > 0 else -math.inf,
            base + eps - self.aim + math.log(self.suffix_b[j]) if self.suffix_b[j] > 0 else -math.inf,
            self.folds * self.log_m - self.theta * eps,  # the FFT error's scale
        )
        if max(logs) > 700.0:
            return 1.0
        plus, minus, scale = (math.exp(x) for x in logs)
        rel = self.rel_error + 8 * (self.folds * abs(self.log_m) + abs(self.theta * eps) + abs(eps - self.aim) + 1) * U
        if not charged:
            return min(1.0, self.inf + max(plus - minus, 0.0))
        finite = max(plus - minus, 0.0) + rel * (plus + minus)
        if self.theta > 0:
            norm = 1.0 / math.sqrt(-math.expm1(-2 * self.theta * self.pair.step))
        else:
            norm = math.sqrt(len(self.sums) - at)
        return min(1.0, self.inf + finite + scale * norm * self.l2_error)


def _saddle(loss: np.ndarray, log_p: np.ndarray, mean: float) -> float:
    """theta >= 0 at which the distribution e^(log_p + theta loss)/M has the given mean (0 if it already has at
    least that mean; a large theta if the mean is near the largest loss)."""

    def tilted_mean(theta: float) -> float:
        w = log_p + theta * loss
        w = np.exp(w - w.max())
        return float(np.dot(w, loss) / w.sum())

    if tilted_mean(0.0) >= mean:
        return 0.0
    hi = 1.0
    while tilted_mean(hi) < mean and hi < 1e6:
        hi *= 2
    if tilted_mean(hi) < mean:
        return hi
    return solver.root(tilted_mean, mean, 0.0, hi, xtol=1e-9, rtol=1e-9)


# --- the upper bounds of one bound's privacy profile ---

SCAN = 64  # points of each of the two scans that place the grid's top
FLOOR_SHARE = 1e-3  # curves need be tight only down to this share of the level (values below it are negligible)


def _top(curve: Callable[[np.ndarray], np.ndarray], eps0: float, level: float) -> float:
    """Where the non-increasing curve falls to level (to eps0 / SCAN^2, from above), or eps0: two scans."""
    lo, hi = 0.0, eps0
    for _ in range(2):
        grid = np.linspace(lo, hi, SCAN + 1)
        above = curve(grid) > level
        if not above[0]:
            return grid[0]
        last = int(np.flatnonzero(above)[-1])
        if last == SCAN:
            return hi
        lo, hi = grid[last], grid[last + 1]
    return hi


def _step(top: float, steps: int) -> float:
    """top / steps, rounded up until steps times it (the grid's last point) is at least top."""
    step = top / steps
    while step * steps < top:
        step = math.nextafter(step, math.inf)
    return step


def _points(bound: Bound, eps0: float, n: int, k: int | None, smallest: float) -> tuple[np.ndarray, np.ndarray]:
    """(eps, delta) pairs a closed form certifies at eps0: log-spaced deltas from 1/2 down to `smallest`, and
    (eps0, 0) (an eps0-LDP report is eps0-DP after shuffling)."""
    decades = max(1.0, math.log10(0.5 / smallest))
    found = [(eps0, 0.0)]
    for d in np.geomspace(0.5, smallest, math.ceil(decades * DELTAS_PER_DECADE) + 1):
        try:
            lo, hi, reason = bound.region(n, float(d), k)
        except InputError:  # the bound needs what it was not given (k): no point from it
            break
        if not reason and lo <= eps0 <= hi and (eps := bound.forward_fn(eps0, n, float(d), k)) < eps0:
            found.append((eps, float(d)))
    eps, delta = np.array(found).T
    return eps, delta


@lru_cache(maxsize=CACHE_SIZE)
def _profile(bound: Bound, eps0: float, n: int, k: int | None, level: float, stand_in: bool) -> tuple[float, tuple]:
    """(step, values at 0, step, .., STEPS step) of the bound's curve (or its stand-in), on the grid from 0 to
    where the stand-in (else the curve) falls to about `level`; step 0 and one value when it starts below."""
    curve = bound.proxy_fn if stand_in else bound.curve_fn
    cheap = bound.proxy_fn or bound.curve_fn
    assert curve is not None and cheap is not None
    floor = FLOOR_SHARE * level
    top = _top(lambda e: cheap(e, eps0, n, k, floor), eps0, level)
    if top == 0.0:
        return 0.0, tuple(curve(np.zeros(1), eps0, n, k, floor))
    step = _step(top, STEPS)
    return step, tuple(curve(step * np.arange(STEPS + 1), eps0, n, k, floor))


def profile_pair(
    bound: Bound, eps0: float, n: int, k: int | None, level: float, correction: tuple | None = None
) -> DominatingPair:
    """The dominating pair of `bound` at (eps0, n, k), on STEPS grid intervals from 0 to where the profile falls to
    about `level` (its value there is kept as an infinite loss). correction: the bound's cheap stand-in curve
    times these factors instead of its curve (a search's trial point, never a certified answer)."""
    if bound.curve_fn is not None:
        step, values = _profile(bound, eps0, n, k, level, correction is not None)
        if correction is not None:
            values = tuple(np.array(values) * np.array(correction[: len(values)]))
        if step == 0.0:
            return DominatingPair(1.0, (float(values[0]),), PairKind.CURVE)
        return DominatingPair.from_upper_bounds(step, values, PairKind.CURVE)
    eps, delta = _points(bound, eps0, n, k, level)
    top = float(eps[delta <= level].min())  # the trivial point (eps0, 0) is among them
    if top == 0.0:
        return DominatingPair(1.0, (float(delta[eps <= 0].min()),), PairKind.POINTS)
    step = _step(top, STEPS)
    stepwise = [float(delta[eps <= i * step].min(initial=1.0)) for i in range(STEPS + 1)]
    return DominatingPair.from_upper_bounds(step, stepwise, PairKind.POINTS)


# --- a bound over several channels or rounds at once ---

INVERSE_RTOL = 1e-5  # relative precision of a composed inverse (its answer is certified; at most this below the best)
SEARCH_ROUNDS = 4  # certified evaluations spent steering the stand-in curve before plain bisection


@lru_cache(maxsize=CACHE_SIZE)
def _composed_delta(bound: Bound, folds: int, eps: float, eps0: float, n: int, delta: float, k) -> float:
    """An upper bound of the folds-fold composition of the bound's pair at eps0, at eps (0 where eps >= folds eps0:
    each channel is eps0-DP), or the stand-in's composition where that already exceeds delta (the stand-in is at
    most the curve: the answer "above delta" is the same)."""
    if eps >= folds * eps0:
        return 0.0
    level = TAIL_SHARE * delta / folds
    if bound.proxy_fn is not None:
        ones = (1.0,) * (STEPS + 1)
        stand_in = profile_pair(bound, eps0, n, k, level, ones).delta(eps, folds)
        if stand_in > delta:
            return stand_in
    return profile_pair(bound, eps0, n, k, level).delta(eps, folds)


def _correction(bound: Bound, eps0: float, n: int, k, level: float) -> tuple:
    """curve / stand-in at each grid point of the pair at eps0 (1 where the stand-in is 0)."""
    _, curve = _profile(bound, eps0, n, k, level, False)
    _, cheap = _profile(bound, eps0, n, k, level, True)
    c, s = np.array(curve), np.array(cheap)
    return tuple(np.where(s > 0, c / np.where(s > 0, s, 1.0), 1.0)) + (1.0,) * (STEPS + 1 - len(c))


@lru_cache(maxsize=256)
def composed_bound(bound: Bound, folds: int, neighbouring: Neighbouring, what: str) -> Bound:
    """`bound` on `folds` channels or rounds that one neighbouring change reaches at once (each dominated by the
    bound's pair; together by its folds-fold product), stated under `neighbouring`; `what` names them in the
    title. Its forward is the composed pair's eps at delta; its inverse the largest eps0 whose composed pair
    certifies (eps_c, delta); the bound's details of a result (extra_fn: SOLH's hash range) stay. Cached: the same
    arguments give the same object (Bound.inverse memoises on it)."""
    kind = PairKind.CURVE if bound.curve_fn is not None else PairKind.POINTS

    def forward(eps0, n, delta, k, rtol=0.0):
        return profile_pair(bound, eps0, n, k, TAIL_SHARE * delta / folds).epsilon(delta, folds)

    def certify(eps_c, eps0, n, delta, k):
        return _composed_delta(bound, folds, eps_c, eps0, n, delta, k) <= delta

    def inverse(eps_c, n, delta, k, rtol=0.0):
        """The largest certified eps0, to a relative rtol: on the curve by bisection; for a bound with a cheap
        stand-in curve, on the stand-in times the curve's ratio to it at the last point tried (each round one
        certified evaluation), bisection on the curve finishing if SEARCH_ROUNDS do not settle it."""
        rtol = max(rtol, INVERSE_RTOL)
        lo, hi, _ = bound.region(n, delta, k)
        good, bad = max(lo, eps_c / folds), hi  # good: folds channels, each eps_c/folds-DP
        ok = lambda e0: certify(eps_c, e0, n, delta, k)  # noqa: E731
        if bound.proxy_fn is None:  # bracketed by the bound's own answers for one channel: basic composition's
            # (eps_c / folds at delta / folds, usually certified) and eps_c itself at delta (folds channels need more)
            value = lambda e0: _composed_delta(bound, folds, eps_c, e0, n, delta, k)  # noqa: E731
            for guess in (
                bound.inverse(eps_c / folds, n, delta / folds, k, rtol),
                bound.inverse(eps_c, n, delta, k, rtol),
            ):
                if guess.eps0 is not None and good < guess.eps0 < bad:
                    good, bad = (guess.eps0, bad) if value(guess.eps0) <= delta else (good, guess.eps0)
            return solver.boundary(value, delta, good, bad, rtol, coarse=rtol / 4)
        level = TAIL_SHARE * delta / folds
        correction = (1.0,) * (STEPS + 1)
        for _ in range(SEARCH_ROUNDS):
            fix = correction
            stand_in = lambda e0: profile_pair(bound, e0, n, k, level, fix).delta(eps_c, folds)  # noqa: E731
            if stand_in(bad) <= delta:  # the corrected stand-in no longer brackets the crossing: bisect
                break
            x = solver.boundary(stand_in, delta, good, bad, rtol / 4, coarse=rtol / 16)
            if ok(x):  # certified: done if x (1 + rtol) is not
                y = min(bad, x * (1 + rtol))
                if y == x or not ok(y):
                    return x
                good = y
            else:  # done if x (1 - rtol) is certified
                y = max(good, x * (1 - rtol))
                if ok(y):
                    return y
                bad = y
            if bad <= good * (1 + rtol):
                return good
            correction = _correction(bound, x, n, k, level)
        return solver.bisect(ok, good, bad, rtol)

    return replace(
        bound,
        title=f"{bound.title}, {folds} {what} composed",
        citation=f"{bound.citation}; {folds} {what} composed by the privacy loss distribution of its dominating pair",
        neighbouring=neighbouring,
        forward_fn=forward,
        inverse_fn=inverse,
        certify_fn=certify,
        exact_forward=None,
        exact_inverse=None,
        solves=True,
        curve_fn=None,
        proxy_fn=None,
        folds=folds * bound.folds,
        pair=kind,
    )


def clear_caches() -> None:
    """Forget every cached profile and composed evaluation (for cold timings)."""
    _profile.cache_clear()
    _composed_delta.cache_clear()
