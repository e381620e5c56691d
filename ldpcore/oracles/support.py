"""The law of the support counts an unbiased estimator reads: the optional capability of an encoding that the
likelihood post-processing (ldpcore.experiment.protocol.postprocess: mle, ibu) needs.

An oracle states it with ``support_law(n)``, a SupportLaw or ``Unsupported`` with the reason
(ldpcore.oracles.base.support_law gives every oracle without the method the default "unsupported, because
..."). The law is a fact of the randomizer and the estimator alone; the estimates built on it are the
post-processing's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldpcore.errors import require


@dataclass(frozen=True)
class SupportLaw:
    """The law of the support counts N_v an unbiased estimator reads, in the population model (every
    respondent's value drawn independently from the histogram's shares theta_v = c_v / n):

        N_v ~ Bin(trials, base + gain * theta_v)        (every bin v),
        c_hat_v = n (N_v / trials - base) / gain        (the encoding's unbiased estimate).

    trials: the reports that may support a value (n; n plus the fakes for MURS); base: the probability that a
    report supports v when its input is not v; base + gain: when it is. categorical: each report supports
    exactly one value (GRR's reports, MURS's on GRR; then d base + gain = 1), so the counts are jointly
    Multinomial(trials, base + gain theta). Otherwise (unary encodings, one-hot, local hashing, Hadamard
    response) a report supports several values and the bins' counts are dependent; each bin's binomial law is
    still exact, and their product is a composite likelihood (Lindsay, *Composite likelihood methods*,
    Contemporary Mathematics 80, 1988)."""

    trials: int
    base: float
    gain: float
    categorical: bool = False

    def __post_init__(self):
        require(self.trials >= 1, f"a support law needs trials >= 1 (got {self.trials}).")
        require(
            0 <= self.base and 0 < self.gain and self.base + self.gain <= 1,
            f"a support law needs 0 <= base, 0 < gain and base + gain <= 1 (got {self.base:g}, {self.gain:g}).",
        )

    def support(self, estimate: np.ndarray, n: float) -> np.ndarray:
        """The support counts N behind an unbiased estimate (the inverse of c_hat = n (N/trials - base)/gain),
        within [0, trials] (rounding can put a recovered count a hair outside)."""
        counts = self.trials * (self.base + self.gain * np.asarray(estimate, dtype=np.float64) / n)
        return np.clip(counts, 0.0, float(self.trials))

    def check(self, d: int) -> None:
        """A categorical law must be a channel on d values: d base + gain = 1."""
        require(
            not self.categorical or math.isclose(d * self.base + self.gain, 1.0, rel_tol=1e-9),
            f"a categorical support law needs d base + gain = 1 (got {d * self.base + self.gain:.12g} at d={d}).",
        )
