"""Training (``train``): disjoint batches, every respondent in ONE iteration per epoch (N. Wang et al.
2019 Sec. V), learning rate lr/sqrt(t), the server adds the lambda theta of the L2 term and optionally
projects onto an L2 ball (Proj_C of Erlingsson et al. 2020 Algorithm 5); the test curves of the iterates."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ldpcore.errors import InputError, require
from ldpcore.systems.sgd.accounting import SGDAccounting, sgd_accounting, smallest_batch
from ldpcore.systems.sgd.clipping import clip_elementwise, clip_l2
from ldpcore.systems.sgd.common import (
    NONPRIVATE,
    NONPRIVATE_ELEMENTWISE,
    NONPRIVATE_MECHANISMS,
    SPHERE,
    ProgressFn,
    bits_per_report,
    check_grads,
    check_rng,
)
from ldpcore.systems.sgd.config import SGDConfig, nonprivate_config
from ldpcore.systems.sgd.data import Dataset
from ldpcore.systems.sgd.elementwise import elementwise_randomize
from ldpcore.systems.sgd.losses import Loss, check_loss_data, get_loss
from ldpcore.systems.sgd.sample_size import sample_size_warning
from ldpcore.systems.sgd.sphere import sphere_estimate, sphere_randomize


def private_mean_gradient(
    grads, mechanism: str, eps: float | None, rng: np.random.Generator, clip: float = 1.0
) -> np.ndarray:
    """The server's unbiased estimate of the mean clipped gradient of one batch.

    "sphere": L2 clip to ``clip`` + Erlingsson et al. 2020 Algorithms 4-5; elementwise mechanisms: entries
    clipped to [-1, 1] (``clip`` unused) + the mean of the reports; "none" / "none-elementwise":
    the exact mean of the L2- / elementwise-clipped gradients (non-private baselines)."""
    g = check_grads(grads)
    if mechanism == NONPRIVATE:
        return clip_l2(g, clip).mean(axis=0)
    if mechanism == NONPRIVATE_ELEMENTWISE:
        return clip_elementwise(g, 1.0).mean(axis=0)
    if eps is None:
        raise InputError(f"eps (local eps per report) is required for mechanism {mechanism!r}.")
    if mechanism == SPHERE:
        return sphere_estimate(sphere_randomize(g, eps, clip, rng), eps, clip)
    return elementwise_randomize(g, eps, rng, mechanism).mean(axis=0)


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
    rng = check_rng(rng)
    require(progress is None or callable(progress), "progress must be a callable progress(done, total) or None.")
    loss = get_loss(config.loss)
    check_loss_data(loss, data)
    n = data.n
    size = smallest_batch(n, config.batch_size)
    m = n // size  # batches per epoch
    total = config.epochs * m
    k = data.classes if loss.multiclass else 1
    d = loss.n_params(data.p, k)
    private = config.mechanism not in NONPRIVATE_MECHANISMS

    points = curve_iterations(total, m)
    theta, thetas, e_tr = _descend(data, config, loss, k, m, points, rng, progress)
    acc, tl = _test_curves(loss, thetas, data.X_test, data.y_test, k)

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
        bits_per_report(config.mechanism, d) if private else None,
        points,
    )


def _descend(
    data: Dataset,
    config: SGDConfig,
    loss: Loss,
    k: int,
    m: int,
    points: np.ndarray | None,
    rng: np.random.Generator,
    progress: ProgressFn | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """train()'s loop over config.epochs epochs of m batches: (the final theta, the iterates at the
    iterations points (every one for None), the mean training loss after each epoch)."""
    n, total = data.n, config.epochs * m
    X, y = data.X_train, data.y_train
    theta = np.zeros(loss.n_params(data.p, k))
    keep = np.ones(total + 1, dtype=bool) if points is None else np.isin(np.arange(total + 1), points)
    thetas = np.empty((int(keep.sum()), theta.size))  # the iterates the test curves evaluate, after training
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
    return theta, thetas, e_tr


def train_nonprivate(
    data: Dataset, config: SGDConfig, rng: np.random.Generator, progress: ProgressFn | None = None
) -> TrainResult:
    """train() on nonprivate_config(config): the baseline without noise."""
    return train(data, nonprivate_config(config), rng, progress)
