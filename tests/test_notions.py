"""The notions and their conversions: zero-out (the string "removal" in the records) -> replacement, (2 eps, 2 delta)
from a number alone, the two channels' pair composed from a bound; the local rule (two bits for the whole report, one
for a message); replacement and native unchanged."""

import math

import pytest

from ldpcore.experiment.protocol.spec import ProtocolSpec, plan
from ldpcore.oracles import ENCODINGS
from ldpcore.privacy.bounds import get_bound
from ldpcore.privacy.guarantee import Neighbouring
from ldpcore.privacy.notions import Seen, local_on_notion, notions_differ, on_notion, replacement_bound, replacement_eps


def test_removal_doubles_eps_and_delta():
    r = on_notion(0.5, "removal", delta=1e-8)
    assert (r.eps, r.delta, r.neighbouring) == (1.0, 2e-8, "replacement")
    assert (r.native_eps, r.native_delta, r.native_neighbouring) == (0.5, 1e-8, "removal") and r.converted


def test_replacement_and_native_are_unchanged():
    assert on_notion(0.5, "replacement", delta=1e-8).eps == 0.5 and not on_notion(0.5, "replacement").converted
    assert on_notion(0.5, "removal", "native").eps == 0.5
    assert replacement_eps(math.inf, "removal") == math.inf


def test_bad_notion_is_refused():
    with pytest.raises(ValueError, match="zero-out"):
        on_notion(1.0, "swap")
    with pytest.raises(ValueError, match="notion"):
        on_notion(1.0, "removal", "both")


def test_onehot_report_under_replacement_is_two_eps_l():
    """One-hot at eps_l under removal: replacing a value flips two bits, so 2 eps_l under replacement."""
    p = plan(ProtocolSpec(eps_c=1.0, delta=5e-8), 1_914_606, 87_680)
    assert ENCODINGS["onehot"].neighbouring == "removal"
    assert replacement_eps(p.eps_l_inf, "removal") == pytest.approx(2 * 8.547, abs=0.01)
    assert notions_differ(["removal", "replacement"]) and not notions_differ(["replacement", "replacement"])


def test_the_planner_converts_by_the_same_function():
    """The planner's replacement rows (ldpcore.experiment.planning) equal ldpcore.privacy.notions' conversion of
    their native numbers: eps_c and the local eps of one-hot doubled, GRR's unchanged."""
    from ldpcore.data.datasets import load_dataset
    from ldpcore.experiment.planning import plan_table

    hist = load_dataset("horse", max_side=64)
    table = plan_table(hist.counts, 1.0, 5e-8, encodings=["onehot", "grr"])
    rows = [r for r in table.rows if not r.error]
    assert {r.encoding for r in rows} == {"onehot", "grr"}
    for r in rows:
        assert r.eps_c == on_notion(r.eps_c_native, ENCODINGS[r.encoding].neighbouring).eps
        assert r.eps_l_replacement == replacement_eps(r.plan.eps_b, ENCODINGS[r.encoding].neighbouring)
    onehot = next(r for r in rows if r.encoding == "onehot")
    assert onehot.eps_c == pytest.approx(1.0, rel=1e-6) and onehot.eps_c_native == pytest.approx(0.5, rel=1e-6)


def test_the_names_are_the_literatures():
    """Zero-out is the relation one-hot certifies; its record string stays "removal" until the records move."""
    assert Neighbouring.ZERO_OUT == "removal" and Neighbouring.ADD_OR_REMOVE_ONE is Neighbouring.ZERO_OUT
    assert Neighbouring.REPLACE_ONE == "replacement"
    assert ENCODINGS["onehot"].neighbouring is Neighbouring.ZERO_OUT


def test_one_rule_for_the_local_eps():
    """Under replacement two bits of a one-hot report change: the whole report pays 2 eps, one message eps."""
    whole = local_on_notion(4.0, "removal", "replacement", Seen.REPORT)
    message = local_on_notion(4.0, "removal", "replacement", Seen.MESSAGE)
    assert (whole.eps, message.eps) == (8.0, 4.0) and whole.converted and message.converted
    assert local_on_notion(4.0, "replacement", "replacement", Seen.REPORT).eps == 4.0
    assert local_on_notion(4.0, "removal", "native", Seen.REPORT).eps == 4.0


def test_a_bound_at_hand_composes_tighter_than_the_number():
    """From the tight bound the two channels' pair gives well below (2 eps, 2 delta) (tests/test_replacement.py has
    the exact values)."""
    n, delta = 10_000, 1e-6
    basic = on_notion(get_bound("tight").forward(3.0, n, delta / 2).eps_c, "removal", delta=delta / 2)
    composed = replacement_bound(get_bound("tight")).forward(3.0, n, delta)
    assert composed.eps_c < basic.eps and composed.neighbouring == "replacement"


def test_an_encodings_bound_on_its_notion():
    """A zero-out encoding read under replacement reaches two channels; replacement encodings and native reads one."""
    from ldpcore.privacy.notions import bound_on_notion, central_on_notion, channels

    tight = get_bound("tight")
    assert channels("removal", "replacement") == 2 and channels("removal", "native") == 1
    assert channels("replacement", "replacement") == 1
    assert bound_on_notion(tight, "removal", "replacement").folds == 2
    assert bound_on_notion(tight, "removal", "native") is tight
    both = central_on_notion(tight, "removal", "replacement", 3.0, 10_000, 1e-6, None)
    assert both.eps == replacement_bound(tight).forward(3.0, 10_000, 1e-6).eps_c and both.delta == 1e-6
    assert both.native_eps == tight.forward(3.0, 10_000, 1e-6).eps_c and both.converted
    grr = central_on_notion(get_bound("stronger-clone"), "replacement", "replacement", 3.0, 10_000, 1e-6, None)
    assert not grr.converted and grr.eps == grr.native_eps
