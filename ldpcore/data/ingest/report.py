"""Every row accounted for: the status of a row, the ``IngestReport`` of what a reader read and kept, and
the sentences a user reads about it (what was left out, what the rule did, what was taken from the data).

A reader counts its rows per status (KEPT, or why a row was left out); IngestReport.from_status turns
those counts into the report, and report_notes into the notes a Histogram carries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ldpcore.errors import InputError

# the status of a row: kept, or why it was left out
KEPT, NULL, EMPTY, OUT_OF_DOMAIN, NO_USER, NOT_NUMBER = range(6)


@dataclass(frozen=True)
class IngestReport:
    """What a reader read and kept; every row of the file is in exactly one of kept,
    nulls, empty, out_of_domain and missing_user.

    kind: "categorical", "numeric", "points", "counts" or "table". columns: the columns read.
    rows: rows of the file (data lines of a CSV, without the header). kept: rows whose value entered the aggregate.
    nulls: NULL values
    (Parquet NULL, NaN). empty: empty or blank values (an empty CSV field). out_of_domain:
    values outside the declared domain, range or bounding box (for a table: clipped into
    its range, and kept). missing_user: rows without a user id (per-user rules only).
    distinct: distinct kept values (bins or cells for numeric data and points).
    users: users with a kept value (None without a user column). respondents: n of the
    result (users for first / mode; contributions for distinct:K; the counts' sum for a
    value,count table). rule: the per-user rule ("one row per respondent", "first",
    "mode", "distinct:K", or "aggregated" for a value,count table). examples: up to five
    out-of-domain categories, most frequent first. extent: numeric data's (lo, hi) range, or
    points' (west, south, east, north) bounding box; None otherwise.
    """

    file: str
    kind: str
    columns: tuple[str, ...]
    rows: int
    kept: int
    nulls: int
    empty: int
    out_of_domain: int
    missing_user: int
    distinct: int
    users: int | None
    respondents: int
    rule: str
    examples: tuple[str, ...] = ()
    extent: tuple[float, ...] | None = None

    @classmethod
    def from_status(
        cls,
        file: str,
        kind: str,
        columns,
        status_rows: Mapping[int, int],
        *,
        distinct: int,
        users: int | None,
        respondents: int,
        rule: str,
        examples: tuple[str, ...] = (),
        extent=None,
    ) -> IngestReport:
        """The report of a file whose rows were counted per status (status_rows: KEPT, NULL, ... -> rows;
        a status no row has may be absent); columns: the columns read, None entries (no user column) left out."""
        return cls(
            file=file,
            kind=kind,
            columns=tuple(c for c in columns if c is not None),
            rows=int(sum(status_rows.values())),
            kept=int(status_rows.get(KEPT, 0)),
            nulls=int(status_rows.get(NULL, 0)),
            empty=int(status_rows.get(EMPTY, 0)),
            out_of_domain=int(status_rows.get(OUT_OF_DOMAIN, 0)),
            missing_user=int(status_rows.get(NO_USER, 0)),
            distinct=distinct,
            users=users,
            respondents=respondents,
            rule=rule,
            examples=examples,
            extent=None if extent is None else tuple(float(e) for e in extent),
        )


def rows_text(n: int) -> str:
    """ "1 row", "2,000 rows"."""
    return f"{n:,} row{'' if n == 1 else 's'}"


def range_text(lo: float, hi: float) -> str:
    """A numeric range as the notes write it: [lo, hi]."""
    return f"[{lo:g}, {hi:g}]"


def box_text(box) -> str:
    """A (west, south, east, north) box as the notes write it: W,S,E,N."""
    west, south, east, north = box
    return f"{west:g},{south:g},{east:g},{north:g}"


def missing_note(report: IngestReport) -> tuple[str, ...]:
    """The sentence on rows without a value (NULL or empty), if any."""
    if not (report.nulls or report.empty):
        return ()
    return (
        f"{rows_text(report.nulls + report.empty)} of {report.rows:,} had no value "
        f"({report.nulls:,} NULL, {report.empty:,} empty) and were left out.",
    )


def report_notes(report: IngestReport, domain_word: str) -> tuple[str, ...]:
    """The sentences a user should read: what was left out and what the rule did. domain_word names
    what values fell outside of ("declared domain", "range [lo, hi]", "box W,S,E,N")."""
    notes = list(missing_note(report))
    if report.out_of_domain:
        eg = f" (e.g. {', '.join(repr(e) for e in report.examples)})" if report.examples else ""
        notes.append(f"{rows_text(report.out_of_domain)} held values outside the {domain_word}{eg} and were left out.")
    if report.missing_user:
        notes.append(f"{rows_text(report.missing_user)} had no user id and were left out.")
    if report.users is not None:
        notes.append(f"per-user rule {report.rule}: {report.users:,} users contribute {report.respondents:,} values.")
    return tuple(notes)


def inferred_range_note(lo: float, hi: float) -> str:
    """The note for a numeric range taken from the data rather than declared."""
    return f"the range {range_text(lo, hi)} was taken from the data (min, max); a deployment fixes it in advance."


def inferred_box_note(box, quantile: float, margin: float) -> str:
    """The note for a bounding box taken from the points rather than declared (readers._extent: between the
    quantile and 1 - quantile of each axis, widened by margin of that span each way)."""
    return (
        f"the box {box_text(box)} (W,S,E,N) was taken from the points (the central {100 * (1 - 2 * quantile):g}% "
        f"of their latitudes and of their longitudes, widened by {100 * margin:g}% each way; points outside it are "
        "out of domain); a deployment fixes it in advance."
    )


def no_value_error(file: str, status_rows: Mapping[int, int], what: str) -> InputError:
    """The error when no row of what (e.g. "column 'app'") kept a value, with the rows per reason."""
    rows = status_rows
    return InputError(
        f"{file}: {what} has no usable value ({rows.get(NULL, 0):,} NULL, "
        f"{rows.get(EMPTY, 0):,} empty, {rows.get(OUT_OF_DOMAIN, 0):,} out of the domain, "
        f"{rows.get(NO_USER, 0):,} without a user id)."
    )
