"""Reconstruct and `ldpcore run` as code: one ESA run on the data, beside the same reports without a shuffler
and the central Gaussian baseline (Erlingsson et al., Encode, Shuffle, Analyze Privacy Revisited, 2020)."""

from __future__ import annotations

from dataclasses import dataclass

from ldpcore.experiment.protocol.spec import ProtocolSpec
from ldpcore.export.reproduce.code import Charts, Code, Program, Step, assign, atom, call, literal
from ldpcore.export.reproduce.sources import Source
from ldpcore.oracles import get_encoding

_DEFAULTS = ProtocolSpec()


def spec_code(spec: ProtocolSpec) -> Code:
    """ldpcore.ProtocolSpec(...) with the fields that make `spec` (eps, delta, encoding and accountant always;
    the others where they differ from ProtocolSpec's defaults)."""
    fields = spec.as_dict()
    always = (*(("eps_c", "eps_l") if spec.eps_c is None else ("eps_c",)), "delta", "encoding", "accountant")
    shown = {
        k: v for k, v in fields.items() if k in always or (k != "eps_c" and v != getattr(_DEFAULTS, k) and v != {})
    }
    order = [*always, *(k for k in fields if k not in always)]
    return call("ldpcore.ProtocolSpec", **{k: shown[k] for k in order if k in shown})


ESA_PAPER = (
    "Erlingsson, Feldman, Mironov, Raghunathan, Song, Talwar, Thakurta, Encode, Shuffle, Analyze Privacy "
    "Revisited, 2020"
)


def protocol_words(spec: ProtocolSpec) -> str:
    """What the spec runs, citing the algorithm."""
    encoding = get_encoding(spec.encoding)
    if not encoding.fragments:
        how = f"the {encoding.title} encoding, one report per respondent"
    elif spec.tau is None:
        how = "attribute fragments, one anonymous message per set bit of the one-hot report (Algorithm 1)"
    else:
        how = f"report fragments, each report cut into tau = {spec.tau} fragments beside a backstop (Algorithm 2)"
    return (
        f"The protocols of the ESA paper ({ESA_PAPER}). A ProtocolSpec holds what to run: {how}; the central "
        "target eps_c and delta; the accountant that turns eps_c into the local epsilon. plan() computes every "
        "privacy number without simulating: eps_l_inf is what the server learns about a respondent without a "
        "shuffler, eps_l_1 what one captured shuffler learns, eps_c what the analyst learns after shuffling "
        "(all in nats)."
    )


def protocol_step(spec: ProtocolSpec, seed: int) -> Step:
    """The spec, the seed and the plan's privacy numbers."""
    return Step("The protocol", protocol_words(spec), f"{assign('spec', spec_code(spec))}\nSEED = {seed}\n{PLAN_CODE}")


PLAN_CODE = """plan = ldpcore.plan(spec, hist.n, hist.d)
print(f"eps_l_inf = {plan.eps_l_inf:.6g}, eps_l_1 = {plan.eps_l_1:.6g} (local, nats)")
print(f"eps_c = {plan.eps_c:.6g} at delta = {spec.delta:g}, certified {plan.certified}")
print(f"accountant: {plan.amplification.citation}")"""

ESA_CODE = """esa = evaluate(Method("ESA", spec), spec.eps_c, hist, SEED)
if esa.error:  # settings the accountant or the encoding refuse: the reason
    raise SystemExit(esa.error)
m = esa.metrics
print(f"ESA: RMSE {m['rmse']:.6g}, largest error {m['linf']:.6g} per bin")
print(f"messages per respondent {m['expected_messages']:.6g}")"""

BESIDE_CODE = """alone = without_shuffler(Method("ESA", spec), spec.eps_c, hist, SEED)
baseline = Method("Central Gaussian", spec, central=True)
central = evaluate(baseline, spec.eps_c, hist, SEED)
for name, cell in (("no shuffler", alone), ("central Gaussian", central)):
    print(f"{name}: " + (cell.error or f"RMSE {cell.metrics['rmse']:.6g}"))"""

POST_CODE = """post = postprocess_cell(esa, POSTPROCESS, hist)
if post.error:  # the encoding has no law for the method: the reason
    raise SystemExit(post.error)
m = post.metrics
print(f"after {METHODS[POSTPROCESS].title}:")
print(f"RMSE {m['rmse']:.6g}, largest error {m['linf']:.6g} per bin")"""

PICTURES = '''def pictures(hist: ldpcore.Histogram, cells: dict) -> dict:
    """The original and each reconstruction on the original's grey scale."""
    shown = {"original": render(hist)}
    for name, cell in cells.items():
        if cell.error is None:
            shown[name] = render(hist, cell.estimate)
    return shown'''

RANKED = '''def figures(
    hist: ldpcore.Histogram, series: dict, top_k: int, log_y: bool, view: str
) -> "list[go.Figure]":
    """Bins ranked by their true count with each estimate (and its 95% band), or the
    true count against the ESA estimate."""
    import plotly.graph_objects as go

    shown = ranked(hist.counts, series, top_k=top_k or None, labels=hist.labels)
    fig = go.Figure()
    if view != "ranked":
        name = next(iter(shown.series))
        top = float(max(shown.truth.max(), 1.0))
        diagonal = {"color": "gray", "dash": "dot"}
        fig.add_scatter(x=[0, top], y=[0, top], mode="lines", line=diagonal)
        fig.add_scatter(x=shown.truth, y=shown.series[name], mode="markers", name=name)
        fig.update_layout(xaxis_title="true respondents", yaxis_title="estimated")
        return [fig]
    x = shown.rank
    for name in shown.low:
        band_y = np.r_[shown.high[name], shown.low[name][::-1]]
        band_x = np.r_[x, x[::-1]]
        band = {"width": 0}
        fig.add_scatter(x=band_x, y=band_y, fill="toself", line=band, name="95% band")
    truth = {"color": "black", "width": 3}
    fig.add_scatter(x=x, y=shown.truth, mode="lines", name="true count", line=truth)
    for name, y in shown.series.items():
        fig.add_scatter(x=x, y=y, mode="lines+markers", name=name)
    fig.update_layout(xaxis_title="rank by true count", yaxis_title="respondents")
    if log_y:
        fig.update_yaxes(type="log")
    return [fig]'''


@dataclass(frozen=True)
class ReconstructView:
    """The Reconstruct page: the data, the sidebar's spec (eps_c set) and seed; for a histogram, the chart's
    top-k zoom (0: every bin), log scale and view ("ranked" or "true vs estimate")."""

    source: Source
    spec: ProtocolSpec
    seed: int
    top_k: int = 0
    log_y: bool = True
    view: str = "ranked"
    image: bool = True
    postprocess: str | None = None

    def _charts(self) -> tuple[Charts, set[str]]:
        """The page's pictures (an image) or its histogram chart, and what they import."""
        shown = "esa" if self.postprocess is None else "post"
        if self.image:
            cells = '{"no_shuffler": alone, "esa": ' + shown + ', "central": central}'
            pictures = call("pictures", "hist", atom(cells))
            words = (
                "The original, the reports without a shuffler, the ESA reconstruction and the central baseline, "
                "on one grey scale (ldpcore.export.render), as the page shows them."
            )
            return Charts(PICTURES, pictures, "images", words), {"from ldpcore.export import render"}
        band = "bin_std(spec, hist)" if self.postprocess is None else "None"  # a post-processed estimate: no band
        series = (
            f'series = {{"ESA reconstruction": ({shown}.estimate, {band})}}\n'
            "if alone.error is None:\n"
            '    series[f"no shuffler at eps_l = {spec.eps_c:g}"] = (alone.estimate, None)'
        )
        words = (
            "The histogram view of the page: bins ranked by true count (ldpcore.experiment.protocol.histogram_view."
            "ranked: beyond the top 500 ranks, groups of ranks are averaged)."
        )
        draw = call("figures", "hist", "series", top_k=self.top_k, log_y=self.log_y, view=self.view)
        ranked = "bin_std, ranked" if self.postprocess is None else "ranked"
        imports = {"import numpy as np", f"from ldpcore.experiment.protocol.histogram_view import {ranked}"}
        return Charts(RANKED + "\n\n\n" + series, draw, "plotly", words), imports

    def program(self) -> Program:
        charts, imports = self._charts()
        imports |= {
            *self.source.imports,
            "import ldpcore",
            "from ldpcore.experiment.protocol.local_only import without_shuffler",
            "from ldpcore.experiment.protocol.run import Method, evaluate",
            "from ldpcore.export import to_json",
            "from ldpcore.export.view_records import reconstruct_record",
        }
        steps: tuple[Step, ...] = (
            self.source.step(),
            protocol_step(self.spec, self.seed),
            Step(
                "Shuffle and estimate (ESA)",
                "evaluate() runs the protocol once with the seed: it draws the shuffled counts the analyzer sees "
                "exactly (binomials, at a cost independent of n), debiases them into an estimate and measures "
                "its error (RMSE per bin after clipping to [0, the input's maximum]). It is the page's call.",
                ESA_CODE,
            ),
            Step(
                "Beside it: no shuffler, and the central baseline",
                "The same encoding without a shuffler at eps_l = eps_c (what the reports alone would have to "
                "give), and the analytic Gaussian mechanism on the true counts at the same (eps_c, delta), "
                "without local privacy (Balle and Wang, ICML 2018).",
                BESIDE_CODE,
            ),
        )
        if self.postprocess is not None:
            imports.add("from ldpcore.experiment.protocol.postprocess import METHODS")
            imports.add("from ldpcore.experiment.protocol.run import Method, evaluate, postprocess_cell")
            imports.discard("from ldpcore.experiment.protocol.run import Method, evaluate")
            steps += (
                Step(
                    "Post-processing",
                    "The page's post-processing of the ESA estimate (ldpcore.experiment.protocol.postprocess: "
                    "its method, citation and what it keeps), applied to the same run's raw estimate; its picture "
                    "and metrics are the page's, the raw run's are kept beside them in the record.",
                    f"POSTPROCESS = {literal(self.postprocess)}\n{POST_CODE}",
                ),
            )
        return Program(
            name="reconstruct",
            title="Reconstruct: one ESA run, beside no shuffler and the central baseline",
            about="The Reconstruct view of the ldpcore dashboard, recomputed with the ldpcore library.",
            origin="the dashboard's Reconstruct page",
            imports=tuple(sorted(imports)),
            steps=steps,
            record=call(
                "reconstruct_record",
                "hist",
                "spec",
                "SEED",
                "esa",
                "central",
                "alone",
                **({} if self.postprocess is None else {"post": atom("post")}),
            ),
            record_words="(the page's Run record, run.json)",
            charts=charts,
            files=self.source.files,
        )


RUN_CODE = """result = ldpcore.run(spec, hist, seed=SEED{post})
central = ldpcore.run_central(result.plan.eps_c, spec.delta, hist, seed=SEED)
m = result.metrics
print(f"ESA: RMSE {m['rmse']:.6g}, largest error {m['linf']:.6g} per bin")
print(f"central: sigma {central.sigma:.6g}, RMSE {central.metrics['rmse']:.6g}")"""


@dataclass(frozen=True)
class RunCommand:
    """`ldpcore run`: the data, the spec and the seed (and the post-processing, --postprocess); the record is the
    command's JSON (run_command_record) without its timing and files."""

    source: Source
    spec: ProtocolSpec
    seed: int
    command: str
    postprocess: str | None = None

    def program(self) -> Program:
        post = self.postprocess
        imports = {
            *self.source.imports,
            "import ldpcore",
            "from ldpcore.export import to_json",
            "from ldpcore.export.view_records import run_command_record",
        }
        steps = (
            self.source.step(),
            protocol_step(self.spec, self.seed),
            Step(
                "Shuffle and estimate, and the central baseline",
                "ldpcore.run draws the shuffled counts the analyzer sees exactly and estimates the histogram; "
                "run_central is the analytic Gaussian mechanism at the certified (eps_c, delta), without local "
                "privacy.",
                RUN_CODE.replace("{post}", "" if post is None else f", postprocess={literal(post)}"),
            ),
        )
        return Program(
            name="run",
            title="ldpcore run: one ESA run and the central baseline",
            about=f"The command `{plain_command(self.command)}`, as code.",
            origin="the ldpcore command line",
            imports=tuple(sorted(imports)),
            steps=steps,
            record=call("run_command_record", "result", "central", *(["report"] if _ingests(self.source) else [])),
            record_words="(the command's --json output, without its seconds and files)",
            files=self.source.files,
        )


def _ingests(source: Source) -> bool:
    return type(source).__name__ in ("Records", "Points", "Sample")


def plain_command(command: str) -> str:
    """The command line as it can stand in a docstring (see code.plain), quotes kept out."""
    return "".join(ch if ch.isalnum() or ch in " .,_-:=/+" else "?" for ch in command)


__all__ = ["ReconstructView", "RunCommand", "literal", "spec_code"]
