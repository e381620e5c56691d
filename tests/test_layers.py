"""The layering of ldpcore: imports only go downward, and the library never imports the dashboard.

errors < data < privacy < oracles < experiment < systems < export < cli. A module may import
modules of its own layer or of any layer below it; the privacy layer never reaches an encoding,
and nothing in ldpcore imports streamlit or plotly. The imports are read from the source (ast),
including those inside functions, so a lazy import cannot hide a dependency.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "ldpcore"
LAYERS = ["errors", "data", "privacy", "oracles", "experiment", "systems", "export", "cli"]
TOP = {"__init__", "__main__"}  # the package's front door may reach anything (the public API, the CLI)
FORBIDDEN = ("streamlit", "plotly")


def layer_of(module: str) -> str:
    """The layer of an ldpcore module name such as ldpcore.privacy.tight."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__" and len(parts) > 1 and parts[-2] != "ldpcore":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports(path: Path) -> set[str]:
    """Every module an import statement in the file names (absolute; relative ones resolved)."""
    tree = ast.parse(path.read_text())
    package = ".".join(
        path.relative_to(path.parents[len(path.parts) - 1 - path.parts.index("ldpcore")]).with_suffix("").parts[:-1]
    )
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            for alias in node.names:  # "from pkg import module" names the module, else pkg itself
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in MODULES else base)
    return {"ldpcore.__init__" if name == "ldpcore" else name for name in found}


MODULES = modules()


def violations(module: str, path: Path) -> list[str]:
    """What the module imports against the layering."""
    here = layer_of(module)
    if here in TOP:
        return []
    if here not in LAYERS:
        return [f"{module} is in no layer; add its folder to LAYERS"]
    out = []
    for name in sorted(imports(path)):
        if name.split(".")[0] in FORBIDDEN:
            out.append(f"{module} imports {name}: ldpcore never imports the dashboard's libraries")
        elif name in MODULES:
            there = layer_of(name)
            if there in TOP:
                out.append(f"{module} imports the package front door {name}")
            elif LAYERS.index(there) > LAYERS.index(here):
                out.append(f"{module} ({here}) imports {name} ({there}), a layer above")
    return out


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_only_go_downward(module):
    assert violations(module, MODULES[module]) == []


def test_privacy_never_reaches_an_encoding():
    for module, path in MODULES.items():
        if layer_of(module) == "privacy":
            assert not {n for n in imports(path) if n.startswith("ldpcore.oracles")}, module


def test_the_check_catches_a_violation(tmp_path):
    """Negative control: an oracle and plotly imported (even lazily) by a privacy module are both caught."""
    bad = tmp_path / "ldpcore" / "privacy" / "bad.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("def f():\n    from ldpcore.oracles.onehot import OneHot\n    import plotly\n")
    found = violations("ldpcore.privacy.bad", bad)
    assert len(found) == 2 and "a layer above" in found[0] and "never imports" in found[1]
