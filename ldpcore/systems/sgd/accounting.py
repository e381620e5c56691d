"""Privacy of a training run (``sgd_accounting`` forward, ``sgd_eps_l_for`` inverse).

Algorithm 5 of Erlingsson et al. 2020 as printed is full batch: each iteration is one epoch in which
all n respondents report, the shuffler mixes all n reports and Theorem VI.1 amplifies over n. The
paper's experiments (Sec. VII-C) use mini-batches instead and amplify at the batch size m ("for privacy
amplification by shuffling and sampling, we consider batch size to be m"). We implement mini-batches
with disjoint batches, so:

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
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from ldpcore.errors import InputError, check_delta, check_eps, check_whole, require
from ldpcore.privacy.bounds import Amplification, Bound, get_bound
from ldpcore.privacy.composition import Composition, advanced_composition, advanced_inverse, basic_composition
from ldpcore.privacy.guarantee import Neighbouring
from ldpcore.systems.sgd.common import DEFAULT_BOUND


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
