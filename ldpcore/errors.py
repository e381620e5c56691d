"""The one exception type that crosses the library boundary, and the shared input checks.

Every check on user input (files, parameters, accountant validity) raises
``InputError`` with a single sentence naming the field and the allowed range, so the
command line prints it on one line and the dashboard shows it with ``st.error``.
"""
import math


class InputError(ValueError):
    """Invalid input: the message is one sentence, fit to show a user as is."""


def require(condition: bool, message: str) -> None:
    """Raise ``InputError(message)`` unless ``condition`` holds."""
    if not condition:
        raise InputError(message)


def _number(value, name: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number (got {value!r}).") from None


def check_whole(value, low: int, name: str) -> int:
    """A count: a finite whole number >= low."""
    number = _number(value, name)
    require(math.isfinite(number) and number == int(number) and number >= low,
            f"{name} must be a whole number >= {low} (got {value}).")
    return int(number)


def check_eps(value: float, name: str = "eps_c") -> float:
    """A privacy parameter epsilon must be a finite number > 0 (nats)."""
    value = _number(value, name)
    require(value > 0 and value < float("inf"), f"{name} must be a finite number > 0 (got {value:g}).")
    return value


def check_delta(value: float, name: str = "delta") -> float:
    """delta must lie strictly between 0 and 1."""
    value = _number(value, name)
    require(0 < value < 1, f"{name} must lie strictly between 0 and 1 (got {value:g}).")
    return value
