"""Every amplification bound side by side (docs/accountants.md): the Accountant page's
table and curves, and what the tight accountant buys over the paper's for a protocol."""

from __future__ import annotations

import math

import numpy as np

from ldpcore.errors import InputError, check_whole
from ldpcore.privacy.bounds import BOUNDS, Amplification, get_bound
from ldpcore.privacy.notions import channels
from ldpcore.privacy.rounds import MAX_ROUNDS, collection_bound

CURVE_RTOL = 1e-4  # a chart's points: certified, within this relative distance of the exact answers


def evaluate_bound(
    name: str,
    n: int,
    delta: float,
    k: int | None = None,
    eps_c: float | None = None,
    eps0: float | None = None,
    rtol: float = 0.0,
    rounds: int = 1,
    notion: str = "native",
) -> Amplification:
    """One bound forward (eps0 given) or inverse (eps_c given); a bound that cannot take
    these inputs comes back not valid, with the reason, instead of raising. rtol > 0: a curve's
    point, certified but up to a relative rtol on the safe side of the exact answer. rounds: eps_c (at delta) is
    the total over that many collections at eps0 each (ldpcore.privacy.rounds). notion "replacement": a zero-out
    bound over the two channels a replacement changes (ldpcore.privacy.notions.channels), as `amplify --notion`."""
    base = get_bound(name)
    width = channels(base.neighbouring, notion)
    bound = collection_bound(base, check_whole(rounds, 1, "rounds", MAX_ROUNDS), width)
    try:
        if eps0 is not None:
            return bound.forward(eps0, n, delta, k, rtol)
        if eps_c is None:
            raise InputError("give exactly one of eps_c and eps0.")
        return bound.inverse(eps_c, n, delta, k, rtol)
    except InputError as exc:
        return Amplification(
            bound.name,
            eps0,
            None,
            int(n),
            delta,
            bound.neighbouring,
            bound.citation,
            valid=False,
            reason=str(exc),
            target_eps_c=eps_c,
        )


def compare(
    n: int,
    delta: float,
    k: int | None = None,
    eps_c: float | None = None,
    eps0: float | None = None,
    rounds: int = 1,
    notion: str = "native",
) -> list[Amplification]:
    """Every bound at the same inputs; exactly one of eps_c and eps0 (with rounds > 1, eps_c the total; notion
    "replacement": zero-out bounds over the two changed channels)."""
    if (eps_c is None) == (eps0 is None):
        raise InputError("give exactly one of eps_c and eps0.")
    return [evaluate_bound(name, n, delta, k, eps_c=eps_c, eps0=eps0, rounds=rounds, notion=notion) for name in BOUNDS]


def eps_c_curve(
    name: str, eps0_grid, n: int, delta: float, k: int | None = None, rtol: float = CURVE_RTOL
) -> np.ndarray:
    """eps_c against eps0 for one bound (to a relative rtol, never below the exact eps_c); NaN where not valid."""
    out = [evaluate_bound(name, n, delta, k, eps0=float(e), rtol=rtol) for e in eps0_grid]
    return np.array([a.eps_c if a.valid else math.nan for a in out])


def eps0_curve(
    name: str, eps_c: float, n_grid, delta: float, k: int | None = None, rtol: float = CURVE_RTOL
) -> np.ndarray:
    """The largest eps0 certified at eps_c against n for one bound (to a relative rtol, never above the
    exact one); NaN where not valid."""
    out = [evaluate_bound(name, int(n), delta, k, eps_c=eps_c, rtol=rtol) for n in n_grid]
    return np.array([a.eps0 if a.valid else math.nan for a in out])
