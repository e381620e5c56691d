"""Every amplification bound: public reference values (spec/amplification.md and
spec/frequency_oracles.md), validity regions, the command line, and properties checked
with hypothesis for every bound: monotone in eps0, non-increasing in n, inverse and
forward agree on the conservative side, never below the exact binary-RR curve."""

import json
import math

import pytest
from conftest import cli
from hypothesis import given, settings
from hypothesis import strategies as st

from ldpcore.cli import main
from ldpcore.errors import InputError
from ldpcore.privacy.bounds import ALIASES, BOUNDS, Amplification, get_bound

PROPERTY = settings(max_examples=30, deadline=None, derandomize=True)
BINARY_K = 2  # the binary-RR setting: k-RR bounds and SOLH on 2 values are binary RR


def amplify(capsys, *args) -> tuple[int, str, str]:
    """Run `python -m ldpcore amplify ARGS` in process: (status, stdout, stderr)."""
    try:
        status = main(["amplify", *args])
    except SystemExit as exc:  # argparse errors
        status = exc.code
    out = capsys.readouterr()
    return status, out.out, out.err


def test_registry():
    assert list(BOUNDS) == [
        "cheu19",
        "esa-thm3.1",
        "tight-binary-rr",
        "efmrtt19",
        "fmt21-closed",
        "fmt21-numeric",
        "stronger-clone",
        "blanket-krr",
        "blanket-hoeffding",
        "blanket-bennett",
        "solh",
    ]
    assert get_bound("tight").name == "tight-binary-rr" and get_bound("grr-shuffle").name == "blanket-krr"
    assert all(ALIASES[a] in BOUNDS for a in ALIASES)
    for b in BOUNDS.values():
        assert b.neighbouring in ("zero-out", "replacement") and b.citation and b.applies_to
        assert len(b.explanation) > 80 and b.title


# --- public reference values ---


def test_efmrtt_reference_value_exactly():
    amp = get_bound("efmrtt19").forward(0.25, 10_000, 1e-6)
    assert amp.eps_c == 12 * 0.25 * math.sqrt(math.log(1e6) / 1e4)
    assert round(amp.eps_c, 4) == 0.1115 and amp.neighbouring == "replacement"


@pytest.mark.parametrize("eps0,closed", [(1.0, 0.0726), (2.0, 0.1862)])
def test_fmt_closed_form_reference_values(eps0, closed):
    assert round(get_bound("fmt21-closed").forward(eps0, 100_000, 1e-6).eps_c, 4) == closed


@pytest.mark.parametrize(
    "name,eps0,published",
    [
        ("fmt21-numeric", 1.0, 0.0153),
        ("fmt21-numeric", 2.0, 0.0452),
        ("stronger-clone", 1.0, 0.0124),
        ("stronger-clone", 2.0, 0.0332),
    ],
)
def test_numerical_clones_reference_values(name, eps0, published):
    assert get_bound(name).forward(eps0, 100_000, 1e-6).eps_c == pytest.approx(published, rel=0.02)


@pytest.mark.parametrize("eps_c,a,d_prime,eps_l", [(0.5, 833.8, 278, 6.32), (1.0, 3335.2, 1112, 7.71)])
def test_solh_reference_values(eps_c, a, d_prime, eps_l):
    n, delta = 1_000_000, 1e-9
    assert round((n - 1) * eps_c**2 / (14 * math.log(2 / delta)), 1) == a
    amp = get_bound("solh").inverse(eps_c, n, delta)
    assert amp.extra == {"hash_range": d_prime} and round(amp.eps0, 2) == eps_l
    # e^eps_l = A - d' + 1: the certified eps_c is the target itself
    assert amp.eps_c <= eps_c and amp.eps_c == pytest.approx(eps_c, rel=1e-12)
    assert get_bound("solh").forward(amp.eps0, n, delta).extra == {"hash_range": d_prime}


def test_solh_with_a_fixed_hash_range_is_shuffled_grr():
    n, delta = 1_000_000, 1e-9
    grr = get_bound("grr-shuffle").inverse(0.5, n, delta, 278)
    solh = get_bound("solh").inverse(0.5, n, delta, 278)
    assert solh.eps0 == grr.eps0 and solh.extra == {"hash_range": 278}
    assert math.exp(grr.eps0) == pytest.approx(833.8056 - 278 + 1, rel=1e-6)


def test_grr_floor_and_cap():
    b, delta = get_bound("grr-shuffle"), 1e-9
    floor = math.sqrt(14 * math.log(2 / delta) * 100 / (10**6 - 1))  # eps0 -> 0 with k = 100
    amp = b.inverse(floor * 0.99, 10**6, delta, 100)  # below the floor: only the trivial bound holds
    assert amp.valid and amp.eps0 == amp.eps_c == floor * 0.99 and "alone cannot certify" in amp.note
    assert b.inverse(floor * 1.01, 10**6, delta, 100).valid
    amp = b.inverse(2.0, 10**6, delta, 100)  # the closed form holds for eps_c <= 1 only
    assert amp.capped and amp.eps_c == pytest.approx(1.0)
    small = b.forward(1.0, 1000, delta, 1000)
    assert not small.valid and "too few respondents" in small.reason


# --- validity regions and input errors ---


def test_regions_give_reasons_not_numbers():
    amp = get_bound("efmrtt19").forward(0.7, 10_000, 1e-6)
    assert not amp.valid and amp.eps_c is None and "eps0=0.7 is outside" in amp.reason
    assert "n >= 1000" in get_bound("efmrtt19").forward(0.2, 999, 1e-6).reason
    assert "delta < 1/100" in get_bound("efmrtt19").forward(0.2, 10_000, 0.05).reason
    assert "too few respondents" in get_bound("fmt21-closed").forward(1.0, 100, 1e-6).reason
    assert not get_bound("fmt21-closed").forward(5.0, 10_000, 1e-6).valid  # eps0 > ln(n/(16 ln(2/delta)))


def test_domain_errors():
    with pytest.raises(InputError, match="blanket-krr needs the domain size k"):
        get_bound("blanket-krr").forward(1.0, 10**6, 1e-9)
    for name in ("blanket-krr", "blanket-hoeffding", "solh"):
        with pytest.raises(InputError, match="whole number >= 2"):
            get_bound(name).forward(1.0, 10**6, 1e-9, 1)


def test_framework_extension_keeps_the_old_shape():
    amp = get_bound("cheu19").inverse(1.0, 1_914_589, 5e-8)
    assert isinstance(amp, Amplification) and amp.extra == {} and "extra" in amp.as_dict()
    assert round(amp.eps0, 2) == 8.55


# --- the command line ---


def test_cli_amplify_json_end_to_end():
    out = cli("amplify", "--bound", "solh", "--eps-c", "0.5", "--n", "1e6", "--delta", "1e-9", "--json")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    for key in ("bound", "eps0", "eps_c", "n", "delta", "valid", "reason", "neighbouring", "citation"):
        assert key in rec
    assert rec["hash_range"] == 278 and round(rec["eps0"], 2) == 6.32 and rec["n"] == 1_000_000


def test_cli_amplify_forward_and_list(capsys):
    status, out, _ = amplify(
        capsys, "--bound", "tight", "--eps0", "8.547", "--n", "1914589", "--delta", "5e-8", "--json"
    )
    rec = json.loads(out)
    assert status == 0 and rec["bound"] == "tight-binary-rr" and round(rec["eps_c"], 2) == 0.25 and rec["valid"]
    assert amplify(capsys, "--list")[1].split() == list(BOUNDS)
    assert json.loads(amplify(capsys, "--list", "--json")[1]) == list(BOUNDS)


def test_cli_not_valid_is_not_an_error(capsys):
    status, out, _ = amplify(
        capsys, "--bound", "efmrtt19", "--eps0", "0.7", "--n", "10000", "--delta", "1e-6", "--json"
    )
    rec = json.loads(out)
    assert status == 0 and rec["valid"] is False and "outside" in rec["reason"] and rec["eps_c"] is None


@pytest.mark.parametrize(
    "args,message",
    [
        (["--bound", "nope", "--eps0", "1", "--n", "10", "--delta", "0.1"], "unknown accountant"),
        (["--bound", "blanket-krr", "--eps-c", "1", "--n", "1e6", "--delta", "1e-9"], "needs the domain size k"),
        (["--bound", "tight", "--n", "10", "--delta", "0.1"], "give exactly one of --eps0 and --eps-c"),
        (["--bound", "tight", "--eps0", "1", "--eps-c", "1", "--n", "10", "--delta", "0.1"], "not allowed with"),
        (["--bound", "tight", "--eps0", "-1", "--n", "10", "--delta", "0.1"], "eps0 must be a finite number > 0"),
        (["--bound", "tight", "--eps0", "1", "--n", "2.5", "--delta", "0.1"], "whole number >= 1"),
        (["--bound", "tight", "--eps0", "1", "--n", "inf", "--delta", "0.1"], "whole number >= 1"),
        (["--bound", "tight", "--eps0", "1", "--n", "10", "--delta", "2"], "delta must lie strictly between 0 and 1"),
        (["--eps0", "1", "--n", "10", "--delta", "0.1"], "--bound is required"),
    ],
)
def test_cli_bad_input_is_one_line_with_status_2(capsys, args, message):
    status, out, err = amplify(capsys, *args)
    assert status == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


# --- properties of every bound ---


def _k(name):
    return BINARY_K if name in ("blanket-krr", "blanket-hoeffding", "blanket-bennett", "solh") else None


INPUTS = dict(
    u=st.floats(1e-3, 1.0),  # where eps0 lies in the bound's validity region (capped at 12)
    n=st.integers(1_000, 10**8),
    delta=st.sampled_from([1e-3, 1e-6, 1e-9, 1e-12]),
)


def _eps0(bound, u, n, delta, k):
    """eps0 at fraction u of the bound's region, or None where the region is empty."""
    lo, hi, reason = bound.region(n, delta, k)
    eps0 = lo + u * (min(hi, 12.0) - lo)
    return None if reason or eps0 <= 0 else eps0


@pytest.mark.parametrize("name", list(BOUNDS))
@PROPERTY
@given(step=st.floats(1e-3, 1.0), **INPUTS)
def test_monotone_and_never_below_the_exact_curve(name, u, n, delta, step):
    bound, k = get_bound(name), _k(name)
    if (eps0 := _eps0(bound, u, n, delta, k)) is None:
        return
    a = bound.forward(eps0, n, delta, k)
    assert a.valid and a.eps_c >= 0
    more = bound.forward(eps0 * (1 + step), n, delta, k)
    if more.valid:
        assert more.eps_c >= a.eps_c * (1 - 1e-12)
    crowd = bound.forward(eps0, 2 * n, delta, k)
    if crowd.valid:
        assert crowd.eps_c <= a.eps_c * (1 + 1e-12)
    # with k = 2 every bound describes shuffled binary RR; none certifies below its exact curve
    exact = get_bound("tight").forward(eps0, n, delta)
    assert not exact.valid or a.eps_c >= exact.eps_c * (1 - 1e-9)


@pytest.mark.parametrize("name", list(BOUNDS))
@PROPERTY
@given(**INPUTS)
def test_inverse_then_forward_lands_on_the_conservative_side(name, u, n, delta):
    bound, k = get_bound(name), _k(name)
    if (eps0 := _eps0(bound, u, n, delta, k)) is None:
        return
    target = bound.forward(eps0, n, delta, k)
    if target.eps_c == 0:
        return
    inv = bound.inverse(target.eps_c, n, delta, k)
    assert inv.valid, inv.reason
    back = bound.forward(inv.eps0, n, delta, k)
    assert back.eps_c <= inv.eps_c <= target.eps_c  # curve bounds certify the target itself
    assert inv.eps0 >= eps0 * (1 - 1e-6)  # the largest eps0: at least the one we started from
    assert back.eps_c >= target.eps_c * (1 - 1e-3)


CURVE_RTOL = 1e-4


@pytest.mark.parametrize("name", [name for name, b in BOUNDS.items() if b.solves])
def test_curve_points_are_certified_and_within_rtol(name):
    """A chart's point (rtol > 0) is on the safe side of the exact answer and within rtol of it: an eps_c
    never below the exact one, an eps0 never above it."""
    bound = get_bound(name)
    for n in (10**4, 10**6):
        for eps0 in (0.3, 2.0):
            exact, shown = bound.forward(eps0, n, 1e-8, BINARY_K), bound.forward(eps0, n, 1e-8, BINARY_K, CURVE_RTOL)
            if exact.valid:
                assert exact.eps_c <= shown.eps_c <= exact.eps_c * (1 + CURVE_RTOL) / (1 - CURVE_RTOL)
        for eps_c in (0.1, 1.0):
            exact, shown = bound.inverse(eps_c, n, 1e-8, BINARY_K), bound.inverse(eps_c, n, 1e-8, BINARY_K, CURVE_RTOL)
            if exact.valid:
                assert exact.eps0 / (1 + CURVE_RTOL) <= shown.eps0 <= exact.eps0
                assert bound.forward(shown.eps0, n, 1e-8, BINARY_K).eps_c <= eps_c
