"""The package as a user installs it: the wheel carries the bundled datasets, the console script and the
metadata; the public API of ldpcore/__init__.py resolves every name it lists; `import ldpcore` is cheap."""

import email
import shutil
import subprocess
import sys
import zipfile

import pytest
from conftest import ROOT

import ldpcore


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """The wheel built from a copy of the sources (a build writes build/ and *.egg-info next to them)."""
    src = tmp_path_factory.mktemp("src")
    shutil.copytree(ROOT / "ldpcore", src / "ldpcore", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(src)],
        check=True,
        capture_output=True,
    )
    (path,) = out.glob("ldpcore-*.whl")
    return zipfile.ZipFile(path)


def test_the_wheel_ships_the_bundled_datasets(wheel):
    names = set(wheel.namelist())
    for dataset in ("horse.png", "child.png", "map.png", "app_events.csv", "city_points.csv"):
        assert f"ldpcore/data/bundled/{dataset}" in names
    assert not any(name.startswith(("tests/", "app_pages/", "ui/")) for name in names)


def test_the_wheel_declares_the_console_script_version_and_python(wheel):
    info = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    meta = email.message_from_bytes(wheel.read(info))
    assert meta["Version"] == ldpcore.__version__
    assert meta["Requires-Python"] == ">=3.11"
    assert meta["License-Expression"] == "MIT"
    entry_points = wheel.read(info.replace("METADATA", "entry_points.txt")).decode()
    assert "ldpcore = ldpcore.cli:main" in entry_points


def test_every_public_name_resolves():
    for name in ldpcore.__all__:
        assert getattr(ldpcore, name) is not None, name
    with pytest.raises(AttributeError):
        ldpcore.no_such_name  # noqa: B018


def test_import_is_cheap():
    """The public names are imported on first use: `import ldpcore` loads neither numpy nor scipy."""
    code = "import sys, ldpcore; print(sorted({'numpy', 'scipy'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "[]"


def test_a_bundled_dataset_loads_from_another_directory(tmp_path):
    code = "import ldpcore; h = ldpcore.load_dataset('horse'); print(h.n)"
    env_path = str(ROOT)
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"},
    )
    assert int(out.stdout) == ldpcore.load_dataset("horse").n
