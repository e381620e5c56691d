"""The command line's notion and rounds: `amplify`, `privacy` and `plan` with --notion and --rounds print the notion,
the relation of eps_c, and the fields of repeated collection (rounds, eps_c_total, delta_total, eps_c_per_round);
`plan --notion native` says when the rows it compares are certified under different notions."""

import json

import pytest

from ldpcore.cli import main

ROUND_FIELDS = ("rounds", "eps_c_total", "delta_total", "eps_c_per_round")


def _json(capsys, *argv) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_amplify_under_replacement_composes_the_two_channels(capsys):
    one = _json(capsys, "amplify", "--bound", "tight", "--eps0", "1.1", "--n", "75", "--delta", "1e-6")
    both = _json(
        capsys,
        "amplify",
        "--bound",
        "tight",
        "--eps0",
        "1.1",
        "--n",
        "75",
        "--delta",
        "1e-6",
        "--notion",
        "replacement",
    )
    assert one["notion"] == "native" and one["neighbouring"] == "zero-out" and "pair" not in one
    assert both["notion"] == "replacement" and both["neighbouring"] == "replacement" and both["pair"]
    assert one["eps_c"] < both["eps_c"] <= 0.92  # the exact supremum over both bins' data is 0.9092
    assert all(both[k] is not None for k in ROUND_FIELDS) and both["rounds"] == 1


def test_amplify_over_a_year(capsys):
    r = _json(
        capsys, "amplify", "--bound", "tight", "--eps-c", "4", "--n", "10000", "--delta", "1e-6", "--rounds", "365"
    )
    assert r["rounds"] == 365 and r["eps_c_total"] == 4.0 and r["delta_total"] == 1e-6
    assert r["eps_c_per_round"] < 4.0 < 365 * r["eps_c_per_round"]  # far below basic composition of the rounds
    assert r["eps_c_total_basic"] > r["eps_c_total_advanced"] > 4.0


def test_privacy_with_notion_and_rounds(capsys):
    r = _json(
        capsys,
        *("privacy", "--n", "100000", "--delta", "1e-6", "--eps-c", "2", "--accountant", "tight"),
        *("--notion", "replacement", "--rounds", "30"),
    )
    assert r["notion"] == "replacement" and r["neighbouring"] == "replacement" and r["local_neighbouring"] == "zero-out"
    assert r["rounds"] == 30 and r["eps_c_total"] == r["eps_c"] == 2.0 and r["eps_c_per_round"] < 2.0 / 4
    plain = _json(capsys, "privacy", "--n", "100000", "--delta", "1e-6", "--eps-c", "2", "--accountant", "tight")
    assert plain["notion"] == "native" and plain["rounds"] == 1 and plain["eps_c_per_round"] == plain["eps_c"]
    assert r["eps_b"] < plain["eps_b"]


def test_plan_with_rounds_and_the_native_notions_reason(capsys):
    r = _json(capsys, "plan", "--n", "100000", "--d", "64", "--shape", "zipf:1.1", "--eps-c", "4", "--rounds", "10")
    assert (r["rounds"], r["eps_c_total"], r["delta_total"]) == (10, 4.0, r["delta"])
    ranked = [row for row in r["rows"] if row["ranked"]]
    assert ranked and all(row["eps_c_per_round"] < row["eps_c"] for row in ranked)
    native = _json(
        capsys, "plan", "--n", "100000", "--d", "64", "--shape", "zipf:1.1", "--eps-c", "1", "--notion", "native"
    )
    assert "not on one scale" in native["reason"]


@pytest.mark.parametrize("argv", [("--rounds", "0"), ("--rounds", "1.5"), ("--notion", "removal")])
def test_bad_notion_or_rounds_is_one_line(capsys, argv):
    with pytest.raises(SystemExit) as stop:
        main(["amplify", "--bound", "tight", "--eps0", "1", "--n", "100", "--delta", "1e-6", *argv])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "error:" in err and argv[0] in err
