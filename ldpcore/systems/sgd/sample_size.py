"""How many respondents LDP learning needs: the smallest batch whose averaged gradient is not mostly
noise, and the sentence a user reads below it (docs/systems.md)."""

from __future__ import annotations

import math

import numpy as np

from ldpcore.errors import check_eps, check_whole
from ldpcore.systems.sgd.common import GRADIENT_MECHANISMS, NONPRIVATE_MECHANISMS, SPHERE, check_mechanism
from ldpcore.systems.sgd.elementwise import elementwise_variance
from ldpcore.systems.sgd.sphere import sphere_scale


def _worst_report_variance(p: int, eps: float, mechanism: str, clip: float) -> tuple[float, float]:
    """(total variance of one report summed over coordinates, largest clipped-gradient norm)."""
    if mechanism == SPHERE:
        return sphere_scale(p, eps, clip) ** 2, float(clip)
    worst = elementwise_variance(np.array([[0.0] * p, [1.0] * p]), eps, mechanism).sum(axis=1).max()
    return float(worst), math.sqrt(p)


def min_batch_size(p: int, eps: float, mechanism: str, clip: float = 1.0) -> int:
    """The smallest batch whose averaged gradient has noise (std of its L2 norm, worst case over
    gradients) no larger than the largest clipped gradient (L for "sphere", sqrt(p) for the
    elementwise mechanisms): below it even a batch of perfectly aligned gradients is mostly
    noise. For PM/HM it grows like p log p/eps^2 as in N. Wang et al. 2019 Sec. V (groups of
    Omega(p log p/eps^2)); for the sphere mechanism like (pi p/2) coth^2(eps/2)."""
    p, eps = check_whole(p, 1, "p (gradient dimension)"), check_eps(eps, "eps")
    check_mechanism(mechanism, GRADIENT_MECHANISMS)
    var, signal = _worst_report_variance(p, eps, mechanism, check_eps(clip, "clip"))
    return max(1, math.ceil(var / signal**2 * (1 - 1e-12)))


def sample_size_warning(
    n: int, p: int, eps: float, mechanism: str, batch_size: int | None = None, clip: float = 1.0
) -> str:
    """A sentence for the user when n (or the batch) is too small for LDP learning to mean
    anything (docs/systems.md), else "". p is the gradient dimension (p*K for softmax)."""
    if mechanism in NONPRIVATE_MECHANISMS:
        return ""
    n = check_whole(n, 1, "n (respondents)")
    need = min_batch_size(p, eps, mechanism, clip)
    if n < need:
        return (
            f"n={n:,} respondents are too few for LDP learning at eps={eps:g} with {mechanism} in {p} "
            f"dimensions: even one batch of all of them leaves more noise in the averaged gradient than "
            f"any gradient can carry; it needs n >= {need:,} (N. Wang et al. 2019: groups of Omega(p log p/eps^2)), "
            "so expect accuracy near chance."
        )
    if batch_size is not None and batch_size < need:
        return (
            f"batches of {batch_size:,} are too small at eps={eps:g} with {mechanism} in {p} dimensions: "
            f"each averaged gradient is mostly noise below {need:,} respondents per batch; use batch_size >= "
            f"{need:,} (at most {n // need:,} iterations per epoch)."
        )
    return ""
