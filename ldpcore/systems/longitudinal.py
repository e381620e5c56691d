"""Tracking a boolean state that changes at most k times over d periods: the tree protocol
of Erlingsson, Feldman, Mironov, Raghunathan, Talwar, Thakurta, Amplification by Shuffling (SODA 2019), Section 3
Algorithms 1-2) with the corrections of docs/systems.md.

Each respondent reports on one of its changes only (the i*-th, i* ~ U{1..k}) and on one
level h* ~ U{1..L} of a binary tree over the d periods (L = log2(d) + 1, leaves h = 1):
at the end of every level-h* node it sends randomized response (parameter a) of the
selected change if that change fell in the node, else a uniform +-1. The server sums
the reports per node and estimates F_t = #{respondents in state 1 at t} from the
dyadic cover of [1, t]. Two modes: "paper" (a = eps/2, the seed's claim of eps-LDP)
and "tight" (a = eps). The client is exactly a-LDP: given i* and h*, at most one
reported node depends on the input, through RR with parameter a, so every transcript's
probability lies between 2/(1+e^a) and 2e^a/(1+e^a) times that of uniform noise, for
every input; "tight" is eps-LDP and "paper" eps/2-LDP (both attained once d > k).

A trajectory is stored by its change periods: s[0] = 0, so the j-th change has sign
(-1)^(j+1) (+1, -1, +1, ...) and starting in state 1 is a change at period 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ldpcore.errors import check_delta, check_eps, check_whole, require
from ldpcore.privacy.bounds import BoundName, get_bound
from ldpcore.privacy.guarantee import Neighbouring

MODES = ("paper", "tight")

# What the dashboard's Longitudinal page says about the protocol and its modes
EXPLANATION = (
    "Each respondent holds a boolean state that changes at most k times over T periods. It reports on one "
    "randomly chosen change and one level of a binary tree over the periods; the server adds the dyadic "
    "nodes covering [1, t] into the count F_t of respondents in state 1 (Erlingsson, Feldman, Mironov, "
    "Raghunathan, Talwar and Thakurta, *Amplification by shuffling: from local to central differential privacy "
    "via anonymity* (SODA 2019), Section 3, Algorithms 1-2, corrected: the estimate is scaled by "
    "L = log2(T) + 1 levels and its error grows linearly in k)."
)
MODE_HELP = (
    "tight: node parameter a = eps, exactly eps-LDP. paper: a = eps/2 as printed in Section 3 of the SODA 2019 "
    "paper, which claims eps-LDP, but the client is exactly eps/2-LDP: it spends half the budget and has about "
    "twice the error."
)


def _check_horizon(d, k) -> tuple[int, int]:
    d = check_whole(d, 1, "T (periods)")
    require(d & (d - 1) == 0, f"T (periods) must be a power of two >= 1 (got {d}).")
    return d, check_whole(k, 1, "k (changes)")


def _signs(k: int) -> np.ndarray:
    """Sign of the j-th change (j = 1..k) of a boolean state starting from 0."""
    return np.where(np.arange(k) % 2 == 0, 1, -1)


@dataclass(frozen=True)
class Trajectories:
    """n state trajectories over periods 1..d with at most k changes each.

    change_times: (n, k) ints, row i holds the periods of i's changes in increasing
    order followed by zeros (0 = no change in that slot).
    """

    d: int
    k: int
    change_times: np.ndarray

    def __post_init__(self):
        d, k = _check_horizon(self.d, self.k)
        object.__setattr__(self, "d", d)
        object.__setattr__(self, "k", k)
        ct = np.asarray(self.change_times)
        object.__setattr__(self, "change_times", ct)
        require(
            ct.ndim == 2 and ct.shape[1] == self.k and np.issubdtype(ct.dtype, np.integer),
            f"change_times must be an integer array of shape (n, k={self.k}).",
        )
        used = ct > 0
        require(bool(np.all((ct >= 0) & (ct <= self.d))), f"change periods must lie in 1..d={self.d} (0 = none).")
        require(
            bool(np.all(used[:, 1:] <= used[:, :-1]) and np.all(~used[:, 1:] | (ct[:, 1:] > ct[:, :-1]))),
            "each row of change_times must be increasing periods followed by zeros.",
        )

    @classmethod
    def from_states(cls, states, k: int) -> Trajectories:
        """From an (n, d) 0/1 state matrix with at most k changes per row (s[0] = 0)."""
        s = np.asarray(states)
        require(
            s.ndim == 2 and s.shape[1] >= 1 and bool(np.all((s == 0) | (s == 1))),
            "states must be an (n, d) array of 0/1 values.",
        )
        d, k = _check_horizon(s.shape[1], k)
        changed = np.diff(s.astype(np.int8), axis=1, prepend=0) != 0
        require(bool(np.all(changed.sum(axis=1) <= k)), f"every trajectory must change state at most k={k} times.")
        periods = np.sort(np.where(changed, np.arange(1, d + 1), d + 1), axis=1)
        periods = np.pad(periods, ((0, 0), (0, max(0, k - d))), constant_values=d + 1)[:, :k]
        return cls(d, k, np.where(periods > d, 0, periods).astype(np.int64))

    @property
    def n(self) -> int:
        return self.change_times.shape[0]

    def states(self) -> np.ndarray:
        """The (n, d) bool state matrix (O(n d k): for small n)."""
        t = np.arange(1, self.d + 1)
        s = np.zeros((self.n, self.d), dtype=bool)
        for col in self.change_times.T:
            s ^= (col[:, None] > 0) & (col[:, None] <= t)
        return s

    def running_counts(self) -> np.ndarray:
        """True F_t = sum_i s_i[t] for t = 1..d."""
        ct = self.change_times
        sign = np.broadcast_to(_signs(self.k), ct.shape)
        used = ct > 0
        f = np.bincount(ct[used], weights=sign[used], minlength=self.d + 1)[1:]
        return np.cumsum(f).round().astype(np.int64)


def synthetic_trajectories(
    n: int, d: int, k: int, rng: np.random.Generator, initial: float = 0.5, rate: float = 0.05
) -> Trajectories:
    """n respondents: state 1 at period 1 w.p. initial (a change at t = 1), then a change
    at each later period w.p. rate, until k changes are used (geometric gaps)."""
    d, k = _check_horizon(d, k)
    n = check_whole(n, 1, "n (respondents)")
    require(0 <= initial <= 1, f"initial (fraction in state 1) must lie in [0, 1] (got {initial:g}).")
    require(0 < rate <= 1, f"rate (change probability per period) must lie in (0, 1] (got {rate:g}).")
    times = np.zeros((n, k), dtype=np.int64)
    count = (rng.random(n) < initial).astype(np.int64)
    times[count == 1, 0] = 1
    now = np.ones(n, dtype=np.int64)
    rows = np.arange(n)
    for _ in range(k):
        now = now + rng.geometric(rate, n)
        ok = (now <= d) & (count < k)
        times[rows[ok], count[ok]] = now[ok]
        count += ok
    return Trajectories(d, k, times)


class Client:
    """One respondent running Algorithm 1 (A_client) of Erlingsson et al. 2019 with node parameter a."""

    def __init__(self, protocol: TreeProtocol, rng: np.random.Generator):
        self._rng, self._keep = rng, protocol.keep_probability
        self.i_star = int(rng.integers(1, protocol.k + 1))  # setup: i* ~ U{1..k}
        self.h_star = int(rng.integers(1, protocol.levels + 1))  # h* ~ U{1..L}
        self._count = 0
        self._c = 0

    def update(self, t: int, x_t: int) -> tuple[int, int, int] | None:
        """Period t with change x_t in {-1, 0, 1}; returns the report (h*, t, u) or None."""
        if x_t != 0:
            self._count += 1
            if self._count == self.i_star:
                self._c = x_t
        if t % 2 ** (self.h_star - 1):
            return None
        if self._c == 0:
            u = 1 if self._rng.random() < 0.5 else -1
        else:
            u = self._c if self._rng.random() < self._keep else -self._c
        self._c = 0
        return self.h_star, t, u


@dataclass(frozen=True)
class ShuffledCentral:
    """Central (eps_c, delta) of the shuffled protocol: 2 batches of batch_n a-LDP reports,
    each at delta/2 (eps_c is None, with a reason, where the bound does not apply)."""

    eps_c: float | None
    delta: float
    a: float
    batch_n: int
    bound: str
    neighbouring: Neighbouring
    valid: bool
    reason: str = ""


@dataclass(frozen=True, eq=False)
class Tracking:
    """One simulated run: the true running counts F_t, the estimates F_hat_t and the exact std
    of each estimate (TreeProtocol.variance), t = 1..d."""

    truth: np.ndarray
    estimate: np.ndarray
    std: np.ndarray

    @property
    def rmse(self) -> float:
        """Measured root mean squared error over the d periods."""
        return float(np.sqrt(np.mean((self.estimate - self.truth) ** 2)))

    @property
    def analytic_rmse(self) -> float:
        """The root of its expected square: sqrt(mean_t Var(F_hat_t)) (the estimates are unbiased)."""
        return float(np.sqrt(np.mean(self.std**2)))


@dataclass(frozen=True)
class TreeProtocol:
    """The tree protocol for d periods (a power of two), at most k changes, budget eps."""

    d: int
    k: int
    eps: float
    mode: str = "tight"

    def __post_init__(self):
        d, k = _check_horizon(self.d, self.k)
        object.__setattr__(self, "d", d)
        object.__setattr__(self, "k", k)
        check_eps(self.eps, "eps")
        require(self.mode in MODES, f"mode must be one of {', '.join(MODES)} (got {self.mode!r}).")

    @property
    def levels(self) -> int:
        """L = log2(d) + 1 tree levels."""
        return self.d.bit_length()

    @property
    def a(self) -> float:
        """Node RR parameter: eps/2 as in the seed ("paper"), eps ("tight", exactly eps-LDP)."""
        return self.eps / 2 if self.mode == "paper" else self.eps

    @property
    def keep_probability(self) -> float:
        """P[u = c] = e^a / (1 + e^a) for an informative node."""
        return float(expit(self.a))

    @property
    def c_a(self) -> float:
        """(e^a + 1) / (e^a - 1)."""
        return 1 / math.tanh(self.a / 2)

    def _level_sizes(self) -> list[int]:
        return [self.d >> (h - 1) for h in range(1, self.levels + 1)]

    def _times(self, traj: Trajectories) -> np.ndarray:
        require(
            traj.d == self.d and traj.k <= self.k,
            f"the trajectories need d={self.d} periods and at most k={self.k} changes (got d={traj.d}, k={traj.k}).",
        )
        return np.pad(traj.change_times, ((0, 0), (0, self.k - traj.k)))

    # --- per-respondent reference (Algorithm 1) and server aggregation (Algorithm 2, steps 1-4)
    def reports(self, traj: Trajectories, rng: np.random.Generator) -> list[tuple[int, int, int]]:
        """Every report (h, t, u) of n clients run period by period (a loop: for small n)."""
        self._times(traj)  # validates d and k
        x = np.diff(traj.states().astype(np.int8), axis=1, prepend=0)
        out: list[tuple[int, int, int]] = []
        for row in x:
            client = Client(self, rng)
            out.extend(r for t in range(1, self.d + 1) if (r := client.update(t, int(row[t - 1]))))
        return out

    def aggregate(self, reports) -> list[np.ndarray]:
        """T[h][j-1] = sum of u reported at level h and time t = j 2^(h-1)."""
        tree = [np.zeros(size, dtype=np.int64) for size in self._level_sizes()]
        for h, t, u in reports:
            tree[h - 1][(t >> (h - 1)) - 1] += u
        return tree

    # --- exact aggregate simulation ---------------------------------------------------
    def sample_tree(self, traj: Trajectories, rng: np.random.Generator) -> list[np.ndarray]:
        """Exact draw of the node sums T without a loop over respondents.

        Each respondent's selected change (i*-th, sign (-1)^(i*+1)) is drawn (O(n)
        vectorised); the selected changes per (period, sign) and the uninformative
        respondents are split over the L levels multinomially (h* is independent of
        the data). At node [h, j] the P (resp. M) level-h respondents whose selected +1
        (resp. -1) change lies in the node send RR values, the other m_h - P - M send
        uniform +-1: T = (2 Bin(P, q) - P) - (2 Bin(M, q) - M) + 2 Bin(U, 1/2) - U.
        """
        ct = self._times(traj)
        d, L = self.d, self.levels
        slot = rng.integers(0, self.k, traj.n)
        tau = ct[np.arange(traj.n), slot]
        plus = np.bincount(tau[(tau > 0) & (slot % 2 == 0)], minlength=d + 1)[1:]
        minus = np.bincount(tau[(tau > 0) & (slot % 2 == 1)], minlength=d + 1)[1:]
        cells = np.concatenate([plus, minus, [traj.n - plus.sum() - minus.sum()]])
        split = rng.multinomial(cells, np.full(L, 1 / L))  # (2d + 1, L)
        p_nodes, m_nodes, u_nodes = [], [], []
        for h, size in enumerate(self._level_sizes(), start=1):
            p = split[:d, h - 1].reshape(size, -1).sum(axis=1)
            m = split[d : 2 * d, h - 1].reshape(size, -1).sum(axis=1)
            p_nodes.append(p)
            m_nodes.append(m)
            u_nodes.append(split[:, h - 1].sum() - p - m)
        p, m, u = (np.concatenate(v) for v in (p_nodes, m_nodes, u_nodes))
        q = self.keep_probability
        flat = 2 * rng.binomial(p, q) - p - 2 * rng.binomial(m, q) + m + 2 * rng.binomial(u, 0.5) - u
        return np.split(flat, np.cumsum(self._level_sizes())[:-1])

    # --- the server (Algorithm 2, steps 5-11) ------------------------------------------
    def estimate(self, tree) -> np.ndarray:
        """F_hat_t = c_a k L sum of T over the dyadic cover of [1, t], t = 1..d.

        The cover has one node per set bit of t: bit h-1 set means node
        [h, (t >> (h-1))]. The seed text scales by log2(d) instead of L = log2(d) + 1,
        which biases the estimate by the factor log2(d)/L (docs/systems.md): each
        respondent reports on one of L levels, so only 1/L of them reach any node.
        """
        t = np.arange(1, self.d + 1)
        total = np.zeros(self.d)
        for h in range(1, self.levels + 1):
            on = (t >> (h - 1)) & 1 == 1
            total[on] += np.asarray(tree[h - 1])[(t[on] >> (h - 1)) - 1]
        return self.c_a * self.k * self.levels * total

    def variance(self, n: int, counts) -> np.ndarray:
        """Exact Var(F_hat_t) = c_a^2 k^2 L n popcount(t) - F_t for true counts F_t.

        Respondent i adds Y_i = u at the cover node of level h* if one exists: Y_i^2 = 1
        w.p. popcount(t)/L and E[Y_i] = s_i[t] / (c_a k L); with s_i[t] in {0, 1}
        the terms sum to the formula (spec: Var ~ c_a^2 k^2 L n popcount(t)).
        """
        counts = np.asarray(counts, dtype=np.float64)
        require(counts.shape == (self.d,), f"counts must hold the true F_t for the d={self.d} periods.")
        pop = np.array([bin(t).count("1") for t in range(1, self.d + 1)])
        return (self.c_a * self.k) ** 2 * self.levels * n * pop - counts

    def transcript_log_prob(self, states, h: int, u) -> np.ndarray:
        """Exact log P[the client outputs level h and node values u] for one 0/1 trajectory
        of d periods, over i*, h* and the RR coins; u: (..., H) of +-1, H = d/2^(h-1).

        P = (1/L) 2^-H (1/k) [k - m + sum over the m changes of 2q if u agrees with the
        change's sign at its node, else 2(1-q)], q = e^a/(1+e^a).
        """
        require(1 <= h <= self.levels, f"h must be a level in 1..{self.levels} (got {h}).")
        u = np.asarray(u)
        require(u.shape[-1:] == (self.d >> (h - 1),), f"level {h} has {self.d >> (h - 1)} nodes.")
        times = Trajectories.from_states(np.asarray(states)[None], self.k).change_times[0]
        used = times > 0
        agree = u[..., (times[used] - 1) >> (h - 1)] == _signs(self.k)[used]
        q = self.keep_probability
        mix = self.k - used.sum() + 2 * np.where(agree, q, 1 - q).sum(axis=-1)
        return np.log(mix / self.k) - u.shape[-1] * math.log(2) - math.log(self.levels)

    def track(self, traj: Trajectories, rng: np.random.Generator) -> Tracking:
        """Run the protocol on the trajectories (exact aggregate simulation, sample_tree) and
        estimate every F_t, with the exact std of each estimate."""
        truth = traj.running_counts()
        estimate = self.estimate(self.sample_tree(traj, rng))
        return Tracking(truth, estimate, np.sqrt(self.variance(traj.n, truth)))

    # --- cost and central privacy -----------------------------------------------------
    def expected_messages(self) -> float:
        """A level-h respondent sends d/2^(h-1) messages: (2d - 1)/L on average."""
        return (2 * self.d - 1) / self.levels

    def max_messages(self) -> int:
        """d messages, for a respondent at the leaf level."""
        return self.d

    def shuffled_eps(self, n: int, delta: float, bound: str = BoundName.FMT21_CLOSED) -> ShuffledCentral:
        """Central eps when each (t, h) batch is shuffled separately.

        A neighbouring dataset changes at most 2 batches of about n/L a-LDP reports
        (batch_n = n // L), so eps_c <= 2 eps_amp(a, n // L, delta/2) (docs/systems.md).
        bound: a name in ldpcore.privacy.bounds (default "fmt21-closed", Feldman et al. 2021).
        """
        n, delta, chosen = check_whole(n, 1, "n (respondents)"), check_delta(delta), get_bound(bound)
        batch = n // self.levels
        if batch < 1:
            return ShuffledCentral(
                None,
                delta,
                self.a,
                batch,
                chosen.name,
                chosen.neighbouring,
                False,
                f"n={n} respondents leave no level-batch to shuffle (L={self.levels}).",
            )
        amp = chosen.forward(self.a, batch, delta / 2)
        return ShuffledCentral(
            2 * amp.eps_c if amp.eps_c is not None else None,
            delta,
            self.a,
            batch,
            chosen.name,
            chosen.neighbouring,
            amp.valid,
            amp.reason,
        )
