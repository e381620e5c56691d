"""mkdocs hook: every docs/examples/*.ipynb is executed at build time and becomes a page of the site.

Each notebook runs top to bottom in a fresh IPython kernel (nbclient) whose folder is the repository's, so it
imports this checkout's ldpcore; a cell that raises fails the build. The page shows the Markdown cells, the
code and its outputs (text as text, images as PNG files beside the page) and links the notebook itself, which
the site ships unexecuted for download.
"""

from __future__ import annotations

import base64
import logging
import time
from pathlib import Path, PurePosixPath

import nbformat
from mkdocs.structure.files import File, Files
from nbclient import NotebookClient

FOLDER = "examples/"
TIMEOUT = 600  # seconds per cell
log = logging.getLogger("mkdocs.hooks.notebooks")


def _fenced(text: str, language: str = "text") -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{language}\n{text.rstrip()}\n{fence}\n"


def to_markdown(notebook, stem: str) -> tuple[str, dict[str, bytes]]:
    """The executed notebook as Markdown, and its images by file name."""
    parts = [f'!!! note ""\n    This page is the notebook [{stem}.ipynb]({stem}.ipynb), run when the site was built.\n']
    images: dict[str, bytes] = {}
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            parts.append(cell.source)
            continue
        if cell.cell_type != "code":
            continue
        parts.append(_fenced(cell.source, "python"))
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                parts.append(_fenced(output.text))
            elif output.output_type in ("execute_result", "display_data"):
                data = output.get("data", {})
                if "image/png" in data:
                    name = f"{stem}-{len(images) + 1}.png"
                    images[name] = base64.b64decode(data["image/png"])
                    parts.append(f"![output {len(images)} of {stem}]({name})\n")
                elif "text/plain" in data:
                    parts.append(_fenced(data["text/plain"]))
    return "\n".join(parts) + "\n", images


def on_files(files: Files, config) -> Files:
    root = Path(config["config_file_path"]).parent
    for notebook_file in [f for f in files if f.src_uri.startswith(FOLDER) and f.src_uri.endswith(".ipynb")]:
        started = time.monotonic()
        notebook = nbformat.read(notebook_file.abs_src_path, as_version=4)
        NotebookClient(
            notebook, timeout=TIMEOUT, kernel_name="python3", resources={"metadata": {"path": str(root)}}
        ).execute()
        stem = PurePosixPath(notebook_file.src_uri).stem
        page, images = to_markdown(notebook, stem)
        files.append(File.generated(config, f"{FOLDER}{stem}.md", content=page))
        for name, data in images.items():
            files.append(File.generated(config, f"{FOLDER}{name}", content=data))
        log.info("executed %s in %.1f s", notebook_file.src_uri, time.monotonic() - started)
    return files
