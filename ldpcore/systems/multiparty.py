"""Single vs multiple anonymous messages (Ghazi, Golowich, Kumar, Pagh, Velingker, On the Power of
Multiple Anonymous Messages (EUROCRYPT 2021)) and who can see what (T. Wang, Ding, Xu, Huang, Hong, Zhou,
Li, Jha, Practical and Robust Privacy Amplification with Multi-Party Differential Privacy (2019),
docs/systems.md): the numbers behind the Multi-message page."""

from __future__ import annotations

import math
from typing import NoReturn

import numpy as np

from ldpcore.errors import InputError, check_delta, check_eps, check_whole, require
from ldpcore.experiment.protocol.metrics import analytic_rmse
from ldpcore.oracles.fake_reports import MURS, blanket_certified, murs_eps_users
from ldpcore.oracles.hashing import solh_parameters
from ldpcore.oracles.multimessage import (
    CURVE_DISCRETIZATION,
    BaryRR,
    CountMinMultiMessage,
    HadamardMultiMessage,
    multi_message_upper_bound,
    paper_tau,
    single_message_lower_bound,
)
from ldpcore.oracles.onehot import OneHot, flip_probability
from ldpcore.privacy.accountant import CURVE_RTOL
from ldpcore.privacy.bounds import BoundName, get_bound

DATA_SHAPES = ("peaked", "uniform")

# What the dashboard's Multi-message page says about its two parts
MULTI_MESSAGE_HELP = (
    "Ghazi, Golowich, Kumar, Pagh and Velingker, *On the power of multiple anonymous messages* (2021): a "
    "single-message shuffled protocol must have error growing like min(n^(1/4), sqrt(d)), while sending several "
    "messages per respondent (blanket noise made of other respondents' messages) keeps it polylog(d). Lines are "
    "analytic (the root mean variance of the count estimates, exact); reference curves are up to constants. "
    "Tight rho / q: the smallest blanket an exact privacy accountant certifies at (eps_c, delta); paper: the "
    "constants of that paper's Lemmas 4.4 and 4.10."
)
THREAT_HELP = (
    "Wang, Xu, Ding, Zhou, Hong, Huang, Li and Jha, *Practical and robust privacy amplification with multi-party "
    "differential privacy* (2019): the eps a respondent keeps against each adversary, for GRR reports at local "
    "eps_l. More fake reports allow a larger eps_l at the same eps against the server, but eps_l is what is left "
    "if every shuffler colludes."
)


def synthetic_counts(n: int, d: int, shape: str) -> np.ndarray:
    """peaked: every respondent holds value 0 (B-ary RR's error is data dependent and worst
    there); uniform: n spread as evenly as possible over the d values."""
    require(shape in DATA_SHAPES, f"data shape must be one of {', '.join(DATA_SHAPES)} (got {shape!r}).")
    if shape == "peaked":
        counts = np.zeros(d, dtype=np.int64)
        counts[0] = n
        return counts
    return np.full(d, n // d, dtype=np.int64) + (np.arange(d) < n % d)


def _protocols(eps: float, delta: float, d: int, n: int, before: dict) -> dict:
    """The oracles compared at (eps_c, delta), each to a chart's precision (every one certified):
    each raises InputError where n is too small. before: {name: (n', oracle)} at the previous n of
    a curve, whose tight rho and q start the searches (n rho 2^-tau and q n change slowly with n)."""
    tight = get_bound(BoundName.TIGHT_BINARY_RR).inverse(eps, n, delta, 2, CURVE_RTOL)
    eps_b = tight.eps0 if tight.valid else None
    hadamard, count_min = (
        before.get(f"{kind} multi-message (tight {p})", (n, None))
        for kind, p in (("Hadamard", "rho"), ("Count-Min", "q"))
    )
    rho = (
        None
        if hadamard[1] is None
        else round(hadamard[1].rho * 2.0 ** (paper_tau(n) - hadamard[1].tau) * hadamard[0] / n)
    )
    q = None if count_min[1] is None else count_min[1].q * count_min[0] / n
    return {
        "B-ary RR (single message)": lambda: BaryRR.from_eps(eps, d, n, delta),
        "one-hot, attribute fragments (tight accountant)": lambda: (
            OneHot(d=d, p_b=flip_probability(eps_b)) if eps_b is not None else _invalid(tight.reason)
        ),
        "Hadamard multi-message (tight rho)": lambda: HadamardMultiMessage.from_eps(
            eps, d, n, delta, rule="tight", guess=rho
        ),
        "Hadamard multi-message (paper rho)": lambda: HadamardMultiMessage.from_eps(eps, d, n, delta, rule="paper"),
        "Count-Min multi-message (tight q)": lambda: CountMinMultiMessage.from_eps(
            eps, d, n, delta, rule="tight", start=q, discretization=CURVE_DISCRETIZATION
        ),
        "Count-Min multi-message (paper q)": lambda: CountMinMultiMessage.from_eps(eps, d, n, delta, rule="paper"),
    }


def _invalid(reason: str) -> NoReturn:
    raise InputError(reason)


def error_against_n(eps: float, delta: float, d: int, n_grid, shape: str = "peaked") -> dict:
    """Per protocol and n: the root mean variance of the count estimates (analytic, exact
    for the unbiased ones; the Count-Min minimum's RMSE from its exact moments), messages per
    respondent and bits per message; NaN where a protocol cannot reach (eps, delta) at n.
    Also the Ghazi et al. 2021 reference curves (up to constants). The calibrations are a chart's
    (_protocols): the one-hot eps0 within CURVE_RTOL below the largest certified one, Count-Min's q
    from the discretization CURVE_DISCRETIZATION (~1% above the default's); every one certified."""
    eps, delta = check_eps(eps, "eps_c"), check_delta(delta)
    d = check_whole(d, 2, "the domain size d")
    out: dict[str, dict] = {}
    before: dict[str, tuple] = {}
    for n in (int(x) for x in n_grid):
        counts = synthetic_counts(n, d, shape)
        for name, make in _protocols(eps, delta, d, n, before).items():
            row = out.setdefault(name, {"rmse": [], "messages": [], "bits": [], "reason": []})
            try:
                oracle = make()
            except InputError as exc:
                row["rmse"].append(math.nan), row["messages"].append(math.nan), row["bits"].append(math.nan)
                row["reason"].append(str(exc))  # why the protocol cannot reach (eps, delta) at this n
                continue
            row["reason"].append("")
            before[name] = (n, oracle)
            if isinstance(oracle, CountMinMultiMessage):
                bias, var = oracle.moments(counts)
                row["rmse"].append(math.sqrt(float(np.mean(bias**2 + var))))
            else:
                row["rmse"].append(analytic_rmse(oracle, n, counts))
            row["messages"].append(oracle.expected_messages())
            row["bits"].append(oracle.bits_per_message)
    n_arr = np.asarray(list(n_grid), dtype=np.float64)
    out["single-message lower bound ~ min(n^(1/4), sqrt(d))"] = {"rmse": list(single_message_lower_bound(n_arr, d))}
    out["multi-message error ~ sqrt(ln d ln(1/delta))/eps"] = {
        "rmse": list(multi_message_upper_bound(n_arr, d, eps, delta))
    }
    return out


def threat_table(
    n: int, d: int, delta: float, eps_l: float, shufflers: int, fakes_per_shuffler: int, colluding: int = 0
) -> list[dict]:
    """The eps a respondent keeps against each adversary of T. Wang et al. 2019 (docs/systems.md), for
    GRR reports at local eps_l (replacement); inf where the adversary learns the report.
    colluding: shufflers colluding with the server (MURS: their fakes are known). inf also where a
    blanket closed form would exceed its limit min(1, 14 ln(2/delta)/27): it certifies nothing there."""
    eps_l, delta = check_eps(eps_l, "eps_l"), check_delta(delta)
    shufflers, colluding = check_whole(shufflers, 1, "shufflers"), check_whole(colluding, 0, "colluding shufflers")
    require(colluding < shufflers, f"colluding shufflers must lie in [0, {shufflers - 1}] (got {colluding}).")
    blanket = get_bound(BoundName.BLANKET_KRR).forward(eps_l, n, delta, d)
    shuffle_only = blanket.guarantee.or_inf
    murs = MURS.from_eps(eps_l, d, shufflers, fakes_per_shuffler).epsilons(n, delta, colluding)
    rows = [
        _row("shuffle only (GRR)", shuffle_only, eps_l, eps_l, "" if blanket.valid else blanket.reason),
        _row(
            "HE aggregation (aux server adds central noise)",
            shuffle_only,
            shuffle_only,
            math.inf,
            "central noise calibrated to the shuffle-only eps; the aux server decrypts if it colludes",
        ),
        _row(
            f"MURS ({shufflers} shufflers x {int(fakes_per_shuffler):,} fakes)",
            murs.eps_server,
            murs.eps_users,
            eps_l,
            f"{colluding} colluding shuffler(s): {murs.hidden_fakes:,} fakes stay hidden",
        ),
    ]
    why = f"no shuffle-only guarantee to calibrate SOLH to ({blanket.reason})"
    return rows + [_peos_row(n, d, delta, shuffle_only, int(fakes_per_shuffler), why)]


def _row(protocol: str, vs_server: float, vs_users: float, vs_shufflers: float, note: str) -> dict:
    """One row of threat_table: the eps a respondent keeps against each adversary."""
    return {
        "protocol": protocol,
        "vs server": vs_server,
        "vs server + other respondents": vs_users,
        "vs server + shufflers": vs_shufflers,
        "note": note,
    }


def _peos_row(n: int, d: int, delta: float, shuffle_only: float, fakes: int, why: str) -> dict:
    """threat_table's PEOS row: SOLH calibrated to the shuffle-only eps, or (with why) why PEOS does not
    apply here."""
    d_prime: int | None = None
    eps_solh = math.nan
    try:
        if math.isfinite(shuffle_only):
            d_prime, eps_solh = solh_parameters(shuffle_only, n, delta)
    except InputError as exc:
        d_prime, why = None, str(exc)
    if d_prime is None:  # the row stays, with why PEOS does not apply here
        return _row(
            "PEOS (SOLH, oblivious shuffle, joint fakes)",
            math.nan,
            math.nan,
            math.nan,
            f"does not apply at n = {n:,}, d = {d:,}: {why}",
        )
    return _row(
        f"PEOS (SOLH, d' = {d_prime}, oblivious shuffle, joint fakes)",
        shuffle_only,
        blanket_certified(murs_eps_users(delta, d_prime, fakes), delta),
        shuffle_only,
        f"SOLH at eps_l = {eps_solh:.3g}; unchanged while one shuffler is honest",
    )
