"""Cells of a sweep or report table restated in one neighbouring notion (ldpcore.privacy.notions), so that
encodings of different notions are compared on one footing; the native numbers stay beside them."""

from __future__ import annotations

from dataclasses import replace

from ldpcore.experiment.protocol.run import Cell, Failed, Measured
from ldpcore.privacy.notions import on_notion

EPS_KEYS = ("eps_c", "eps_l_inf", "eps_l_1")


def cell_on_notion(cell: Cell, notion: str = "replacement") -> Cell:
    """cell with its epsilons (eps_c, eps_l_inf, eps_l_1, and delta) in `notion`; a converted cell's privacy
    keeps the native values under native_<key>, native_neighbouring and the conversion's words."""
    if isinstance(cell, Failed) or not cell.privacy or notion == "native":
        return cell
    p = cell.privacy
    converted = {k: on_notion(p[k], p["neighbouring"], notion, p.get("delta")) for k in EPS_KEYS if k in p}
    if not any(c.converted for c in converted.values()):
        return cell
    first = next(iter(converted.values()))
    privacy = {**p, **{k: c.eps for k, c in converted.items()}, **{f"native_{k}": p[k] for k in converted}}
    privacy.update(
        neighbouring=first.neighbouring,
        delta=first.delta,
        native_neighbouring=first.native_neighbouring,
        native_delta=p.get("delta"),
        conversion=first.conversion,
    )
    return replace(cell, privacy=privacy)


def cells_on_notion(cells: list[Cell], notion: str = "replacement") -> list[Cell]:
    """Every cell restated in `notion` ("native": unchanged)."""
    return [cell_on_notion(c, notion) for c in cells]


def neighbourings(cells: list[Cell]) -> list[str]:
    """The notions the defined cells are stated in, natively."""
    return sorted({str(c.privacy["neighbouring"]) for c in cells if isinstance(c, Measured) and c.privacy})
