"""The planner: every encoding with every accountant that holds for it, side by side, analytically,
in both directions (docs/plan.md).

For a histogram (or n, d and a shape without data) and a central (eps_c, delta), ``plan_table``
returns one typed ``PlanRow`` per (encoding, accountant): the certified eps_c in one neighbouring
notion (replacement by default; zero-out accountants composed and the conversion named), the local
eps in the encoding's own notion and under replacement, messages and bits, the predicted raw RMSE
per bin (the oracle's analytic variance), the 95% confidence half-width, the predicted expected
l_inf error (Gaussian approximation), the same encoding without a shuffler at eps_l = eps_c, and
whether the row is certified and within the constraints, with the reason when not, and whether it is
on the Pareto set (no ranked row better in every respect: objective, eps_l in both notions, messages,
bits). The recommendation is the row a stated rule picks within that set (``RULES``: the lowest
predicted error by default, the lowest eps_l within 10% of it, the fewest bits or messages), and its
sentence says what it costs in each respect against the runner-up.

``solve_eps_c`` (a target error -> the smallest certified eps_c per row) and ``solve_n`` (a target
error at a fixed eps_c -> the smallest number of respondents with the same shape) are monotone
one-dimensional searches that land on the conservative side: the returned value meets the target.

Every number comes from ``plan()`` and the oracles' own variance: nothing here re-derives a bound
or a variance. The cost is independent of n (the analytic variances are evaluated once per distinct count,
Groups; the bounds are O(1) in d), and the inverses never build a d-length array.

shapes       a shape over d values, scaled counts, a histogram by its distinct counts (Groups)
error_model  the predicted errors from the oracles' variances; plug-in standard errors
table        PlanRow, PlanTable, plan_table: every row at one eps_c
choice       the Pareto set and the rules that pick the recommendation in it
search       the monotone search both inverses use
inverses     solve_eps_c, solve_n, error_curve
simulate     a row's error after a post-processing, simulated with the exact sampler
query        PlanQuery and answer(query): the one question the command line and the page ask
"""

from __future__ import annotations

from ldpcore.experiment.planning.choice import DEFAULT_RULE, RULES, WITHIN, Rule, pareto
from ldpcore.experiment.planning.error_model import (
    LINF_NOTE,
    NO_TOPK,
    TOPK_NOTE,
    Z95,
    central_rmse,
    confidence_intervals,
    standard_errors,
)
from ldpcore.experiment.planning.inverses import EPS_C_MAX, EPS_C_MIN, N_MAX, error_curve, solve_eps_c, solve_n
from ldpcore.experiment.planning.query import DELTA_FROM, QUESTIONS, PlanQuery, answer
from ldpcore.experiment.planning.search import SOLVE_RTOL
from ldpcore.experiment.planning.shapes import Groups, Shape, scaled_counts
from ldpcore.experiment.planning.simulate import (
    BUDGET,
    FIRST_SEED,
    INTERVAL_NOTE,
    RUNS,
    Simulated,
    simulate_postprocessed,
)
from ldpcore.experiment.planning.table import (
    NOTIONS,
    TARGET_WORDS,
    TARGETS,
    Constraints,
    PlanRow,
    PlanTable,
    Target,
    evaluate_row,
    plan_shape,
    plan_table,
)

__all__ = [
    "BUDGET",
    "DEFAULT_RULE",
    "DELTA_FROM",
    "EPS_C_MAX",
    "EPS_C_MIN",
    "FIRST_SEED",
    "INTERVAL_NOTE",
    "LINF_NOTE",
    "NOTIONS",
    "NO_TOPK",
    "N_MAX",
    "QUESTIONS",
    "RULES",
    "RUNS",
    "SOLVE_RTOL",
    "TARGETS",
    "TARGET_WORDS",
    "TOPK_NOTE",
    "WITHIN",
    "Z95",
    "Constraints",
    "Groups",
    "PlanQuery",
    "PlanRow",
    "PlanTable",
    "Rule",
    "Shape",
    "Simulated",
    "Target",
    "answer",
    "central_rmse",
    "confidence_intervals",
    "error_curve",
    "pareto",
    "evaluate_row",
    "plan_shape",
    "plan_table",
    "scaled_counts",
    "simulate_postprocessed",
    "solve_eps_c",
    "solve_n",
    "standard_errors",
]
