"""Fake reports from multiple shufflers: MURS (T. Wang, Ding, Xu, Huang, Hong, Zhou, Li, Jha, Practical
and Robust Privacy Amplification with Multi-Party Differential Privacy (2019), Sec. 5.3, Theorem 4, Lemma
6, Theorem 7; docs/encodings.md "Fake reports", docs/systems.md).

Each of r shufflers adds n_r fake reports: uniformly random INPUTS perturbed by the
respondents' own oracle (GRR on [d], or OLH/SOLH on a hash range g), so every fake report
is uniform on the oracle's alphabet [k] (k = d, or g). With n_u = r n_r fakes and support
probabilities p, q* the unbiased estimator is
  f_hat_v = (1/n) [ (C_v - (n + n_u) q*)/(p - q*) - n_u/d ],
and a fake supports v w.p. s = p/d + (1 - 1/d) q*, adding n_u s(1-s)/(p-q*)^2 to Var(c_hat_v).
Privacy of a respondent at local eps_l (k-RR blanket bound):
  vs the server:                    eps_1 = sqrt(14 ln(2/delta) / ((n-1)/(e^eps_l+k-1) + n_u/k))
  vs the server + all other users:  eps_2 = sqrt(14 ln(2/delta) k/n_u)
  vs the server + all shufflers:    eps_l;  c < r colluding shufflers: n_u -> (r-c) n_r.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ldpcore.errors import check_delta, check_eps, check_whole, require
from ldpcore.oracles.direct import GRR, blanket_a, check_domain, check_respondents
from ldpcore.oracles.hashing import OLH, SOLH
from ldpcore.oracles.laws import Law, Observer, Unsupported
from ldpcore.oracles.limits import check_reference
from ldpcore.oracles.support import SupportLaw
from ldpcore.privacy import solver
from ldpcore.privacy.bounds import Bound, BoundName, Randomizer
from ldpcore.privacy.formulas import EPS0_MIN, blanket_limit, solh_hash_range
from ldpcore.privacy.guarantee import Neighbouring

MURS_EPS_MAX = 30.0  # local eps cap of murs_bound: where the fakes alone almost give eps_1, reports stay
# this noisy (p < 1 in floating point) and the certified eps_1 is below the target


def _check_fakes(n_u) -> int:
    return check_whole(n_u, 0, "the number of fake reports")


def blanket_certified(eps: float, delta: float) -> float:
    """eps where the blanket bound holds (eps <= min(1, 14 ln(2/delta)/27), Balle et al. 2019
    Theorem 3.1), else inf: the closed forms below certify nothing above that limit."""
    return eps if eps <= blanket_limit(delta) else math.inf


def murs_eps_server(eps_l: float, n: int, delta: float, k: int, n_u: int) -> float:
    """eps_1 against the server: the blanket of n-1 honest reports plus n_u uniform fakes (Theorem 4)."""
    eps_l, delta, k, n_u = check_eps(eps_l, "eps_l"), check_delta(delta), check_domain(k, "k"), _check_fakes(n_u)
    return math.sqrt(14 * math.log(2 / delta) / ((check_respondents(n) - 1) / (math.exp(eps_l) + k - 1) + n_u / k))


def murs_eps_users(delta: float, k: int, n_u: int) -> float:
    """eps_2 against the server + all other users: only the fakes are left (Theorem 4); inf without fakes."""
    delta, k, n_u = check_delta(delta), check_domain(k, "k"), _check_fakes(n_u)
    return math.sqrt(14 * math.log(2 / delta) * k / n_u) if n_u else math.inf


def murs_local_eps(eps_1: float, n: int, delta: float, k: int, n_u: int) -> float:
    """The largest eps_l with eps_1 against the server: e^eps_l = 1/(1/A - n_u/(k(n-1))) - k + 1,
    A = (n-1) eps_1^2/(14 ln(2/delta)); inf when the fakes alone give eps_1. Increasing in n_u."""
    a, k, n_u = blanket_a(eps_1, n, delta), check_domain(k, "k"), _check_fakes(n_u)
    slack = 1 / a - n_u / (k * (int(n) - 1))
    if slack <= 0:
        return math.inf
    require(
        1 / slack - k + 1 > 1,
        (
            f"MURS cannot reach eps_1={eps_1:g} with n={int(n):,}, k={k}, {n_u:,} fakes, delta={delta:g}: "
            f"it needs 1/(1/A - n_u/(k(n-1))) = {1 / slack:.4g} > k; raise eps_1, n or the fakes."
        ),
    )
    return math.log(1 / slack - k + 1)


@dataclass(frozen=True)
class MursPrivacy:
    """A respondent's eps against each adversary of T. Wang et al. 2019 (replacement, at delta)."""

    eps_server: float  # eps_1
    eps_users: float  # eps_2: server + all other respondents
    eps_shufflers: float  # eps_l: server + all shufflers
    n: int
    delta: float
    colluding: int  # shufflers colluding with the server in eps_server and eps_users
    hidden_fakes: int  # (r - colluding) n_r
    neighbouring: Neighbouring = Neighbouring.REPLACE_ONE


@dataclass(frozen=True)
class MURS:
    """r shufflers each adding n_r fakes around a GRR or (S)OLH oracle; counts are estimated."""

    oracle: GRR | OLH
    shufflers: int
    fakes_per_shuffler: int

    name: ClassVar[str] = "murs"
    title: ClassVar[str] = "Multiple shufflers with fake reports (MURS)"
    neighbouring: ClassVar[Neighbouring] = Neighbouring.REPLACE_ONE
    randomizer: ClassVar[Randomizer] = Randomizer.K_RR  # with fakes: accounted by its own bound
    variance_note: ClassVar[str] = ""  # the variance is exact

    def __post_init__(self):
        require(isinstance(self.oracle, (GRR, OLH)), "MURS needs a GRR or (S)OLH oracle.")
        check_whole(self.shufflers, 1, "the number of shufflers")
        _check_fakes(self.fakes_per_shuffler)

    @classmethod
    def from_eps(
        cls, eps: float, d: int, shufflers: int, fakes_per_shuffler: int, g: int | None = None, prime: int | None = None
    ) -> MURS:
        """GRR at local eps on [d], or SOLH on the hash range g when given."""
        oracle = GRR.from_eps(eps, d) if g is None else SOLH.from_eps(eps, d, g, prime)
        return cls(oracle, shufflers, fakes_per_shuffler)

    @classmethod
    def from_central(
        cls,
        eps_1: float,
        n: int,
        delta: float,
        d: int,
        shufflers: int,
        fakes_per_shuffler: int,
        g: int | None = None,
        prime: int | None = None,
    ) -> MURS:
        """The least noisy MURS with eps_1 against the server (murs_local_eps; k = g or d)."""
        n_u = shufflers * _check_fakes(fakes_per_shuffler)
        eps_l = murs_local_eps(eps_1, n, delta, check_domain(d) if g is None else g, n_u)
        require(
            math.isfinite(eps_l),
            (
                f"the {n_u:,} fakes alone give eps_1 <= {eps_1:g}: respondents would need no local noise; "
                f"use fewer fakes or a smaller eps_1."
            ),
        )
        return cls.from_eps(eps_l, d, shufflers, fakes_per_shuffler, g, prime)

    @property
    def fakes(self) -> int:
        """n_u = r n_r."""
        return self.shufflers * self.fakes_per_shuffler

    @property
    def d(self) -> int:
        return self.oracle.d

    @property
    def eps(self) -> float:
        return self.oracle.eps

    def epsilons(self, n: int, delta: float, colluding: int = 0) -> MursPrivacy:
        """eps_1, eps_2 and eps_l when `colluding` of the r shufflers (< r) reveal their fakes to the server;
        eps_1 and eps_2 are inf where they exceed the blanket bound's limit (blanket_certified)."""
        require(
            float(colluding) == int(colluding) and 0 <= int(colluding) < self.shufflers,
            f"colluding shufflers must be a whole number in [0, {self.shufflers - 1}] (got {colluding}); "
            "if all collude the permutation is revealed and eps_l is all that is left.",
        )
        hidden = (self.shufflers - int(colluding)) * self.fakes_per_shuffler
        k = self.oracle.k
        return MursPrivacy(
            blanket_certified(murs_eps_server(self.eps, n, delta, k, hidden), delta),
            blanket_certified(murs_eps_users(delta, k, hidden), delta),
            self.eps,
            int(n),
            delta,
            int(colluding),
            hidden,
        )

    # --- what each observer sees (ldpcore.oracles.laws) ---------------------------------
    @property
    def respondent(self) -> GRR | OLH:
        """A respondent's report is its base oracle's; the fake reports are the shufflers'."""
        return self.oracle

    def observer_law(self, observer: Observer) -> Law | Unsupported:
        """The server and a captured shuffler see one respondent's report of the base oracle; the analyst's
        aggregate mixes in the fake reports, whose law is not stated here."""
        if observer == Observer.ANALYST:
            return Unsupported("no exact law of the shuffled histogram with the shufflers' fake reports is computed")
        return self.oracle.observer_law(observer)

    # --- what the analyzer sees -------------------------------------------------------
    def sample_aggregate(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Exact: fake inputs ~ Multinomial(n_u, 1/d), then the oracle's exact sampler on all inputs."""
        fake = rng.multinomial(self.fakes, np.full(self.d, 1 / self.d))
        return self.oracle.sample_aggregate(np.asarray(counts, dtype=np.int64) + fake, rng)

    def randomize(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Reference: the respondents' reports and n_u randomized uniform fake inputs, shuffled."""
        check_reference(self, np.size(values))
        inputs = np.concatenate([np.asarray(values, dtype=np.int64), rng.integers(self.d, size=self.fakes)])
        return rng.permutation(self.oracle.randomize(inputs, rng), axis=0)

    def aggregate(self, reports: np.ndarray) -> np.ndarray:
        return self.oracle.aggregate(reports)

    def report_log_prob(self, value: int, reports: np.ndarray) -> np.ndarray:
        """A respondent's report is the oracle's: its exact log-probability."""
        return self.oracle.report_log_prob(value, reports)

    # --- the analyzer -----------------------------------------------------------------
    def estimate(self, aggregate: np.ndarray, n: int) -> np.ndarray:
        """Counts n f_hat_v = (C_v - (n+n_u) q*)/(p - q*) - n_u/d (Algorithm 2, Lemma 6)."""
        return self.oracle.estimate(aggregate, n + self.fakes) - self.fakes / self.d

    def support_law(self, n: int) -> SupportLaw:
        """The n + n_u reports: each of the n_u fakes has a uniform input, so a report supports v w.p.
        q* + (p - q*)(c_v + n_u/d)/(n + n_u): Bin(n + n_u, that) per bin (ldpcore.oracles.support), jointly
        multinomial on GRR, with base q* + (p - q*) n_u/(d (n + n_u)) and gain (p - q*) n/(n + n_u)."""
        inner = self.oracle.support_law(int(n) + self.fakes)
        trials, spread = inner.trials, inner.gain / inner.trials
        return SupportLaw(trials, inner.base + spread * self.fakes / self.d, spread * int(n), inner.categorical)

    def variance(self, n: int, counts: np.ndarray | None = None) -> float | np.ndarray:
        """The oracle's variance for the n respondents plus n_u s(1-s)/(p-q*)^2 (Theorem 7)."""
        p, q = self.oracle.p, self.oracle.q
        s = p / self.d + (1 - 1 / self.d) * q
        return self.oracle.variance(n, counts) + self.fakes * s * (1 - s) / (p - q) ** 2

    def reference_cells(self, n: int) -> int:
        """The oracle's, for the n respondents' and the n_u fake reports."""
        return self.oracle.reference_cells(n + self.fakes)

    # --- communication ----------------------------------------------------------------
    def expected_messages(self) -> float:
        """One (r+1-layer onion-encrypted) report per respondent; the shufflers add n_u more in total."""
        return 1.0

    @property
    def bits_per_message(self) -> int:
        return self.oracle.bits_per_message


def murs_bound(fakes: int) -> Bound:
    """eps_1 against the server (Theorem 4) as a Bound in eps_l for n respondents, `fakes` = n_u
    uniform fake reports and k = the randomizer's alphabet (d for GRR, g for SOLH), or k=None
    for SOLH whose hash range follows eps_l as in the solh bound (solh_hash_range). Valid for
    eps_1 <= min(1, 14 ln(2/delta)/27), the blanket bound's limit (Balle et al. 2019 Thm 3.1).
    Monotone in eps_l: e^eps_l + k - 1 grows and n_u/k shrinks."""
    n_u = _check_fakes(fakes)

    def alphabet(eps0, k):
        return solh_hash_range(math.exp(eps0), k)

    def forward(eps0, n, delta, k):
        return murs_eps_server(eps0, n, delta, alphabet(eps0, k), n_u)

    def region(n, delta, k):
        cap = blanket_limit(delta)
        floor = forward(EPS0_MIN, n, delta, k) if n >= 2 else math.inf
        if floor > cap:
            return (
                0.0,
                0.0,
                (
                    f"too few respondents and fakes for amplification: MURS gives eps_1 >= {floor:.4g} "
                    f"even at eps_l = 0, above the blanket bound's limit {cap:.4g} (n={n:,}, "
                    f"{n_u:,} fakes)."
                ),
            )
        if k is not None:
            return EPS0_MIN, min(MURS_EPS_MAX, murs_local_eps(cap, n, delta, k, n_u)), ""
        hi = MURS_EPS_MAX
        if forward(hi, n, delta, k) > cap:  # the last eps0 below the cap, to adjacent floats
            hi = solver.bisect(lambda e: forward(e, n, delta, k) <= cap, EPS0_MIN, MURS_EPS_MAX)
        return EPS0_MIN, hi, ""

    return Bound(
        BoundName.MURS,
        f"MURS, {n_u:,} fake reports (T. Wang et al. 2019)",
        "Wang et al., Practical and robust privacy amplification with multi-party differential privacy, "
        "Theorem 4 (eps_1), from Balle et al. 2019 Theorem 3.1",
        "GRR or SOLH reports with fake reports",
        Neighbouring.REPLACE_ONE,
        forward,
        region,
        extra_fn=lambda eps0, n, delta, k: {"hash_range": alphabet(eps0, k)},
        explanation="The server sees the n-1 other reports and n_u fake reports, all uniform on the "
        "alphabet: the k-RR privacy blanket with n_u/k more uniform reports.",
    )
