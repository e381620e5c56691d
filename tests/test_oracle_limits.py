"""What the oracles refuse (ldpcore.oracles.limits): an eps whose probabilities float64 cannot
realise, named with the largest usable eps, in the library, plan() and the command line; and
OLH's real hash family debiased with its exact collision probability."""

import math

import numpy as np
import pytest
from conftest import cli
from scipy import stats

from ldpcore.errors import InputError
from ldpcore.experiment.protocol.run import respondents, run
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan
from ldpcore.oracles import ENCODINGS
from ldpcore.oracles.direct import GRR
from ldpcore.oracles.hashing import OLH
from ldpcore.oracles.limits import EPS_RTOL, REFERENCE_CELLS, eps_error, largest_eps
from ldpcore.oracles.onehot import OneHot, flip_probability
from ldpcore.oracles.sketches import CountMeanSketch
from ldpcore.oracles.unary import SUE

MESSAGE = "must be at most {:.4f} .*float64 rounds its probabilities"


def _uniform_threshold(p: float) -> float:
    """P[rng.random() < p]: numpy's uniforms are the multiples of 2^-53 in [0, 1)."""
    return math.ceil(p * 2.0**53) / 2.0**53


def _grr_realised_eps(p: float, d: int) -> float:
    """The eps GRR.randomize realises with keep probability p: keep w.p. P[u < p], else one of the d-1
    others uniformly."""
    keep = _uniform_threshold(p)
    return math.log(keep / ((1 - keep) / (d - 1)))


def test_grr_at_eps_37_realises_37_142_and_is_refused_like_38():
    """The finding: at d = 4 the keep probability rounds (1 - p = 2^-52) and the realised eps is 37.142;
    at 38 p is exactly 1. Both are refused naming the largest usable eps, 19.3834."""
    assert _grr_realised_eps(1 / (1 + 3 * math.exp(-37)), 4) == pytest.approx(37.142, abs=1e-3)
    assert 1 / (1 + 3 * math.exp(-38)) == 1.0
    largest = GRR.largest_eps(4)
    assert largest == 19.3834
    for eps in (37, 38, largest + 1e-3):
        with pytest.raises(InputError, match=MESSAGE.format(largest)):
            GRR.from_eps(eps, 4)


@pytest.mark.parametrize("d", [2, 4, 100, 10**6])
def test_grr_realises_its_eps_up_to_the_largest_usable_one(d):
    """Within EPS_RTOL up to the limit; past it the realised eps soon departs by more."""
    largest = GRR.largest_eps(d)
    for eps in (1.0, 10.0, largest):
        assert abs(_grr_realised_eps(GRR.from_eps(eps, d).p, d) - eps) <= EPS_RTOL * eps
    beyond = [
        e
        for e in np.linspace(largest, largest + 3, 200)
        if abs(_grr_realised_eps(1 / (1 + (d - 1) * math.exp(-e)), d) - e) > EPS_RTOL * e
    ]
    assert beyond


def test_the_bound_on_the_realised_eps_is_the_resolution_over_the_smallest_probability():
    assert eps_error(2.0**-20) == 2.0**-32 and eps_error(0.0) == math.inf
    binary = largest_eps(flip_probability)
    assert binary == OneHot.largest_eps() == 18.223
    assert eps_error(flip_probability(binary)) <= EPS_RTOL * binary < eps_error(flip_probability(binary + 1e-3))
    # SUE and CMS flip their entries at eps/2: twice the room
    assert SUE.largest_eps() == CountMeanSketch.largest_eps() == 37.9112


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_every_encoding_takes_its_largest_eps_and_refuses_beyond_with_one_message(name):
    """plan() in the eps_l direction: at the limit the oracle builds; above it one InputError naming it.
    The limit does not depend on n, so a large n keeps every accountant valid. (O)LH-type encodings on
    their automatic hash ranges keep 1 - p near 1/2 and have no limit: they are checked on a given g.)"""
    encoding, d, n, delta = ENCODINGS[name], 4, 10**12, 1e-6
    params = {"k": 16, "m": 64} if "k" in encoding.param_names else {"g": 4} if "g" in encoding.param_names else {}
    limit = encoding.eps_limit(d, ProtocolSpec(eps_c=1.0, encoding=name, params=params).param_dict)
    assert 18 < limit < 40
    assert math.isinf(encoding.eps_limit(d, {**ProtocolSpec(eps_c=1.0, encoding=name).param_dict, "g": 0})) == (
        name in ("olh", "solh", "murs")
    )
    spec = ProtocolSpec(eps_c=None, eps_l=limit, delta=delta, encoding=name, params=params)
    try:
        p = plan(spec, n, d)
    except InputError as exc:  # an accountant's own region ends below the limit (MURS: eps_l <= 30)
        assert "outside" in str(exc) or "holds for" in str(exc), exc
    else:
        assert p.oracle() is not None and p.eps_b == limit
    above = ProtocolSpec(eps_c=None, eps_l=limit + 0.01, delta=delta, encoding=name, params=params)
    with pytest.raises(InputError, match=MESSAGE.format(limit)) as err:
        plan(above, n, d)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    "build,largest,far",
    [
        (lambda e: SUE.from_eps(e, 5), SUE.largest_eps(), 1000.0),  # 1000: a probability is exactly 0 or 1
        (lambda e: OLH.from_eps(e, 5, g=2), GRR.largest_eps(2), 1000.0),
        (lambda e: CountMeanSketch.from_eps(e, 5, k=2, m=8), CountMeanSketch.largest_eps(), 1000.0),
        # one-hot is built from flip probabilities (p_b = 0 is refused as a probability, not as an eps)
        (lambda e: OneHot(d=3, p_b=flip_probability(e)), OneHot.largest_eps(), 36.0),
        (lambda e: OneHot(d=3, p_b=0.1, tau=2, p_f=flip_probability(e)), OneHot.largest_eps(), 36.0),
    ],
)
def test_oracles_refuse_beyond_their_largest_eps(build, largest, far):
    build(largest)
    for eps in (largest + 1e-3, far):
        with pytest.raises(InputError, match=MESSAGE.format(largest)):
            build(eps)


def test_an_accountant_above_the_limit_is_capped_with_a_note():
    """At n = 1e12 the generic bound allows eps_l far above what OUE's probabilities realise: the plan
    runs at the limit and certifies less than asked, saying so."""
    p = plan(ProtocolSpec(eps_c=3.0, delta=1e-12, encoding="oue"), 10**12, 100)
    assert p.eps_b == ENCODINGS["oue"].eps_limit(100, {}) and p.amplification.capped and p.eps_c < 3.0
    assert any("float64 realises" in note for note in p.notes)
    assert p.oracle().eps == pytest.approx(p.eps_b, rel=1e-12)


def test_cli_refuses_grr_at_eps_38_with_one_line():
    out = cli("privacy", "--n", "10", "--delta", "1e-6", "--eps-l", "38", "--encoding", "grr", "--domain", "4")
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "at most 19.3834" in lines[0] and "Traceback" not in out.stderr


def test_olh_with_a_small_prime_is_unbiased_with_the_familys_collision_probability():
    """P = 17, d = 16, g = 4: two keys collide w.p. 56/272 = 0.206, not 1/g; debiasing with 1/g
    was off by about (n - c)(1/g - q)/(p - 1/g) per bin."""
    oracle = OLH.from_eps(1.5, 16, g=4, prime=17)
    assert oracle.collision == pytest.approx(56 / 272, rel=1e-15)
    assert oracle.q == pytest.approx(oracle.p * 56 / 272 + (1 - oracle.p) / 3 * (216 / 272), rel=1e-15)
    counts = np.array([200, 0, 50, 10, 0, 300, 5, 0, 40, 0, 0, 100, 0, 7, 0, 20])
    values, n, reps, rng = respondents(counts), int(counts.sum()), 600, np.random.default_rng(5)
    est = np.array([oracle.estimate(oracle.aggregate(oracle.randomize(values, rng)), n) for _ in range(reps)])
    var = oracle.variance(n, counts)
    assert np.all(np.abs(est.mean(axis=0) - counts) < 4 * np.sqrt(var / reps))
    alpha = 1e-3 / counts.size  # chi-square band per bin, family-wise 1e-3 (Bonferroni)
    lo, hi = stats.chi2.ppf([alpha / 2, 1 - alpha / 2], reps - 1) / (reps - 1)
    ratio = est.var(axis=0, ddof=1) / var
    assert np.all((ratio > lo) & (ratio < hi)), ratio
    # the old debiasing with 1/g would have missed by (n - c)(1/g - q)/(p - 1/g): over ten sigmas
    old_bias = (n - counts) * (oracle.q - 1 / oracle.g) / (oracle.p - 1 / oracle.g)
    assert np.all(np.abs(old_bias) > 10 * np.sqrt(var / reps))


@pytest.mark.parametrize(
    "oracle,n",
    [
        (OneHot(d=1000, p_b=0.1), 50_001),
        (SUE.from_eps(1.0, 1000), 50_001),
        (GRR.from_eps(1.0, 10), 50_000_000),
        (OLH.from_eps(1.0, 1000), 50_001),
    ],
)
def test_per_respondent_references_are_refused_above_their_memory_limit(oracle, n):
    assert oracle.reference_cells(n) > REFERENCE_CELLS
    with pytest.raises(InputError, match=f"the limit is {REFERENCE_CELLS:,}"):
        oracle.randomize(np.zeros(n, dtype=np.int64), np.random.default_rng(0))


def test_the_per_respondent_run_is_refused_before_laying_out_the_respondents():
    """n = 1e12 respondents would need 8 TB just for their values: refused from reference_cells first."""
    from ldpcore.data.histogram import Histogram

    hist = Histogram(counts=np.array([10**12, 5, 0]), name="onebig")
    with pytest.raises(InputError, match=f"the limit is {REFERENCE_CELLS:,}"):
        run(ProtocolSpec(eps_c=1.0, delta=1e-13, encoding="grr"), hist, per_respondent=True)


def test_a_fragment_eps_beyond_the_limit_is_refused_by_the_plan():
    spec = ProtocolSpec(eps_c=None, eps_l=5.0, delta=1e-6, tau=4, eps_f_rule="manual", eps_f=30.0)
    with pytest.raises(InputError, match="eps_f of One-hot .* must be at most 18.2230 \\(got 30\\)"):
        plan(spec, 10**6, 16)
