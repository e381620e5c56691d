"""The planner's recommendation as a stated rule (docs/plan.md): the Pareto set of the ranked rows over the table's
objective (the predicted RMSE forward; eps_c or n when solving), eps_l in both notions, messages and bits (no row
of the set is beaten in every respect by another), and within it the row a rule picks; the sentence says what the
recommended row costs in each respect against the runner-up (the rule's pick among the other encodings' rows)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ldpcore.errors import require

if TYPE_CHECKING:
    from ldpcore.experiment.planning.table import PlanRow

WITHIN = 0.10  # "lowest eps_l within 10% of the best": the rows whose objective is at most 1.1 x the best


@dataclass(frozen=True)
class Rule:
    """How the recommendation is picked within the Pareto set: name (the CLI's --rule, the page's choice) and
    the words the sentence uses ({objective}: what the table minimises)."""

    name: str
    words: str


RULES = {
    r.name: r
    for r in (
        Rule("lowest-error", "the lowest {objective}"),
        Rule("lowest-eps-l", f"the lowest eps_l among the rows within {WITHIN:.0%} of the best {{objective}}"),
        Rule("fewest-bits", "the fewest bits per respondent"),
        Rule("fewest-messages", "the fewest messages per respondent"),
    )
}
DEFAULT_RULE = "lowest-error"


def check_rule(name: str) -> Rule:
    require(name in RULES, f"the rule must be one of {', '.join(RULES)} (got {name!r}).")
    return RULES[name]


def local_eps(row: PlanRow, notion: str) -> float:
    """The row's eps_l in the table's notion (replacement: every encoding restated; native: its own)."""
    value = row.eps_l_replacement if notion == "replacement" else row.eps_l
    return math.inf if value is None else value


def _costs(row: PlanRow, key: Callable[[PlanRow], float]) -> tuple[float, ...]:
    """What the Pareto set compares, each the smaller the better."""
    return tuple(
        math.inf if v is None else float(v)
        for v in (key(row), row.eps_l, row.eps_l_replacement, row.messages, row.bits_per_respondent)
    )


def pareto(rows: Sequence[PlanRow], key: Callable[[PlanRow], float]) -> list[PlanRow]:
    """The ranked rows with a finite objective that no other such row beats in every respect (objective, eps_l
    native and under replacement, messages, bits per respondent: at least as good in each and better in one);
    rows with equal numbers are all kept."""
    candidates = [(r, _costs(r, key)) for r in rows if r.ranked and math.isfinite(key(r))]
    return [
        r
        for r, c in candidates
        if not any(all(a <= b for a, b in zip(o, c)) and o != c for _, o in candidates)  # no other row dominates
    ]


def pick(rows: Sequence[PlanRow], key: Callable[[PlanRow], float], rule: Rule, notion: str) -> PlanRow | None:
    """The row the rule picks among rows (ties: the lower objective, then the table's order)."""
    if not rows:
        return None
    if rule.name == "lowest-eps-l":
        best = min(key(r) for r in rows)
        within = [r for r in rows if key(r) <= best * (1 + WITHIN)]
        return min(within, key=lambda r: (local_eps(r, notion), key(r)))
    order = {
        "lowest-error": lambda r: (key(r), local_eps(r, notion)),
        "fewest-bits": lambda r: (math.inf if r.bits_per_respondent is None else r.bits_per_respondent, key(r)),
        "fewest-messages": lambda r: (math.inf if r.messages is None else r.messages, key(r)),
    }[rule.name]
    return min(rows, key=order)


def summary(row: PlanRow, key: Callable[[PlanRow], float], objective: str, notion: str) -> str:
    """What a row costs in every respect the rule weighs: its objective (when it is not the RMSE), predicted RMSE,
    eps_l (the table's notion, and the native one where it differs), messages and bits per respondent."""
    parts = [] if objective == "predicted RMSE" else [f"{objective} {key(row):.4g}"]
    parts.append(f"predicted RMSE {row.rmse:.4g}" if row.rmse is not None else "no predicted RMSE")
    eps = f"eps_l {local_eps(row, notion):.4g} ({notion if notion == 'replacement' else row.local_neighbouring})"
    if notion == "replacement" and row.local_neighbouring != "replacement" and row.eps_l is not None:
        eps = eps[:-1] + f"; native {row.local_neighbouring} {row.eps_l:.4g})"
    parts.append(eps)
    if row.messages is None:
        parts.append("messages not defined")
    else:
        parts.append(f"{row.messages:.3g} message{'' if row.messages == 1 else 's'}")
    parts.append(f"{row.bits_per_respondent:,.0f} bits per respondent" if row.bits_per_respondent else "no bits")
    return ", ".join(parts)


def recommend(
    rows: Sequence[PlanRow], key: Callable[[PlanRow], float], objective: str, rule: Rule, notion: str, words: str
) -> tuple[PlanRow | None, str, list[PlanRow]]:
    """(the recommended row, the sentence, the Pareto set): the rule's pick within the Pareto set of rows, and
    the runner-up, the rule's pick among the set's rows of the other encodings (else of the other rows); words:
    what the rows are eligible for (e.g. "certified rows within the constraints"). Read natively, rows of
    different notions are not on one scale: the sentence says so where the two differ."""
    front = pareto(rows, key)
    best = pick(front, key, rule, notion)
    if best is None:
        return None, f"no {words}.", front
    said = f"By {rule.words.format(objective=objective)} on the Pareto set of the {words}: "
    said += f"{best.encoding} with {best.accountant} ({summary(best, key, objective, notion)})"
    others = [r for r in front if r.encoding != best.encoding] or [r for r in front if r is not best]
    other = pick(others, key, rule, notion)
    if other is None:
        return best, said + "; no other row is on the Pareto set.", front
    said += f"; the runner-up {other.encoding} with {other.accountant} ({summary(other, key, objective, notion)})."
    if notion == "native" and best.local_neighbouring != other.local_neighbouring:  # read natively: two scales
        said += (
            f" The two are not on one scale: {best.encoding}'s eps_c is certified under {best.local_neighbouring}, "
            f"{other.encoding}'s under {other.local_neighbouring} (read both under replacement to compare them)."
        )
    return best, said, front
