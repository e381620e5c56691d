"""The tight accountant: the worst case over the other respondents' data, checked against brute
force over every dataset (float64 for n <= 2,000, 50 digits for small n), high-precision sums at
n = 1e5..1e9, the issue's reference cases, Horse reference values, replacement by composition,
and the product path (ProtocolSpec(accountant="tight"), plan, the CLI)."""

import math

import mpmath as mp
import numpy as np
import pytest
from scipy.special import expit
from scipy.stats import binom

from ldpcore.cli import main
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan
from ldpcore.privacy import binomial, tight
from ldpcore.privacy.bounds import get_bound
from ldpcore.privacy.notions import replacement_bound

HORSE = dict(n=1_914_589, delta=5e-8)
MAP = dict(n=236_559_063, delta=5e-10)


class BruteForce:
    """Every dataset of the other m = n-1 respondents: c of them hold the target's value (1 in its bin).

    The pmf of Y_c = Bin(c, q) + Bin(m-c, p) for every c (direct convolutions, float64), then
    delta(eps) = max over c and both directions of sum_k [P(k) - e^eps Q(k)]_+.
    """

    def __init__(self, eps0: float, n: int):
        m, self.p = n - 1, float(expit(-eps0))
        q = float(expit(eps0))
        self.q = q
        rows = [
            np.convolve(binom.pmf(np.arange(c + 1), c, q), binom.pmf(np.arange(m - c + 1), m - c, self.p))
            for c in range(m + 1)
        ]
        self.t = np.array(rows)  # (c, k)

    def delta(self, eps: float) -> tuple[float, int]:
        f = np.pad(self.t, ((0, 0), (1, 1)))
        present = self.q * f[:, :-1] + self.p * f[:, 1:]  # Y + Bern(q), k = 0..m+1
        absent = self.p * f[:, :-1] + self.q * f[:, 1:]
        e = math.exp(eps)
        both = np.maximum(np.maximum(present - e * absent, 0).sum(1), np.maximum(absent - e * present, 0).sum(1))
        return float(both.max()), int(both.argmax())


def exact_sup_mp(eps, eps0, n, digits=50):
    """The same supremum at `digits` digits (small n only)."""
    with mp.workdps(digits):
        m, p = n - 1, 1 / (1 + mp.exp(mp.mpf(eps0)))
        q, e = 1 - p, mp.exp(mp.mpf(eps))
        best = mp.mpf(0)
        for c in range(m + 1):
            a = [mp.binomial(c, i) * q**i * p ** (c - i) for i in range(c + 1)]
            b = [mp.binomial(m - c, i) * p**i * q ** (m - c - i) for i in range(m - c + 1)]
            t = [mp.fsum(a[i] * b[k - i] for i in range(max(0, k - (m - c)), min(c, k) + 1)) for k in range(m + 1)]
            f = [mp.mpf(0)] + t + [mp.mpf(0)]
            up = down = mp.mpf(0)
            for k in range(m + 2):
                present, absent = q * f[k] + p * f[k + 1], p * f[k] + q * f[k + 1]
                up += max(present - e * absent, 0)
                down += max(absent - e * present, 0)
            best = max(best, up, down)
        return best


# --- the reference cases (the old curve fixed the others at 0 and was below these) ---


@pytest.mark.parametrize(
    "eps0,n,delta,worst_eps_c", [(1.75, 50, 1e-3, 0.946909), (0.75, 100, 1e-6, 0.33047), (4.0, 10_000, 1e-9, 0.445810)]
)
def test_forward_is_the_worst_case(eps0, n, delta, worst_eps_c):
    amp = get_bound("tight").forward(eps0, n, delta)
    assert amp.eps_c == pytest.approx(worst_eps_c, abs=2e-6) and amp.extra["worst_c"][0] > 0


def test_inverse_is_the_worst_case():
    amp = get_bound("tight").inverse(0.1, 100, 1e-9)
    brute = BruteForce(amp.eps0, 100)
    assert brute.delta(0.1)[0] <= 1e-9 * (1 + 1e-9)
    assert BruteForce(amp.eps0 * (1 + 1e-6), 100).delta(0.1)[0] > 1e-9  # and the largest such eps0
    assert amp.eps0 < 0.1969386  # the old curve's answer, which the worst case does not certify


def test_the_check_catches_a_curve_that_fixes_the_others_at_zero():
    """Negative control: the old accountant (every other bit 0) fails the same brute-force check."""
    old = tight.smallest_eps(lambda e: tight._delta_others_zero(e, 1.75, 50), 1.75, 1e-3)
    worst, c = BruteForce(1.75, 50).delta(old)
    assert worst > 1.1e-3 and c > 0  # 11% above delta with one other respondent holding the value


# --- brute force over every dataset, on a seeded grid, both directions ---

_RNG = np.random.default_rng(2026)
GRID = [
    (n, float(_RNG.uniform(0.3, 7.0)), float(_RNG.choice([1e-3, 1e-6, 1e-9])))
    for n in (20, 60, 200, 700, 2000)
    for _ in range(4)
]


@pytest.mark.slow
@pytest.mark.parametrize("n,eps0,delta", GRID)
def test_brute_force_over_every_dataset(n, eps0, delta):
    fwd = get_bound("tight").forward(eps0, n, delta)
    brute = BruteForce(eps0, n)
    if fwd.eps_c < eps0:
        assert brute.delta(fwd.eps_c)[0] <= delta * (1 + 1e-9)
        assert brute.delta(fwd.eps_c * (1 - 1e-6))[0] > delta  # tight to the worst case
    inv = get_bound("tight").inverse(fwd.eps_c, n, delta) if fwd.eps_c > 0 else None
    if inv is not None and inv.valid and inv.eps0 > fwd.eps_c:
        assert BruteForce(inv.eps0, n).delta(fwd.eps_c)[0] <= delta * (1 + 1e-9)
        assert inv.eps0 >= eps0 * (1 - 1e-9)


@pytest.mark.parametrize("eps,eps0,n", [(0.92358, 1.75, 12), (0.3, 2.0, 30), (1.0, 5.0, 40)])
def test_the_curve_bounds_the_50_digit_supremum(eps, eps0, n):
    exact = exact_sup_mp(eps, eps0, n)
    ours = tight.delta_removal(eps, eps0, n)
    assert exact <= ours <= exact * (1 + 1e-8) + 1e-300
    assert abs(BruteForce(eps0, n).delta(eps)[0] - float(exact)) <= 1e-12 * float(exact)  # the float check's accuracy


# --- large n: the summed windows against high-precision sums ---


def _directed_mp(eps, eps0, crowd, ones, lo, hi, left):
    """One direction's positive part summed over k in [lo, hi] at 40 digits (the pmf by recurrence)."""
    with mp.workdps(40):
        p = 1 / (1 + mp.exp(mp.mpf(eps0)))
        q, e = 1 - p, mp.exp(mp.mpf(eps))
        a, b = q - e * p, e * q - p
        big = crowd - ones

        def pmf(m, k, prob):
            return mp.binomial(m, k) * prob**k * (1 - prob) ** (m - k) if 0 <= k <= m else mp.mpf(0)

        span = range(0, min(ones, 60) + 1)
        pa = [pmf(ones, i, p) for i in span]
        s = {k: mp.fsum(pa[i] * pmf(big, k + i, p) for i in span) for k in range(lo - 1, hi + 1)}
        if left:
            return mp.fsum(max(a * s[k] - b * s[k - 1], 0) for k in range(lo, hi + 1))
        return mp.fsum(max(a * s[k - 1] - b * s[k], 0) for k in range(lo, hi + 1))


@pytest.mark.slow
@pytest.mark.parametrize(
    "eps,eps0,n,ones",
    [
        (1.0, 16.678974610654212, 10**9, 1_574_258),
        (1.0, 16.678974610654212, 10**9, 0),
        (1.0, 15.194873096, MAP["n"], 240_520),
        (1.0, 10.683, HORSE["n"], 0),
        (0.0155, 1.0, 10**5, 3),
    ],
)
def test_large_n_windows_against_high_precision_sums(eps, eps0, n, ones):
    down, up = tight.directed(eps, eps0, [n - 1], [ones])
    p = float(expit(-eps0))
    mean, sd = (n - 1 - ones) * p - ones * p, math.sqrt((n - 1) * p * (1 - p))
    lo, hi = max(-ones, int(mean - 40 * (sd + 1))), int(mean + 40 * (sd + 1))
    if sd > 100:  # keep the 40-digit sum short: the part of each tail that carries the mass
        lo, hi = int(mean - 9 * sd), int(mean + 9 * sd)
    exact_down = _directed_mp(eps, eps0, n - 1, ones, lo, int(mean), left=True)
    exact_up = _directed_mp(eps, eps0, n - 1, ones, int(mean), hi, left=False)
    scale = max(exact_down, exact_up)  # what delta is made of; the smaller side may carry fixed charges
    assert exact_down <= down[0] <= exact_down + 1e-7 * scale
    assert exact_up <= up[0] <= exact_up + 1e-7 * scale


def test_the_float_error_allowance_covers_n_of_a_billion():
    """The old curve's fixed 1e-10 allowance was below its float error here (eps0 16.679818005449093)."""
    amp = get_bound("tight").inverse(1.0, 10**9, 1e-9)
    down, up = tight.directed(1.0, amp.eps0, [10**9 - 1], [0])
    p = float(expit(-amp.eps0))
    exact = _directed_mp(1.0, amp.eps0, 10**9 - 1, 0, 0, int(10**9 * p), left=True)
    assert exact <= max(down[0], up[0]) <= 1e-9 and amp.eps0 < 16.679818004977368


# --- reference values on the paper's data ---


@pytest.mark.slow
@pytest.mark.parametrize("eps_c,eps_l", [(1.0, 10.68), (0.05, 5.61)])
def test_horse_inverse(eps_c, eps_l):
    amp = get_bound("tight").inverse(eps_c, **HORSE)
    assert round(amp.eps0, 2) == eps_l and amp.eps_c <= eps_c and amp.neighbouring == "zero-out"
    assert tight.delta_removal(eps_c, amp.eps0, HORSE["n"]) <= HORSE["delta"]


def test_horse_paper_reports_satisfy_a_quarter():
    amp = get_bound("tight").forward(8.547, **HORSE)
    assert round(amp.eps_c, 2) == 0.25 and round(amp.eps_c, 3) == 0.252
    gain = get_bound("tight").inverse(1.0, **HORSE).eps0 - get_bound("cheu19").inverse(1.0, **HORSE).eps0
    assert 2.1 <= gain <= 2.7  # 2.1-2.7 nats more than Lemma II.6


def test_map_scale_inverse():
    amp = get_bound("tight").inverse(1.0, **MAP)
    assert 15.19 < amp.eps0 < 15.1953 and amp.extra["worst_c"][0] > 0  # the worst case is not "others at 0"


def test_replacement_composes_two_bins():
    """Replacement moves the respondent's 1 from one bin to another: brute force over both bins' data
    (tests/test_replacement.py checks tightness on a grid)."""
    eps0, n, delta = 3.0, 40, 1e-3
    replacement = replacement_bound(get_bound("tight"))
    eps_c = replacement.forward(eps0, n, delta).eps_c
    brute = BruteForce(eps0, n)
    f = np.pad(brute.t, ((0, 0), (1, 1)))
    present, absent = brute.q * f[:, :-1] + brute.p * f[:, 1:], brute.p * f[:, :-1] + brute.q * f[:, 1:]
    e, worst = math.exp(eps_c), 0.0
    for c1 in range(n):  # bin 1: the respondent leaves (present -> absent); bin 2: arrives
        for c2 in range(n - c1):
            x = np.outer(present[c1], absent[c2])
            y = np.outer(absent[c1], present[c2])
            worst = max(worst, np.maximum(x - e * y, 0).sum(), np.maximum(y - e * x, 0).sum())
    assert worst <= delta and eps_c > tight.removal_forward(eps0, n, delta)[0]
    eps0_back = replacement.inverse(eps_c, n, delta).eps0
    assert eps0 * (1 - 1e-4) <= eps0_back


def test_a_rows_value_does_not_depend_on_the_batch():
    """The solvers compare one block's value across calls with different companions: it must be bit-identical."""
    alone = [tight.directed(0.2, 3.0, [9_748], [c]) for c in (0, 2, 40, 300)]
    together = tight.directed(0.2, 3.0, [9_748] * 4, [0, 2, 40, 300])
    for i, (down, up) in enumerate(alone):
        assert down[0] == together[0][i] and up[0] == together[1][i]


@pytest.mark.slow
@pytest.mark.parametrize("eps0", [0.1, 4.0])
def test_the_check_agrees_with_the_curve_on_both_sides_of_the_crossing(eps0):
    """certifies() stops splitting blocks whose bound is at most delta: the same answer as the curve."""
    n, delta = 50_000, 5e-8
    eps = tight.removal_forward(eps0, n, delta)[0]
    for e in (eps, eps * (1 + 1e-5), eps * (1 - 1e-5)):
        assert tight.certifies(e, eps0, n, delta) == (tight.delta_removal(e, eps0, n) <= delta)
    assert not tight.certifies(eps * (1 - 1e-5), eps0, n, delta)


def test_binomial_functions_are_scipys():
    """ldpcore.privacy.binomial: scipy.stats.binom's values, bit for bit, inside and outside the support."""
    for n, p in [(0, 0.3), (1, 0.5), (12, 0.3), (10**9, 1e-7), (1_000_003, 0.4999)]:
        k = np.unique(np.clip(np.array([-2, -1, 0, 1, 5, n * p, n - 1, n, n + 1, n + 5]).astype(np.int64), -2, n + 5))
        for name in ("pmf", "logpmf", "cdf", "sf"):
            with np.errstate(divide="ignore"):
                assert np.array_equal(getattr(binomial, name)(k, n, p), getattr(binom, name)(k, n, p)), (name, n, p)


@pytest.mark.slow
def test_solvers_land_on_the_conservative_side():
    curve = lambda e: tight.delta_removal(e, 4.0, 10_000)  # noqa: E731
    eps = tight.smallest_eps(curve, 4.0, 1e-7)
    assert curve(eps) <= 1e-7 < curve(math.nextafter(eps, 0))
    eps0, worst = tight.removal_inverse(eps, 10_000, 1e-7, 100.0)
    assert worst.delta <= 1e-7 and tight.delta_removal(eps, eps0, 10_000) <= 1e-7
    assert tight.delta_removal(eps, eps0 * (1 + 1e-10), 10_000) > 1e-7 * (1 - 1e-4)


def test_refuses_more_respondents_than_it_can_sum():
    amp = get_bound("tight").inverse(1.0, 10**11, 1e-9)
    assert not amp.valid and "n <= 10,000,000,000" in amp.reason


def test_plan_and_spec_accept_the_tight_accountant():
    p = plan(ProtocolSpec(eps_c=1.0, delta=HORSE["delta"], accountant="tight"), HORSE["n"], 87_680)
    assert round(p.eps_l_inf, 2) == 10.68 and p.as_dict()["accountant"] == "tight-binary-rr"
    p = plan(ProtocolSpec(eps_c=None, eps_l=8.547, delta=HORSE["delta"], accountant="tight"), HORSE["n"])
    assert round(p.eps_c, 3) == 0.252


def test_cli_privacy_with_the_tight_accountant(capsys):
    status = main(["privacy", "--n", "1914589", "--delta", "5e-8", "--eps-c", "1", "--accountant", "tight", "--json"])
    assert status == 0 and '"eps_l_inf": 10.68' in capsys.readouterr().out


RTOL = 1e-4  # ldpcore.privacy.accountant.CURVE_RTOL, the charts' precision


@pytest.mark.parametrize("n", [1_000, 50_000, 2_000_000])
@pytest.mark.parametrize("eps0", [0.1, 1.0, 4.0])
def test_display_forward_is_certified_and_within_rtol_above_the_exact(n, eps0):
    exact = tight.removal_forward(eps0, n, 5e-8)[0]
    shown, worst = tight.removal_forward(eps0, n, 5e-8, rtol=RTOL)
    assert tight.certifies(shown, eps0, n, 5e-8) and worst.delta <= 5e-8
    assert exact <= shown <= exact * (1 + RTOL) / (1 - RTOL)


@pytest.mark.parametrize("n", [1_000, 50_000, 2_000_000])
@pytest.mark.parametrize("eps_c", [0.05, 0.5, 2.0])
def test_display_inverse_is_certified_and_within_rtol_below_the_exact(n, eps_c):
    exact = tight.removal_inverse(eps_c, n, 5e-8, 100.0)[0]
    shown, worst = tight.removal_inverse(eps_c, n, 5e-8, 100.0, rtol=RTOL)
    assert tight.certifies(eps_c, shown, n, 5e-8) and worst.delta <= 5e-8
    assert exact / (1 + RTOL) <= shown <= exact
