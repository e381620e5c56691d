"""ldpcore.export.reproduce: every kind of view becomes a script and a notebook that ruff's formatter leaves as
they are (its default settings: a user's), that ruff's default lint rules pass, and whose notebook is valid
nbformat 4; literals of any string survive; the command line's --emit-script writes a script whose record
equals the command's --json output (run in a fresh interpreter)."""

import ast
import json
import os
import subprocess
import sys

import nbformat
import pytest
from conftest import ROOT

from ldpcore.experiment.protocol.spec import ProtocolSpec
from ldpcore.export import reproduce as r
from ldpcore.export.reproduce.code import WIDTH, call, literal, statement, value
from ldpcore.export.reproduce.protocol import spec_code
from ldpcore.systems.sgd import SGDConfig

SPEC = ProtocolSpec(eps_c=1.0, delta=5e-8)
ODD = 'my "odd" \\ file\t名.csv'  # quotes, a backslash, a tab and a non-ASCII letter in a file name
SGD = SGDConfig(mechanism="pm", eps=1.0, epochs=2, batch_size=500, delta=1e-7)
VIEWS = {
    "reconstruct_image": r.ReconstructView(r.Dataset("horse", 32), SPEC, 0),
    "reconstruct_histogram": r.ReconstructView(
        r.Upload(ODD), ProtocolSpec(eps_c=0.5, delta=1e-7, encoding="olh", params={"g": 0}), 3, 50, False, image=False
    ),
    "reconstruct_records": r.ReconstructView(
        r.Records("events.csv", "category", None, None, "user_id", "distinct:3"), SPEC, 0, image=False
    ),
    "reconstruct_postprocessed": r.ReconstructView(r.Dataset("horse", 32), SPEC, 0, postprocess="norm-sub"),
    "reconstruct_histogram_mle": r.ReconstructView(
        r.Records("ages.csv", "age", 20, (0.0, 100.0)), SPEC, 0, image=False, postprocess="mle"
    ),
    "reconstruct_numbers": r.ReconstructView(r.Records("ages.csv", "age", 20, (0.0, 100.0)), SPEC, 0, image=False),
    "reconstruct_points": r.ReconstructView(r.Points("trips.csv", "lat", None, 64, "-74.05,40.6,-73.8,40.8"), SPEC, 0),
    "reconstruct_sample": r.ReconstructView(r.Sample("city-points"), ProtocolSpec(eps_c=1.0, delta=1e-9, tau=16), 1),
    "tradeoffs": r.TradeoffsView(
        r.Dataset("child"), SPEC, 0, 1.0, 0.05, 2.0, 8, (4, 16, 256), True, ("grr", "cms"), "replacement"
    ),
    "tradeoffs_postprocessed": r.TradeoffsView(
        r.Dataset("horse", 16), SPEC, 0, 1.0, 0.5, 1.0, 2, (4,), True, (), "native", ("norm-sub", "mle")
    ),
    "report_table": r.ReportTableView(r.Upload("photo.png", 2.5, 64), SPEC, 0, (0.05, 1.0), (4,), True, (), "native"),
    "report_table_simplex": r.ReportTableView(
        r.Dataset("horse", 32), SPEC, 0, (1.0,), (), True, (), "native", "simplex"
    ),
    "plan": r.PlanView(r.Dataset("horse"), 5e-8, 1.0),
    "plan_mle": r.PlanView(r.Dataset("horse", 32), 5e-8, 1.0, encodings=("oue",), postprocess="mle"),
    "plan_shape": r.PlanView(
        r.Shape("zipf", 1.1, 10**7, 5_000), 1e-8, None, "eps_c", ("rmse", 30.0), "native", ("grr", "olh"), None, 64.0
    ),
    "accountant": r.AccountantView(1_914_589, 5e-8, 2, "eps0", 4.0),
    "adversary": r.AdversaryView(r.Dataset("heavy-hitters", None, 3), SPEC, 0, "analyst", 10_000, 0.95, 7),
    "multimessage": r.MultiMessageView(1.0, 1e-6, 64, "uniform", 1_000_000, 7.0, 3, 20_000, 1),
    "numeric": r.NumericView(r.TableUpload(ODD, ("city", "it's")), 0, "pm", 1.0, 1e-6, (0.05, 1.0)),
    "longitudinal": r.LongitudinalView(100_000, 64, 2, 0.3, 0.05, 0, 1.0, "paper", 1e-6),
    "sgd": r.SGDView(20_000, 10, 2, 3.0, 0, SGD, "eps_l", 2.0),
    "crowds": r.CrowdsView("250000, 60000", 1.0, 1e-6, 0, 4.0, 2, 200),
    "run": r.RunCommand(
        r.Records("../data/e.csv", "c", "sturges", delimiter=";"),
        ProtocolSpec(eps_c=None, eps_l=4.0, delta=1e-8, tau=8, eps_f_rule="manual", eps_f=1.5),
        5,
        'ldpcore run "x`',
    ),
    "run_ibu": r.RunCommand(r.Dataset("child"), SPEC, 0, "ldpcore run --postprocess ibu", "ibu"),
}


def _ruff(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=cwd, capture_output=True, text=True)


def test_every_script_and_notebook_is_formatted_lint_clean_and_valid(tmp_path):
    """ruff format --check and ruff check with ruff's defaults (--isolated: not this project's settings) accept
    every script and notebook as written; nbformat validates every notebook; a file the view reads is named
    in the script's docstring only where it reads plainly."""
    for name, view in VIEWS.items():
        (tmp_path / f"{name}.py").write_text(r.script(view), encoding="utf-8")
        text = r.notebook(view)
        nbformat.validate(nbformat.reads(text, as_version=4))
        (tmp_path / f"{name}.ipynb").write_text(text, encoding="utf-8")
    formatted = _ruff("format", "--isolated", "--check", ".", cwd=tmp_path)
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr
    linted = _ruff("check", "--isolated", ".", cwd=tmp_path)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    docstring = ast.get_docstring(ast.parse((tmp_path / "reconstruct_records.py").read_text()))
    assert "It reads events.csv, relative to its own folder" in docstring
    odd = ast.get_docstring(ast.parse((tmp_path / "reconstruct_histogram.py").read_text()))
    assert "It reads my ?odd? ? file?名.csv" in odd  # the name itself is in the code, as a literal


def test_the_notebook_holds_the_scripts_code_cell_by_cell():
    """Every step's code is in the script and in a code cell of the notebook, after a Markdown cell saying what
    it means; the notebook reads its data from its own folder, the script from the script's."""
    view = VIEWS["reconstruct_records"]
    program, text = view.program(), r.script(view)
    cells = json.loads(r.notebook(view))["cells"]
    sources = ["".join(c["source"]) for c in cells]
    for step in program.steps:
        assert step.code in text and step.code in sources
        before = sources[sources.index(step.code) - 1]
        assert before.startswith("## ") and step.title in before
    assert "HERE = Path(__file__).parent" in text and any("HERE = Path.cwd()" in s for s in sources)


@pytest.mark.parametrize(
    "x",
    [ODD, "a'b", 'a"b', "a'\"b", "\x00\x1f\x7f\u2028", "😀", "", 5e-8, 1e20, -0.0, 2**70, None, True, (1,), [1.5, "x"]],
)
def test_a_literal_reads_back_as_its_value(x):
    assert ast.literal_eval(literal(x)) == x


@pytest.mark.parametrize(
    "spec",
    [
        SPEC,
        ProtocolSpec(eps_c=None, eps_l=4.0, delta=1e-8, tau=8, eps_f_rule="manual", eps_f=1.5),
        ProtocolSpec(eps_c=0.3, delta=1e-9, encoding="murs", params={"r": 2, "n_r": 5000}),
        ProtocolSpec(eps_c=2.0, delta=1e-6, encoding="onehot", accountant="tight"),
    ],
)
def test_the_spec_in_the_code_is_the_spec(spec):
    import ldpcore

    assert eval(spec_code(spec).flat(), {"ldpcore": ldpcore}) == spec


def test_code_splits_one_item_per_line_only_where_it_does_not_fit():
    short = statement("spec = ", call("f", a=1, b="x"))
    assert short == 'spec = f(a=1, b="x")'
    long = statement("x = ", call("ldpcore.f", value(list(range(40)))))
    lines = long.splitlines()
    assert all(len(line) <= WIDTH for line in lines) and lines[1] == "    [" and lines[-1] == ")"
    inner = long.removeprefix("x = ldpcore.f(").removesuffix(")").strip().rstrip(",")
    assert ast.literal_eval(inner) == list(range(40))
    with pytest.raises(ValueError, match="no literal"):
        literal(float("inf"))


def _record(printed: str) -> dict:
    """The JSON a program prints after the line starting with RECORD_MARK."""
    return json.JSONDecoder().raw_decode(printed.rsplit(r.RECORD_MARK, 1)[1].split("\n", 1)[1])[0]


def _fresh(args: list[str], cwd) -> str:
    """stdout of a fresh interpreter running args in cwd, with this checkout's ldpcore first on its path."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


@pytest.mark.slow
@pytest.mark.parametrize("post", [[], ["--postprocess", "norm-sub"]])
def test_ldpcore_run_emit_script_prints_the_commands_record(tmp_path, post):
    """`ldpcore run ... --emit-script` writes a script (the input read relative to it) whose record equals the
    command's --json output without its timing and files (with --postprocess: the post-processed run's)."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "events.csv").write_text("user,category\n" + "".join(f"u{i % 700},c{i % 9}\n" for i in range(3000)))
    (tmp_path / "out").mkdir()
    command = ["-m", "ldpcore", "run", "--input", "data/events.csv", "--column", "category", "--user-column", "user"]
    command += ["--eps-c", "1", "--delta", "1e-6", "--seed", "4", "--json", "--emit-script", "out/events.py", *post]
    printed = json.loads(_fresh(command, tmp_path))
    assert ("postprocess" in printed) == bool(post)
    script = (tmp_path / "out" / "events.py").read_text()
    assert 'HERE / "../data/events.csv"' in script and 'user_column="user"' in script
    record = _record(_fresh(["events.py"], tmp_path / "out"))
    del printed["seconds"]
    assert record == printed and record["ingest"]["users"] == 700


@pytest.mark.slow
@pytest.mark.parametrize("post", [[], ["--postprocess", "simplex", "--encodings", "grr,oue"]])
def test_ldpcore_plan_emit_script_prints_the_commands_record(tmp_path, post):
    command = ["-m", "ldpcore", "plan", "--n", "100000", "--d", "64", "--shape", "zipf:1.1", "--eps-c", "1"]
    command += ["--notion", "native", "--max-bits", "64", "--json", "--emit-script", "plan.py", *post]
    printed = json.loads(_fresh(command, tmp_path))
    assert printed["postprocess"] == (post[1] if post else None)
    assert _record(_fresh(["plan.py"], tmp_path)) == printed


@pytest.mark.slow
def test_emit_script_into_a_folder_that_does_not_exist_is_one_line():
    command = ["plan", "--n", "1000", "--d", "8", "--eps-c", "1", "--emit-script", "/no/x.py"]
    out = subprocess.run(
        [sys.executable, "-m", "ldpcore", *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and out.stderr.startswith("error: cannot write /no/x.py") and out.stderr.count("\n") == 1


@pytest.mark.slow
def test_a_script_runs_headless_without_plotly(tmp_path):
    """Without plotly the script still prints every number and the record, and says why there is no chart."""
    view = r.LongitudinalView(1_000, 16, 2, 0.3, 0.05, 0, 1.0, "tight", 1e-6)
    (tmp_path / "view.py").write_text(r.script(view))
    blocked = "import sys, runpy; sys.modules['plotly'] = None; runpy.run_path('view.py', run_name='__main__')"
    printed = _fresh(["-c", blocked], tmp_path)
    assert "No chart: plotly" in printed and not (tmp_path / "longitudinal.html").exists()
    assert _record(printed)["n"] == 1_000 and len(_record(printed)["estimate"]) == 16
