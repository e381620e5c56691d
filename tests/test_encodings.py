"""Every registered encoding runs end to end: plan (accountant), exact simulation, estimate,
metrics; the measured raw error matches the analytic variance; the CLI and spec agree."""

import json
import math

import numpy as np
import pytest
from conftest import cli

from ldpcore.data.datasets import load_dataset
from ldpcore.errors import InputError
from ldpcore.experiment.protocol.run import paper_methods, run
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan
from ldpcore.oracles import ENCODINGS
from ldpcore.oracles.fake_reports import murs_eps_server, murs_eps_users

SKETCHES = [name for name, e in ENCODINGS.items() if "k" in e.param_names]


@pytest.fixture(scope="module")
def small_horse():
    return load_dataset("horse", max_side=64)  # d = 3,520 bins, n = 76,876


def small(encoding: str, **kw) -> dict:
    """Sketches at 64 x 4,096 (the paper's 1,024 x 65,536 is exercised in test_oracles_sketch)."""
    return {"k": 64, "m": 4096, **kw} if encoding in SKETCHES else kw


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_runs_with_the_analytic_error_and_the_claimed_eps_c(small_horse, encoding):
    spec = ProtocolSpec(eps_c=1.0, delta=1e-6, encoding=encoding, params=small(encoding))
    results = [run(spec, small_horse, seed=s) for s in range(10)]
    r = results[0]
    assert r.plan.spec.accountant == ENCODINGS[encoding].accountants[0]
    assert r.plan.eps_c <= 1.0 and r.plan.as_dict()["neighbouring"] == ENCODINGS[encoding].neighbouring
    mean = np.mean([x.metrics["rmse_raw"] for x in results])
    assert abs(mean / r.analytic_std - 1) < 0.05
    assert r.estimate.shape == (small_horse.d,) and r.metrics["expected_messages"] >= 1


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_per_respondent_path_runs_for_every_encoding(encoding):
    tiny = load_dataset("horse", max_side=12)
    params = {"k": 4, "m": 64} if encoding in SKETCHES else {"n_r": 100} if encoding == "murs" else {}
    r = run(ProtocolSpec(eps_c=5.0, delta=1e-3, encoding=encoding, params=params), tiny, seed=1, per_respondent=True)
    assert np.isfinite(r.metrics["rmse_raw"])


@pytest.mark.parametrize("encoding", SKETCHES)
def test_sketch_runs_draw_their_hash_functions_from_the_run_seed(small_horse, encoding):
    """plan() builds sketches without a hash seed: run(seed=s) draws the hash functions from s, so the
    same seed reproduces the run exactly and different seeds hash differently."""
    spec = ProtocolSpec(eps_c=1.0, delta=1e-6, encoding=encoding, params=small(encoding))
    a, b, c = (run(spec, small_horse, seed=s) for s in (3, 3, 4))
    assert np.array_equal(a.estimate, b.estimate) and not np.array_equal(a.estimate, c.estimate)
    oracle = a.plan.oracle()
    assert oracle.seed is None
    seeds = [oracle.sample_aggregate(small_horse.counts, np.random.default_rng(s)).seed for s in (3, 4)]
    assert seeds[0] != seeds[1]
    reports = oracle.sample_aggregate(small_horse.counts, np.random.default_rng(3))
    assert np.array_equal(oracle.estimate(reports, small_horse.n), a.estimate)  # the run's own hash functions


def test_solh_picks_the_hash_range_with_eps_l_as_in_the_spec():
    """spec/frequency_oracles.md: eps_c=0.5, n=1e6, delta=1e-9 -> A = 833.806, d' = 278, eps_l = 6.3222."""
    p = plan(ProtocolSpec(eps_c=0.5, delta=1e-9, encoding="solh"), 10**6, 10_000)
    record = p.as_dict()
    assert record["hash_range"] == 278 and round(p.eps_b, 4) == 6.3222 and p.oracle().g == 278
    assert p.eps_c <= 0.5 and record["accountant"] == "solh"
    fixed = plan(ProtocolSpec(eps_c=0.5, delta=1e-9, encoding="solh", params={"g": 100}), 10**6, 10_000)
    assert fixed.oracle().g == 100 and fixed.eps_b == pytest.approx(math.log(833.806 - 100 + 1), abs=1e-4)


def test_murs_certifies_eps_1_against_the_server_and_reports_every_adversary():
    n, delta, d = 10**6, 1e-9, 100
    base = plan(ProtocolSpec(eps_c=0.5, delta=delta, encoding="grr", accountant="blanket-krr"), n, d)
    none = plan(ProtocolSpec(eps_c=0.5, delta=delta, encoding="murs", params={"base": "grr", "n_r": 0}), n, d)
    assert none.eps_b == pytest.approx(base.eps_b, rel=1e-9)  # no fakes: shuffled GRR (Balle et al.)
    solh = plan(ProtocolSpec(eps_c=0.5, delta=delta, encoding="murs", params={"n_r": 0}), n, d)
    assert round(solh.eps_b, 4) == 6.3222 and solh.as_dict()["hash_range"] == 278  # no fakes: SOLH
    p = plan(ProtocolSpec(eps_c=0.5, delta=delta, encoding="murs", params={"base": "grr", "r": 3, "n_r": 10_000}), n, d)
    record = p.as_dict()
    assert p.eps_b > base.eps_b  # fakes buy local eps at the same eps_1
    assert murs_eps_server(p.eps_b, n, delta, d, 30_000) == pytest.approx(0.5, rel=1e-9) and p.eps_c <= 0.5
    assert record["eps_vs_server_and_respondents"] == pytest.approx(murs_eps_users(delta, d, 30_000))
    assert record["eps_vs_server_and_shufflers"] == p.eps_b and record["fake_reports"] == 30_000
    with pytest.raises(InputError, match="too few respondents and fakes"):
        plan(ProtocolSpec(eps_c=0.5, delta=delta, encoding="murs", params={"base": "grr", "n_r": 0}), 1000, d)


def test_the_fragmented_sketch_reuses_the_one_hot_eps_l_and_says_eps_c_is_not_certified():
    onehot = plan(ProtocolSpec(eps_c=1.0, delta=5e-8), 1_914_606, 87_680)
    p = plan(ProtocolSpec(eps_c=1.0, delta=5e-8, encoding="sketch-fragments"), 1_914_606, 87_680)
    record = p.as_dict()
    assert p.eps_b == onehot.eps_b and round(p.eps_l_inf, 2) == 8.55
    assert record["certified"] is False and record["eps_c_range"] == [p.eps_c, p.eps_l_inf] and p.eps_c <= 1.0
    assert any("no amplification bound for fragmented sketch reports" in note for note in record["notes"])
    # a respondent's whole report is 2 eps_b-LDP (replacement): a generic bound gives almost nothing
    assert record["eps_c_whole_report_replacement"] > 15
    assert p.oracle().k == 1024 and p.oracle().m == 65_536
    assert round(record["expected_messages"], 1) == 13.7  # seeds/000 Table III: #bits 13.68 at eps_l 8.55


@pytest.mark.parametrize("encoding", ["cms", "hcms", "count-sketch"])
def test_single_message_sketches_are_certified_by_the_generic_bounds(encoding):
    """One eps_l-LDP report per respondent: FMT21's numerical bound certifies eps_c = 1 on Horse at
    eps_l = 9.76 (more than the one-hot 8.55 that seeds/000 reuses), and those reports at eps_c = 0.49."""
    p = plan(ProtocolSpec(eps_c=1.0, delta=5e-8, encoding=encoding), 1_914_606, 87_680)
    record = p.as_dict()
    assert record["certified"] is True and record["accountant"] == "fmt21-numeric" and "eps_c_range" not in record
    assert round(p.eps_b, 2) == 9.76 and p.eps_c <= 1.0 and p.oracle().eps_l == pytest.approx(p.eps_b)
    paper = plan(ProtocolSpec(eps_c=None, eps_l=8.546904897471144, delta=5e-8, encoding=encoding), 1_914_606, 87_680)
    assert round(paper.eps_c, 2) == 0.49


@pytest.mark.parametrize(
    "params, message",
    [
        ({"q": 1}, "the cms encoding has no parameter q"),
        ({"k": 0}, "hash functions k must be a whole number in \\[1, 4,096\\]"),
        ({"m": 1000}, "sketch width m must be one of 64, 128"),
        ({"m": "65536.0"}, None),
        ({"k": True}, "must not be a boolean"),
        ({"k": 4096, "m": 2**20}, "k x m = 4,294,967,296 cells exceeds"),
        ({"k": 2.5}, "hash functions k must be a whole number"),
    ],
)
def test_bad_encoding_parameters_are_one_clear_message(params, message):
    if message is None:  # accepted, as its type
        assert ProtocolSpec(eps_c=1.0, encoding="cms", params=params).param_dict["m"] == 65_536
        return
    with pytest.raises(InputError, match=message):
        ProtocolSpec(eps_c=1.0, encoding="cms", params=params)


def test_hash_range_one_is_refused_and_murs_on_grr_needs_the_domain():
    with pytest.raises(InputError, match="hash range g must be 0 or >= 2"):
        ProtocolSpec(eps_c=1.0, encoding="olh", params={"g": 1})
    with pytest.raises(InputError, match="applies to MURS on SOLH only"):
        ProtocolSpec(eps_c=1.0, encoding="murs", params={"base": "grr", "g": 16})
    with pytest.raises(InputError, match="MURS with base grr needs the domain size"):
        plan(ProtocolSpec(eps_c=0.5, delta=1e-9, encoding="murs", params={"base": "grr"}), 10**6)
    record = plan(ProtocolSpec(eps_c=0.5, delta=1e-9, encoding="solh"), 10**6).as_dict()
    assert record["hash_range"] == 278  # known without a domain


def test_murs_eps_2_is_infinite_above_the_blanket_limit():
    few = plan(ProtocolSpec(eps_c=0.5, delta=1e-9, encoding="murs", params={"base": "grr"}), 10**6, 100).as_dict()
    assert few["eps_vs_server_and_respondents"] < 1  # 30,000 fakes over 100 values
    many = plan(ProtocolSpec(eps_c=0.5, delta=1e-9, encoding="murs"), 10**6, 100).as_dict()
    assert murs_eps_users(1e-9, many["hash_range"], 30_000) > 1
    assert many["eps_vs_server_and_respondents"] == math.inf  # the closed form certifies nothing above 1


def test_fragments_and_accountants_are_checked_per_encoding():
    with pytest.raises(InputError, match="report fragments \\(tau\\) apply to the one-hot encoding only"):
        ProtocolSpec(eps_c=1.0, encoding="grr", tau=4)
    with pytest.raises(InputError, match="the accountant cheu19 does not hold for the oue encoding"):
        ProtocolSpec(eps_c=1.0, encoding="oue", accountant="cheu19")
    labels = [m.label for m in paper_methods(ProtocolSpec(eps_c=1.0, encoding="grr"))]
    assert labels == ["Central Gaussian (no LDP)", ENCODINGS["grr"].title]


def test_cli_oracles_and_run_encoding():
    out = cli("oracles", "--json")
    encodings = json.loads(out.stdout)["encodings"]
    assert [e["name"] for e in encodings] == list(ENCODINGS)
    cms = encodings[list(ENCODINGS).index("cms")]
    assert cms["certified"] is True and [p["name"] for p in cms["params"]] == ["k", "m"]
    assert encodings[list(ENCODINGS).index("sketch-fragments")]["certified"] is False
    assert cms["params"][0]["default"] == 1024 and cms["params"][1]["default"] == 65_536
    out = cli("run", "--dataset", "horse", "--max-side", "64", "--encoding", "oue", "--eps-c", "1", "--json")
    rec = json.loads(out.stdout)
    assert rec["encoding"] == "oue" and rec["accountant"] == "fmt21-numeric" and rec["expected_messages"] == 1.0
    out = cli(
        "run",
        "--dataset",
        "horse",
        "--max-side",
        "64",
        "--encoding",
        "count-sketch",
        "--param",
        "k=16",
        "--param",
        "m=1024",
        "--param",
        "combine=mean",
        "--eps-c",
        "1",
        "--json",
    )
    rec = json.loads(out.stdout)
    assert rec["params"] == {"combine": "mean", "k": 16, "m": 1024} and rec["certified"] is True
    assert rec["analytic_rmse_raw_note"] == ""  # the mean readout's variance is exact


def test_the_count_sketch_median_analytic_rmse_is_labelled_an_approximation(small_horse):
    """Wherever analytic_rmse_raw is reported (the run record, evaluate's cells, analytic curves) the
    median readout carries its note; exact variances carry none."""
    from ldpcore.experiment.protocol.run import Method, analytic, evaluate
    from ldpcore.oracles.sketches import MEDIAN_NOTE

    median = ProtocolSpec(eps_c=1.0, delta=1e-6, encoding="count-sketch", params=small("count-sketch"))
    assert run(median, small_horse, seed=1).as_dict()["analytic_rmse_raw_note"] == MEDIAN_NOTE
    assert "approximation" in MEDIAN_NOTE
    cell = evaluate(Method("cs", median), 1.0, small_horse, seed=1)
    assert cell.privacy["analytic_rmse_raw_note"] == MEDIAN_NOTE
    assert analytic(Method("cs", median), 1.0, small_horse)["rmse_raw_note"] == MEDIAN_NOTE
    mean = ProtocolSpec(eps_c=1.0, delta=1e-6, encoding="count-sketch", params=small("count-sketch", combine="mean"))
    for spec in (
        mean,
        ProtocolSpec(eps_c=1.0, delta=1e-6),
        ProtocolSpec(eps_c=1.0, delta=1e-6, encoding="hcms", params=small("hcms")),
    ):
        assert analytic(Method("x", spec), 1.0, small_horse)["rmse_raw_note"] == ""


@pytest.mark.parametrize("k", [None, 50, 5000])
@pytest.mark.parametrize("fakes", [0, 10_000, 1_000_000])
def test_murs_bound_round_trip_and_monotone(k, fakes):
    """The inverse gives the largest eps_l whose eps_1 <= eps_c (k=None: the hash range follows eps_l, so
    eps_1 jumps and may land below the target); forward is increasing where valid."""
    from ldpcore.oracles.fake_reports import murs_bound

    bound, n, delta = murs_bound(fakes), 2_000_000, 1e-9
    lo, hi, reason = bound.region_fn(n, delta, k)
    assert not reason
    values = [bound.forward(e, n, delta, k).eps_c for e in np.linspace(lo, hi, 50)]
    assert values == sorted(values) and values[-1] <= 1.0 + 1e-12  # the blanket bound holds up to eps_c = 1
    for eps_c in (0.2, 0.5, 0.9):
        amp = bound.inverse(eps_c, n, delta, k)
        if not amp.valid:
            assert values[0] > eps_c and "smallest certified value" in amp.reason
            continue
        assert amp.eps_c <= eps_c
        if not amp.capped:
            assert bound.forward(amp.eps0 * (1 + 1e-9), n, delta, k).eps_c > eps_c
            if k is not None:
                assert amp.eps_c == pytest.approx(eps_c, rel=1e-9)


@pytest.mark.parametrize("size", [1, 5, 3 * 2**15 + 7])  # the last spans blocks of error_metrics' passes
def test_error_metrics_match_their_definitions(size):
    from ldpcore.experiment.protocol.metrics import error_metrics

    rng = np.random.default_rng(3)
    truth = rng.integers(1, 50, size)
    estimate = truth + rng.normal(0, 30, size)
    clipped = np.clip(estimate, 0, 49)
    got = error_metrics(truth, estimate, 49, peak=255.0)
    rmse = math.sqrt(np.mean((clipped - truth) ** 2))
    assert got["rmse"] == pytest.approx(rmse, rel=1e-12)
    assert got["rmse_raw"] == pytest.approx(math.sqrt(np.mean((estimate - truth) ** 2)), rel=1e-12)
    assert got["linf"] == np.abs(clipped - truth).max()
    if clipped.sum() > 0:
        tv = 0.5 * np.abs(truth / truth.sum() - clipped / clipped.sum()).sum()
        assert got["tv"] == pytest.approx(tv, rel=1e-12)
    assert got["psnr"] == pytest.approx(20 * math.log10(255 / rmse), rel=1e-12)
    assert error_metrics(truth, -np.ones(size), 49)["tv"] == 1.0  # nothing left after clipping
