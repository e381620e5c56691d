"""Dominating pairs from privacy profiles (ldpcore.privacy.dominating): the pair dominates every dataset's pair at
every eps (negative eps included), is a probability pair, keeps the points it was built from, and its k-fold
composition is at least the exact convolution of its losses (direct sums of positive terms) and within 1e-6 of it."""

import math

import numpy as np
import pytest
from scipy.special import expit
from scipy.stats import binom

from ldpcore.privacy import dominating
from ldpcore.privacy.bounds import get_bound
from ldpcore.privacy.guarantee import PairKind


def channel_curves(eps0: float, n: int, eps: np.ndarray) -> np.ndarray:
    """Every dataset's hockey-stick divergence (c = 0..n-1 holders, both orders) at every eps: (c, order, eps)."""
    m, p, q = n - 1, float(expit(-eps0)), float(expit(eps0))
    out = []
    for c in range(m + 1):
        y = np.convolve(binom.pmf(np.arange(c + 1), c, q), binom.pmf(np.arange(m - c + 1), m - c, p))
        f = np.pad(y, 1)
        present, absent = q * f[:-1] + p * f[1:], p * f[:-1] + q * f[1:]
        a = np.exp(eps)[:, None]
        out.append([np.maximum(present - a * absent, 0).sum(1), np.maximum(absent - a * present, 0).sum(1)])
    return np.array(out)


@pytest.mark.parametrize("eps0,n", [(1.1, 30), (2.5, 60), (0.4, 45)])
def test_the_pair_dominates_every_dataset(eps0, n):
    """At eps on and off the grid, positive and negative: the pair's curve (dp_accounting's PLD of its masses) is at
    least every dataset's divergence in either order."""
    pair = dominating.profile_pair(get_bound("tight"), eps0, n, None, 1e-9)
    assert pair.kind is PairKind.CURVE
    eps = np.concatenate((-np.linspace(0, 1.5 * eps0, 23), np.linspace(0, 1.5 * eps0, 37)))
    pld = pair.pld()
    ours = np.array([pld.get_delta_for_epsilon(float(e)) for e in eps])
    worst = channel_curves(eps0, n, eps).max(axis=(0, 1))
    assert np.all(ours >= worst * (1 - 1e-12) - 1e-16)
    above = (eps >= 0) & (worst > 1e-6)  # and not far above it where it matters (the top keeps ~1e-9)
    assert np.max((ours - worst)[above] / worst[above]) < 0.5


def test_masses_are_a_pair_and_keep_the_envelope():
    pair = dominating.profile_pair(get_bound("tight"), 3.0, 100_000, None, 1e-12)
    probs, inf = pair.masses
    assert np.all(probs >= 0) and probs.sum() + inf == pytest.approx(1.0, abs=1e-12)
    pld = pair.pld()
    grid = pair.step * np.arange(len(pair.curve))
    at = np.array([pld.get_delta_for_epsilon(float(e)) for e in grid])
    assert np.all(at >= np.array(pair.curve) * (1 - 1e-9))


def test_upper_bounds_that_are_not_convex_still_give_a_pair_above_them():
    """Any upper bounds (here a non-convex staircase) give an envelope below them and a pair whose curve is that
    envelope: above the convex hull, so above any profile they bound."""
    upper = [0.3, 0.3, 0.1, 0.1, 0.1, 0.01, 0.0]
    pair = dominating.DominatingPair.from_upper_bounds(0.2, upper, PairKind.POINTS)
    assert all(g <= u * (1 + 2e-9) for g, u in zip(pair.curve, upper, strict=True))
    alpha = np.exp(0.2 * np.arange(7))
    assert np.all(np.diff(np.diff(pair.curve) / np.diff(alpha)) >= -1e-15)  # convex in e^eps
    assert pair.curve[0] <= (math.expm1(1.2) + 0) / (math.exp(1.2) + 1) + 1e-12  # capped by symmetry


def _convolved(pair, folds):
    probs, inf = pair.masses
    out = probs
    for _ in range(folds - 1):
        out = np.convolve(out, probs)
    k = len(pair.curve) - 1
    losses = pair.step * (np.arange(len(out)) - folds * k)
    return losses, out, -math.expm1(folds * math.log1p(-inf))


@pytest.mark.parametrize("folds", [2, 40])
def test_composition_is_at_least_the_exact_convolution(folds):
    pair = dominating.profile_pair(get_bound("tight"), 3.0, 100_000, None, 1e-13)
    losses, probs, inf = _convolved(pair, folds)
    for delta in (1e-6, 1e-9, 1e-11):
        eps = pair.epsilon(delta, folds)
        exact = inf + float(np.dot(-np.expm1(eps - losses[losses > eps]), probs[losses > eps]))
        assert exact <= pair.delta(eps, folds) <= delta
        assert pair.delta(eps, folds) <= exact * (1 + 1e-6)


def test_a_closed_form_gives_a_pair_through_its_points():
    """Lemma II.6 at several deltas: the pair's curve is at most each certified delta from its eps on."""
    bound = get_bound("cheu19")
    pair = dominating.profile_pair(bound, 3.0, 100_000, None, 1e-12)
    assert pair.kind is PairKind.POINTS
    pld = pair.pld()
    for delta in (1e-3, 1e-6, 1e-9):
        eps_c = bound.forward(3.0, 100_000, delta).eps_c
        assert pld.get_delta_for_epsilon(eps_c + pair.step) <= delta * (1 + 1e-8)
