"""The package as a user installs it: the wheel carries the bundled datasets, py.typed, the console script and
the metadata; installed into a fresh environment it is typed from any folder; CHANGELOG.md has the version;
the public API of ldpcore/__init__.py resolves every name it lists; `import ldpcore` is cheap."""

import email
import re
import shutil
import subprocess
import sys
import venv
import zipfile

import pytest
from conftest import ROOT

import ldpcore


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """The wheel built from a copy of the sources without network (no build isolation), which the build leaves as
    they were (`pip install .` in a checkout writes no build/ or *.egg-info into it)."""
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
    assert sorted(p.name for p in src.iterdir()) == ["LICENSE", "README.md", "ldpcore", "pyproject.toml"]
    assert not list(src.rglob("*.egg-info")) and not list(src.rglob("__pycache__"))
    (path,) = out.glob("ldpcore-*.whl")
    return zipfile.ZipFile(path)


@pytest.mark.slow
def test_the_wheel_ships_the_bundled_datasets(wheel):
    names = set(wheel.namelist())
    for dataset in ("horse.png", "child.png", "map.png", "app_events.csv", "city_points.csv"):
        assert f"ldpcore/data/bundled/{dataset}" in names
    assert not any(name.startswith(("tests/", "app_pages/", "ui/")) for name in names)


@pytest.mark.slow
def test_the_wheel_declares_the_console_script_version_and_python(wheel):
    info = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    meta = email.message_from_bytes(wheel.read(info))
    assert meta["Version"] == ldpcore.__version__
    assert meta["Requires-Python"] == ">=3.11"
    assert meta["License-Expression"] == "MIT"
    entry_points = wheel.read(info.replace("METADATA", "entry_points.txt")).decode()
    assert "ldpcore=ldpcore.cli:main" in entry_points.replace(" ", "")


def test_the_wheel_is_typed_and_pypi_ready(wheel):
    assert "ldpcore/py.typed" in wheel.namelist()
    info = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    meta = email.message_from_bytes(wheel.read(info))
    classifiers = meta.get_all("Classifier")
    assert "Typing :: Typed" in classifiers and "Programming Language :: Python :: 3.11" in classifiers
    assert {"app", "sql", "docs", "dev"} <= set(meta.get_all("Provides-Extra"))
    urls = dict(url.split(", ", 1) for url in meta.get_all("Project-URL"))
    assert {"Homepage", "Documentation", "Source", "Issues", "Changelog"} <= set(urls)
    assert meta["Description-Content-Type"] == "text/markdown"


@pytest.mark.slow
def test_pip_install_into_a_fresh_environment_ships_py_typed(wheel, tmp_path):
    """The acceptance check of issue 30: ldpcore installed by pip into a new, empty environment (the wheel that
    `pip install .` builds), then, from another folder, importlib.resources finds py.typed in the installed
    package. pip runs from here (--python): the new environment needs neither pip nor setuptools."""
    env = tmp_path / "env"
    venv.create(env, with_pip=False)
    python = str(env / "bin" / "python")
    install = [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index"]
    subprocess.run([*install, wheel.filename], check=True, capture_output=True)
    code = (
        "import ldpcore, importlib.resources as r; print(r.files('ldpcore').joinpath('py.typed').is_file()); "
        "print(ldpcore.__file__)"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = subprocess.run([python, "-c", code], cwd=elsewhere, check=True, capture_output=True, text=True)
    typed, where = out.stdout.split()
    assert typed == "True" and where.startswith(str(env))


def test_the_changelog_and_the_citation_carry_the_current_version():
    """The version is set in ldpcore/__init__.py; CHANGELOG.md and CITATION.cff name it, with one release date."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in text and "keepachangelog.com" in text
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", text, re.M)
    assert released and released[0][0] == ldpcore.__version__  # the newest entry first
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert f'version: "{ldpcore.__version__}"' in citation
    assert f'date-released: "{released[0][1]}"' in citation


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
