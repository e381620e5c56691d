"""What a reader is told about the data, checked before any file is read: the per-user rule, a declared
domain, a numeric range, a bounding box, and which columns hold latitude and longitude.

The per-user rules (``user_column`` with ``per_user``) and their privacy meaning:
    no user column  every row is one respondent: the guarantee is per row, so a person
                    with several rows is protected only by group privacy over them.
    "first"         each user contributes the value of their first row (file order).
    "mode"          each user contributes their most frequent value (ties: the value
                    that appears first).
        Both keep one value per user, a function of that user's own rows only, so an
        eps-LDP report of it is eps-LDP for the user's whole record (any randomizer
        composed with a per-user preprocessing stays eps-LDP), and the shuffled
        protocol's central (eps_c, delta) holds per user, as the paper assumes.
    "distinct:K"    each user contributes up to K distinct values (the first K to appear):
                    the histogram counts contributions, not users. The one-value-per-
                    respondent guarantee holds per contributed value; for a user, group
                    privacy over K values applies (Dwork and Roth, The Algorithmic
                    Foundations of Differential Privacy, 2014, Theorem 2.2 and its
                    (eps, delta) form): eps_l grows to K * eps_l and the central guarantee
                    to (K * eps_c, K * e^((K - 1) eps_c) * delta).
A deployment computes the rule on the user's device before randomizing; here it is
computed on the pooled file only to simulate that.

Category labels keep their text and are sorted as numbers when every label is a number, else by
text (code-point order): natural_order.
"""

from __future__ import annotations

import math

from ldpcore.errors import InputError, check_whole, require

MAX_DOMAIN = 2_000_000  # the most distinct values (or bins) a histogram may have
ONE_ROW = "one row per respondent"  # the rule's name without a user column
LAT_NAMES = ("lat", "latitude")  # column names found as latitude (any case, surrounding spaces ignored)
LON_NAMES = ("lon", "lng", "long", "longitude")  # ... and as longitude

Rule = tuple[str, int]  # ("first" | "mode" | "distinct", K)


def parse_rule(per_user: str) -> Rule:
    """("first" | "mode" | "distinct", K) from "first", "mode" or "distinct:K" (K >= 1)."""
    text = str(per_user).strip().lower()
    if text in ("first", "mode"):
        return text, 1
    if text.startswith("distinct:"):
        return "distinct", check_whole(text.split(":", 1)[1], 1, "K in per_user distinct:K")
    raise InputError(f"per_user must be first, mode or distinct:K with K >= 1 (got {per_user!r}).")


def user_rule(user_column: str | None, per_user: str | None) -> tuple[Rule | None, str]:
    """(the rule, or None for one row per respondent; its name for IngestReport.rule) of a reader's
    user_column and per_user ("first" when only a user column is given)."""
    if user_column is None:
        require(per_user is None, "per_user needs a user_column naming who each row belongs to.")
        return None, ONE_ROW
    rule = parse_rule(per_user or "first")
    return rule, rule[0] if rule[0] != "distinct" else f"distinct:{rule[1]}"


def check_domain(domain, cap: int) -> list[str] | None:
    """A declared domain as text without surrounding spaces (as SQL's TRIM): 1 to cap
    distinct, non-empty values; None for none."""
    if domain is None:
        return None
    values = [str(v).strip(" ") for v in domain]
    require(0 < len(values) <= cap, f"the domain needs 1 to {cap:,} values (got {len(values):,}).")
    require("" not in values, "the domain cannot hold an empty value.")
    seen: set[str] = set()
    dup = None
    for v in values:
        if v in seen:
            dup = v
            break
        seen.add(v)
    require(dup is None, f"the domain lists the value {dup!r} twice.")
    return values


def natural_order(labels: list[str]) -> list[str]:
    """Sorted as numbers when every label is a finite number, else by text."""
    try:
        keys = [float(v) for v in labels]
    except ValueError:
        return sorted(labels)
    if not all(math.isfinite(k) for k in keys):
        return sorted(labels)
    return [v for _, v in sorted(zip(keys, labels))]


def parse_range(value_range, what: str) -> tuple[float, float]:
    """(lo, hi) from two numbers, finite with lo < hi; what names the data in the message."""
    try:
        lo, hi = (float(v) for v in value_range)
    except (TypeError, ValueError):
        raise InputError(f"the range of {what} needs two numbers lo, hi (got {value_range!r}).") from None
    require(
        math.isfinite(lo) and math.isfinite(hi) and lo < hi,
        f"the range of {what} needs finite lo < hi (got {value_range!r}).",
    )
    return lo, hi


def parse_bbox(bbox) -> tuple[float, float, float, float]:
    """(west, south, east, north) in degrees, from a 4-tuple or the text "W,S,E,N" (the order
    of RFC 7946, GeoJSON, Sec. 5); south < north within [-90, 90], west < east within
    [-180, 180] (a box across the antimeridian is not supported)."""
    parts = bbox.split(",") if isinstance(bbox, str) else list(bbox)
    require(len(parts) == 4, f"bbox needs four numbers west,south,east,north (got {bbox!r}).")
    try:
        west, south, east, north = (float(p) for p in parts)
    except (TypeError, ValueError):
        raise InputError(f"bbox needs four numbers west,south,east,north (got {bbox!r}).") from None
    require(
        -90 <= south < north <= 90 and -180 <= west < east <= 180,
        f"bbox needs -180 <= west < east <= 180 and -90 <= south < north <= 90 (got {bbox!r}).",
    )
    return west, south, east, north


def point_columns(names) -> tuple[str | None, str | None]:
    """(latitude, longitude) columns found by name among names, as read_points finds them
    (lat/latitude and lon/lng/long/longitude, any case); None where not exactly one matches."""
    names = list(names)
    found = [[c for c in names if c.strip().lower() in wanted] for wanted in (LAT_NAMES, LON_NAMES)]
    lat, lon = (f[0] if len(f) == 1 else None for f in found)
    return lat, lon
