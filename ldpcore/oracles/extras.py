"""The numbers of a plan that belong to one family of encodings, each family's a frozen dataclass that an
encoding's registry entry computes (ldpcore.oracles.Encoding.extras) and a Plan carries as ``plan.extras``;
``as_dict`` gives the CLI's documented JSON fields."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ldpcore.privacy.guarantee import Guarantee


@dataclass(frozen=True)
class HashRange:
    """The hash range g of local hashing: OLH's (from eps, or given), SOLH's (the solh bound's d')."""

    hash_range: int

    def as_dict(self) -> dict[str, Any]:
        return {"hash_range": self.hash_range}


@dataclass(frozen=True)
class FakeReports:
    """MURS on d values (T. Wang et al. 2019, Theorem 4): the fake reports hidden from the server, a
    respondent's eps against the server and all other respondents (eps_2; the blanket bound may certify
    nothing: a Guarantee) and against the server and all shufflers (eps_l); the hash range on SOLH."""

    hash_range: int | None
    fake_reports: int
    eps_vs_server_and_respondents: Guarantee
    eps_vs_server_and_shufflers: float

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {} if self.hash_range is None else {"hash_range": self.hash_range}
        out["eps_vs_server_and_respondents"] = self.eps_vs_server_and_respondents.or_inf
        out["eps_vs_server_and_shufflers"] = self.eps_vs_server_and_shufflers
        out["fake_reports"] = self.fake_reports
        return out


@dataclass(frozen=True)
class UncertifiedRange:
    """An encoding without a certified eps_c (the fragmented sketch, run at the one-hot calibration): the ESA
    paper's range [eps_c, eps_l_inf] (Erlingsson et al. 2020, Table III), and what a generic bound certifies
    for a respondent's whole report, 2 eps_b-LDP under replacement."""

    eps_c_range: tuple[float, float]
    eps_c_whole_report: Guarantee

    def as_dict(self) -> dict[str, Any]:
        return {
            "eps_c_range": list(self.eps_c_range),
            "eps_c_whole_report_replacement": self.eps_c_whole_report.or_inf,
        }


PlanExtras = HashRange | FakeReports | UncertifiedRange
