"""The one-notion conversion: removal -> replacement (2 eps, 2 delta); replacement and native unchanged."""

import math

import pytest

from ldpcore.experiment.protocol.spec import ProtocolSpec, plan
from ldpcore.oracles import ENCODINGS
from ldpcore.privacy.notions import notions_differ, on_notion, replacement_eps


def test_removal_doubles_eps_and_delta():
    r = on_notion(0.5, "removal", delta=1e-8)
    assert (r.eps, r.delta, r.neighbouring) == (1.0, 2e-8, "replacement")
    assert (r.native_eps, r.native_delta, r.native_neighbouring) == (0.5, 1e-8, "removal") and r.converted


def test_replacement_and_native_are_unchanged():
    assert on_notion(0.5, "replacement", delta=1e-8).eps == 0.5 and not on_notion(0.5, "replacement").converted
    assert on_notion(0.5, "removal", "native").eps == 0.5
    assert replacement_eps(math.inf, "removal") == math.inf


def test_bad_notion_is_refused():
    with pytest.raises(ValueError, match="neighbouring"):
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
