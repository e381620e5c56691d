"""Every URL parameter a page could not take is said, once, at the top of the page.

Streamlit drops a bound control's URL value that the control cannot take (?encoding=foo, ?eps_c=abc) and leaves
a parameter that no control of the page reads (?tau=3 while report fragments are off) in the URL, both silently.
app.py runs every page inside url_warnings(): it notes the URL's parameters before the page runs and, after it,
shows one st.warning per parameter whose control holds another value than the URL asked for (naming the value
used; also when the page stopped early at an error), and per parameter no control of the page took when the page
ran to its end (then removed from the URL); on the page's first run in the session, whose URL is the one the
browser asked for. A URL value is quoted as text, at most MAX_VALUE_CHARS characters. A control that explains
its own URL value better (eps_c's range, the Plan page's n and d) warns itself and calls warned(key), so that the
value is named once.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import RerunException, StopException

from ui.kit.format import plain
from ui.kit.navigation import first_run

MAX_VALUE_CHARS = 40  # of a URL value quoted in a warning: a 20,000-character value is not echoed whole
_WARNED = "_url_warned"  # session state: the URL parameters the page has warned about in this run


def shown(value: str) -> str:
    """A URL value as a warning quotes it: as text, at most MAX_VALUE_CHARS characters, with its length."""
    if len(value) <= MAX_VALUE_CHARS:
        return plain(repr(value), None)
    return plain(f"{value[: MAX_VALUE_CHARS - 16]!r}... ({len(value):,} characters)", None)


def warned(key: str) -> None:
    """A control has warned about the URL's value for key: url_warnings() does not name it again."""
    st.session_state.setdefault(_WARNED, set()).add(key)


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))  # select sliders write their options as shown: 100,000
    except ValueError:
        return None


def _same_one(text: str, value: object) -> bool:
    """Whether a URL text asks for the value a control holds (1e6 asks for 1000000, true for True)."""
    if isinstance(value, bool):
        return text.lower() == str(value).lower()
    if isinstance(value, int | float):
        number = _number(text)
        return number is not None and (number == value or (math.isnan(number) and math.isnan(value)))
    if value is None:
        return text == ""
    return text == str(value)


def same(texts: list[str], value: object) -> bool:
    """Whether a URL parameter's texts (several for a list: ?t=4&t=16) ask for the value a control holds."""
    if isinstance(value, list | tuple):
        texts = [t for t in texts if t != ""]  # ?t= is the empty list
        return len(texts) == len(value) and all(_same_one(t, v) for t, v in zip(texts, value))
    return bool(texts) and _same_one(texts[-1], value)


def _held(value: object) -> str:
    """A control's value as the warning names it."""
    if isinstance(value, list | tuple):
        return ", ".join(_held(v) for v in value) or "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    return "none" if value is None else plain(value, MAX_VALUE_CHARS)


def _quoted(texts: list[str]) -> str:
    return shown(texts[-1]) if len(texts) == 1 else ", ".join(shown(t) for t in texts)


def problems(url: dict[str, list[str]], completed: bool) -> list[str]:
    """The warnings for the URL parameters `url` (as the run began) that the page's controls did not take; a
    parameter no control read is named only when the page ran to its end (completed), and is removed from the URL."""
    skip = st.session_state.get(_WARNED, set())
    out = []
    for key, texts in url.items():
        if key in skip:
            continue
        name = plain(key, MAX_VALUE_CHARS)
        if key in st.session_state:
            value = st.session_state[key]
            if not same(texts, value):
                out.append(f"The URL's {name}={_quoted(texts)} is not a value this page's control takes: using "
                           f"{name} = {_held(value)}.")  # fmt: skip
        elif completed:
            out.append(f"The URL's {name}={_quoted(texts)} is not used on this page with these settings: ignored.")
            if key in st.query_params:
                del st.query_params[key]
    return out


@contextmanager
def url_warnings() -> Iterator[None]:
    """Run the page; then warn, at its top, about every URL parameter it did not take (see the module). Only on
    the page's first run: later runs see Streamlit's stale copy of the URL, not the one the controls updated."""
    url = {key: st.query_params.get_all(key) for key in st.query_params} if first_run() else {}
    st.session_state[_WARNED] = set()
    top = st.container()
    completed = False
    try:
        yield
        completed = True
    except RerunException:  # another page or a rerun: this run's URL is not the one shown
        url = {}
        raise
    except StopException:  # the page stopped early (no data yet, bad input): only the values the controls hold
        raise
    finally:
        for message in problems(url, completed):
            top.warning(message)
