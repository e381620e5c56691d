"""What the "take it home" tests share: the files a page offers for download (read from Streamlit's media file
manager while AppTest runs the page), and the view's script and notebook run in a fresh interpreter (the notebook
through nbclient and an ipykernel) in a folder of their own, with this checkout's ldpcore first on the path; the
record each prints after RECORD_MARK, parsed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import nbformat
from conftest import ROOT
from nbclient import NotebookClient
from streamlit.runtime.media_file_manager import MediaFileManager

from ldpcore.export.reproduce import RECORD_MARK

TIMEOUT = 300  # s for one script or notebook (each takes seconds; the machine is shared)


class Downloads:
    """Every file the pages offer for download while installed, by file name (the last run's): eager data as
    Streamlit stores it, deferred data by calling its function as a click does."""

    def __init__(self, monkeypatch) -> None:
        self.files: dict[str, bytes | str | Callable] = {}
        add, add_deferred = MediaFileManager.add, MediaFileManager.add_deferred

        def eager(manager, data, mimetype, coordinates, file_name=None, is_for_static_download=False):
            if is_for_static_download and file_name:
                self.files[file_name] = data
            return add(manager, data, mimetype, coordinates, file_name, is_for_static_download)

        def deferred(manager, data_callable, mimetype, coordinates, file_name=None, **kw):
            if file_name:
                self.files[file_name] = data_callable
            return add_deferred(manager, data_callable, mimetype, coordinates, file_name, **kw)

        monkeypatch.setattr(MediaFileManager, "add", eager)
        monkeypatch.setattr(MediaFileManager, "add_deferred", deferred)

    def text(self, name: str) -> str:
        data = self.files[name]
        if callable(data):
            data = data()
        return data.decode() if isinstance(data, bytes) else str(data)

    def json(self, name: str) -> dict:
        return json.loads(self.text(name))


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}


def record_of(printed: str) -> dict:
    """The JSON a script or notebook prints after the line starting with RECORD_MARK."""
    assert RECORD_MARK in printed, printed[-2000:]
    after = printed.rsplit(RECORD_MARK, 1)[1].split("\n", 1)[1]
    return json.JSONDecoder().raw_decode(after)[0]


def start_script(text: str, folder: Path, name: str = "view.py") -> subprocess.Popen:
    """The script started by a fresh interpreter in folder (its data files put there beforehand)."""
    (folder / name).write_text(text, encoding="utf-8")
    return subprocess.Popen(
        [sys.executable, name], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env()
    )


def finish(script: subprocess.Popen) -> str:
    """stdout of a started script, once it has ended (AssertionError with its stderr if it failed)."""
    out, err = script.communicate(timeout=TIMEOUT)
    assert script.returncode == 0, err[-3000:]
    return out


def run_script(text: str, folder: Path, name: str = "view.py") -> str:
    """stdout of the script run by a fresh interpreter in folder."""
    return finish(start_script(text, folder, name))


def run_notebook(text: str, folder: Path, monkeypatch) -> str:
    """Everything the notebook prints, executed cell by cell by nbclient in a fresh ipykernel running in folder."""
    for key, value in _env().items():
        monkeypatch.setenv(key, value)  # the kernel inherits them
    notebook = nbformat.reads(text, as_version=4)
    nbformat.validate(notebook)
    where = {"metadata": {"path": str(folder)}}  # the kernel's working folder
    NotebookClient(notebook, timeout=TIMEOUT, kernel_name="python3", resources=where).execute()
    return "".join(
        output.get("text", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "stream" and output.name == "stdout"
    )


def script_and_notebook(downloads: Downloads, name: str, folder: Path, monkeypatch) -> tuple[dict, dict]:
    """The records printed by the page's name.py and name.ipynb, each run in a folder of its own beneath folder
    (holding what folder holds: the data files the view reads); the script runs while the notebook does."""
    here = {kind: folder / kind for kind in ("script", "notebook")}
    for target in here.values():
        target.mkdir()
        for f in folder.iterdir():
            if f.is_file():
                (target / f.name).write_bytes(f.read_bytes())
    script = start_script(downloads.text(f"{name}.py"), here["script"])
    try:
        notebook = record_of(run_notebook(downloads.text(f"{name}.ipynb"), here["notebook"], monkeypatch))
    finally:
        printed = finish(script)
    return record_of(printed), notebook
