"""The certified upper bounds beside an audit: the local guarantee of what the server or a captured shuffler
sees, and for the analyst the eps_c of every accountant that holds for the encoding, each a Guarantee."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ldpcore.errors import require
from ldpcore.experiment.protocol.spec import Plan
from ldpcore.oracles import get_encoding
from ldpcore.oracles.laws import Observer
from ldpcore.privacy.bounds import Amplification, Bound
from ldpcore.privacy.guarantee import Guarantee, Neighbouring

_ESA = "Erlingsson et al., Encode, Shuffle, Analyze Privacy Revisited (2020)"


@dataclass(frozen=True)
class Certified:
    """A certified upper bound beside the audit (guarantee: its value, or not valid with the reason): an
    accountant's eps_c for the shuffled aggregate, or the local guarantee (eps_l_inf, eps_l_1) for one
    report; title and citation for people."""

    title: str
    citation: str
    guarantee: Guarantee

    @property
    def name(self) -> str:
        return self.guarantee.bound

    @property
    def eps(self) -> float | None:
        return self.guarantee.value

    @property
    def delta(self) -> float:
        return self.guarantee.delta

    @property
    def neighbouring(self) -> Neighbouring:
        return self.guarantee.neighbouring

    @property
    def valid(self) -> bool:
        return self.guarantee.valid

    @property
    def reason(self) -> str:
        return self.guarantee.reason

    def as_dict(self) -> dict:
        keys = ("name", "title", "eps", "delta", "neighbouring", "citation", "valid", "reason")
        return {k: getattr(self, k) for k in keys}


@lru_cache(maxsize=256)
def forward(bound: Bound, eps0: float, n: int, delta: float, k: int | None) -> Amplification:
    """A bound's forward, kept: the analyst's attack and its certified bounds both need the tight one."""
    return bound.forward(eps0, n, delta, k)


def certified_bounds(plan: Plan, observer: str, accountants: tuple[str, ...] | None = None) -> tuple[Certified, ...]:
    """Every certified bound on what `observer` sees: the local guarantee for the server (eps_l_inf) and a
    captured shuffler (eps_l_1, Theorem IV.1 of the ESA paper), and for the analyst the eps_c that each
    accountant holding for the encoding (or those named) certifies at the plan's eps_b, n and delta."""
    encoding = get_encoding(plan.spec.encoding)
    if observer != Observer.ANALYST:
        eps, name = (plan.eps_l_inf, "eps_l_inf") if observer == Observer.SERVER else (plan.eps_l_1, "eps_l_1")
        what = "everything one respondent sends" if observer == Observer.SERVER else "one captured fragment"
        citation = f"{_ESA}, Theorem IV.1" if plan.spec.tau else f"the {encoding.name} randomizer's eps"
        return (Certified(f"local guarantee of {what}", citation, Guarantee(eps, name, encoding.neighbouring, 0.0)),)
    k = encoding.channel_k(plan.domain, plan.spec.param_dict)
    out = []
    for name in accountants or encoding.accountants:
        bound = encoding.bound(name, plan.spec.param_dict)
        require(
            bound.name in encoding.accountants or name in encoding.accountants,
            f"the accountant {name} does not hold for the {encoding.name} encoding; choose among "
            f"{', '.join(encoding.accountants)}.",
        )
        amp = forward(bound, plan.eps_b, plan.n, plan.spec.delta, k)
        guarantee = Guarantee(amp.eps_c, bound.name, bound.neighbouring, plan.spec.delta, amp.valid, amp.reason)
        out.append(Certified(bound.title, bound.citation, guarantee))
    return tuple(out)
