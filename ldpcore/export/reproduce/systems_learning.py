"""Numeric data and LDP-SGD as code: means and frequencies of a table's attributes (Wang et al., ICDE 2019), and a
model trained from shuffled eps_l-LDP gradient reports (ESA paper, Section VI)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ldpcore.export.reproduce.code import Charts, Program, Step, assign, atom, call, literal, value

if TYPE_CHECKING:  # a page that shows no model imports this module without the training code
    from ldpcore.systems.sgd import SGDConfig


@dataclass(frozen=True)
class SyntheticTable:
    """The paper's synthetic data by name (ldpcore.data.numeric_table.SYNTHETIC): n tuples of d attributes."""

    name: str
    n: int
    d: int

    files: ClassVar[tuple[str, ...]] = ()
    reader: ClassVar[str] = "synthetic_table"

    def code(self) -> str:
        draw = call(
            "synthetic_table", atom(literal(self.name)), str(self.n), str(self.d), "np.random.default_rng([SEED, 0])"
        )
        return assign("table", draw, "the data from stream [SEED, 0], the reports from [SEED, 1]")


@dataclass(frozen=True)
class TableUpload:
    """An uploaded table CSV by its file name, with its categorical columns."""

    file: str
    categorical: tuple[str, ...] = ()

    reader: ClassVar[str] = "load_table_csv"

    @property
    def files(self) -> tuple[str, ...]:
        return (self.file,)

    def code(self) -> str:
        read = call("load_table_csv", atom(f"HERE / {literal(self.file)}"), categorical=tuple(self.categorical))
        return assign("table", read, "your table CSV, read from the file beside this script (or notebook)")


TABLE_CODE = """print(f"{table.name}: n = {table.n:,} respondents, d = {table.d} attributes")
est = estimate_table(table, MECHANISM, EPS, np.random.default_rng([SEED, 1]))
print(est.budget)
for name, mse in (("means", est.numeric_mse), ("frequencies", est.frequency_mse)):
    if mse is not None:
        print(f"MSE of the {name}: {mse[0]:.4g} measured, {mse[1]:.4g} analytic")
compared = [compare_mechanisms(table, e) for e in EPS_GRID]
central = shuffled_eps_c(EPS, table.n, DELTA)
print(f"eps_c when shuffled: {central.eps_c}" if central.valid else central.reason)"""

NUMERIC_FIGURES = '''def estimates(names: list, truth, estimate, std, title: str) -> "go.Figure":
    """Each quantity's truth and estimate with a +- 2 std bar (the analytic std)."""
    import plotly.graph_objects as go

    fig = go.Figure()
    bars = {"type": "data", "array": 2 * np.asarray(std)}
    fig.add_scatter(x=names, y=truth, mode="markers", name="truth")
    fig.add_scatter(x=names, y=estimate, mode="markers", error_y=bars, name="estimate")
    fig.update_layout(title=title)
    return fig


def figures(est: TableEstimate, compared: list, eps_grid: list) -> "list[go.Figure]":
    """The means and the category frequencies against the truth, and every mechanism's
    analytic MSE against eps with the measured one."""
    import plotly.graph_objects as go

    table, shown = est.table, []
    if table.d_numeric:
        names, std = list(table.numeric_names), np.sqrt(est.mean_mse)
        shown.append(estimates(names, est.true_means, est.means, std, "Means"))
    if table.d_categorical:
        pairs = zip(table.categorical_names, table.labels)
        names = [f"{a}={v}" for a, labels in pairs for v in labels]
        parts = (est.true_frequencies, est.frequencies, est.frequency_var)
        truth, freqs, var = (np.concatenate(x) for x in parts)
        shown.append(estimates(names, truth, freqs, np.sqrt(var), "Frequencies"))
    kind = "numeric" if table.d_numeric else "categorical"
    mse = go.Figure()
    for name in getattr(compared[0], kind):
        y = [getattr(c, kind)[name] for c in compared]
        mse.add_scatter(x=eps_grid, y=y, mode="lines", name=name)
    measured = (est.numeric_mse or est.frequency_mse)[0]
    mse.add_scatter(x=[est.eps], y=[measured], mode="markers", name="measured")
    mse.update_layout(title="Expected MSE on this data", xaxis_title="eps")
    mse.update_xaxes(type="log")
    mse.update_yaxes(type="log")
    return [*shown, mse]'''


@dataclass(frozen=True)
class NumericView:
    """The Numeric page: the table (synthetic or an upload), the seed, the mechanism, eps per respondent, the
    delta of the shuffled guarantee and the grid of eps of the MSE chart."""

    source: SyntheticTable | TableUpload
    seed: int
    mechanism: str
    eps: float
    delta: float
    eps_grid: tuple[float, ...]

    def program(self) -> Program:
        inputs = "\n".join(
            [
                f"SEED, MECHANISM = {self.seed}, {literal(self.mechanism)}",
                f"EPS, DELTA = {literal(float(self.eps))}, {literal(float(self.delta))}",
                assign("EPS_GRID", value([float(e) for e in self.eps_grid])),
                self.source.code(),
            ]
        )
        step = Step(
            "Collect the table",
            "Each respondent reports its tuple of numeric (mapped to [-1, 1]) and categorical attributes at "
            "eps-LDP with the mechanism; the analyzer averages the reports into means and debiases OUE bits "
            "into frequencies (Wang, Xiao, Yang, Zhao, Hui, Shin, Shin, Yu, Collecting and Analyzing "
            "Multidimensional Data with Local Differential Privacy, ICDE 2019). Then every mechanism's "
            "analytic MSE on this data, and the central guarantee of the n reports shuffled.",
            f"{inputs}\n{TABLE_CODE}",
        )
        return Program(
            name="numeric",
            title="Numeric: means and frequencies of a table's attributes under numeric LDP",
            about="The Numeric view of the ldpcore dashboard, recomputed with the ldpcore library.",
            origin="the dashboard's Numeric page",
            imports=(
                "import numpy as np",
                "from ldpcore.export import to_json",
                "from ldpcore.export.view_records import numeric_record",
                f"from ldpcore.systems.numeric import shuffled_eps_c, {self.source.reader}",
                "from ldpcore.systems.numeric.analysis import TableEstimate, compare_mechanisms, estimate_table",
            ),
            steps=(step,),
            record=call("numeric_record", "table", "SEED", "est", "EPS_GRID", "compared", "central"),
            record_words="(the page's JSON record)",
            charts=Charts(NUMERIC_FIGURES, call("figures", "est", "compared", "EPS_GRID"), "plotly", "The charts."),
            files=self.source.files,
        )


SGD_CODE = """data = make_classification(
    N, P, np.random.default_rng([SEED, 0]), classes=CLASSES, separation=SEPARATION
)
print(data.description)
config = SGDConfig(**SETTINGS)
if TARGET == "eps_c":  # EPS is the central target: the largest eps_l per report for it
    config, _ = calibrate(config, N, EPS)
result = train(data, config, np.random.default_rng([SEED, 1]))
baseline = train(data, nonprivate_config(config), np.random.default_rng([SEED, 1]))
print(result.accounting.summary())
print(f"accuracy {result.final_accuracy:.3f}, baseline {baseline.final_accuracy:.3f}")"""

SGD_FIGURES = '''def figures(result: TrainResult, baseline: TrainResult) -> "list[go.Figure]":
    """Test accuracy per iteration, private against the non-private baseline."""
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.add_scatter(x=baseline.curve_x, y=baseline.test_accuracy, name="baseline")
    fig.add_scatter(x=result.curve_x, y=result.test_accuracy, name="LDP-SGD")
    fig.update_layout(title="Test accuracy per iteration", xaxis_title="iteration")
    return [fig]'''


@dataclass(frozen=True)
class SGDView:
    """The LDP-SGD page: the synthetic data (n, p features, classes, separation), the seed, the training
    configuration as chosen (before calibration) and what eps is (target "eps_c": the central target over all
    epochs, calibrated; "eps_l": the local eps of each report)."""

    n: int
    p: int
    classes: int
    separation: float
    seed: int
    config: SGDConfig
    target: str
    eps: float

    @property
    def settings(self) -> dict[str, object]:
        """The configuration's fields that differ from SGDConfig's defaults (SGDConfig(**settings) is config)."""
        from ldpcore.systems.sgd import SGDConfig

        default = SGDConfig()
        return {k: v for k, v in self.config.as_dict().items() if v != getattr(default, k)}

    def program(self) -> Program:
        inputs = "\n".join(
            [
                f"N, P, CLASSES, SEED = {self.n}, {self.p}, {self.classes}, {self.seed}",
                f"SEPARATION = {literal(float(self.separation))}",
                f"TARGET, EPS = {literal(self.target)}, {literal(float(self.eps))}",
                assign("SETTINGS", value(self.settings)),
                SGD_CODE,
            ]
        )
        step = Step(
            "Train from shuffled gradient reports",
            "Every respondent of an epoch's disjoint batches sends one eps_l-LDP report of its clipped "
            "gradient; the server averages each batch into a step (ESA paper, Section VI and Algorithm 5; Wang "
            "et al., ICDE 2019, Section V); the shuffled batches amplify eps_l into a central eps per epoch, "
            "composed over the epochs. The baseline trains the same loop without noise.",
            inputs,
        )
        return Program(
            name="sgd",
            title="LDP-SGD: a model trained from shuffled eps_l-LDP gradient reports",
            about="The LDP-SGD view of the ldpcore dashboard, recomputed with the ldpcore library.",
            origin="the dashboard's LDP-SGD page",
            imports=(
                "import numpy as np",
                "from ldpcore.export import to_json",
                "from ldpcore.export.view_records import sgd_record",
                "from ldpcore.systems.sgd import SGDConfig, TrainResult, calibrate, make_classification, "
                "nonprivate_config, train",
            ),
            steps=(step,),
            record=call("sgd_record", "data", "SEED", "config", "result", "baseline"),
            record_words="(the page's JSON record)",
            charts=Charts(SGD_FIGURES, call("figures", "result", "baseline"), "plotly", "The accuracy chart."),
        )
