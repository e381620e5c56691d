"""The analyzer's side for numeric data: mean estimates, their expected MSE, which mechanism to use for
given data, whole tables of numeric and categorical attributes under each mechanism, and the central eps
of shuffled reports (N. Wang, Xiao, Yang, Zhao, Hui, Shin, Shin, Yu, Collecting and Analyzing
Multidimensional Data with Local Differential Privacy (ICDE 2019), Secs. III-IV, VI; docs/systems.md)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldpcore.data.numeric_table import NumericTable
from ldpcore.data.scaling import from_unit, unit_values
from ldpcore.errors import check_eps, check_whole, require
from ldpcore.privacy.bounds import BoundName, get_bound
from ldpcore.systems.numeric.mechanisms import MECHANISMS, get_mechanism
from ldpcore.systems.numeric.multidim import (
    algorithm4_k,
    algorithm4_variance,
    duchi_md_randomize,
    duchi_md_variance,
    estimate_frequencies,
    oue_frequency_variance,
    oue_probabilities,
    randomize_table,
)


def estimate_mean(reports) -> np.ndarray:
    """The plain average of the reports over respondents (axis 0): unbiased for every
    mechanism here, including Algorithm 4's (d/k)-scaled tuples and Duchi's d-dim ones."""
    reports = np.asarray(reports, dtype=np.float64)
    require(reports.ndim >= 1 and reports.shape[0] >= 1, "need at least one report.")
    return reports.mean(axis=0)[()]


def expected_mse(values, eps: float, mechanism: str):
    """(1/n^2) sum_i Var(t_i): the expected squared error of the mean of n reports of the
    values t_i (shape (n,), or (n, d) for one MSE per column) under a 1-D mechanism."""
    t = unit_values(values)
    require(t.ndim in (1, 2) and t.shape[0] >= 1, "values must form an (n,) or (n, d) array with n >= 1.")
    return (get_mechanism(mechanism).variance(t, eps).mean(axis=0) / t.shape[0])[()]


@dataclass(frozen=True)
class Recommendation:
    """The 1-D mechanism with the least expected MSE of the mean, for data with E[t^2] = mean_square.

    mse: per mechanism, the expected MSE of the mean of n reports (n = 1: the average
    per-report variance). best: the smallest; ties go to the first of laplace, duchi, pm,
    hm. HM's MSE on given data is alpha PM's + (1 - alpha) Duchi's, so HM is never strictly
    best here (it wins the worst case over all data, Corollary 1, not a given data set).
    """

    eps: float
    mean_square: float
    n: int
    mse: dict[str, float]
    best: str


def recommend(eps: float, values=None, *, mean_square: float | None = None, n: int | None = None) -> Recommendation:
    """Rank Laplace, Duchi, PM and HM for the values of one attribute (in [-1, 1]) or for
    their mean square alone: every per-report variance is affine in t^2, so the average
    variance over the data is the variance at t^2 = E[t^2] (docs/systems.md). n defaults
    to the number of values, else 1."""
    eps = check_eps(eps, "eps")
    require((values is None) != (mean_square is None), "give the values or their mean square, not both.")
    if values is not None:
        t = unit_values(values)
        require(t.ndim == 1 and t.size >= 1, "values must be a non-empty 1-D array (one attribute).")
        mean_square, n = float(np.mean(t**2)), t.size if n is None else n
    else:
        assert mean_square is not None  # the require above: exactly one of the two is given
        mean_square = float(mean_square)
    require(0 <= mean_square <= 1, f"the mean square of values in [-1, 1] lies in [0, 1] (got {mean_square:g}).")
    n = check_whole(1 if n is None else n, 1, "n (respondents)")
    mse = {name: float(m.variance(np.sqrt(mean_square), eps)) / n for name, m in MECHANISMS.items()}
    return Recommendation(eps, mean_square, n, mse, min(mse, key=lambda name: mse[name]))


def shuffled_eps_c(eps: float, n: int, delta: float, bound: str = BoundName.FMT21_CLOSED):
    """Central (eps_c, delta) of n shuffled reports, each from an eps-LDP randomizer (any
    mechanism here; Algorithm 4's whole tuple is eps-LDP). bound: a name for
    ldpcore.privacy.bounds.get_bound that holds for any eps0-LDP randomizer, by default
    "fmt21-closed" (Feldman et al. 2021). Returns the bound's Amplification (valid False
    with a reason where the bound certifies nothing)."""
    return get_bound(bound).forward(eps, n, delta)


# --- whole tables: every attribute of every respondent under one mechanism ----------------

# How a respondent reports a tuple of d attributes (d_num numeric, the rest categorical) at eps.
EXPLANATION = (
    "Each respondent reports a tuple of numeric (mapped to [-1, 1]) and categorical attributes at eps-LDP; "
    "the analyzer averages the reports into means and debiases OUE bits into frequencies. Wang, Xiao, Yang, "
    "Zhao, Hui, Shin, Shin and Yu, *Collecting and analyzing multidimensional data with local differential "
    "privacy* (ICDE 2019)."
)
TABLE_MECHANISMS = {
    "laplace": "Laplace on every attribute at eps/d (categorical attributes through OUE at eps/d)",
    "duchi": "Duchi et al.'s 1-D mechanism on every attribute at eps/d (categorical: OUE at eps/d)",
    "pm": "Piecewise Mechanism on every attribute at eps/d (categorical: OUE at eps/d)",
    "hm": "Hybrid Mechanism on every attribute at eps/d (categorical: OUE at eps/d)",
    "alg4-pm": "Algorithm 4: k = max(1, min(d, floor(eps/2.5))) sampled attributes, each through PM at eps/k "
    "and scaled by d/k (categorical: OUE at eps/k)",
    "alg4-hm": "Algorithm 4 with the Hybrid Mechanism",
    "duchi-md": "Duchi et al.'s d-dimensional mechanism (Algorithm 3) on the numeric attributes at eps d_num/d, "
    "categorical attributes through OUE at eps/d (N. Wang et al. 2019 Sec. VI's budget split)",
}
MAX_SIMULATED_CELLS = 5_000_000  # respondents x values per respondent drawn at once (synthetic data, reports)


def check_size(n: int, columns: int, what: str = "attributes") -> None:
    """Refuse to draw n x columns values at once beyond MAX_SIMULATED_CELLS (the synthetic
    data and the per-respondent reports are held in memory)."""
    cells = int(n) * int(columns)
    require(
        cells <= MAX_SIMULATED_CELLS,
        f"n x {what} = {cells:,} exceeds the {MAX_SIMULATED_CELLS:,} values "
        "simulated at once; use fewer respondents or attributes.",
    )


def _check_table_mechanism(mechanism: str) -> str:
    require(
        mechanism in TABLE_MECHANISMS, f"unknown mechanism {mechanism!r}; choose one of {', '.join(TABLE_MECHANISMS)}."
    )
    return mechanism


def _budget(table: NumericTable, mechanism: str, eps: float) -> tuple[int, float]:
    """(k attributes sent, each categorical one through OUE at eps/k; the eps of the numeric part):
    the 1-D mechanisms send every attribute at eps/d, Algorithm 4 k attributes at eps/k (its own
    split), Duchi's d-dim mechanism the numeric tuple at eps d_num/d."""
    d = table.d
    if mechanism.startswith("alg4-"):
        return algorithm4_k(eps, d), eps
    return d, eps * table.d_numeric / d if mechanism == "duchi-md" else eps / d


def _numeric_mse(mean_square: np.ndarray, n: int, table: NumericTable, mechanism: str, eps: float) -> np.ndarray:
    """Expected MSE of each numeric mean on [-1, 1]: every variance here is affine in t^2, so
    (1/n^2) sum_i Var(t_i) is Var(sqrt(E[t^2])) / n."""
    t, eps_num = np.sqrt(mean_square), _budget(table, mechanism, eps)[1]
    if mechanism.startswith("alg4-"):
        var = algorithm4_variance(t, eps, table.d, mechanism[5:])
    elif mechanism == "duchi-md":
        var = duchi_md_variance(t, eps_num, table.d_numeric) if t.size else t
    else:
        var = MECHANISMS[mechanism].variance(t, eps_num)
    return np.asarray(var, dtype=np.float64) / n


@dataclass(frozen=True, eq=False)
class TableEstimate:
    """One simulated collection of a table: every mean and frequency, the truth and the analytic
    variance of each estimate. Means and their MSE are on the [-1, 1] scale (rows() maps them to
    the data's units). k: attributes each respondent sends; budget: how eps is spent, in words."""

    table: NumericTable
    mechanism: str
    eps: float
    k: int
    budget: str
    means: np.ndarray
    true_means: np.ndarray
    mean_mse: np.ndarray
    frequencies: tuple[np.ndarray, ...]
    true_frequencies: tuple[np.ndarray, ...]
    frequency_var: tuple[np.ndarray, ...]

    @property
    def numeric_mse(self) -> tuple[float, float] | None:
        """(empirical, analytic) MSE of the numeric means on [-1, 1], averaged over the
        attributes; None without numeric attributes."""
        if not self.means.size:
            return None
        return float(np.mean((self.means - self.true_means) ** 2)), float(np.mean(self.mean_mse))

    @property
    def frequency_mse(self) -> tuple[float, float] | None:
        """(empirical, analytic) MSE of the category frequencies, averaged over every category
        of every categorical attribute; None without categorical attributes."""
        if not self.frequencies:
            return None
        est, truth, var = (np.concatenate(x) for x in (self.frequencies, self.true_frequencies, self.frequency_var))
        return float(np.mean((est - truth) ** 2)), float(np.mean(var))

    def rows(self) -> list[dict]:
        """One row per numeric attribute (its mean in the data's units) and per category (its
        frequency): attribute, quantity, truth, estimate, error and the analytic std."""
        tab, rows = self.table, []
        for j, name in enumerate(tab.numeric_names):
            lo, hi = tab.ranges[j]
            truth, est = from_unit(self.true_means[j], lo, hi), from_unit(self.means[j], lo, hi)
            rows.append(
                dict(
                    attribute=name,
                    quantity="mean",
                    truth=truth,
                    estimate=est,
                    error=est - truth,
                    std=float(np.sqrt(self.mean_mse[j])) * (hi - lo) / 2,
                )
            )
        for j, name in enumerate(tab.categorical_names):
            for v, label in enumerate(tab.labels[j]):
                truth, est = self.true_frequencies[j][v], self.frequencies[j][v]
                rows.append(
                    dict(
                        attribute=name,
                        quantity=f"share of {label}",
                        truth=float(truth),
                        estimate=float(est),
                        error=float(est - truth),
                        std=float(np.sqrt(self.frequency_var[j][v])),
                    )
                )
        return rows


def _oue_aggregate(codes: np.ndarray, m: int, eps: float, rng: np.random.Generator) -> np.ndarray:
    """Frequencies from n OUE reports at eps, sampled exactly from the per-category counts: the
    bit of category v is set in Bin(c_v, p) + Bin(n - c_v, q) reports."""
    n = codes.size
    p, q = oue_probabilities(eps)
    c = np.bincount(codes, minlength=m)
    ones = rng.binomial(c, p) + rng.binomial(n - c, q)
    return (ones - n * q) / ((p - q) * n)


def estimate_table(table: NumericTable, mechanism: str, eps: float, rng: np.random.Generator) -> TableEstimate:
    """Every respondent reports its tuple at eps (eps-LDP per respondent) with ``mechanism`` (a key of
    TABLE_MECHANISMS); the analyzer averages the reports (means) and debiases OUE bits
    (frequencies). Numeric reports are drawn per respondent; OUE bits of the budget-split
    mechanisms as exact aggregates, Algorithm 4's per respondent (randomize_table)."""
    mechanism, eps = _check_table_mechanism(mechanism), check_eps(eps, "eps")
    n, d, d_num = table.n, table.d, table.d_numeric
    alg4 = mechanism.startswith("alg4-")
    check_size(
        n,
        d_num + sum(table.domains) if alg4 else d_num,
        "(numeric attributes + categories)" if alg4 else "numeric attributes",
    )
    k, eps_num = _budget(table, mechanism, eps)
    if alg4:
        reports = randomize_table(table, eps, rng, mechanism[5:])
        means, freqs = reports.numeric.mean(axis=0), estimate_frequencies(reports)
        budget = f"k = {k} of d = {d} attributes per respondent, each at eps/k = {eps / k:.4g}"
    else:
        if mechanism == "duchi-md":
            means = duchi_md_randomize(table.numeric, eps_num, rng).mean(axis=0) if d_num else np.zeros(0)
            budget = f"the {d_num} numeric attributes together at eps d_num/d = {eps_num:.4g}" + (
                f", each categorical attribute at eps/d = {eps / d:.4g}" if table.d_categorical else ""
            )
        else:
            means = MECHANISMS[mechanism].randomize(table.numeric, eps_num, rng).mean(axis=0)
            budget = f"each of the d = {d} attributes at eps/d = {eps / d:.4g}"
        freqs = tuple(_oue_aggregate(c, m, eps / d, rng) for c, m in zip(table.categorical.T, table.domains))
    mse = _numeric_mse(table.mean_square, n, table, mechanism, eps)
    freq_var = tuple(np.asarray(oue_frequency_variance(f, eps, n, d, k)) for f in table.frequencies)
    return TableEstimate(
        table,
        mechanism,
        eps,
        k,
        budget,
        means,
        table.numeric.mean(axis=0),
        mse,
        tuple(freqs),
        table.frequencies,
        freq_var,
    )


@dataclass(frozen=True)
class MechanismComparison:
    """Analytic expected MSE on one table at eps for every mechanism of TABLE_MECHANISMS:
    numeric (mean over the numeric attributes, [-1, 1] scale) and categorical (mean over all
    categories; None without categorical attributes). best: the least numeric MSE (categorical
    if there are no numeric attributes); ties go to the first in TABLE_MECHANISMS."""

    eps: float
    numeric: dict[str, float] | None
    categorical: dict[str, float] | None
    best: str


def compare_mechanisms(table: NumericTable, eps: float) -> MechanismComparison:
    """Rank every table mechanism on this data (the data enter only through each attribute's
    E[t^2] and the category frequencies). The 1-D rows are recommend(eps/d, ...) per attribute."""
    eps = check_eps(eps, "eps")
    numeric: dict[str, float] | None = None
    categorical: dict[str, float] | None = None
    if table.d_numeric:
        numeric = {m: float(np.mean(_numeric_mse(table.mean_square, table.n, table, m, eps))) for m in TABLE_MECHANISMS}
    if table.frequencies:
        f = np.concatenate(table.frequencies)
        categorical = {
            m: float(np.mean(oue_frequency_variance(f, eps, table.n, table.d, _budget(table, m, eps)[0])))
            for m in TABLE_MECHANISMS
        }
    ranking = numeric if numeric is not None else categorical
    require(ranking is not None, "the table has no columns to rank the mechanisms on.")
    scores: dict[str, float] = ranking or {}
    return MechanismComparison(eps, numeric, categorical, min(scores, key=lambda name: scores[name]))
