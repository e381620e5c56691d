"""Privacy numbers of seeds/000 reproduced to the printed precision (spec/esa.md)."""

import math

import pytest

from ldpcore.experiment.protocol.spec import ProtocolSpec, plan
from ldpcore.privacy.bounds import get_bound
from ldpcore.privacy.central import PAPER_SIGMA_HORSE, analytic_gaussian_sigma

HORSE = dict(n=1_914_589, delta=5e-8, d=87_680)
EPS_C = (0.05, 0.25, 0.5, 0.75, 1.0)

# Table IV (Horse): attribute-fragmented eps_l_inf, and (tau -> eps_l_1) per eps_c.
TABLE_IV_ATTR = {0.05: 2.94, 0.25: 5.96, 0.5: 7.28, 0.75: 8.03, 1.0: 8.55}
TABLE_IV_FRAG = {
    0.05: {4: 1.37, 16: 0.50, 256: 0.03},
    0.25: {4: 4.35, 16: 3.13, 256: 0.70},
    0.5: {4: 5.67, 16: 4.45, 256: 1.76},
    0.75: {4: 6.42, 16: 5.19, 256: 2.49},
    1.0: {4: 6.94, 16: 5.71, 256: 3.00},
}


def horse_plan(eps_c, tau=None, **kw):
    return plan(ProtocolSpec(eps_c=eps_c, delta=HORSE["delta"], tau=tau, **kw), HORSE["n"], HORSE["d"])


@pytest.mark.parametrize("eps_c", EPS_C)
def test_table_iv_attribute_fragments(eps_c):
    p = horse_plan(eps_c)
    assert round(p.eps_l_inf, 2) == TABLE_IV_ATTR[eps_c]
    assert p.eps_l_1 == p.eps_l_inf
    assert p.eps_c <= eps_c and p.eps_c == pytest.approx(eps_c, rel=1e-12)
    assert p.as_dict()["neighbouring"] == "zero-out"


# Where eps_b - ln(tau) >= 2.5 the paper's rule eps_f = eps_b - ln(tau) reproduces Table IV;
# below it the paper used an unstated rule (spec/esa.md), so those cells are not compared.
RULE_CELLS = [(0.25, 4), (0.25, 16), (0.5, 4), (0.5, 16), (0.75, 4), (0.75, 16), (1.0, 4), (1.0, 16), (1.0, 256)]


def test_rule_cells_are_exactly_where_eps_b_minus_ln_tau_is_at_least_2_5():
    region = [(e, t) for e in EPS_C for t in (4, 16, 256) if horse_plan(e).eps_b - math.log(t) >= 2.5]
    assert region == RULE_CELLS


@pytest.mark.parametrize("eps_c,tau", RULE_CELLS)
def test_table_iv_report_fragments_where_the_rule_holds(eps_c, tau):
    p = horse_plan(eps_c, tau)
    assert round(p.eps_l_inf, 2) == TABLE_IV_ATTR[eps_c]
    if (eps_c, tau) == (0.75, 16):
        # Erratum: the exact value is 5.1996; the table prints it truncated as 5.19.
        assert math.floor(p.eps_l_1 * 100) / 100 == TABLE_IV_FRAG[eps_c][tau]
        assert round(p.eps_l_1, 4) == 5.1996
    else:
        assert round(p.eps_l_1, 2) == TABLE_IV_FRAG[eps_c][tau]


def test_table_iv_message_count():
    # The paper computes #bits from the printed eps_l = 8.55: (1-p) + (d-1) p = 17.97.
    p = plan(ProtocolSpec(eps_c=None, eps_l=8.55, delta=HORSE["delta"]), HORSE["n"], HORSE["d"])
    assert round(p.expected_messages, 2) == 17.97
    # At the unrounded eps_l = 8.5469 the same formula gives 18.02.
    assert round(horse_plan(1.0).expected_messages, 2) == 18.02


def test_theorem_iii_1_closed_form_is_looser():
    amp = get_bound("esa-thm3.1").inverse(1.0, HORSE["n"], HORSE["delta"])
    assert round(amp.eps0, 2) == 7.40


# Tables VIII (Map) and IX (Child): the paper's inputs differ slightly from Table II's
# (n or delta rounded), so these agree to within one unit of the last printed digit.
TABLE_VIII = (236_559_063, 5e-10, {0.05: 7.39, 0.25: 10.56, 0.5: 11.88, 0.75: 12.63, 1.0: 13.14})
TABLE_IX = (50_409_435, 5e-9, {0.05: 5.95, 0.25: 9.11, 0.5: 10.435, 0.75: 11.18, 1.0: 11.7})


@pytest.mark.parametrize("n,delta,table", [TABLE_VIII, TABLE_IX], ids=["map", "child"])
def test_tables_viii_and_ix_within_a_unit_of_the_last_digit(n, delta, table):
    for eps_c, printed in table.items():
        eps_l = get_bound("cheu19").inverse(eps_c, n, delta).eps0
        assert abs(eps_l - printed) <= 0.0151, (eps_c, eps_l, printed)


@pytest.mark.parametrize("eps_c", EPS_C)
def test_gaussian_baseline_is_the_analytic_calibration(eps_c):
    analytic = {0.05: 82.55, 0.25: 17.89, 0.5: 9.26, 0.75: 6.31, 1.0: 4.81}
    sigma = analytic_gaussian_sigma(eps_c, HORSE["delta"])
    assert round(sigma, 2) == analytic[eps_c]
    assert sigma > PAPER_SIGMA_HORSE[eps_c]  # the paper's column is not this calibration


def test_default_delta_for_uploads_matches_the_papers_choice():
    from ldpcore.experiment.protocol.spec import default_delta

    assert default_delta(HORSE["n"]) == 5e-8  # Table II: Horse
    assert default_delta(50_409_435) == 1e-9 and default_delta(500) == 2e-4
