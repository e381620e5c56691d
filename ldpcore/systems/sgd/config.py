"""A training run's serialisable spec (``SGDConfig``), its calibration to a central target and its
non-private baseline."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from ldpcore.errors import InputError, check_delta, check_eps, check_whole, require
from ldpcore.privacy.bounds import get_bound
from ldpcore.systems.sgd.accounting import SGDAccounting, sgd_eps_l_for, smallest_batch
from ldpcore.systems.sgd.common import (
    DEFAULT_BOUND,
    ELEMENTWISE_MECHANISMS,
    GRADIENT_MECHANISMS,
    LAMBDA,
    NONPRIVATE,
    NONPRIVATE_ELEMENTWISE,
    NONPRIVATE_MECHANISMS,
    SPHERE,
)
from ldpcore.systems.sgd.losses import get_loss


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
