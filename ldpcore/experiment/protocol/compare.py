"""Cells of a sweep or report table restated in one neighbouring notion (ldpcore.privacy.notions), so that
encodings of different notions are compared on one footing; the native numbers stay beside them. The central eps_c
of a zero-out encoding under replacement is its accountant's composed over the two changed channels (at the same
delta), the Gaussian baseline's its noise at sensitivity sqrt(2); the local eps follow the one rule (the whole
report: both changed bits, 2 eps; one message: one bit, eps)."""

from __future__ import annotations

from dataclasses import replace

from ldpcore.experiment.protocol.run import Cell, Failed, Measured
from ldpcore.privacy.notions import OnNotion, Seen, gaussian_on_notion, local_on_notion

EPS_KEYS = ("eps_c", "eps_l_inf", "eps_l_1")
SEEN = {"eps_l_inf": Seen.REPORT, "eps_l_1": Seen.MESSAGE}


def central_eps_on_notion(cell: Measured, notion: str) -> OnNotion:
    """A cell's central eps_c in `notion` (the Gaussian baseline's: its noise at sensitivity sqrt(2))."""
    p = cell.privacy
    if cell.plan is None:  # the central Gaussian baseline
        return gaussian_on_notion(p["eps_c"], p["sigma"], p["delta"], notion)
    return cell.plan.on_notion(notion).eps_c


def cell_on_notion(cell: Cell, notion: str = "replacement") -> Cell:
    """cell with its epsilons (eps_c, eps_l_inf, eps_l_1, and delta) in `notion`; a converted cell's privacy
    keeps the native values under native_<key>, native_neighbouring and the conversion's words."""
    if isinstance(cell, Failed) or not cell.privacy or notion == "native":
        return cell
    p = cell.privacy
    if p["neighbouring"] == "replacement" or (cell.plan is not None and cell.plan.spec.notion == notion):
        return cell
    central = central_eps_on_notion(cell, notion)
    converted = {"eps_c": central} | {
        k: local_on_notion(p[k], p["neighbouring"], notion, SEEN[k]) for k in ("eps_l_inf", "eps_l_1") if k in p
    }
    privacy = {**p, **{k: c.eps for k, c in converted.items()}, **{f"native_{k}": p[k] for k in converted}}
    privacy.update(
        neighbouring=central.neighbouring,
        delta=central.delta,
        native_neighbouring=central.native_neighbouring,
        native_delta=p.get("delta"),
        conversion=central.conversion,
    )
    return replace(cell, privacy=privacy)


def cells_on_notion(cells: list[Cell], notion: str = "replacement") -> list[Cell]:
    """Every cell restated in `notion` ("native": unchanged)."""
    return [cell_on_notion(c, notion) for c in cells]


def neighbourings(cells: list[Cell]) -> list[str]:
    """The notions the defined cells are stated in, natively."""
    return sorted({str(c.privacy["neighbouring"]) for c in cells if isinstance(c, Measured) and c.privacy})
