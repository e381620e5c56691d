"""The one exception type that crosses the library boundary, the shared input checks and the limits.

Every check on user input (files, parameters, accountant validity) raises
``InputError`` with a single sentence naming the field and the allowed range, so the
command line prints it on one line and the dashboard shows it with ``st.error``.

Whole numbers are read exactly (never through a float): 2**53 + 1 stays 2**53 + 1, and
text must be plain decimal notation (``1000``, ``1e3``, ``1000.0``; not ``1_000``).
The limits below are checked before any work or allocation that depends on them.
"""

import math
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal

INT64_MAX = 2**63 - 1
MAX_COUNT = 2**62  # a histogram's counts and their total: sums of two such totals still fit in int64
MAX_TAU = 4096  # report fragments per respondent (Algorithm 2)
MAX_N = 2**50  # respondents of a protocol (about 1.1e15): n x tau <= 2^62 keeps every simulated count in int64
MAX_D = 50_000_000  # bins of a histogram (the pixels of the largest image read)
MAX_SEED = INT64_MAX
MAX_EPS = 100.0  # nats: a protocol's eps_c or eps_l (e^100 ~ 2.7e43 already promises nothing; e^710 overflows)

# plain decimal notation, ASCII digits only: 12, +12, 12.0, .5, 1e3, 1.5E+3 (never 1_000 or a float's repr of inf)
DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
NON_FINITE = {"nan", "inf", "infinity", "snan"}
# how a message states the upper limits that have a reason
_UPPER = {
    INT64_MAX: ("2^63 - 1", "the int64 limit"),
    MAX_COUNT: (f"2^62 = {MAX_COUNT:,}", "the limit that keeps counts within int64"),
    MAX_N: (f"2^50 = {MAX_N:,}", "the limit that keeps n x tau within int64"),
}
MAX_COUNT_TEXT = ", ".join(_UPPER[MAX_COUNT])


class InputError(ValueError):
    """Invalid input: the message is one sentence, fit to show a user as is."""


class Cancelled(Exception):
    """The caller stopped the work (stop_when's predicate held at a checkpoint): nobody waits for its result."""


_STOP = threading.local()  # this thread's stop predicate (stop_when), asked at every checkpoint()


@contextmanager
def stop_when(predicate: Callable[[], bool]) -> Iterator[None]:
    """Within the block, every checkpoint() on this thread raises Cancelled once predicate() is true: long
    computations stop between their cells and blocks when the one who asked for them is gone."""
    outer = getattr(_STOP, "predicate", None)
    _STOP.predicate = predicate
    try:
        yield
    finally:
        _STOP.predicate = outer


def carried(fn: Callable) -> Callable:
    """fn to run on other threads (a pool's workers) under this thread's stop predicate: each call starts
    with a checkpoint, and the checkpoints within it see the predicate too."""
    predicate = getattr(_STOP, "predicate", None)
    if predicate is None:
        return fn

    def run(*args, **kwargs):
        with stop_when(predicate):
            checkpoint()
            return fn(*args, **kwargs)

    return run


def checkpoint() -> None:
    """A point where the computation on this thread may stop: Cancelled if its stop_when predicate holds
    (no predicate: nothing to check, the cost of one attribute lookup)."""
    predicate = getattr(_STOP, "predicate", None)
    if predicate is not None and predicate():
        raise Cancelled("stopped: the result is no longer wanted")


def require(condition: bool, message: str) -> None:
    """Raise ``InputError(message)`` unless ``condition`` holds."""
    if not condition:
        raise InputError(message)


def shown(value) -> str:
    """A value as a message quotes it: long numbers and texts shortened (a 400-digit n is one short line)."""
    text = str(value)
    if len(text) <= 24:
        return text
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{Decimal(value):.4e} ({len(text.lstrip('-'))} digits)"
    return f"{text[:16]}... ({len(text):,} characters)"


def _number(value, name: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{name} must be a number (got {shown(value)!r}).") from None


def check_whole(value, low: int, name: str, high: int = INT64_MAX) -> int:
    """A count read exactly: an int, a finite whole float, or text in plain decimal notation whose value
    is whole (``1e3``, ``1000.0``), in [low, high] (by default up to the int64 limit); else InputError
    naming ``name`` and the range. Text far beyond the range is refused before it is turned into an int."""
    upper, reason = _UPPER.get(high, (f"{high:,}", ""))
    allowed = f"a whole number >= {low:,}" + ("" if high == INT64_MAX else f" and <= {upper}")
    too_big = f"{name} must be at most {upper}{', ' + reason if reason else ''} (got {shown(value)})."
    if isinstance(value, bool):
        raise InputError(f"{name} must be {allowed}, not a boolean (got {value}).")
    if isinstance(value, int) or getattr(getattr(value, "dtype", None), "kind", "") in ("i", "u"):
        number = int(value)
    elif isinstance(value, str):
        text = value.strip()
        require(
            DECIMAL.fullmatch(text) is not None,
            f"{name} must be {allowed} in plain decimal notation such as 1000 or 1e3 (got {shown(value)!r}).",
        )
        decimal = Decimal(text)
        require(decimal.adjusted() <= len(str(high)), too_big)
        require(decimal == decimal.to_integral_value(), f"{name} must be {allowed} (got {shown(value)}).")
        number = int(decimal)
    else:
        real = _number(value, name)
        require(math.isfinite(real) and real == int(real), f"{name} must be {allowed} (got {shown(value)}).")
        number = int(real)
    require(number >= low, f"{name} must be {allowed} (got {shown(value)}).")
    require(number <= high, too_big)
    return number


def check_n(value, low: int = 1, name: str = "n (respondents)") -> int:
    """A number of respondents: a whole number in [low, MAX_N]."""
    return check_whole(value, low, name, MAX_N)


def check_seed(value, name: str = "seed") -> int:
    """The seed of a simulation: a whole number in [0, MAX_SEED]."""
    return check_whole(value, 0, name, MAX_SEED)


def check_eps(value: float, name: str = "eps_c", upper: float = math.inf) -> float:
    """A privacy parameter epsilon must be a finite number > 0 (nats), at most upper (a protocol's: MAX_EPS)."""
    value = _number(value, name)
    require(value > 0 and value < float("inf"), f"{name} must be a finite number > 0 (got {value:g}).")
    require(value <= upper, f"{name} must be at most {upper:g} nats (got {value:g}).")
    return value


def check_delta(value: float, name: str = "delta") -> float:
    """delta must lie strictly between 0 and 1."""
    value = _number(value, name)
    require(0 < value < 1, f"{name} must lie strictly between 0 and 1 (got {value:g}).")
    return value
