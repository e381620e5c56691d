"""The systems pages as code: multiple anonymous messages and who can see what, longitudinal tracking and crowd
IDs (ldpcore.systems). Numeric data and LDP-SGD are in systems_learning."""

from __future__ import annotations

from dataclasses import dataclass

from ldpcore.export.reproduce.code import Charts, Program, Step, assign, call, literal, value

MULTI_CODE = """n_grid = np.geomspace(1e3, 1e8, 16).astype(np.int64)
curves = error_against_n(EPS, DELTA, D, n_grid, SHAPE)
for name, curve in curves.items():
    print(f"{name}: RMSE at n = {n_grid[-1]:,}: {curve['rmse'][-1]:.4g}")"""

THREAT_CODE = """rows = threat_table(N, D, DELTA, EPS_L, SHUFFLERS, FAKES, COLLUDING)
for row in rows:
    print(row["protocol"], row["vs server"], row["vs server + shufflers"], sep=" | ")"""

MULTI_FIGURES = '''def figures(n_grid: list, curves: dict) -> "list[go.Figure]":
    """Error and messages per respondent against n, one line per protocol."""
    import plotly.graph_objects as go

    shown = []
    for key, title in (
        ("rmse", "RMSE per value"),
        ("messages", "Messages per respondent"),
    ):
        fig = go.Figure()
        for name, curve in curves.items():
            if key in curve:
                fig.add_scatter(x=n_grid, y=curve[key], mode="lines+markers", name=name)
        fig.update_layout(title=title, xaxis_title="respondents n")
        fig.update_xaxes(type="log")
        fig.update_yaxes(type="log")
        shown.append(fig)
    return shown'''


@dataclass(frozen=True)
class MultiMessageView:
    """The Multi-message page: eps_c, delta, the domain d and the data's shape of the curves against n; n, the
    local eps_l, the shufflers, fakes per shuffler and colluding shufflers of "who can see what"."""

    eps: float
    delta: float
    d: int
    shape: str
    n: int
    eps_l: float
    shufflers: int
    fakes: int
    colluding: int

    def program(self) -> Program:
        curves = "\n".join(
            [
                f"EPS, DELTA = {literal(float(self.eps))}, {literal(float(self.delta))}",
                f"D, SHAPE = {self.d}, {literal(self.shape)}",
                MULTI_CODE,
            ]
        )
        threat = "\n".join(
            [
                f"N, EPS_L = {self.n}, {literal(float(self.eps_l))}",
                f"SHUFFLERS, FAKES, COLLUDING = {self.shufflers}, {self.fakes}, {self.colluding}",
                THREAT_CODE,
            ]
        )
        steps = (
            Step(
                "Single against multiple anonymous messages",
                "Each protocol calibrated to (EPS, DELTA) at every n: the error of its count estimates and the "
                "messages each respondent sends (Ghazi, Golowich, Kumar, Pagh, Velingker, On the Power of "
                "Multiple Anonymous Messages, 2021, Lemmas 4.4 and 4.10), with the lower-bound reference "
                "curves; NaN where a protocol cannot reach (EPS, DELTA) at that n.",
                curves,
            ),
            Step(
                "Who can see what",
                "The eps left against the server alone, the server with the other respondents, and the server "
                "with the shufflers (Wang et al., Practical and Robust Privacy Amplification with Multi-Party "
                "Differential Privacy, 2019).",
                threat,
            ),
        )
        names = "EPS DELTA D SHAPE n_grid curves N EPS_L SHUFFLERS FAKES COLLUDING rows".split()
        record = call("multimessage_record", *names)
        return Program(
            name="multimessage",
            title="Multi-message: single against multiple anonymous messages, and who can see what",
            about="The Multi-message view of the ldpcore dashboard, recomputed with the ldpcore library.",
            origin="the dashboard's Multi-message page",
            imports=(
                "import numpy as np",
                "from ldpcore.export import to_json",
                "from ldpcore.export.view_records import multimessage_record",
                "from ldpcore.systems.multiparty import error_against_n, threat_table",
            ),
            steps=steps,
            record=record,
            record_words="(the page's JSON record)",
            charts=Charts(MULTI_FIGURES, call("figures", "n_grid", "curves"), "plotly", "The page's two charts."),
        )


TRACK_CODE = """rng = np.random.default_rng(SEED)  # one stream: the trajectories, then the reports
trajectories = synthetic_trajectories(N, T, K, rng, initial=INITIAL, rate=RATE)
protocol = TreeProtocol(T, K, EPS, MODE)
run = protocol.track(trajectories, rng)
central = protocol.shuffled_eps(N, DELTA)
print(
    f"client LDP a = {protocol.a:.4g}; messages per respondent {protocol.expected_messages():.4g}"
)
print(f"RMSE {run.rmse:,.1f} (analytic {run.analytic_rmse:,.1f})")
print(f"eps_c when shuffled: {central.eps_c}" if central.valid else central.reason)"""

TRACK_FIGURES = '''def figures(run: Tracking) -> "list[go.Figure]":
    """True and estimated counts in state 1 over the periods, the estimate +- 2 std."""
    import plotly.graph_objects as go

    t = np.arange(1, len(run.truth) + 1)
    low = np.maximum(run.estimate - 2 * run.std, 0)  # a count is never below 0
    band_y = np.r_[run.estimate + 2 * run.std, low[::-1]]
    fig = go.Figure()
    fig.add_scatter(
        x=np.r_[t, t[::-1]], y=band_y, fill="toself", name="estimate +- 2 std"
    )
    fig.add_scatter(x=t, y=run.estimate, mode="lines+markers", name="estimate F_hat_t")
    fig.add_scatter(x=t, y=run.truth, mode="lines", name="true F_t")
    fig.update_layout(title="Respondents in state 1", xaxis_title="period t")
    return [fig]'''


@dataclass(frozen=True)
class LongitudinalView:
    """The Longitudinal page: n respondents over d periods with at most k changes (initial share in state 1,
    change rate), the seed, eps, the mode and the delta of the shuffled guarantee."""

    n: int
    d: int
    k: int
    initial: float
    rate: float
    seed: int
    eps: float
    mode: str
    delta: float

    def program(self) -> Program:
        inputs = "\n".join(
            [
                f"N, T, K, SEED = {self.n}, {self.d}, {self.k}, {self.seed}",
                f"INITIAL, RATE = {literal(float(self.initial))}, {literal(float(self.rate))}",
                f"EPS, MODE, DELTA = {literal(float(self.eps))}, {literal(self.mode)}, {literal(float(self.delta))}",
            ]
        )
        step = Step(
            "Track a boolean state over the periods",
            "N synthetic respondents over T periods (a power of two) change state at most K times; each "
            "reports through the tree protocol of Erlingsson, Feldman, Mironov, Raghunathan, Talwar, "
            "Thakurta (Amplification by Shuffling, SODA 2019, Section 3, corrected), and the server estimates "
            "the running count of respondents in state 1 with its exact std.",
            f"{inputs}\n{TRACK_CODE}",
        )
        data = assign("data", value({"initial": float(self.initial), "rate": float(self.rate)}))
        return Program(
            name="longitudinal",
            title="Longitudinal: a boolean state tracked over periods with few changes",
            about="The Longitudinal view of the ldpcore dashboard, recomputed with the ldpcore library.",
            origin="the dashboard's Longitudinal page",
            imports=(
                "import numpy as np",
                "from ldpcore.export import to_json",
                "from ldpcore.export.view_records import longitudinal_record",
                "from ldpcore.systems.longitudinal import Tracking, TreeProtocol, synthetic_trajectories",
            ),
            steps=(step, Step("What it tracked", "The inputs of the synthetic data, for the record.", data)),
            record=call("longitudinal_record", "protocol", "N", "SEED", "run", "central", "data"),
            record_words="(the page's JSON record)",
            charts=Charts(TRACK_FIGURES, call("figures", "run"), "plotly", "The page's chart."),
        )


CROWD_CODE = """sizes = parse_sizes(SIZES)
guarantees = deletion_guarantees(sizes, EPS_CR, DELTA_CR)
rng = np.random.default_rng(SEED)  # one stream: the deletion, then the data and its IDs
deletion = sample_deletion(sizes, EPS_CR, DELTA_CR, rng)
print(f"Theorem V.2 bound {guarantees.bound:.1f}; dropped {deletion.dropped.tolist()}")
alone, pooled = partition_errors(sizes, EPS_L)
print(f"std within each crowd {alone.round(1).tolist()}, over all {pooled:.1f}")
hitters = min(10, VALUES - 1)
data = synthetic_heavy_hitters(rng, d=VALUES, n=int(sizes.sum()), hitters=hitters)
shares = np.linspace(0.02, 0.98, 49)  # of eps_l spent on the crowd ID
ids = data_derived_ids(VALUES, M, rng)
split = crowd_id_split(data.counts, ids, EPS_L, shares * EPS_L, M)
print(f"best split / whole std over all splits and values: {split.best_ratio:.3g}")"""

CROWD_FIGURES = '''def figures(sizes, guarantees, deletion, alone, pooled, split) -> "list[go.Figure]":
    """Reports dropped per crowd; the std of a count within each crowd; the split of
    eps_l for a data-derived crowd ID against not splitting."""
    import plotly.graph_objects as go

    labels = [f"{i + 1} ({n:,})" for i, n in enumerate(sizes)]
    drops = go.Figure()
    drops.add_bar(x=labels, y=deletion.dropped, name="dropped in this run")
    drops.add_scatter(
        x=labels, y=guarantees.expected_drops, mode="markers", name="expected"
    )
    drops.add_hline(y=guarantees.bound, line_dash="dot", annotation_text="Theorem V.2")
    crowds = go.Figure()
    crowds.add_bar(x=labels, y=alone, name="estimated within the crowd")
    crowds.add_scatter(
        x=labels, y=[pooled] * len(labels), name="over the whole data set"
    )
    crowds.update_yaxes(type="log")
    ratios = split.ratios
    shares = split.eps_hat / split.eps_l
    ids = go.Figure()
    ids.add_scatter(x=shares, y=np.median(ratios, axis=1), name="median over values")
    ids.add_scatter(x=shares, y=ratios.min(axis=1), name="best value")
    ids.update_yaxes(type="log")
    for fig, title in zip((drops, crowds, ids), ("Drops", "Natural IDs", "Data IDs")):
        fig.update_layout(title=title)
    return [drops, crowds, ids]'''


@dataclass(frozen=True)
class CrowdsView:
    """The Crowd IDs page: the crowd sizes as typed, Algorithm 3's eps_cr and delta_cr, the seed, eps_l of each
    report, the data-derived IDs m and the values in the domain."""

    sizes: str
    eps_cr: float
    delta_cr: float
    seed: int
    eps_l: float
    m: int
    values: int

    def program(self) -> Program:
        inputs = "\n".join(
            [
                assign("SIZES", value(self.sizes)),
                f"EPS_CR, DELTA_CR = {literal(float(self.eps_cr))}, {literal(float(self.delta_cr))}",
                f"SEED, EPS_L, M, VALUES = {self.seed}, {literal(float(self.eps_l))}, {self.m}, {self.values}",
            ]
        )
        step = Step(
            "Crowds",
            "Randomized report deletion (ESA paper, Algorithm 3) keeps a noisy number of reports per crowd ID "
            "with Theorem V.2's bound on the drops; a count estimated within a natural crowd has a larger std "
            "than one over the whole data; and splitting eps_l to send a data-derived crowd ID never pays "
            "(Section V).",
            f"{inputs}\n{CROWD_CODE}",
        )
        return Program(
            name="crowds",
            title="Crowd IDs: randomized report deletion and the cost of crowd IDs",
            about="The Crowd IDs view of the ldpcore dashboard, recomputed with the ldpcore library.",
            origin="the dashboard's Crowd IDs page",
            imports=(
                "import numpy as np",
                "from ldpcore.data.datasets import synthetic_heavy_hitters",
                "from ldpcore.export import to_json",
                "from ldpcore.export.view_records import crowds_record",
                "from ldpcore.systems.crowds import crowd_id_split, data_derived_ids, deletion_guarantees, "
                "parse_sizes, partition_errors, sample_deletion",
            ),
            steps=(step,),
            record=call("crowds_record", "sizes", "SEED", "guarantees", "deletion", "alone", "pooled", "split"),
            record_words="(the page's JSON record)",
            charts=Charts(
                CROWD_FIGURES,
                call("figures", "sizes", "guarantees", "deletion", "alone", "pooled", "split"),
                "plotly",
                "The page's three charts.",
            ),
        )
