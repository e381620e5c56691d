"""The command line: stable JSON fields, files written, one-line errors with status 2."""

import json

import pytest
from conftest import cli, huge_png
from PIL import Image


def test_privacy_json():
    out = cli(
        "privacy", "--n", "1914589", "--delta", "5e-8", "--eps-c", "1", "--tau", "4", "--domain", "87680", "--json"
    )
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    for key in (
        "eps_c",
        "delta",
        "n",
        "tau",
        "eps_b",
        "eps_f",
        "eps_l_inf",
        "eps_l_1",
        "accountant",
        "neighbouring",
        "expected_messages",
    ):
        assert key in rec
    assert round(rec["eps_l_inf"], 2) == 8.55 and round(rec["eps_l_1"], 2) == 6.94
    assert rec["accountant"] == "cheu19" and rec["neighbouring"] == "zero-out"


def test_privacy_eps_l_to_eps_c():
    rec = json.loads(
        cli("privacy", "--n", "1914589", "--delta", "5e-8", "--eps-l", "8.546896021336766", "--json").stdout
    )
    assert rec["eps_c"] == pytest.approx(1.0, abs=1e-9)
    assert "expected_messages" not in rec  # no --domain


def test_run_writes_files(tmp_path, small_png):
    out = cli(
        "run",
        "--input",
        str(small_png),
        "--eps-c",
        "5",
        "--delta",
        "1e-6",
        "--json",
        "--out",
        str(tmp_path / "o"),
        "--seed",
        "3",
    )
    # 2,760 respondents: Lemma II.6 holds only up to eps_l = 3.2 < 5, so the trivial bound eps_l = eps_c is used
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert not rec["capped"] and rec["eps_c"] == rec["eps_l_inf"] == 5 and "trivial bound" in rec["notes"][0]
    rec = json.loads(cli("privacy", "--n", "100000", "--delta", "1e-6", "--eps-c", "3", "--json").stdout)
    assert rec["capped"] and rec["eps_c"] < 3 and "below the 3 asked for" in rec["notes"][0]  # Lemma II.6's top
    out = cli(
        "run",
        "--dataset",
        "horse",
        "--max-side",
        "160",
        "--eps-c",
        "1",
        "--json",
        "--tau",
        "16",
        "--out",
        str(tmp_path / "o"),
        "--seed",
        "3",
    )
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    for key in (
        "n",
        "d",
        "eps_c",
        "delta",
        "tau",
        "eps_l_inf",
        "eps_l_1",
        "expected_messages",
        "rmse",
        "rmse_raw",
        "linf",
        "seconds",
    ):
        assert key in rec
    assert rec["d"] == 160 * 137 and rec["tau"] == 16 and rec["delta"] == 5e-8
    files = sorted(p.name for p in (tmp_path / "o").iterdir())
    assert files == ["estimate.csv", "original.png", "reconstruction.png", "run.json"]
    assert Image.open(tmp_path / "o" / "reconstruction.png").size == (160, 137)
    assert json.loads((tmp_path / "o" / "run.json").read_text())["rmse"] == rec["rmse"]
    lines = (tmp_path / "o" / "estimate.csv").read_text().splitlines()
    assert len(lines) == rec["d"] + 1
    assert lines[0] == "value,true,estimate,clipped,std_error,ci95_low,ci95_high"
    _, _, estimate, _, se, low, high = map(float, lines[1].split(","))
    assert se > 0 and low == pytest.approx(estimate - 1.959964 * se, abs=1e-4 * se + 1e-3)
    assert high == pytest.approx(estimate + 1.959964 * se, abs=1e-4 * se + 1e-3)
    summary = json.loads((tmp_path / "o" / "run.json").read_text())["uncertainty"]
    assert summary["level"] == 0.95 and 0 < summary["mean_std_error"] <= summary["max_std_error"]
    assert summary == rec["uncertainty"] and "plug-in" in summary["how"]
    assert rec["central"]["std_error"] == rec["central"]["sigma"]


def test_run_is_deterministic_under_a_seed():
    a = json.loads(cli("run", "--dataset", "horse", "--eps-c", "0.5", "--seed", "7", "--json").stdout)
    b = json.loads(cli("run", "--dataset", "horse", "--eps-c", "0.5", "--seed", "7", "--json").stdout)
    assert a["rmse"] == b["rmse"]


def _bad_inputs(tmp):
    (tmp / "text.png").write_text("not an image")
    Image.new("L", (300, 300), 7).save(tmp / "ok.png")
    (tmp / "cut.png").write_bytes((tmp / "ok.png").read_bytes()[:60])
    (tmp / "bomb.png").write_bytes(huge_png(10_000, 10_000))
    Image.new("L", (20, 20), 0).save(tmp / "black.png")
    (tmp / "neg.csv").write_text("5\n-2\n")
    (tmp / "nan.csv").write_text("value,count\na,NaN\n")
    (tmp / "text.csv").write_text("5\nmany\n")
    run = ["run", "--delta", "1e-6", "--eps-c", "1", "--input"]
    return {
        "not an image": run + [str(tmp / "text.png")],
        "truncated or corrupt": run + [str(tmp / "cut.png")],
        "100.0 megapixels": run + [str(tmp / "bomb.png")],
        "every pixel is black": run + [str(tmp / "black.png")],
        "is negative": run + [str(tmp / "neg.csv")],
        "not a finite number": run + [str(tmp / "nan.csv")],
        "is not a number": run + [str(tmp / "text.csv")],
        "eps_c must be a finite number > 0": ["privacy", "--n", "10000", "--delta", "1e-6", "--eps-c", "0"],
        "delta must lie strictly between 0 and 1": ["privacy", "--n", "10000", "--delta", "1.5", "--eps-c", "1"],
        "too few respondents for amplification": ["privacy", "--n", "200", "--delta", "1e-6", "--eps-c", "1"],
        "invalid float value": ["privacy", "--n", "300", "--delta", "x", "--eps-c", "1"],
    }


def test_bad_input_is_one_line_with_status_2(tmp_path):
    for expected, args in _bad_inputs(tmp_path).items():
        out = cli(*args)
        assert out.returncode == 2, (expected, out)
        assert out.stdout == ""
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0], (expected, out.stderr)
        assert "Traceback" not in out.stderr
