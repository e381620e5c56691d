"""Numeric and multidimensional data under local DP (Wang, Xiao, Yang, Zhao, Hui, Shin, Shin, Yu,
Collecting and analyzing multidimensional data with local differential privacy, ICDE 2019).

mechanisms  one value in [-1, 1]: Laplace, Duchi, PM, HM; eps*, eps#
multidim    Duchi's d-dim mechanism, Algorithm 4, categorical attributes through OUE
analysis    mean estimates, expected MSE, the recommendation, shuffled central eps
The tables these read (NumericTable, the paper's synthetic data, the CSV loader) and the
[lo, hi] -> [-1, 1] mapping live in the data layer (ldpcore.data.numeric_table, .scaling).
"""
from ldpcore.systems.numeric.analysis import Recommendation, estimate_mean, expected_mse, recommend, shuffled_eps_c
from ldpcore.systems.numeric.mechanisms import (
    EPS_SHARP, EPS_STAR, MECHANISMS, Mechanism, duchi_b, duchi_prob_plus, duchi_randomize, duchi_variance,
    duchi_worst_variance, get_mechanism, hm_alpha, hm_randomize, hm_variance, hm_worst_variance,
    laplace_density, laplace_randomize, laplace_variance, laplace_worst_variance, pm_constants, pm_density,
    pm_interval, pm_randomize, pm_variance, pm_worst_variance,
)
from ldpcore.systems.numeric.multidim import (
    DUCHI_TIES, TableReports, algorithm4_k, algorithm4_randomize, algorithm4_variance, algorithm4_worst_variance,
    duchi_cd, duchi_md_b, duchi_md_randomize, duchi_md_variance, estimate_frequencies, oue_frequency_variance,
    oue_probabilities, randomize_table,
)
from ldpcore.data.numeric_table import SYNTHETIC, NumericTable, load_table_csv, synthetic_table
from ldpcore.data.scaling import from_unit, to_unit, variance_scale

__all__ = [
    "DUCHI_TIES", "EPS_SHARP", "EPS_STAR", "MECHANISMS", "SYNTHETIC", "Mechanism", "NumericTable", "Recommendation",
    "TableReports", "algorithm4_k", "algorithm4_randomize", "algorithm4_variance", "algorithm4_worst_variance",
    "duchi_b", "duchi_cd", "duchi_md_b", "duchi_md_randomize", "duchi_md_variance", "duchi_prob_plus",
    "duchi_randomize", "duchi_variance", "duchi_worst_variance", "estimate_frequencies", "estimate_mean",
    "expected_mse", "from_unit", "get_mechanism", "hm_alpha", "hm_randomize", "hm_variance", "hm_worst_variance",
    "laplace_density", "laplace_randomize", "laplace_variance", "laplace_worst_variance", "load_table_csv",
    "oue_frequency_variance", "oue_probabilities", "pm_constants", "pm_density", "pm_interval", "pm_randomize",
    "pm_variance", "pm_worst_variance", "randomize_table", "recommend", "shuffled_eps_c", "synthetic_table",
    "to_unit", "variance_scale",
]
