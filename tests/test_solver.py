"""The conservative solver (ldpcore.privacy.solver): on increasing and decreasing functions, the answer is on
the certified side by construction and the next float toward the other side is not; a negative control
shows a plain root finder lands on the wrong side."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

from ldpcore.privacy import solver

PROPERTY = settings(max_examples=60, deadline=None, derandomize=True)


@PROPERTY
@given(st.floats(0.01, 50.0), st.floats(1e-3, 10.0))
def test_increasing_value_lands_below_the_crossing(target, scale):
    value = lambda x: math.expm1(x / scale)  # noqa: E731  increasing: ok below the crossing
    x = solver.boundary(value, target, 0.0, 100.0 * scale, log=False)
    assert value(x) <= target and value(np.nextafter(x, math.inf)) > target


@PROPERTY
@given(st.floats(1e-12, 0.5), st.floats(0.1, 20.0))
def test_decreasing_curve_lands_above_the_crossing(target, rate):
    curve = lambda x: math.exp(-rate * x)  # noqa: E731  decreasing: ok above the crossing
    x = solver.boundary(curve, target, 60.0 / rate, 0.0)
    assert curve(x) <= target and curve(np.nextafter(x, -math.inf)) > target


@PROPERTY
@given(st.floats(1e-9, 1e-3), st.floats(0.5, 5.0))
def test_a_relative_tolerance_stays_on_the_certified_side(rtol, target):
    value = lambda x: x**3  # noqa: E731
    x = solver.boundary(value, target, 0.0, 10.0, rtol=rtol, log=False, coarse=rtol / 4)
    assert value(x) <= target and x >= target ** (1 / 3) * (1 - 2 * rtol)


def test_solve_near_from_a_start_point_in_both_directions():
    curve = lambda x: math.exp(-3 * x)  # noqa: E731
    up = solver.solve_near(curve, 1e-6, 4.0, 0.0, 10.0, ok_up=True, rtol=1e-12)
    assert curve(up) <= 1e-6 < curve(np.nextafter(up, 0.0))
    rising = lambda x: math.exp(3 * x) * 1e-9  # noqa: E731
    down = solver.solve_near(rising, 1e-6, 0.5, 0.0, 10.0, ok_up=False, rtol=1e-12)
    assert rising(down) <= 1e-6 < rising(np.nextafter(down, math.inf))
    assert solver.solve_near(rising, 1.0, 1.0, 0.0, 2.0, ok_up=False, rtol=1e-12) == 2.0  # ok up to the end


def test_settle_steps_a_closed_form_onto_the_certified_side():
    ok = lambda x: x * x <= 2.0  # noqa: E731
    guess = np.nextafter(math.sqrt(2.0), 3.0) + 5e-15  # a few ulps too high
    x = solver.settle(ok, guess, 0.0)
    assert ok(x) and not ok(np.nextafter(x, 3.0))
    assert solver.settle(ok, 1.0, 0.0) == 1.0  # already certified: unchanged
    far = solver.settle(ok, 1.5, 0.0, single_steps=0)  # doubling, then back to adjacent floats
    assert ok(far) and not ok(np.nextafter(far, 3.0))


def test_smallest_int():
    assert solver.smallest_int(lambda m: m * m >= 1_000_001) == 1001
    assert solver.smallest_int(lambda m: True, start=7) == 7
    with pytest.raises(ArithmeticError):
        solver.smallest_int(lambda m: False, limit=2**10)


def test_negative_control_a_plain_root_lands_on_the_wrong_side():
    """brentq's root of exp(-3x) = delta is uncertified for some targets (value above delta); the solver's
    answer never is."""
    wrong = 0
    for delta in np.geomspace(1e-12, 1e-2, 200):
        curve = lambda x: math.exp(-3 * x)  # noqa: E731
        root = brentq(lambda x: curve(x) - delta, 0.0, 20.0, xtol=1e-13)
        wrong += curve(root) > delta
        assert curve(solver.boundary(curve, delta, 20.0, 0.0)) <= delta
    assert wrong > 0


@PROPERTY
@given(st.integers(1, 10**6), st.integers(1, 10**6), st.integers(1, 4))
def test_smallest_int_near_finds_what_smallest_int_finds(answer, guess, start):
    calls = []

    def ok(m: int) -> bool:
        calls.append(m)
        return m >= answer

    expected = solver.smallest_int(ok, start)
    assert solver.smallest_int_near(ok, guess, start) == expected == max(answer, start)
    assert all(m >= start for m in calls)
    with pytest.raises(ArithmeticError):
        solver.smallest_int_near(lambda m: False, guess, start, limit=10**6 + 5)
