"""The Multi-message page's cached curves: error and messages against n of every single- and multi-message
protocol (ldpcore.systems.multiparty.error_against_n)."""

from __future__ import annotations

import numpy as np

from ldpcore.systems.multiparty import error_against_n
from ui.kit.cache import cached


@cached("results", spinner="Computing the curves...")
def curves(eps: float, delta: float, d: int, shape: str) -> tuple[np.ndarray, dict]:
    """The grid of n (10^3 to 10^8) and each protocol's curves over it."""
    n_grid = np.geomspace(1e3, 1e8, 16).astype(np.int64)
    return n_grid, error_against_n(eps, delta, d, n_grid, shape)
