"""Replacement for one-hot with attribute fragments: the two changed bins' channels composed through the channel's
dominating pair (ldpcore.privacy.notions.replacement_bound), against brute force over every dataset of the others
(c holders of the old value, c' of the new one, c + c' <= n - 1), exact float64 sums checked against 50 digits.

Both directions on a seeded grid (n from 8 to 100) that includes the issue's two points: the certified eps_c is
never below the exact supremum (the brute force certifies it) and within 5% above it (the brute force refuses it
divided by 1.05); the inverse's eps0 certifies its target and the target is within 5% of the exact eps_c there. A
negative control (the exact value less 1%) fails the same check."""

import math

import mpmath as mp
import numpy as np
import pytest
from scipy.special import expit
from scipy.stats import binom

from ldpcore.privacy import tight
from ldpcore.privacy.bounds import get_bound
from ldpcore.privacy.notions import replacement_bound

TIGHT = replacement_bound(get_bound("tight"))
TOLERANCE = 1.05
ISSUE = [(30, 1.1, 1e-6, 1.6151755), (75, 1.1, 1e-6, 0.9092006)]  # n, eps0, delta, exact eps_c (to 1e-7)
DOCS = [(50, 1.75, 1e-3, 1.3496061), (100, 0.75, 1e-6, 0.4669592), (100, 2.5, 1e-8, 4.9261743)]  # composition.md
BASIC_RATIO = [1.36, 1.52, 1.67, 1.48, 1.015]  # (2 eps, 2 delta) / exact at ISSUE + DOCS


def _grid():
    rng = np.random.default_rng(26)
    extra = [
        (int(rng.integers(8, 101)), float(rng.uniform(0.3, 3.0)), float(10 ** rng.uniform(-8, -3))) for _ in range(4)
    ]
    return [(n, eps0, delta) for n, eps0, delta, _ in ISSUE] + extra


class Channels:
    """Every dataset of the others: the pmfs of one bin's count with the respondent's bit present (Bern(q)) and
    absent (Bern(p)), for every c of the other n - 1 holding that bin's value."""

    def __init__(self, eps0: float, n: int):
        m, self.p, self.q = n - 1, float(expit(-eps0)), float(expit(eps0))
        self.m = m
        y = [
            np.convolve(binom.pmf(np.arange(c + 1), c, self.q), binom.pmf(np.arange(m - c + 1), m - c, self.p))
            for c in range(m + 1)
        ]
        f = np.pad(np.array(y), ((0, 0), (1, 1)))
        self.present = self.q * f[:, :-1] + self.p * f[:, 1:]  # (c, k)
        self.absent = self.p * f[:, :-1] + self.q * f[:, 1:]

    def sup(self, eps: float) -> float:
        """max over c + c' <= m of the hockey-stick divergence of (present_c x absent_c', absent_c x present_c'):
        the value leaves the bin its c others share and joins the bin of c' others (the other order is the same
        family with c and c' swapped)."""
        e, best = math.exp(eps), 0.0
        for c in range(self.m + 1):
            rest = slice(0, self.m + 1 - c)
            x = self.present[c][None, :, None] * self.absent[rest][:, None, :]
            y = self.absent[c][None, :, None] * self.present[rest][:, None, :]
            best = max(best, float(np.maximum(x - e * y, 0.0).sum(axis=(1, 2)).max()))
        return best


def _pair_mp(eps, eps0, n, c, c2, digits=50):
    with mp.workdps(digits):
        m, p = n - 1, 1 / (1 + mp.exp(mp.mpf(eps0)))
        q, e = 1 - p, mp.exp(mp.mpf(eps))

        def count(c):
            a = [mp.binomial(c, i) * q**i * p ** (c - i) for i in range(c + 1)]
            b = [mp.binomial(m - c, i) * p**i * q ** (m - c - i) for i in range(m - c + 1)]
            t = [mp.fsum(a[i] * b[k - i] for i in range(max(0, k - (m - c)), min(c, k) + 1)) for k in range(m + 1)]
            f = [mp.mpf(0), *t, mp.mpf(0)]
            return [q * f[k] + p * f[k + 1] for k in range(m + 2)], [p * f[k] + q * f[k + 1] for k in range(m + 2)]

        (present, absent), (present2, absent2) = count(c), count(c2)
        return mp.fsum(
            max(present[i] * absent2[j] - e * absent[i] * present2[j], 0) for i in range(m + 2) for j in range(m + 2)
        )


def test_the_float_sums_agree_with_50_digits():
    eps0, n, eps = 1.1, 12, 1.3
    ch = Channels(eps0, n)
    for c, c2 in ((0, 0), (3, 5), (11, 0)):
        x = ch.present[c][:, None] * ch.absent[c2][None, :]
        y = ch.absent[c][:, None] * ch.present[c2][None, :]
        ours = float(np.maximum(x - math.exp(eps) * y, 0).sum())
        assert ours == pytest.approx(float(_pair_mp(eps, eps0, n, c, c2)), rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("n,eps0,delta,exact,ratio", [(*p, r) for p, r in zip(ISSUE + DOCS, BASIC_RATIO)])
def test_the_issues_and_the_docs_points_and_a_negative_control(n, eps0, delta, exact, ratio):
    """The exact supremum crosses delta within 1e-7 of the stated value (the issue's two points and the table of
    docs/composition.md); the certified eps_c lies between it and 5% above; the exact value less 1% fails the same
    check (the brute force refuses it); basic composition, (2 eps, 2 delta), is 1.36x to 1.67x (at n = 100,
    eps0 = 2.5, nearly the trivial 2 eps0, it is 1.015x, and the composed pair meets the exact value)."""
    ch = Channels(eps0, n)
    assert ch.sup(exact * (1 + 1e-7)) <= delta < ch.sup(exact * (1 - 1e-7))
    ours = TIGHT.forward(eps0, n, delta).eps_c
    assert ch.sup(ours) <= delta and ours <= TOLERANCE * exact
    assert ch.sup(0.99 * exact) > delta  # the negative control fails the certificate
    basic = 2 * get_bound("tight").forward(eps0, n, delta / 2).eps_c
    assert basic / exact == pytest.approx(ratio, abs=0.01)


@pytest.mark.slow
@pytest.mark.parametrize("n,eps0,delta", _grid())
def test_forward_and_inverse_against_every_dataset(n, eps0, delta):
    ch = Channels(eps0, n)
    amp = TIGHT.forward(eps0, n, delta)
    assert amp.neighbouring == "replacement" and amp.pair is not None
    eps_c = amp.eps_c
    assert ch.sup(eps_c) <= delta  # never below the exact supremum
    assert ch.sup(eps_c / TOLERANCE) > delta  # within 5% above it
    target = eps_c * 0.97
    eps0_back = TIGHT.inverse(target, n, delta).eps0
    at = Channels(eps0_back, n)
    assert at.sup(target) <= delta  # the eps0 found certifies the target
    assert at.sup(target / TOLERANCE) > delta  # and the target is within 5% of the exact eps_c there
    assert eps0_back < eps0


def test_tighter_than_basic_composition_and_the_trivial_bound():
    """At Horse's size the composed pair beats (2 eps, 2 delta) by a third; never above 2 eps0 (two eps0-LDP bits)."""
    n, delta = 1_914_589, 5e-8
    basic = 2 * get_bound("tight").forward(10.0, n, delta / 2).eps_c  # (2 eps, 2 delta) at delta / 2
    ours = TIGHT.forward(10.0, n, delta)
    assert ours.eps_c < 0.7 * basic
    small = TIGHT.forward(0.05, 40, 0.5)
    assert small.eps_c <= 0.1


@pytest.mark.slow
def test_the_curve_on_a_grid_matches_the_worst_case():
    """The partition the composed pair is built from gives the branch and bound's values (within its 1e-4) wherever
    they exceed the rounding floor (charges of ~1e-29)."""
    for eps0, n in ((1.1, 75), (3.0, 100_000), (10.0, 1_914_589)):
        grid = np.linspace(0.0, 0.4 * eps0 if n < 1000 else 0.08 * eps0, 9)
        ours = tight.curve_on_grid(grid, eps0, n)
        ref = np.array([tight.worst_case(e, eps0, n, math.inf).delta for e in grid])
        live = ref > 1e-20
        assert np.all(ours[live] >= ref[live] * (1 - 2 * tight.REFINE_RTOL))
        assert np.all(ours[live] <= ref[live] * (1 + 1e-3))
