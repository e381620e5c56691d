"""The sphere (l2) mechanism of Erlingsson et al. 2020, Algorithms 4 and 5 (Duchi, Jordan and
Wainwright's l2 mechanism): a gradient clipped to L2 norm L is sent as one sign bit on a uniform unit
vector, derived from a 128-bit PRG seed (129 bits); the server rescales the mean of the unit vectors."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit, gammaln

from ldpcore.errors import check_eps, check_whole, require
from ldpcore.systems.sgd.clipping import clip_l2
from ldpcore.systems.sgd.common import check_grads, check_rng


def sphere_scale(p: int, eps: float, L: float = 1.0, printed: bool = False) -> float:
    """The server's constant: g = scale * mean(z_hat) with z_hat unit vectors.

    For v uniform on the unit sphere in p dimensions, E[sgn(<u, v>) v] = c_p u with c_p =
    E|v_1| = Gamma(p/2)/(sqrt(pi) Gamma((p+1)/2)), and the sign flip multiplies by
    tanh(eps/2), so the unbiased constant is L/(c_p tanh(eps/2)) =
    L sqrt(pi)/2 * p Gamma((p-1)/2+1)/Gamma(p/2+1) * (e^eps+1)/(e^eps-1).
    Erlingsson et al. 2020, Algorithm 5, prints this constant WITHOUT the
    factor p that Duchi et al. [17] have; the printed constant (printed=True) gives E[g] =
    gradient/p, i.e. the same direction at a p-times smaller learning rate. We use the unbiased
    one; tests/test_sgd.py checks E[g] = clipped gradient.
    """
    p, eps, L = check_whole(p, 1, "p (gradient dimension)"), check_eps(eps, "eps"), check_eps(L, "clip (L2 norm L)")
    log_c = 0.5 * math.log(math.pi) - math.log(2) + gammaln((p + 1) / 2) - gammaln(p / 2 + 1)
    if not printed:
        log_c += math.log(p)
    return L * math.exp(log_c) / math.tanh(eps / 2)


def _sphere_signs(x: np.ndarray, v: np.ndarray, eps: float, L: float, rng: np.random.Generator) -> np.ndarray:
    """The reported sign per row: z = +-L x/||x|| (P(+) = 1/2 + ||x||/(2L)), s = sgn(<z, v>),
    kept w.p. e^eps/(1+e^eps). A zero gradient gives z = +-L e_1 with probability 1/2 each."""
    n, p = x.shape
    norms = np.linalg.norm(x, axis=1)
    u = np.where((norms > 0)[:, None], x / np.maximum(norms, 1e-300)[:, None], np.eye(1, p))
    plus = rng.random(n) < 0.5 + np.minimum(norms / (2 * L), 0.5)
    s = np.where(np.einsum("ij,ij->i", u, v) >= 0, 1, -1) * np.where(plus, 1, -1)
    keep = rng.random(n) < expit(eps)
    return np.where(keep, s, -s)


def _unit_vectors(gauss: np.ndarray) -> np.ndarray:
    return gauss / np.linalg.norm(gauss, axis=-1, keepdims=True)


def sphere_randomize(grads, eps: float, L: float, rng: np.random.Generator) -> np.ndarray:
    """Erlingsson et al. 2020 Algorithm 4 for each row (vectorised): (n, p) unit vectors z_hat = +-v."""
    g, eps, rng = check_grads(grads), check_eps(eps, "eps"), check_rng(rng)
    x = clip_l2(g, L)
    v = _unit_vectors(rng.standard_normal(x.shape))
    return _sphere_signs(x, v, eps, float(L), rng)[:, None] * v


def sphere_estimate(reports, eps: float, L: float = 1.0, printed: bool = False) -> np.ndarray:
    """Erlingsson et al. 2020 Algorithm 5, step 5: scale * mean(z_hat) (unbiased unless printed=True)."""
    r = check_grads(reports)
    return sphere_scale(r.shape[1], eps, L, printed) * r.mean(axis=0)


def sphere_variance(grads, eps: float, L: float = 1.0) -> np.ndarray:
    """Per-report, per-coordinate variance of scale * z_hat: scale^2/p - x_j^2 (||z_hat|| = 1,
    E[z_hat_j^2] = 1/p by symmetry) with x the clipped gradient; shape (n, p)."""
    x = clip_l2(grads, L)
    return sphere_scale(x.shape[1], eps, L) ** 2 / x.shape[1] - x**2


def sphere_direction(seed: int, p: int) -> np.ndarray:
    """Samp(PRG(s)): the unit vector v both client and server derive from a 128-bit seed s
    (normalised Gaussians from numpy's PCG64 seeded with s)."""
    return _unit_vectors(np.random.default_rng(int(seed)).standard_normal(p))


def sphere_encode(grads, eps: float, L: float, rng: np.random.Generator) -> tuple[np.ndarray, list[int]]:
    """The communication-efficient client (Erlingsson et al. 2020 Sec. VI, "Reducing communication cost
    using PRGs"), one respondent at a time (reference path for tests and audits): each draws a
    128-bit seed s, v = Samp(PRG(s)), and sends (sign bit, s): 129 bits. Returns (bits in {0, 1}
    with 1 = +, seeds)."""
    g, eps, rng = check_grads(grads), check_eps(eps, "eps"), check_rng(rng)
    x = clip_l2(g, L)
    words = rng.integers(0, 2**64, size=(x.shape[0], 2), dtype=np.uint64)
    seeds = [(int(a) << 64) | int(b) for a, b in words]
    v = np.stack([sphere_direction(s, x.shape[1]) for s in seeds])
    signs = _sphere_signs(x, v, eps, float(L), rng)
    return (signs > 0).astype(np.uint8), seeds


def sphere_decode(bits, seeds, p: int) -> np.ndarray:
    """The server's reconstruction z_hat = (+-1) Samp(PRG(s)) from (sign bit, seed) pairs."""
    bits = np.asarray(bits)
    require(
        bits.ndim == 1 and len(bits) == len(seeds) and bool(np.all((bits == 0) | (bits == 1))),
        "sign bits must be a 0/1 vector with one seed per bit.",
    )
    return np.stack([(1.0 if b else -1.0) * sphere_direction(s, p) for b, s in zip(bits, seeds)])
