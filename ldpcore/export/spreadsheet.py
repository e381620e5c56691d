"""CSV for spreadsheets: rows written by the csv module (a value holding a comma, quote or line break is
quoted, so every row keeps its columns) and text cells that a spreadsheet would run as a formula made inert.

Excel, LibreOffice Calc and Google Sheets take a cell that starts with =, +, -, @, a tab or a carriage return
as a formula (OWASP, *CSV Injection*): a label such as ``=HYPERLINK("http://...")`` or ``+cmd|' /C calc'!A0``
would run when the file is opened. Such a cell is written with a leading apostrophe, which these programs
show as text; a plain number (``-3``, ``+1.5e3``) is left as it is.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def inert(cell: object) -> object:
    """cell as a spreadsheet shows it as written: text starting with = + - @ tab or CR gets a leading
    apostrophe unless it is a plain decimal number; anything else is returned unchanged."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def csv_text(rows: Iterable[Iterable[object]]) -> str:
    """rows as CSV text (\\n line ends) as the csv module writes them; the caller makes its text cells inert."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()
