"""Settings that are valid but impractical, in words: a protocol the library runs but no deployment would."""

from __future__ import annotations

MAX_PRACTICAL_MESSAGES = 1_000  # anonymous messages per respondent


def impractical(n: int, delta: float, messages: float | None = None) -> list[str]:
    """Warnings for settings that hold mathematically but are impractical: more than 1,000 expected messages
    per respondent, or delta >= 1/n (a mechanism that publishes one random respondent's data outright is
    (0, 1/n)-DP, so such a delta protects nobody)."""
    out = []
    if messages is not None and messages > MAX_PRACTICAL_MESSAGES:
        out.append(
            f"{messages:,.0f} anonymous messages per respondent: more than {MAX_PRACTICAL_MESSAGES:,} is "
            "impractical for a phone (bandwidth, battery, and a shuffler that must mix them all); lower tau or "
            "use fewer report fragments."
        )
    if delta >= 1 / n:
        out.append(
            f"delta = {delta:g} is at least 1/n = {1 / n:.3g}: a mechanism that publishes one random respondent's "
            "data outright satisfies (0, 1/n)-DP, so this delta protects nobody; choose delta well below 1/n."
        )
    return out
