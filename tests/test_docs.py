"""The README is true (issue 24 item 9): every command block runs from a fresh clone's point of view on the bundled
data (in-process, in an empty folder that holds only the package), and every number the README and the docs state
about the tool's output is the number the tool prints, its limits and budgets the ones the code enforces.

Numbers measured by benchmarks on a shared machine (seconds, megabytes of RSS, audit lower bounds from 10^6
trials) are not claims about one output and are not checked here; the statistical tests hold those that are.
"""

import json
import re
import shlex
import tomllib

import pytest
from conftest import ROOT

from ldpcore.cli import build_parser, main

README = (ROOT / "README.md").read_text()
HORSE = ["--n", "1914589", "--delta", "5e-8"]  # the paper's Horse: n and delta of Table IV
SLOW = ("audit",)  # commands that take seconds each (10^6 to 10^7 trials)


def command_blocks(text: str) -> list[list[list[str]]]:
    """The ldpcore commands of each ```bash block, as argument lists (backslash continuations joined,
    comments dropped); blocks without one are left out (installs, the server, pytest, benchmarks)."""
    blocks = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        commands = []
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words[:3] == ["python", "-m", "ldpcore"]:
                commands.append(words[3:])
            elif words[:1] == ["ldpcore"]:
                commands.append(words[1:])
        if commands:
            blocks.append(commands)
    return blocks


BLOCKS = command_blocks(README)


@pytest.fixture
def fresh_clone(tmp_path, monkeypatch):
    """An empty folder holding only the package (as a clone has it), the working directory of the commands."""
    (tmp_path / "ldpcore").symlink_to(ROOT / "ldpcore")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *argv: str) -> str:
    """`python -m ldpcore ARGV` in this process: its stdout (status 0, nothing on stderr)."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert status == 0 and err == "", (argv, status, err)
    return out


@pytest.mark.parametrize(
    "block",
    [pytest.param(b, marks=[pytest.mark.slow] if any(c[0] in SLOW for c in b) else []) for b in BLOCKS],
    ids=[" | ".join(c[0] for c in b) for b in BLOCKS],
)
@pytest.mark.slow
def test_every_readme_command_block_runs_on_bundled_data(block, fresh_clone, capsys):
    for argv in block:
        out = run(capsys, *argv)
        assert out.strip(), argv
        if "--json" in argv:
            json.loads(out)
    assert sum(len(b) for b in BLOCKS) >= 15 and not list(fresh_clone.glob("ldpcore/**/out"))


def test_the_readme_python_example_runs(fresh_clone):
    (code,) = re.findall(r"```python\n(.*?)```", README, re.S)
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - the README's own example
    assert scope["result"].metrics["rmse"] > 0 and scope["plan"].eps_l_inf == pytest.approx(8.5469, abs=5e-5)


def claim(text: str, sentence: str, value: str) -> None:
    """sentence (with {} for the number) is in text with the tool's value in place of {} (line breaks and runs
    of blanks as one blank)."""
    assert " ".join(sentence.format(value).split()) in " ".join(text.split()), (sentence, value)


def as_json(capsys, *argv: str) -> dict:
    return json.loads(run(capsys, *argv, "--json"))


def test_the_readmes_privacy_numbers_are_what_the_tool_prints(capsys):
    horse = as_json(capsys, "privacy", *HORSE, "--eps-c", "1", "--domain", "87680")
    claim(README, "paper's Horse numbers: eps_l_inf = {} certified by Lemma II.6", f"{horse['eps_l_inf']:.4f}")
    assert horse["certified"] and "Lemma II.6" in horse["citation"]
    claim(README, "(the unrounded {} gives", f"{horse['eps_l_inf']:.4f}")
    claim(README, "gives {}).", f"{horse['expected_messages']:.2f}")
    esa = (ROOT / "docs" / "esa.md").read_text()
    claim(esa, "(Horse at ε_c = 1: {} at ε_l", f"{horse['expected_messages']:.2f}")
    claim(esa, "at ε_l = {}; the", f"{horse['eps_l_inf']:.4f}")
    fragments = as_json(capsys, "privacy", *HORSE, "--eps-c", "0.75", "--tau", "16")
    claim(README, "tau = 16: the exact eps_l_1 is {} (printed", f"{fragments['eps_l_1']:.4f}")
    sketch = ["--n", "1914606", "--delta", "5e-8", "--encoding", "cms", "--domain", "87680"]
    certified = as_json(capsys, "privacy", *sketch, "--eps-c", "1")
    claim(README, "on Horse at eps_c = 1 it allows eps_l = {} (more", f"{certified['eps_b']:.2f}")
    paper = as_json(capsys, "privacy", *sketch, "--eps-l", str(horse["eps_l_inf"]))
    claim(README, "the paper's sketch reports at 8.55 satisfy eps_c = {}.", f"{paper['eps_c']:.2f}")


def test_the_readmes_tight_accountant_numbers_are_what_the_tool_prints(capsys):
    cheu = as_json(capsys, "run", "--dataset", "horse", "--eps-c", "1")
    tight = as_json(capsys, "run", "--dataset", "horse", "--eps-c", "1", "--accountant", "tight")
    claim(README, "allows eps_l {} instead of", f"{tight['eps_l_inf']:.2f}")
    claim(README, "instead of {} at the same eps_c on Horse", f"{cheu['eps_l_inf']:.2f}")
    claim(README, "(RMSE {} instead of", f"{tight['rmse']:.2f}")
    claim(README, "instead of {}).", f"{cheu['rmse']:.2f}")


def test_the_readmes_subcommands_limits_and_budgets_are_the_codes():
    from ldpcore.data.histogram_csv import MAX_CSV_ROWS, MAX_LABEL_BYTES, MAX_LINE_BYTES
    from ldpcore.data.images import MAX_PIXELS
    from ldpcore.data.sources import BLOCK_BYTES, MAX_FILE_BYTES
    from ldpcore.errors import MAX_COUNT, MAX_D, MAX_N, MAX_SEED, MAX_TAU
    from ui.kit.cache import BUDGETS_MB
    from ui.kit.runs import DISPLAY_WIDTH

    commands = next(a for a in build_parser()._actions if a.choices and "privacy" in a.choices).choices
    claim(README, "Its {} subcommands", str(len(commands)))
    assert all(f"`{name}`" in README.split("Its ")[1][:300] for name in commands)
    limits = README.split("### Limits")[1].split("## From a notebook")[0]
    for number in (
        f"{MAX_FILE_BYTES // 2**20} MB",
        f"{MAX_PIXELS // 10**6} megapixels",
        f"{MAX_CSV_ROWS:,} rows",
        f"{MAX_LINE_BYTES // 2**10} KB per line",
        f"{MAX_LABEL_BYTES:,} bytes per value name",
        f"({BLOCK_BYTES // 2**20} MB)",
        f"2^{MAX_COUNT.bit_length() - 1} (int64",
        f"| 2^{MAX_N.bit_length() - 1} (about",
        f"| {MAX_D:,} |",
        f"| {MAX_TAU:,}; 2^{MAX_SEED.bit_length()} - 1 |",
    ):
        assert number in limits, number
    upload = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"]
    claim(README, "uploads in the dashboard: {} MB", str(upload))
    claim(README, "uploads are limited to {} MB.", str(upload))
    for name, mb in BUDGETS_MB.items():
        claim(README, f"`{name}` {{}} MB", f"{mb:,}")
    claim(README, "at most {} pixels wide", str(DISPLAY_WIDTH))


def _row(text: str, head: str) -> list[float]:
    """The numbers of the markdown table row that starts with `head` (each cell's first number)."""
    line = next(x for x in text.splitlines() if x.startswith(head))
    return [float(re.match(r"[\d.,]+", c.strip()).group().replace(",", "")) for c in line.strip("|").split("|")]


@pytest.mark.slow
def test_the_composition_docs_numbers_are_what_the_tool_prints(capsys):
    """docs/composition.md: the composed pair of the replacement table (`amplify --notion replacement`), the rounds
    table (`amplify --rounds`: total, one round, basic, advanced; 3 significant digits) and Horse's year."""
    text = (ROOT / "docs" / "composition.md").read_text()
    tight = ["amplify", "--bound", "tight"]
    for n, eps0, delta in ((30, "1.1", "1e-6"), (75, "1.1", "1e-6"), (50, "1.75", "1e-3"), (100, "0.75", "1e-6")):
        r = as_json(capsys, *tight, "--eps0", eps0, "--n", str(n), "--delta", delta, "--notion", "replacement")
        assert _row(text, f"| {n} | {eps0} | {delta} |")[5] == pytest.approx(r["eps_c"], abs=5e-5)
    for rounds in ("1", "365", "10,000"):
        r = as_json(
            capsys, *tight, "--eps0", "1", "--n", "10000", "--delta", "1e-6", "--rounds", rounds.replace(",", "")
        )
        basic, advanced = r.get("eps_c_total_basic", r["eps_c"]), r.get("eps_c_total_advanced")
        shown = _row(text, f"| {rounds} |")[1:]
        tool = [r["eps_c_total"], r["eps_c_per_round"], basic, advanced]
        for doc, value in zip(shown, tool):
            assert value is None or doc == pytest.approx(value, rel=5e-3), (rounds, shown, tool)
    horse = [*tight, *HORSE, "--notion", "replacement"]
    year = as_json(capsys, *horse, "--eps0", "6", "--rounds", "365")
    claim(text, "a year {} (basic", f"{year['eps_c_total']:.2f}")
    claim(text, "(basic {}, advanced", f"{year['eps_c_total_basic']:.1f}")
    budget = as_json(capsys, *horse, "--eps-c", "4", "--rounds", "365")
    claim(text, "allows eps0 = {} per day under replacement", f"{budget['eps0']:.2f}")
    claim(text, "would cost {} by basic", f"{budget['eps_c_total_basic']:.1f}")


@pytest.mark.slow
def test_the_readmes_plan_numbers_are_what_the_tool_prints(capsys):
    """README's Plan paragraph: Horse at replacement eps_c = 1 recommends one-hot with the tight accountant (its
    eps_l and RMSE) against GRR with the Bennett blanket (the runner-up among one-hot and GRR rows)."""
    table = as_json(capsys, "plan", "--dataset", "horse", "--eps-c", "1", "--encodings", "onehot,grr")
    best = min((r for r in table["rows"] if r["ranked"]), key=lambda r: r["rmse"])
    grr = next(r for r in table["rows"] if r["encoding"] == "grr" and r["accountant"] == "blanket-bennett")
    assert (table["recommended"], best["accountant"]) == ("onehot", "tight-binary-rr")
    claim(README, "the tight accountant: eps_l {}, predicted", f"{best['eps_l']:.2f}")
    claim(README, "predicted RMSE {} per bin", f"{best['rmse']:.2f}")
    claim(README, "GRR with the Bennett blanket at {}.", f"{grr['rmse']:.2f}")
