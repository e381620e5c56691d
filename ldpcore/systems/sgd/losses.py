"""Per-example losses of LDP-SGD (N. Wang et al. 2019 Sec. V): logistic, hinge, squared and softmax,
each with its value, gradient and prediction."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logsumexp

from ldpcore.errors import require
from ldpcore.systems.sgd.data import Dataset

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


def check_loss_data(loss: Loss, data: Dataset) -> None:
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
