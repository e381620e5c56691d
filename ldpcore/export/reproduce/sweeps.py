"""Trade-offs and the Report table as code: the paper's methods (Erlingsson et al. 2020, Table IV: the central
Gaussian, attribute fragments, report fragments at several tau, other encodings to compare) swept over eps_c."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ldpcore.experiment.protocol.spec import ProtocolSpec
from ldpcore.export.reproduce.code import Charts, Program, Step, assign, call, literal, value
from ldpcore.export.reproduce.protocol import protocol_words, spec_code
from ldpcore.export.reproduce.sources import Source

METHODS_WORDS = (
    "The columns of Table IV of the ESA paper: the central Gaussian baseline (no local privacy), attribute "
    "fragments and report fragments at each tau (one-hot only), then any other encoding to compare at its "
    "default parameters and accountant."
)
SHOW_METHODS = "for method in methods:\n    print(method.label)"


POST_METHODS = """methods = [
    replace(m, label=f"{m.label} + {POSTPROCESS}", postprocess=POSTPROCESS)
    for m in methods
]"""
POST_WORDS = (
    " Every column shows its estimate after the post-processing POSTPROCESS (ldpcore.experiment.protocol."
    "postprocess), applied to the raw estimate of the same run; a column whose encoding has no law for it is not "
    "defined, with the reason."
)


def _methods_step(spec: ProtocolSpec, seed: int, taus, central: bool, compare, postprocess: str | None = None) -> Step:
    methods = call("ldpcore.paper_methods", "spec", taus=list(taus), central=central, compare=list(compare))
    code = [assign("spec", spec_code(spec)), f"SEED = {seed}", assign("methods", methods)]
    if postprocess is not None:
        code += [f"POSTPROCESS = {literal(postprocess)}", POST_METHODS]
    words = protocol_words(spec) + " " + METHODS_WORDS + ("" if postprocess is None else POST_WORDS)
    return Step("The methods", words, "\n".join([*code, SHOW_METHODS]))


def fine_points(lo: float, hi: float) -> int:
    """The points of Trade-offs' analytic lines from lo to hi: 24 per decade, at least 12 (1 where hi = lo)."""
    return max(12, math.ceil(24 * math.log10(hi / lo)) + 1) if hi > lo else 1


def _grid(lo: float, hi: float, points: int) -> str:
    """The page's grid of eps_c: points log-spaced from lo to hi (lo alone where hi = lo)."""
    if hi > lo:
        return f"[float(e) for e in np.geomspace({literal(lo)}, {literal(hi)}, {points})]"
    return f"[{literal(lo)}]"


POST_SWEEP_WORDS = (
    " Beside them, every column again after each post-processing of POSTPROCESS (ldpcore.experiment.protocol."
    "postprocess), applied to the same runs' raw estimates: measured only, a post-processed estimate's error "
    "has no analytic line."
)
POST_SWEEP = "columns = with_postprocessing(methods, POSTPROCESS)\n"

SWEEP_CODE = """measured = ldpcore.sweep({columns}, eps_measured, hist, SEED)
for cell in measured:
    at = f"{cell.method} at eps_c = {cell.eps_c:.4g}"
    if cell.error:
        print(f"{at}: not defined ({cell.error})")
    else:
        m = cell.metrics
        print(f"{at}: RMSE {m['rmse']:.6g} (raw {m['rmse_raw']:.6g})")"""

CURVES_CODE = """curves = {m.label: [analytic(m, e, hist, NOTION) for e in eps_fine] for m in methods}
at_eps_c = {m.label: analytic(m, EPS_C, hist, NOTION) for m in methods}
for label, row in at_eps_c.items():
    if row is None:
        print(f"{label} at eps_c = {EPS_C:g}: not defined")
    else:
        print(f"{label}: eps_l_inf {row['eps_l_inf']:.4g}, RMSE {row['rmse_raw']:.4g}")"""

TRADEOFF_FIGURES = '''def figures(
    methods: list, curves: dict, measured: list, notion: str
) -> "list[go.Figure]":
    """RMSE, local epsilons and messages against eps_c: analytic lines (computed in
    `notion`), measured markers (open: raw, filled: clipped, diamonds: after a
    post-processing; restated in `notion`)."""
    import plotly.graph_objects as go
    from plotly.colors import qualitative

    error, local, messages = go.Figure(), go.Figure(), go.Figure()
    cells = cells_on_notion([c for c in measured if c.error is None], notion)
    for i, m in enumerate(methods):
        color = {"color": qualitative.Plotly[i % 10]}
        line = [c for c in curves.get(m.label, []) if c is not None]
        x = [c["eps_c"] for c in line]
        y = [c["rmse_raw"] for c in line]
        if line:
            error.add_scatter(x=x, y=y, mode="lines", name=m.label, line=color)
        ok = [c for c in cells if c.method == m.label]
        at = [c.privacy["eps_c"] for c in ok]
        marks = [("rmse", "diamond")]
        if not m.postprocess:
            marks = [("rmse_raw", "circle-open"), ("rmse", "circle")]
        for key, symbol in marks:
            y = [c.metrics[key] for c in ok]
            mark = {**color, "symbol": symbol}
            legend = m.postprocess is not None
            error.add_scatter(
                x=at, y=y, mode="markers", marker=mark, name=m.label, showlegend=legend
            )
        if m.central or m.postprocess:
            continue
        for key, dash in (("eps_l_inf", None), ("eps_l_1", "dash")):
            y = [c[key] for c in line]
            style = {**color, "dash": dash}
            name = f"{m.label}: {key}"
            local.add_scatter(x=x, y=y, mode="lines", name=name, line=style)
        y = [c["expected_messages"] for c in line]
        messages.add_scatter(x=x, y=y, mode="lines", name=m.label, line=color)
    titles = ("Error against eps_c", "Local guarantees", "Messages per phone")
    y_titles = ("RMSE per bin", "local eps (nats)", "expected messages")
    for fig, title, y_title in zip((error, local, messages), titles, y_titles):
        fig.update_layout(title=title, xaxis_title="central eps_c", yaxis_title=y_title)
        fig.update_xaxes(type="log")
        fig.update_yaxes(type="log" if fig is not local else "linear")
    return [error, local, messages]'''


@dataclass(frozen=True)
class TradeoffsView:
    """The Trade-offs page: the data, the sidebar's spec and seed, the chosen eps_c, the sweep from lo to hi
    (points measured, the analytic lines on a finer grid), the tau columns, the central baseline, the
    encodings to compare, the notion the charts restate epsilons in, and the post-processings measured beside
    the columns."""

    source: Source
    spec: ProtocolSpec
    seed: int
    eps_c: float
    lo: float
    hi: float
    points: int
    taus: tuple[int, ...]
    central: bool
    compare: tuple[str, ...]
    notion: str
    postprocess: tuple[str, ...] = ()  # a measured curve per method and column after each

    @property
    def fine_points(self) -> int:
        return fine_points(self.lo, self.hi)

    def program(self) -> Program:
        imports = {
            *self.source.imports,
            "import ldpcore",
            "import numpy as np",
            "from ldpcore.experiment.protocol.run import analytic"
            + (", with_postprocessing" if self.postprocess else ""),
            "from ldpcore.export import to_json",
            "from ldpcore.experiment.protocol.compare import cells_on_notion",
            "from ldpcore.export.view_records import tradeoffs_record",
        }
        grids = "\n".join(
            [
                f"EPS_C, NOTION = {literal(self.eps_c)}, {literal(self.notion)}",
                f"eps_fine = {_grid(self.lo, self.hi, self.fine_points)}",
            ]
        )
        steps = (
            self.source.step(),
            _methods_step(self.spec, self.seed, self.taus, self.central, self.compare),
            Step(
                "The analytic lines",
                "Each method's plan at every eps_c of a fine grid, without simulating: the local epsilons, the "
                "messages and the root mean variance of the bins' raw estimates (exact for the unbiased "
                "estimators); and the same at the chosen eps_c (the page's table). NOTION replacement: eps_c "
                "and the local epsilons read under replacement (a zero-out accountant's two changed channels "
                "composed, the Gaussian at sensitivity sqrt(2)), the native values beside them.",
                f"{grids}\n{CURVES_CODE}",
            ),
            Step(
                "The measured points",
                "Every method simulated at each measured eps_c with the seed (ldpcore.sweep: the same cells as "
                "the page's); a setting a method cannot reach is a cell with the reason."
                + (POST_SWEEP_WORDS if self.postprocess else ""),
                f"eps_measured = {_grid(self.lo, self.hi, self.points)}\n"
                + (f"POSTPROCESS = {literal(list(self.postprocess))}\n{POST_SWEEP}" if self.postprocess else "")
                + SWEEP_CODE.replace("{columns}", "columns" if self.postprocess else "methods"),
            ),
        )
        columns = "columns" if self.postprocess else "methods"
        names = ("hist", "SEED", "NOTION", columns, "measured", "eps_fine", "curves", "EPS_C")
        record = call("tradeoffs_record", *names, "at_eps_c")
        charts = Charts(
            TRADEOFF_FIGURES,
            call("figures", columns, "curves", "measured", "NOTION"),
            "plotly",
            "The page's three charts: error, local epsilons (solid: eps per phone; dashed: per captured "
            "shuffler) and messages against eps_c.",
        )
        return Program(
            name="tradeoffs",
            title="Trade-offs: error, local epsilons and messages against eps_c",
            about="The Trade-offs view of the ldpcore dashboard, recomputed with the ldpcore library.",
            origin="the dashboard's Trade-offs page",
            imports=tuple(sorted(imports)),
            steps=steps,
            record=record,
            record_words="(the page's JSON record)",
            charts=charts,
            files=self.source.files,
        )


TABLE_CODE = """cells = cells_on_notion(ldpcore.sweep(methods, EPS_ROWS, hist, SEED), NOTION)
info = TableInfo(hist.name, hist.n, spec.delta, SEED, spec.accountant_name)
print(info.title())
for row in table_rows(cells):
    print(f"eps_c = {row['eps_c']}, {row['method']}: " + " | ".join(cell_caption(row)))"""

TABLE_PICTURE = '''def pictures(cells: list, hist: ldpcore.Histogram, info: TableInfo) -> dict:
    """The report table as one picture with its title (the page's Table (PNG))."""
    return {"report_table": Image.open(io.BytesIO(table_png(cells, hist, info=info)))}'''


@dataclass(frozen=True)
class ReportTableView:
    """The Report table page: the data, the sidebar's spec and seed, the eps_c rows, the tau columns, the
    central baseline, the encodings to compare, the notion of the cells and the post-processing (None: raw)."""

    source: Source
    spec: ProtocolSpec
    seed: int
    eps_rows: tuple[float, ...]
    taus: tuple[int, ...]
    central: bool
    compare: tuple[str, ...]
    notion: str
    postprocess: str | None = None

    def program(self) -> Program:
        imports = {
            *self.source.imports,
            *(() if self.postprocess is None else ("from dataclasses import replace",)),
            "import io",
            "import ldpcore",
            "from ldpcore.experiment.protocol.compare import cells_on_notion",
            "from ldpcore.export import TableInfo, cell_caption, table_png, table_rows, to_json",
            "from ldpcore.export.view_records import report_table_record",
            "from PIL import Image",
        }
        rows = "\n".join([assign("EPS_ROWS", value(sorted(self.eps_rows))), f"NOTION = {literal(self.notion)}"])
        steps = (
            self.source.step(),
            _methods_step(self.spec, self.seed, self.taus, self.central, self.compare, self.postprocess),
            Step(
                "The table",
                "Every method at every eps_c row with the seed, restated in one neighbouring notion where "
                "NOTION is replacement (a zero-out guarantee per channel: the accountant's two changed channels "
                "composed through its dominating pair; the Gaussian at sensitivity sqrt(2)); each cell's "
                "caption as the page and the exports print it.",
                f"{rows}\n{TABLE_CODE}",
            ),
        )
        return Program(
            name="report_table",
            title="Report table: reconstructions at each eps_c for each method, as Table IV",
            about="The Report table view of the ldpcore dashboard, recomputed with the ldpcore library.",
            origin="the dashboard's Report table page",
            imports=tuple(sorted(imports)),
            steps=steps,
            record=call("report_table_record", "info", "NOTION", "cells"),
            record_words="(the page's JSON record)",
            charts=Charts(
                TABLE_PICTURE,
                call("pictures", "cells", "hist", "info"),
                "images",
                "The table as one PNG with its title, as the page's Table (PNG) download.",
            ),
            files=self.source.files,
        )
