"""The notions and their conversions: zero-out -> replacement through the two changed channels' pair composed from
the bound, the Gaussian baseline exactly; the local rule (two bits for the whole report, one for a message); the
planner and the cells convert by the same functions; replacement and native unchanged."""

import math

import pytest

from ldpcore.errors import InputError
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan
from ldpcore.oracles import ENCODINGS
from ldpcore.privacy.bounds import get_bound
from ldpcore.privacy.guarantee import Neighbouring
from ldpcore.privacy.notions import Seen, local_on_notion, notions_differ, replacement_bound, replacement_eps


def test_replacement_and_native_are_unchanged():
    assert local_on_notion(0.5, "replacement", "replacement", Seen.REPORT).eps == 0.5
    assert not local_on_notion(0.5, "replacement", "replacement", Seen.REPORT).converted
    assert local_on_notion(0.5, "zero-out", "native", Seen.REPORT).eps == 0.5
    assert replacement_eps(math.inf, "zero-out") == math.inf


def test_bad_notion_is_refused():
    with pytest.raises(ValueError, match="zero-out"):
        local_on_notion(1.0, "swap", "replacement", Seen.REPORT)
    with pytest.raises(ValueError, match="notion"):
        local_on_notion(1.0, "zero-out", "both", Seen.REPORT)


def test_onehot_report_under_replacement_is_two_eps_l():
    """One-hot at eps_l under zero-out: replacing a value flips two bits, so 2 eps_l under replacement."""
    p = plan(ProtocolSpec(eps_c=1.0, delta=5e-8), 1_914_606, 87_680)
    assert ENCODINGS["onehot"].neighbouring == "zero-out"
    assert replacement_eps(p.eps_l_inf, "zero-out") == pytest.approx(2 * 8.547, abs=0.01)
    assert notions_differ(["zero-out", "replacement"]) and not notions_differ(["replacement", "replacement"])


@pytest.mark.slow
def test_the_planner_and_the_cells_convert_by_the_same_function():
    """The planner's replacement rows hold what Plan.on_notion gives for the
    native plan at the same eps_b: one-hot's eps_c through its accountant's two channels (at the same delta, well
    below twice the native; the row reports its target, certified by an eps_b within 1e-5 below the crossing),
    its whole report's local eps doubled; GRR's unchanged."""
    from ldpcore.data.datasets import load_dataset
    from ldpcore.experiment.planning import plan_table
    from ldpcore.experiment.protocol.spec import ProtocolSpec, plan

    hist = load_dataset("horse", max_side=64)
    table = plan_table(hist.counts, 1.0, 5e-8, encodings=["onehot", "grr"])
    rows = [r for r in table.rows if not r.error]
    assert {r.encoding for r in rows} == {"onehot", "grr"}
    for r in rows:
        spec = ProtocolSpec(eps_c=None, eps_l=r.plan.eps_b, delta=5e-8, encoding=r.encoding, accountant=r.accountant)
        try:
            native = plan(spec, hist.n, hist.d)
        except InputError:  # a bound whose region ends below eps_b: the row stands on the trivial bound (its note)
            assert "trivial" in " ".join(r.notes)
            continue
        view = native.on_notion("replacement")
        assert view.eps_c.eps * (1 - 1e-9) <= r.eps_c <= view.eps_c.eps * (1 + 1e-4) and r.eps_c <= 1.0 * (1 + 1e-12)
        assert r.eps_l_replacement == view.eps_l_inf.eps and r.eps_c_native == pytest.approx(native.eps_c, rel=1e-5)
    onehot = next(r for r in rows if r.encoding == "onehot")
    assert 0.5 < onehot.eps_c_native < 1.0 and "composed" in onehot.conversion


def test_the_names_are_the_literatures():
    """Zero-out is what one-hot certifies (dp_accounting's REPLACE_SPECIAL), replacement GRR's; no add/remove."""
    assert Neighbouring.ZERO_OUT == "zero-out" and set(Neighbouring) == {"zero-out", "replacement"}
    assert Neighbouring.REPLACE_ONE == "replacement"
    assert ENCODINGS["onehot"].neighbouring is Neighbouring.ZERO_OUT


def test_one_rule_for_the_local_eps():
    """Under replacement two bits of a one-hot report change: the whole report pays 2 eps, one message eps."""
    whole = local_on_notion(4.0, "zero-out", "replacement", Seen.REPORT)
    message = local_on_notion(4.0, "zero-out", "replacement", Seen.MESSAGE)
    assert (whole.eps, message.eps) == (8.0, 4.0) and whole.converted and message.converted
    assert local_on_notion(4.0, "replacement", "replacement", Seen.REPORT).eps == 4.0
    assert local_on_notion(4.0, "zero-out", "native", Seen.REPORT).eps == 4.0


def test_a_bound_at_hand_composes_tighter_than_the_number():
    """From the tight bound the two channels' pair gives well below (2 eps, 2 delta) (tests/test_replacement.py has
    the exact values)."""
    n, delta = 10_000, 1e-6
    basic = 2 * get_bound("tight").forward(3.0, n, delta / 2).eps_c  # (2 eps, 2 delta) at delta / 2
    composed = replacement_bound(get_bound("tight")).forward(3.0, n, delta)
    assert composed.eps_c < basic and composed.neighbouring == "replacement"


def test_an_encodings_bound_on_its_notion():
    """A zero-out encoding read under replacement reaches two channels; replacement encodings and native reads one."""
    from ldpcore.privacy.notions import channels, gaussian_on_notion
    from ldpcore.privacy.rounds import round_bound

    tight = get_bound("tight")
    assert channels("zero-out", "replacement") == 2 and channels("zero-out", "native") == 1
    assert channels("replacement", "replacement") == 1
    assert round_bound(tight, channels("zero-out", "replacement")).folds == 2
    assert round_bound(tight, channels("zero-out", "native")) is tight
    g = gaussian_on_notion(1.0, 4.8087, 5e-8, "replacement")
    assert g.converted and 1.4 < g.eps < 1.5 and g.delta == 5e-8  # sqrt(2) sensitivity: about sqrt(2) eps


@pytest.mark.slow
def test_the_accountant_table_in_the_replacement_notion():
    """The Accountant page's table under replacement (compare(..., notion)): the zero-out bounds over the two
    changed channels (their replacement_bound, as `amplify --notion replacement`), the replacement bounds as they
    are; at Horse's eps_c = 1 the tight eps0 is 10.29 (10.68 for one channel)."""
    from ldpcore.privacy.accountant import compare

    native = {a.bound: a for a in compare(1_914_589, 5e-8, 2, eps_c=1.0)}
    both = {a.bound: a for a in compare(1_914_589, 5e-8, 2, eps_c=1.0, notion="replacement")}
    for name, a in both.items():
        assert a.neighbouring == "replacement"
        if get_bound(name).neighbouring == "zero-out":
            assert a.eps0 == pytest.approx(
                replacement_bound(get_bound(name)).inverse(1.0, 1_914_589, 5e-8).eps0, rel=1e-9
            )
            assert a.eps0 < native[name].eps0
        else:
            assert a.eps0 == native[name].eps0
    assert both["tight-binary-rr"].eps0 == pytest.approx(10.2916, abs=1e-3)
