"""Report table's cells and downloads: a histogram's cell as a small bar chart (an image's is its picture), and
the table as one PNG with its title and as a ZIP for a paper (ldpcore.export), made when asked for from the cached
runs (ui.kit.runs), in the chosen privacy notion."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ldpcore import export
from ldpcore.data.histogram import Histogram
from ldpcore.experiment.protocol.compare import cells_on_notion
from ldpcore.experiment.protocol.histogram_view import ranked
from ldpcore.experiment.protocol.metrics import clip_estimate
from ldpcore.experiment.protocol.run import Method, sweep, without_estimate
from ui.kit.axes import TRUTH
from ui.kit.cache import cached
from ui.kit.inputs import Input
from ui.kit.runs import cell, cell_of, ran, run_spec

BARS = 40  # bars in a cell at most: beyond the top ranks, each bar is the mean of a group of ranks
CELL_HEIGHT = 170  # px: a cell's chart (the plot and its category names)


def cell_figure(hist: Histogram, estimate: np.ndarray, unit: str) -> go.Figure:
    """A histogram's cell of the table: the estimate clipped to [0, the input's maximum] (what the cell's clipped
    RMSE measures) as bars, bins ranked by their true count (largest first), the true counts as ticks; one y
    scale in every cell (0 to the largest true count), the categories named beneath where they fit."""
    view = ranked(hist.counts, {"estimate": (clip_estimate(estimate, hist.max_count), None)}, labels=hist.labels,
                  max_points=BARS, exact_top=BARS // 2)  # fmt: skip
    names = [str(n) for n in view.labels]
    fig = go.Figure(
        [
            go.Bar(x=names, y=view.series["estimate"], marker_color="#4c78a8", name="estimate (clipped)"),
            go.Scatter(
                x=names,
                y=view.truth,
                mode="markers",
                marker=dict(symbol="line-ew-open", size=12, color=TRUTH, line=dict(width=2)),
                name="true count",
            ),
        ]
    )
    fig.update_traces(hovertemplate="%{x}<br>%{fullData.name}: %{y:,.4g} " + unit + "<extra></extra>")
    fig.update_layout(
        height=CELL_HEIGHT,
        margin=dict(l=0, r=0, t=4, b=0),
        showlegend=False,
        bargap=0.15,
        font=dict(size=10),
        yaxis=dict(range=[0, 1.08 * max(hist.max_count, 1)], nticks=4, tickformat="~s"),
        xaxis=dict(showticklabels=len(names) <= 12, tickangle=-45 if len(names) > 4 else 0, type="category"),
    )
    return fig


@cached("images")
def _cell_chart(
    input_key: str, _hist: Histogram, spec: dict, central: bool, seed: int, postprocess: str | None
) -> dict:
    estimate = ran(cell_of(input_key, _hist, spec, central, seed, postprocess)).estimate
    return cell_figure(_hist, estimate, _hist.unit).to_dict()


def cell_chart(inp: Input, method: Method, eps_c: float, seed: int) -> dict:
    """cell_figure of a histogram's cell that ran, as a figure dict made once per run (the table's fragment redraws
    its cells every ui.kit.runs.POLL s while others land; the ranking costs about 0.1 s at d = 1.8 M)."""
    return _cell_chart(inp.key, inp.hist, *run_spec(method, eps_c), int(seed), method.postprocess)


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
