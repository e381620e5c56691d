"""One typed question to the planner and its one answer: a PlanQuery (the data, eps_c or a target, what to solve
for, delta and how it was chosen, the notion, the encodings and constraints), checked once where it is made,
and answer(query) -> PlanTable. The command line and the Plan page both build a PlanQuery."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ldpcore.errors import require
from ldpcore.experiment.planning.choice import DEFAULT_RULE, check_rule
from ldpcore.experiment.planning.inverses import solve_eps_c, solve_n
from ldpcore.experiment.planning.shapes import Shape, scaled_counts
from ldpcore.experiment.planning.table import (
    NO_CONSTRAINTS,
    Constraints,
    PlanTable,
    RowOptions,
    Target,
    check_counts,
    plan_table,
)
from ldpcore.experiment.protocol.postprocess import check_method
from ldpcore.oracles import get_encoding

QUESTIONS = ("table", "eps_c", "n")  # the table at eps_c; the smallest eps_c, or n, meeting a target
DELTA_FROM = ("given", "the dataset's", "about 1/(10 n)")


@dataclass(frozen=True, eq=False)
class PlanQuery:
    """What to plan: counts (a dataset's or an upload's histogram, or a shape's scaled to n: from_shape) named
    `name`; delta and how it was chosen (delta_from, one of DELTA_FROM); solve, one of QUESTIONS: the table
    at eps_c, the smallest eps_c meeting target, or the smallest n meeting target at eps_c (None: 'eps_c'
    when only a target is given, 'n' when both are, else 'table'); the notion of eps_c and the rounds (collections
    from the same respondents: eps_c and delta are their total); the encodings (empty: all) with their parameters
    ({encoding: {parameter: value}}); the constraints; the rule the recommendation is picked by within the Pareto
    set (choice.RULES); delta_with_n: when solving for n, the rule delta = about 1/(10 n) applied afresh at each n
    (else delta is held fixed at every n: said by held_fixed); postprocess: the post-processing the table ranks on
    (None: the raw estimate; a method's name: each row's simulated error after it, planning.simulate; the table at
    eps_c only). Every field is checked here, once (InputError naming it)."""

    counts: np.ndarray
    name: str
    delta: float
    delta_from: str = "given"
    eps_c: float | None = None
    target: Target | None = None
    solve: str | None = None
    notion: str = "replacement"
    rounds: int = 1
    encodings: tuple[str, ...] = ()
    constraints: Constraints = NO_CONSTRAINTS
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    rule: str = DEFAULT_RULE
    delta_with_n: bool = False
    postprocess: str | None = None

    def __post_init__(self):
        check_rule(self.rule)
        require(self.delta_from in DELTA_FROM, f"delta_from must be one of {', '.join(DELTA_FROM)}.")
        object.__setattr__(self, "counts", check_counts(self.counts, self.eps_c, self.delta, self.notion, self.rounds))
        solve = self.solve
        if solve is None:
            solve = "table" if self.target is None else ("eps_c" if self.eps_c is None else "n")
        require(solve in QUESTIONS, f"solve must be one of {', '.join(QUESTIONS)} (got {solve!r}).")
        if solve == "table":
            require(self.eps_c is not None, "give eps_c (or a target error to solve for eps_c).")
        elif solve == "eps_c":
            require(self.target is not None, "solving for eps_c needs a target error.")
            require(self.eps_c is None, "solving for eps_c finds eps_c: do not give eps_c.")
        else:
            require(self.target is not None and self.eps_c is not None, "solving for n needs eps_c and a target error.")
        if self.postprocess is not None:
            check_method(self.postprocess)
            require(
                solve == "table",
                "post-processed errors are simulated for the table at one eps_c; the inverses search the raw "
                "prediction (drop the post-processing, or the target).",
            )
        for name in self.encodings:
            get_encoding(name)  # an unknown name is refused with the list
        require(not self.delta_with_n or solve == "n", "delta follows n only when solving for n.")
        object.__setattr__(self, "solve", solve)
        object.__setattr__(self, "encodings", tuple(self.encodings))

    @property
    def held_fixed(self) -> str:
        """What stays as given while n changes (solving for n), in words; "" for the other questions."""
        if self.solve != "n":
            return ""
        if self.delta_with_n:
            return "the data's shape, eps_c and the rule delta = about 1/(10 n), applied afresh at each row's n"
        return f"the data's shape, eps_c and delta = {self.delta:g} ({self.delta_from}) at every n"

    @classmethod
    def from_shape(cls, n: int, d: int, shape: Shape | str, delta: float, **kw) -> PlanQuery:
        """n respondents spread over d values by a shape (no data): its whole counts, named after it."""
        shape = Shape.parse(shape) if isinstance(shape, str) else shape
        return cls(scaled_counts(shape.weights(d), n), f"{shape} (n={n:,}, d={d:,})", delta, **kw)


def answer(query: PlanQuery) -> PlanTable:
    """The planner's table for the query (plan_table, solve_eps_c or solve_n)."""
    kw: RowOptions = dict(
        notion=query.notion,
        rounds=query.rounds,
        encodings=list(query.encodings) or None,
        constraints=query.constraints,
        params=query.params,
        name=query.name,
        rule=query.rule,
    )
    if query.solve == "eps_c":
        assert query.target is not None  # PlanQuery checks it
        return solve_eps_c(query.counts, query.target, query.delta, **kw)
    assert query.eps_c is not None  # PlanQuery checks it
    if query.solve == "n":
        assert query.target is not None
        return solve_n(query.counts, query.eps_c, query.target, query.delta, delta_with_n=query.delta_with_n, **kw)
    return plan_table(query.counts, query.eps_c, query.delta, postprocess=query.postprocess, **kw)
