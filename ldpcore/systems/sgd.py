"""Locally private SGD with shuffled reports (Erlingsson, Feldman, Mironov, Raghunathan, Song, Talwar,
Thakurta, Encode, Shuffle, Analyze Privacy Revisited, 2020, Sec. VI, Algorithms 4-5; N. Wang, Xiao, Yang,
Zhao, Hui, Shin, Shin, Yu, Collecting and Analyzing Multidimensional Data with Local Differential Privacy,
ICDE 2019, Sec. V; docs/systems.md "LDP-SGD").

Two ways for a respondent to report a gradient, both eps_l-LDP (replacement) per report:

* ``"sphere"`` -- Erlingsson et al. 2020 Algorithm 4 (Duchi, Jordan, Wainwright's l2 mechanism): clip the
  gradient to L2 norm L, round it to +-L x/||x||, send sgn(<z, v>) v for a uniform unit vector v,
  the sign flipped w.p. 1/(1 + e^eps). One sign bit plus a 128-bit PRG seed for v (129 bits).
  The server (Algorithm 5) rescales the mean of the unit vectors into an unbiased gradient.
* ``"pm"``, ``"hm"`` -- N. Wang et al. 2019, Sec. V: the gradient clipped elementwise to [-1, 1] and sent
  through Algorithm 4 of N. Wang et al. 2019 (k sampled coordinates through PM or HM at eps/k, scaled by
  p/k); baselines ``"duchi"`` (Duchi et al.'s p-dimensional mechanism at eps, the competitor of
  N. Wang et al. 2019 Sec. VI-B), ``"duchi-1d"`` and ``"laplace"`` (every coordinate at eps/p).
* ``"none"`` / ``"none-elementwise"`` -- the same loop with the L2- / elementwise-clipped
  gradients averaged exactly (non-private baselines; ``nonprivate_config`` picks the one that
  matches a config's mechanism, ``train_nonprivate`` trains it).

Training (``train``): disjoint batches, every respondent in ONE iteration per epoch (N. Wang et al. 2019
Sec. V), learning rate lr/sqrt(t), the server adds the lambda theta of the L2 term (lambda =
1e-4) and optionally projects onto an L2 ball (Proj_C of Algorithm 5).

Accounting (``sgd_accounting``, ``sgd_eps_l_for``). Algorithm 5 as printed is full batch: each
iteration is one epoch in which all n respondents report, the shuffler mixes all n reports and
Theorem VI.1 amplifies over n. The paper's experiments (Sec. VII-C) use mini-batches instead
and amplify at the batch size m ("for privacy amplification by shuffling and sampling, we
consider batch size to be m"). We implement mini-batches with disjoint batches, so:

1. every batch is its own shuffle (its reports are computed at a different model and released
   at a different time, so the analyzer knows which batch a report belongs to; the anonymity
   set is the batch, NOT all n): per-epoch eps_c = the amplification bound at the smallest
   batch size n_b, with the bound's delta_epoch;
2. within an epoch the batches are disjoint and chosen independently of the data, so a
   respondent affects one batch and the later ones only through the model (post-processing):
   parallel composition, the epoch costs what one batch costs;
3. over the k epochs: basic composition (k eps, k delta_epoch) and Theorem II.7's advanced
   composition (k eps^2/2 + sqrt(k) eps sqrt(2 ln(sqrt(k pi/2) eps/delta')), delta' + k
   delta_epoch); both are reported and the smaller eps_c is the guarantee.

With batch_size = n this is exactly Algorithm 5 with amplification over all n. Locally, each
respondent sends one report per epoch: eps_l per epoch = eps_l per report, k eps_l over the k
epochs (basic composition). The paper's "report fragmenting" trick (tau reports per
respondent to simulate larger batches) is not implemented: it is a simulation device whose
accounting the paper itself treats as that of a larger batch.

Data. The paper's data sets (MNIST, Fashion-MNIST, CIFAR-10 in Erlingsson et al. 2020; IPUMS census in
N. Wang et al. 2019) are not available offline, so their numbers are not reproduced here:
``make_classification`` draws seeded synthetic Gaussian-mixture data with a known linear rule
(two classes for logistic regression / linear SVM / least squares, K classes for softmax).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

import numpy as np
from scipy.special import expit, gammaln, logsumexp, ndtr

from ldpcore.errors import InputError, check_delta, check_eps, check_whole, require
from ldpcore.privacy.bounds import Amplification, Bound, BoundName, get_bound
from ldpcore.privacy.composition import Composition, advanced_composition, advanced_inverse, basic_composition
from ldpcore.privacy.guarantee import Neighbouring
from ldpcore.systems.numeric.mechanisms import duchi_randomize, duchi_variance, laplace_randomize, laplace_variance
from ldpcore.systems.numeric.multidim import (
    algorithm4_randomize,
    algorithm4_variance,
    duchi_md_randomize,
    duchi_md_variance,
)

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


def _check_rng(rng) -> np.random.Generator:
    require(
        isinstance(rng, np.random.Generator), "rng must be a numpy.random.Generator (e.g. np.random.default_rng(seed))."
    )
    return rng


def _grads(grads) -> np.ndarray:
    g = np.asarray(grads, dtype=np.float64)
    require(
        g.ndim == 2 and g.shape[0] >= 1 and g.shape[1] >= 1,
        f"gradients must form an (n, p) array with n, p >= 1 (got shape {g.shape}).",
    )
    require(bool(np.all(np.isfinite(g))), "gradients must be finite numbers (found NaN or infinity).")
    return g


# --- data -------------------------------------------------------------------------------


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
    rng = _check_rng(rng)
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


# --- losses -----------------------------------------------------------------------------

# Every loss is written on the scores s = x.theta (the (n, K) logits for softmax), so that one
# matrix product per data set serves the value, the gradient and the prediction.


def _logistic_value(s, y):
    return np.logaddexp(0.0, -(y * s))


def _logistic_grad(s, X, y):
    return -(y * expit(-(y * s)))[:, None] * X


def _hinge_value(s, y):
    return np.maximum(0.0, 1 - y * s)


def _hinge_grad(s, X, y):
    return -(y * (y * s < 1))[:, None] * X


def _squared_value(s, y):
    return (s - y) ** 2


def _squared_grad(s, X, y):
    return (2 * (s - y))[:, None] * X


def _binary_predict(s):
    return np.where(s >= 0, 1, -1)


def _softmax_value(z, y):
    return logsumexp(z, axis=1) - z[np.arange(len(y)), y]


def _softmax_grad(z, X, y):
    r = np.exp(z - logsumexp(z, axis=1, keepdims=True))
    r[np.arange(len(y)), y] -= 1
    return (X[:, :, None] * r[:, None, :]).reshape(len(y), -1)


def _softmax_predict(z):
    return np.argmax(z, axis=1)


@dataclass(frozen=True)
class Loss:
    """A per-example loss l(theta; x, y) (N. Wang et al. 2019 Sec. V), on the scores s = scores(theta, X, k):
    value(s, y) (n,), grad(s, X, y) (n, n_params), predict(s) the labels. theta is flat (p*K
    for softmax, column k = class k)."""

    name: str
    title: str
    multiclass: bool
    value: Callable
    grad: Callable
    predict: Callable

    def scores(self, theta: np.ndarray, X: np.ndarray, k: int) -> np.ndarray:
        """x.theta per example (n,), or the (n, k) logits for softmax."""
        return X @ theta.reshape(X.shape[1], k) if self.multiclass else X @ theta

    def n_params(self, p: int, classes: int) -> int:
        return p * classes if self.multiclass else p


LOSSES: dict[str, Loss] = {
    l.name: l
    for l in (
        Loss(
            "logistic",
            "logistic regression, log(1 + exp(-y x.theta))",
            False,
            _logistic_value,
            _logistic_grad,
            _binary_predict,
        ),
        Loss("hinge", "linear SVM, max(0, 1 - y x.theta)", False, _hinge_value, _hinge_grad, _binary_predict),
        Loss("squared", "least squares, (x.theta - y)^2", False, _squared_value, _squared_grad, _binary_predict),
        Loss(
            "softmax",
            "multinomial logistic regression (K classes)",
            True,
            _softmax_value,
            _softmax_grad,
            _softmax_predict,
        ),
    )
}


def get_loss(name: str) -> Loss:
    require(name in LOSSES, f"unknown loss {name!r}; choose one of {', '.join(LOSSES)}.")
    return LOSSES[name]


def _check_loss_data(loss: Loss, data: Dataset) -> None:
    if loss.multiclass:
        require(
            data.classes >= 2 and data.y_train.min() >= 0,
            "the softmax loss needs labels 0..K-1 (make_classification with classes >= 3).",
        )
    else:
        require(
            data.classes == 2,
            f"the {loss.name} loss needs two classes (labels +-1); use loss='softmax' for {data.classes} classes.",
        )


# --- clipping ---------------------------------------------------------------------------


def clip_l2(grads, bound: float) -> np.ndarray:
    """Each row times min(1, bound/||row||_2) (Erlingsson et al. 2020 Algorithm 4, step 1)."""
    g, bound = _grads(grads), check_eps(bound, "clip (L2 norm L)")
    norms = np.linalg.norm(g, axis=1)
    return g * np.minimum(1.0, bound / np.maximum(norms, 1e-300))[:, None]


def clip_elementwise(grads, bound: float = 1.0) -> np.ndarray:
    """Every entry clipped to [-bound, bound] (N. Wang et al. 2019 Sec. V uses bound = 1)."""
    g, bound = _grads(grads), check_eps(bound, "clip (elementwise bound)")
    return np.clip(g, -bound, bound)


# --- Erlingsson et al. 2020 Algorithms 4 and 5: the sphere (l2) mechanism -----------------------------


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
    g, eps, rng = _grads(grads), check_eps(eps, "eps"), _check_rng(rng)
    x = clip_l2(g, L)
    v = _unit_vectors(rng.standard_normal(x.shape))
    return _sphere_signs(x, v, eps, float(L), rng)[:, None] * v


def sphere_estimate(reports, eps: float, L: float = 1.0, printed: bool = False) -> np.ndarray:
    """Erlingsson et al. 2020 Algorithm 5, step 5: scale * mean(z_hat) (unbiased unless printed=True)."""
    r = _grads(reports)
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
    g, eps, rng = _grads(grads), check_eps(eps, "eps"), _check_rng(rng)
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


# --- N. Wang et al. 2019 Sec. V: elementwise clipping, Algorithm 4 (PM / HM) and baselines ----------


def _check_mechanism(mechanism: str, allowed: tuple[str, ...] = ELEMENTWISE_MECHANISMS) -> None:
    require(mechanism in allowed, f"unknown gradient mechanism {mechanism!r}; choose one of {', '.join(allowed)}.")


def elementwise_randomize(grads, eps: float, rng: np.random.Generator, mechanism: str = "pm") -> np.ndarray:
    """Clip each entry to [-1, 1], then one eps-LDP report per row: "pm"/"hm" = N. Wang et al. 2019
    Algorithm 4 (k coordinates at eps/k, scaled by p/k); "duchi" = Duchi et al.'s p-dim
    mechanism at eps; "duchi-1d" / "laplace" = every coordinate at eps/p."""
    _check_mechanism(mechanism)
    t, eps, rng = clip_elementwise(grads, 1.0), check_eps(eps, "eps"), _check_rng(rng)
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
    _check_mechanism(mechanism)
    t, eps = clip_elementwise(grads, 1.0), check_eps(eps, "eps")
    p = t.shape[1]
    if mechanism in ("pm", "hm"):
        return np.asarray(algorithm4_variance(t, eps, p, mechanism))
    if mechanism == "duchi":
        return np.asarray(duchi_md_variance(t, eps, p))
    if mechanism == "duchi-1d":
        return np.asarray(duchi_variance(t, eps / p))
    return np.asarray(laplace_variance(t, eps / p))


def private_mean_gradient(
    grads, mechanism: str, eps: float | None, rng: np.random.Generator, clip: float = 1.0
) -> np.ndarray:
    """The server's unbiased estimate of the mean clipped gradient of one batch.

    "sphere": L2 clip to ``clip`` + Erlingsson et al. 2020 Algorithms 4-5; elementwise mechanisms: entries
    clipped to [-1, 1] (``clip`` unused) + the mean of the reports; "none" / "none-elementwise":
    the exact mean of the L2- / elementwise-clipped gradients (non-private baselines)."""
    g = _grads(grads)
    if mechanism == NONPRIVATE:
        return clip_l2(g, clip).mean(axis=0)
    if mechanism == NONPRIVATE_ELEMENTWISE:
        return clip_elementwise(g, 1.0).mean(axis=0)
    if eps is None:
        raise InputError(f"eps (local eps per report) is required for mechanism {mechanism!r}.")
    if mechanism == SPHERE:
        return sphere_estimate(sphere_randomize(g, eps, clip, rng), eps, clip)
    return elementwise_randomize(g, eps, rng, mechanism).mean(axis=0)


# --- how many respondents LDP learning needs ---------------------------------------------


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
    _check_mechanism(mechanism, GRADIENT_MECHANISMS)
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


# --- accounting for a training run -------------------------------------------------------


@dataclass(frozen=True)
class SGDAccounting:
    """Privacy of LDP-SGD with disjoint shuffled batches (see the module docstring).

    eps_l: local eps of one report = of one epoch (one report per respondent per epoch);
    eps_l_total: k eps_l over the k epochs (basic composition). per_epoch: the amplification
    bound at the batch size (eps_c of one epoch, delta_epoch). basic / advanced: its
    composition over the epochs; eps_c, delta_c: the smaller of the two and its delta
    (rule says which). From sgd_eps_l_for: target_eps_c, and capped True when the bound's
    validity region ends below the target (eps_c is then smaller than asked). Central and
    local guarantees are replacement-DP (the bound's neighbouring notion). valid False (with
    reason) if the bound certifies nothing here.
    """

    eps_l: float
    eps_l_total: float
    epochs: int
    batch_size: int
    bound: str
    neighbouring: Neighbouring
    delta: float
    delta_epoch: float
    delta_prime: float
    per_epoch: Amplification
    basic: Composition | None
    advanced: Composition | None
    eps_c: float | None
    delta_c: float | None
    rule: str
    valid: bool = True
    reason: str = ""
    target_eps_c: float | None = None
    capped: bool = False

    @property
    def eps_l_epoch(self) -> float:
        """Local eps of one epoch: eps_l (one report per respondent per epoch)."""
        return self.eps_l

    def as_dict(self) -> dict:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["per_epoch"] = self.per_epoch.as_dict() if hasattr(self.per_epoch, "as_dict") else None
        d["basic"] = asdict(self.basic) if self.basic else None
        d["advanced"] = asdict(self.advanced) if self.advanced else None
        return d

    def by_epoch(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(e, basic eps_c, advanced eps_c) after e = 1..epochs epochs: the per-epoch guarantee
        composed e times (deltas e delta_epoch and delta' + e delta_epoch; advanced is NaN where
        Theorem II.7 is undefined). Requires a valid accounting."""
        step, d = self.per_epoch.eps_c, self.delta_epoch
        if not self.valid or step is None:
            raise InputError(f"no central guarantee to compose: {self.reason}")
        e = np.arange(1, self.epochs + 1)
        advanced = [advanced_composition(step, d, int(k), self.delta_prime) for k in e]
        return e, e * step, np.array([a.eps if a.valid else np.nan for a in advanced])

    def summary(self) -> str:
        if math.isnan(self.eps_l):
            return f"no eps_l certifies eps_c = {self.target_eps_c:g} over {self.epochs} epoch(s): {self.reason}"
        local = (
            f"eps_l = {self.eps_l:.4g} per report and per epoch, {self.eps_l_total:.4g} over "
            f"{self.epochs} epoch(s) (basic composition, {self.neighbouring})"
        )
        if not self.valid or self.basic is None:
            return f"{local}; no central guarantee: {self.reason}"
        parts = [f"basic {self.basic.eps:.4g}"]
        if self.advanced is not None and self.advanced.valid:
            parts.append(f"advanced {self.advanced.eps:.4g}")
        capped = (
            (f" The bound's largest valid eps_l is used; it certifies less than the target {self.target_eps_c:g}.")
            if self.capped
            else ""
        )
        return (
            f"{local}; per epoch eps_c = {self.per_epoch.eps_c:.4g} ({self.bound}, shuffles of "
            f"{self.batch_size:,}, delta {self.delta_epoch:.3g}); over {self.epochs} epoch(s): "
            f"{', '.join(parts)} -> eps_c = {self.eps_c:.4g} at delta = {self.delta_c:.3g} ({self.rule}).{capped}"
        )


def _deltas(delta: float, epochs: int, delta_split: float) -> tuple[float, float]:
    require(0 < delta_split < 1, f"delta_split must lie strictly between 0 and 1 (got {delta_split:g}).")
    return delta * (1 - delta_split) / epochs, delta * delta_split


def _setting(batch_size, epochs, delta, bound: str, delta_split) -> tuple[Bound, dict]:
    """The checked inputs of both directions: the bound, and the SGDAccounting fields that do not depend on eps_l."""
    batch_size, epochs = check_whole(batch_size, 1, "batch_size"), check_whole(epochs, 1, "epochs")
    delta = check_delta(delta)
    delta_epoch, delta_prime = _deltas(delta, epochs, float(delta_split))
    b = get_bound(bound)
    return b, dict(
        epochs=epochs,
        batch_size=batch_size,
        bound=b.name,
        neighbouring=b.neighbouring,
        delta=delta,
        delta_epoch=delta_epoch,
        delta_prime=delta_prime,
    )


def _accounting(eps_l: float, amp: Amplification, setting: dict, **extra) -> SGDAccounting:
    """The SGDAccounting of eps_l per report with per-epoch amplification amp, composed over the epochs."""
    epochs, delta_epoch = setting["epochs"], setting["delta_epoch"]
    common = dict(setting, eps_l=eps_l, eps_l_total=epochs * eps_l, per_epoch=amp, **extra)
    step = amp.eps_c
    if not amp.valid or step is None:
        return SGDAccounting(
            **common, basic=None, advanced=None, eps_c=None, delta_c=None, rule="", valid=False, reason=amp.reason
        )
    basic = basic_composition(step, delta_epoch, epochs)
    adv = advanced_composition(step, delta_epoch, epochs, setting["delta_prime"])
    best = adv if adv.eps is not None and basic.eps is not None and adv.eps < basic.eps else basic
    return SGDAccounting(
        **common,
        basic=basic,
        advanced=adv,
        eps_c=best.eps,
        delta_c=best.delta,
        rule="advanced (Theorem II.7)" if best is adv else "basic",
    )


def sgd_accounting(
    eps_l: float, batch_size: int, epochs: int, delta: float, bound: str = DEFAULT_BOUND, delta_split: float = 0.5
) -> SGDAccounting:
    """Forward: eps_l per report -> central (eps_c, delta) after ``epochs`` epochs of shuffled
    batches of at least ``batch_size`` reports. The total delta is split: delta' =
    delta_split * delta for Theorem II.7, delta_epoch = (1 - delta_split) delta/epochs for the
    amplification bound (so basic composition ends at (1 - delta_split) delta, advanced at delta)."""
    eps_l = check_eps(eps_l, "eps_l")
    b, setting = _setting(batch_size, epochs, delta, bound, delta_split)
    return _accounting(eps_l, b.forward(eps_l, setting["batch_size"], setting["delta_epoch"]), setting)


def sgd_eps_l_for(
    eps_c: float, batch_size: int, epochs: int, delta: float, bound: str = DEFAULT_BOUND, delta_split: float = 0.5
) -> SGDAccounting:
    """Inverse: the largest eps_l per report whose accounting (sgd_accounting) certifies
    eps_c over ``epochs`` epochs: per-epoch target = the largest eps with min(basic, advanced)
    <= eps_c, then the bound's inverse at the batch size. valid False with the bound's reason
    when it cannot certify the target (e.g. batches too small)."""
    eps_c = check_eps(eps_c, "eps_c")
    b, setting = _setting(batch_size, epochs, delta, bound, delta_split)
    batch_size, epochs, delta_epoch = setting["batch_size"], setting["epochs"], setting["delta_epoch"]
    # the largest per-epoch eps either rule maps to <= eps_c, a hair lower against rounding
    per_epoch = max(eps_c / epochs, advanced_inverse(eps_c, epochs, setting["delta_prime"])) * (1 - 1e-12)
    amp = b.inverse(per_epoch, batch_size, delta_epoch)
    eps0 = amp.eps0
    if not amp.valid or eps0 is None:
        return _accounting(math.nan, amp, setting, target_eps_c=eps_c)
    certified = amp if amp.note else b.forward(eps0, batch_size, delta_epoch)  # trivial: eps0 = eps_c itself
    result = _accounting(eps0, certified, setting, target_eps_c=eps_c, capped=amp.capped)
    require(
        result.valid and result.eps_c is not None and result.eps_c <= eps_c,
        f"could not certify eps_c={eps_c:g} (accountant rounding).",
    )
    return result


def smallest_batch(n: int, batch_size: int | None) -> int:
    """The smallest of the n // batch_size disjoint batches train() forms (sizes differ by at
    most one): n // (n // batch_size) >= batch_size; n for a full batch (None). The accounting
    amplifies at this size."""
    n = check_whole(n, 1, "n (respondents)")
    if batch_size is None:
        return n
    batch_size = check_whole(batch_size, 1, "batch_size")
    require(batch_size <= n, f"batch_size must be at most n={n:,} (got {batch_size:,}).")
    return n // (n // batch_size)


def calibrate(config: SGDConfig, n: int, eps_c: float) -> tuple[SGDConfig, SGDAccounting]:
    """config with eps = the largest eps_l per report whose accounting over config.epochs epochs
    of n respondents in config.batch_size batches certifies eps_c (sgd_eps_l_for at the
    smallest batch), and that accounting; InputError with the bound's reason if none does."""
    require(config.mechanism not in NONPRIVATE_MECHANISMS, "a non-private baseline has no eps to calibrate.")
    acc = sgd_eps_l_for(
        eps_c, smallest_batch(n, config.batch_size), config.epochs, config.delta, config.bound, config.delta_split
    )
    require(acc.valid, acc.summary() + ".")
    return replace(config, eps=acc.eps_l), acc


# --- training ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SGDConfig:
    """A serialisable training spec.

    mechanism: "sphere" (Erlingsson et al. 2020), "pm", "hm", "duchi", "duchi-1d", "laplace" (N. Wang et al. 2019),
    "none" or "none-elementwise" (non-private baselines). eps: eps_l per report (= per epoch). batch_size: respondents
    per iteration (disjoint batches; None = all n, i.e. Algorithm 5's full batch). lr: the step
    is lr/sqrt(t) at iteration t (global count). lam: the server's L2 term lambda theta.
    clip: L2 norm L for "sphere" and "none" (elementwise mechanisms always clip to [-1, 1]).
    radius: Proj_C onto the L2 ball of this radius (None: no projection). delta, bound,
    delta_split: the accounting (sgd_accounting).
    """

    mechanism: str = SPHERE
    eps: float | None = 2.0
    loss: str = "logistic"
    epochs: int = 1
    batch_size: int | None = 1000
    lr: float = 1.0
    lam: float = LAMBDA
    clip: float = 1.0
    radius: float | None = None
    delta: float = 1e-6
    bound: str = DEFAULT_BOUND
    delta_split: float = 0.5

    def __post_init__(self):
        allowed = GRADIENT_MECHANISMS + NONPRIVATE_MECHANISMS
        require(self.mechanism in allowed, f"unknown mechanism {self.mechanism!r}; choose one of {', '.join(allowed)}.")
        private = self.mechanism not in NONPRIVATE_MECHANISMS
        if private:
            if self.eps is None:
                raise InputError(f"eps (local eps per report) is required for mechanism {self.mechanism!r}.")
            check_eps(self.eps, "eps")
        get_loss(self.loss)
        check_whole(self.epochs, 1, "epochs")
        if self.batch_size is not None:
            check_whole(self.batch_size, 1, "batch_size")
        check_eps(self.lr, "lr")
        require(
            math.isfinite(float(self.lam)) and float(self.lam) >= 0,
            f"lam must be a finite number >= 0 (got {self.lam}).",
        )
        check_eps(self.clip, "clip")
        if self.radius is not None:
            check_eps(self.radius, "radius")
        check_delta(self.delta)
        require(
            0 < float(self.delta_split) < 1, f"delta_split must lie strictly between 0 and 1 (got {self.delta_split})."
        )
        if private:
            get_bound(self.bound)  # raises InputError naming the choices

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, eq=False)
class TrainResult:
    """One training run. test_accuracy / test_loss: the model after iteration curve_iterations[i]
    (0: the initial model, theta = 0): every iteration up to MAX_CURVE_POINTS of them, else evenly
    spaced ones with every epoch's end and the last (curve_iterations). epoch_*: after each epoch
    (train_loss is the mean unregularised loss over the n respondents). batch_size: the
    smallest batch (smallest_batch). accounting: None for the non-private baseline. warning:
    sample_size_warning's sentence or "".
    """

    config: SGDConfig
    theta: np.ndarray
    iterations: int
    batches_per_epoch: int
    batch_size: int
    test_accuracy: np.ndarray
    test_loss: np.ndarray
    epoch_train_loss: np.ndarray
    accounting: SGDAccounting | None
    warning: str
    bits_per_report: float | None = None
    curve_iterations: np.ndarray | None = None  # None: every iteration 0 .. iterations

    @property
    def final_accuracy(self) -> float:
        return float(self.test_accuracy[-1])

    @property
    def curve_x(self) -> np.ndarray:
        """The iteration of each point of the test curves."""
        return np.arange(self.iterations + 1) if self.curve_iterations is None else self.curve_iterations

    @property
    def epoch_ends(self) -> np.ndarray:
        """The iteration that ends each epoch."""
        return np.arange(self.batches_per_epoch, self.iterations + 1, self.batches_per_epoch)

    @property
    def _epoch_points(self) -> np.ndarray:
        return np.searchsorted(self.curve_x, self.epoch_ends)

    @property
    def epoch_test_accuracy(self) -> np.ndarray:
        return self.test_accuracy[self._epoch_points]

    @property
    def epoch_test_loss(self) -> np.ndarray:
        return self.test_loss[self._epoch_points]


def _bits_per_report(mechanism: str, p: int) -> float | None:
    if mechanism == SPHERE:
        return float(REPORT_BITS_SPHERE)
    if mechanism == "duchi":
        return float(p)  # one sign per coordinate
    return None  # real-valued reports


EVAL_BLOCK_BYTES = 8 * 2**20  # scores of the iterates evaluated at once on the test set
# iterates evaluated on the test set at most (besides the epochs' ends): evaluating all of them cost twice the
# training itself at n = 200,000 (1,000 iterations x 50,000 test points), for a chart this many points draw as well
MAX_CURVE_POINTS = 250


def curve_iterations(total: int, per_epoch: int) -> np.ndarray | None:
    """The iterations whose iterate the test curves evaluate: None (all of 0 .. total) up to
    MAX_CURVE_POINTS, else every ceil(total / MAX_CURVE_POINTS)-th, every epoch's end and the last."""
    if total + 1 <= MAX_CURVE_POINTS:
        return None
    stride = -(-total // MAX_CURVE_POINTS)
    return np.union1d(np.arange(0, total + 1, stride), np.arange(per_epoch, total + 1, per_epoch))


def _test_curves(loss: Loss, thetas: np.ndarray, Xt: np.ndarray, yt: np.ndarray, k: int):
    """Test accuracy and mean test loss of every iterate (rows of thetas): the scores of a block of
    iterates in one matrix product (each column (or slice, for softmax) is loss.scores of one iterate)."""
    steps = len(thetas)
    acc, tl = np.empty(steps), np.empty(steps)
    block = max(1, EVAL_BLOCK_BYTES // (8 * len(yt) * k))
    for lo in range(0, steps, block):
        th = thetas[lo : lo + block]
        if loss.multiclass:
            scores = np.einsum("np,bpk->bnk", Xt, th.reshape(len(th), Xt.shape[1], k))
            for i, s in enumerate(scores):
                acc[lo + i], tl[lo + i] = np.mean(loss.predict(s) == yt), np.mean(loss.value(s, yt))
        else:
            scores = Xt @ th.T  # (n_test, block)
            acc[lo : lo + len(th)] = np.mean(loss.predict(scores) == yt[:, None], axis=0)
            tl[lo : lo + len(th)] = np.mean(loss.value(scores, yt[:, None]), axis=0)
    return acc, tl


def train(
    data: Dataset, config: SGDConfig, rng: np.random.Generator, progress: ProgressFn | None = None
) -> TrainResult:
    """LDP-SGD on ``data`` (deterministic given rng's state).

    Each epoch shuffles the n respondents (rng.permutation) into n // batch_size disjoint
    batches (sizes differ by at most one), so everyone reports once per epoch. Iteration t:
    gradients of the loss at theta on the batch -> private_mean_gradient -> + lam theta ->
    theta -= lr/sqrt(t) * g -> projection onto the radius ball. progress(done, total) is called
    after every iteration.
    """
    require(isinstance(data, Dataset), "data must be a Dataset (see make_classification).")
    require(isinstance(config, SGDConfig), "config must be an SGDConfig.")
    rng = _check_rng(rng)
    require(progress is None or callable(progress), "progress must be a callable progress(done, total) or None.")
    loss = get_loss(config.loss)
    _check_loss_data(loss, data)
    n, p = data.n, data.p
    size = smallest_batch(n, config.batch_size)
    m = n // size  # batches per epoch
    total = config.epochs * m
    k = data.classes if loss.multiclass else 1
    d = loss.n_params(p, k)
    private = config.mechanism not in NONPRIVATE_MECHANISMS

    theta = np.zeros(d)
    X, y, Xt, yt = data.X_train, data.y_train, data.X_test, data.y_test

    points = curve_iterations(total, m)
    keep = np.ones(total + 1, dtype=bool) if points is None else np.isin(np.arange(total + 1), points)
    thetas = np.empty((int(keep.sum()), d))  # the iterates the test curves evaluate, after training
    thetas[0] = theta
    kept = 1
    e_tr = np.empty(config.epochs)
    t = 0
    for epoch in range(config.epochs):
        for idx in np.array_split(rng.permutation(n), m):
            t += 1
            Xb = X[idx]
            g = private_mean_gradient(
                loss.grad(loss.scores(theta, Xb, k), Xb, y[idx]), config.mechanism, config.eps, rng, config.clip
            )
            theta = theta - config.lr / math.sqrt(t) * (g + config.lam * theta)
            if config.radius is not None:
                norm = np.linalg.norm(theta)
                if norm > config.radius:
                    theta *= config.radius / norm
            if keep[t]:
                thetas[kept] = theta
                kept += 1
            if progress is not None:
                progress(t, total)
        e_tr[epoch] = float(np.mean(loss.value(loss.scores(theta, X, k), y)))
    acc, tl = _test_curves(loss, thetas, Xt, yt, k)

    accounting = None
    warning = ""
    if private and config.eps is not None:  # a private config has its eps (SGDConfig)
        accounting = sgd_accounting(config.eps, size, config.epochs, config.delta, config.bound, config.delta_split)
        warning = sample_size_warning(n, d, config.eps, config.mechanism, size, config.clip)
    return TrainResult(
        config,
        theta,
        total,
        m,
        size,
        acc,
        tl,
        e_tr,
        accounting,
        warning,
        _bits_per_report(config.mechanism, d) if private else None,
        points,
    )


def nonprivate_config(config: SGDConfig) -> SGDConfig:
    """The non-private baseline of config: the same loop (batches, schedule, clipping, lam,
    projection) with "none" (L2 clipping) for "sphere", "none-elementwise" ([-1, 1] clipping)
    for N. Wang et al. 2019's mechanisms; eps None and the accounting fields at their defaults, so that
    configs differing only in privacy share one baseline."""
    elementwise = config.mechanism in ELEMENTWISE_MECHANISMS + (NONPRIVATE_ELEMENTWISE,)
    return replace(
        config,
        mechanism=NONPRIVATE_ELEMENTWISE if elementwise else NONPRIVATE,
        eps=None,
        delta=SGDConfig.delta,
        bound=SGDConfig.bound,
        delta_split=SGDConfig.delta_split,
    )


def train_nonprivate(
    data: Dataset, config: SGDConfig, rng: np.random.Generator, progress: ProgressFn | None = None
) -> TrainResult:
    """train() on nonprivate_config(config): the baseline without noise."""
    return train(data, nonprivate_config(config), rng, progress)


__all__ = [
    "DEFAULT_BOUND",
    "ELEMENTWISE_MECHANISMS",
    "GRADIENT_MECHANISMS",
    "LAMBDA",
    "LOSSES",
    "NONPRIVATE",
    "NONPRIVATE_ELEMENTWISE",
    "NONPRIVATE_MECHANISMS",
    "REPORT_BITS_SPHERE",
    "SPHERE",
    "Dataset",
    "Loss",
    "SGDAccounting",
    "SGDConfig",
    "TrainResult",
    "calibrate",
    "clip_elementwise",
    "clip_l2",
    "elementwise_randomize",
    "elementwise_variance",
    "get_loss",
    "make_classification",
    "min_batch_size",
    "nonprivate_config",
    "private_mean_gradient",
    "sample_size_warning",
    "sgd_accounting",
    "sgd_eps_l_for",
    "smallest_batch",
    "sphere_decode",
    "sphere_direction",
    "sphere_encode",
    "sphere_estimate",
    "sphere_randomize",
    "sphere_scale",
    "sphere_variance",
    "train",
    "train_nonprivate",
]
