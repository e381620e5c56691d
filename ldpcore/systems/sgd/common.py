"""Names, constants and input checks shared by the modules of ldpcore.systems.sgd: the gradient
mechanisms by name with a sentence each and the bits of one report, the defaults of a training run, and
the checks of a generator and of a gradient array."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ldpcore.errors import require
from ldpcore.privacy.bounds import BoundName

ProgressFn = Callable[[int, int], None]

SPHERE = "sphere"
ELEMENTWISE_MECHANISMS = ("pm", "hm", "duchi", "duchi-1d", "laplace")
GRADIENT_MECHANISMS = (SPHERE,) + ELEMENTWISE_MECHANISMS
NONPRIVATE = "none"  # exact mean of L2-clipped gradients (the baseline of "sphere")
NONPRIVATE_ELEMENTWISE = "none-elementwise"  # exact mean of [-1, 1]-clipped gradients (baseline of N. Wang et al. 2019)
NONPRIVATE_MECHANISMS = (NONPRIVATE, NONPRIVATE_ELEMENTWISE)
# how each gradient mechanism reports, in a sentence (the LDP-SGD page shows it under its choice)
MECHANISM_HELP = {
    SPHERE: "Algorithms 4-5 of the ESA paper (Erlingsson et al., 2020): the gradient clipped to L2 norm 1 and "
    "sent as one sign bit on a random direction (129 bits with the PRG seed).",
    "pm": "Wang et al. (ICDE 2019), Section V: entries clipped to [-1, 1], then their Algorithm 4 with the "
    "Piecewise Mechanism.",
    "hm": "Wang et al. (ICDE 2019), Section V: entries clipped to [-1, 1], then their Algorithm 4 with the "
    "Hybrid Mechanism.",
    "duchi": "Duchi et al.'s p-dimensional mechanism at eps (the competitor in Wang et al., ICDE 2019, Section VI-B).",
    "duchi-1d": "Duchi et al.'s 1-D mechanism on every coordinate at eps/p.",
    "laplace": "Laplace on every coordinate at eps/p.",
}
EXPLANATION = (
    "Every respondent sends one eps_l-LDP gradient report per epoch, in one of the disjoint batches of an "
    "epoch; each batch is shuffled on its own, so the anonymity set is the batch. The server averages the "
    "reports and takes a step lr/sqrt(t) (Erlingsson et al., *Encode, Shuffle, Analyze Privacy Revisited*, "
    "2020, Section VI; Wang et al., *Collecting and analyzing multidimensional data with local differential "
    "privacy*, ICDE 2019, Section V). Synthetic data: the papers' "
    "MNIST, CIFAR and census data are not available offline."
)
REPORT_BITS_SPHERE = 129  # 1 sign bit + a 128-bit PRG seed for v (Erlingsson et al. 2020 Sec. VI)
DEFAULT_BOUND = BoundName.FMT21_NUMERIC  # holds for any eps0-LDP randomizer (replacement)
LAMBDA = 1e-4  # N. Wang et al. 2019 Sec. VI-B


def check_rng(rng) -> np.random.Generator:
    require(
        isinstance(rng, np.random.Generator), "rng must be a numpy.random.Generator (e.g. np.random.default_rng(seed))."
    )
    return rng


def check_grads(grads) -> np.ndarray:
    g = np.asarray(grads, dtype=np.float64)
    require(
        g.ndim == 2 and g.shape[0] >= 1 and g.shape[1] >= 1,
        f"gradients must form an (n, p) array with n, p >= 1 (got shape {g.shape}).",
    )
    require(bool(np.all(np.isfinite(g))), "gradients must be finite numbers (found NaN or infinity).")
    return g


def check_mechanism(mechanism: str, allowed: tuple[str, ...] = ELEMENTWISE_MECHANISMS) -> None:
    require(mechanism in allowed, f"unknown gradient mechanism {mechanism!r}; choose one of {', '.join(allowed)}.")


def bits_per_report(mechanism: str, p: int) -> float | None:
    """The bits of one report of a private mechanism in p dimensions: REPORT_BITS_SPHERE for "sphere",
    one sign per coordinate for "duchi", None for the real-valued reports of the others."""
    if mechanism == SPHERE:
        return float(REPORT_BITS_SPHERE)
    if mechanism == "duchi":
        return float(p)  # one sign per coordinate
    return None  # real-valued reports
