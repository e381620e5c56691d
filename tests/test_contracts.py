"""The typed contracts between the layers: every registered encoding's oracle is a FrequencyOracle, the
accountants offered for an encoding are derived from the bounds' declarations (and shown in the same
order as before), bound names and the neighbouring relation are enums whose values are the CLI's words,
and a Plan is typed fields that as_dict only serialises."""

import math

import pytest

from ldpcore.experiment.protocol.spec import Plan, ProtocolSpec, plan
from ldpcore.oracles import ENCODINGS
from ldpcore.oracles.base import FrequencyOracle
from ldpcore.oracles.extras import FakeReports, UncertifiedRange
from ldpcore.oracles.multimessage import BaryRR
from ldpcore.privacy import bounds
from ldpcore.privacy.accountant import compare
from ldpcore.privacy.bounds import BOUNDS, BoundName, Randomizer, accountants_for, get_bound
from ldpcore.privacy.guarantee import Guarantee, Neighbouring

BINARY = [
    "cheu19",
    "esa-thm3.1",
    "tight-binary-rr",
    "efmrtt19",
    "fmt21-closed",
    "fmt21-numeric",
    "stronger-clone",
    "blanket-krr",
    "blanket-hoeffding",
    "blanket-bennett",
]
K_RR = ["stronger-clone", "blanket-krr", "blanket-bennett", "blanket-hoeffding", "fmt21-numeric", "fmt21-closed"]
GENERIC = ["fmt21-numeric", "fmt21-closed", "efmrtt19"]
SHOWN = {  # the accountants each encoding offered before they were derived, first = default, in this order
    "onehot": BINARY,
    "grr": K_RR + ["efmrtt19"],
    "oue": GENERIC,
    "sue": GENERIC,
    "olh": GENERIC,
    "solh": ["solh"],
    "hadamard": GENERIC,
    "murs": ["murs"],
    "sketch-fragments": BINARY,
    "cms": GENERIC,
    "hcms": GENERIC,
    "count-sketch": GENERIC,
}


def small(name: str) -> dict:
    return {"k": 4, "m": 64} if "k" in ENCODINGS[name].param_names else {}


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_every_registered_encoding_is_a_frequency_oracle(name):
    encoding = ENCODINGS[name]
    p = plan(ProtocolSpec(eps_c=1.0, delta=1e-6, encoding=name, params=small(name)), 100_000, 16)
    oracle = p.oracle()
    assert isinstance(oracle, FrequencyOracle)
    assert oracle.name == name and oracle.title == encoding.title and oracle.d == 16
    assert oracle.neighbouring is encoding.neighbouring and oracle.randomizer is encoding.randomizer
    assert isinstance(oracle.variance_note, str) and oracle.reference_cells(10) >= 10
    assert p.expected_messages == oracle.expected_messages() and p.bits_per_message == oracle.bits_per_message


def test_a_class_missing_part_of_the_contract_is_not_a_frequency_oracle():
    class NoEstimator:  # negative control
        name, title, d, variance_note, bits_per_message = "x", "x", 2, "", 1
        neighbouring, randomizer = Neighbouring.REPLACE_ONE, Randomizer.ANY_LDP

        def sample_aggregate(self, counts, rng): ...
        def randomize(self, values, rng): ...
        def aggregate(self, reports): ...
        def variance(self, n, counts=None): ...
        def expected_messages(self): ...
        def reference_cells(self, n): ...

    assert not isinstance(NoEstimator(), FrequencyOracle)


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_the_accountants_are_derived_and_shown_as_before(name):
    encoding = ENCODINGS[name]
    assert list(encoding.accountants) == SHOWN[name]
    for accountant in encoding.accountants:
        if encoding.own_bound is None:
            assert get_bound(accountant).holds_for in encoding.randomizer.within
    assert BaryRR.accountants == accountants_for(Randomizer.K_RR)


def test_a_bound_declared_for_a_family_is_offered_to_it(monkeypatch):
    toy = bounds.Bound(
        "toy-krr",
        "toy",
        "toy",
        "toy",
        Neighbouring.REPLACE_ONE,
        lambda *a: 0.0,
        lambda *a: (0, 1, ""),
        holds_for=Randomizer.K_RR,
        rank=99,
    )
    monkeypatch.setitem(BOUNDS, "toy-krr", toy)
    assert ENCODINGS["grr"].accountants[-1] == "toy-krr" and "toy-krr" in ENCODINGS["onehot"].accountants
    assert "toy-krr" not in ENCODINGS["oue"].accountants and "toy-krr" not in ENCODINGS["solh"].accountants


def test_bound_names_and_neighbouring_are_the_cli_words():
    assert [str(b) for b in BOUNDS] == [b.value for b in BoundName if b is not BoundName.MURS]
    assert all(isinstance(b.name, BoundName) and b.name == key for key, b in BOUNDS.items())
    assert (Neighbouring.ZERO_OUT, Neighbouring.REPLACE_ONE) == ("zero-out", "replacement")
    assert f"{Neighbouring.REPLACE_ONE}" == "replacement" and str(BoundName.TIGHT_BINARY_RR) == "tight-binary-rr"


def test_a_guarantee_has_a_value_exactly_when_valid():
    ok = Guarantee(0.5, BoundName.CHEU19, Neighbouring.ZERO_OUT, 1e-6)
    bad = Guarantee.invalid(BoundName.EFMRTT19, Neighbouring.REPLACE_ONE, 1e-6, "n >= 1000")
    assert ok.or_inf == 0.5 and bad.or_inf == math.inf and not bad.valid and bad.value is None
    with pytest.raises(ValueError):
        Guarantee(None, BoundName.CHEU19, Neighbouring.REPLACE_ONE, 1e-6)
    with pytest.raises(ValueError):
        Guarantee(1.0, BoundName.CHEU19, Neighbouring.REPLACE_ONE, 1e-6, valid=False, reason="x")


def test_the_comparison_rows_carry_guarantees():
    rows = compare(500, 1e-6, eps0=0.3)
    efmrtt = next(r for r in rows if r.bound == "efmrtt19")
    assert not efmrtt.guarantee.valid and "n >= 1000" in efmrtt.guarantee.reason
    assert all(r.guarantee.valid == r.valid and r.guarantee.neighbouring == r.neighbouring for r in rows)


def test_serialising_a_plan_computes_nothing(monkeypatch):
    """The MURS adversaries and the fragmented sketch's numbers are typed extras computed by plan(): as_dict
    works with every bound and oracle constructor broken."""
    murs = plan(ProtocolSpec(eps_c=0.5, delta=5e-8, encoding="murs"), 1_914_589, 1000)
    sketch = plan(ProtocolSpec(eps_c=1.0, delta=5e-8, encoding="sketch-fragments", params=small("cms")), 10**6, 100)
    assert isinstance(murs, Plan) and isinstance(murs.extras, FakeReports) and murs.extras.fake_reports == 30_000
    assert not murs.extras.eps_vs_server_and_respondents.valid
    assert isinstance(sketch.extras, UncertifiedRange) and sketch.extras.eps_c_whole_report.valid
    assert sketch.extras.eps_c_range == (sketch.eps_c, sketch.eps_l_inf)

    def broken(*a, **k):
        raise AssertionError("as_dict computed something")

    monkeypatch.setattr(bounds.Bound, "forward", broken)
    monkeypatch.setattr(bounds.Bound, "inverse", broken)
    monkeypatch.setattr(Plan, "oracle", broken)
    record = murs.as_dict()
    assert record["eps_vs_server_and_respondents"] == math.inf and record["fake_reports"] == 30_000
    assert sketch.as_dict()["eps_c_range"] == [sketch.eps_c, sketch.eps_l_inf]
