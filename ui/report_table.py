"""Report table's downloads: the table as one PNG with its title and as a ZIP for a paper (ldpcore.export), made
when asked for from the cached runs (ui.kit.runs), in the chosen privacy notion."""

from __future__ import annotations

from ldpcore import export
from ldpcore.experiment.protocol.compare import cells_on_notion
from ldpcore.experiment.protocol.run import sweep, without_estimate
from ui.kit.inputs import Input
from ui.kit.runs import cell, ran


def _table_cells(inp: Input, methods, eps_cs, seed: int, notion: str = "native"):
    """The report table's cells from the cache without their estimates (in `notion`:
    ldpcore.experiment.protocol.compare), and a function fetching (or simulating again) one cell's estimate as its
    picture is drawn."""
    cells = sweep(
        methods, eps_cs, inp.hist, seed, evaluate_cell=lambda m, e, h, s: without_estimate(cell(inp, m, e, s))
    )
    cells = cells_on_notion(cells, notion)
    by_label = {m.label: m for m in methods}
    return cells, lambda c: ran(cell(inp, by_label[c.method], c.eps_c, seed)).estimate


def table_png(inp: Input, methods, eps_cs, seed: int, info: export.TableInfo, notion: str = "native") -> bytes:
    """The report table as one PNG with its title (ldpcore.export.table_png), made when it is asked for."""
    cells, estimate_of = _table_cells(inp, methods, eps_cs, seed, notion)
    return export.table_png(cells, inp.hist, estimate_of=estimate_of, info=info)


def table_zip(inp: Input, methods, eps_cs, seed: int, info: export.TableInfo, notion: str = "native") -> bytes:
    """The report table for a paper: LaTeX, images and CSV in one ZIP (ldpcore.export.table_zip)."""
    cells, estimate_of = _table_cells(inp, methods, eps_cs, seed, notion)
    return export.table_zip(cells, inp.hist, info, estimate_of=estimate_of)
