"""One conservative solver for every monotone inversion of ldpcore.

A privacy number is the boundary of a monotone predicate ``ok``: the smallest eps a privacy
curve certifies, the largest eps0 whose eps_c stays at most a target, the smallest sigma of
a Gaussian mechanism, the smallest blanket of a multi-message protocol. ``ok`` holds on one
side of the boundary and not on the other, and the answer must lie on the side where it
holds. scipy.optimize.brentq finds the crossing of a value function (``value(x) <= target``
is ``ok``); bisection then shrinks the bracket to adjacent floats (or to a relative width),
and the answer returned is always the end of the bracket where ``ok`` holds, so ``ok(answer)``
is true by construction, as dp_accounting's mechanism_calibration lands on the conservative
side of its bracket.

bisect        [good, bad] -> good, to adjacent floats or a relative width
boundary      brentq on value/target over [good, bad], then bisect
solve_near    bracket outward from a starting point (steps growing fourfold), then boundary
settle        from a closed form's answer, step toward the certified side until ok holds
smallest_int  the smallest whole number where ok holds (doubling, then bisection)
smallest_int_near  the same from a guess near it (steps doubling from the guess, then bisection)
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np


def bisect(ok: Callable[[float], bool], good: float, bad: float, rtol: float = 0.0) -> float:
    """Shrink [good, bad] (ok(good), not ok(bad)) to a relative width rtol, or to adjacent floats; return good."""
    while True:
        mid = good + (bad - good) / 2
        if mid in (good, bad) or abs(bad - good) <= rtol * abs(good):
            return good
        if ok(mid):
            good = mid
        else:
            bad = mid


def _gap(value: Callable[[float], float], target: float, log: bool) -> Callable[[float], float]:
    """value - target, or log(value/target) for a positive value spanning many orders (a privacy curve)."""
    if log:
        return lambda x: math.log(max(value(x), 1e-300) / target)
    return lambda x: value(x) - target


def boundary(
    value: Callable[[float], float],
    target: float,
    good: float,
    bad: float,
    rtol: float = 0.0,
    log: bool = True,
    coarse: float | None = None,
) -> float:
    """The point between good and bad where the monotone value crosses target, on the side value <= target.

    ok(x) is value(x) <= target; ok(good) and not ok(bad) are the caller's. brentq gives a warm
    start; steps doubling from it toward bad (or back toward good) bracket the crossing tightly,
    and bisect finishes, to a relative rtol or (rtol = 0) to adjacent floats. coarse: for an
    expensive value wanted only to a relative rtol, brentq stops at this relative precision and the
    first step has this relative size (default: brentq to 1e-15, first step 1e-13).
    """
    from scipy.optimize import brentq  # imported on first use: it costs about a second

    ok = lambda x: value(x) <= target  # noqa: E731
    scale = max(abs(good), abs(bad))
    xtol, first = (1e-15, 1e-13) if coarse is None else (coarse * scale, coarse)
    x = brentq(_gap(value, target, log), min(good, bad), max(good, bad), xtol=xtol, rtol=1e-15, maxiter=200)
    step = math.copysign(first * abs(x) + math.ulp(x), bad - good)
    if ok(x):
        good = x
        while (bad - (y := good + step)) * step > 0:
            if not ok(y):
                bad = y
                break
            good, step = y, 2 * step
    else:
        bad = x
        while ((y := bad - step) - good) * step > 0:
            if ok(y):
                good = y
                break
            bad, step = y, 2 * step
    return bisect(ok, good, bad, rtol)


def solve_near(
    value: Callable[[float], float], target: float, x: float, lo: float, hi: float, ok_up: bool, rtol: float
) -> float:
    """Where the monotone value crosses target near x in [lo, hi], to adjacent floats, on the side value <= target.

    ok_up: the value is at most target above the crossing, else below it. Steps growing fourfold
    from x bracket the crossing (the end of [lo, hi] is returned when ok holds up to it), brentq
    on log(value/target) finds it to rtol, one step of that size restores a tight bracket, and
    bisect settles it to adjacent floats on the certified side. For expensive values (the tight
    accountant) whose start x is already close.
    """
    from scipy.optimize import brentq  # imported on first use: it costs about a second

    ok = lambda y: value(y) <= target  # noqa: E731
    ok_end, bad_end = (hi, lo) if ok_up else (lo, hi)
    good: float | None = None
    bad: float | None = None
    step = max(1e-13, 1e-6 * abs(x))
    y = x
    while good is None or bad is None:
        if ok(y):
            good = y
            if bad is None and y == bad_end:
                return y
        else:
            bad = y
            if good is None and y == ok_end:
                raise ArithmeticError("no certified point in the search range")  # pragma: no cover
        if good is None or bad is None:
            end = ok_end if good is None else bad_end
            y = end if abs(end - y) <= step else y + math.copysign(step, end - y)
            step *= 4
    tol = 0.5 * rtol * max(abs(good), abs(bad))
    if abs(bad - good) > tol:  # brentq's root, then one step of tol to its other side
        y = brentq(_gap(value, target, True), min(good, bad), max(good, bad), xtol=tol)
        toward_bad = math.copysign(tol, bad - good)
        if ok(y):
            good = y
            if not ok(z := y + toward_bad):
                bad = z
        else:
            bad = y
            if ok(z := y - toward_bad):
                good = z
    return bisect(ok, good, bad)


def root(value: Callable[[float], float], target: float, lo: float, hi: float, xtol: float, rtol: float) -> float:
    """brentq's crossing of value and target in [lo, hi] (no side guaranteed: pass it to settle)."""
    from scipy.optimize import brentq  # imported on first use: it costs about a second

    return float(brentq(lambda x: value(x) - target, lo, hi, xtol=xtol, rtol=rtol, maxiter=500))


def settle(ok: Callable[[float], bool], x: float, toward: float, single_steps: int = 64) -> float:
    """x if ok(x), else the first float from x on the way to `toward` (where ok holds) at which ok holds:
    up to single_steps steps of one float (np.nextafter), then steps doubling until ok holds and
    bisection back to adjacent floats. For a closed form or a root whose rounding may land a few ulps
    on the wrong side."""
    for _ in range(single_steps):
        if ok(x) or x == toward:
            return x
        x = float(np.nextafter(x, toward))
    if ok(x):
        return x
    bad, step = x, 0.0
    while True:
        nxt = float(np.nextafter(x, toward))
        step = max(2 * step, abs(nxt - x))
        x = max(x - step, toward) if toward < x else min(x + step, toward)
        if ok(x):
            return bisect(ok, x, bad)
        bad = x


def smallest_int(ok: Callable[[int], bool], start: int = 1, limit: int = 2**62) -> int:
    """The smallest whole number m >= start with ok(m), for ok false below some m and true from it on:
    doubling, then bisection; ArithmeticError if ok fails up to limit."""
    if ok(start):
        return start
    lo, hi = start, max(start + 1, 2 * start)
    while not ok(hi):
        if hi >= limit:
            raise ArithmeticError(f"no whole number up to {limit} satisfies the condition")
        lo, hi = hi, min(limit, 2 * hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def smallest_int_near(ok: Callable[[int], bool], guess: int, start: int = 1, limit: int = 2**62) -> int:
    """smallest_int from a guess: steps doubling from guess (down while ok holds, else up) bracket the
    smallest m >= start with ok(m), then bisection; a few evaluations when the guess is close."""
    guess = min(max(int(guess), start), limit)
    step = 1
    if ok(guess):
        hi = guess
        while hi > start:
            lo = max(start, hi - step)
            if not ok(lo):
                break
            hi, step = lo, 2 * step
        else:
            return hi
    else:
        lo = guess
        while True:
            if lo >= limit:
                raise ArithmeticError(f"no whole number up to {limit} satisfies the condition")
            hi = min(limit, lo + step)
            if ok(hi):
                break
            lo, step = hi, 2 * step
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi
