"""The planner's recommendation is a stated rule on the Pareto set (issue 28): on Horse at eps_c = 1 the sentence
names the predicted RMSE, eps_l and bits of the recommended row and of the runner-up; the rule "lowest eps_l within
10% of the best RMSE" picks the smallest eps_l among the rows within 10%; every Pareto row is non-dominated and
every ranked row off the set is dominated; the rule is refused by name where unknown."""

import math
import re

import pytest

from ldpcore.data.datasets import load_dataset
from ldpcore.errors import InputError
from ldpcore.experiment import planning

COSTS = ("rmse", "eps_l", "eps_l_replacement", "messages", "bits_per_respondent")


@pytest.fixture(scope="module")
def horse():
    return load_dataset("horse")


def _costs(row):
    return tuple(math.inf if getattr(row, k) is None else getattr(row, k) for k in COSTS)


def _dominated(row, rows) -> bool:
    mine = _costs(row)
    return any(all(a <= b for a, b in zip(_costs(o), mine)) and _costs(o) != mine for o in rows if o is not row)


def _said(row, sentence: str) -> bool:
    """The sentence names the row's predicted RMSE, eps_l (replacement) and bits per respondent."""
    return (
        f"{row.encoding} with {row.accountant} (predicted RMSE {row.rmse:.4g}, eps_l {row.eps_l_replacement:.4g}"
        in sentence
        and f"{row.bits_per_respondent:,.0f} bits per respondent" in sentence
    )


@pytest.mark.slow
@pytest.mark.parametrize("rule", list(planning.RULES))
def test_the_recommendation_is_the_rules_pick_on_the_pareto_set(horse, rule):
    table = planning.plan_table(horse.counts, 1.0, 5e-8, rule=rule)
    ranked = [r for r in table.rows if r.ranked and r.rmse is not None]
    front = [r for r in table.rows if r.pareto]
    assert front and all(not _dominated(r, ranked) for r in front)  # every Pareto row is non-dominated ...
    assert all(_dominated(r, ranked) for r in ranked if not r.pareto)  # ... and every other ranked row is dominated
    best = table.recommended
    assert best is not None and best.pareto and table.rule == rule
    runner = re.search(r"the runner-up (\S+) with (\S+) \(", table.reason).groups()
    other = next(r for r in front if (r.encoding, r.accountant) == runner)
    assert other.encoding != best.encoding and _said(best, table.reason) and _said(other, table.reason)
    assert table.reason.startswith("By " + planning.RULES[rule].words.format(objective="predicted RMSE"))
    if rule == "lowest-eps-l":  # the smallest eps_l among the rows within 10% of the best RMSE
        within = [r for r in ranked if r.rmse <= (1 + planning.WITHIN) * min(o.rmse for o in ranked)]
        assert best.eps_l_replacement == min(r.eps_l_replacement for r in within)
    if rule == "lowest-error":
        assert best.rmse == min(r.rmse for r in ranked)
    if rule == "fewest-bits":
        assert best.bits_per_respondent == min(r.bits_per_respondent for r in front)


def test_an_unknown_rule_is_refused_by_name(horse):
    with pytest.raises(InputError, match="the rule must be one of lowest-error, lowest-eps-l, fewest-bits"):
        planning.PlanQuery(horse.counts, "horse", 5e-8, eps_c=1.0, rule="cheapest")


def test_solving_for_n_says_what_it_holds_and_can_let_delta_follow_n():
    counts = planning.scaled_counts(planning.Shape.parse("zipf:1").weights(5), 1461)
    ask = dict(eps_c=1.0, target=planning.Target("relative_rmse", 0.1), encodings=("grr",), delta_from="about 1/(10 n)")
    fixed = planning.PlanQuery(counts, "weather", 6e-5, **ask)
    follows = planning.PlanQuery(counts, "weather", 6e-5, delta_with_n=True, **ask)
    assert fixed.held_fixed == "the data's shape, eps_c and delta = 6e-05 (about 1/(10 n)) at every n"
    assert "delta = about 1/(10 n), applied afresh at each row's n" in follows.held_fixed
    a, b = planning.answer(fixed).recommended, planning.answer(follows).recommended
    assert a.delta == 6e-5 and b.delta == pytest.approx(1 / (10 * b.n), rel=0.5) and b.n != a.n
    with pytest.raises(InputError, match="delta follows n only when solving for n"):
        planning.PlanQuery(counts, "weather", 6e-5, eps_c=1.0, delta_with_n=True)


@pytest.mark.slow
def test_the_command_line_takes_the_rule_and_says_it(horse, capsys):
    """`ldpcore plan --rule` (its help too: the rule's words hold a '%') recommends the library's pick."""
    import json

    from ldpcore.cli import main

    with pytest.raises(SystemExit) as done:
        main(["plan", "--help"])
    helped = " ".join(capsys.readouterr().out.split())  # argparse wraps the help
    assert done.value.code == 0 and "lowest-eps-l: the lowest eps_l among the rows within 10% of the best" in helped
    main(["plan", "--dataset", "horse", "--eps-c", "1", "--rule", "lowest-eps-l", "--json"])
    record = json.loads(capsys.readouterr().out)
    library = planning.plan_table(horse.counts, 1.0, record["delta"], rule="lowest-eps-l")
    assert record["rule"] == "lowest-eps-l" and record["reason"] == library.reason
    assert (record["recommended"], record["recommended_accountant"]) == (
        library.recommended.encoding,
        library.recommended.accountant,
    )
    assert sum(r["pareto"] for r in record["rows"]) == sum(r.pareto for r in library.rows) > 0
