"""Elementwise gradient reports (N. Wang et al. 2019 Sec. V): entries clipped to [-1, 1], then their
Algorithm 4 (PM / HM) or a baseline (Duchi et al.'s p-dimensional mechanism, or every coordinate at
eps/p through Duchi's 1-D mechanism or Laplace)."""

from __future__ import annotations

import numpy as np

from ldpcore.errors import check_eps
from ldpcore.systems.numeric.mechanisms import duchi_randomize, duchi_variance, laplace_randomize, laplace_variance
from ldpcore.systems.numeric.multidim import (
    algorithm4_randomize,
    algorithm4_variance,
    duchi_md_randomize,
    duchi_md_variance,
)
from ldpcore.systems.sgd.clipping import clip_elementwise
from ldpcore.systems.sgd.common import check_mechanism, check_rng


def elementwise_randomize(grads, eps: float, rng: np.random.Generator, mechanism: str = "pm") -> np.ndarray:
    """Clip each entry to [-1, 1], then one eps-LDP report per row: "pm"/"hm" = N. Wang et al. 2019
    Algorithm 4 (k coordinates at eps/k, scaled by p/k); "duchi" = Duchi et al.'s p-dim
    mechanism at eps; "duchi-1d" / "laplace" = every coordinate at eps/p."""
    check_mechanism(mechanism)
    t, eps, rng = clip_elementwise(grads, 1.0), check_eps(eps, "eps"), check_rng(rng)
    p = t.shape[1]
    if mechanism in ("pm", "hm"):
        return algorithm4_randomize(t, eps, rng, mechanism)
    if mechanism == "duchi":
        return duchi_md_randomize(t, eps, rng)
    if mechanism == "duchi-1d":
        return duchi_randomize(t, eps / p, rng)
    return laplace_randomize(t, eps / p, rng)


def elementwise_variance(grads, eps: float, mechanism: str = "pm") -> np.ndarray:
    """Per-report, per-coordinate variance (n, p) of elementwise_randomize (analytic)."""
    check_mechanism(mechanism)
    t, eps = clip_elementwise(grads, 1.0), check_eps(eps, "eps")
    p = t.shape[1]
    if mechanism in ("pm", "hm"):
        return np.asarray(algorithm4_variance(t, eps, p, mechanism))
    if mechanism == "duchi":
        return np.asarray(duchi_md_variance(t, eps, p))
    if mechanism == "duchi-1d":
        return np.asarray(duchi_variance(t, eps / p))
    return np.asarray(laplace_variance(t, eps / p))
