"""Aggregation in DuckDB: the rows of a file counted per (value, status), reduced per user under a
per-user rule, checked against a declared domain; only counts come back to Python."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldpcore.data.ingest.input_file import InputFile
from ldpcore.data.ingest.report import NO_USER, NOT_NUMBER, OUT_OF_DOMAIN, IngestReport, rows_text
from ldpcore.data.ingest.rules import Rule, natural_order
from ldpcore.errors import InputError, require


@dataclass(frozen=True)
class Tally:
    """What one aggregation returns: the kept values (text, or bin / cell indices) and their counts under
    the rule, the rows per status, the distinct kept values, the users (None without a rule) and up to
    five out-of-domain values, most frequent first."""

    values: np.ndarray
    counts: np.ndarray
    status_rows: dict  # status -> rows
    distinct: int
    users: int | None
    examples: tuple[str, ...]

    def report(self, file: str, kind: str, columns, rule: str, respondents: int, extent=None) -> IngestReport:
        """The IngestReport of this aggregation (IngestReport.from_status)."""
        return IngestReport.from_status(
            file,
            kind,
            columns,
            self.status_rows,
            distinct=self.distinct,
            users=self.users,
            respondents=respondents,
            rule=rule,
            examples=self.examples,
            extent=extent,
        )

    def label_counts(self, domain: list[str] | None) -> tuple[list[str], np.ndarray]:
        """(labels, counts) of text values: the domain's labels in its order, else the values seen in
        natural_order."""
        labels = domain if domain is not None else natural_order([str(v) for v in self.values])
        where = {label: i for i, label in enumerate(labels)}
        counts = np.zeros(len(labels), dtype=np.int64)
        counts[[where[str(v)] for v in self.values]] = self.counts
        return labels, counts

    def index_counts(self, size: int) -> np.ndarray:
        """The counts of index values (bins, cells) 0 .. size - 1."""
        counts = np.zeros(size, dtype=np.int64)
        counts[self.values.astype(np.int64)] = self.counts
        return counts


def tally(
    inp: InputFile,
    value: str,
    status: str,
    user: str | None,
    rule: Rule | None,
    domain: list | None,
    cap: int,
    weight: str | None = None,
    source: str | None = None,
) -> Tally:
    """Aggregate the file in DuckDB: value and status are SQL over the columns of source
    (default: the file; status NULL = kept); user a column for a per-user rule; domain the
    allowed values (others are out of domain); weight a count column for a value,count
    table. Only counts come back.

    One pass counts the rows per (value, status): a table of about d rows, which gives
    the report, the domain check and, without a rule, the histogram. A per-user rule
    takes a second pass over the kept rows, grouped by user (first) or by user and value
    (mode, distinct:K); DuckDB spills those groups to disk beyond its memory limit."""
    src = _rows(inp, value, status, user, weight, source or inp.scan(row_order=user is not None))
    inp.execute(
        f"CREATE TABLE agg AS SELECT v, coalesce(st, 0) AS st, count(*) AS r, "
        f"{'sum(w)' if weight else 'count(*)'} AS c FROM ({src}) GROUP BY ALL"
    )
    inp.check_rows()
    kept = f"SELECT v, u, _rn FROM ({src}) WHERE st IS NULL"
    if domain is not None:
        inp.execute("CREATE TABLE dom AS SELECT unnest($labels) AS label", {"labels": domain})
        inp.execute(f"UPDATE agg SET st = {OUT_OF_DOMAIN} WHERE st = 0 AND v NOT IN (SELECT label FROM dom)")
        kept += " AND v IN (SELECT label FROM dom)"
    status_rows = dict(inp.query("SELECT st, sum(r)::BIGINT FROM agg GROUP BY st"))
    require(sum(status_rows.values()) > 0, f"{inp.name} holds no rows.")
    (distinct,) = inp.query("SELECT count(*) FROM agg WHERE st = 0")[0]
    require(
        distinct <= cap,
        f"{inp.name}: the data has {distinct:,} distinct values; the limit is {cap:,} "
        "(declare a domain, or bin a numeric column).",
    )
    examples = tuple(
        str(v)
        for (v,) in inp.query(
            f"SELECT v FROM agg WHERE st = {OUT_OF_DOMAIN} AND v IS NOT NULL ORDER BY r DESC, v LIMIT 5"
        )
    )
    if rule is None:
        got = inp.fetch("SELECT v, c::BIGINT AS n FROM agg WHERE st = 0")
    else:
        got = inp.fetch(
            f"SELECT v, count(*) AS n, count(*) FILTER (WHERE k = 1) AS users FROM ({_chosen(kept, rule)}) GROUP BY v"
        )
    return Tally(
        values=np.asarray(got["v"]),
        counts=np.asarray(got["n"], dtype=np.int64),
        status_rows=status_rows,
        distinct=int(distinct),
        users=None if rule is None else int(np.sum(got["users"])),
        examples=examples,
    )


def _rows(inp: InputFile, value: str, status: str, user: str | None, weight: str | None, base: str) -> str:
    """SQL: one row per row of base with v (the value), st (its status, NULL = kept) and, for a user
    column, u (the trimmed user id; none is status NO_USER) and _rn, else w (the weight) if given."""
    if user is not None:
        uref = inp.column(user, "user column")
        return (
            f"SELECT v, coalesce(st, CASE WHEN u IS NULL OR u = '' THEN {NO_USER} END) AS st, u, _rn "
            f"FROM (SELECT {value} AS v, {status} AS st, trim(CAST({uref} AS VARCHAR)) AS u, _rn FROM {base})"
        )
    return f"SELECT {value} AS v, {status} AS st{f', {weight} AS w' if weight else ''} FROM {base}"


def _chosen(kept: str, rule: Rule) -> str:
    """SQL: the values each user contributes under the rule, from the kept rows (v, u, _rn), with k = 1
    on each user's first contribution."""
    kind, k = rule
    if kind == "first":
        return f"SELECT arg_min(v, _rn) AS v, 1 AS k FROM ({kept}) GROUP BY u"
    per_value = f"SELECT u, v, count(*) AS c, min(_rn) AS f FROM ({kept}) GROUP BY u, v"
    order = "c DESC, f" if kind == "mode" else "f"
    return (
        f"SELECT v, row_number() OVER (PARTITION BY u ORDER BY {order}) AS k FROM ({per_value}) "
        f"QUALIFY k <= {k if kind == 'distinct' else 1}"
    )


def check_numbers(inp: InputFile, tally: Tally, columns) -> None:
    """InputError naming a value that is not a number, if the scan found one."""
    bad = tally.status_rows.get(NOT_NUMBER, 0)
    if not bad:
        return
    for column in columns:
        ref = inp.column(column)
        found = inp.query(
            f"SELECT {ref} FROM {inp.scan()} WHERE trim({ref}) <> '' AND "
            f"TRY_CAST(trim({ref}) AS DOUBLE) IS NULL LIMIT 1"
        )
        if found:
            raise InputError(
                f"{inp.name}: column {column!r} holds {found[0][0]!r}, which is not a number "
                f"({rows_text(bad)} without a number)."
            )
