"""The planner (ldpcore.experiment.planning): rows from plan() and the oracles, the one-notion conversion,
the exact likelihood-ratio audit of the replacement-LDP column, top-k recall, the confidence-interval coverage
and the command line. The simulated acceptance numbers are in test_planner_predictions.py (predicted RMSE, the
recommendation) and test_planner_inverses.py (both inverses' target and minimality), files of their own so that
test workers run them side by side."""

import csv
import io
import json
import math

import numpy as np
import pytest
from conftest import cli

from ldpcore.data.datasets import load_dataset
from ldpcore.data.histogram import Histogram
from ldpcore.errors import InputError
from ldpcore.experiment.planning import (
    Constraints,
    Shape,
    Target,
    confidence_intervals,
    plan_shape,
    plan_table,
    scaled_counts,
    solve_eps_c,
)
from ldpcore.experiment.protocol.metrics import analytic_rmse
from ldpcore.experiment.protocol.run import run, run_central
from ldpcore.experiment.protocol.spec import plan
from ldpcore.export import estimate_csv, std_errors
from ldpcore.oracles import ENCODINGS

SKETCHES = ("sketch-fragments", "cms", "hcms", "count-sketch")
# --- the rows ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_every_encoding_and_accountant_has_one_row_and_the_numbers_come_from_plan():
    hist = load_dataset("horse")
    table = plan_table(hist.counts, 1.0, 5e-8)
    assert len(table.rows) == sum(len(e.accountants) for e in ENCODINGS.values())
    assert {(r.encoding, r.accountant) for r in table.rows} == {
        (name, acc) for name, e in ENCODINGS.items() for acc in e.accountants
    }
    for r in table.rows:
        if r.error:
            assert not r.certified and not r.ranked and r.reason == r.error
            continue
        again = plan(r.spec, hist.n, hist.d)
        assert r.eps_l == again.eps_l_inf and r.eps_c == again.eps_c
        assert r.eps_c_native == again.eps_c or "composed" in r.conversion
        assert r.rmse == pytest.approx(analytic_rmse(again.oracle(), hist.n, hist.counts), rel=1e-12)
        assert r.messages == pytest.approx(again.expected_messages)
        assert r.bits_per_respondent == pytest.approx(r.messages * r.bits_per_message)
        assert r.ci95 == pytest.approx(1.959963984540054 * r.rmse)
        assert r.eps_c <= 1.0 * (1 + 1e-12)


@pytest.mark.slow
def test_zero_out_rows_under_replacement_compose_the_two_changed_channels():
    """One-hot (zero-out, per channel) read under replacement: the accountant's dominating pair over the two changed
    bins at the same delta, well below basic composition (which asked the accountant for eps_c / 2 at delta / 2:
    eps_l 9.629 with the tight accountant); the local eps of the whole report doubles, one message's does not."""
    hist = load_dataset("horse")
    table = plan_table(hist.counts, 1.0, 5e-8)
    onehot = next(r for r in table.rows if r.encoding == "onehot" and r.accountant == "tight-binary-rr")
    assert onehot.neighbouring == "zero-out" and onehot.local_neighbouring == "zero-out"
    assert onehot.spec.notion == "replacement" and onehot.spec.eps_c == 1.0 and onehot.delta_native == 5e-8
    assert "composed" in onehot.conversion and onehot.eps_c_native < onehot.eps_c < 2 * onehot.eps_c_native
    assert onehot.eps_l == pytest.approx(10.2916, abs=1e-3) and onehot.eps_l > 9.629
    assert onehot.eps_l_replacement == 2 * onehot.eps_l and onehot.eps_l_1 == onehot.eps_l
    grr = next(r for r in table.rows if r.encoding == "grr" and not r.error)
    assert grr.eps_l_replacement == grr.eps_l and grr.eps_l_1 is None and grr.conversion.startswith("none")
    native = plan_table(hist.counts, 1.0, 5e-8, notion="native", encodings=["onehot"])
    tight = next(r for r in native.rows if r.accountant == "tight-binary-rr")
    assert tight.eps_l == pytest.approx(10.683, abs=1e-3)  # the tight accountant at Horse's eps_c = 1 (zero-out)
    assert onehot.eps_l < tight.eps_l


@pytest.mark.slow
def test_repeated_collection_spends_the_budget_over_the_rounds():
    """plan with rounds: eps_c is the total over the rounds; each row's eps_l is per round, smaller than for one
    round, and its eps_c_per_round at delta / rounds is below the total."""
    hist = load_dataset("horse")
    one = plan_table(hist.counts, 4.0, 5e-8, encodings=["onehot"])
    year = plan_table(hist.counts, 4.0, 5e-8, encodings=["onehot"], rounds=365)
    assert year.rounds == 365 and year.as_dict()["eps_c_total"] == 4.0 and year.as_dict()["delta_total"] == 5e-8
    a = next(r for r in one.rows if r.accountant == "tight-binary-rr")
    b = next(r for r in year.rows if r.accountant == "tight-binary-rr")
    assert b.rounds == 365 and b.eps_c == pytest.approx(4.0) and b.eps_c_per_round < b.eps_c / 10
    assert b.eps_l < a.eps_l and b.rmse > a.rmse
    assert year.central_rmse > one.central_rmse


@pytest.mark.slow
def test_read_natively_the_reason_says_when_notions_differ():
    """The issue's case: natively one-hot (zero-out) and GRR (replacement) are not on one scale; the reason says so."""
    table = plan_shape(100_000, 64, "zipf:1.1", 1.0, 1e-6, notion="native")
    assert table.recommended is not None
    if "runner-up" in table.reason and {table.recommended.local_neighbouring} != {"replacement"}:
        assert "not on one scale" in table.reason
    replaced = plan_shape(100_000, 64, "zipf:1.1", 1.0, 1e-6)
    assert "not on one scale" not in replaced.reason


@pytest.mark.slow
def test_uncertified_rows_are_shown_but_never_ranked():
    table = plan_shape(10_000_000, 5_000, "zipf:1.1", 0.5, 1e-8)
    fragments = [r for r in table.rows if r.encoding == "sketch-fragments"]
    assert fragments and all(not r.certified and not r.ranked and "not certified" in r.reason for r in fragments)
    assert table.recommended.certified
    assert table.rows.index(fragments[0]) > max(i for i, r in enumerate(table.rows) if r.ranked)


@pytest.mark.slow
def test_constraints_keep_rows_but_not_in_the_recommendation():
    hist = load_dataset("horse")
    free = plan_table(hist.counts, 1.0, 5e-8)
    assert free.recommended.encoding == "onehot"  # the tight accountant's one-hot at about 115 bits
    tight = plan_table(hist.counts, 1.0, 5e-8, constraints=Constraints(max_messages=1.5, max_bits=64))
    assert len(tight.rows) == len(free.rows)
    rec = tight.recommended
    assert rec.messages <= 1.5 and rec.bits_per_respondent <= 64 and rec.encoding != "onehot"
    out = [r for r in tight.rows if not r.error and not r.within_constraints]
    assert out and all("outside the constraints" in r.reason for r in out)
    assert "runner-up" in tight.reason


def test_the_baselines():
    hist = load_dataset("horse")
    table = plan_table(hist.counts, 1.0, 5e-8)
    assert table.central_rmse < table.recommended.rmse < table.recommended.rmse_local_only
    native = plan_table(hist.counts, 1.0, 5e-8, notion="native", encodings=["grr"])
    assert table.central_rmse == pytest.approx(native.central_rmse * math.sqrt(2), rel=0.02)


@pytest.mark.slow
def test_cost_does_not_depend_on_n():
    """Nothing per respondent: a trillion respondents plan like ten thousand."""
    small = plan_shape(10_000, 1_000, "geometric:0.99", 1.0, 1e-6, encodings=["onehot", "grr"])
    huge = plan_shape(10**12, 1_000, "geometric:0.99", 1.0, 1e-6, encodings=["onehot", "grr"])
    assert huge.n == 10**12 and len(huge.rows) == len(small.rows)
    assert huge.recommended is not None


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: Shape.parse("zipf"), "shape must be"),
        (lambda: Shape.parse("geometric:1.5"), "geometric ratio"),
        (lambda: Target("rmse", -1.0), "must be a number > 0"),
        (lambda: Target("mae", 1.0), "the target must be one of"),
        (lambda: plan_shape(100, 10, "uniform", 1.0, 1e-6, encodings=["nope"]), "unknown encoding"),
        (lambda: plan_shape(100, 10, "uniform", 1.0, 1e-6, notion="zero-out"), "notion must be one of"),
        (lambda: Constraints(max_bits=0), "max bits must be"),
    ],
)
def test_invalid_input_names_the_problem(call, message):
    with pytest.raises(InputError, match=message):
        call()


# --- the replacement-LDP column against exact likelihood ratios ------------------------------------


def _small_rows():
    table = plan_shape(
        1_000_000, 8, "zipf:1", 1.0, 1e-6, params={**{s: {"k": 4, "m": 64} for s in SKETCHES}, "olh": {"g": 5}}
    )
    best = {}
    for r in table.rows:  # each encoding's best row (its largest eps_l): the table is sorted by error
        if not r.error:
            best.setdefault(r.encoding, r)
    return best


ENUMERABLE = ("onehot", "grr", "oue", "sue", "hadamard")


def _all_reports(oracle, encoding):
    d = oracle.d
    if encoding in ("onehot", "oue", "sue"):
        return ((np.arange(2**d)[:, None] >> np.arange(d)) & 1).astype(bool)
    if encoding == "grr":
        return np.arange(d)
    return np.arange(oracle.K)  # Hadamard response: an index among K


@pytest.mark.slow
@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_replacement_ldp_column_is_the_exact_likelihood_ratio_of_the_randomizer(encoding):
    """sup over reports and value pairs v != v' of ln P[R(v) = r] / P[R(v') = r] equals eps_l_replacement:
    every report enumerated where the report space is small (one-hot, GRR, unary, Hadamard), else 20,000 drawn
    reports, each scored with its exact probability (the supremum is attained among them)."""
    row = _small_rows()[encoding]
    oracle = row.plan.oracle()
    base = getattr(oracle, "oracle", oracle)  # MURS: a respondent's report is its base oracle's
    rng = np.random.default_rng(13)
    values = range(min(oracle.d, 4))
    worst = -math.inf
    for v in values:
        if encoding in ENUMERABLE:
            reports = _all_reports(base, encoding)
        else:
            if encoding in SKETCHES:
                base = base.with_hashes(7)
            reports = base.randomize(np.full(20_000, v), rng)
        lp_v = base.report_log_prob(v, reports)
        for w in values:
            if w != v:
                worst = max(worst, float(np.max(lp_v - base.report_log_prob(w, reports))))
    assert worst == pytest.approx(row.eps_l_replacement, rel=1e-9, abs=1e-9)


@pytest.mark.slow
def test_inverse_is_monotone_and_marks_what_it_cannot_reach():
    hist = load_dataset("horse")
    easy = solve_eps_c(hist.counts, Target("rmse", 50.0), 5e-8, encodings=["onehot"])
    hard = solve_eps_c(hist.counts, Target("rmse", 10.0), 5e-8, encodings=["onehot"])
    for a, b in zip(
        sorted(easy.rows, key=lambda r: r.accountant), sorted(hard.rows, key=lambda r: r.accountant), strict=True
    ):
        if not a.reason and not b.reason:
            assert a.eps_c < b.eps_c
    impossible = solve_eps_c(hist.counts, Target("rmse", 0.01), 5e-8, encodings=["grr"])
    assert impossible.recommended is None
    assert all(r.reason.startswith("not reachable below eps_c = 10") for r in impossible.rows)


# --- top-k recall ---------------------------------------------------------------------------------

HEAVY = scaled_counts(Shape("zipf", 0.8).weights(300), 20_000)  # 15 bins above 1% of n: k = 10
TOPK_ENCODINGS = ["onehot", "grr", "oue", "olh", "hadamard", "count-sketch"]
TOPK_PARAMS = {"count-sketch": {"k": 16, "m": 256}}


def _recalls(estimates: np.ndarray, counts: np.ndarray, k: int) -> np.ndarray:
    """The share of the true top k among the k largest estimates, for every row of estimates."""
    true = np.argsort(-counts, kind="stable")[:k]
    return np.isin(np.argpartition(-estimates, k - 1, axis=1)[:, :k], true).mean(axis=1)


def test_topk_is_the_heavy_hitters_at_most_10_and_where_the_top_counts_do_not_tie():
    assert plan_table(HEAVY, 1.0, 1e-6, encodings=["grr"]).rows[0].topk == 10
    three = np.r_[[500, 400, 300], np.full(997, 1)]  # three bins above 1% of n = 2,197
    assert {r.topk for r in plan_table(three, 1.0, 1e-6, encodings=["grr", "oue"]).rows if not r.error} == {3}
    tie = np.r_[[900, 800], np.full(10, 700), np.full(990, 1)]  # bins 3 to 12 tie at the 10th count: k = 2
    assert plan_table(tie, 1.0, 1e-6, encodings=["grr"]).rows[0].topk == 2
    for counts in (load_dataset("horse").counts, np.full(50, 1_000)):  # no bin holds 1%; all tie
        row = plan_table(counts, 1.0, 1e-6, encodings=["grr"]).rows[0]
        assert row.topk is None and row.topk_recall is None and "no top-k recall" in row.topk_note


@pytest.mark.slow
def test_topk_recall_numerics_match_a_gaussian_simulation():
    """The quadrature, the exact head and the Poisson tail against 4,000 draws of the same independent normals:
    within 0.01 (the draws' standard error is about 0.003)."""
    rng = np.random.default_rng(5)
    table = plan_table(HEAVY, 0.3, 1e-6, encodings=TOPK_ENCODINGS, params=TOPK_PARAMS)
    rows = [r for r in table.rows if not r.error and 0.1 < r.topk_recall < 0.97]
    assert len(rows) >= 10
    for row in rows:
        sd = np.sqrt(np.broadcast_to(row.plan.oracle().variance(HEAVY.sum(), HEAVY), HEAVY.shape))
        draws = HEAVY + sd * rng.standard_normal((4_000, HEAVY.size))
        simulated = _recalls(draws, HEAVY, row.topk).mean()
        assert abs(row.topk_recall - simulated) <= 0.01, (row.encoding, row.accountant, row.topk_recall, simulated)


@pytest.mark.slow
@pytest.mark.parametrize("encoding", TOPK_ENCODINGS)
def test_predicted_topk_recall_matches_the_simulated_oracle(encoding):
    """The row's top-k recall against 400 runs of the real oracle (exact aggregate sampling) on a small
    heavy-hitter histogram, for the row of the encoding nearest a recall of 0.6 at eps_c = 0.3: within 0.02 (the
    Gaussian, independent approximation) plus 4 standard errors of the simulated mean."""
    table = plan_table(HEAVY, 0.3, 1e-6, encodings=[encoding], params=TOPK_PARAMS)
    row = min((r for r in table.rows if not r.error), key=lambda r: abs(r.topk_recall - 0.6))
    assert 0.15 < row.topk_recall < 0.97 and "independent normal" in row.topk_note
    oracle, n, rng = row.plan.oracle(), int(HEAVY.sum()), np.random.default_rng(11)
    estimates = np.array([oracle.estimate(oracle.sample_aggregate(HEAVY, rng), n) for _ in range(400)])
    recalls = _recalls(estimates, HEAVY, row.topk)
    error = 4 * recalls.std(ddof=1) / math.sqrt(recalls.size)
    assert abs(row.topk_recall - recalls.mean()) <= 0.02 + error, (row.accountant, row.topk_recall, recalls.mean())


# --- confidence intervals ---------------------------------------------------------------------------


def _exported_intervals(hist, estimate, **kw) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(std_error, ci95_low, ci95_high) as the estimate CSV of `run --out` and the dashboard write them."""
    text = estimate_csv(hist, estimate, std_errors(hist, estimate, **kw))
    rows = list(csv.DictReader(io.StringIO(text)))
    return tuple(np.array([float(r[k]) for r in rows]) for k in ("std_error", "ci95_low", "ci95_high"))


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["onehot", "grr", "oue", "olh", "central"])
def test_exported_confidence_intervals_cover_the_truth_95_percent_of_the_time(encoding):
    """The estimate CSV's 95% intervals (plug-in standard errors; the central Gaussian baseline's sigma) over 8
    seeds x 2,000 bins: the covered fraction is 0.95 within a binomial tolerance (4 standard deviations of 16,000
    Bernoulli(0.95) draws: 0.0069); they are the planner's confidence_intervals to the CSV's 6 digits."""
    counts = scaled_counts(Shape("zipf", 1.1).weights(2_000), 1_000_000)
    hist = Histogram(counts, "zipf")
    covered = []
    for seed in range(8):
        if encoding == "central":
            c = run_central(1.0, 1e-7, hist, seed=seed)
            se, lo, hi = _exported_intervals(hist, c.estimate, sigma=c.sigma)
            assert np.all(se == float(f"{c.sigma:.6g}"))
        else:
            row = next(r for r in plan_table(counts, 1.0, 1e-7, encodings=[encoding]).rows if not r.error)
            result = run(row.spec, hist, seed=seed)
            se, lo, hi = _exported_intervals(hist, result.estimate, plan=result.plan)
            low, high = confidence_intervals(result.plan.oracle(), hist.n, result.estimate)
            assert np.allclose(lo, low, rtol=1e-5, atol=1e-3) and np.allclose(hi, high, rtol=1e-5, atol=1e-3)
        covered.append((lo <= counts) & (counts <= hi))
    fraction = float(np.mean(covered))
    tolerance = 4 * math.sqrt(0.95 * 0.05 / np.size(covered))
    assert abs(fraction - 0.95) <= tolerance, fraction


# --- the command line -------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_plan_json_has_the_issue_fields():
    out = cli("plan", "--dataset", "horse", "--eps-c", "1", "--json")
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert record["recommended"] == "onehot" and record["reason"] and record["central_rmse"] > 0
    keys = {"encoding", "accountant", "eps_c", "certified", "neighbouring", "eps_l", "eps_l_replacement", "messages"}
    keys |= {"bits_per_message", "bits_per_respondent", "rmse", "rmse_local_only", "linf", "n", "topk_recall"}
    assert all(keys <= set(r) for r in record["rows"])
    assert all(r["topk_recall"] is None for r in record["rows"])  # no pixel of Horse holds 1% of the respondents


@pytest.mark.slow
def test_cli_plan_solves_for_eps_c_and_n():
    out = cli("plan", "--n", "10000000", "--d", "5000", "--shape", "zipf:1.1", "--target-rmse", "30", "--json")
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert record["solve"] == "eps_c" and record["recommended"]
    best = next(r for r in record["rows"] if r["encoding"] == record["recommended"])
    assert best["rmse"] <= 30 and best["eps_c"] < 1
    assert best["topk"] == 10 and 0.9 < best["topk_recall"] <= 1 and "independent normal" in best["topk_note"]
    out = cli("plan", "--dataset", "horse", "--eps-c", "1", "--target-relative-rmse", "0.5", "--solve", "n", "--json")
    record = json.loads(out.stdout)
    assert record["solve"] == "n" and all(r["n"] > 0 for r in record["rows"])


@pytest.mark.parametrize(
    "args, message",
    [
        (["--dataset", "horse"], "give eps_c"),
        (["--n", "1000"], "--n and --d go together"),
        (["--dataset", "horse", "--n", "5", "--d", "3", "--eps-c", "1"], "exactly one of"),
        (["--dataset", "horse", "--eps-c", "1", "--solve", "eps_c"], "needs a target"),
        (["--n", "1000", "--d", "10", "--shape", "zipf:-1", "--eps-c", "1"], "Zipf exponent"),
        (["--dataset", "horse", "--eps-c", "1", "--encodings", "nope"], "unknown encoding"),
        (["--dataset", "horse", "--eps-c", "-1"], "eps_c"),
    ],
)
def test_cli_plan_invalid_input_is_one_line_with_status_2(args, message):
    out = cli("plan", *args)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and message in out.stderr, out.stderr
