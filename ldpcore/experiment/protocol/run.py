"""run(spec, histogram, seed) -> Result: plan, simulate, estimate, measure (and post-process).

The analyzer sees only shuffled aggregates, so the default simulation draws them
exactly (cost independent of n). ``per_respondent=True`` runs the reference
randomizer instead (O(n d) memory and time: small inputs only). ``postprocess=NAME``
also applies a post-processing method (ldpcore.experiment.protocol.postprocess) to the raw
estimate; the Result keeps both.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from ldpcore.data.histogram import Histogram
from ldpcore.errors import InputError, check_seed, require
from ldpcore.experiment.planning.shapes import groups_of
from ldpcore.experiment.protocol.metrics import analytic_rmse, error_metrics
from ldpcore.experiment.protocol.postprocess import METHODS, check_method, postprocess, why_not
from ldpcore.experiment.protocol.spec import Plan, ProtocolSpec, plan
from ldpcore.oracles import get_encoding
from ldpcore.oracles.base import prediction_limit, support_law
from ldpcore.oracles.laws import Unsupported
from ldpcore.oracles.limits import check_reference
from ldpcore.oracles.support import SupportLaw
from ldpcore.privacy.central import analytic_gaussian_sigma, gaussian_mechanism
from ldpcore.privacy.guarantee import Neighbouring
from ldpcore.privacy.notions import gaussian_on_notion

CENTRAL_LAW = Unsupported("the central Gaussian baseline adds Gaussian noise to the counts: it has no support counts")


@dataclass(frozen=True)
class Postprocessed:
    """An estimate post-processed by one method (ldpcore.experiment.protocol.postprocess.METHODS, by name) and its
    error metrics measured as it is: rmse, linf, tv (and psnr for images), no further clipping."""

    method: str
    estimate: np.ndarray
    metrics: dict

    @property
    def title(self) -> str:
        return METHODS[self.method].title

    def as_dict(self) -> dict:
        """The record's "postprocess" entry: the method, its title and citation, what its total is, its metrics."""
        m = METHODS[self.method]
        return {"method": m.name, "title": m.title, "citation": m.citation, "total": m.total or "free", **self.metrics}


def postprocessed(name: str, estimate: np.ndarray, hist: Histogram, law: SupportLaw | Unsupported) -> Postprocessed:
    """The raw estimate of a run on hist post-processed by the method of that name: the total is hist.n, the cap of
    clip and simplex the input maximum (as the clipped RMSE's), law the encoding's support law (mle, ibu)."""
    out = postprocess(name, estimate, hist.n, upper=hist.max_count, law=law)
    metrics = error_metrics(hist.counts, out, math.inf, hist.peak if hist.is_image else None)
    del metrics["rmse_raw"]  # the estimate is measured as it is: rmse is its RMSE
    return Postprocessed(name, out, metrics)


@dataclass(frozen=True)
class Result:
    """One run: the plan (privacy numbers), the raw (unbiased) estimate and its metrics (rmse after clipping to
    [0, input maximum], rmse_raw of the raw estimate), the seed and timing, and, where a post-processing method
    was asked for, the post-processed estimate with its own metrics (postprocessed; None otherwise)."""

    plan: Plan
    estimate: np.ndarray
    metrics: dict
    seed: int
    seconds: float
    histogram: Histogram
    postprocessed: Postprocessed | None = None

    @property
    def analytic_std(self) -> float:
        """The analytic rmse_raw: root of the mean over bins of each estimate's variance (an approximation
        where analytic_note says so)."""
        return analytic_rmse(self.plan.oracle(), self.plan.n, self.histogram.counts)

    @property
    def analytic_note(self) -> str:
        """What analytic_std is short of exact ("" when exact: the count sketch's median readout says why not), and
        why it does not predict this run's error where the encoding says so (ldpcore.oracles.base.prediction_limit)."""
        oracle, groups = self.plan.oracle(), groups_of(self.histogram.counts)
        limit = prediction_limit(oracle, groups.n, groups.values, groups.bins)
        return "; ".join(x for x in (oracle.variance_note, limit) if x)

    def as_dict(self) -> dict:
        """The run record: every privacy number, metric, the spec and the seed (JSON-ready)."""
        return {
            "input": self.histogram.name,
            **self.plan.as_dict(),
            **self.metrics,
            "analytic_rmse_raw": self.analytic_std,
            "analytic_rmse_raw_note": self.analytic_note,
            "seed": self.seed,
            "seconds": self.seconds,
            "spec": self.plan.spec.as_dict(),
            "shape": list(self.histogram.shape) if self.histogram.shape else None,
            "input_notes": list(self.histogram.notes),
        } | ({} if self.postprocessed is None else {"postprocess": self.postprocessed.as_dict()})


def respondents(counts: np.ndarray) -> np.ndarray:
    """One value per respondent (value j repeated c_j times)."""
    return np.repeat(np.arange(counts.size), counts)


def run(
    spec: ProtocolSpec, hist: Histogram, seed: int = 0, per_respondent: bool = False, postprocess: str | None = None
) -> Result:
    """Simulate the protocol on hist and measure its error; seeds are explicit. postprocess: a method's name
    (ldpcore.experiment.protocol.postprocess.METHODS) applied to the raw estimate as well (Result.postprocessed)."""
    start = time.perf_counter()
    seed = check_seed(seed)
    p = plan(spec, hist.n, hist.d)
    oracle = p.oracle()
    law = support_law(oracle, hist.n)
    if postprocess is not None:  # refused before the simulation
        reason = why_not(postprocess, law)
        require(not reason, reason + ".")
    rng = np.random.default_rng(seed)
    if per_respondent:
        check_reference(oracle, hist.n)  # before the n values are laid out
        aggregate = oracle.aggregate(oracle.randomize(respondents(hist.counts), rng))
    else:
        aggregate = oracle.sample_aggregate(hist.counts, rng)
    estimate = oracle.estimate(aggregate, hist.n)
    metrics = error_metrics(hist.counts, estimate, hist.max_count, hist.peak if hist.is_image else None)
    metrics["expected_messages"] = oracle.expected_messages()
    post = None if postprocess is None else postprocessed(postprocess, estimate, hist, law)
    return Result(p, estimate, metrics, seed, time.perf_counter() - start, hist, post)


@dataclass(frozen=True)
class CentralResult:
    """The no-LDP baseline: the Gaussian mechanism on the true counts."""

    eps_c: float
    delta: float
    sigma: float
    estimate: np.ndarray
    metrics: dict
    seed: int


def run_central(eps_c: float, delta: float, hist: Histogram, seed: int = 0) -> CentralResult:
    """Analytic-Gaussian baseline at the same (eps_c, delta), zero-out neighbours (one count removed)."""
    sigma, seed = analytic_gaussian_sigma(eps_c, delta), check_seed(seed)
    estimate = gaussian_mechanism(hist.counts, sigma, np.random.default_rng(seed))
    metrics = error_metrics(hist.counts, estimate, hist.max_count, hist.peak if hist.is_image else None)
    return CentralResult(eps_c, delta, sigma, estimate, metrics, seed)


@dataclass(frozen=True)
class Method:
    """A column of a sweep or report table: a protocol template at some eps_c, or (central)
    the analytic Gaussian mechanism at the template's delta, without LDP; postprocess: the name of a
    post-processing method whose estimate the column shows (None: the raw estimate, clipped where measured)."""

    label: str
    spec: ProtocolSpec
    central: bool = False
    postprocess: str | None = None

    def __post_init__(self):
        if self.postprocess is not None:
            check_method(self.postprocess)

    def at(self, eps_c: float) -> ProtocolSpec:
        return self.spec.at(eps_c)


def method_label(spec: ProtocolSpec) -> str:
    """A column title: the encoding (one-hot: its fragmentation) and, for sketches, that eps_c is not certified."""
    encoding = get_encoding(spec.encoding)
    if encoding.fragments:
        return "Attribute fragments" if spec.tau is None else f"Report fragments, tau={spec.tau}"
    return encoding.title + ("" if encoding.certified else " [eps_c not certified]")


def paper_methods(base: ProtocolSpec, taus=(4, 16, 256), central: bool = True, compare=()) -> list[Method]:
    """The columns of Erlingsson et al. 2020 Table IV: central Gaussian, attribute fragments, tau = 4/16/256
    (for another encoding: the central baseline and that encoding; taus apply to one-hot only),
    then each encoding named in compare with its default parameters and accountant."""
    encoding = get_encoding(base.encoding)
    specs = [replace(base, tau=None)] + ([replace(base, tau=t) for t in taus] if encoding.fragments else [])
    specs += [
        replace(base, encoding=name, tau=None, accountant=None, params=())
        for name in dict.fromkeys(compare)
        if name != base.encoding
    ]
    return ([Method("Central Gaussian (no LDP)", base, central=True)] if central else []) + [
        Method(method_label(s), s) for s in specs
    ]


def with_postprocessing(methods: list[Method], chosen) -> list[Method]:
    """The columns and, for each chosen post-processing (names of METHODS), every column again showing its
    estimate after it, labelled '<column> + <name>' (the central baseline too for the methods that need no law
    of the reports)."""
    extra = [
        replace(m, label=f"{m.label} + {name}", postprocess=name)
        for name in chosen
        for m in methods
        if not (m.central and METHODS[name].needs_law)
    ]
    return methods + extra


@dataclass(frozen=True)
class Measured:
    """One (method, eps_c) evaluation that ran: the estimate (None once left out: without_estimate) and its error
    metrics; privacy, the record of the privacy numbers (a table row, JSON-ready); for a protocol, plan is the
    typed Plan and analytic_rmse_raw (with analytic_rmse_raw_note) its analytic raw RMSE (None for the central
    baseline). postprocess: the method's post-processing (Method.postprocess); then the estimate is the
    post-processed one and metrics are its own (rmse, linf, tv, psnr: Postprocessed.metrics) with the raw
    estimate's rmse_raw kept."""

    method: str
    eps_c: float
    seed: int
    estimate: np.ndarray | None
    metrics: dict
    privacy: dict
    plan: Plan | None = None
    analytic_rmse_raw: float | None = None
    analytic_rmse_raw_note: str = ""
    postprocess: str | None = None

    error: ClassVar[None] = None  # what ran has no failure (Failed.error is the reason)


@dataclass(frozen=True)
class Failed:
    """One (method, eps_c) that is not defined (an InputError: the settings are refused), with the reason."""

    method: str
    eps_c: float
    seed: int
    reason: str

    @property
    def error(self) -> str:
        return self.reason


Cell = Measured | Failed  # a cell of a sweep or report table: a result, or a failure with its reason


def without_estimate(cell: Cell) -> Cell:
    """The cell without its estimate (a sweep's list need not hold every estimate at once); a Failed one as is."""
    return cell if isinstance(cell, Failed) else replace(cell, estimate=None)


def postprocess_cell(c: Cell, method: str | None, hist: Histogram) -> Cell:
    """The cell shown after a post-processing (method's name; None: as it is): its estimate post-processed, with
    that estimate's metrics and the raw estimate's rmse_raw (and messages) kept, or Failed with the reason where the
    encoding has no law for the method (the central baseline has no support counts)."""
    if method is None or isinstance(c, Failed) or c.estimate is None:
        return c
    law = CENTRAL_LAW if c.plan is None else support_law(c.plan.oracle(), hist.n)
    try:
        post = postprocessed(method, c.estimate, hist, law)
    except InputError as exc:
        return Failed(c.method, c.eps_c, c.seed, str(exc))
    kept = {k: c.metrics[k] for k in ("rmse_raw", "expected_messages") if k in c.metrics}
    return replace(c, estimate=post.estimate, metrics={**post.metrics, **kept}, postprocess=method)


def evaluate(method: Method, eps_c: float, hist: Histogram, seed: int = 0) -> Cell:
    """Run one method at eps_c: Measured (after the method's post-processing, postprocess_cell), or Failed with the
    reason where the combination is undefined."""
    try:
        if method.central:
            c = run_central(eps_c, method.spec.delta, hist, seed)
            privacy = {
                "eps_c": eps_c,
                "delta": c.delta,
                "sigma": c.sigma,
                "eps_l_inf": math.inf,
                "eps_l_1": math.inf,
                "neighbouring": Neighbouring.ZERO_OUT,
                "mechanism": "analytic Gaussian",
            }
            cell: Cell = Measured(method.label, eps_c, seed, c.estimate, c.metrics, privacy)
        else:
            r = run(method.at(eps_c), hist, seed)
            std, note = r.analytic_std, r.analytic_note
            privacy = {**r.plan.as_dict(), "analytic_rmse_raw": std, "analytic_rmse_raw_note": note}
            cell = Measured(
                method.label,
                eps_c,
                seed,
                r.estimate,
                r.metrics,
                privacy,
                plan=r.plan,
                analytic_rmse_raw=std,
                analytic_rmse_raw_note=note,
            )
    except InputError as exc:
        return Failed(method.label, eps_c, seed, str(exc))
    return postprocess_cell(cell, method.postprocess, hist)


def sweep(
    methods: list[Method], eps_cs, hist: Histogram, seed: int = 0, progress=None, evaluate_cell=None
) -> list[Cell]:
    """Every method at every eps_c (row-major); progress(done, total) is called after each
    cell; evaluate_cell(method, eps_c, hist, seed) replaces evaluate (e.g. a cached one)."""
    evaluate_cell = evaluate_cell or evaluate
    cells, total = [], len(methods) * len(eps_cs)
    for eps_c in eps_cs:
        for method in methods:
            cells.append(evaluate_cell(method, eps_c, hist, seed))
            if progress is not None:
                progress(len(cells), total)
    return cells


def analytic(method: Method, eps_c: float, hist: Histogram, notion: str = "native") -> dict | None:
    """The analytic curves of a method at eps_c (no simulation): eps_c certified, eps_l_inf, eps_l_1, the root
    mean variance of the bins' raw estimates (rmse_raw_note: what it is short of exact, "" when exact),
    messages; None where the method is undefined. notion 'replacement': the epsilons restated (Plan.on_notion;
    the Gaussian baseline's noise at sensitivity sqrt(2)), the native ones under native_<key>, converted True."""
    try:
        if method.central:
            sigma = analytic_gaussian_sigma(eps_c, method.spec.delta)
            central = gaussian_on_notion(eps_c, sigma, method.spec.delta, notion)
            return {
                "eps_c": central.eps,
                "native_eps_c": eps_c,
                "converted": central.converted,
                "eps_l_inf": math.inf,
                "eps_l_1": math.inf,
                "rmse_raw": sigma,
                "rmse_raw_note": "",
                "expected_messages": 1.0,
            }
        p = plan(method.at(eps_c), hist.n, hist.d)
        view = p.on_notion(notion)
        return {
            "eps_c": view.eps_c.eps,
            "eps_l_inf": view.eps_l_inf.eps,
            "eps_l_1": view.eps_l_1.eps,
            "native_eps_c": p.eps_c,
            "native_eps_l_inf": p.eps_l_inf,
            "native_eps_l_1": p.eps_l_1,
            "converted": view.eps_c.converted,
            "rmse_raw": analytic_rmse(p.oracle(), hist.n, hist.counts),
            "rmse_raw_note": p.oracle().variance_note,
            "expected_messages": p.expected_messages,
        }
    except InputError:
        return None
