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

common       the mechanisms by name and their report bits, the defaults, the checks of inputs
data         seeded synthetic classification data (make_classification)
losses       logistic, hinge, squared and softmax losses on the scores x.theta
clipping     L2 and elementwise clipping
sphere       Algorithms 4 and 5 of Erlingsson et al. 2020, and their 129-bit PRG client
elementwise  N. Wang et al. 2019's Algorithm 4 (PM / HM) and the baselines
sample_size  how many respondents LDP learning needs (min_batch_size, sample_size_warning)
accounting   the central guarantee of a run: disjoint shuffled batches, composed over epochs
config       SGDConfig, its calibration to a central target and its non-private baseline
training     train(): the loop, the test curves, TrainResult
Every public name is importable from ldpcore.systems.sgd.
"""

from ldpcore.systems.sgd.accounting import SGDAccounting, sgd_accounting, sgd_eps_l_for, smallest_batch
from ldpcore.systems.sgd.clipping import clip_elementwise, clip_l2
from ldpcore.systems.sgd.common import (
    DEFAULT_BOUND,
    ELEMENTWISE_MECHANISMS,
    EXPLANATION,
    GRADIENT_MECHANISMS,
    LAMBDA,
    MECHANISM_HELP,
    NONPRIVATE,
    NONPRIVATE_ELEMENTWISE,
    NONPRIVATE_MECHANISMS,
    REPORT_BITS_SPHERE,
    SPHERE,
    ProgressFn,
)
from ldpcore.systems.sgd.config import SGDConfig, calibrate, nonprivate_config
from ldpcore.systems.sgd.data import Dataset, make_classification
from ldpcore.systems.sgd.elementwise import elementwise_randomize, elementwise_variance
from ldpcore.systems.sgd.losses import LOSSES, Loss, get_loss
from ldpcore.systems.sgd.sample_size import min_batch_size, sample_size_warning
from ldpcore.systems.sgd.sphere import (
    sphere_decode,
    sphere_direction,
    sphere_encode,
    sphere_estimate,
    sphere_randomize,
    sphere_scale,
    sphere_variance,
)
from ldpcore.systems.sgd.training import (
    EVAL_BLOCK_BYTES,
    MAX_CURVE_POINTS,
    TrainResult,
    curve_iterations,
    private_mean_gradient,
    train,
    train_nonprivate,
)

__all__ = [
    "DEFAULT_BOUND",
    "ELEMENTWISE_MECHANISMS",
    "EVAL_BLOCK_BYTES",
    "EXPLANATION",
    "GRADIENT_MECHANISMS",
    "LAMBDA",
    "LOSSES",
    "MAX_CURVE_POINTS",
    "MECHANISM_HELP",
    "NONPRIVATE",
    "NONPRIVATE_ELEMENTWISE",
    "NONPRIVATE_MECHANISMS",
    "REPORT_BITS_SPHERE",
    "SPHERE",
    "Dataset",
    "Loss",
    "ProgressFn",
    "SGDAccounting",
    "SGDConfig",
    "TrainResult",
    "calibrate",
    "clip_elementwise",
    "clip_l2",
    "curve_iterations",
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
