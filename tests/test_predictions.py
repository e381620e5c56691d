"""Predictions right at every size (issue 27): the count sketch's median readout over a grid of (n, d, k, m),
ranked only where its predicted RMSE holds within 10% of simulation and otherwise saying why (a 20 x 20 grid
of 3,376 synthetic points, like the airports grid, is one point); the inverse in n minimal for MURS."""

import math

import numpy as np
import pytest

from ldpcore.data import Histogram
from ldpcore.experiment.planning import Shape, Target, plan_table, scaled_counts, solve_n
from ldpcore.experiment.protocol.run import run


def airports_like(n: int = 3_376, side: int = 20, seed: int = 0) -> np.ndarray:
    """A side x side grid histogram of n synthetic points: six tight clusters (hubs, 95% of the points) over a
    uniform background; at n = 3,376 its counts' root mean square is 35.7 (the airports grid's: 36.98)."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.3, 0.7], [0.6, 0.4], [0.8, 0.8], [0.25, 0.25], [0.5, 0.55], [0.75, 0.2]])
    share = np.array([0.26, 0.22, 0.17, 0.13, 0.1, 0.07])
    hub = rng.choice(share.size + 1, size=n, p=np.r_[share, 1 - share.sum()])
    near = centres[np.minimum(hub, share.size - 1)] + rng.normal(0, 0.0155, (n, 2))
    points = np.where((hub < share.size)[:, None], near, rng.random((n, 2)))
    cell = np.clip((points * side).astype(int), 0, side - 1)
    return np.bincount(cell[:, 0] * side + cell[:, 1], minlength=side * side).astype(np.int64)


def _zipf(n: int, d: int) -> np.ndarray:
    return scaled_counts(Shape("zipf", 1.1).weights(d), n)


# (counts, k, m): ranked where n >= k^2 (and, below 16 rows, collisions lighter than the privacy noise)
GRID = [
    ("airports", 1024, 65_536),  # 3.3 reports per row: every estimate 0
    ("airports", 64, 4_096),  # n = 0.82 k^2
    ("airports", 16, 4_096),
    ("zipf-3e4-400", 64, 1_024),
    ("zipf-3e4-400", 256, 1_024),  # n = 0.46 k^2
    ("zipf-3e5-2000", 256, 256),
    ("zipf-1e5-50", 4, 64),  # 4 rows, collisions 37x the noise
    ("zipf-1e5-50", 4, 16_384),
    ("zipf-1e5-50", 16, 64),
]
COUNTS = {
    "airports": airports_like,
    "zipf-3e4-400": lambda: _zipf(30_000, 400),
    "zipf-3e5-2000": lambda: _zipf(300_000, 2_000),
    "zipf-1e5-50": lambda: _zipf(100_000, 50),
}


@pytest.mark.slow
@pytest.mark.parametrize("name, k, m", GRID)
def test_count_sketch_rows_are_ranked_only_where_the_prediction_holds_within_10_percent(name, k, m):
    counts = COUNTS[name]()
    n = int(counts.sum())
    table = plan_table(counts, 1.0, 1e-5, encodings=["count-sketch"], params={"count-sketch": {"k": k, "m": m}})
    row = next(r for r in table.rows if r.accountant == "fmt21-numeric")
    heavy = float(np.dot(counts, counts)) / m / (k * n / (1 - 2 * row.plan.oracle().flip) ** 2)
    assert row.certified and row.within_constraints
    if n < k * k or (k < 16 and heavy > 1):  # the encoding's own rule, stated in the reason
        assert not row.ranked and row.prediction_limit and row.prediction_limit in row.reason
        assert "use the mean readout" in row.reason
        if name == "airports" and k == 1024:  # the case: the median of the rows is 0 in every bin
            est = run(row.spec, Histogram(counts, name), seed=0).estimate
            assert bool((est == 0).all()) and "steps of" in row.reason
        return
    assert row.ranked and not row.prediction_limit
    # 10 runs (hashes drawn per run); with d >= 50 bins the mean squared error's standard error is a few percent
    mse = [run(row.spec, Histogram(counts, name), seed=s).metrics["rmse_raw"] ** 2 for s in range(10)]
    simulated = math.sqrt(float(np.mean(mse)))
    assert abs(row.rmse / simulated - 1) < 0.10, (row.rmse, simulated)


def test_inverse_in_n_is_minimal_for_murs_at_the_blanket_limit():
    """Zipf(1.1), d = 50,000, eps_c = 1 (the blanket bound's limit), relative RMSE 0.2: the smallest n meets the
    target and 0.998 x it does not, whatever n the data starts from (MURS was capped at 35% of the n between
    5e6 and 3e7 and its search landed on capped edges, up to 300 x above the smallest n)."""
    answers = []
    for n0 in (50_000, 1_000_000, 3_000_000):
        counts = _zipf(n0, 50_000)
        row = solve_n(counts, 1.0, Target("relative_rmse", 0.2), 1e-7, encodings=["murs"]).rows[0]
        assert row.ranked and row.relative_rmse <= 0.2
        shares = counts / counts.sum()
        below = plan_table(scaled_counts(shares, int(0.998 * row.n)), 1.0, 1e-7, encodings=["murs"]).rows[0]
        assert below.relative_rmse > 0.2
        answers.append(row.n)
    assert max(answers) / min(answers) < 1.01  # the same shape at every start, up to rounding: one answer


def _zipf_csv_hist() -> Histogram:
    return Histogram(_zipf(1_000_000, 2_000), "zipf-csv")


@pytest.mark.parametrize(
    "name, method, encodings",
    [
        pytest.param("horse", "norm-sub", ["onehot", "grr", "oue"], marks=pytest.mark.slow),  # 6 s of CPU
        ("horse", "mle", ["onehot", "oue"]),
        ("zipf-csv", "norm-sub", ["onehot", "grr", "oue"]),
        ("airports", "simplex", ["onehot", "grr", "olh"]),
        ("airports", "ibu", ["grr"]),  # d = 400: 1.5 s (d = 2,000 took 23 s of CPU: 72 runs of up to 10,000 updates)
    ],
)
@pytest.mark.slow
def test_planner_postprocessed_predictions_match_an_independent_simulation(name, method, encodings):
    """The recommended row's simulated RMSE after post-processing (seeds 0-7) is within 2 standard errors (of the
    difference) of run(..., postprocess=method) with seeds 1000-1007: the same law, other draws."""
    from ldpcore.data import load_dataset
    from ldpcore.experiment.planning import FIRST_SEED, RUNS

    hist = {"horse": lambda: load_dataset("horse"), "zipf-csv": _zipf_csv_hist}.get(
        name, lambda: Histogram(airports_like(), "airports")
    )()
    delta = 5e-8 if name == "horse" else 1e-6
    table = plan_table(hist.counts, 0.5, delta, postprocess=method, encodings=encodings)
    row = table.recommended
    assert row is not None and row.postprocessed is not None and row.postprocessed.runs == RUNS
    assert row.postprocessed.first_seed == FIRST_SEED and row.postprocessed.std_error > 0
    lo, hi = row.postprocessed.interval
    assert lo < 0 < hi  # the per-bin errors' percentile interval straddles 0
    independent = [
        run(row.spec, hist, seed=1000 + s, postprocess=method).postprocessed.metrics["rmse"] for s in range(RUNS)
    ]
    mean, se = float(np.mean(independent)), float(np.std(independent, ddof=1) / math.sqrt(RUNS))
    z = (row.postprocessed.rmse - mean) / math.hypot(row.postprocessed.std_error, se)
    assert abs(z) < 2, (row.encoding, row.accountant, row.postprocessed.rmse, mean, z)
    # ranked on the post-processed error: no ranked row has a smaller one
    assert all(r.ranked_rmse >= row.ranked_rmse for r in table.rows if r.ranked)


SEATTLE = np.array([641, 640, 101, 53, 26])  # rain, sun, fog, drizzle, snow: seattle_weather's 1,461 days


@pytest.mark.slow
def test_heavy_tailed_sketch_rows_say_so_with_simulated_quantiles_that_match_exact_runs():
    """A seattle_weather-like histogram (d = 5, n = 1e7): the CMS rows' predicted RMSE is a mean carried by rare
    collisions, and the rows say so with quantiles from simulation; at k = 64, m = 4,096 (the same k/m = 1/64 as
    Apple's) 300 exact runs fall below the simulated median and 95th percentile about 50% and 95% of the time,
    and exceed the prediction as often as the simulation says (each within 3 binomial standard errors)."""
    counts = scaled_counts(SEATTLE, 10**7)
    table = plan_table(counts, 1.0, 1e-8, encodings=["cms"], params={"cms": {"k": 64, "m": 4096}})
    row = next(r for r in table.rows if r.accountant == "fmt21-numeric")
    tail = row.hash_tail
    assert tail is not None and tail.runs >= 1000 and tail.median < 0.5 < 1 < tail.q95
    assert tail.sentence() in row.notes and "heavy-tailed over hash draws" in tail.sentence()
    hist = Histogram(counts, "seattle-like")
    rmse = np.array([run(row.spec, hist, seed=s).metrics["rmse_raw"] for s in range(300)]) / row.rmse
    for share, at in ((0.5, tail.median), (0.95, tail.q95), (1 - tail.above, 1.0)):
        assert abs(np.mean(rmse < at) - share) < 3 * math.sqrt(share * (1 - share) / 300) + 1e-9, (share, at)
    # the mean over hash draws is still the prediction, and a large histogram's sketch rows are not heavy-tailed
    assert all(r.hash_tail is None for r in plan_table(_zipf(10**6, 2_000), 1.0, 1e-7, encodings=["cms"]).rows)


SMALL_SKETCH = {name: {"k": 64, "m": 1024} for name in ("sketch-fragments", "cms", "hcms", "count-sketch")}


@pytest.mark.slow
def test_solve_n_meets_the_target_at_every_rows_answer_and_misses_it_at_095x():
    """Issue 27: plan --solve n on Zipf(1.1), d = 50,000, eps_c = 1, target relative RMSE 0.2 (delta 1e-7): every
    row that reaches the target meets it in simulation at its answer (4 runs, within 2 standard errors) and
    misses it at 0.95 x (MURS included). The sketches run at 64 x 1,024 (an exact simulation of Apple's table is
    seconds per run); a row whose exact simulation is refused at its n (the Hadamard sketches' draw limit) says
    so and is counted apart."""
    counts = _zipf(1_000_000, 50_000)
    shares = counts / counts.sum()
    table = solve_n(counts, 1.0, Target("relative_rmse", 0.2), 1e-7, params=SMALL_SKETCH)
    checked, refused = [], []
    for row in table.rows:
        if row.reason.startswith("not reachable"):
            continue
        assert row.relative_rmse <= 0.2

        def simulated(n, row=row):
            hist = Histogram(scaled_counts(shares, n), "zipf")
            p = plan_table(hist.counts, 1.0, 1e-7, encodings=[row.encoding], params=SMALL_SKETCH)
            r = next(x for x in p.rows if x.accountant == row.accountant)
            rel = np.array([run(r.spec, hist, seed=s).metrics["rmse_raw"] for s in range(4)]) * hist.d / hist.n
            return rel.mean(), rel.std(ddof=1) / 2

        try:
            at, se = simulated(row.n)
            below, se_below = simulated(int(0.95 * row.n))  # the prediction there: about 0.205 to 0.21
        except Exception as exc:  # the exact sampler's draw limit, stated in the message
            assert "would draw about" in str(exc), exc
            refused.append((row.encoding, row.accountant))
            continue
        assert at <= 0.2 + 2 * se, (row.encoding, row.accountant, row.n, at, se)
        assert below > 0.2, (row.encoding, row.accountant, below, se_below)
        checked.append(row.encoding)
    assert "murs" in checked and len(checked) >= 20, (checked, refused)
