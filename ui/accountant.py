"""The Accountant page's cached calls: every bound's row at the page's inputs (ldpcore.privacy.accountant.compare)
and the curves of eps_c against eps0 and of the largest eps0 against n."""

from __future__ import annotations

from ldpcore.privacy.accountant import compare, eps0_curve, eps_c_curve
from ldpcore.privacy.bounds import Amplification, get_bound
from ui.kit.cache import cached

# each curve cached on the arguments it uses (eps0 against n does not depend on the chosen n)
eps_c_against_eps0 = cached("results")(eps_c_curve)
eps0_against_n = cached("results")(eps0_curve)


@cached("results")
def amplifications(
    n: int, delta: float, k: int, direction: str, value: float, rounds: int = 1, notion: str = "native"
) -> list[Amplification]:
    """Every bound at the inputs (ldpcore.privacy.accountant.compare; direction "eps_c" or "eps0" = value; with
    rounds > 1, eps_c the total over the rounds and eps0 each round's; notion "replacement": zero-out bounds over
    the two changed channels)."""
    return compare(n, delta, k, **{direction: value}, rounds=rounds, notion=notion)


def table(
    n: int, delta: float, k: int, direction: str, value: float, rounds: int = 1, notion: str = "native"
) -> list[dict]:
    """One row per bound: eps0 and eps_c (None where the bound gives no number), the reason or a note, and what
    the bound is (title, neighbouring of its eps_c, what it applies to)."""
    rows = amplifications(n, delta, k, direction, value, rounds, notion)
    return [
        {
            "bound": a.bound,
            "eps0": a.eps0,
            "eps_c": a.eps_c,
            "note": a.reason
            or ("capped: the bound's validity ends here" if a.capped else "")
            + (" " + "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in a.extra.items()) if a.extra else ""),
            "title": get_bound(a.bound).title,
            "neighbouring": a.neighbouring,
            "applies to": get_bound(a.bound).applies_to,
        }
        for a in rows
    ]
