"""Take a view home: the view as a Python script and a Jupyter notebook that recompute it with the ldpcore library
(ldpcore.export.reproduce), and the view's JSON record (ldpcore.export.view_records) that they print, as three
download buttons. The files are made when a button is clicked, from the view's typed description."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import streamlit as st

from ldpcore.export import reproduce, to_json

HELP = (
    "Recomputes this view with the ldpcore library (installed as the README says): the same seed and settings, the "
    "numbers printed step by step, then the view's record as JSON, equal to the Record (JSON) download; the "
    "charts are written to an HTML file (the script) or shown (the notebook)."
)
UPLOAD_HELP = " It reads your file from its own folder: put the file there under the name you uploaded it with."


def _json(record: Callable[[], dict]) -> str:
    return to_json(record())


def take_home(view: reproduce.View, name: str, record: Callable[[], dict] | None, container=st) -> None:
    """Script, notebook and (record given: a function making it when clicked) JSON record of the view, named
    name.py, name.ipynb and name.json, side by side in container."""
    source = getattr(view, "source", None)  # a view of data carries its source; the others have none
    words = HELP + (UPLOAD_HELP if source is not None and source.files else "")
    columns = container.columns(3)
    columns[0].download_button(
        "Script (.py)",
        partial(reproduce.script, view),
        f"{name}.py",
        "text/x-python",
        on_click="ignore",
        help=words,
        key=f"{name}_script",
    )
    columns[1].download_button(
        "Notebook (.ipynb)",
        partial(reproduce.notebook, view),
        f"{name}.ipynb",
        "application/x-ipynb+json",
        on_click="ignore",
        help=words,
        key=f"{name}_notebook",
    )
    if record is not None:
        columns[2].download_button(
            "Record (JSON)",
            partial(_json, record),
            f"{name}.json",
            "application/json",
            on_click="ignore",
            help="The numbers of this view as JSON: what its script and notebook print last.",
            key=f"{name}_record",
        )
