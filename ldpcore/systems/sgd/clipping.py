"""Gradient clipping: to an L2 norm (Erlingsson et al. 2020 Algorithm 4, step 1) or entry by entry
(N. Wang et al. 2019 Sec. V)."""

from __future__ import annotations

import numpy as np

from ldpcore.errors import check_eps
from ldpcore.systems.sgd.common import check_grads


def clip_l2(grads, bound: float) -> np.ndarray:
    """Each row times min(1, bound/||row||_2) (Erlingsson et al. 2020 Algorithm 4, step 1)."""
    g, bound = check_grads(grads), check_eps(bound, "clip (L2 norm L)")
    norms = np.linalg.norm(g, axis=1)
    return g * np.minimum(1.0, bound / np.maximum(norms, 1e-300))[:, None]


def clip_elementwise(grads, bound: float = 1.0) -> np.ndarray:
    """Every entry clipped to [-bound, bound] (N. Wang et al. 2019 Sec. V uses bound = 1)."""
    g, bound = check_grads(grads), check_eps(bound, "clip (elementwise bound)")
    return np.clip(g, -bound, bound)
