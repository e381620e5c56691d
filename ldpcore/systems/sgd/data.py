"""Seeded synthetic classification data for LDP-SGD. The papers' data sets (MNIST, Fashion-MNIST,
CIFAR-10 in Erlingsson et al. 2020; IPUMS census in N. Wang et al. 2019) are not available offline, so
their numbers are not reproduced here: ``make_classification`` draws Gaussian-mixture data with a known
linear rule (two classes for logistic regression / linear SVM / least squares, K classes for softmax)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from ldpcore.errors import check_eps, check_whole, require
from ldpcore.systems.sgd.common import check_rng


@dataclass(frozen=True, eq=False)
class Dataset:
    """Seeded synthetic classification data, split into training (the n respondents) and test.

    Binary: labels in {-1, +1}, the Bayes rule is sign(<w, x>) with w = ``directions[:, 0]``.
    K classes: labels in {0, ..., K-1}, the Bayes rule is argmax_k <c_k, x> with c_k the
    columns of ``directions``. Every row has L2 norm <= make_classification's ``radius`` (so
    entries lie in [-1, 1] for radius <= 1); ``description`` names the parameters.
    ``reference_accuracy``: the Bayes rule's accuracy on the test set; ``bayes_accuracy``: its
    expected accuracy (closed form for two classes, else the same as the reference).
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    directions: np.ndarray
    classes: int
    bayes_accuracy: float
    reference_accuracy: float
    description: str

    @property
    def n(self) -> int:
        return self.X_train.shape[0]

    @property
    def p(self) -> int:
        return self.X_train.shape[1]


def make_classification(
    n: int,
    p: int,
    rng: np.random.Generator,
    *,
    classes: int = 2,
    separation: float = 4.0,
    label_noise: float = 0.0,
    n_test: int | None = None,
    radius: float = 1.0,
) -> Dataset:
    """Gaussian mixture: class means at mutual distance ``separation`` (in noise standard
    deviations) on orthonormal random directions, isotropic unit noise; each label is then
    replaced w.p. ``label_noise`` (flipped for two classes, redrawn uniformly for K). Features
    are divided by the typical norm sqrt(p + separation^2/4) and rows longer than ``radius``
    are scaled onto the ball (a positive rescaling: the Bayes rule is unchanged).
    n respondents for training, n_test (default max(500, n // 4)) held out.

    Two classes: means +-(separation/2) w, Bayes accuracy (1 - f) Phi(s/2) + f (1 - Phi(s/2))
    with f = label_noise. The paper's MNIST/CIFAR/IPUMS data are not available offline.
    """
    n, p = check_whole(n, 2, "n (respondents)"), check_whole(p, 1, "p (features)")
    classes = check_whole(classes, 2, "classes")
    require(classes <= p or classes == 2, f"classes must be <= p for orthogonal class means (got {classes} > p={p}).")
    rng = check_rng(rng)
    separation = float(separation)
    require(
        math.isfinite(separation) and separation >= 0, f"separation must be a finite number >= 0 (got {separation:g})."
    )
    label_noise = float(label_noise)
    require(
        0 <= label_noise <= 0.5 if classes == 2 else 0 <= label_noise <= 1,
        f"label_noise must lie in [0, {0.5 if classes == 2 else 1}] (got {label_noise:g}).",
    )
    n_test = max(500, n // 4) if n_test is None else check_whole(n_test, 1, "n_test")
    radius = check_eps(radius, "radius")
    total = n + n_test
    X, truth, directions = _mixture(rng, total, p, classes, separation, radius)

    noisy = rng.random(total) < label_noise
    if classes == 2:
        y = np.where(noisy, -truth, truth)
        phi = float(ndtr(separation / 2))
        bayes = (1 - label_noise) * phi + label_noise * (1 - phi)
        rule = np.where(X @ directions[:, 0] >= 0, 1, -1)
    else:
        y = np.where(noisy, rng.integers(0, classes, total), truth)
        rule = np.argmax(X @ directions, axis=1)
    reference = float(np.mean(rule[n:] == y[n:]))
    if classes != 2:
        bayes = reference
    desc = (
        f"synthetic {classes}-class Gaussian mixture, p={p}, separation={separation:g}, "
        f"label noise={label_noise:g}, rows in the L2 ball of radius {radius:g}; n={n:,} train, {n_test:,} test"
    )
    return Dataset(X[:n], y[:n], X[n:], y[n:], directions, classes, float(bayes), reference, desc)


def _mixture(
    rng: np.random.Generator, total: int, p: int, classes: int, separation: float, radius: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """make_classification's features before any label noise: (X with rows in the radius ball, the true
    labels, the class directions), drawn in this order from rng."""
    if classes == 2:
        w = rng.standard_normal(p)
        directions = (w / np.linalg.norm(w))[:, None]
        truth = np.where(rng.random(total) < 0.5, 1, -1)
        centres = np.outer(truth, directions[:, 0]) * (separation / 2)
    else:
        directions = np.linalg.qr(rng.standard_normal((p, classes)))[0]
        truth = rng.integers(0, classes, total)
        centres = directions.T[truth] * (separation / math.sqrt(2))
    X = (centres + rng.standard_normal((total, p))) / math.sqrt(p + separation**2 / 4)
    X *= np.minimum(1.0, radius / np.maximum(np.linalg.norm(X, axis=1), 1e-300))[:, None]
    return X, truth, directions
