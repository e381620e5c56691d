"""The command line parses before it imports: `--help` imports neither numpy nor the library's registries, a
command's help still lists its choices (from the registries it imports), and every command is built."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from ldpcore.cli import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import sys
from ldpcore.cli import main
try:
    main({argv!r})
except SystemExit:
    pass
print(sorted(m for m in ("numpy", "scipy", "PIL", "ldpcore.oracles", "ldpcore.privacy.bounds") if m in sys.modules))
"""


def _imported(argv: list[str]) -> tuple[str, list[str]]:
    """(the help printed, the heavy modules imported) of main(argv) in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv)], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    text, _, modules = out.rstrip().rpartition("\n")
    return text, ast.literal_eval(modules)


def test_help_imports_nothing_heavy():
    text, modules = _imported(["--help"])
    assert modules == []
    assert all(name in text for name in COMMANDS)


def test_a_command_builds_only_its_own_options():
    text, modules = _imported(["oracles", "--help"])
    assert "--json" in text and "numpy" not in modules  # oracles' options need no registry; running it does
    text, modules = _imported(["privacy", "--help"])
    assert "onehot" in text and "grr" in text and "ldpcore.oracles" in modules  # --encoding's choices


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_its_options_in_the_full_parser(command, capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args([command, "--help"])
    assert stop.value.code == 0
    options = capsys.readouterr().out.split("options:", 1)[1]
    assert "--" in options.replace("--help", "")
