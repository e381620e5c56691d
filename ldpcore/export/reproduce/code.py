"""Python source as ruff's formatter writes it (line length 88, its default), and the two shapes a
reproduction takes: a script and a Jupyter notebook.

A Program is a list of Steps (what the step means, in words, and its code), the record it prints at the end
and the charts it draws. `script` lays it out as one file (steps as "# %%" cells that editors run one by
one), `notebook` as nbformat 4.5 JSON (a Markdown cell and a code cell per step), both from the same code.
Literals and calls made from values (a spec's fields, a file name, a grid of eps) go through `literal` and
`call`, which write them on one line where it fits and one item per line with a trailing comma otherwise:
the two layouts ruff leaves as they are.
"""

from __future__ import annotations

import json
import math
import sys
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata

WIDTH = 88  # ruff's (and black's) default line length: the code is formatted for a user's default settings
INDENT = "    "
RECORD_MARK = "The view's record"  # the line before the record's JSON in what a program prints


def literal(value: object) -> str:
    """value as a Python literal on one line: None, bools, whole numbers, finite floats, strings, and lists,
    tuples and dicts of them (ValueError for anything else, an infinity or NaN among them)."""
    if value is None or isinstance(value, bool | int):
        return repr(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} has no literal; write math.inf or math.nan where it is meant")
        return repr(value).replace("e+", "e")  # ruff writes 1e20, not 1e+20
    if isinstance(value, str):
        return _string(value)
    return _bracketed(value).flat()


def _string(text: str) -> str:
    """A string literal in double quotes, or single quotes where that needs fewer escapes (as ruff chooses)."""
    quote = "'" if text.count('"') > text.count("'") else '"'
    out = []
    for ch in text:
        if ch in ("\\", quote):
            out.append("\\" + ch)
        elif ch in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[ch])
        elif not ch.isprintable():
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(ch)
    return quote + "".join(out) + quote


@dataclass(frozen=True)
class Code:
    """An expression: an atom (text), or items between brackets (a call's arguments, a list, a dict)."""

    text: str
    items: tuple[Code, ...] | None = None  # None: an atom
    close: str = ""

    def flat(self) -> str:
        if self.items is None:
            return self.text
        inner = ", ".join(item.flat() for item in self.items)
        one = len(self.items) == 1 and self.text.endswith("(") and self.close == ")" and not self.text[:-1]
        return f"{self.text}{inner}{',' if one else ''}{self.close}"  # a one-item tuple keeps its comma

    def lines(self, head: str, tail: str = "", depth: int = 0) -> list[str]:
        """The expression after `head` (the line's text before it, indentation included) and before `tail`:
        on one line where it fits, else one item per line with a trailing comma."""
        one = head + self.flat() + tail
        if len(one) <= WIDTH or self.items is None or len(self.items) < 2 and self._tuple():
            return [one]
        pad = INDENT * (depth + 1)
        body = [line for item in self.items for line in item.lines(pad, ",", depth + 1)]
        return [head + self.text, *body, INDENT * depth + self.close + tail]

    def _tuple(self) -> bool:
        return self.text == "(" and self.close == ")"


def atom(text: str) -> Code:
    return Code(text)


def value(x: object) -> Code:
    """A literal (see `literal`) as an expression whose lists and dicts may split."""
    if isinstance(x, list | tuple | dict):
        return _bracketed(x)
    return Code(literal(x))


def _bracketed(x: object) -> Code:
    if isinstance(x, dict):
        return Code("{", tuple(Code(f"{literal(k)}: {value(v).flat()}") for k, v in x.items()), "}")
    if isinstance(x, list):
        return Code("[", tuple(value(v) for v in x), "]")
    if isinstance(x, tuple):
        return Code("(", tuple(value(v) for v in x), ")")
    raise ValueError(f"{x!r} has no literal")


def call(function: str, *args: Code | str, **kwargs: Code | str | object) -> Code:
    """function(args, name=value, ...): args are code (a str is an atom, e.g. a name); a keyword's value is
    code, or a value written as its literal."""
    items = [a if isinstance(a, Code) else Code(a) for a in args]
    items += [Code(f"{k}={(v if isinstance(v, Code) else value(v)).flat()}") for k, v in kwargs.items()]
    return Code(f"{function}(", tuple(items), ")")


def statement(head: str, expr: Code, depth: int = 0) -> str:
    """`head` then expr on as many lines as it needs (head: e.g. "spec = ", "print(" needs its own tail)."""
    return "\n".join(expr.lines(INDENT * depth + head, "", depth))


def assign(name: str, expr: Code, comment: str = "") -> str:
    """name = expr (with a comment line above it when given)."""
    above = comment_lines(comment) + "\n" if comment else ""
    return above + statement(f"{name} = ", expr)


def comment_lines(words: str, depth: int = 0) -> str:
    """Words as comment lines within the line length."""
    pad = INDENT * depth + "# "
    return "\n".join(
        textwrap.wrap(" ".join(words.split()), WIDTH - len(pad), initial_indent=pad, subsequent_indent=pad)
    )


@dataclass(frozen=True)
class Step:
    """One step: its title, what it means (a sentence or two, citing the paper where the dashboard does) and
    its code (formatted, at the top level)."""

    title: str
    words: str
    code: str


@dataclass(frozen=True)
class Charts:
    """The charts of a view: `define`, the code of a function (or functions) that draws them, and `draw`, the
    expression that calls it. kind "plotly": it returns plotly figures, which a script writes into one HTML
    file (plotly.js inlined: it opens offline) and a notebook shows; kind "images": it returns {name: PIL
    image}, which a script saves as PNGs and a notebook shows."""

    define: str
    draw: Code
    kind: str = "plotly"
    words: str = ""


@dataclass(frozen=True)
class Program:
    """A view as code: name (the files' stem), title, about (what it recomputes), origin (where the view
    comes from: a page, a command), the data files it reads (expected beside it), its imports, its steps, the
    expression of its record (printed as JSON after RECORD_MARK) and its charts."""

    name: str
    title: str
    about: str
    origin: str
    imports: tuple[str, ...]
    steps: tuple[Step, ...]
    record: Code
    record_words: str
    charts: Charts | None = None
    files: tuple[str, ...] = field(default=())


def _version() -> str:
    try:
        return f" {metadata.version('ldpcore')}"
    except metadata.PackageNotFoundError:
        return ""


def plain(text: str) -> str:
    """text where it can stand in a docstring, a comment or Markdown as it is (letters, digits, spaces and
    . , _ - : = ( ) /), else "?" for each other character: user strings are written as literals in the code."""
    return "".join(ch if ch.isalnum() or ch in " .,_-:=()/" else "?" for ch in text)


def _intro(p: Program, how: str) -> tuple[str, str]:
    """The title and the paragraphs beneath it (the script's docstring, the notebook's first cell)."""
    paragraphs = [p.about, f"Made from {p.origin} by ldpcore{_version()}. {how}"]
    if p.files:
        names = ", ".join(plain(f) for f in p.files)
        paragraphs.append(f"It reads {names}, relative to its own folder: put the file there under that name.")
    return p.title, "\n\n".join(textwrap.fill(" ".join(t.split()), WIDTH) for t in paragraphs)


def _imports(p: Program, more: tuple[str, ...] = (), script: bool = True) -> list[str]:
    """The import block as isort writes it: the standard library, then the rest; in each, `import x` lines
    first, then `from x import ...` with the names of one module merged and ordered by type."""
    lines = list(p.imports) + list(more)
    if p.files or script and p.charts is not None and p.charts.kind == "plotly":
        lines.append("from pathlib import Path")
    if p.charts is not None and p.charts.kind == "plotly":
        lines.append("from typing import TYPE_CHECKING")
    plain: set[str] = set()
    names: dict[str, set[str]] = {}
    for line in lines:
        words = line.split(" import ")
        if line.startswith("import "):
            plain.add(line)
        else:
            module = words[0].removeprefix("from ")
            names.setdefault(module, set()).update(n.strip() for n in words[1].split(","))
    groups: list[list[str]] = [[], []]
    for line in sorted(plain, key=lambda x: x.lower()):
        groups[not _stdlib(line.split()[1])].append(line)
    for module in sorted(names, key=str.lower):
        listed = ", ".join(sorted(names[module], key=_by_type))
        one = f"from {module} import {listed}"
        if len(one) > WIDTH:  # parenthesized, one name per line
            one = "\n".join([f"from {module} import (", *(f"{INDENT}{n}," for n in listed.split(", ")), ")"])
        groups[not _stdlib(module)].append(one)
    block = "\n\n".join("\n".join(g) for g in groups if g)
    if p.charts is not None and p.charts.kind == "plotly":
        block += (
            "\n\nif TYPE_CHECKING:  # plotly draws the charts; only they need it\n    import plotly.graph_objects as go"
        )
    return [block]


def _stdlib(module: str) -> bool:
    return module.split(".")[0] in sys.stdlib_module_names


def _by_type(name: str) -> tuple[int, str]:
    """isort's order within one from-import: CONSTANTS, then Classes, then the rest."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[0].isupper() else 2
    return kind, name.lower()


def _record_code(p: Program) -> str:
    heading = call("print", atom(literal(f"{RECORD_MARK} {p.record_words}:")))
    return "\n".join([statement("record = ", p.record), "print()", statement("", heading), "print(to_json(record))"])


def _script_charts(c: Charts, name: str) -> str:
    if c.kind == "images":
        return (
            statement("shown = ", c.draw) + "\n"
            "for picture, image in shown.items():\n"
            '    image.save(f"{picture}.png")\n'
            '    print(f"Picture: {picture}.png")'
        )
    return (
        "try:\n"
        + statement("charts = ", c.draw, 1)
        + "\nexcept ModuleNotFoundError as missing:  # the numbers above need ldpcore only\n"
        '    print(f"No chart: {missing.name} is not installed (pip install plotly).")\n'
        "else:\n"
        "    parts = []\n"
        "    for i, figure in enumerate(charts):  # plotly.js inlined once: opens offline\n"
        "        parts.append(figure.to_html(full_html=False, include_plotlyjs=i == 0))\n"
        f'    Path("{name}.html").write_text("\\n".join(parts), encoding="utf-8")\n'
        f'    print("Charts: {name}.html")'
    )


def _notebook_charts(c: Charts) -> str:
    if c.kind == "images":
        drawn = statement("shown = ", c.draw)
        return f"{drawn}\nfor picture, image in shown.items():\n    print(picture)\n    display(image)"
    return statement("charts = ", c.draw) + "\nfor figure in charts:\n    figure.show()"


HERE_SCRIPT = "HERE = Path(__file__).parent  # the data file is read from this script's folder"
HERE_NOTEBOOK = "HERE = Path.cwd()  # the notebook's folder: the data file is read from there"


def script(p: Program) -> str:
    """The program as one Python file (ruff format leaves it as it is)."""
    how = f"Run it with Python: it prints the numbers step by step, then its record as JSON {p.record_words}" + (
        f", and writes the charts to {p.name}.html (skipped, with a note, where plotly is not installed)."
        if p.charts is not None and p.charts.kind == "plotly"
        else ", and saves the pictures as PNG files."
        if p.charts is not None
        else "."
    )
    title, body = _intro(p, how)
    parts = [f'"""{title}\n\n{body}\n"""', *_imports(p)]
    if p.files:
        parts.append(HERE_SCRIPT)
    for i, s in enumerate(p.steps, 1):
        parts.append(f"# %% {i}. {s.title}\n{comment_lines(s.words)}\n{s.code}")
    parts.append(f"# %% {len(p.steps) + 1}. The record\n{_record_code(p)}")
    if p.charts is not None:
        words = comment_lines(p.charts.words) + "\n" if p.charts.words else ""
        parts.append(f"# %% {len(p.steps) + 2}. The charts\n{words}{p.charts.define}")
        parts.append(_script_charts(p.charts, p.name))
    return _join(parts)


def _join(parts: Sequence[str]) -> str:
    """Top-level parts: two blank lines around a function definition (as ruff puts them), one elsewhere."""
    out = parts[0]
    for before, part in zip(parts, parts[1:]):
        gap = "\n\n\n" if _defines(before) or _defines(part) else "\n\n"
        out += gap + part
    return out + "\n"


def _defines(part: str) -> bool:
    return any(line.startswith(("def ", "class ")) for line in part.splitlines())


def notebook(p: Program) -> str:
    """The program as a Jupyter notebook (nbformat 4.5 JSON, outputs empty): a Markdown cell and a code cell
    per step, the same code as the script's."""
    how = "Run the cells in order: each prints its numbers; the last ones print the record and draw the charts."
    title, body = _intro(p, how)
    cells = [_markdown(f"# {title}\n\n{body}")]
    shows = ("from IPython.display import display",) if p.charts is not None and p.charts.kind == "images" else ()
    imports = _imports(p, shows, script=False)[0] + ("\n\n" + HERE_NOTEBOOK if p.files else "")
    cells.append(_code(imports))
    for i, s in enumerate(p.steps, 1):
        cells += [_markdown(f"## {i}. {s.title}\n\n{s.words}"), _code(s.code)]
    cells += [
        _markdown(f"## {len(p.steps) + 1}. The record\n\n{RECORD_MARK} {p.record_words}."),
        _code(_record_code(p)),
    ]
    if p.charts is not None:
        cells += [_markdown(f"## {len(p.steps) + 2}. The charts\n\n{p.charts.words}".strip()), _code(p.charts.define)]
        cells.append(_code(_notebook_charts(p.charts)))
    for i, cell in enumerate(cells):
        cell["id"] = f"{p.name}-{i}"
    document = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def _source(text: str) -> list[str]:
    lines = text.strip("\n").split("\n")
    return [line + "\n" for line in lines[:-1]] + lines[-1:]


def _markdown(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": _source(text)}


def _code(text: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": _source(text)}


def kwargs_of(mapping: Mapping[str, object]) -> dict[str, Code]:
    """A mapping's values as literal code, for call(**...)."""
    return {k: value(v) for k, v in mapping.items()}
