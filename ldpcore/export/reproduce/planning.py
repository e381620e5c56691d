"""Plan, the Accountant and the Adversary as code: the planner's table (one PlanQuery, answered), every
amplification bound side by side, and the empirical audits of each observer."""

from __future__ import annotations

from dataclasses import dataclass

from ldpcore.experiment.protocol.spec import ProtocolSpec
from ldpcore.export.reproduce.code import Charts, Code, Program, Step, assign, atom, call, literal
from ldpcore.export.reproduce.protocol import plain_command, protocol_step, spec_code
from ldpcore.export.reproduce.sources import Source

ANSWER_CODE = """table = answer(query)
print(f"{table.name}: n = {table.n:,}, d = {table.d:,}, delta = {table.delta:g}")
for row in table.rows:
    rank = "ranked" if row.ranked else "not ranked: " + row.reason
    print(
        f"{row.encoding} / {row.accountant}: eps_c {row.eps_c}, RMSE {row.rmse}, {rank}"
    )
best = table.recommended
print("recommended: " + ("none" if best is None else best.encoding), "-", table.reason)"""

PARETO = '''def figures(table: PlanTable) -> "list[go.Figure]":
    """Predicted RMSE against bits per respondent, one point per row (x: not ranked)."""
    import plotly.graph_objects as go

    fig = go.Figure()
    rows = [r for r in table.rows if r.rmse is not None and r.bits_per_respondent]
    for name in dict.fromkeys(r.encoding for r in rows):
        mine = [r for r in rows if r.encoding == name]
        x = [r.bits_per_respondent for r in mine]
        y = [r.rmse for r in mine]
        marker = {"symbol": ["circle" if r.ranked else "x" for r in mine], "size": 9}
        fig.add_scatter(x=x, y=y, mode="markers", name=name, marker=marker)
    fig.update_layout(
        title="Predicted error against communication (x: not ranked)",
        xaxis_title="bits per respondent",
        yaxis_title="predicted raw RMSE per bin",
    )
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return [fig]'''


@dataclass(frozen=True)
class PlanView:
    """The Plan page (and `ldpcore plan`): the data and the fields of its PlanQuery (delta and how it was
    chosen, eps_c, the target error, what to solve for, the notion, the encodings, the constraints, the
    collections from the same people; the post-processing ranked on)."""

    source: Source
    delta: float
    eps_c: float | None
    solve: str = "table"
    target: tuple[str, float] | None = None
    notion: str = "replacement"
    encodings: tuple[str, ...] = ()
    max_messages: float | None = None
    max_bits: float | None = None
    delta_from: str = "given"
    command: str = ""  # the `ldpcore plan` command it comes from ("": the Plan page)
    rounds: int = 1
    rule: str = "lowest-error"  # the recommendation's rule on the Pareto set (planning.RULES)
    delta_with_n: bool = False  # solving for n: delta about 1/(10 n) at each n (else held fixed)
    postprocess: str | None = None  # the post-processing the table ranks on (None: the raw estimate)

    def query(self) -> Code:
        options: dict[str, object] = {}
        if self.delta_from != "given":
            options["delta_from"] = atom(literal(self.delta_from))
        if self.eps_c is not None:
            options["eps_c"] = atom(literal(float(self.eps_c)))
        if self.target is not None:
            options["target"] = call("Target", atom(literal(self.target[0])), atom(literal(float(self.target[1]))))
        options["solve"] = atom(literal(self.solve))
        options["notion"] = atom(literal(self.notion))
        if self.encodings:
            options["encodings"] = atom(literal(tuple(self.encodings)))
        if self.max_messages is not None or self.max_bits is not None:
            options["constraints"] = call("Constraints", atom(literal(self.max_messages)), atom(literal(self.max_bits)))
        if self.rounds != 1:
            options["rounds"] = atom(literal(self.rounds))
        if self.rule != "lowest-error":
            options["rule"] = atom(literal(self.rule))
        if self.delta_with_n:
            options["delta_with_n"] = atom(literal(True))
        if self.postprocess is not None:
            options["postprocess"] = atom(literal(self.postprocess))
        return call("PlanQuery", "hist.counts", "hist.name", atom(literal(float(self.delta))), **options)

    def program(self) -> Program:
        imports = {
            *self.source.imports,
            "from ldpcore.experiment.planning import PlanQuery, PlanTable, answer",
            "from ldpcore.export import to_json",
        }
        if self.target is not None:
            imports.add("from ldpcore.experiment.planning import Target")
        if self.max_messages is not None or self.max_bits is not None:
            imports.add("from ldpcore.experiment.planning import Constraints")
        steps = (
            self.source.step(),
            Step(
                "The question",
                "One PlanQuery: the data's counts, delta, and either eps_c (the table at eps_c), a target error "
                "to solve for the smallest eps_c, or both to solve for the smallest number of respondents n; "
                "the neighbouring notion every row's eps_c is stated in (replacement: one-hot's zero-out "
                "accounting composed over the two changed channels, each row says how); the encodings (empty: "
                "all), the constraints and the collections from the same people (rounds: eps_c and delta their "
                "total).",
                assign("query", self.query()),
            ),
            Step(
                "The answer",
                "answer() plans every encoding with every accountant that holds for it, analytically (the "
                "estimators' variances, no simulation), ranks the rows and recommends one.",
                ANSWER_CODE,
            ),
        )
        return Program(
            name="plan",
            title="Plan: every encoding and accountant side by side",
            about="The planner's table (ldpcore.experiment.planning) for the data and the question asked"
            + (f": the command `{plain_command(self.command)}`." if self.command else "."),
            origin="the ldpcore command line" if self.command else "the dashboard's Plan page",
            imports=tuple(sorted(imports)),
            steps=steps,
            record=atom("table.as_dict()"),
            record_words="(the Table (JSON) download, `ldpcore plan --json`)",
            charts=Charts(PARETO, call("figures", "table"), "plotly", "The Pareto chart of the page."),
            files=self.source.files,
        )


BOUNDS_CODE = """rows = compare(N, DELTA, K, **{GIVEN: VALUE}, rounds=ROUNDS, notion=NOTION)
for a in rows:
    found = f"eps0 {a.eps0:.4g}, eps_c {a.eps_c:.4g}" if a.valid else a.reason
    print(f"{a.bound}: {found}")"""

ACCOUNTANT_CURVES = """eps0_grid = [float(e) for e in np.geomspace(0.05, 20, 20)]
n_grid = [int(x) for x in np.geomspace(1e3, 1e9, 10)]
eps_c_curves = {name: eps_c_curve(name, eps0_grid, N, DELTA, K) for name in BOUNDS}
eps0_curves = {name: eps0_curve(name, TARGET, n_grid, DELTA, K) for name in BOUNDS}"""

ACCOUNTANT_FIGURES = '''def figures(
    eps0_grid: list, eps_c_curves: dict, n_grid: list, eps0_curves: dict, target: float
) -> "list[go.Figure]":
    """eps_c against eps0, and the largest eps0 for eps_c = target against n: one line
    per bound (gaps where a bound gives nothing), log axes."""
    import plotly.graph_objects as go

    shown = []
    for x, curves, title, x_title in (
        (eps0_grid, eps_c_curves, "eps_c against eps0", "local eps0"),
        (n_grid, eps0_curves, f"Largest eps0 for eps_c = {target:g}", "respondents n"),
    ):
        fig = go.Figure()
        for name, y in curves.items():
            fig.add_scatter(x=x, y=list(y), mode="lines+markers", name=name)
        fig.update_layout(title=title, xaxis_title=x_title)
        fig.update_xaxes(type="log")
        fig.update_yaxes(type="log")
        shown.append(fig)
    return shown'''


@dataclass(frozen=True)
class AccountantView:
    """The Accountant page: n, delta, the domain k, the given epsilon (given "eps_c" or "eps0", value), the
    collections from the same people (rounds: the table's eps_c their total, eps0 each one's) and the notion of
    the table's eps_c."""

    n: int
    delta: float
    k: int
    given: str
    value: float
    rounds: int = 1
    notion: str = "native"

    @property
    def target(self) -> float:
        """The eps_c of the chart of the largest eps0 against n (the page's: the given eps_c, else 1)."""
        return self.value if self.given == "eps_c" else 1.0

    def program(self) -> Program:
        inputs = "\n".join(
            [
                f"N, DELTA, K = {self.n}, {literal(float(self.delta))}, {self.k}",
                f"GIVEN, VALUE = {literal(self.given)}, {literal(float(self.value))}",
                f"ROUNDS, NOTION = {self.rounds}, {literal(self.notion)}",
            ]
        )
        steps = (
            Step(
                "Every bound at these inputs",
                "How much a crowd of N shuffled reports amplifies a local eps0 into a central (eps_c, delta) "
                "guarantee, by every bound (ldpcore.privacy.bounds): given eps_c, the largest eps0 each "
                "certifies; given eps0, the eps_c; over ROUNDS collections from the same people, eps_c and "
                "delta are their total (ldpcore.privacy.rounds); NOTION replacement: the zero-out bounds over "
                "the two channels a one-hot respondent's replaced value changes. A bound that does not apply "
                "says why.",
                f"{inputs}\n{BOUNDS_CODE}",
            ),
            Step(
                "The curves",
                "eps_c against eps0 at N, and the largest eps0 certifying eps_c = TARGET against n; each point "
                "of a bound that solves a privacy curve is certified to a relative tolerance (never on the "
                "wrong side).",
                f"TARGET = {literal(float(self.target))}\n{ACCOUNTANT_CURVES}",
            ),
        )
        record = call(
            "accountant_record",
            "N",
            "DELTA",
            "K",
            "GIVEN",
            "VALUE",
            "ROUNDS",
            "NOTION",
            "rows",
            "eps0_grid",
            "eps_c_curves",
            "TARGET",
            "n_grid",
            "eps0_curves",
        )
        draw = call("figures", "eps0_grid", "eps_c_curves", "n_grid", "eps0_curves", "TARGET")
        return Program(
            name="accountant",
            title="Accountant: every amplification bound side by side",
            about="The Accountant view of the ldpcore dashboard, recomputed with the ldpcore library.",
            origin="the dashboard's Accountant page",
            imports=(
                "import numpy as np",
                "from ldpcore.export import to_json",
                "from ldpcore.export.view_records import accountant_record",
                "from ldpcore.privacy.accountant import compare, eps0_curve, eps_c_curve",
                "from ldpcore.privacy.bounds import BOUNDS",
            ),
            steps=steps,
            record=record,
            record_words="(the page's JSON record)",
            charts=Charts(ACCOUNTANT_FIGURES, draw, "plotly", "The page's two charts."),
        )


AUDIT_CODE = """report = run_audit(
    spec, hist, observer=OBSERVER, trials=TRIALS, confidence=CONFIDENCE, seed=SEED
)
for o in report.observers:
    upper = "n/a" if o.eps_upper.eps is None else f"{o.eps_upper.eps:.4g}"
    print(f"{o.observer}: eps lower {o.eps_lower:.4g} / certified {upper}")
for risk in report.risk.risks:
    print(risk.sentence)"""

DEMO_CODE = """try:
    plan = ldpcore.plan(spec, hist.n, hist.d)
    demo = demonstrate(plan, hist.counts, np.random.default_rng(DRAW))
except ldpcore.InputError as why:  # the page says why instead
    print(why)
    demo = None
else:
    print(f"respondent #{DRAW} holds value {demo.value}")
    for v in demo.views:
        print(f"{v.observer} guesses {v.guess}: " + ("right" if v.correct else "wrong"))"""

AUDIT_FIGURES = '''def figures(report: AuditReport) -> "list[go.Figure]":
    """The lower bound beside every certified bound per observer, then each attack's
    trade-off curve (false negative against false positive rate)."""
    import plotly.graph_objects as go

    bars = go.Figure()
    for o in report.observers:
        names = ["attack"] + [
            c.name for c in o.certified if c.valid and c.eps is not None
        ]
        eps = [o.eps_lower] + [
            c.eps for c in o.certified if c.valid and c.eps is not None
        ]
        bars.add_bar(y=[f"{o.observer} / {n}" for n in names], x=eps, orientation="h")
    bars.update_layout(
        title="eps: lower (attack) and certified (upper)", showlegend=False
    )
    shown = [bars]
    for o in report.observers:
        fig = go.Figure()
        fig.add_scatter(
            x=o.curve.fpr, y=o.curve.fnr, mode="lines+markers", name="attack"
        )
        fig.add_scatter(
            x=[o.best[0]], y=[o.best[1]], mode="markers", name="chosen test"
        )
        fig.update_layout(title=o.observer, xaxis_title="fpr", yaxis_title="fnr")
        shown.append(fig)
    return shown'''


@dataclass(frozen=True)
class AdversaryView:
    """The Adversary page: the data, the sidebar's spec and seed (of the attacks), the observer, the trials per
    hypothesis, the confidence and the respondent's draw."""

    source: Source
    spec: ProtocolSpec
    seed: int
    observer: str
    trials: int
    confidence: float
    draw: int

    def program(self) -> Program:
        settings = "\n".join(
            [
                f"OBSERVER, TRIALS = {literal(self.observer)}, {self.trials}",
                f"CONFIDENCE = {literal(float(self.confidence))}",
            ]
        )
        steps = (
            self.source.step(),
            protocol_step(self.spec, self.seed),
            Step(
                "The audits",
                "Each observer's attack run TRIALS times per hypothesis: its error rates give, at the stated "
                "confidence (Clopper-Pearson), a lower bound on eps that no (eps, delta) guarantee below it "
                "allows (Kairouz, Oh, Viswanath, ICML 2015; Jagielski, Ullman, Oprea, NeurIPS 2020), beside "
                "every certified upper bound; then the guessing risk in words.",
                f"{settings}\n{AUDIT_CODE}",
            ),
            Step(
                "One respondent followed through the protocol",
                "A respondent drawn from the data with the seed DRAW: their report, what each observer sees and "
                "its Bayes-optimal guess of their value.",
                f"DRAW = {self.draw}\n{DEMO_CODE}",
            ),
        )
        return Program(
            name="adversary",
            title="What an adversary learns: empirical lower bounds beside the certified ones",
            about="The Adversary view of the ldpcore dashboard, recomputed with the ldpcore library.",
            origin="the dashboard's Adversary page",
            imports=(
                *self.source.imports,
                "import ldpcore",
                "import numpy as np",
                "from ldpcore.experiment.audit import AuditReport, demonstrate, run_audit",
                "from ldpcore.export import to_json",
                "from ldpcore.export.view_records import adversary_record",
            ),
            steps=steps,
            record=call("adversary_record", "report", "DRAW", "demo"),
            record_words="(the page's JSON record)",
            charts=Charts(AUDIT_FIGURES, call("figures", "report"), "plotly", "The page's charts."),
            files=self.source.files,
        )


__all__ = ["AccountantView", "AdversaryView", "PlanView", "spec_code"]
