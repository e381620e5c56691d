"""The tree protocol of seeds/004 Section 3 (Algorithms 1-2, corrected per
spec/longitudinal.md): exhaustive LDP audit, exact simulation vs the per-respondent
client, unbiasedness and the exact variance, messages and the shuffled central eps."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ldpcore.errors import InputError
from ldpcore.privacy.bounds import get_bound
from ldpcore.systems.longitudinal import Client, Trajectories, TreeProtocol, synthetic_trajectories


def _inputs(d, k):
    """Every 0/1 trajectory over d periods with at most k changes (s[0] = 0)."""
    return [s for s in itertools.product((0, 1), repeat=d) if np.count_nonzero(np.diff((0,) + s)) <= k]


def _max_log_ratio(protocol):
    """max over transcripts and over all pairs of inputs of ln P[T | x] - ln P[T | x']."""
    inputs = _inputs(protocol.d, protocol.k)
    worst = 0.0
    for h in range(1, protocol.levels + 1):
        transcripts = np.array(list(itertools.product((-1, 1), repeat=protocol.d >> (h - 1))))
        logp = np.array([protocol.transcript_log_prob(s, h, transcripts) for s in inputs])
        assert np.allclose(np.exp(logp).sum(axis=1), 1 / protocol.levels)  # a distribution per h
        worst = max(worst, float((logp.max(axis=0) - logp.min(axis=0)).max()))
    return worst


@pytest.mark.parametrize("d", [2, 4, 8])
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
def test_exhaustive_ldp(d, k, eps):
    assert len(_inputs(d, k)) == sum(math.comb(d, m) for m in range(k + 1))
    tight = _max_log_ratio(TreeProtocol(d, k, eps, "tight"))
    paper = _max_log_ratio(TreeProtocol(d, k, eps, "paper"))
    assert tight <= eps + 1e-12  # tight mode (a = eps) is eps-LDP
    assert paper <= eps / 2 + 1e-12  # the paper's a = eps/2 is eps/2-LDP: its eps claim is 2x loose
    if d > k:  # some input with k changes all agreeing with a transcript, another all disagreeing
        assert tight == pytest.approx(eps, abs=1e-12)
        assert paper == pytest.approx(eps / 2, abs=1e-12)
    else:  # d <= k: not every i* can select a change, so the bound is not attained
        assert tight < eps - 1e-3 and paper < eps / 2 - 1e-3


@pytest.mark.parametrize("states", [(0, 0, 0, 0), (0, 1, 1, 0), (1, 1, 1, 1), (0, 1, 0, 0)])
def test_transcript_probabilities_are_those_of_the_client(states):
    """Chi-square goodness of fit of the Algorithm 1 client's transcripts to the exact law."""
    protocol = TreeProtocol(4, 2, 1.0)
    x = np.diff(states, prepend=0)
    rng = np.random.default_rng(42)
    runs = 20_000
    seen = {}
    for _ in range(runs):
        client = Client(protocol, rng)
        reports = [r for t in range(1, 5) if (r := client.update(t, int(x[t - 1])))]
        assert all(h == client.h_star for h, _, _ in reports) and len(reports) == 4 >> (client.h_star - 1)
        key = (client.h_star, tuple(u for _, _, u in reports))
        seen[key] = seen.get(key, 0) + 1
    keys = [
        (h, u) for h in range(1, protocol.levels + 1) for u in itertools.product((-1, 1), repeat=protocol.d >> (h - 1))
    ]
    expected = runs * np.exp([protocol.transcript_log_prob(states, h, np.array(u)) for h, u in keys])
    observed = np.array([seen.pop(key, 0) for key in keys])
    assert not seen  # no transcript outside the enumerated ones
    assert stats.chisquare(observed, expected).pvalue > 1e-3


@pytest.mark.slow
def test_exact_simulation_agrees_with_the_client_per_node():
    """Two-sample chi-square per tree node: fast sampler vs n clients (family-wise 1e-3)."""
    two_changes = [[0, 1, 1, 0], [0, 1, 0, 0], [1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [1, 1, 1, 0]]
    states = np.array(two_changes * 4 + [[0, 0, 0, 0], [0, 0, 1, 1], [1, 1, 1, 1], [0, 0, 0, 1]])
    protocol = TreeProtocol(4, 2, 1.5)
    traj = Trajectories.from_states(states, 2)
    rng = np.random.default_rng(2024)
    reps = 3000
    fast = np.array([np.concatenate(protocol.sample_tree(traj, rng)) for _ in range(reps)])
    slow = np.array([np.concatenate(protocol.aggregate(protocol.reports(traj, rng))) for _ in range(reps)])
    alpha = 1e-3 / fast.shape[1]
    for node in range(fast.shape[1]):
        pooled = np.concatenate([fast[:, node], slow[:, node]])
        lo, hi = np.quantile(pooled, [0.02, 0.98])  # merge the sparse tails into the end cells
        values = np.unique(np.clip(pooled, lo, hi))
        table = [[np.sum(np.clip(x[:, node], lo, hi) == v) for v in values] for x in (fast, slow)]
        assert stats.chi2_contingency(table).pvalue > alpha, node
    # the same estimator either way: means of F_hat agree within 4 standard errors
    F = traj.running_counts()
    se = np.sqrt(protocol.variance(traj.n, F) / reps)
    for sample in (fast, slow):
        trees = [np.split(row, [4, 6]) for row in sample]
        est = np.array([protocol.estimate(tree) for tree in trees])
        assert np.all(np.abs(est.mean(axis=0) - F) < 4 * se)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["tight", "paper"])
def test_unbiased_with_the_exact_variance(mode):
    rng = np.random.default_rng(7)
    traj = synthetic_trajectories(4000, 16, 3, rng, initial=0.3, rate=0.15)
    protocol = TreeProtocol(16, 3, 1.0, mode)
    F = traj.running_counts()
    reps = 1500
    est = np.array([protocol.estimate(protocol.sample_tree(traj, rng)) for _ in range(reps)])
    var = protocol.variance(traj.n, F)
    pop = np.array([bin(t).count("1") for t in range(1, 17)])
    assert np.allclose(var, (protocol.c_a * 3) ** 2 * 5 * traj.n * pop - F)
    assert np.all(np.abs(est.mean(axis=0) - F) < 4 * np.sqrt(var / reps))
    # the seed's scale log2(d) instead of L = log2(d) + 1 is visibly biased at t = d
    assert abs(est.mean(axis=0)[-1] * 4 / 5 - F[-1]) > 8 * math.sqrt(var[-1] / reps)
    ratio = est.var(axis=0, ddof=1) / var
    alpha = 1e-3 / F.size
    lo, hi = stats.chi2.ppf([alpha / 2, 1 - alpha / 2], reps - 1) / (reps - 1)
    assert np.all((ratio > lo) & (ratio < hi)), ratio


@pytest.mark.slow
def test_track_reports_the_estimate_and_its_exact_std():
    rng = np.random.default_rng(12)
    traj = synthetic_trajectories(20_000, 32, 2, rng, initial=0.3, rate=0.1)
    protocol = TreeProtocol(32, 2, 2.0)
    runs = [protocol.track(traj, rng) for _ in range(400)]
    first = runs[0]
    assert np.array_equal(first.truth, traj.running_counts())
    assert np.allclose(first.std**2, protocol.variance(traj.n, first.truth))
    assert first.analytic_rmse == pytest.approx(math.sqrt(np.mean(first.std**2)))
    assert first.rmse == pytest.approx(math.sqrt(np.mean((first.estimate - first.truth) ** 2)))
    # the mean squared error over runs matches the analytic one: the sd of one run's mean over t
    # of the squared errors is at most mean_t sd(e_t^2) = sqrt(2) mean_t Var (normal errors)
    mse = np.mean([r.rmse**2 for r in runs])
    assert abs(mse / first.analytic_rmse**2 - 1) < 4 * math.sqrt(2 / len(runs))
    same = protocol.track(traj, np.random.default_rng(5)).estimate
    assert np.array_equal(same, protocol.track(traj, np.random.default_rng(5)).estimate)


def test_trajectories_round_trip_and_counts():
    rng = np.random.default_rng(3)
    traj = synthetic_trajectories(5000, 32, 4, rng, initial=0.4, rate=0.1)
    states = traj.states()
    assert np.array_equal(Trajectories.from_states(states, 4).change_times, traj.change_times)
    assert np.array_equal(traj.running_counts(), states.sum(axis=0))
    assert np.all(np.count_nonzero(np.diff(states.astype(int), axis=1, prepend=0), axis=1) <= 4)
    p = 0.4  # state 1 at period 1 w.p. initial
    assert abs(states[:, 0].mean() - p) < 4 * math.sqrt(p * (1 - p) / traj.n)
    # a change at period 2 w.p. rate while changes are left (k = 4 cannot bind there)
    assert abs((states[:, 1] != states[:, 0]).mean() - 0.1) < 4 * math.sqrt(0.09 / traj.n)


def test_messages_per_respondent():
    protocol = TreeProtocol(16, 2, 1.0)
    assert protocol.expected_messages() == pytest.approx(31 / 5)
    assert protocol.max_messages() == 16
    rng = np.random.default_rng(5)
    traj = synthetic_trajectories(3000, 16, 2, rng)
    counts = np.bincount([h for h, _, _ in protocol.reports(traj, rng)], minlength=6)[1:]
    per_level = counts / (16 >> np.arange(5))  # respondents per level
    assert per_level.sum() == traj.n and np.all(per_level == per_level.round())
    sizes = 16 >> np.arange(5)
    sd = math.sqrt((sizes**2 @ np.full(5, 0.2) - (31 / 5) ** 2) / traj.n)
    assert abs(counts.sum() / traj.n - 31 / 5) < 4 * sd


def test_shuffled_central_eps():
    protocol = TreeProtocol(64, 2, 1.0)  # L = 7
    result = protocol.shuffled_eps(700_000, 1e-6)
    bound = get_bound(result.bound)
    assert result.valid and result.batch_n == 100_000 and result.a == 1.0
    assert result.eps_c == pytest.approx(2 * bound.forward(1.0, 100_000, 5e-7).eps_c, rel=1e-15)
    assert result.neighbouring == bound.neighbouring
    # outside a bound's region: a reason, not an exception
    invalid = protocol.shuffled_eps(700_000, 1e-6, bound="efmrtt19")  # needs eps0 < 1/2
    assert not invalid.valid and invalid.eps_c is None and "eps0" in invalid.reason
    tiny = protocol.shuffled_eps(5, 1e-6)
    assert not tiny.valid and tiny.eps_c is None and tiny.reason
    paper = TreeProtocol(64, 2, 0.8, "paper").shuffled_eps(700_000, 1e-6, bound="efmrtt19")
    assert paper.valid and paper.eps_c == pytest.approx(2 * 12 * 0.4 * math.sqrt(math.log(2e6) / 100_000))


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(d=6, k=1, eps=1.0), "T (periods)"),
        (dict(d=0, k=1, eps=1.0), "T (periods)"),
        (dict(d=8, k=0, eps=1.0), "k (changes)"),
        (dict(d=8, k=1.5, eps=1.0), "k (changes)"),
        (dict(d=8, k=1, eps=0.0), "eps"),
        (dict(d=8, k=1, eps=-1.0), "eps"),
        (dict(d=8, k=1, eps=1.0, mode="half"), "mode"),
    ],
)
def test_protocol_validation(kwargs, field):
    with pytest.raises(InputError, match=field.replace("(", r"\(").replace(")", r"\)")):
        TreeProtocol(**kwargs)


def test_data_validation():
    with pytest.raises(InputError, match="at most k=1"):
        Trajectories.from_states(np.array([[1, 0, 0, 0]]), 1)
    with pytest.raises(InputError, match="0/1"):
        Trajectories.from_states(np.array([[2, 0, 0, 0]]), 1)
    with pytest.raises(InputError, match="power of two"):
        Trajectories.from_states(np.zeros((2, 6), dtype=int), 1)
    with pytest.raises(InputError, match="increasing"):
        Trajectories(4, 2, np.array([[3, 2]]))
    with pytest.raises(InputError, match="rate"):
        synthetic_trajectories(10, 8, 2, np.random.default_rng(0), rate=0)
    traj = synthetic_trajectories(10, 8, 3, np.random.default_rng(0))
    with pytest.raises(InputError, match="at most k=2"):
        TreeProtocol(8, 2, 1.0).sample_tree(traj, np.random.default_rng(0))
