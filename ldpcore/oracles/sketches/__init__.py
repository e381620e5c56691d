"""Sketch-based frequency oracles: Apple's count-mean sketch (CMS) and Hadamard CMS, a signed count
sketch, and the attribute-fragmented sketch of Erlingsson, Feldman, Mironov, Raghunathan, Song, Talwar,
Thakurta, Encode, Shuffle, Analyze Privacy Revisited (2020), Tables I, III, V, VII; docs/esa.md
"Sketches").

k seeded hash functions h_j: [d] -> [m] (paper and Apple: k = 1024, m = 65,536). Every
respondent picks ONE row j uniformly and reports on h_j(x) only:
- CountMeanSketch: the +-1 one-hot of h_j(x), each entry flipped w.p. 1/(1+e^(eps/2)).
- FragmentedSketch: that one-hot as m binary-RR bits flipped w.p. 1/(1+e^eps); only set
  bits are sent, each its own message (zero-out LDP, like one-hot over [m] in row j).
- HadamardCountMeanSketch: one uniform Hadamard coefficient l of the one-hot,
  H[l, h_j(x)] = (-1)^popcount(l & h_j(x)), flipped w.p. 1/(1+e^eps): 1 bit + indices.
- CountSketch: the same 1-bit report of the signed one-hot s_j(x) e_{h_j(x)} (the frequency
  oracle of Bassily et al. 2017, after Charikar et al.), median or mean over rows.

The analyzer debiases every cell into T[j, b], an unbiased estimate of X[j, b] = the number
of row-j respondents whose value hashes to b (Apple's M[j, b] is k T[j, b]), and reads x
from T[j, h_j(x)] over the rows. With no privacy noise and every respondent in every row
(the paper's non-private baseline, Table V, eps_c = infinity) the estimate is
`noiseless_estimate(counts)`; for the mean readouts it is also E[estimate | hashes], so
`noiseless_estimate(counts) - counts` is the sketch's own (collision) error.

Hash functions: a sketch built with seed=None (as plan() builds them) draws its hash functions
from the generator of each simulation (sample_aggregate, randomize), as a fresh deployment
would choose them, so its estimates are unbiased over runs for every value and the same
generator seed gives the same hashes and the same run; the reports carry the hash seed the
analyzer reads them with (SketchReports.seed). A given seed fixes the hash functions: the
law given the hashes (noiseless_estimate, the tests of the conditional law).

Exact aggregate simulation: each value's respondents pick rows uniformly (a row per
respondent below 2k respondents, else one Multinomial(c_v, 1/k)), giving the true row
counts X at cost O(sum_v min(c_v, 2k) + k m); the reported 1s of a bit sketch are then
Bin(X, 1-f) + Bin(n_j - X, f) per cell. Those cells are independent given X and every
respondent's cell is one the estimator reads, so with d <= m/8 only the k d read cells are drawn
and their sums kept (Sketch._sample_read, O(sum_v min(c_v, 2k) + k d); table=True draws the whole
table). A Hadamard report is kept (its true bit on a
uniform coefficient) w.p. 1-2f, else uniform on (coefficient, bit); the kept reports of one
value in one row are Multinomial(K, 1/m) over the coefficients, with bits fixed by the
coefficient, and the other reports of a row Multinomial(U, 1/(2m)): drawn per report when
few, else as one multinomial in O(m) (uniform_multinomial), so the cost is
O(sum_v min(c_v, k m) + k m), independent of n for a fixed domain; above SIMULATION_DRAWS
it is refused. A Hadamard sketch draws its whole table: the read values (H B[j])[h_j(x)] are not
independent across cells (every report moves the transform at every cell of its row).

Privacy: a CMS, HCMS or count-sketch report is one eps-LDP message (replacement), so the
generic amplification bounds apply to it (ldpcore.oracles registers them). The fragmented
sketch sends many messages per respondent; Erlingsson et al. 2020 gives no bound for it (PRIVACY_NOTE).

sampling      threads, checks, the binomial and Poisson windows, fast iid draws, many-cell multinomials
hash_family   HashFamily (simple tabulation) and SketchReports
sketch        Sketch, the common shape and the count-mean readout
count_mean    CountMeanSketch, FragmentedSketch, split_budget_rmse
hadamard_cms  HadamardCountMeanSketch and the row transforms
count_sketch  CountSketch (mean or median of the rows)
median        the median readout's variance model
"""

from __future__ import annotations

from ldpcore.oracles.sketches.count_mean import PRIVACY_NOTE, CountMeanSketch, FragmentedSketch, split_budget_rmse
from ldpcore.oracles.sketches.count_sketch import CountSketch
from ldpcore.oracles.sketches.hadamard_cms import HadamardCountMeanSketch
from ldpcore.oracles.sketches.hash_family import HashFamily, SketchReports
from ldpcore.oracles.sketches.median import MEDIAN_NOTE, median_factor
from ldpcore.oracles.sketches.sampling import SIMULATION_DRAWS, binomial_window, check_counts, check_values

__all__ = [
    "MEDIAN_NOTE",
    "PRIVACY_NOTE",
    "SIMULATION_DRAWS",
    "CountMeanSketch",
    "CountSketch",
    "FragmentedSketch",
    "HadamardCountMeanSketch",
    "HashFamily",
    "SketchReports",
    "binomial_window",
    "check_counts",
    "check_values",
    "median_factor",
    "split_budget_rmse",
]
