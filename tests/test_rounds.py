"""Repeated collection (ldpcore.privacy.rounds): T = 1 is the single round; T = 365 is at most basic and advanced
composition and at least the optimistic PLD composition of one explicit pair (a lower bound: the others all at 0);
the inverse is met at its answer and missed at 1.01 times it; every accountant gives a typed result (its curve or
its closed form's points, said in the result)."""

import math

import numpy as np
import pytest
from scipy.special import expit
from scipy.stats import binom

from ldpcore.privacy.bounds import BOUNDS, get_bound
from ldpcore.privacy.guarantee import PairKind
from ldpcore.privacy.notions import replacement_bound
from ldpcore.privacy.rounds import Rounds, rounds_forward, rounds_inverse

N, DELTA = 10_000, 1e-6


def explicit_pair_lower(eps0: float, n: int, rounds: int, delta: float) -> float:
    """eps after `rounds` rounds of one explicit pair of neighbours (the other n - 1 respondents all at 0: the
    channel's count Bin(n-1, p) + Bern(q) against Bin(n-1, p) + Bern(p)), by dp_accounting's optimistic
    discretisation: a lower bound of any certified total (a valid upper bound must hold for this pair too)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    p, q = float(expit(-eps0)), float(expit(eps0))
    y = binom.pmf(np.arange(n), n - 1, p)
    present, absent = np.convolve(y, [p, q]), np.convolve(y, [q, p])
    log = lambda v: {i: math.log(x) for i, x in enumerate(v) if x > 0}  # noqa: E731
    one = pld.from_two_probability_mass_functions(
        log(absent), log(present), pessimistic_estimate=False, value_discretization_interval=1e-5, symmetric=False
    )
    with np.errstate(over="ignore"):  # dp_accounting's tail bound of the convolution overflows harmlessly here
        return float(one.self_compose(rounds).get_epsilon_for_delta(delta))


@pytest.mark.slow
def test_one_round_is_the_single_round_value():
    for name in ("tight", "stronger-clone", "cheu19"):
        bound = get_bound(name)
        r = rounds_forward(bound, 2.0, N, DELTA, 1)
        assert r.eps_c_total == bound.forward(2.0, N, DELTA).eps_c
        assert isinstance(r, Rounds) and r.rounds == 1 and r.delta_total == DELTA and r.valid


@pytest.mark.slow
def test_a_year_is_below_basic_and_advanced_and_above_an_explicit_pair():
    bound = get_bound("tight")
    r = rounds_forward(bound, 2.0, N, DELTA, 365)
    assert r.basic is not None and r.advanced is not None and r.eps_c_total is not None
    assert r.eps_c_total <= r.basic.eps and r.eps_c_total <= r.advanced.eps
    assert r.basic.delta == pytest.approx(DELTA) and r.advanced.delta == pytest.approx(DELTA)
    lower = explicit_pair_lower(2.0, N, 365, DELTA)
    assert lower <= r.eps_c_total <= 1.15 * lower  # the worst case over the others' data costs a few percent
    assert r.pair is PairKind.CURVE and r.neighbouring == "zero-out"


@pytest.mark.slow
def test_the_inverse_is_met_at_its_answer_and_missed_above():
    bound = get_bound("tight")
    r = rounds_inverse(bound, 4.0, N, DELTA, 365)
    assert r.eps0 is not None and r.eps_c_total == 4.0
    assert rounds_forward(bound, r.eps0, N, DELTA, 365).eps_c_total <= 4.0
    assert rounds_forward(bound, 1.01 * r.eps0, N, DELTA, 365).eps_c_total > 4.0


def test_replacement_rounds_compose_two_channels_a_round():
    bound = get_bound("tight")
    one = rounds_forward(bound, 2.0, N, DELTA, 1, channels=2)
    assert one.eps_c_total == replacement_bound(bound).forward(2.0, N, DELTA).eps_c
    year = rounds_forward(bound, 2.0, N, DELTA, 365, channels=2)
    assert year.neighbouring == "replacement"
    assert rounds_forward(bound, 2.0, N, DELTA, 365).eps_c_total < year.eps_c_total < year.basic.eps


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_every_accountant_composes(name):
    """Each registered bound gives a typed result over 30 rounds: a total at most basic composition's, and the
    per-round pair's source (its curve where it has one, else its closed form at several deltas)."""
    bound = get_bound(name)
    k = 2 if name == "blanket-krr" else None
    r = rounds_forward(bound, 0.4, N, DELTA, 30, k)
    if not r.valid:
        assert r.reason and r.eps_c_total is None
        return
    assert r.pair is (PairKind.CURVE if bound.curve_fn is not None else PairKind.POINTS)
    assert r.eps_c_total <= 30 * 0.4 + 1e-12  # the trivial bound
    if r.basic is not None:
        assert r.eps_c_total <= r.basic.eps * (1 + 1e-9)
