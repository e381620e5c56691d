"""Numbers and words as a person reads them: values shortened to fit a metric (3.37 M, 16.2 k) with the
exact value kept for the tooltip and the downloads, epsilon as the symbol with a plain-word caption, and a
word with its reason wherever a value is missing.

Pure formatting: no privacy logic (every number comes from ldpcore).
"""

from __future__ import annotations

import math
import re

EPS = "ε"
DELTA = "δ"
INF_WORDS = "∞ (no guarantee)"

# what each epsilon protects against, in plain words (labels of the metrics, captions of the charts)
PARTY = {
    "eps_l_inf": "per phone",
    "eps_l_1": "per captured shuffler",
    "eps_c": "analyst after shuffling",
}
PARTY_HELP = {
    "eps_l_inf": "ε_l (eps_l_inf): local DP of everything one respondent sends, what the server would learn "
    "about one respondent without a shuffler.",
    "eps_l_1": "ε_l,1 (eps_l_1): local DP of one report fragment, what a captured (or colluding) shuffler "
    "learns from the one message it sees.",
    "eps_c": "ε_c (eps_c): the central guarantee that the analyst, who sees only the shuffled multiset of "
    "reports, gets after shuffling.",
}
_SUFFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def _present(x: float | None) -> float | None:
    """x as a float, or None where it is missing (None or NaN)."""
    if x is None or math.isnan(x):
        return None
    return float(x)


def short(x: float | None, digits: int = 3, missing: str = "not defined") -> str:
    """x in at most about 7 characters: 3 significant digits with a k / M / G / T suffix from a thousand
    on (3,366,030.29 -> "3.37 M", 16,190 -> "16.2 k"), "∞" for infinity, `missing` for None or NaN."""
    x = _present(x)
    if x is None:
        return missing
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    for scale, suffix in _SUFFIXES:
        if abs(x) >= scale * 0.9995:
            return f"{x / scale:.{digits}g} {suffix}"
    if x != 0 and abs(x) < 10 ** -(digits - 1):
        return f"{x:.{digits - 1}e}"
    if abs(x) >= 100:
        return f"{x:.0f}"
    if abs(x) >= 1:
        return f"{x:.{max(digits - 1 - (abs(x) >= 10), 0)}f}"
    return f"{x:.{digits}g}"


def exact(x: float | None, missing: str = "not defined") -> str:
    """x in full: thousands separated, all the decimals that matter (3,366,030.29), "∞", or `missing`."""
    x = _present(x)
    if x is None:
        return missing
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}"
    if abs(x) >= 1:
        return f"{x:,.2f}" if abs(x) >= 1000 else f"{x:,.6g}"
    return f"{x:.6g}"


def with_exact(help_text: str, x: float | None, unit: str = "") -> str:
    """A tooltip: the exact value first, then the explanation."""
    return f"Exact: {exact(x)}{' ' + unit if unit else ''}. {help_text}"


def eps_label(kind: str) -> str:
    """A metric label: the symbol and whom it is about ("ε per phone")."""
    return f"{EPS} {PARTY[kind]}"


def or_reason(x: float | None, reason: str, digits: int = 4) -> str:
    """A table cell: the number, or the word "not defined" with its reason; infinity said in words."""
    x = _present(x)
    if x is None:
        return f"not defined: {reason}" if reason else "not defined"
    if math.isinf(x):
        return INF_WORDS
    return f"{x:,.0f}" if abs(x) >= 10**digits else f"{x:.{digits}g}"


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:=&^\"'])")
MAX_SHOWN = 200  # characters of a user's text shown in a message


def plain(text: object, limit: int | None = MAX_SHOWN) -> str:
    """A user's text (a file name, a label, an error naming them) as Markdown that shows it as it is: every
    ASCII punctuation character backslash-escaped (CommonMark: no link, image, emphasis, HTML, Streamlit colour
    or icon directive, math), line breaks as blanks, longer than limit characters shortened with its length."""
    text = " ".join(str(text).splitlines())
    if limit is not None and len(text) > limit:
        text = f"{text[: limit - 40]}... ({len(text):,} characters)"
    return _MARKDOWN.sub(r"\\\1", text)
