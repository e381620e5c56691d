"""The planner's one-dimensional search: the smallest x in [lo, hi] whose predicted error meets a target, for
an error non-increasing in x (eps_c, or the number of respondents), landing on the meeting side to a relative
precision SOLVE_RTOL (the answer meets the target; 0.998 x it does not). An x with no predicted error (None:
its accountant certifies nothing there) does not meet the target."""

from __future__ import annotations

import math
from collections.abc import Callable

SOLVE_RTOL = 2e-3  # relative precision of both inverses (the answer meets the target; 0.998 x it does not)


class _Search:
    """value_at(x) memoised, with g(x) = ln value - ln target (<= 0 meets; +inf without a value) in
    (log x, log value) coordinates."""

    def __init__(self, value_at: Callable[[float], float | None], target: float, slope: float | None):
        self.value_at, self.target, self.slope = value_at, target, slope
        self.memo: dict[float, float | None] = {}

    def f(self, x: float) -> float | None:
        if x not in self.memo:
            self.memo[x] = self.value_at(x)
        return self.memo[x]

    def value(self, x: float) -> float:
        """The value at a meeting x."""
        v = self.f(x)
        assert v is not None  # x meets the target
        return v

    def meets(self, x: float) -> bool:
        v = self.f(x)
        return v is not None and v <= self.target

    def g(self, x: float) -> float:
        v = self.f(x)
        return math.inf if v is None else (math.log(v) - math.log(self.target) if v > 0 else -math.inf)

    def along_secant(self, x: float, before: float | None) -> float | None:
        """Where the line through (before, x) in (log x, log value), or slope at x, meets the target (or None)."""
        gx, s = self.g(x), self.slope
        if before is not None:
            gb = self.g(before)
            s = (gx - gb) / (math.log(x) - math.log(before)) if math.isfinite(gb) and math.isfinite(gx) else None
        if s is None or not s < 0 or not math.isfinite(gx):
            return None
        return x * math.exp(min(-gx / s, 700.0))

    def bracket(self, guess: float, lo: float, hi: float) -> tuple[float, float] | tuple[float, None] | None:
        """(meeting x, not meeting x) around the crossing, grown outwards from the guess along the secant,
        aiming a little past the target (more after every miss), or by factors 2, 4, 16, ... where there is
        no secant, or to the edge of the tolerance where the secant puts the target within it; (lo, None)
        where lo meets, None where hi does not."""
        x, before, step, aim = guess, None, 2.0, SOLVE_RTOL / 4
        up = not self.meets(x)  # the crossing lies above x
        while True:
            y = self.along_secant(x, before)
            if y is not None and (x < y <= x * (1 + SOLVE_RTOL) if up else x / (1 + SOLVE_RTOL) <= y < x):
                y = x * (1 + 0.999 * SOLVE_RTOL) if up else x / (1 + 0.999 * SOLVE_RTOL)  # x is about the answer
            elif y is not None:
                y = y * (1 + aim) if up else y / (1 + aim)
            if y is None or (y <= x if up else y >= x):
                y, step = (x * step if up else x / step), step * step
            y = min(hi, y) if up else max(lo, y)
            if self.meets(y) == up:
                return (y, x) if up else (x, y)
            if y == (hi if up else lo):
                return None if up else (lo, None)
            before, x, aim = x, y, 4 * aim

    def narrow(self, good: float, bad: float) -> float:
        """The Illinois variant of regula falsi on g(u) = ln f(e^u) - ln target (superlinear, both ends move)
        down to SOLVE_RTOL, testing the edge of the tolerance instead where the estimate falls within it of
        an end, and bisecting where a value is infinite."""
        gg, gb, side = self.g(good), self.g(bad), 0
        while not good / bad <= 1 + SOLVE_RTOL:
            if math.isfinite(gb) and math.isfinite(gg) and gb != gg:
                x = bad * (good / bad) ** (gb / (gb - gg))
            else:
                x = math.sqrt(good * bad)
            if x >= good / (1 + SOLVE_RTOL):  # within the tolerance of an end: its edge settles it
                x = good / (1 + 0.999 * SOLVE_RTOL)
            elif x <= bad * (1 + SOLVE_RTOL):
                x = bad * (1 + 0.999 * SOLVE_RTOL)
            gx = self.g(x)
            if self.meets(x):  # not gx <= 0: the logarithms may round a value just above the target to 0
                good, gg = x, min(gx, 0.0)
                if side == -1:
                    gb /= 2
                side = -1
            else:
                bad, gb = x, gx
                if side == 1:
                    gg /= 2
                side = 1
        return good


def search(
    value_at: Callable[[float], float | None],
    lo: float,
    hi: float,
    target: float,
    guess: float | None = None,
    slope: float | None = None,
) -> tuple[float, float] | None:
    """The smallest x in [lo, hi] with value_at(x) <= target, for value_at non-increasing in x (None where x
    has no value, i.e. does not meet); (x, value) on the meeting side, or None if hi does not meet it. From a
    guess (with a first slope in (log x, log value), where given) the bracket grows outwards (_Search.bracket),
    else it is [lo, hi]; then _Search.narrow."""
    s = _Search(value_at, target, slope)
    if guess is not None and lo < guess < hi:
        ends = s.bracket(guess, lo, hi)
        if ends is None:
            return None
        good, bad = ends
        if bad is None:
            return lo, s.value(lo)
    else:
        if not s.meets(hi):
            return None
        if s.meets(lo):
            return lo, s.value(lo)
        good, bad = hi, lo
    good = s.narrow(good, bad)
    return good, s.value(good)
