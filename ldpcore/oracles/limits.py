"""What every oracle refuses rather than computing something other than it claims.

Float64 resolution of probabilities. A randomizer draws each event with a float64 probability,
and what it realises is that probability only to within 2^-53: the doubles just below 1 are
2^-53 apart (so 1 - p near 1 is a multiple of 2^-53), numpy's uniform draws are multiples of
2^-53 (rng.random() < p), and numpy's binomial sampler at small n p works from q = 1 - p
(the inversion algorithm of Kachitvichyanukul and Schmeiser, "Binomial random variate
generation", CACM 1988). An eps is a log ratio of two such probabilities, so if s is the
smallest probability (or complement of one) that the randomizer's law depends on, the realised
eps is within 2 * 2^-53 / s of the claimed one. An oracle accepts an
eps only where that error is at most EPS_RTOL max(1, eps), i.e. where float64 realises the eps
to nine significant digits; beyond it (and where p rounds to 1 or q to 0) it refuses, naming
the largest eps that passes (largest_eps). GRR's keep probability at d = 4 and eps = 37, for
example, has 1 - p = 2^-52 instead of 2.6e-16 and realises eps = 37.142.

Per-respondent references (randomize) hold one report per respondent: they are for tests and
small inputs, refused above REFERENCE_CELLS cells of memory (the oracle's reference_cells).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

from ldpcore.errors import InputError, require
from ldpcore.privacy import solver

PROBABILITY_RESOLUTION = 2.0**-53
EPS_RTOL = 1e-9
REFERENCE_CELLS = 50_000_000  # cells of one per-respondent reference (an oracle's reference_cells(n))


def eps_error(smallest: float) -> float:
    """Bound on |realised eps - claimed eps| when s = smallest is the smallest probability (or
    complement) the randomizer draws with: 2^-52/s (module doc); inf when s is 0."""
    return 2 * PROBABILITY_RESOLUTION / smallest if smallest > 0 else math.inf


def realises(eps: float, smallest: float) -> bool:
    """Whether float64 realises eps to EPS_RTOL max(1, eps)."""
    return eps_error(smallest) <= EPS_RTOL * max(1.0, eps)


@lru_cache(maxsize=256)
def largest_eps(smallest_at: Callable[[float], float]) -> float:
    """The largest eps (rounded down to 4 decimals) that float64 realises, for an oracle whose
    smallest probability at eps is smallest_at(eps), decreasing in eps (bisection on [1, 800] to
    adjacent floats, ldpcore.privacy.solver: every oracle realises eps = 1, and at 800 every
    e^-eps has underflowed). Cached on smallest_at (a function or class method: the planner asks
    every encoding's limit at every trial point)."""
    eps = solver.bisect(lambda e: realises(e, smallest_at(e)), 1.0, 800.0)
    return math.floor(eps * 1e4) / 1e4


def too_large(what: str, eps: float, largest: float, name: str = "the local eps") -> str:
    """The one-sentence refusal of an eps beyond largest."""
    return (
        f"{name} of {what} must be at most {largest:.4f} (got {eps:.6g}): beyond it float64 rounds "
        f"its probabilities and the eps it realises departs from the claimed one."
    )


def check_realised(
    what: str, eps: float, smallest: float, smallest_at: Callable[[float], float], name: str = "the local eps"
) -> None:
    """InputError naming the largest usable eps unless float64 realises eps (module doc)."""
    if not realises(eps, smallest):
        raise InputError(too_large(what, eps, largest_eps(smallest_at), name))


def check_reference(oracle, n: int) -> None:
    """A per-respondent reference for n respondents within REFERENCE_CELLS cells of memory."""
    cells = oracle.reference_cells(n)
    require(
        cells <= REFERENCE_CELLS,
        f"the per-respondent reference needs {cells:,} cells of memory for {n:,} "
        f"respondent{'' if n == 1 else 's'}; the limit is {REFERENCE_CELLS:,}.",
    )
