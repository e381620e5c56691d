"""The documentation site: `mkdocs build --strict` passes (warnings are errors) with the example notebooks
executed, every public name has an API reference entry, every page is in the navigation, and the built site
loads nothing from another host."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

import ldpcore

pytest.importorskip("mkdocs")
pytest.importorskip("nbclient")

DOCS = ROOT / "docs"
# what makes a browser fetch from another host: element sources, stylesheets and other <link>s, CSS urls
LOADS = [
    re.compile(r"""<(?:script|img|iframe|source|audio|video|embed)\b[^>]*\bsrc\s*=\s*["']?(?:https?:)?//""", re.I),
    re.compile(r"""<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?//""", re.I),
    re.compile(r"""url\(\s*["']?(?:https?:)?//""", re.I),
    re.compile(r"""@import\s+["']?(?:url\()?\s*["']?(?:https?:)?//""", re.I),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = os.environ | {"NO_MKDOCS_2_WARNING": "1"}
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)]
    done = subprocess.run(build, cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stderr[-4000:]
    return out


@pytest.mark.slow
def test_every_public_name_has_a_reference_entry(site):
    listed = set(re.findall(r"^::: ldpcore\.(\w+)\s*$", (DOCS / "reference.md").read_text(), re.M))
    assert set(ldpcore.__all__) <= listed, sorted(set(ldpcore.__all__) - listed)
    anchors = set(re.findall(r'id="ldpcore\.(\w+)"', (site / "reference" / "index.html").read_text()))
    assert set(ldpcore.__all__) <= anchors, sorted(set(ldpcore.__all__) - anchors)


@pytest.mark.slow
def test_the_example_notebooks_ran_and_their_outputs_are_shown(site):
    examples = sorted(p.stem for p in (DOCS / "examples").glob("*.ipynb"))
    assert len(examples) >= 3
    pages = {name: (site / "examples" / name / "index.html").read_text() for name in examples}
    assert "8.5469" in pages["paper_table_iv"] and "5.1996" in pages["paper_table_iv"]  # Table IV, unrounded
    assert "on the Pareto set of the certified rows" in pages["sizing_a_deployment"]  # the recommendation sentence
    assert len(list((site / "examples").glob("teaching_esa_with_an_image-*.png"))) >= 2  # the pictures
    for name in examples:
        assert (site / "examples" / f"{name}.ipynb").is_file()  # the notebook itself, to download


def test_every_page_is_in_the_navigation():
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = [p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")]
    pages += [p.relative_to(DOCS).with_suffix(".md").as_posix() for p in (DOCS / "examples").glob("*.ipynb")]
    missing = [p for p in pages if f": {p}" not in nav]
    assert not missing, f"add these pages to the nav of mkdocs.yml: {missing}"


def test_the_site_loads_nothing_from_another_host(site):
    found = []
    for path in site.rglob("*"):
        if path.suffix in (".html", ".css"):
            text = path.read_text(errors="replace")
            found += [f"{path.relative_to(site)}: {m.group(0)}" for rx in LOADS for m in rx.finditer(text)]
            # features whose scripts fetch from other hosts: repository facts, mermaid from a CDN
            found += [
                f"{path.relative_to(site)}: {w}" for w in ('data-md-component="source"', 'class="mermaid"') if w in text
            ]
    assert found == []


def test_the_check_catches_external_loads():
    """Negative control for the patterns above."""
    bad = [
        '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">',
        '<script src="//cdn.example.org/x.js"></script>',
        "body { background: url('https://example.org/a.png') }",
        '@import url("https://fonts.googleapis.com/css2");',
    ]
    assert all(any(rx.search(text) for rx in LOADS) for text in bad)
    assert not any(rx.search('<a href="https://github.com/ldpcore/ldpcore">source</a>') for rx in LOADS)


def test_nothing_a_user_reads_points_to_the_working_folders(site):
    for path in site.rglob("*.html"):
        assert "/work/" not in path.read_text(errors="replace"), path
