"""The tight accountant (spec/esa.md): Horse reference values, an upper bound of the exact
curve computed independently at 50 digits, replacement by composition, and the product
path (ProtocolSpec(accountant="tight"), plan, the CLI)."""
import math

import mpmath as mp
import numpy as np
import pytest
from scipy.special import expit
from scipy.stats import binom

from ldpcore import tight
from ldpcore.amplification import get_bound
from ldpcore.cli import main
from ldpcore.protocol import ProtocolSpec, plan

HORSE = dict(n=1_914_589, delta=5e-8)


def exact_removal(eps, eps0, n, digits=50):
    """max over both directions of sum_k [P(k) - e^eps Q(k)]_+ over the full support, at `digits` digits."""
    with mp.workdps(digits):
        m, p = n - 1, 1 / (1 + mp.exp(mp.mpf(eps0)))
        q, e = 1 - p, mp.exp(mp.mpf(eps))
        f = [mp.mpf(0)] + [mp.binomial(m, k) * p**k * q**(m - k) for k in range(m + 1)] + [mp.mpf(0)]
        up = down = mp.mpf(0)
        for k in range(m + 2):  # K = Y + Bern: f[k] = P(Y = k-1), f[k+1] = P(Y = k)
            big_p, big_q = q * f[k] + p * f[k + 1], p * f[k] + q * f[k + 1]
            up += max(big_p - e * big_q, 0)
            down += max(big_q - e * big_p, 0)
        return max(up, down)


@pytest.mark.parametrize("eps_c,eps_l", [(1.0, 10.68), (0.05, 5.61)])
def test_horse_inverse(eps_c, eps_l):
    amp = get_bound("tight").inverse(eps_c, **HORSE)
    assert round(amp.eps0, 2) == eps_l and amp.eps_c <= eps_c and amp.neighbouring == "removal"
    assert amp.eps_c == pytest.approx(eps_c, rel=1e-9)


def test_horse_paper_reports_satisfy_a_quarter():
    amp = get_bound("tight").forward(8.547, **HORSE)
    assert round(amp.eps_c, 2) == 0.25 and round(amp.eps_c, 3) == 0.252
    gain = get_bound("tight").inverse(1.0, **HORSE).eps0 - get_bound("cheu19").inverse(1.0, **HORSE).eps0
    assert 2.1 <= gain <= 2.7  # spec/esa.md: 2.1-2.7 nats more than Lemma II.6


@pytest.mark.parametrize("eps0,n,delta", [(3.0, 2000, 1e-6), (1.0, 3000, 1e-4), (6.0, 500, 1e-9), (0.3, 1, 0.1)])
def test_reported_delta_bounds_the_exact_delta(eps0, n, delta):
    eps_c = get_bound("tight").forward(eps0, n, delta).eps_c
    reported = tight.delta_removal(eps_c, eps0, n)
    exact = exact_removal(eps_c, eps0, n)
    assert exact <= reported <= delta
    assert reported <= exact * (1 + 1e-7) + 1e-15  # and barely above it
    # one float below the returned eps_c the curve is above delta: eps_c is the smallest certified value
    assert tight.delta_removal(math.nextafter(eps_c, 0), eps0, n) > delta


@pytest.mark.parametrize("eps,eps0,n", [(0.5, 3.0, 300), (1.0, 5.0, 1000), (0.3, 2.0, 800)])
def test_replacement_composes_two_bins(eps, eps0, n):
    m, p = n - 1, expit(-eps0)
    f = np.concatenate(([0.0], binom.pmf(np.arange(m + 1), m, p), [0.0]))
    big_p, big_q = (1 - p) * f[:-1] + p * f[1:], p * f[:-1] + (1 - p) * f[1:]
    exact = np.maximum(np.outer(big_p, big_q) - math.exp(eps) * np.outer(big_q, big_p), 0).sum()
    bound = tight.delta_replacement(eps, eps0, n)
    assert exact <= bound <= exact * 1.01
    assert bound >= tight.delta_removal(eps, eps0, n)


def test_solvers_land_on_the_conservative_side():
    curve = lambda e: tight.delta_removal(e, 4.0, 10_000)  # noqa: E731
    eps = tight.smallest_eps(curve, 4.0, 1e-7)
    assert curve(eps) <= 1e-7 < curve(math.nextafter(eps, 0))
    eps0 = tight.largest_eps0(lambda e0: tight.delta_removal(eps, e0, 10_000), eps, 100.0, 1e-7)
    assert tight.delta_removal(eps, eps0, 10_000) <= 1e-7 < tight.delta_removal(eps, eps0 * (1 + 1e-12), 10_000)


def test_plan_and_spec_accept_the_tight_accountant():
    p = plan(ProtocolSpec(eps_c=1.0, delta=HORSE["delta"], accountant="tight"), HORSE["n"], 87_680)
    assert round(p.eps_l_inf, 2) == 10.68 and p.as_dict()["accountant"] == "tight-binary-rr"
    p = plan(ProtocolSpec(eps_c=None, eps_l=8.547, delta=HORSE["delta"], accountant="tight"), HORSE["n"])
    assert round(p.eps_c, 3) == 0.252


def test_cli_privacy_with_the_tight_accountant(capsys):
    status = main(["privacy", "--n", "1914589", "--delta", "5e-8", "--eps-c", "1", "--accountant", "tight", "--json"])
    assert status == 0 and '"eps_l_inf": 10.68' in capsys.readouterr().out
